"""Names in a question (issue 27, abstention's name test): which words of a question name a thing it asks the docs
about — a library, a tool, a feature, an API name — and which are the user's own material (their quoted error
message, their option's values, their addresses and paths, their situation before the question), and which of the
names no chunk holds (`absent_names.absent_names`). A question about a named thing the documents never mention is one
they do not answer (`abstention.Evidence.absent_name`); bench/history/held-out-sets-4-to-6.md,
"Everyday shorthand is no absent name" and "Lower-case names: a word in no English dictionary", and
bench/history/sessions-36-37.md, "Names: the user's own material and the means asked about", measure each rule."""

from __future__ import annotations

import re

from ragls.core.analysis import STOPWORDS, stems
from ragls.embedding.vocabulary import wordpiece_words as _english_words
from ragls.retrieval.asking import GENERIC_ASKING, asked_clause, asked_sentences
from ragls.retrieval.english import in_lexicon, lexicon, lowercase_name, participle
from ragls.retrieval.query import CODE_SPAN
from ragls.retrieval.user_context import callees, without_user_context

_ONE_IDENTIFIER = re.compile(r"[\w.:/-]+(?:=[\w.\"']*)?(?:\(\))?")
_TOKEN_EDGES = "\"'()[]{}<>,;:!?*"
_FIRST_PERSON = re.compile(r"I(?:['’](?:m|d|ve|ll))?")  # "I", "I'm", "I'd", "I've", "I'll": capitalised, no name


def question_names(text: str) -> list[str]:
    """The names a question mentions where it asks (`asked_clause`: not in a sentence or a clause before ";" that
    tells the user's situation), in order, each once: a `code span` holding
    one identifier (code in backticks, with the user's own literals and variables, is not a name), and
    the words written as names — with a capital after the first letter (WebSocket, NTLM, OAuth2, macOS, HTTP/3),
    letters and digits mixed (IPv6, http2), an identifier's joints (trust_env, os.path.join, Vec::new, .netrc),
    capitalised but not first in a sentence (Kerberos, Lambda, Prometheus), a command-line option of
    lower-case words joined by "-" (--line-length), or a lower-case word, or a word of a "-" compound, that no
    English dictionary holds (`english.lowercase_name`: gevent, nginx, the xdist of pytest-xdist; a sentence's first word
    too, lower-cased: "Redis caching?"). Other lower-case prose words — a bare "-" compound too
    (brand-new, thread-safe: a user's prose, whose word may be one the docs never use; a tool's name such as
    cargo-fuzz reads the same, and is a name only in backticks) —, numbers, number patterns with "x" for a digit
    (`_NUMBER_PATTERN`: the status classes 4xx / 5XX, a version series 3.x, a factor 10x, a plural: 404s), a number
    made an adjective by English words after "-" (`_MEASURE`: 8-character, 10-minute, 64-bit), version numbers
    (`_version`: v1.2.0, 1.0.0-b0, 3.13t, release-2.3.0), the user's placeholders
    (`placeholder`: somelib, myapp; a word of a "-" compound too, the somelib of mypy-somelib), a quotation of
    lower-case words (`quoted_literals`: picks 'conda'), an acronym the user owns in their situation
    (`possessed_acronyms`: "Our DBA sees ..."), what the user would do without (`_AVOIDED`: "so I don't need nvm")
    and "I" (with its contractions: I'm, I'd, I've) are not names."""
    assigned = assigned_values(text)
    defined = bound_names(text)
    words = frozenset(re.findall(r"[a-z]+", text.lower()))
    text = asked_clause(text)
    defined |= {m.group(1).strip(_TOKEN_EDGES).rstrip(".") for m in _AVOIDED.finditer(text)}
    names: list[str] = []
    for m in CODE_SPAN.finditer(text):
        span = m.group(1).strip()
        if _ONE_IDENTIFIER.fullmatch(span) and not placeholder(span) and span not in defined:  # `trust_env=False`
            names.append(span.removesuffix("()"))
    prose = without_user_context(_without_quoted(CODE_SPAN.sub(" ", text)))  # code, quotations, the user's own things
    values = _listed_values(prose)
    owned = possessed_acronyms(text)  # "Our DBA sees ...": the user's person, not a name
    instruments = {m.group("means") for m in _INSTRUMENT.finditer(prose)
                   if (m.group("next") is None or m.group("next") in STOPWORDS) and m.group("means") not in GENERIC_ASKING
                   and _preposition(prose, m)}
    sentence_start = True
    seen: set[tuple[str, bool]] = set()  # each word is judged once: a pasted text repeats its words thousands of times
    for raw in prose.split():
        token = raw.strip(_TOKEN_EDGES)
        if token.endswith((".", "'s", "’s")):
            token = token[:-2] if token.endswith(("'s", "’s")) else token.rstrip(".")
        first, sentence_start = sentence_start, raw.endswith((".", "?", "!", ":"))
        if (token, first) in seen:  # it gave the same names (or none) the first time
            continue
        seen.add((token, first))
        token = _unmodified(token)  # LaTeX-style, Unix-like, PyInstaller-built: the name is LaTeX, Unix, PyInstaller
        if len(token) < 2 or not any(c.isalpha() for c in token) or _FIRST_PERSON.fullmatch(token) \
                or _NUMBER_PATTERN.fullmatch(token) or _measure(token) \
                or _version(token) or _USER_LITERAL.fullmatch(token) or token.lower() in assigned \
                or token.strip("/") in defined or placeholder(token) or _program_rc(token, words):
            continue
        inner_cap = any(c.isupper() for c in token[1:])
        # letters and digits in one part of it: IPv6, http2; not a path of words and numbers (posts/2023)
        mixed = any(any(c.isdigit() for c in part) and any(c.isalpha() for c in part) for part in token.split("/"))
        parts = [p for p in re.split(r"[._:]+", token) if p]
        joints = (token.startswith(".") or any(j in token.strip("._:") for j in ("_", "::", "."))) and \
            max(map(len, parts), default=0) > 1  # .netrc, trust_env; not e.g / i.e
        capitalised = token[0].isupper() and not first
        kebab = token.startswith("-") and KEBAB.fullmatch(token) is not None  # --line-length, not brand-new
        if inner_cap or mixed or joints or capitalised or kebab:
            if token.removesuffix("s") not in owned:
                names.append(token)
        elif _LOWER_WORDS.fullmatch(lower := token.lower() if first else token):  # gevent, pytest-xdist
            if token in instruments and lower not in STOPWORDS:  # "... with gettext?", "using celery": the means asked
                names.append(lower)
            elif token not in values:  # "accept only json, csv or table": the user's own values, not names
                names += [p for p in lower.split("-") if lowercase_name(p) and not placeholder(p)]
    return list(dict.fromkeys(names))


# What the user wants to do without ("... globally, so I don't need nvm?", "without Docker", "instead of JSON"): the
# thing they would avoid, not the one they ask about; the docs need not name it (`question_names`)
_AVOIDED = re.compile(r"\b(?:without|instead\s+of|rather\s+than|(?:don['’]t|do\s+not|no\s+longer)\s+(?:need|use)|"
                      r"avoid(?:ing)?)\s+(?:(?:using|installing|running|a|an|the|any)\s+)?([^\s,;:?!]+)")


# A name made an adjective by an English word after "-" (`question_names`): "LaTeX-style formulas", "a Unix-like
# system", "JSON-based", "S3-compatible storage" name LaTeX, Unix, JSON, S3; the docs write the name, not the compound
# ("LaTeX-style" as a phrase in no chunk made a question about typesetting LaTeX formulas "never mention LaTeX-style").
# So does any English past participle after it, in lower case (`english.participle`): "a PyInstaller-built
# executable", "GitHub-hosted runners", "GPG-signed tags" name PyInstaller, GitHub, GPG ("PyInstaller-built" was
# refused on PyInstaller's own docs: bench/history/session-61.md, "Abstention: the user's instance of a documented
# name")
_MODIFIED = re.compile(r"(?<=[^\W_])-(?:(?i:style|like|based|compatible|powered|flavou?red|friendly|aware|specific|"
                       r"enabled|related|only|ish)|(?P<participle>[a-z]+))$")


def _unmodified(token: str) -> str:
    """`token` without an English word that makes the name before it an adjective (`_MODIFIED`): "LaTeX-style" ->
    "LaTeX", "PyInstaller-built" -> "PyInstaller"; a lower-case word after "-" only when it is a past participle
    (`english.participle`) after a word with a capital (a name's form, not an option's or a prose compound's:
    "--dry-run", "well-known" and "cargo-fuzz" stay whole)."""
    m = _MODIFIED.search(token)
    if m is None:
        return token
    if m.group("participle") is not None and not (participle(m.group("participle")) and not token.startswith("-")
                                                  and any(c.isupper() for c in token[:m.start()])):
        return token
    return token[:m.start()]


# A quotation of three or more words — an error message, an output line, a prompt the user saw ("'int' object is not
# subscriptable", 'No such option'): the user's own text, which docs need not repeat; its words are not names (a
# quoted term of one or two words, "Happy Eyeballs" or "CERT_REQUIRED", still is). `question_names`, `quoted_messages`
_QUOTED = re.compile(r"""(?<![\w'"])(?:"([^"\n]+)"|“([^”\n]+)”|'((?:[^'\n]|(?<=\w)'(?=\w))+)')(?![\w'])""")
QUOTED_MIN_WORDS = 3  # a quotation this long is a message, not a term


# A quotation in prose of one or two lower-case words — picks 'conda', answer 'not found', fails with "cannot pickle" —
# or of one capitalised English word (`_label`: a description like 'Uploading'): a string the user typed or saw (a
# tab's label, a value, a fragment of a message), not a name, whatever the word
# (`question_names`, `user_material`). A quoted name keeps its form ("Happy Eyeballs", 'CERT_REQUIRED', 'HTML5'), and
# a string inside code written without backticks (on_event("startup"), bind(service='billing'), ('a', 'b')) is code
_LITERAL = re.compile(r"[a-z]+(?:-[a-z]+)*(?: [a-z]+(?:-[a-z]+)*)?")


def _literal(m: re.Match) -> bool:
    """True when the `_QUOTED` match `m` is a quoted literal (`quoted_literals`)."""
    text, a, b = m.string, m.start(), m.end()
    return (a == 0 or text[a - 1].isspace() and (a == 1 or text[a - 2].isalnum())) \
        and (b == len(text) or text[b].isspace() or text[b] in ".,;:!?)") \
        and (_LITERAL.fullmatch(quoted := next(g for g in m.groups() if g)) is not None or _label(quoted))


def _label(quoted: str) -> bool:
    """True when `quoted` is one English word capitalised as a label is ('Uploading', 'Bonus', 'Example': a
    progress bar's text, a folder's name, a call-out's title the user wants), not a name: only its first letter is
    a capital and its lower-case form is in the English word list (`english.lexicon`, `english.in_lexicon`)."""
    return re.fullmatch(r"[A-Z][a-z]+", quoted) is not None and in_lexicon(quoted.lower(), lexicon())


def quoted_literals(text: str) -> list[str]:
    """The quotations of `text` (as `quoted_messages` reads them) of one or two lower-case words (`_LITERAL`) that
    stand in prose (a word and a space before, a space or punctuation after): "When a reader picks 'conda' ..." ->
    ["conda"]; not 'CERT_REQUIRED', "Happy Eyeballs", a message, the "startup" of on_event("startup") or the items
    of a tuple ('a', 'b')."""
    return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text) if _literal(m)]


def quoted_messages(text: str) -> list[str]:
    """The quotations of `text` ("...", “...”, '...': an apostrophe inside a word, can't, does not close one) of
    `QUOTED_MIN_WORDS` words or more: `default='abc' ... ('a', 'b')` holds three one-word quotations, none a message."""
    return [q for m in _QUOTED.finditer(text) if len((q := next(g for g in m.groups() if g)).split()) >= QUOTED_MIN_WORDS]


def _without_quoted(text: str) -> str:
    """`text` with its quoted messages (`quoted_messages`) and quoted literals (`quoted_literals`) blanked out."""
    def blank(m: re.Match) -> str:
        return " " if len(next(g for g in m.groups() if g).split()) >= QUOTED_MIN_WORDS or _literal(m) else m.group(0)
    return _QUOTED.sub(blank, text)
# The means a question asks about: the lower-case word right after "with", "using", "via" or "use" (no article or
# possessive between) that ends its phrase — followed by punctuation, the end, "'s" or a function word ("... into German
# with gettext?", "jobs with celery?", "with clap's derive macros", "with prettier in one hook"): a library, a tool or a
# feature the docs must mention to answer, even when the word is also English (celery, gettext, anyhow). A word that
# goes on into a noun ("with relative URLs", "with several workers") describes; it is not the means, and neither is a
# word of how help is asked for (`asking.GENERIC_ASKING`: "What should I use instead?"). The function word after
# it is a whole word: "with different on_get methods" goes on into the name on_get. `question_names`, `_preposition`
_INSTRUMENT = re.compile(r"\b(?P<prep>[Ww]ith|[Uu]sing|[Vv]ia|[Uu]se)\s+(?P<means>[a-z]+(?:-[a-z]+)*)"
                         r"(?:['’]s\b|(?=\s*[.,;:!?)]|$)|(?=\s+(?P<next>[a-z]+)\b(?![-.]\w)))")
# A determiner or possessive right before "use", or one word before it, makes it a noun ("its memory use goes over a
# limit": goes is no means; "the use of"); after anything else it is the verb ("Can I use gettext", "make the JSON
# output use orjson"). `_preposition`
_DETERMINERS = frozenset({"a", "an", "the", "its", "my", "your", "our", "their", "his", "her", "this", "that", "of"})
# Deictic words of time, whose possessive dates what follows ("with today's date"): no means
_DEICTIC = frozenset({"today", "tomorrow", "yesterday", "tonight"})


def _preposition(prose: str, m: re.Match) -> bool:
    """True when the `_INSTRUMENT` match `m` in `prose` is a preposition (or the verb "use") before the means it
    names: not "with" after an article (a noun: "a with block", Python's statement), not "use" as a noun (a
    `_DETERMINERS` word right before it or one word before: "its memory use goes"), and not
    before a deictic word of time (`_DEICTIC`: "with today's date")."""
    if m.group("means") in _DEICTIC:
        return False
    before = [w.lower() for w in prose[:m.start()].split()[-2:]]
    if m.group("prep").lower() != "use":
        return before[-1:] != ["a"] and before[-1:] != ["an"] and before[-1:] != ["the"]
    return not (set(before) & _DETERMINERS)
# A series of three or more bare lower-case words ("json, csv or table"; a pair, "app and nginx", may join longer
# phrases): words listed together are of one kind, so when one of them is an everyday English word (a whole WordPiece
# word: table) the list holds the user's own values — formats, modes, levels of their option —, not products, which
# are listed with products ("gevent, eventlet or curio"). At most `SERIES_MAX_ITEMS` items before the "or": an
# unbounded series made each start of a long comma list without "or" scan to its end (quadratic: 3.5 s for a
# 16,000-character "json, json, ..."); a longer series keeps its last items. `_listed_values`
SERIES_MAX_ITEMS = 24
_COORDINATED = re.compile(rf"\b[a-z][a-z-]*(?:\s*,\s*[a-z][a-z-]*){{1,{SERIES_MAX_ITEMS - 1}}},?\s+(?:or|and)\s+"
                          r"[a-z][a-z-]*\b")


def user_material(text: str) -> frozenset[str]:
    """The BM25 terms of what the question `text` quotes or lists of the user's own where it asks (`asked_sentences`):
    the words of a quoted message (`quoted_messages`) or a quoted literal (`quoted_literals`), of a series of values
    (`_listed_values`), the values it assigns (`assigned_values`), the names its code binds (`bound_names`), its
    placeholders (`placeholders`, anywhere in `text`) and the acronyms it owns in its situation
    (`possessed_acronyms`), and the words only its addresses, URLs and paths hold (`literal_words`). `gather` leaves
    those of them that no chunk holds out of the word-level evidence: docs need not repeat a user's error message
    or their option's values, so their absence says nothing about whether the docs answer (their presence still
    counts, as when a FAQ quotes the same error)."""
    asked = asked_sentences(text)
    prose = CODE_SPAN.sub(" ", asked)
    return frozenset(stems(" ".join([*quoted_messages(prose), *quoted_literals(prose),
                                     *_listed_values(_without_quoted(prose)), *assigned_values(text),
                                     *bound_names(text), *literal_words(text),
                                     *placeholders(text), *possessed_acronyms(text)])))


def literal_words(text: str) -> list[str]:
    """The BM25 terms of `text` that stand only inside its literals (`user_literals`), not in its other words: "My
    app is served under example.com/shop ... removes the /shop part" -> ["shop", ...]; not "metrics" from "expose
    Prometheus metrics on a /metrics endpoint", where the prose names it too."""
    literals = user_literals(text)
    rest = set(stems(" ".join(w for w in text.split() if w.strip(_TOKEN_EDGES).rstrip(".") not in literals)))
    return [t for t in dict.fromkeys(stems(" ".join(literals))) if t not in rest]


def user_literals(text: str) -> list[str]:
    """The words of `text` that are the user's own literals (`_USER_LITERAL`: an address, a URL, a path, a host
    name), in order: "My app is served under example.com/shop ... removes the /shop part" -> ["example.com/shop",
    "/shop"]. Their words ("shop") are the user's, not the subject the docs must name (`user_material`)."""
    tokens = (raw.strip(_TOKEN_EDGES).rstrip(".") for raw in text.split())
    return [t for t in tokens if any(c.isalpha() for c in t) and _USER_LITERAL.fullmatch(t)]


# An option or a setting given a value in the question — `--source=myapp`, `name=mysite`, `level=debug` (in code
# spans too): the value is the user's own (their package, their site, their choice), whatever word it is
_ASSIGNED = re.compile(r"(?<![\w=])-{0,2}[A-Za-z_][\w.-]*=([\w.:/-]+)")


def assigned_values(text: str) -> frozenset[str]:
    """The lower-case values the question `text` assigns anywhere (`_ASSIGNED`: "--source=myapp" -> {myapp},
    "prefix=api.v2" -> {api.v2, api, v2}), the whole value and its words. The user's own material: the same word
    named again later ("... lists files from outside myapp") is no name the docs must hold (`question_names`), and
    no evidence either way when the docs lack it (`user_material`)."""
    out: set[str] = set()
    for m in _ASSIGNED.finditer(text):
        value = m.group(1).strip(".:/-").lower()
        if value:
            out.add(value)
            out.update(w for w in re.split(r"[^\w]+|_", value) if w)
    return frozenset(out)


# A variable or field the question's own code binds to a value or a type: `age: int = 0`, `name = field()`,
# `tags: list = []`, `count: int`. The user's name for their own thing: named again later ("... and `age` silently
# disappeared") it is no name the docs must hold. A bare keyword (`x=`, `--level=`) binds nothing: the parameter is
# the library's. `bound_names`
_BINDING = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::\s*[\w.\[\]|, ]+?\s*)?=(?!=)\s*\S.*|\s*([A-Za-z_]\w*)\s*:\s*[\w.\[\]|]+\s*")


# A thing of a kind people define and name themselves (not a library, a tool, a service), "called" or "named" so in a
# sentence about the user ("My action is a method called reset_pin", "our variables are called APP_DEBUG"): `bound_names`
_NAMED_OWN = re.compile(r"\b(?:method|function|class|field|attribute|property|variable|model|view|viewset|action|"
                        r"endpoint|route|column|table|page|file|folder|directory|heading|section|task|job|test|fixture|"
                        r"template|branch|argument|parameter|object|instance|resource|handler|callback|key)s?\s+"
                        r"(?:(?:is|are|was|were|to\s+be|gets?)\s+)?(?:called|named)\s+[`'\"“]?([A-Za-z_][\w.:-]*\w)")
_USER_WORD = re.compile(r"\b(?:I|[Mm]y|[Oo]ur|[Ww]e|me|us)\b")


def bound_names(text: str) -> frozenset[str]:
    """The identifiers a code span of `text` binds (`_BINDING`): "I mixed `name = field()` and `age: int = 0`" ->
    {name, age}; nothing from `x=`, `timeout=4.0` (a keyword argument: the library's parameter, with the user's
    value, `assigned_values`) or `a == b`. And the names a sentence speaking of the user (I, my, our, we before)
    gives a thing of theirs (`_NAMED_OWN`): "My action is a method called reset_pin" -> {reset_pin}; not "Is
    there a method called reset_pin?". Not names (`question_names`)."""
    out: set[str] = set()
    for m in CODE_SPAN.finditer(text):
        span = m.group(1)
        if (b := _BINDING.fullmatch(span)) and not re.fullmatch(r"\s*[\w.]+=\S*\s*", span):
            out.add(b.group(1) or b.group(2))
    for sentence in re.split(r"(?<=[.?!])\s+", text):
        out.update(m.group(1) for m in _NAMED_OWN.finditer(sentence)
                   if m.group(1).lower() not in STOPWORDS and _USER_WORD.search(sentence[:m.start()]))
    return frozenset(out)


# A placeholder name: "my", "our", "your", "some" or "any" closed up with the kind of thing it stands for (myapp,
# somelib, yourpackage, ourservice, mymodule): how people write "a library of mine" when its name does not matter
# (Flask's docs write myapp, Django's mysite, mypy's somelibrary). The user's own, like an assigned value: no
# name the docs must hold, and no word evidence while no chunk holds it. Products read otherwise: mysql, mypy,
# mypyc, anyio, anyhow name no kind of thing after the determiner. `placeholder`, `placeholders`
_PLACEHOLDER = re.compile(r"(?:my|our|your|some|any)(?:app|application|lib|library|package|pkg|project|module|mod|"
                          r"service|site|tool|plugin|api|db|server|client|repo|program|script|crate|model|class)s?")


def placeholder(word: str) -> bool:
    """True when `word` (any case) is a placeholder name (`_PLACEHOLDER`): "somelib", "MyApp", "yourpackages";
    not "mysql", "mypy", "mylibrary2"."""
    return _PLACEHOLDER.fullmatch(word.lower()) is not None


def placeholders(text: str) -> frozenset[str]:
    """The lower-case placeholder names (`placeholder`) among the words of `text`: "a [mypy-somelib] section" ->
    {somelib}."""
    return frozenset(w for w in re.findall(r"[a-z]+", text.lower()) if placeholder(w))


# An acronym owned by the user in a sentence that tells their situation (one not ending in "?"): "Our DBA sees my
# service idle in transaction. Why?", "My PM wants ...": their person, their system — the user's own, like a
# placeholder (`possessed_acronyms`). In the asking sentence ("... against our LDAP?") it stays a name
_POSSESSED = re.compile(r"\b(?:[Mm]y|[Oo]ur|[Yy]our|[Tt]heir)\s+([A-Z]{2,6})s?\b")


def possessed_acronyms(text: str) -> frozenset[str]:
    """The acronyms (2-6 capitals, a plural "s" aside) that follow "my", "our", "your" or "their" in a sentence of
    `text` not ending in "?" (`_POSSESSED`): "Our DBA sees ... . Why, and how do I avoid it?" -> {DBA}; none from
    "How do I authenticate against our LDAP?". Not names (`question_names`) and the user's material
    (`user_material`)."""
    sentences = re.split(r"(?<=[.?!])\s+", text)
    return frozenset(a for x in sentences if not x.rstrip().endswith("?") for a in _POSSESSED.findall(x))


def _listed_values(prose: str) -> set[str]:
    """The lower-case words of `prose` that stand in a series with an everyday English word (`_COORDINATED`): "accept
    only json, csv or table" -> {json, csv, table}; "gevent, eventlet or curio" -> set() (no English word)."""
    out: set[str] = set()
    for m in _COORDINATED.finditer(prose):
        items = [w for w in re.split(r"\s*,\s*|\s+(?:or|and)\s+", m.group(0)) if w]
        if len(items) > 1 and any(w in _english_words() and w not in STOPWORDS for w in items):
            out.update(items)
    return out


# A lower-case word or "-" compound of such words (gevent, pytest-xdist, brand-new): prose, unless a word of it is in
# no English dictionary (`lowercase_name`)
_LOWER_WORDS = re.compile(r"[a-z]+(?:-[a-z]+)*")
def name_terms(text: str) -> dict[str, list[str]]:
    """{name: its BM25 terms (`analysis.stems`)} for the names of a question (`question_names`), a name with an
    assigned value by its bare name ("trust_env=False" -> trust, env: the value is the user's) and a call by its
    callees, without its arguments ("expect(parseConfig(bad)).toThrow" -> expect, tothrow: the
    arguments are the user's values and functions: `user_context.callees`); names without terms left out."""
    return {n: t for n in question_names(text) if (t := stems(callees(n.split("=")[0])))}


# A number written with "x" standing for its digits — HTTP's status classes 4xx / 5XX (RFC 9110 §15 writes them so),
# a version series 3.x / 1.2.x, a factor 10x —, or a number's plural ("reformats 404s", the 1990s): numbers, not a
# name (`question_names`)
_NUMBER_PATTERN = re.compile(r"\d+(?:\.\d+)*(?:\.?[xX])+|\d+s")
# A number made an adjective by the lower-case words of its unit or count after "-" ("short 8-character IDs", "a
# 10-minute timeout", "64-bit builds", "a 3-way merge"): a measure the user describes, not a name the docs must write
# (`question_names`). Only when every word after the number is English (`english.lowercase_name` False): "2-gevent"
# stays a mixed name. "short 8-character IDs" was refused on Kinto's docs, which call them "short"
# (bench/history/session-66.md, "Abstention: three word probes")
_MEASURE = re.compile(r"\d+(?:\.\d+)?((?:-[a-z]+)+)")
# A version number written with a "v" or a pre-release part (v1.2.0, 1.0.0-b0, 2.1rc1, 3.0.0.dev2), a build's
# letter (CPython's free-threaded 3.13t, OpenSSL's 1.1.1w) or an English label before a "-" (a tag such as
# release-2.3.0, pre-1.0): a number, as 1.2.0 is (`question_names`, `_version`); "put a `v` in front of the tags,
# like v1.2.0" was refused for "they never mention v1.2.0", Cython's "free-threaded CPython 3.13t" for 3.13t and
# python-semantic-release's "tags like release-2.3.0" for release-2.3.0 (bench/history/session-68.md, "Abstention:
# the 14 refusals")
_VERSION = re.compile(r"(?:(?P<label>[a-z]+(?:-[a-z]+)*)-)?[vV]?\d+(?:\.\d+)+"
                      r"(?:[-.+]?(?:a|b|c|rc|alpha|beta|pre|dev|post)\.?\d*|[a-z])?")
# The user's own literals, which docs never need to mention: an address with a port (localhost:3000,
# 127.0.0.1:8080, db.internal.example.com:5432), a URL (https://api.example.com/v1), a path (/users/me, ~/.config/app,
# ./build), a host name under a top-level domain (api.mycompany.com, db.internal.io; with one dot only under
# com/org/net: example.com, not threading.local, request.app or socket.io, which are names; never os.path.join).
# Not a name a question asks about (`question_names`).
_HOST = (r"(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]+\.(?:com|org|net)|(?:[a-z0-9-]+\.){2,}"
         r"(?:com|org|net|io|dev|app|cloud|local|lan|internal|test|example|co|ai|edu|gov))")
_USER_LITERAL = re.compile(_HOST + r"(?::\d+)?(?:/\S*)?|[a-zA-Z][\w+.-]*://\S*"
                           r"|(?:~|\.{1,2})?/[\w.{}~@%+-]*(?:/[\w.{}~@%+-]*)*")
# Lower-case words joined by "-" (--line-length, `cargo-fuzz`): kebab case, how CLI options, tools and config keys
# are spelled. A name when written as an option or in backticks (`question_names`); judged by its parts, as the
# docs may write a part closed up with a prefix (multi-threaded / multithreaded)
KEBAB = re.compile(r"-*[a-z]+(?:-[a-z]+)+")


# A program's run-commands file (.bashrc, .zshrc, .vimrc): `_program_rc`
_RC_FILE = re.compile(r"\.([a-z]+)rc")


def _program_rc(token: str, words: frozenset[str]) -> bool:
    """True when `token` is the run-commands file of a program the question names in its own words (`words`: the
    lower-case words of the whole question): "I want tab completion in bash ... What do I put in .bashrc?" — the
    file is where the user puts what the docs say for bash, and bash, which the question states, is the name that
    counts (judged as any other word of it). Not a dotfile named after no word of the question: ".netrc" (a file
    format of its own, "Does urllib3 read proxy credentials from my .netrc file?"), ".vimrc" asked without vim.
    jj's jj-i10 was refused for ".bashrc" (bench/history/session-68.md, "Abstention: the 14 refusals")."""
    m = _RC_FILE.fullmatch(token)
    return m is not None and m.group(1) in words


def _version(token: str) -> bool:
    """True when `token` is a version number (`_VERSION`: "v1.2.0", "3.13t", "release-2.3.0") whose label, if any,
    is English words (`english.lowercase_name` False: "release", "pre"; not the product of "gevent-1.4")."""
    m = _VERSION.fullmatch(token)
    return m is not None and not any(lowercase_name(w) for w in (m.group("label") or "").split("-") if w)


def _measure(token: str) -> bool:
    """True when `token` is a number and English words joined by "-" (`_MEASURE`: "8-character", "10-minute")."""
    m = _MEASURE.fullmatch(token)
    return m is not None and not any(lowercase_name(w) for w in m.group(1).split("-") if w)


# Words written together, each capitalised at its first letter ("VS Code", "Let's Encrypt", "GitHub Actions",
# "GoReleaser Pro"): `name_phrases`
_CAPITALISED_RUN = re.compile(r"[A-Z][^\s`]*(?:[ \t]+[A-Z][^\s`]*)+")


def name_phrases(text: str) -> dict[str, str]:
    """{name: the name of several words it is a word of} for the names of the question `text` (`question_names`)
    that stand next to another of its names, each capitalised at its first letter, where it asks: "Committing from
    VS Code, ..." -> {"VS": "VS Code", "Code": "VS Code"}, "Let's Encrypt certificates" -> {"Let": "Let's Encrypt",
    "Encrypt": ...}. A product named by two words is one name; said alone, its second word ("None of these sources
    mentions Code") names something else. A capitalised word that is no name (a sentence's first word, "Does") ends
    the phrase. Names in no such run are not keys."""
    names = set(question_names(text))
    out: dict[str, str] = {}
    for m in _CAPITALISED_RUN.finditer(CODE_SPAN.sub(" ", asked_clause(text))):
        run: list[tuple[str, str]] = []  # (the word as written, its name)
        for raw in [*m.group(0).split(), ""]:
            word = raw.strip(_TOKEN_EDGES).rstrip(".")
            token = re.sub(r"['’]s$", "", word)
            if raw and token in names:
                run.append((word, token))
                if not raw.endswith((",", ";", ":", ".", "?", "!", ")")):
                    continue
            if len(run) > 1:
                out.update({token: " ".join(w for w, _ in run) for _, token in run})
            run = []
    return out
