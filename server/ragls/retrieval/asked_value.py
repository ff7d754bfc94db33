"""Answer type for abstention: a question that asks for a VALUE, and passages that never give one.

A near miss made of the corpus' own words ("Which port does blackd listen on by default?", "How many threads does
cargo test use?") finds passages that discuss its subject — every word matches, the cosine is high — but the asked
fact, a number or a default, is not there. Word statistics cannot see that (docs/benchmarks.md, "Abstention: third
round"); the answer type can: the question asks for a value, and no sentence about its subject states one.

- `asked_value(text)`: what the asking sentences (`asked_sentences`) ask for. "amount" when a sentence
  or clause OPENS with a quantity question — how many / much / long / large / big / high / old / often / far, or
  what/which + a quantity noun within its first words (which port, what chunk size, what is the maximum length:
  `_QUANTITY_NOUNS`) — and "default"
  when the question also asks for the default ("by default", "the default X", "default to"); "default" alone for
  "What is the default X?" / "Which X does Y use by default?" / "What does X default to?". None otherwise: a
  question that asks HOW to set a number ("How do I set how many workers Black uses?") asks for a way, not a value.
- `value_stated(kind, subject, passages)`: whether some passage states one, near the subject. A passage is split
  into sentences (hard line wraps joined; blank lines, list items and reST fields end a sentence) and a sentence
  holding a subject term opens a window of itself and the next `WINDOW - 1` sentences (a field's value often
  follows it: ":param backlog: ... for details." then "``128`` by default."). In that window an "amount" question
  needs an amount (`AMOUNT`: a number, with or without a unit; a number word; unlimited / no limit / unbounded /
  infinite / indefinitely; "does not time out" / "never expires" / "no timeout"; `None`), and a "default-amount" one an amount in a sentence that says "default" or in a signature's
  keyword default (".. function:: run_app(app, *, shutdown_timeout=60.0"); a "default" question needs a sentence saying what the default is: "defaults to ..." / "the
  default is ..." / "Default: ..." / a keyword default `name=value` or `name = value` (a signature, a config
  file), or a sentence holding "default" and a value (an amount, a literal in backticks or quotes, True / False,
  on / off, enabled / disabled).
- `value_missing(text, passages, subject)`: the question asks for a value and no passage states one (the
  evidence `value_missing` in `abstention.gather`, over the top hits' titles and texts — whole chunks, not only
  their focus lines, so a focus chosen elsewhere in the chunk does not make the value look missing).

The subject (`subject_terms`, chosen by the caller from the index statistics) is the option or identifier the question
writes as code (retryBudgetPercent, --max-body-size, cert_reqs), else its two rarest terms the corpus holds, without
the words of the value itself (default, maximum, number, size...). Every list here is a
fixed English vocabulary of how values are asked for and stated, not fitted to any corpus; the rule and its
measurement (leave-one-corpus-out on five dev corpora and a value probe set over them): docs/benchmarks.md,
"Answer type: a value asked, none stated".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ragls.core.analysis import STOPWORDS, query_words, stem_set, stems

WINDOW = 3  # the sentence holding the subject and the next two: where a field's or an option's value is stated
SUBJECT_TERMS = 2  # the question's rarest present terms that make a sentence "about" its subject

_QUANTITY_NOUNS = (r"size|sizes|port|ports|timeout|timeouts|limit|limits|maximum|minimum|max|min|largest|smallest|"
                   r"highest|lowest|number|count|length|capacity|duration|interval|depth|amount")
_LEAD = r"(?:^|[,;:(]\s*|\b(?:and|or|but|so|then)\s+)"  # a sentence or a clause opens
_AMOUNT_Q = re.compile(_LEAD + r"(?:(?:for|in|at|to|up to|by|after)\s+)?how\s+(?:many|much|long|large|big|high|"
                       r"old|often|far|small|low|fast|deep)\b"
                       + r"|" + _LEAD + r"(?:what|which)\s+(?:(?:is|are|was)\s+)?(?:the\s+)?(?:[\w-]+\s+){0,2}?(?:"
                       + _QUANTITY_NOUNS + r")\b",
                       re.IGNORECASE)
# "What is the default X?", "Which X does Y use by default?", "What does X default to?"
_DEFAULT_Q = re.compile(_LEAD + r"(?:what|which)\b[^?.!]*\bdefaults?\b", re.IGNORECASE)
# An amount asked for its default: "by default", or in other words ("when I don't pass one", "if I don't configure
# anything", "without setting it")
_UNSET_Q = re.compile(r"\bdefaults?\b|\b(?:if|when|unless)\s+(?:I|you|we|one)\s+(?:do not|don't|dont|never)\s+"
                      r"(?:pass|set|give|configure|specify|change|provide|supply)\b|\bwithout (?:passing|setting|"
                      r"giving|configuring|specifying)\b|\bout of the box\b|\bif (?:I|you) leave\b", re.IGNORECASE)
# Words of the value itself: never the subject
VALUE_WORDS = frozenset(stems(
    "default defaults maximum minimum max min largest smallest highest lowest number count size length limit "
    "capacity value values amount many much long large big high low small often far deep fast old time"))

_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
                 r"sixty|hundred|thousand|million|billion|single|dozen|half")
# A number that names a place, not a value (Listing 16-2, Chapter 4, RFC 8305, Python 3.5, v2.0): not an amount
_REFERENCE = re.compile(r"\b(?:listing|chapter|figure|fig|table|section|appendix|step|rfc|pep|issue|python|version|"
                        r"v)\s?\d[\d.-]*", re.IGNORECASE)
AMOUNT = re.compile(r"(?<![A-Za-z_])\d[\d,._]*(?:\s*[A-Za-z%]+)?|\b(?:" + _NUMBER_WORDS + r")\b|\bunlimited\b|"
                    r"\bno (?:\w+ )?limit\b|\bunbounded\b|\binfinite(?:ly)?\b|\bforever\b|\bindefinitely\b|\bNone\b|\bnull\b|"
                    r"(?<!^)(?<![.!?]\s)\b(?:do|does|will|would|can|did|wo|ca)(?:\s+not|n't|n’t)\s+(?:ever\s+)?(?:time\s?out|expire)|"
                    r"\bcannot\s+(?:ever\s+)?(?:time\s?out|expire)|"
                    r"\bnever\s+(?:times?\s?out|expires?)\b|\b(?:no|without\s+(?:a|any))\s+timeout\b(?!\s+(?:parameter|argument|option|setting|field))",
                    re.IGNORECASE)
_LITERAL = re.compile(r"`[^`\n]+`|\"[^\"\n]+\"|'[^'\n]+'|\b(?:True|False|true|false|on|off|enabled|disabled)\b")
_DEFAULT_IS = re.compile(r"\bdefaults?\s+(?:to|is|are|value is)\b\s*\S|\bdefault\s*:\s*\S", re.IGNORECASE)
_KEYWORD_DEFAULT = re.compile(r"[\w.-]+\s?=\s?(?:[\d\"'(\[{]|-\d|None\b|True\b|False\b)")
# A keyword default in a signature (".. function:: run_app(app, *, shutdown_timeout=60.0", "def f(x=5)"): the
# reference's way of stating a default amount; a call or a command line in an example (timeout=4.0,
# --test-threads=1) is not one
_SIGNATURE_DEFAULT = re.compile(r"(?:\.\. \w+::|\bdef |\bclass |\bfn )[^\n]*?[(,]\s*\*?\s*[A-Za-z_]\w*\s?=\s?"
                                r"(?:-?\d|None\b)")
_TAG = re.compile(r"<[^<>\n]*>")  # an HTML/XML tag (<Listing number="16-1">): markup, not a value
_DEFAULT_WORD = re.compile(r"\bdefault", re.IGNORECASE)
# A sentence ends at its punctuation, a blank line, a list item or a reST/Markdown field or heading
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*+]\s|\d+\.\s|:\w[^:\n]*:|#|\.\. ))")


# Words of a question that asks for help without naming its subject ("What am I doing wrong?", "How do I fix
# this?", "Any idea why?"): an asking sentence made only of these (and stop words) points back at the sentences
# before it. A fixed English vocabulary of how help is asked for, not fitted to any corpus.
_GENERIC_ASKING = frozenset((
    "wrong", "right", "way", "ways", "fix", "fixed", "work", "works", "working", "worked", "bug", "bugs", "problem",
    "problems", "issue", "issues", "happen", "happens", "happening", "happened", "going", "mean", "means", "meant",
    "use", "using", "instead", "solve", "solution", "avoid", "help", "idea", "ideas", "reason", "why", "best",
    "correct", "possible", "expected", "behaviour", "behavior", "thing", "things", "something", "anything", "anyone",
    "else", "missing", "miss", "cause", "causes", "caused", "explain", "explanation", "supposed"))


def asked_sentences(text: str) -> str:
    """The part of a question that asks: without a quoted selection (`extractive.asked_text`: Ask About Selection's
    fenced block), and of several sentences only those ending in "?" when there are any. "I run it on Ubuntu
    inside Docker. How do I set the secret key?" asks about the secret key; Ubuntu is context. When the asking
    sentences name no subject — every content word is one of how help is asked for (`_GENERIC_ASKING`): "My
    handler for /users/me never runs. What am I doing wrong?" — the whole question asks."""
    from ragls.answer.extractive import asked_text

    prose = asked_text(text)
    sentences = [x for x in re.split(r"(?<=[.?!])\s+(?=[A-Z\"'(`])", prose.strip()) if x]  # not after "e.g. x"
    asking = [x for x in sentences if x.rstrip().endswith("?")]
    if not asking or len(asking) == len(sentences):
        return prose
    if all(w in STOPWORDS or w in _GENERIC_ASKING for w in query_words(" ".join(asking))):
        return prose
    return " ".join(asking)


def asked_value(text: str) -> str | None:
    """"amount", "default-amount", "default" or None: whether the part of the question that asks
    (`asked_sentences`) asks for a value, and of which type (module docstring)."""
    asked = asked_sentences(text)
    if _AMOUNT_Q.search(asked):
        return "default-amount" if _UNSET_Q.search(asked) else "amount"
    return "default" if _DEFAULT_Q.search(asked) else None


def sentences(text: str) -> list[str]:
    """The sentences of a passage, hard line wraps joined (see `_SENTENCE_END`)."""
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text) if s and s.strip()]


def _amount(sentence: str) -> bool:
    return AMOUNT.search(_REFERENCE.sub(" ", sentence)) is not None


def _states(kind: str, sentence: str) -> bool:
    """Whether `sentence` states a value of `kind` (`asked_value`)."""
    sentence = _TAG.sub(" ", sentence)
    if kind == "amount":
        return _amount(sentence)
    if _DEFAULT_IS.search(sentence):
        return True
    said = _DEFAULT_WORD.search(sentence) is not None
    if kind == "default-amount":
        return (said and _amount(sentence)) or _SIGNATURE_DEFAULT.search(sentence) is not None
    return _KEYWORD_DEFAULT.search(sentence) is not None or (said and (_amount(sentence)
                                                                      or _LITERAL.search(sentence) is not None))


def value_stated(kind: str, subject: Iterable[str], passages: Sequence[str]) -> bool:
    """True when some passage states a value of `kind` ("amount" / "default") within `WINDOW` sentences from a
    sentence holding a `subject` term (BM25 terms, `analysis.stems`); any sentence counts without a subject."""
    subject = set(subject)
    for passage in passages:
        parts = sentences(passage)
        for i, s in enumerate(parts):
            if subject and not (stem_set(s) & subject):
                continue
            if any(_states(kind, t) for t in parts[i:i + WINDOW]):
                return True
    return False


# A name written as code: camelCase (retryBudgetPercent, CookieJar), joined by "_", ".", "::" (cert_reqs,
# HTTPResponse.stream, thread::spawn) or an option (--max-body-size); not a capitalised word or an acronym (Black, TLS)
_CODE_NAME = re.compile(r"[a-z][A-Z]|[A-Za-z0-9][_.:]+[A-Za-z0-9]|^-")


def subject_terms(weights: dict[str, float], dfs: dict[str, int], names: dict[str, list[str]] | None = None,
                  n: int = SUBJECT_TERMS) -> list[str]:
    """The question's subject (BM25 terms): the terms of the names it writes as code (`names`: {name: terms},
    `abstention.name_terms`; `_CODE_NAME`: retryBudgetPercent, cert_reqs, --max-body-size) that the corpus holds,
    and its `n` other asked terms of highest IDF (`weights`) that the corpus holds (document frequency `dfs` > 0)
    — not a word of such a name (retry, budget, percent: the name stands for them) nor of the value itself
    (`VALUE_WORDS`)."""
    coded = {name: terms for name, terms in (names or {}).items() if _CODE_NAME.search(name.split("=")[0])}
    subject = [t for terms in coded.values() for t in terms if dfs.get(t, 0) > 0]
    parts = {t for name in coded for t in stems(" ".join(query_words(name)))}
    rest = [t for t in weights if dfs.get(t, 0) > 0 and t not in VALUE_WORDS and t not in parts and t not in subject]
    return list(dict.fromkeys(subject + sorted(rest, key=lambda t: -weights[t])[:n]))


def value_missing(text: str, passages: Sequence[str], subject: Iterable[str] | Callable[[], Iterable[str]]) -> bool:
    """True when the question `text` asks for a value (`asked_value`) and none of `passages` (the top hits' titles
    and texts) states one near its `subject` (`value_stated`; a callable is called only for a value question, so
    other questions cost one regex pass)."""
    kind = asked_value(text)
    if kind is None:
        return False
    return not value_stated(kind, subject() if callable(subject) else subject, passages)
