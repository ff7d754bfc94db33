"""Answer type for abstention: a question that asks for a way to impose a LIMIT, and passages that state none.

A near miss often asks for a limit the product does not have: "How do I set a timeout so nox kills a session that
runs longer than 10 minutes?", "How do I add per-client rate limiting to my Falcon API?", "With parallel: true, can I
cap how many commands run at once?". Made of the corpus' own words (session, run, parallel, commands), the question
finds passages about its subject, and the words it lacks (timeout, rate) are ones a paraphrase lacks as often
(bench/history/session-66.md, "Abstention: three word probes"). What tells it apart is what any answer must say: a
passage that tells how to limit something names a limit — a timeout, a maximum, a cap, a rate, a quota, "at most",
"up to", a restriction, or a duration or size (30s, 10 MB). When none of the passages the user is shown does, the
docs offer no such limit. The answerable questions of this form on the dev sets ("How do I cap the number of
simultaneous connections ...?", "How do I set different connect and read timeouts?") are each answered by a
passage that says limit, maximum, timeout or a size (bench/history/session-67.md, "Abstention: a limit asked, none
stated").

- `limit_asked(text)`: the part of the question that asks (`asked_sentences`) asks for a way to impose a limit
  (`_LIMIT_ASK`): limit / cap / throttle / rate-limit as the user's verb ("How do I limit ...", "can I cap ...",
  "to throttle ..."), a limit as the object of set / give / add / have / configure / put / impose / enforce / apply
  ("set a timeout", "give it a timeout", "add per-client rate limiting", "set a statement timeout"), a limit
  after "a setting / an option / a way to <verb> ... after / with" ("a setting to kill lifecycle scripts after a
  time limit"), or a bound
  of time or size the user names on what a verb of refusing or ending acts on ("reject bodies larger than 10 MB",
  "delete releases older than 30 days"; not "deploy to more than 2 servers", "why does the build take longer than
  5 minutes?"). Not "limit" narrowing a scope (`_SCOPE`: "How do I limit the search to Python files?"), not a
  question that asks for a value (`asked_value`:
  "What is the maximum ...?", "How long ...?" — the value veto's), nor one about a limit that exists ("What status
  code does a client get once it has hit a throttle limit?", "how do I lift the limit ...?": no verb of imposing).
- `limit_missing(text, passages)`: `limit_asked` and no passage (`asked_value.stated_text`: a link's target and a
  URL left out) holds a limit word or an amount with a unit of time or size (`_LIMIT_STATED`).

Every list here is a fixed English vocabulary of how limits are asked for and stated, not fitted to any corpus.

The same shape holds for other ways asked for whose answer has a closed vocabulary (`MECHANISMS`,
`mechanism_missing`): a question asking a tool to retry a failed command ("Can Task automatically retry a flaky
command a few times?"), to send a notification or an e-mail when something happens ("Can Task show a desktop
notification when a long build finishes?") or to report how long each step took ("Is there a way to print how long
each migration took?") is answered by a passage that says retry / re-run / attempts, notification / e-mail / alert /
webhook, timings / duration / elapsed / took. Each asking form and each stated vocabulary was written before any
passage was read (bench/history/session-68.md, "Abstention: the 14 refusals, and a way asked whose word no passage
says"). A fourth family, watching files ("Does nox have a watch mode ...?"), was dropped: on both of its held-out
checks it refused an answerable question whose answering passage says no watch word or is not among the top hits
(Cargo's "rerun only when that C file changes", `rerun-if-changed`; Sphinx's "watch my source files and rebuild",
`sphinx-autobuild` in a page ranked below the first ten).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragls.retrieval.asked_value import SIZE_UNIT, TIME_UNIT, asked_value, stated_text
from ragls.retrieval.asking import asked_sentences

_LIMIT_NOUNS = r"(?:time[- ]?outs?|time limits?|rate[- ]limit(?:s|ing)?|limits?|caps?|maximum|max)"
_LIMIT_ASK = re.compile(
    r"\b(?:I|we|you|to)\s+(?:\w+\s+)?(?:limit|cap|throttle|rate[- ]limit)\b"  # how do I limit / can I cap / to throttle
    r"|\b(?:set|give|add|have|configure|put|impose|enforce|apply)\b(?:\s+[\w'-]+){0,4}?\s+" + _LIMIT_NOUNS + r"\b"
    # a setting / an option / a way to act on something after or with a limit: "Is there a setting to kill lifecycle
    # scripts after a time limit?", "an option to stop a job with a timeout" (the object of "a setting to", no verb
    # of imposing; bench/history/session-68.md, "Abstention: a limit asked as what a setting does")
    r"|\b(?:settings?|options?|flags?|ways?|config\w*|keys?|switch(?:es)?|knobs?)\s+to\s+[\w'-]+\b[^.?!]{0,80}?"
    r"\b(?:after|with|past|beyond)\s+(?:(?:a|an|some|the|my|its|their|certain)\s+)?(?:[\w-]+\s+)?" + _LIMIT_NOUNS
    + r"\b"
    # a bound the user names on what is to be refused or ended: reject bodies larger than 10 MB, kill a worker after
    # more than 30 seconds, delete releases older than 30 days (not "deploy to more than 2 servers", "why does the
    # build take longer than 5 minutes?": no amount of time or size, no verb of refusing)
    r"|\b(?:reject|refuse|stop|kill|abort|cancel|drop|delete|remove|prune|purge|expire|evict|deny|block|discard|"
    r"terminate)\b[^.?!]*?\b(?:larger|bigger|longer|older|more)\s+than\s+\d[\d,._]*\s*(?:" + TIME_UNIT + "|"
    + SIZE_UNIT + r")\b",
    re.IGNORECASE)
# "limit" in the sense of narrowing a scope, not imposing an amount: "limit X to" a determiner, a name or a
# pattern ("How do I limit the search to Python files?", "limit the run to the tests folder", "to `*.md`"); not "to"
# an amount ("limit uploads to 10 MB") nor a purpose ("limit the bandwidth to emulate a slow connection").
# Not "rate limiting to my API", nor a measure as the object ("limit the request rate to a host").
_SCOPE = re.compile(r"(?<![Rr]ate[- ])\b(?i:limit(?:ing)?)\b(?=(?:(?!(?i:rate|number|size|bandwidth|speed|amount|count|"
                    r"concurrency|memory|space|time|duration|length|depth|frequency)\b)[^.?!,;])*?\b(?i:to)\s+"
                    r"(?:(?i:the|an?|my|our|your|this|that|these|those|its|their|only|just|specific|certain|particular|"
                    r"some)\b|[A-Z`*\"'./]))")
# A number before a unit, in `_LIMIT_STATED` and `_RATE_STATED` (read for a match, not its span): the digits and
# separators after its first digit are AMOUNT_MAX_CHARS at most. Unbounded ("\d[\d,._]*") the search tried every
# digit of a long run to the run's end and the units at each: 2.6 s for a passage of 2,000 digits, 8.4 s for 4,000.
# A match found before is found still (any digit of a run not glued to a letter starts one) but in a run of digits
# each after "_" ("_1_2_3..."), past 24 characters.
AMOUNT_MAX_CHARS = 24  # "10,000,000,000" has 13, an IPv4 address 15
_AMOUNT = rf"(?<![A-Za-z_])\d[\d,._]{{0,{AMOUNT_MAX_CHARS}}}(?![\d,._])"  # (no unit starts with one: tried at its end only)
_LIMIT_STATED = re.compile(
    # "for maximum safety" (the most of something) and "up to date" / "up to you" are no bound stated (pnpm's
    # pn35, a limit asked, found only these two)
    r"\b(?:time[- ]?outs?|timed? out|limit\w*|(?<!for )max\w*|min(?:imum)?|caps?|capped|at most|"
    r"up to(?!\s+(?:date|you)\b)|throttl\w*|rate\w*|"
    r"exceed\w*|quota\w*|bound\w*|restrict\w*|no more than|kill\w*|terminat\w*)\b"
    r"|" + _AMOUNT + r"\s*(?:" + TIME_UNIT + "|" + SIZE_UNIT + r")\b",
    re.IGNORECASE)

# A limit asked on a RATE — of requests, calls or bytes over time, or per client ("add per-client rate limiting",
# "limit the number of requests per IP address", "cap the upload bandwidth", "100 requests a minute") — is stated
# only by a rate: a passage that says "limit" or "max" of something else (a body's maximum size, a pool's maximum
# connections, a thread "limited to" one request) states no rate (bench/history/session-69.md, "Abstention: a rate
# asked, none stated")
# A count per client, user or host is asked as a rate only of requests ("requests per user"): "connections per host",
# "memory per user" are maxima of other things, which a maximum states (urllib3's pool `maxsize` per host)
_RATE_ASK = re.compile(r"\brates?\b|\brate[- ]?limit\w*|\bbandwidth\b|\bper[- ](?:ip|second|minute|hour|day)\b|"
                       r"\b(?:requests|calls|queries)(?:\s+(?:made|sent|issued))?\s+per[- ](?:client|user|host)\b|"
                       r"\b(?:requests?|calls?|bytes|queries)\s+(?:per|a|an|each)\s+(?:second|minute|hour|day)\b",
                       re.IGNORECASE)
_RATE_STATED = re.compile(r"\brat(?:e|es|ed)\b|\brate[-_ ]?limit\w*|\bthrottl\w*|\bbandwidth\b|\bquotas?\b|\bburst\w*|"
                          r"\b(?:requests?|calls?|bytes|queries|tasks?|times)\s+(?:per\b|(?:a|an|each)\s+"
                          r"(?:second|minute|hour|day)\b)|\bper[- ](?:second|minute|hour|day)\b|\b(?:fps|hz)\b|"
                          + _AMOUNT + r"\s*/\s*(?:s|sec|second|m|min|minute|h|hour|d|day)\b|"
                          r"\b[KMGkmg]i?B/s\b",
                          re.IGNORECASE)


def limit_asked(text: str) -> bool:
    """Whether the question `text` asks for a way to impose a limit and is no value question (module docstring)."""
    return asked_value(text) is None and _LIMIT_ASK.search(_SCOPE.sub("narrow", asked_sentences(text))) is not None


def limit_missing(text: str, passages: Sequence[str]) -> bool:
    """True when the question `text` asks for a way to impose a limit (`limit_asked`) and none of `passages` (the
    top hits' titles and context windows, the text the user reads) states a limit (module docstring) — for a
    limit on a rate (`_RATE_ASK`: rate limiting, requests per IP, bandwidth) a rate (`_RATE_STATED`: rate,
    throttle, per second, 100 requests a minute, 10/m, 1 MB/s, 60 fps) —: the evidence `limit_missing` of `abstention.gather`, a veto like
    `value_missing`. One regex pass for any other question."""
    if not limit_asked(text):
        return False
    stated = _RATE_STATED if _RATE_ASK.search(asked_sentences(text)) else _LIMIT_STATED
    return not any(stated.search(stated_text(p)) for p in passages)


def _words(pattern: str) -> re.Pattern:
    """`pattern` compiled to match in any case (`MECHANISMS`)."""
    return re.compile(pattern, re.IGNORECASE)


# The words between a form's two parts, in one sentence: at most 300 characters, as a sentence of a question is
# (unbounded, each "alert" of a 16,000-character question without a full stop read on to its end: 0.84 CPU-s)
_ON_IN_SENTENCE = r"[^.?!]{0,300}"
# {what the user asks for, as the refusal names it: (the asking form, a condition on the asking sentences or None,
# the words a passage that offers it says)}. `mechanism_asked`, `mechanism_missing`
MECHANISMS = {
    # a retry of what failed: "Can lefthook retry a failed command automatically a couple of times?", "make httpx
    # try again automatically"; not "re-run just the task I name" (no failure, nothing automatic)
    "retrying": (_words(r"\b(?:retry|retries|re-?try|re-?run|rerun|try\s+(?:it\s+|them\s+)?again)\b"),
                 _words(r"\bautomatic\w*|\b(?:a\s+few|a\s+couple(?:\s+of)?|several|\d+|two|three)\s+times\b|"
                        r"\bfail\w*|\bflaky\b"),
                 _words(r"\bretr(?:y|ies|ied|ying)\b|\bre-?run\w*|\btr(?:y|ies|ied|ying) again\b|\battempts?\b|"
                        r"\bback-?off\b")),
    # a message sent when something happens: "How can I get an email when my nightly backup fails?", "post a
    # message to Slack when a session fails"
    "a notification": (_words(r"\b(?:e-?mails?|notifications?|alerts?|(?:Slack|Teams|Discord)\s+messages?|messages?\s+"
                              r"to\s+(?:\w+\s+){0,2}(?:Slack|Teams|Discord))\b" + _ON_IN_SENTENCE
                              + r"\b(?:when|whenever|if|after|once)\b"),
                       None,
                       _words(r"\bnotif\w*|\be-?mail\w*|\bmail\w*|\balert\w*|\bslack\b|\bwebhooks?\b|\bdiscord\b|"
                              r"\bsmtp\b")),
    # how long each step took, or timings: "Can Task print how long each task took at the end of a run?"
    "timings": (_words(r"\bhow\s+long\s+(?:each|every|it|they|the|all)\b" + _ON_IN_SENTENCE
                       + r"\b(?:took|takes|take|ran|runs|spent)\b|\btimings?\b"),
                None,
                _words(r"\btimings?\b|\bdurations?\b|\belapsed\b|\bhow long\b|\btook\b|\btime (?:spent|taken)\b|"
                       r"\bprofil\w*|(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s)\b|\bseconds\b")),
}


def mechanism_asked(text: str) -> tuple[str, ...]:
    """The `MECHANISMS` the question `text` asks for (their asking form, and its condition, in the asking
    sentences, `asked_sentences`), in order; () for a value question (`asked_value`: "How many times does Scrapy
    retry a failed download by default?" asks for a value, the value veto's)."""
    if asked_value(text) is not None:
        return ()
    asked = asked_sentences(text)
    return tuple(name for name, (ask, condition, _) in MECHANISMS.items()
                 if ask.search(asked) and (condition is None or condition.search(asked)))


def mechanism_missing(text: str, passages: Sequence[str]) -> str:
    """The first way the question `text` asks for (`mechanism_asked`) that none of `passages` (the top hits' titles
    and context windows, as `limit_missing` reads them) says a word of (`MECHANISMS`' stated words), as the refusal
    names it ("retrying", "a notification", "timings"); "" when there is none: the evidence
    `mechanism_missing` of `abstention.gather`, a veto like `limit_missing`."""
    texts = [stated_text(p) for p in passages]
    return next((name for name in mechanism_asked(text) if not any(MECHANISMS[name][2].search(t) for t in texts)), "")
