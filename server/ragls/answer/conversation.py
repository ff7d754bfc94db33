"""Follow-up questions in `rag/ask`: standalone query rewrite, the recent turns carried in the prompt, and a
rolling summary of older turns.

A *turn* is one exchange: a user question and, when there is one, the assistant's answer. `history` arrives from
the client as `{role, content}` messages (the protocol's shape), oldest first; the server keeps no conversation
state of its own except `SummaryMemo`, a content-keyed memo of summaries (so a rolling summary costs one LLM call
per new turn that leaves the window, not one per ask).

- Rewrite (`prepare`): with a model, one short non-streamed call (`model_rewrite`) turns "and how do I test
  that?" into a query that stands on its own (the technique of LangChain's history-aware retriever / LlamaIndex's
  condense-question chat engine). Without one, or when that call fails, a rule carries the previous question's
  key terms (content words, see `cite.content_words`) the follow-up lacks (`borrowed_terms`) — only when it refers
  back ("and how do I turn it off?", "what about Windows?"); a question that stands on its own is searched as it
  is, also when it opens with "and" / "so" ("And which version is running?"). The borrowed words weigh less than
  the follow-up's own in BM25 and in the embedded query (`retrieval.query.CONTEXT_WEIGHT`): they tell the
  subject apart ("it"), and the follow-up's own words decide what is found — else the earlier question's rarer
  words outrank them and the answer leads with the earlier subject ("and how do I check which version of it is
  running?" after a question about a torque wrench).
- Prompt: the most recent PROMPT_TURNS turns verbatim (fewer when `memory_max_turns` is smaller), preceded by the summary when there is one.
- Memory (`generation.memory_max_turns`, default 20; 0 = none): when the conversation, counting the new question,
  has more turns than that, every turn older than the verbatim window is folded into one summary by one LLM call
  (`summarize`), extending the previous summary when the memo has it. When that call fails the old turns are
  dropped silently: a conversation never fails because of its memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ragls.answer.cite import content_words
from ragls.core.errors import Cancelled, RaglsError
from ragls.core.lru import LRU
from ragls.retrieval.query import Query, analyse

log = logging.getLogger(__name__)

PROMPT_TURNS = 6  # turns carried verbatim in the prompt (Continue and aichat send a similar short window)
REWRITE_TURNS = 3  # turns the rewrite call sees
MAX_CARRIED_TERMS = 8  # key terms the rule carries from the previous question
MAX_TURN_CHARS = 4000  # a long past answer is cut to this in the prompt, the rewrite and the summary
SUMMARY_MAX_CHARS = 2000
MEMO_SIZE = 256

REWRITE_SYSTEM = ("You rewrite a follow-up question into a standalone search query for a document search. "
                  "Resolve pronouns and references (\"that\", \"it\", \"the second one\") from the conversation. "
                  "Reply with the query only, on one line, no quotes, no explanation. If the question already "
                  "stands on its own, repeat it unchanged.")
SUMMARY_SYSTEM = ("Summarize this conversation between a user and an assistant that answers from project "
                  "documents, for the assistant's memory: the questions asked, the facts established and any "
                  "preferences the user stated, in at most 150 words. Keep file names and [n] references out. "
                  "Reply with the summary only.")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# A follow-up that refers back to the conversation. "What about ..." / "how about ..." / "what if ..." always does
# (it names only what changes). After an opening connective ("and", "but", "or", "so", "then", "also") a fragment does ("and on
# Windows?", "and the timeout?", "and for the second one?"), one of at most 2 x FOLLOW_UP_MAX_WORDS content words;
# a whole question of its own (a question word or auxiliary first: "And which version is running?") is judged by
# the marks below like any other. A word that only means something after another turn ("instead" but not "instead of", "else", a clause-final
# "too", "the previous one") does in a question of at most 2 x FOLLOW_UP_MAX_WORDS distinct content words; pronouns,
# deictics, "also" and "why" only in a short one (at most FOLLOW_UP_MAX_WORDS: "is it thread-safe?", "how do I test
# that?"): of 683 standalone questions of ragls' question sets, 256 hold a pronoun ("so that it", "does X have its
# own") and long situation-first ones say "instead" or "too" of their own subject. A question with no content word
# of its own ("why?") refers back too.
_CONNECTIVES = re.compile(r"^\W*(?:(?:and|but|or|so|then|also)\b\W*)+", re.IGNORECASE)
_WHAT_ABOUT = re.compile(r"(?:(?:what|how)\s+about|what\s+if)\b", re.IGNORECASE)
_OWN_CLAUSE = re.compile(
    r"(?:what|what's|which|who|whom|whose|where|when|why|how|is|isn't|are|aren't|was|were|am|do|does|doesn't|did|"
    r"don't|can|can't|could|should|would|will|won't|shall|may|might|must|has|have|had)\b", re.IGNORECASE)
_REFERS_BACK_STRONG = re.compile(
    r"\binstead\b(?!\s+of\b)|\b(?:else|previous|former|latter)\b|\btoo\s*(?:[?.!,;:]|$)", re.IGNORECASE)
_REFERS_BACK_WEAK = re.compile(
    r"\b(?:it|its|it's|itself|this|that|these|those|they|them|their|theirs|there|one|ones|same|such|above|"
    r"either|neither|both|also|why)\b", re.IGNORECASE)
FOLLOW_UP_MAX_WORDS = 3  # distinct content words of a short follow-up: "can I change it per request?" has 2
SUMMARY_HEADER = "Summary of the earlier conversation (for context; not a source):"


@dataclass(frozen=True)
class Turn:
    """One exchange: the user's question and the assistant's answer ("" when the client sent none)."""

    question: str
    answer: str = ""

    def messages(self) -> list[dict]:
        out = [{"role": "user", "content": self.question[:MAX_TURN_CHARS]}]
        if self.answer:
            out.append({"role": "assistant", "content": self.answer[:MAX_TURN_CHARS]})
        return out


def to_turns(history: list[dict] | None) -> list[Turn]:
    """Client messages (`{role: "user" | "assistant", content: str}`, oldest first) → turns. Other roles, non-string
    or blank contents are ignored; an assistant message with no question before it is dropped; two user messages
    in a row make two turns."""
    turns: list[Turn] = []
    pending: str | None = None
    for m in history or []:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str) or not m["content"].strip():
            continue
        if m.get("role") == "user":
            if pending is not None:
                turns.append(Turn(pending))
            pending = m["content"].strip()
        elif m.get("role") == "assistant" and pending is not None:
            turns.append(Turn(pending, m["content"].strip()))
            pending = None
    if pending is not None:
        turns.append(Turn(pending))
    return turns


def refers_back(question: str) -> bool:
    """Whether `question` leans on the conversation before it (the marks above `_CONNECTIVES`): no content word;
    an opening "what about" / "how about" / "what if" (after any connectives); an opening connective followed by a fragment,
    not a question word or auxiliary, in a question of at most 2 x FOLLOW_UP_MAX_WORDS distinct content words
    (`cite.content_words`); "instead" / "else" / a final "too" in one of at most 2 x FOLLOW_UP_MAX_WORDS; a pronoun
    in one of at most FOLLOW_UP_MAX_WORDS (the last two looked for after the opening connectives: a leading "Also,"
    is one, not a mark)."""
    words = set(content_words(question))
    if not words:
        return True
    opener = _CONNECTIVES.match(question)
    rest = question[opener.end():] if opener else question.lstrip()
    if _WHAT_ABOUT.match(rest):
        return True
    if opener and len(words) <= 2 * FOLLOW_UP_MAX_WORDS and not _OWN_CLAUSE.match(rest):
        return True
    if len(words) <= 2 * FOLLOW_UP_MAX_WORDS and _REFERS_BACK_STRONG.search(rest):
        return True
    return len(words) <= FOLLOW_UP_MAX_WORDS and bool(_REFERS_BACK_WEAK.search(rest))


def borrowed_terms(question: str, turns: list[Turn], depth: int = REWRITE_TURNS) -> str:
    """The words the rule without a model adds to `question`: up to MAX_CARRIED_TERMS words of the previous
    question whose content-word stem (see `cite.content_words`) `question` lacks, as the user wrote them, in order,
    joined by spaces — when the question refers back (`refers_back`: "and how do I turn it off?", "what about
    Windows?", "is it thread-safe?") or has no content word of its own ("why?"); else "" (a question that stands on
    its own, "where are the logs?", is searched as it is, as it is without history). When the previous question
    referred back itself, it is read with what it borrowed (up to `depth` turns back): "and what does it return?"
    after "How do I spawn a thread?" and "how do I wait for it?" borrows wait and then spawn and thread — its
    referent is the older turn's subject, not only the last question's words."""
    if not turns or not refers_back(question):
        return ""
    have = set(content_words(question))
    extra: list[str] = []
    previous = turns[-1].question
    if depth > 1 and (older := borrowed_terms(previous, turns[:-1], depth - 1)):
        previous = f"{previous} {older}"
    for word in _WORD.findall(previous):
        stems = content_words(word)
        if not stems or stems[0] in have:
            continue
        have.add(stems[0])
        extra.append(word)
    return " ".join(extra[:MAX_CARRIED_TERMS])


def carry_terms(question: str, turns: list[Turn]) -> str:
    """`question` followed by its `borrowed_terms` (the text searched and shown as the retrieval query)."""
    extra = borrowed_terms(question, turns)
    return f"{question} {extra}" if extra else question


def _transcript(turns: list[Turn]) -> str:
    lines = []
    for t in turns:
        lines.append(f"User: {t.question[:MAX_TURN_CHARS]}")
        if t.answer:
            lines.append(f"Assistant: {t.answer[:MAX_TURN_CHARS]}")
    return "\n".join(lines)


def model_rewrite(question: str, turns: list[Turn], chat, cancel: threading.Event | None = None) -> str | None:
    """The model's one-line standalone rewrite of `question` after `turns` (one short call, non-streamed, the last
    REWRITE_TURNS turns; stopped when `cancel` is set); None without a model, when the call fails, or when the reply
    is empty or longer than 3x the question plus 200 chars (a model answering instead of rewriting). Raises
    Cancelled only."""
    if chat is None or not turns:
        return None
    prompt = (f"Conversation:\n{_transcript(turns[-REWRITE_TURNS:])}\n\nFollow-up question: {question}\n\n"
              f"Standalone search query:")
    try:
        reply = chat.chat([{"role": "user", "content": prompt}], system=REWRITE_SYSTEM, cancel=cancel)
    except Cancelled:
        raise
    except RaglsError as exc:
        log.info("query rewrite failed, using the previous question's terms: %s", exc)
        return None
    lines = [ln.strip().strip('"').strip() for ln in reply.text.splitlines() if ln.strip()]
    text = lines[0] if lines else ""
    if text.lower().startswith(("standalone search query:", "query:")):
        text = text.split(":", 1)[1].strip()
    return text if text and len(text) <= 3 * len(question) + 200 else None


class SummaryMemo:
    """Thread-safe LRU memo: hash of a run of turns → its summary (at most MEMO_SIZE entries)."""

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self._lru: LRU[str] = LRU(size)

    @staticmethod
    def key(turns: list[Turn]) -> str:
        raw = json.dumps([[t.question, t.answer] for t in turns], ensure_ascii=False)
        return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, turns: list[Turn]) -> str | None:
        return self._lru.get(self.key(turns))

    def put(self, turns: list[Turn], summary: str) -> None:
        self._lru.put(self.key(turns), summary)


def summarize(old: list[Turn], chat, memo: SummaryMemo | None, cancel: threading.Event | None = None) -> str | None:
    """One summary of the turns `old` (oldest first) by one LLM call, extending the memo's summary of the longest
    prefix of `old` it holds. None when the call fails (logged, never raised) or there is no model. Raises
    Cancelled when `cancel` is set."""
    if not old or chat is None:
        return None
    if memo is not None and (hit := memo.get(old)) is not None:
        return hit
    prev, start = None, 0
    if memo is not None:
        for cut in range(len(old) - 1, 0, -1):
            if (prev := memo.get(old[:cut])) is not None:
                start = cut
                break
    body = _transcript(old[start:])
    prompt = (f"Earlier summary:\n{prev}\n\nThen:\n{body}" if prev else body)
    try:
        text = chat.chat([{"role": "user", "content": prompt}], system=SUMMARY_SYSTEM, cancel=cancel).text.strip()
    except Cancelled:
        raise
    except RaglsError as exc:
        log.info("conversation summary failed; the %d oldest turns are dropped: %s", len(old), exc)
        return None
    if not text:
        return None
    text = text[:SUMMARY_MAX_CHARS]
    if memo is not None:
        memo.put(old, text)
    return text


@dataclass(frozen=True)
class Conversation:
    """What `rag/ask` uses of the history: the retrieval query and the messages to send before the prompt."""

    retrieval_query: str
    messages: list[dict]
    summary: str | None = None
    # The analysed query searched when the rule borrowed words (`borrowed_terms`): they weigh less than the
    # follow-up's own (`retrieval.query.analyse` with `context`). None: `retrieval_query` is searched as it is.
    search: Query | None = None
    # Those borrowed words as the user wrote them ("register blueprint URL prefix"), "" when none: `retrieval_query`
    # is then the follow-up followed by them, which clients show apart (rag/ask `retrievalContext`).
    borrowed: str = ""


def prepare(question: str, history: list[dict] | None, *, chat=None, memory_max_turns: int = 20,
            memo: SummaryMemo | None = None, cancel: threading.Event | None = None,
            rewrite: Callable[[str, list[Turn]], str] | None = None) -> Conversation:
    """The retrieval query and prompt messages for `question` after `history` (see the module docstring).

    Messages: `[summary as a user/assistant pair]` + the last PROMPT_TURNS turns (user/assistant alternating).
    The summary is made only when `1 + len(turns) > memory_max_turns > 0` and covers every turn older than the
    verbatim window. `rewrite` overrides `standalone_query` (tests). Raises Cancelled only."""
    turns = to_turns(history)
    if not turns:
        return Conversation(question, [])
    search, borrowed = None, ""
    if rewrite is not None:
        query = rewrite(question, turns)
    elif (query := model_rewrite(question, turns, chat, cancel)) is None:
        borrowed = borrowed_terms(question, turns)
        search = analyse(question, context=borrowed) if borrowed else None
        query = search.text if search is not None else question
    window = min(PROMPT_TURNS, memory_max_turns) if memory_max_turns > 0 else PROMPT_TURNS
    recent = turns[-window:]
    old = turns[:-window] if len(turns) > window else []
    summary = None
    if memory_max_turns > 0 and len(turns) + 1 > memory_max_turns and old:
        summary = summarize(old, chat, memo, cancel)
    messages: list[dict] = []
    if summary:
        messages += [{"role": "user", "content": f"{SUMMARY_HEADER}\n{summary}"},
                     {"role": "assistant", "content": "Noted."}]
    for t in recent:
        messages += t.messages()
    # Chat APIs want user/assistant alternating: a question left without an answer gets an empty reply marker.
    fixed: list[dict] = []
    for m in messages:
        if fixed and fixed[-1]["role"] == m["role"] == "user":
            fixed.append({"role": "assistant", "content": "(no answer)"})
        fixed.append(m)
    if fixed and fixed[-1]["role"] == "user":
        fixed.append({"role": "assistant", "content": "(no answer)"})
    return Conversation(query, fixed, summary, search, borrowed if search is not None else "")
