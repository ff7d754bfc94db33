"""Names a question asks about that the documents never write (issue 27, abstention's name test): a name no chunk of
the corpus holds (`absent_names`, from the sources' document frequencies of its BM25 terms, `lookup_terms`) or none
of an answer's passages mentions (`unmentioned_names`). Which words of a question are names, and which are the
user's own material, is retrieval/names.py's (`question_names`, `name_terms`); here a name counts as written in
the forms documents use for it too: closed up ("multithreaded", `closed_compound`), as a pattern of its digits
("_MEI{xxxxxx}", `digit_pattern`), in American spelling, spelled out ("Visual Studio" for VS, `spelled_out`), and an
everyday acronym (RAM, CPU: `everyday_acronym`) is no name the docs must write. A question about a named thing the
documents never mention is one they do not answer (`abstention.Evidence.absent_name`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragls.core.analysis import stem_set, stems
from ragls.core.ir import Hit
from ragls.embedding.vocabulary import wordpiece_words as _english_words
from ragls.retrieval.english import HYPHEN_PREFIXES, american_spellings
from ragls.retrieval.names import KEBAB, name_phrases, name_terms, placeholder

# HTTP/3, User-Agent, X-Forwarded-For, HTTP/1.1: one name, not its words (an identifier's joints "_" "::" "." are not)
_PHRASE_NAME = re.compile(r"[^\W_]+(?:(?:[-/]|(?<=\d)\.(?=\d))[^\W_]+)+")
_ACRONYM = re.compile(r"[A-Z]{2,6}")
_CODE_FRAGMENT = re.compile(r"[()=\"'`]")  # `unmentioned_names`: a call, an assignment, a quoted value


def _kebab_parts(name: str) -> list[str] | None:
    """The words of a lower-case name joined by "-" (`names.KEBAB`: "--line-length" -> ["line", "length"]); None for
    any other name."""
    return name.strip("-").split("-") if KEBAB.fullmatch(name) else None


def closed_compound(name: str) -> list[str]:
    """The BM25 terms of a kebab-case name written closed up ("multi-threaded" -> ["multithread"]): the docs may
    write it so. [] for another name."""
    parts = _kebab_parts(name)
    return stems("".join(parts)) if parts else []


# A name ending in a run of digits ("_MEI123456", "build1234"): an instance of a family of generated names that the
# docs may write with an "x" for each digit (`_MEIxxxxxx`, `_MEI{xxxxxx}`), as _NUMBER_PATTERN reads 4xx
_NUMBERED = re.compile(r"[\W_]*([A-Za-z]{2,})(\d{2,})")


def digit_pattern(name: str) -> tuple[list[str], list[str]]:
    """(the BM25 terms of `name` with its final digits written as as many x's after its letters, those terms
    closed up) for a name of two letters or more and then two digits or more (`_NUMBERED`; not x86):
    "_MEI123456" -> (["mei", "xxxxxx"], ["meixxxxxx"]); ([], []) for another name. `absent_names` counts the name as mentioned when the docs
    write that pattern: a user's temporary folder "_MEI123456" is the docs' "_MEI{xxxxxx}"."""
    m = _NUMBERED.fullmatch(name)
    if m is None:
        return [], []
    letters, digits = m.group(1).lower(), "x" * len(m.group(2))
    return stems(f"{letters} {digits}"), stems(letters + digits)


def lookup_terms(text: str) -> list[str]:
    """Every BM25 term `absent_names` asks the sources' document frequencies of for the question `text`: its
    names' terms (`name_terms`), their closed-up forms (`closed_compound`), a numbered name's pattern
    (`digit_pattern`) and a British spelling's American one (`english.american_spellings`), each once."""
    names = name_terms(text)
    return list(dict.fromkeys([t for ts in names.values() for t in ts] + [t for n in names for t in closed_compound(n)]
                              + [t for n in names for ts in digit_pattern(n) for t in ts]
                              + [t for n in names for a in american_spellings(n) for t in stems(a)]))


def everyday_acronym(name: str) -> bool:
    """True when `name` is an acronym (2-6 capital letters, `_ACRONYM`) that general English writes as a word: a
    whole word of BERT's uncased WordPiece vocabulary (`_english_words`), the ~22,000 words frequent in English
    Wikipedia and books — RAM, CPU, PC, USB, OS, API, HTTP, PDF — but not a protocol's or a product's initials
    (NTLM, TLS, JWT, CORS, JSON, QUIC, SPNEGO, AWS) nor what mixes case or digits (OAuth, K8S). Such a word is
    everyday shorthand for a thing docs may call by its meaning ("memory" for RAM), so its absence does not say
    that the documents miss the question's subject (`absent_names`). A homograph counts too (SOAP, ARM, REST):
    a near miss about it is left to the word-level evidence. A general vocabulary, not one fitted to questions
    (bench/history/held-out-sets-4-to-6.md, "Everyday shorthand is no absent name")."""
    return _ACRONYM.fullmatch(name) is not None and name.lower() in _english_words()


def absent_names(stats: Sequence[tuple[int, dict[str, int]]], text: str, phrase=None) -> tuple[str, ...]:
    """The names the question mentions (`question_names`) that no chunk holds: one of the name's terms has document
    frequency 0 in every source of `stats` (each source's (chunk count, {term: df}) over its WHOLE corpus, asked
    for `name_terms` too), or — for a name written as words joined by "-" or "/" (HTTP/3, User-Agent) — its terms
    never stand together: `phrase(terms)` (True when some chunk of some source holds them as a phrase) says no.
    A term no source reports counts as present (unknown), and so does a phrase without `phrase`; an identifier
    (trust_env, os.path.join, checked_add) is judged by its terms, as the docs may name it as a family
    (`checked_*`). A question about NTLM or HTTP/3 asked of documents that never say NTLM or HTTP/3 is one they
    do not answer. An everyday acronym (`everyday_acronym`: RAM, CPU) counts as mentioned: a user's "uses all my
    RAM" names no thing the docs must mention (its word still weighs in the word-level evidence, as a term in no
    chunk); so does a numbered name whose pattern the docs write (`digit_pattern`: "_MEI123456" for "_MEI{xxxxxx}")
    and a lower-case word in a British spelling whose American spelling the docs write (`_american_held`:
    "anonymise" for "anonymize"; `lookup_terms` asks for its terms). () without stats."""
    if not stats:
        return ()

    def unknown(t: str) -> bool:  # in no chunk of any source that reports it (a term none reports is unknown)
        return all(dfs.get(t, 1) == 0 for _, dfs in stats) and any(t in dfs for _, dfs in stats)

    out = []
    for name, terms in name_terms(text).items():
        if everyday_acronym(name):
            continue
        parts = _kebab_parts(name)
        if parts is not None:  # cargo-fuzz: a word of it in no chunk, unless a prefix or the docs write it closed up
            closed = any(dfs.get(t, 0) > 0 for t in closed_compound(name) for _, dfs in stats)
            if not closed and any(p not in HYPHEN_PREFIXES and not placeholder(p) and any(unknown(t) for t in stems(p))
                                  for p in parts):
                out.append(name)
        elif (any(unknown(t) for t in terms) or (phrase is not None and len(terms) > 1 and _PHRASE_NAME.fullmatch(name)
                                                  and not phrase(terms))) and not _documented_pattern(name, stats, phrase) \
                and not _american_held(name, stats):
            out.append(name)
    return tuple(out)


def _american_held(name: str, stats: Sequence[tuple[int, dict[str, int]]]) -> bool:
    """True when `name` is a lower-case word in a British spelling whose American spelling (`english.
    american_spellings`) the docs write: every term of it in some chunk of `stats`. "Can Caddy anonymise them?" was
    refused on docs that write "anonymize", a word the dictionary here lacks in either spelling (bench/history/
    session-66.md, "Abstention: three word probes")."""
    if not name.islower():
        return False
    for spelling in american_spellings(name):
        terms = stems(spelling)
        if terms and all(any(dfs.get(t, 0) > 0 for _, dfs in stats) for t in terms):
            return True
    return False


def _documented_pattern(name: str, stats: Sequence[tuple[int, dict[str, int]]], phrase) -> bool:
    """True when the docs write the numbered `name`'s pattern (`digit_pattern`): its closed-up term in some chunk of
    `stats`, or its terms as a phrase (`phrase(terms)`, when given)."""
    spaced, closed = digit_pattern(name)
    if not spaced:
        return False
    return any(dfs.get(t, 0) > 0 for t in closed for _, dfs in stats) or (phrase is not None and bool(phrase(spaced)))


def unmentioned_names(text: str, hits: Sequence[Hit]) -> tuple[str, ...]:
    """The names the question `text` mentions where it asks (`question_names`) that none of `hits` mentions: a term
    of the name (`name_terms`) is in no hit's title or text — "How do I create a Postgres table partitioned by
    month?" answered from passages about migrations that never say Postgres. An everyday acronym
    (`everyday_acronym`: RAM, CPU, API) and an acronym a hit spells out (`spelled_out`: VS for "Visual Studio")
    count as mentioned, as in `absent_names`, whose names no chunk at all holds; these are in some chunk, but not
    in the passages an answer is made of. A piece of the user's code read as a name (a call or an assignment
    written without backticks: "structlog.get_logger().bind(service='billing") is left out: it is theirs, and
    shown back it reads as garbage. () without hits or names."""
    names = {n: terms for n, terms in name_terms(text).items() if not _CODE_FRAGMENT.search(n)}
    if not hits or not names:
        return ()
    held = frozenset().union(*(stem_set(f"{h.chunk.title}\n{h.chunk.text}") for h in hits))
    phrases = name_phrases(text)
    return tuple(dict.fromkeys(phrases.get(n, n) for n, terms in names.items()
                               if not set(terms) <= held and not everyday_acronym(n) and not spelled_out(n, hits)))


# A host name in a passage (test.pypi.org, docs.example.com): its labels before the last
_HOST = re.compile(r"(?<![\w.@-])((?:[A-Za-z0-9-]+\.)+)[A-Za-z]{2,}\b")


def spelled_out(name: str, hits: Sequence[Hit]) -> bool:
    """True when a hit writes `name` in another form: an acronym (2-6 capital letters: VS, JWT, CORS) spelled out as
    capitalised words with those initials ("Visual Studio Code" for VS, "JSON Web Token" for JWT), or a name of
    capitalised parts written as two or more labels of a host ("TestPyPI" as test.pypi.org, whose labels joined
    are the name in lower case: a service named after its address). The documents call it so, so it is
    mentioned although the name itself is not."""
    if _ACRONYM.fullmatch(name):
        for hit in hits:
            words = re.findall(r"[^\W\d_][\w']*", f"{hit.chunk.title}\n{hit.chunk.text}")
            initials = "".join(w[0] if w[0].isupper() else " " for w in words)
            if name in initials:
                return True
        return False
    if not re.fullmatch(r"[A-Za-z0-9]+", name) or not any(c.isupper() for c in name[1:]):
        return False
    wanted = name.lower()
    return any(_labels_join(m.group(1).lower().rstrip(".").split("."), wanted)
               for hit in hits for m in _HOST.finditer(hit.chunk.text))


def _labels_join(labels: list[str], wanted: str) -> bool:
    """Whether two or more consecutive `labels` joined are `wanted`. Each run is joined only while it is no longer
    than `wanted`: linear in the labels (trying every run, joined whole, was cubic — 6 s for a 2 KB chain of
    one-letter labels in a chunk, at every question naming a CamelCase name the docs do not hold)."""
    for i in range(len(labels)):
        joined = labels[i]
        for label in labels[i + 1:]:  # two labels at least
            joined += label
            if len(joined) > len(wanted):
                break
            if joined == wanted:
                return True
    return False
