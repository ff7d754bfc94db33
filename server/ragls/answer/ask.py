"""`rag/ask`: retrieve → (abstain) → template → LLM with the `rag__query` tool → citation check.

Without an LLM (`chat is None`, backend "none") the answer is extractive: the sentences of the top chunks that
share the most content words with the question, each followed by its `[n]`, under a label saying so.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ragls.answer.cache import AnswerCache, CachedAnswer, cache_key
from ragls.answer.cite import check_citations
from ragls.answer.conversation import Conversation, SummaryMemo, prepare
from ragls.answer.extractive import (  # noqa: F401 - re-exported: callers import them from here
    EXTRACTIVE_MAX_SENTENCES,
    extractive_answer,
    extractive_picks,
    render_extractive,
    split_sentences,
)
from ragls.answer.extractive_label import EXTRACTIVE_LABEL, FALLBACK_LABEL
from ragls.answer.focus import quoted_focus
from ragls.answer.includes import FileFilters
from ragls.answer.passages import Unit
from ragls.answer.persona import with_user_context
from ragls.answer.template import render_prompt, source_label
from ragls.config.settings import Settings
from ragls.core.errors import Cancelled, InvalidParams, RaglsError, RequestFailed
from ragls.core.ir import Answer, Hit
from ragls.llm.chat import ChatModel, ToolCall
from ragls.retrieval.absent_names import unmentioned_names
from ragls.retrieval.names import name_phrases
from ragls.retrieval.query import Query, blend
from ragls.retrieval.relevance import abstained
from ragls.retrieval.result import RetrievalResult

# (query text, or the analysed query of a follow-up with borrowed words, `Conversation.search`; k) -> hits; a plain
# list of hits is judged without evidence
Retrieve = Callable[[str | Query, int], RetrievalResult]

EXTRACTIVE_MODEL = "extractive"
# A context-length failure (OpenAI "context_length_exceeded", Anthropic "prompt is too long", llama.cpp / Ollama /
# vLLM wordings) is retried once with half the context.
_CONTEXT_ERROR = re.compile(r"context[ _-]?length|context window|maximum context|prompt is too long|too many tokens"
                            r"|exceeds? the (?:model'?s? )?(?:maximum|max)|n_ctx|input is too long", re.IGNORECASE)
TOOL_MAX_TOP_K = 20

RAG_QUERY_TOOL = {
    "name": "rag__query",
    "description": ("Search the user's project documents again, e.g. with other words or for a sub-question, "
                    "when the given context is not enough. Returns matching chunks; each chunk's source starts "
                    "with its number [n]: cite it as [n]."),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to search for, in natural language."},
            "top_k": {"type": "integer", "minimum": 1, "maximum": TOOL_MAX_TOP_K,
                      "description": "How many chunks to return (default: the configured top_k)."},
        },
        "required": ["query"],
    },
}
TOOL_SYSTEM = ("Answer from the project documents given by the user. If they are not enough, you may call "
               "rag__query to search the documents again. Cite every source you use as [n].")


CLOSEST_MATCHES = 3  # passages listed by an abstained answer

def ask(
    question: str,
    *,
    settings: Settings,
    retrieve: Retrieve,
    top_k: int | None = None,
    history: list[dict] | None = None,
    extra_hits: Sequence[Hit] | None = None,
    chat: ChatModel | None = None,
    on_delta: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    rag_name: str = "workspace",
    embed: Callable[[list[str]], Any] | None = None,
    embed_query: Callable[[str], Any] | None = None,
    memo: SummaryMemo | None = None,
    answer_cache: AnswerCache | None = None,
    label: str = EXTRACTIVE_LABEL,
    unindexed: Callable[[], Sequence[str]] | None = None,
    files: FileFilters | None = None,
) -> Answer:
    """Answer `question` from the documents `retrieve(query, k) -> hits (best first)` finds.

    - `top_k` (default `settings.retrieval.top_k`) hits are retrieved; `extra_hits` (ephemeral documents, already
      ranked by the retrieval pipeline) come first, then the retrieved ones (duplicates by chunk id dropped), at
      most `top_k` (`with_documents`).
    - Abstains (`abstained=True`, model "extractive" whatever `chat` is: no LLM is called and none wrote the
      answer; the closest hits listed as sources, none cited) when `retrieval.relevance.abstained(hits,
      settings.retrieval.min_similarity)`: no hits, or the best cosine `Hit.similarity` below the floor (hits
      without any similarity, e.g. while vectors are pending, count as relevant when BM25 found them). Never
      with `extra_hits`: the user's own documents are relevant by definition; the index's hits are then added
      only when they pass that test.
    - With `history` ({role, content}, oldest first) the question is a follow-up (`conversation.prepare`): it is
      rewritten into a standalone retrieval query (returned as `Answer.retrieval_query`), and the prompt is
      preceded by the most recent turns (and a rolling summary of older ones; `memo` keeps summaries).
    - With `chat`: the `generation.template` prompt (context within `generation.max_context_chars`, then the
      `generation.persona` / `personal_kb` block when set), after the history messages, streamed to `on_delta`.
      With `answer_cache` (and `generation.cache` on) a stored answer for the same question, chunks, model and
      prompt is returned without an LLM call (`cached=True`).
    - When the LLM fails (`RequestFailed`: unreachable, 401, timeout...) the answer is the extractive one over the
      same sources with `error` set; a context-length failure is first retried once with half the context. When the model supports
      tools it gets `rag__query` for up to `generation.max_tool_rounds` rounds; chunks it retrieves join the
      numbered sources. Texts of successive rounds are joined by a blank line (streamed as well).
    - Without `chat`: an extractive answer (model "extractive"), sent to `on_delta` in one piece; `embed(texts)
      -> (n, dim) normalised vectors` (passages) and `embed_query(question) -> (dim,)` (the model's query side),
      when given, let it rank sentences by meaning (see `extractive_picks`), under `label` (why no LLM answers).
    - `files`: the open indexes' file filters by folder, handed down by the workspace: what a page's literalinclude
      may show in an extractive answer (`passages.chunk_units`).
    - `unindexed() -> notices` of searched folders whose index holds no file (`workspace/status.empty_folder_notices`),
      called only when no passage matched at all, and added to the abstained answer: why the documents hold nothing.
    - Citations are then checked (`cite.check_citations`): unknown `[n]` removed, each used n flagged supported
      or not. `sources` are numbered from 1 in context order; an extractive answer's in the order it quotes them
      (`cited_first`).
    Raises InvalidParams (empty question), Cancelled (`cancel` set), and whatever `retrieve` raises for the
    initial retrieval.
    """
    t0 = time.perf_counter()
    if not isinstance(question, str) or not question.strip():
        raise InvalidParams("question must be a non-empty string")
    _check_cancel(cancel)
    gen = settings.generation
    k = top_k or settings.retrieval.top_k
    conv = prepare(question, history, chat=chat, memory_max_turns=gen.memory_max_turns, memo=memo, cancel=cancel)
    query = conv.retrieval_query
    _check_cancel(cancel)
    retrieved = RetrievalResult.of(retrieve(conv.search or query, k))
    floor = settings.retrieval.abstention_floor
    index_relevant = not abstained(retrieved, floor, query, min_probability=settings.retrieval.abstention_probability)
    # Documents the user handed over are relevant by definition ("summarize this" resembles no text); the
    # index's hits join them only when they pass the relevance test on their own.
    # the sources a user is shown: not the hits no signal found (`RetrievalResult.shown`, as rag/query lists them)
    hits = with_documents(retrieved.shown() if index_relevant or not extra_hits else [], extra_hits or [], k)
    model_name = chat.model if chat is not None else EXTRACTIVE_MODEL

    def done(text: str, sources: list[tuple[int, Hit]], is_abstained: bool = False, *, model: str = model_name,
             cached: bool = False, error: str | None = None) -> Answer:
        text, citations = check_citations(text, sources)
        return Answer(text=text, sources=sources, citations=citations, model=model, abstained=is_abstained,
                      elapsed_ms=(time.perf_counter() - t0) * 1000,
                      retrieval_query=query if conv.messages else None,
                      retrieval_context=conv.borrowed or None,
                      cached=cached, error=error)

    if not extra_hits and not index_relevant:
        text = abstention_text(hits, floor, retrieved.evidence, settings.retrieval.abstention_probability,
                               retrieved.corrective, unindexed() if unindexed is not None and not hits else (), query)
        if on_delta is not None:
            on_delta(text)
        # The nearest passages stay listed as sources (not cited): the user sees where the index came closest.
        return done(text, list(enumerate(hits[:CLOSEST_MATCHES], 1)), True, model=EXTRACTIVE_MODEL)
    numbered = list(enumerate(hits, 1))
    if chat is None:
        by, by_vector = picked_by(conv, query, embed_query)
        picked = extractive_picks(by, numbered, embed=embed, embed_query=by_vector, files=files)
        numbered, picked = cited_first(*quoted_focus(numbered, picked, query))  # [n] prints the lines quoted with it
        text = unmentioned_line(render_extractive(picked, label), query, numbered)
        if on_delta is not None:
            on_delta(text)
        return done(text, numbered)
    streamed = False

    def emit(piece: str) -> None:
        nonlocal streamed
        streamed = True
        on_delta(piece)

    stream = emit if on_delta is not None else None
    max_chars = gen.max_context_chars
    for attempt in (1, 2):
        try:
            text, sources, cached = _generate(question, numbered, settings, retrieve, k, conv.messages, chat,
                                              stream, cancel, rag_name, max_chars, answer_cache)
            return done(text, sources, cached=cached)
        except RequestFailed as exc:
            failure = exc
            if attempt == 1 and not streamed and _CONTEXT_ERROR.search(str(exc)) and max_chars > 1000:
                max_chars = max(500, max_chars // 2)
                continue
            break
    _check_cancel(cancel)
    by, by_vector = picked_by(conv, query, embed_query)
    picked = extractive_picks(by, numbered, embed=embed, embed_query=by_vector, files=files)
    numbered, picked = cited_first(*quoted_focus(numbered, picked, query))
    text = unmentioned_line(render_extractive(picked, FALLBACK_LABEL), query, numbered)
    if on_delta is not None:
        on_delta(("\n\n" if streamed else "") + text)
    return done(text, numbered, model=EXTRACTIVE_MODEL, error=str(failure))


def cited_first(numbered: list[tuple[int, Hit]], picked: list[tuple[int, Unit]]
                ) -> tuple[list[tuple[int, Hit]], list[tuple[int, Unit]]]:
    """An extractive answer's sources `numbered` ((n, hit), retrieval order) and passages `picked` ((n, unit), answer
    order) renumbered from 1 in the order the answer first quotes them, the sources it quotes nothing from after
    them in retrieval order; `numbered` sorted by the new numbers. An answer reads "[1]" first and lists its sources
    as a reader meets them: its best passage by meaning may come from the second hit, and an answer citing [2] [3]
    [4] under a list holding [1] "Also retrieved, not cited" read as if [1] were missing (docs/protocol.md, Clients).
    An LLM's answer keeps the numbers of its prompt's context."""
    order = list(dict.fromkeys([n for n, _ in picked] + [n for n, _ in numbered]))
    new = {old: k for k, old in enumerate(order, 1)}
    return (sorted(((new[n], hit) for n, hit in numbered), key=lambda t: t[0]),
            [(new[n], unit) for n, unit in picked])


def picked_by(conv: Conversation, query: str, embed_query: Callable[[str], Any] | None
              ) -> tuple[str, Callable[[str], Any] | None]:
    """(text, embed_query) the extractive answer's sentences are picked by (`extractive_picks`): `query` and
    `embed_query`, or for a follow-up searched with borrowed words (`Conversation.search`) the follow-up's own words,
    embedded `blend`ed with the whole query's embedding: the sources are already about the earlier subject, and
    the sentence that answers is the one the follow-up's own words find, not the one the borrowed words repeat."""
    search = conv.search
    if search is None or not search.own_text:
        return query, embed_query
    if embed_query is None:
        return search.own_text, None
    return search.own_text, lambda text: blend(embed_query(text), embed_query(search.text))


def with_documents(hits: Sequence[Hit], extra: Sequence[Hit], k: int) -> list[Hit]:
    """The request's own documents' hits `extra` first (their retrieval order: the user's documents are relevant by
    definition), then the retrieved `hits`, one per chunk id, at most `k`. Without `extra` the retrieval order is
    kept as it is."""
    if not extra:
        return list(hits)[:k]
    out: dict[str, Hit] = {}
    for hit in [*extra, *hits]:
        out.setdefault(hit.chunk.id, hit)
    return list(out.values())[:k]


def abstention_text(hits: list[Hit], floor: float, evidence=None, min_probability: float = 0.0,
                    grade: str | None = None, unindexed: Sequence[str] = (), question: str = "") -> str:
    """The answer given when retrieval found nothing relevant enough: "Not in your docs: <why>." in plain words,
    then what to try — no LLM is called. The closest passages are not repeated here: the abstained answer lists
    them as its sources (at most CLOSEST_MATCHES) and every front shows them once, under "Closest matches".
    `evidence` (retrieval/abstention.py) explains a decision of the calibrated rule by what decided it (a name
    the documents never mention, a value they never state, else the share of the question's words found together);
    `grade` "insufficient" one of corrective retrieval (retrieval/corrective.py). With no hit at all, `unindexed`
    (folders whose index holds no file, and what to set) replaces the advice to rephrase. `question` (the question
    asked) names a product of two words whole ("they never mention VS Code", `names.name_phrases`)."""
    sims = [h.similarity for h in hits if h.similarity is not None]
    p = evidence.probability() if evidence is not None else None
    if not hits:
        why = "no passage matched the question"
    elif grade == "insufficient":
        why = "the LLM judged the passages found insufficient, also after a second search with a rewritten query"
    elif p is not None and evidence.refused(min_probability):
        why = _evidence_reason(evidence, question)
    elif sims and evidence is not None and min_probability > 0 and evidence.needed_cosine(floor) > floor:
        why = (f"no passage is close enough to the question (best similarity {max(sims):.2f}, below the "
               f"{evidence.needed_cosine(floor):.2f} needed when only {evidence.focus_coverage:.0%} of its words "
               "occur together in the best passages)")  # the far-off floor (relevance.abstained rule 2)
    elif sims:
        why = (f"no passage is close enough to the question (best similarity {max(sims):.2f}, below the floor "
               f"{floor:.2f})")
    else:
        why = "no passage is close enough to the question"
    if not hits and unindexed:
        return f"Not in your docs: {why}, and nothing is indexed in " + "; ".join(unindexed) + "."
    return f"Not in your docs: {why}. Try rephrasing the question, or check that the relevant files are indexed."


def _evidence_reason(evidence, question: str = "") -> str:
    """Why the calibrated rule refused, in one plain clause: the vetoes first (`absent_names`, `value_missing`,
    `limit_missing`, `mechanism_missing` with its `missing_mechanism`, `meaning_absent` with its `absent_words`),
    else `focus_coverage`, the model's word evidence: the IDF-weighted share of the question's words found
    together in one passage's focus lines (retrieval/abstention.py); an absent name as the name of several words of
    `question` it is a word of (`names.name_phrases`: "VS Code", not "Code")."""
    phrases = name_phrases(question) if question else {}
    names = tuple(dict.fromkeys(phrases.get(n, n) for n in getattr(evidence, "absent_names", ()) or ()))
    if names:
        return f"they never mention {_listed(names)}"
    if getattr(evidence, "value_missing", 0.0):
        return "the passages found discuss it but never state the value it asks for"
    if getattr(evidence, "limit_missing", 0.0):
        return "the passages found discuss it but never state a limit of the kind it asks for"
    if getattr(evidence, "mechanism_missing", 0.0):
        return f"the passages found discuss it but never mention {evidence.missing_mechanism or 'the way it asks for'}"
    words = tuple(getattr(evidence, "absent_words", ()) or ())
    if getattr(evidence, "meaning_absent", 0.0) and words:
        return (f"they never use the word{'s' if len(words) > 1 else ''} {_listed(words)}, and the closest passages "
                "are about something else")
    return (f"only {evidence.focus_coverage:.0%} of the question's words occur together in the best passages "
            "(rare words count more)")


def unmentioned_line(text: str, question: str, sources: Sequence[tuple[int, Hit]]) -> str:
    """An extractive answer `text` with a last line naming what `question` names that none of its `sources`
    mentions (`absent_names.unmentioned_names`): "*None of these sources mentions Postgres.*". The passages quoted are
    the closest the documents came; when they never name the thing asked about, the user reads that before
    trusting them (answered near misses, bench/history/session-55.md "Abstention: the passage's side and the
    user's side"). `text` itself when every name is mentioned."""
    names = unmentioned_names(question, [hit for _, hit in sources])
    return f"{text}\n\n{UNMENTIONED_PREFIX}{_listed(names)}.*" if names else text


UNMENTIONED_PREFIX = "*None of these sources mentions "  # `unmentioned_line`; `ragls eval` judges Key without it


LISTED_MOST = 6  # names or words `_listed` writes out; the rest are counted
LISTED_CHARS = 60  # a longer one (a pasted run of identifiers is one name) is cut with "…"


def _listed(items: tuple[str, ...]) -> str:
    """"a", "a or b", "a, b or c"; past LISTED_MOST items "a, b, c, d, e, f or 1,194 more", each item past
    LISTED_CHARS characters cut with "…" (a pasted log of 1,200 identifiers made an 18 kB "they never mention")."""
    items = tuple(x if len(x) <= LISTED_CHARS else x[:LISTED_CHARS - 1].rstrip() + "…" for x in items)
    if len(items) > LISTED_MOST:
        return ", ".join(items[:LISTED_MOST]) + f" or {len(items) - LISTED_MOST:,} more"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _check_cancel(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("cancelled")


def _generate(question, numbered, settings, retrieve, k, history_messages, chat, on_delta, cancel, rag_name,
              max_chars, answer_cache):
    """The LLM path of `ask`: returns (raw answer text, sources, whether it came from the answer cache)."""
    gen = settings.generation
    prompt, sources = render_prompt(gen.template, question, numbered, max_chars)
    prompt = with_user_context(prompt, gen.persona, gen.personal_kb)
    sources = list(sources)
    messages = [*history_messages, {"role": "user", "content": prompt}]
    key = None
    if answer_cache is not None and gen.cache:
        system = TOOL_SYSTEM if gen.max_tool_rounds and chat.supports_tools else None
        key = cache_key(question, sources, f"{chat.describe()} t={gen.temperature}",
                        {"system": system, "messages": messages})
        if (hit := answer_cache.get(key)) is not None:
            if on_delta is not None:
                on_delta(hit.text)
            return hit.text, list(hit.sources), True
    rounds = gen.max_tool_rounds if chat.supports_tools else 0
    texts: list[str] = []
    separator_due = False

    def emit(piece: str) -> None:
        nonlocal separator_due
        if separator_due:
            on_delta("\n\n")
            separator_due = False
        on_delta(piece)

    for round_no in range(rounds + 1):
        last = round_no == rounds
        tools = [RAG_QUERY_TOOL] if rounds and chat.supports_tools else None
        reply = chat.chat(messages, system=TOOL_SYSTEM if tools else None, tools=tools,
                          tool_choice="none" if last else "auto",
                          on_delta=emit if on_delta is not None else None, cancel=cancel)
        if reply.text.strip():
            texts.append(reply.text.strip("\n"))
            separator_due = True
        calls = [] if last else reply.tool_calls
        if not calls:
            break
        messages.append({"role": "assistant", "content": reply.text,
                         "tool_calls": [c.to_message() for c in calls]})
        for call in calls:
            _check_cancel(cancel)
            result = run_rag_query(call, retrieve, sources, default_top_k=k,
                                   max_chars=gen.max_context_chars, rag_name=rag_name)
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                             "content": json.dumps(result, ensure_ascii=False)})
    text = "\n\n".join(texts)
    if key is not None and text.strip():
        answer_cache.put(key, CachedAnswer(text, tuple(sources)))
    return text, sources, False


def run_rag_query(call: ToolCall, retrieve: Retrieve, sources: list[tuple[int, Hit]], *, default_top_k: int,
                  max_chars: int, rag_name: str = "workspace") -> dict:
    """Run one `rag__query` tool call. New chunks are appended to `sources` (in place) with the next numbers;
    chunks already there keep theirs. Returns `{rag_name, count, chunks: [{n, text, source: "[n] path:a-b"}]}`,
    chunk texts cut to fit `max_chars` in total, or `{"error": message}` for a bad call (never raises)."""
    if call.name != RAG_QUERY_TOOL["name"]:
        return {"error": f"unknown tool {call.name!r}; the only tool is rag__query"}
    query = call.arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        return {"error": "rag__query needs a non-empty string argument 'query'"}
    top_k = call.arguments.get("top_k", default_top_k)
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        top_k = default_top_k
    top_k = max(1, min(TOOL_MAX_TOP_K, top_k))
    try:
        hits = retrieve(query.strip(), top_k)
    except RaglsError as exc:
        return {"error": f"search failed: {exc}"}
    number = {hit.chunk.id: n for n, hit in sources}
    chunks = []
    budget = max_chars
    for hit in hits:
        if budget <= 0:
            break
        n = number.get(hit.chunk.id)
        if n is None:
            n = len(sources) + 1
            sources.append((n, hit))
            number[hit.chunk.id] = n
        text = hit.chunk.text[:budget]
        budget -= len(text)
        chunks.append({"n": n, "text": text, "source": f"[{n}] {source_label(hit)}"})
    return {"rag_name": rag_name, "count": len(chunks), "chunks": chunks}

