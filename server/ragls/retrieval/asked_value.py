"""Answer type for abstention: a question that asks for a VALUE, and passages that never give one.

A near miss made of the corpus' own words ("Which port does blackd listen on by default?", "How many threads does
cargo test use?") finds passages that discuss its subject — every word matches, the cosine is high — but the asked
fact, a number or a default, is not there. Word statistics cannot see that (bench/history/held-out-sets-4-to-6.md, "Abstention: third
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
  on / off, enabled / disabled); a paragraph opening "By default, ..." also speaks for the value a sentence up to
  `DEFAULT_SCOPE` sentences later states ("It also listens on the IP address `127.0.0.1`": `_default_scope`).
  A link's target or a URL states its host and port, not its path ("serves it on http://localhost:4000":
  `stated_text`); an address's numbers (localhost:4000, 127.0.0.1) answer a question that asks for a port only,
  never how many, how long or how large (`_ADDRESS_NUMBER`).
- `value_missing(text, passages, subject)`: the question asks for a value and no passage states one (the
  evidence `value_missing` in `abstention.gather`, over the top hits' titles and texts — whole chunks, not only
  their focus lines, so a focus chosen elsewhere in the chunk does not make the value look missing).

The subject (`subject_terms`, chosen by the caller from the index statistics) is the option or identifier the question
writes as code (retryBudgetPercent, --max-body-size, cert_reqs), its two rarest terms the corpus holds, without
the words of the value itself (default, maximum, number, size...) and without a term most passages hold
(`COMMON_SHARE`: "request" of request.json() on a web framework's docs), and what it measures (`measured_terms`: the
counted noun of "how many <things>" / "number of <things>", a timeout or port it names): a paraphrase's rarest words
describe its situation ("If I never pass a timeout and the server stops answering, how long will my call sit
there?"), which the answering sentence ("requests do not time out") does not repeat. A question that counts
(`asked_count`: "how many host entries") is not answered by a duration or a size ("cached for 10 seconds"); a
value after a list item or field opens belongs to it, not to the sentence before (`_BLOCK_START`); a default is
also stated by a signature whose parameter is named with one of the question's words (`parameter_default`:
`shutdown_timeout=60.0` for "a graceful shutdown"). Every list here is a
fixed English vocabulary of how values are asked for and stated, not fitted to any corpus; the rule and its
measurement (leave-one-corpus-out on five dev corpora and a value probe set over them): bench/history/held-out-sets-4-to-6.md,
"Answer type: a value asked, none stated".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from ragls.core.analysis import STOPWORDS, query_words, stem_set, stems
from ragls.retrieval.asking import GENERIC_ASKING, asked_sentences, split_clauses

WINDOW = 3  # the sentence holding the subject and the next two: where a field's or an option's value is stated
DEFAULT_SCOPE = 2  # sentences back a paragraph's opening "By default, ..." still speaks for (`_default_scope`)
SUBJECT_TERMS = 2  # the question's rarest present terms that make a sentence "about" its subject
COMMON_SHARE = 0.25  # a subject term in more of the chunks than this share says nothing of what a sentence is about
# ...in a folder of at least this many chunks: over a handful of chunks a share is one file's topic, not a common word
# (a 4-file folder whose retries page is 4 of 11 chunks: "retried" is what the question is about)
COMMON_MIN_CHUNKS = 40

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
# A number that names a place, not a value (Listing 16-2, Chapter 4, RFC 8305, Python 3.5, v2.0): not an amount.
# Nor does a number that names a thing rather than measures one: a release (22.1.0, 3.6+: three parts, or a series
# with "+"), an HTTP status with its reason phrase ("a `206 Partial Content` response", 404 Not Found: RFC 9110
# §15), or "one" as a pronoun ("one of the default worker types", "One way is to ...", "each one"). Such a number
# near the subject stated a value for "How many worker processes does gunicorn start ...?" (aiohttp), "What is the
# largest JSON request body ...?" (Starlette), "How long does Black keep entries in its cache ...?" ("3.6+")
_REFERENCE = re.compile(r"\b(?:listing|chapter|figure|fig|table|section|appendix|step|rfc|pep|issue|python|version|"
                        r"v)\s?\d[\d.-]*|(?<![\w.])\d+\.\d+\.\d+(?:[.-]?[A-Za-z]+\d*)?(?!\w|\.\w)|(?<![\w.])\d+(?:\.\d+)+\+"
                        r"|\b[1-5]\d\d\s+(?-i:[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)*\b(?!\s*[a-z]))|\bone\s+(?:of|or|another|way|by)\b"
                        r"|\b(?:the|this|that|each|any|no|every|which)\s+one\b", re.IGNORECASE)
AMOUNT = re.compile(r"(?<![A-Za-z_])\d[\d,._]*(?:\s*[A-Za-z%]+)?|\b(?:" + _NUMBER_WORDS + r")\b|\bunlimited\b|"
                    r"\bno (?:\w+ )?limit\b|\bunbounded\b|\binfinite(?:ly)?\b|\bforever\b|\bindefinitely\b|\bNone\b|\bnull\b|"
                    r"(?<!^)(?<![.!?]\s)\b(?:do|does|will|would|can|did|wo|ca)(?:\s+not|n't|n’t)\s+(?:ever\s+)?(?:time\s?out|expire)|"
                    r"\bcannot\s+(?:ever\s+)?(?:time\s?out|expire)|"
                    r"\bnever\s+(?:times?\s?out|expires?)\b|\b(?:no|without\s+(?:a|any))\s+timeout\b(?!\s+(?:parameter|argument|option|setting|field))",
                    re.IGNORECASE)
_LITERAL = re.compile(r"`[^`\n]+`|\"[^\"\n]+\"|'[^'\n]+'|\b(?:True|False|true|false|on|off|enabled|disabled)\b")
_DEFAULT_IS_WORD = re.compile(r"\bdefaults?\s+(?:to|is|are|value is)\s+[\w`\"']|\bdefault\s*:\s*[\w`\"']",
                              re.IGNORECASE)  # what is left of `_DEFAULT_IS` once a duration or size is taken out
_DEFAULT_IS = re.compile(r"\bdefaults?\s+(?:to|is|are|value is)\b\s*\S|\bdefault\s*:\s*\S", re.IGNORECASE)
# (A match starts at a name's start: from every character of one long name the search scanned to its end, quadratic;
# `search` finds a match exactly when it did before, as a match inside a name extends to the name's start.)
_KEYWORD_DEFAULT = re.compile(r"(?<![\w.-])[\w.-]+\s?=\s?(?:[\d\"'(\[{]|-\d|None\b|True\b|False\b)")
# A keyword default in a signature (".. function:: run_app(app, *, shutdown_timeout=60.0", "def f(x=5)"): the
# reference's way of stating a default amount; a call or a command line in an example (timeout=4.0,
# --test-threads=1) is not one
_SIGNATURE_DEFAULT = re.compile(r"(?:\.\. \w+::|\bdef |\bclass |\bfn )[^\n]*?[(,]\s*\*?\s*[A-Za-z_]\w*\s?=\s?"
                                r"(?:-?\d|None\b)")
# What answers "how long" or "how large", not "how many": an amount with a unit of time or size, and the words that
# state a duration without a number; `None` in a sentence that still speaks of time or size means "no time limit"
TIME_UNIT = r"(?:ms|milliseconds?|s|secs?|seconds?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?)"
SIZE_UNIT = r"(?:bytes?|[kKMGT]i?B|[kKMGT]|kilobytes?|megabytes?|gigabytes?|kibibytes?|mebibytes?)"
_COUNT_NOISE = re.compile(r"(?<![A-Za-z_])\d[\d,._]*\s*(?:" + TIME_UNIT + "|" + SIZE_UNIT + r")\b|\bforever\b|"
                          r"\bindefinitely\b|\b(?:do|does|will|would|can|did|wo|ca)(?:\s+not|n't|n’t)\s+(?:ever\s+)?"
                          r"(?:time\s?out|expire)|\bcannot\s+(?:ever\s+)?(?:time\s?out|expire)|\bnever\s+(?:times?\s?out|"
                          r"expires?)\b|\b(?:no|without\s+(?:a|any))\s+timeout\b", re.IGNORECASE)
# The numbers of an address: a host's port and an IP address (localhost:4000, 127.0.0.1). They answer a question
# that asks for a port, not one that asks how many, how long or how large ("How long does the preview wait before
# rebuilding?" is not answered by "serves it on http://localhost:4000, rebuilding a page when you save it")
_ADDRESS_NUMBER = re.compile(r"(?<=[\w\]]):\d{1,5}\b(?![.:]\d)|(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])")
_PORT_Q = re.compile(r"\bports?\b", re.IGNORECASE)
# A percentage ("keep-alive is 100% automatic", "99% of users") answers a question asking for a share, never "how
# long" (a duration or a length), "how many" (a count), "how old" or "how far"
_PERCENT = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?%")
_NO_SHARE_Q = re.compile(_LEAD + r"(?:(?:for|in|at|to|up to|by|after)\s+)?how\s+(?:many|long|old|far)\b", re.IGNORECASE)
_MEASURE_WORD = re.compile(r"\b(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|bytes?|[kKMGT]i?B|timeouts?|"
                           r"expir\w*|ttl|duration|forever|indefinitely)\b", re.IGNORECASE)
_NONE = re.compile(r"\b(?:None|null)\b")
# A number word without a unit of time or size after it ("only one chunk is held in memory", "a single config key"):
# a count, or no number at all ("One way is ..."), never the size or duration a "how long / what size" question asks.
# "three times" is a frequency, what a "how often" question asks ("retried three times with exponential backoff").
_BARE_NUMBER_WORD = re.compile(r"\b(?:" + _NUMBER_WORDS + r")\b(?!\s+(?:" + TIME_UNIT + "|" + SIZE_UNIT
                               + r"|times)\b)", re.IGNORECASE)
# A signature's keyword defaults, by parameter: ".. class:: SockSite(runner, sock, *, shutdown_timeout=60.0, ..."
_SIGNATURE = re.compile(r"(?m)^[ \t]*(?:\.\. (?:py:)?(?:function|method|class|classmethod|staticmethod|coroutinefunction|"
                        r"coroutinemethod|decorator)::|(?:async\s+)?def\s|class\s|(?:pub\s+)?fn\s)[^()\n]*\([^)]{0,600}")
_PARAMETER_DEFAULT = re.compile(r"[(,]\s*(?:\*\s*,\s*)?(?:\\\s*)?([A-Za-z_]\w*)\s?(?::\s?[\w.\[\]| ]+?)?\s?=\s?"
                                r"(?:-?\d|None\b)")
_TAG = re.compile(r"<[^<>\n]*>")  # an HTML/XML tag (<Listing number="16-1">): markup, not a value
_DEFAULT_WORD = re.compile(r"\bdefault", re.IGNORECASE)
_BY_DEFAULT = re.compile(r"\s*(?:\*\*|_)?by default\b", re.IGNORECASE)  # a sentence opening "By default, ..."
# A new block opens at a list item or a reST/Markdown field, heading or directive: a value stated after one belongs
# to that item, not to the sentence before it (":param int ttl_dns_cache: ... DNS entries ..." then ":param int
# limit: ... (default: 100)")
_BLOCK_START = r"\n(?=\s{0,200}(?:[-*+]\s|\d+\.\s|:\w[^:\n]*:|#|\.\. (?!(?:code-block|code|sourcecode|literalinclude)::)))"
# (`\s{0,200}`, not `\s*`: from every newline of a run of blank lines the lookahead scanned the whole run, quadratic —
# 35 s for a chunk of 20,000 newlines under load, on every question that showed it; no text of the dev corpora splits
# differently)
_BLOCK = re.compile(_BLOCK_START)
# A sentence ends at its punctuation, a blank line, or where a block opens
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)|\n\s*\n|" + _BLOCK_START)


# A value of a kind that is named, not counted: "What folder does get_app_dir return?", "Which colour is used for
# warnings?", "What message does pause() print?" — the answer is a path, a colour, a quoted text. {kind: (the nouns
# that ask for it, what states one)}. A path: absolute, home-relative or backticked with a "/" (~/.config/app,
# /etc/app, `conf/app.toml`), a Windows drive or an environment variable (C:\Users, %APPDATA%, $XDG_CONFIG_HOME) —
# not "and/or"; a message: words in double or typographic quotes ("Press any key", not a value assigned in code:
# EDITOR="code --wait", f"x={x}"); a colour: a colour's English name. A fixed
# English vocabulary, not fitted to any corpus.
NAMED_VALUES = {
    "path": (r"folders?|director(?:y|ies)|dirs|paths?",
             re.compile(r"(?<![\w/.~-])(?:~|\.{1,2})?/\.?\w|`[^`\s]*\w/\w[^`\s]*`|\b[A-Za-z]:\\|%\w+%|\$\{?[A-Z][A-Z_]+")),
    "message": (r"messages?|prompts?|wording",
                re.compile(r"(?<![=\w])\"[^\"\n]*[A-Za-z][^\"\n]*\s[^\"\n]*\"|“[^”\n]*[A-Za-z][^”\n]*\s[^”\n]*”")),
    "colour": (r"colou?rs?", re.compile(r"\b(?:red|green|blue|yellow|cyan|magenta|white|black|gr[ae]y|orange|purple|"
                                       r"pink|brown|violet)\b", re.IGNORECASE)),
}
# A noun of `NAMED_VALUES` that names the form of another thing is no value of its type: "What path format does
# that?" asks for a format (a template such as `$albumartist/$album/$title`, held-out set 32), "which message template",
# "what colour scheme" — not a path, a message or a colour the docs must spell out.
_FORM_NOUNS = r"formats?|templates?|patterns?|layouts?|structures?|schemes?|styles?|syntax|settings?|options?"
_NAMED_Q = {kind: re.compile(_LEAD + r"(?:what|which)\s+(?:(?:is|are|was)\s+)?(?:the\s+)?(?:(?!(?:about|with|for|in|of|on|to|"
                             r"happens|do|does|did|can|should|would|will)\b)[\w-]+\s+){0,2}?(?:"
                             + nouns + r")\b(?!\s+(?:" + _FORM_NOUNS + r")\b)", re.IGNORECASE)
            for kind, (nouns, _) in NAMED_VALUES.items()}


def asked_value(text: str) -> str | None:
    """"amount", "default-amount", "default", a kind of `NAMED_VALUES` ("path", "message", "colour") or None:
    whether the part of the question that asks (`asked_sentences`) asks for a value, and of which type (module
    docstring)."""
    asked = asked_sentences(text)
    sentences: dict[int, tuple[set[int], list[int]]] = {}
    if any(not _continues_indirect(asked, m, sentences) for m in _AMOUNT_Q.finditer(asked)):
        return "default-amount" if _UNSET_Q.search(asked) else "amount"
    named = next((kind for kind, pattern in _NAMED_Q.items() if pattern.search(asked)), None)
    if named is not None:
        return named
    return "default" if _DEFAULT_Q.search(asked) else None


# "how long", "how many", ... wherever it stands: asked (after `_LEAD`) or indirect ("a report of how long each crate
# took", "print how many ..."), `_continues_indirect`
_HOW_AMOUNT = re.compile(r"\bhow\s+(?:many|much|long|large|big|high|old|often|far|small|low|fast|deep)\b", re.IGNORECASE)


def _continues_indirect(asked: str, m: re.Match, sentences: dict[int, tuple[set[int], list[int]]]) -> bool:
    """True when the `_AMOUNT_Q` match `m` of `asked` opens with "and" / "or" and continues an indirect question of
    its sentence — a "how long" / "how many" that opens no clause (`_LEAD`), the object of a way asked for: "Is there
    a way to get a report of how long each crate took to compile and how much ran in parallel?" asks for a report
    of the user's own build, not a value the docs state, as its first half alone already reads (a way, not a
    value: module docstring). Cargo's cargo-i11 was refused so (bench/history/session-68.md, "Abstention: the 14
    refusals"). `sentences`: {start of a sentence of `asked`: (where its asked "how long"s end, where each of its "how
    long"s ends)}, filled as read: each sentence is read once however many matches it holds (read again from its
    start for each, a 16,000-character question took 0.57 CPU-s)."""
    if not re.match(r"\s*(?:and|or)\b", m.group(0), re.IGNORECASE):
        return False
    start = max(asked.rfind(c, 0, m.start()) for c in ".?!") + 1
    if start not in sentences:
        end = min((i for i in (asked.find(c, start) for c in ".?!") if i >= 0), default=len(asked))
        sentence = asked[start:end]
        sentences[start] = ({start + q.end() for q in _AMOUNT_Q.finditer(sentence)},  # where an asked one ends
                            [start + h.end() for h in _HOW_AMOUNT.finditer(sentence)])
    led, hows = sentences[start]
    return any(end <= m.start() and end not in led for end in hows)


def value_clause(text: str) -> str:
    """The clause of the asking sentences (`asked_sentences`) that asks for the value (`asked_value`): of a question
    asking two things ("How many times does Scrapy retry a failed download by default, and can I allow more attempts
    for one particular request only?"), the part that asks for the value ("How many times does Scrapy retry a failed
    download by default"), split at sentence ends, ";" and where a clause turns to asking (`asking.TURN`: ", and can I").
    The subject of a value question is named there (`subject_terms`): the other part's rarest words ("particular",
    "attempts") are about another thing, and no sentence near them states the asked value. A later clause mostly
    points back at what comes before it ("If I never pass a timeout and the server stops answering, how long will my
    call sit there?", "How do I limit the total number of connections, and what is that limit when I don't set it?",
    "..., and what is the limit by default?" name their subject in the clause before); it stands alone only as the
    second question of a two-part one (`_own_value_clause`: ", and how long does the graceful shutdown wait for
    workers by default?" after "What is the difference between sending TERM and QUIT to the master": the default is
    stated beside graceful_timeout, far from TERM and QUIT). The asking sentences themselves otherwise: a single
    clause, no clause or more than one asking for a value, or a later one that points back."""
    asked = asked_sentences(text)
    parts = [p.strip() for x in re.split(r"(?<=[.?!])\s+", asked) for p in split_clauses(x, turns=True) if p.strip()]
    asking = [p for p in parts if asked_value(p) is not None]
    if len(parts) > 1 and asking == parts[:1]:
        return parts[0]
    if len(parts) > 1 and len(asking) == 1 and asking[0] != parts[0] and _own_value_clause(asking[0]):
        return asking[0]
    return asked


# A word that points back at something named before it: a later clause holding one names no subject of its own
_POINTS_BACK = re.compile(r"\b(?:that|this|these|those|it|its|they|them|their|theirs|there|such|same)\b", re.IGNORECASE)


def _own_value_clause(clause: str) -> bool:
    """Whether a later clause that asks for a value names its subject itself: a second question joined by "and"
    (", and how long does the graceful shutdown wait ...?", ", and what limits how many connections the pool keeps
    open?") holding a content word that is no stop word, no generic asking word (`GENERIC_ASKING`) and no value word
    (`VALUE_WORDS`: "..., and what is the limit by default?" names none), and no word that points back
    (`_POINTS_BACK`: "..., and what is that limit ...?"). Over the 72 question files it reads two questions
    so, both answerable (bench/history/session-65.md, "Abstention: the value asked in a two-part question's second
    clause")."""
    if not re.match(r"and\s", clause, re.IGNORECASE) or _POINTS_BACK.search(clause):
        return False
    return any(w not in STOPWORDS and w not in GENERIC_ASKING and not set(stems(w)) & VALUE_WORDS
               for w in query_words(clause))


# "How many worker processes ...", "the total number of connections": the asking sentence counts things, so a
# duration or a size is no answer (`value_stated`'s `count`); "how many seconds / bytes" asks for a duration or size
_UNIT_WORDS = frozenset(("ms", "millisecond", "milliseconds", "second", "seconds", "minute", "minutes", "hour",
                         "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "byte", "bytes",
                         "kb", "kib", "mb", "mib", "gb", "gib", "kilobytes", "megabytes", "gigabytes"))
_HOW_MANY = re.compile(_LEAD + r"how\s+many\s+((?:[\w-]+\s+){0,3}[\w-]+)", re.IGNORECASE)
_NUMBER_OF = re.compile(_LEAD + r"(?:what|which)\s+(?:is|are|was)\s+the\s+(?:[\w-]+\s+){0,2}?number\s+of\s+"
                        r"((?:[\w-]+\s+){0,1}[\w-]+)|\bnumber\s+of\s+((?:[\w-]+\s+){0,1}[\w-]+)", re.IGNORECASE)
# Nouns of a quantity that name what is measured, not the measure (`_QUANTITY_NOUNS` less `VALUE_WORDS`): "If I
# never pass a timeout, how long ...", "which port"
_MEASURED_NOUNS = re.compile(r"\b(?:timeouts?|ports?|durations?|intervals?|depths?)\b", re.IGNORECASE)


# A "-" compound that measures: one of its words a unit of time or size ("a multi-gigabyte TeX distribution", "a
# 10-minute build", "a week-long job"). It says how big or how long the user's thing is, as a number does; it is not
# the subject asked about (`measure_compounds`)
_UNIT = r"(?:milli)?seconds?|minutes?|hours?|days?|weeks?|months?|years?|(?:kilo|mega|giga|tera|kibi|mebi|gibi)?bytes?"
# (a unit first: not "second", an ordinal there: a second-level domain)
_MEASURE_COMPOUND = re.compile(rf"(?<![\w-])[\w]+(?:-[\w]+)*-(?:{_UNIT})(?:-[\w]+)*(?![\w-])|"
                               rf"(?<![\w-])(?!second-)(?:{_UNIT})(?:-[\w]+)+(?![\w-])", re.IGNORECASE)


def measure_compounds(text: str) -> list[str]:
    """The "-" compounds of `text` with a word that is a unit of time or size (`_MEASURE_COMPOUND`), in order:
    "installing a multi-gigabyte TeX distribution" -> ["multi-gigabyte"], "a week-long job" -> ["week-long"]; none
    from "password-protect", "self-contained" or "semi-transparent", which may be just what the docs lack. A measure
    the docs never write is the user's description, not the subject they do not cover (`absent_meaning.lacking_words`)."""
    return _MEASURE_COMPOUND.findall(text)


def _head(words: str) -> str | None:
    """The counted noun of the words after "how many" / "number of": up to the first stop word, the last plural
    (English counts plural nouns: "host entries", "gunicorn worker processes run" -> processes), else the
    first word. None for a unit (seconds, bytes) or nothing."""
    phrase = []
    for w in words.split():
        if w.lower() in STOPWORDS:
            break
        phrase.append(w)
    if not phrase:
        return None
    head = next((w for w in reversed(phrase) if w.lower().endswith("s") and len(w) > 3), phrase[0])
    return None if head.lower() in _UNIT_WORDS else head


def asked_count(text: str) -> bool:
    """True when the asking sentences (`asked_sentences`) count things — "how many <things>", "what is the
    (maximum / total) number of <things>" — rather than a duration or a size ("how many seconds")."""
    asked = asked_sentences(text)
    return any(_head(m.group(1)) for m in _HOW_MANY.finditer(asked)) or any(
        _head(m.group(1) or m.group(2)) for m in _NUMBER_OF.finditer(asked))


def measured_terms(text: str) -> list[str]:
    """BM25 terms (`analysis.stems`) of what a value question measures: the counted noun of "how many <things>" /
    "number of <things>" (`_head`) and a quantity noun that names a thing (timeout, port, interval: "If I never
    pass a timeout, how long will my call wait?"). A paraphrase's rarest words are often not the docs' (its
    situation: "the server stops answering"), but what it measures is named as the docs name it."""
    asked = asked_sentences(text)
    heads = [_head(m.group(1)) for m in _HOW_MANY.finditer(asked)]
    heads += [_head(m.group(1) or m.group(2)) for m in _NUMBER_OF.finditer(asked)]
    heads += [m.group(0) for m in _MEASURED_NOUNS.finditer(asked)]
    return list(dict.fromkeys(t for h in heads if h for t in stems(h) if t not in VALUE_WORDS))


def sentences(text: str) -> list[str]:
    """The sentences of a passage, hard line wraps joined (see `_SENTENCE_END`)."""
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text) if s and s.strip()]


def _amount(sentence: str) -> bool:
    return AMOUNT.search(_REFERENCE.sub(" ", sentence)) is not None


def _states(kind: str, sentence: str, count: bool = False, port: bool = False, share: bool = True) -> bool:
    """Whether `sentence` states a value of `kind` (`asked_value`); with `count`, one that is a number of things,
    not a duration or a size (`_COUNT_NOISE`); an address's numbers (`_ADDRESS_NUMBER`) are an amount only for a
    question asking for a `port`, a percentage (`_PERCENT`) only for one that may ask for a `share`."""
    sentence = _TAG.sub(" ", sentence)
    if not share:
        sentence = _PERCENT.sub(" ", sentence)
    if kind in NAMED_VALUES:
        return NAMED_VALUES[kind][1].search(sentence) is not None
    if kind != "default" and not port:
        sentence = _ADDRESS_NUMBER.sub(" ", sentence)
    if count and kind != "default":
        measure = _MEASURE_WORD.search(sentence) is not None
        sentence = _COUNT_NOISE.sub(" ", sentence)
        if measure:
            sentence = _NONE.sub(" ", sentence)
        if kind == "amount":
            return _amount(sentence)
        if _DEFAULT_IS_WORD.search(sentence):  # "Defaults to the number of CPUs": a count in words
            return True
        return _amount(sentence) and (_DEFAULT_WORD.search(sentence) is not None
                                      or _SIGNATURE_DEFAULT.search(sentence) is not None)
    if kind != "default":  # a size or a duration, not a count: a number word states one only with its unit
        sentence = _BARE_NUMBER_WORD.sub(" ", sentence)
    if kind == "amount":
        return _amount(sentence)
    if _DEFAULT_IS.search(sentence):
        return True
    said = _DEFAULT_WORD.search(sentence) is not None
    if kind == "default-amount":
        return (said and _amount(sentence)) or _SIGNATURE_DEFAULT.search(sentence) is not None
    return _KEYWORD_DEFAULT.search(sentence) is not None or (said and (_amount(sentence)
                                                                      or _LITERAL.search(sentence) is not None))


# Where a passage states no value of its own: an address's path (a link's target, a bare URL: discussions/1785, a
# commit hash) and a fenced example (```python / ```pycon / ``` ...: an example's literals — `r.status_code 301`, `while
# request is not None` — are what the example passes or prints, not a default or a limit the docs state); a fence
# opened with a MyST directive (```{eval-rst}, ```{note}) holds the docs' own text and stays, and so does a
# configuration file (```toml: `_CONFIG_LANGUAGES`)
_ADDRESS = re.compile(r"\]\([^)\s]*\)|<https?://[^>\s]*>|\bhttps?://[^\s)>\]\"'`]+")
# A URL's host and port are a value the docs state ("serves it on http://localhost:4000": the port asked for); its
# user name and password are not (nor kept); its path, query and fragment are an address, not a value
_AUTHORITY = re.compile(r"https?://(?:[^@/?#\s)>\]\"'`]*@)?([^/?#\s)>\]\"'`]+)")
_FENCE = re.compile(r"[ \t]*(`{3,})(.*)")  # a Markdown code fence; not ~~~, which in reST underlines a heading
# A configuration file's settings are the docs' own statement of a value (`max_attempts = 5`), not an example's literal
_CONFIG_LANGUAGES = frozenset(("toml", "ini", "cfg", "conf", "yaml", "yml", "json", "properties", "env", "dotenv"))


def stated_text(passage: str) -> str:
    """`passage` without what states no value of its own (`_ADDRESS`; a fenced example, whose lines become blank
    lines; a fence opened with a MyST directive, ```{eval-rst}, or holding a configuration file, ```toml, keeps its
    lines); a link keeps its words and a URL its host and port (`_authority`:
    "[the guide](https://x/1785)" -> "[the guide] x"). A chunk cut inside a fence (an odd number of fence lines,
    the first without an info string) opens in the example: its first fence closes it."""
    lines = passage.split("\n")
    fences = [m for line in lines if (m := _FENCE.fullmatch(line))]
    inside = len(fences) % 2 == 1 and not fences[0].group(2).strip()
    out, fence, example = [], fences[0].group(1) if inside else None, inside
    for line in lines:
        m = _FENCE.fullmatch(line)
        if fence is None and m:
            info = m.group(2).strip().lower()
            fence, example = m.group(1), not (info.startswith("{") or info.split(" ")[0] in _CONFIG_LANGUAGES)
        elif fence is not None and m and m.group(1).startswith(fence) and not m.group(2).strip():
            fence = None
        elif fence is None or not example:
            out.append(line)
            continue
        out.append("")
    return _ADDRESS.sub(_authority, "\n".join(out))


def _authority(address: re.Match) -> str:
    """What an address (`_ADDRESS`) states: its URL's host and port between spaces ("http://user:pw@localhost:4000/x"
    -> " localhost:4000 ", a link's target after its "]"), nothing of a relative link ("](../a/1785.md)" -> "]")."""
    m = _AUTHORITY.search(address.group(0))
    host = f" {m.group(1)} " if m else " "
    return "]" + host.rstrip() if address.group(0).startswith("]") else host


def value_stated(kind: str, subject: Iterable[str], passages: Sequence[str], count: bool = False,
                 port: bool = False, share: bool = True) -> bool:
    """True when some passage states a value of `kind` ("amount" / "default") within `WINDOW` sentences from a
    sentence holding a `subject` term (BM25 terms, `analysis.stems`), in the same block (a list item or field
    ends the window: `_BLOCK_START`); any sentence counts without a subject. With `count` (the question asks how
    many: `asked_count`) a duration or a size is no answer (`_COUNT_NOISE`); a host's port or an IP address
    (`_ADDRESS_NUMBER`: localhost:4000, 127.0.0.1) is an amount only with `port` (the question asks for one), a
    percentage only with `share` (the question does not ask how long, how many, how old or how far: `_NO_SHARE_Q`;
    "How long does a Session keep a keep-alive connection open?" is not answered by "keep-alive is 100% automatic
    within a session")."""
    subject = set(subject)
    for passage in passages:
        for block in _BLOCK.split(stated_text(passage)):
            parts = sentences(block)
            for i, s in enumerate(parts):
                if subject and not (stem_set(s) & subject):
                    continue
                if any(_states(kind, t, count, port, share) for t in parts[i:i + WINDOW]):
                    return True
                if kind.startswith("default") and _default_scope(parts[max(0, i - DEFAULT_SCOPE):i]) \
                        and (_amount(_TAG.sub(" ", s if kind == "default" or port else _ADDRESS_NUMBER.sub(" ", s)))
                             or (kind == "default" and _LITERAL.search(s) is not None)):
                    return True
    return False


def _default_scope(before: Sequence[str]) -> bool:
    """Whether one of the sentences `before` a sentence opens with "By default": its default speaks for the
    sentences after it ("By default, auto-reload is enabled. ... It also listens on the IP address `127.0.0.1`":
    FastAPI's `fastapi dev`), so a value they state is the default asked for."""
    return any(_BY_DEFAULT.match(t) for t in before)


# A name written as code: camelCase (retryBudgetPercent, CookieJar), joined by "_", ".", "::" (cert_reqs,
# HTTPResponse.stream, thread::spawn) or an option (--max-body-size); not a capitalised word or an acronym (Black, TLS)
_CODE_NAME = re.compile(r"[a-z][A-Z]|[A-Za-z0-9][_.:]+[A-Za-z0-9]|^-")


def subject_terms(weights: dict[str, float], dfs: dict[str, int], names: dict[str, list[str]] | None = None,
                  n: int = SUBJECT_TERMS, measured: Iterable[str] = (), chunks: int = 0) -> list[str]:
    """The question's subject (BM25 terms): the terms of the names it writes as code (`names`: {name: terms},
    `abstention.name_terms`; `_CODE_NAME`: retryBudgetPercent, cert_reqs, --max-body-size) that the corpus holds,
    and its `n` other asked terms of highest IDF (`weights`) that the corpus holds (document frequency `dfs` > 0)
    — not a word of such a name (retry, budget, percent: the name stands for them) nor of the value itself
    (`VALUE_WORDS`). With `chunks` (how many chunks `dfs` counts over; at least `COMMON_MIN_CHUNKS`), a term in more
    than `COMMON_SHARE` of them is left out unless it is `measured` or nothing else is left: "request" of request.json() on a web framework's
    docs is in every other passage, so any number near it (a signature's `receive=None`) looked like the asked
    value."""
    coded = {name: terms for name, terms in (names or {}).items() if _CODE_NAME.search(name.split("=")[0])}
    subject = [t for terms in coded.values() for t in terms if dfs.get(t, 0) > 0]
    parts = {t for name in coded for t in stems(" ".join(query_words(name)))}
    rest = [t for t in weights if dfs.get(t, 0) > 0 and t not in VALUE_WORDS and t not in parts and t not in subject]
    measured = [t for t in measured if dfs.get(t, 0) > 0]
    chosen = list(dict.fromkeys(subject + sorted(rest, key=lambda t: -weights[t])[:n] + measured))
    if chunks < COMMON_MIN_CHUNKS:
        return chosen
    specific = [t for t in chosen if t in measured or dfs.get(t, 0) <= COMMON_SHARE * chunks]
    return specific or chosen


def parameter_default(topic: Iterable[str], passages: Sequence[str]) -> bool:
    """True when a signature in `passages` (".. class:: SockSite(runner, sock, *, shutdown_timeout=60.0", "def
    f(x=5)", "fn ...") gives a number or None as the default of a parameter whose name holds a `topic` term (BM25
    terms: shutdown_timeout holds "shutdown"). A reference states a default so, away from any sentence that names
    the subject in the question's words ("How long does run_app wait for pending handlers during a graceful
    shutdown by default?"); a parameter name is as specific as the docs get. A call in an example
    (`TCPConnector(ttl_dns_cache=300)`) is no signature."""
    topic = set(topic)
    for passage in passages:
        for signature in _SIGNATURE.finditer(passage):
            params = " ".join(signature.group(0).split())
            if any(set(stems(m.group(1))) & topic for m in _PARAMETER_DEFAULT.finditer(params)):
                return True
    return False


def value_missing(text: str, passages: Sequence[str], subject: Iterable[str] | Callable[[], Iterable[str]],
                  topic: Iterable[str] | Callable[[], Iterable[str]] = ()) -> bool:
    """True when the question `text` asks for a value (`asked_value`) and none of `passages` (the top hits' titles
    and texts) states one near its `subject` (`value_stated`) nor, for a default, as a signature's default of a
    parameter named with a `topic` term (`parameter_default`; `topic`: the question's asked terms other than value
    words); callables are called only for a value question, so other questions cost one regex pass."""
    kind = asked_value(text)
    if kind is None:
        return False
    asked = asked_sentences(text)
    port = _PORT_Q.search(asked) is not None
    share = _NO_SHARE_Q.search(asked) is None
    if value_stated(kind, subject() if callable(subject) else subject, passages, asked_count(text), port, share):
        return False
    return kind == "amount" or kind in NAMED_VALUES or not parameter_default(topic() if callable(topic) else topic,
                                                                              passages)
