"""What a passage names and what the question's words point at, for the extractive answer and the focus
(`answer/extractive.py`, `answer/focus.py`): a passage's content words, the identifiers it names (code spans,
`name=value`, dotted names, snake_case, CamelCase) as words, the question words those point at (the same word, an
abbreviation, a word run into a name), and dotted numbers ("3.9") and short command-line options ("-j") matched
verbatim.
"""

from __future__ import annotations

import functools
import re

from ragls.answer.cite import content_words

__all__ = ["IDENTIFIER", "LITERAL", "MIN_INSIDE", "MIN_PREFIX", "SHORT_OPTION", "identifier_words", "literal_terms",
           "passage_words", "pointed_at"]

MIN_PREFIX = 3  # an identifier word this long that begins a question word (or the reverse) points at it
MIN_INSIDE = 4  # a question word this long inside an identifier word ("length" in "linelength") is pointed at

# What reads as an identifier in prose: a code span, `name=value`, `a.b`, snake_case, CamelCase with an inner capital.
IDENTIFIER = re.compile(r"`[^`\n]+`|\b\w+=\S*|\b[A-Za-z_]\w*\.[A-Za-z_][\w.]*|\b[a-z]+_\w+|\b[A-Z][a-z0-9]+[A-Z]\w*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# A dotted number in prose ("3.9", "25.12.0", "1.1.1.1"): content words drop its parts (single digits), so a
# question naming a version finds nothing by its words.
LITERAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w]|\.\d)")
# A short command-line option ("-j", "-e", "-vv"): content words drop one-letter words, so "What does the -j option
# do?" scored the "-d" option's sentence of the same chunk as well as "-j N, --jobs N" (Sphinx's sphinx-build page).
# Not inside a word or a longer option ("e-mail", "-jobs", "--j"), not a number ("-1").
SHORT_OPTION = re.compile(r"(?<![\w-])-[A-Za-z]{1,2}(?![\w-])")


def literal_terms(text: str) -> set[str]:
    """The dotted numbers ("Python 3.9" -> {"3.9"}) and short options ("-j N" -> {"-j"}) `text` names: terms
    matched verbatim beside content words, which drop both (their parts are one character long)."""
    found = set(LITERAL.findall(text)) if "." in text else set()
    if "-" in text:
        found |= set(SHORT_OPTION.findall(text))
    return found


@functools.lru_cache(maxsize=8192)
def identifier_words(text: str) -> frozenset[str]:
    """Content words (`cite.content_words`, stemmed) of the identifiers `text` names: code spans, `name=value`,
    dotted names, snake_case and CamelCase words, split at "_", ".", "=" and inner capitals ("PoolTimeout" ->
    {"pool", "timeout"}); memoised (a passage is scored again on every query that retrieves it)."""
    out: set[str] = set()
    for m in IDENTIFIER.finditer(text):
        out.update(content_words(_CAMEL.sub(" ", m.group(0))))
    return frozenset(out)


def pointed_at(named: frozenset[str], query: set[str] | frozenset[str]) -> frozenset[str]:
    """The words of `query` that identifier words `named` (`identifier_words`) point at: the same word, or one
    the identifier abbreviates or extends — the shorter of the two, at least MIN_PREFIX characters, begins the
    longer (`chars` for "characters", `len` for "length", `Config` for "configuration", `num_pools` for
    "number"; identifiers are often cut-down words), or a question word of at least MIN_INSIDE characters lies
    inside the identifier word (`g:black_linelength` for "length": names run words together). Memoised per
    (`named`, `query`): a question's passages are scored by the focus of each hit and again by its answer."""
    if not named or not query:
        return frozenset()
    return _pointed_at(frozenset(named), frozenset(query))


@functools.lru_cache(maxsize=8192)
def _pointed_at(named: frozenset[str], query: frozenset[str]) -> frozenset[str]:
    out = set(named & query)
    for a in named:
        for b in query:
            short, long_ = (a, b) if len(a) <= len(b) else (b, a)
            if len(short) >= MIN_PREFIX and long_.startswith(short) or len(b) >= MIN_INSIDE and b in a:
                out.add(b)
    return frozenset(out)


@functools.lru_cache(maxsize=8192)
def passage_words(text: str) -> frozenset[str]:
    """The content words of a passage (`cite.content_words`), memoised like the passages themselves."""
    return frozenset(content_words(text))
