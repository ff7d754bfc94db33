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
  ("set a timeout", "give it a timeout", "add per-client rate limiting", "set a statement timeout"), or a bound
  of time or size the user names on what a verb of refusing or ending acts on ("reject bodies larger than 10 MB",
  "delete releases older than 30 days"; not "deploy to more than 2 servers", "why does the build take longer than
  5 minutes?"). Not "limit" narrowing a scope (`_SCOPE`: "How do I limit the search to Python files?"), not a
  question that asks for a value (`asked_value`:
  "What is the maximum ...?", "How long ...?" — the value veto's), nor one about a limit that exists ("What status
  code does a client get once it has hit a throttle limit?", "how do I lift the limit ...?": no verb of imposing).
- `limit_missing(text, passages)`: `limit_asked` and no passage (`asked_value.stated_text`: a link's target and a
  URL left out) holds a limit word or an amount with a unit of time or size (`_LIMIT_STATED`).

Every list here is a fixed English vocabulary of how limits are asked for and stated, not fitted to any corpus.
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
_LIMIT_STATED = re.compile(
    r"\b(?:time[- ]?outs?|timed? out|limit\w*|max\w*|min(?:imum)?|caps?|capped|at most|up to|throttl\w*|rate\w*|"
    r"exceed\w*|quota\w*|bound\w*|restrict\w*|no more than|kill\w*|terminat\w*)\b"
    r"|(?<![A-Za-z_])\d[\d,._]*\s*(?:" + TIME_UNIT + "|" + SIZE_UNIT + r")\b",
    re.IGNORECASE)


def limit_asked(text: str) -> bool:
    """Whether the question `text` asks for a way to impose a limit and is no value question (module docstring)."""
    return asked_value(text) is None and _LIMIT_ASK.search(_SCOPE.sub("narrow", asked_sentences(text))) is not None


def limit_missing(text: str, passages: Sequence[str]) -> bool:
    """True when the question `text` asks for a way to impose a limit (`limit_asked`) and none of `passages` (the
    top hits' titles and context windows, the text the user reads) states a limit (module docstring): the
    evidence `limit_missing` of `abstention.gather`, a veto like `value_missing`. One regex pass for any other
    question."""
    return limit_asked(text) and not any(_LIMIT_STATED.search(stated_text(p)) for p in passages)
