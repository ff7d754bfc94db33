"""What a question asks: the part of a user's question that asks (`asked_sentences`: the sentences ending in "?"
unless they name no subject of their own) and, of that, the clause that asks (`asked_clause`: not the user's
situation told before a ";", a premise or, with `turns`, a turn to asking). The value a question asks for
(retrieval/asked_value.py) and the names it writes (retrieval/names.py, the abstention's name test) are read from
there. Every pattern is a fixed English vocabulary of how help is asked for, not fitted to any corpus.
"""

from __future__ import annotations

import re

from ragls.core.analysis import STOPWORDS, query_words

# Words of a question that asks for help without naming its subject ("What am I doing wrong?", "How do I fix
# this?", "Any idea why?"): an asking sentence made only of these (and stop words) points back at the sentences
# before it. A fixed English vocabulary of how help is asked for, not fitted to any corpus.
GENERIC_ASKING = frozenset((
    "wrong", "right", "way", "ways", "fix", "fixed", "work", "works", "working", "worked", "bug", "bugs", "problem",
    "problems", "issue", "issues", "happen", "happens", "happening", "happened", "going", "mean", "means", "meant",
    "use", "using", "instead", "solve", "solution", "avoid", "help", "idea", "ideas", "reason", "why", "best",
    "correct", "possible", "expected", "behaviour", "behavior", "thing", "things", "something", "anything", "anyone",
    "else", "missing", "miss", "cause", "causes", "caused", "explain", "explanation", "supposed"))


FOLLOW_UP_WORDS = 1  # an asking sentence after others with at most this many content words points back at them
_WH_WORDS = frozenset(("how", "what", "which", "where", "when", "who", "whom", "whose"))  # "why" is GENERIC_ASKING


def asked_sentences(text: str) -> str:
    """The part of a question that asks: without a quoted selection (`extractive.asked_text`: Ask About Selection's
    fenced block), and of several sentences only those ending in "?" when there are any. "I run it on Ubuntu
    inside Docker. How do I set the secret key?" asks about the secret key; Ubuntu is context. When the asking
    sentences name no subject — every content word is one of how help is asked for (`GENERIC_ASKING`): "My
    handler for /users/me never runs. What am I doing wrong?" — or, without a wh-word, hold a single other content
    word, a follow-up that points back at the sentences before it ("... our config sets
    cache_logger_on_first_use=True. Related?", "Is that intended?", "Thoughts?"), the whole question asks ("How do I
    paginate?" still asks on its own)."""
    from ragls.answer.extractive import asked_text

    prose = asked_text(text)
    sentences = [x for x in re.split(r"(?<=[.?!])\s+(?=[A-Z\"'(`])", prose.strip()) if x]  # not after "e.g. x"
    asking = [x for x in sentences if x.rstrip().endswith("?")]
    if not asking or len(asking) == len(sentences):
        return prose
    words = query_words(" ".join(asking))
    subject = {w for w in words if w not in STOPWORDS and w not in GENERIC_ASKING}
    if not subject or (len(subject) <= FOLLOW_UP_WORDS and not _WH_WORDS & set(words)):
        return prose  # "What am I doing wrong?"; "Related?", "Is that expected?" (not "How do I paginate?")
    return " ".join(asking)


# A ";" that ends a clause: not one inside the user's code span or double-quoted text (`x = 1; y = 2`, "a; b"), which
# is their material, not the question's grammar
_CLAUSE_END = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|;")


# Where a question turns from the user's situation to what they ask, besides ";": a comma before a clause that opens
# with a question word ("When the server bounces me through a couple of 30x hops, how can I look at ...?"), a dash
# between spaces, a colon before a question word. A fixed English pattern, not fitted to any corpus.
_QUESTION_WORD = (r"(?:how|what|which|where|why|when|who|whom|whose|can|could|is|are|does|do|did|should|would|will|may|"
                  r"must|has|have|was|were|if|whether)\b")
TURN = re.compile(r",\s+(?=(?:so |and |but |then )?" + _QUESTION_WORD + r")|\s+[—–-]{1,2}\s+|:\s+(?="
                   + _QUESTION_WORD + r")", re.IGNORECASE)
TURN_END = re.compile(_CLAUSE_END.pattern + "|" + TURN.pattern, re.IGNORECASE)
# A premise the question opens with: a clause of cause or of a new state of things ("Since the frozen app ignores
# PYTHONWARNINGS and -W, how do I ...?", "Now that setup.py is deprecated, what replaces ...?") ended by a comma before
# a question word. It tells the user's situation as a clause before ";" does (`asked_clause`); "As", "When" and "If"
# open a role, a time or a condition, often what is asked about, and are not read so.
_PREMISE = re.compile(r"(?:since|because|given\s+that|now\s+that|seeing\s+that)\s+[^,;?]+,\s+(?=" + _QUESTION_WORD + ")",
                      re.IGNORECASE)


def split_clauses(text: str, turns: bool = False) -> list[str]:
    """`text` split at each ";" that ends a clause (`_CLAUSE_END`), with `turns` also where it turns to asking
    (`TURN`); the parts keep their spaces."""
    out, start = [], 0
    for m in (TURN_END if turns else _CLAUSE_END).finditer(text):
        if not m.group(0).startswith(("`", '"', "“")):
            out.append(text[start:m.start()])
            start = m.end()
    return [*out, text[start:]]


def asked_clause(text: str, turns: bool = False) -> str:
    """The asking sentences (`asked_sentences`) without a clause before a ";" when the last clause asks ("?") and
    names a subject of its own: "My WebDAV server needs a PROPFIND request, and there's no requests.propfind(); how
    do I send an arbitrary HTTP method?" asks about sending any method — the clause before the ";" is the user's
    situation, as a sentence before the question is. So is a premise the last clause opens with (`_PREMISE`: "Since
    the frozen app ignores PYTHONWARNINGS, how do I ...?"). The asking sentences themselves when the last clause
    names no subject ("...; what do I use?", `GENERIC_ASKING`). Where a question's names are read (`abstention.
    question_names`): a name of its situation the docs lack is no sign the docs miss what it asks. With `turns`, a
    comma, dash or colon before a clause opening with a question word ends the situation too (`TURN`: "When the
    server bounces me through 30x hops, how can I ...?"): what `abstention.gather`'s focus_coverage also weighs,
    not the name test (measured there only)."""
    asked = asked_sentences(text)
    clauses = [c for c in split_clauses(asked, turns) if c.strip()]
    if not clauses or not clauses[-1].rstrip().endswith("?"):
        return asked
    last = clauses[-1].strip()
    if (premise := _PREMISE.match(last)) and _names_subject(last[premise.end():]):
        return last[premise.end():]
    if len(clauses) < 2 or not _names_subject(last):
        return asked
    return last


def _names_subject(clause: str) -> bool:
    """True when `clause` holds a word that is no stop word and no generic asking word (`GENERIC_ASKING`)."""
    return not all(w in STOPWORDS or w in GENERIC_ASKING for w in query_words(clause))
