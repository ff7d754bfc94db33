"""Conversations in `rag/ask` (answer/conversation.py, cache.py, persona.py): follow-up rewrite, the turns in the
prompt, the rolling summary, the answer cache, the persona block and the extractive fallback when the LLM fails —
the real SDKs against the loopback LLM server, asserting on what the model received."""

from __future__ import annotations

import pytest
from askkit import HITS, Retriever, chat_for, make_hit, settings
from llm_server import Reply, Request
from ragls.answer.ask import FALLBACK_LABEL, ask
from ragls.answer.cache import AnswerCache
from ragls.answer.conversation import (
    REWRITE_SYSTEM,
    SUMMARY_HEADER,
    SUMMARY_SYSTEM,
    SummaryMemo,
    Turn,
    carry_terms,
    to_turns,
)
from ragls.answer.template import render_prompt
from ragls.core.ir import Chunk, Hit
from ragls.lsp.wire import to_wire_answer
from ragls.retrieval.query import CONTEXT_WEIGHT

pytestmark = pytest.mark.usefixtures("ask_key")

BACKENDS = ["openai", "anthropic"]


def history_of(n: int) -> list[dict]:
    """n past turns: question i about topic i, answer i."""
    out = []
    for i in range(1, n + 1):
        out += [{"role": "user", "content": f"Question {i} about topic{i}?"},
                {"role": "assistant", "content": f"Answer {i} [1]."}]
    return out


def kinds(requests: list[Request]) -> list[str]:
    """"rewrite" / "summary" / "answer" for each request the model received."""
    out = []
    for r in requests:
        out.append("rewrite" if r.system == REWRITE_SYSTEM else "summary" if r.system == SUMMARY_SYSTEM
                   else "answer")
    return out


def scripted(rewrite="how do I test ownership rules in Rust", summary="The user asked about ten topics.",
             summary_status=200):
    def handler(req: Request) -> Reply:
        if req.system == REWRITE_SYSTEM:
            return Reply(text=rewrite)
        if req.system == SUMMARY_SYSTEM:
            return Reply(status=summary_status, error="summary model down") if summary_status != 200 \
                else Reply(text=summary)
        return Reply(text="Each value has one owner [1].")
    return handler


@pytest.mark.parametrize("backend", BACKENDS)
def test_follow_up_is_rewritten_and_prompt_carries_the_previous_turn(llm_server, backend):
    llm_server.reset(scripted())
    s = settings(llm_server, backend)
    retriever = Retriever(HITS)
    history = [{"role": "user", "content": "What are the ownership rules?"},
               {"role": "assistant", "content": "Each value has an owner [1]."}]
    answer = ask("and how do I test that?", settings=s, retrieve=retriever, chat=chat_for(s), history=history)
    assert kinds(llm_server.requests) == ["rewrite", "answer"]
    rewrite_req, answer_req = llm_server.requests
    # The rewrite call saw the previous turn and the follow-up; its one line is what was searched.
    assert "What are the ownership rules?" in rewrite_req.last_user_text()
    assert "and how do I test that?" in rewrite_req.last_user_text()
    assert retriever.calls[0][0] == "how do I test ownership rules in Rust"
    assert answer.retrieval_query == "how do I test ownership rules in Rust"
    # The answer prompt: previous question, previous answer, then the template with the user's own words.
    assert answer_req.user_texts()[0] == "What are the ownership rules?"
    assert answer_req.user_texts()[-1].count("and how do I test that?") == 1
    assistant = [m for m in answer_req.messages if m["role"] == "assistant"]
    assert "Each value has an owner [1]." in str(assistant[0]["content"])
    assert answer.text.startswith("Each value has one owner [1]")


def test_without_an_llm_the_rule_carries_the_previous_key_terms():
    s = settings()
    retriever = Retriever(HITS)
    history = [{"role": "user", "content": "How does the borrow checker treat references?"},
               {"role": "assistant", "content": "It checks lifetimes [1]."}]
    answer = ask("and what about tests?", settings=s, retrieve=retriever, history=history)
    searched = retriever.calls[0][0]  # the analysed query: the borrowed words weigh less than the follow-up's own
    query = searched.text
    assert query.startswith("and what about tests?")
    for term in ("borrow", "checker", "references"):
        assert term in query
    assert searched.own_text == "and what about tests?"
    assert searched.word_weights == dict.fromkeys(("borrow", "checker", "treat", "references"), CONTEXT_WEIGHT)
    assert 0 < CONTEXT_WEIGHT < 1
    assert answer.retrieval_query == query
    # the borrowed words apart (rag/ask retrievalContext), as the user wrote them: clients show them beside the question
    assert answer.retrieval_context == "borrow checker treat references"
    assert to_wire_answer(answer)["retrievalContext"] == "borrow checker treat references"
    assert carry_terms("tests?", []) == "tests?"
    # Only a follow-up that refers back carries terms: a question on a new topic is searched as it is.
    earlier = [Turn("How do I enable the frobnicator?", "Set frob = true [1].")]
    assert carry_terms("where are the logs?", earlier) == "where are the logs?"
    assert carry_terms("and how do I turn it off?", earlier) == "and how do I turn it off? enable frobnicator"
    assert carry_terms("what about Windows?", earlier) == "what about Windows? enable frobnicator"
    assert carry_terms("why?", earlier) == "why? enable frobnicator"
    assert carry_terms("Is it thread-safe?", earlier) == "Is it thread-safe? enable frobnicator"
    assert carry_terms("Can I set a different one instead?", earlier).endswith("enable frobnicator")
    # A chain of follow-ups: the last one reads the previous with what it borrowed, so the older subject carries on.
    chain = [Turn("How do I spawn a new thread?", "Call thread::spawn [1]."), Turn("how do I wait for it?", "join [1].")]
    assert carry_terms("and what does it return?", chain) == "and what does it return? wait spawn new thread"
    assert carry_terms("and what does it return?", chain[1:]) == "and what does it return? wait"
    assert carry_terms("where are the logs?", chain) == "where are the logs?"
    # A question that stands on its own may still say "it", "that" or "instead of": searched as it is.
    for standalone in ("How do I configure the logger so that it writes JSON lines to stderr?",
                       "Can Black just show me what it would change instead of editing my files?",
                       "Which pre-commit hook should I use so notebooks get formatted too, and where does it go?"):
        assert carry_terms(standalone, earlier) == standalone
    # No history: the question is searched as it is and no retrievalQuery is reported.
    plain = ask("ownership rules", settings=s, retrieve=retriever)
    assert retriever.calls[-1][0] == "ownership rules" and plain.retrieval_query is None
    assert plain.retrieval_context is None and "retrievalContext" not in to_wire_answer(plain)


def test_a_failing_rewrite_falls_back_to_the_rule(llm_server):
    def handler(req: Request) -> Reply:
        return Reply(status=500, error="boom") if req.system == REWRITE_SYSTEM else Reply(text="ok [1].")
    llm_server.reset(handler)
    s = settings(llm_server)
    retriever = Retriever(HITS)
    answer = ask("and tests?", settings=s, retrieve=retriever, chat=chat_for(s),
                 history=[{"role": "user", "content": "ownership rules"}])
    assert retriever.calls[0][0].text == "and tests? ownership rules"
    assert answer.error is None and answer.text == "ok [1]."


def test_turns_within_memory_make_no_summary_call(llm_server):
    llm_server.reset(scripted())
    s = settings(llm_server)
    ask("Question 20?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), history=history_of(19),
        memo=SummaryMemo())
    assert kinds(llm_server.requests) == ["rewrite", "answer"]
    sent = llm_server.requests[-1]
    # The prompt carries the 6 most recent turns (questions 14-19), nothing older.
    asked = [t for t in sent.user_texts()[:-1]]
    assert asked == [f"Question {i} about topic{i}?" for i in range(14, 20)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_21st_turn_makes_one_summary_call_and_the_prompt_stays_bounded(llm_server, backend):
    llm_server.reset(scripted())
    s = settings(llm_server, backend)
    memo = SummaryMemo()
    ask("Question 21?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), history=history_of(20), memo=memo)
    assert kinds(llm_server.requests) == ["rewrite", "summary", "answer"]
    summary_req = llm_server.requests[1]
    # The summary covers every turn older than the verbatim window (1-14), not the recent ones.
    assert "Question 1 about topic1?" in summary_req.last_user_text()
    assert "Question 14 about topic14?" in summary_req.last_user_text()
    assert "Question 15 about" not in summary_req.last_user_text()
    answer_req = llm_server.requests[2]
    texts = answer_req.user_texts()
    assert texts[0] == f"{SUMMARY_HEADER}\nThe user asked about ten topics."
    assert texts[1:-1] == [f"Question {i} about topic{i}?" for i in range(15, 21)]
    assert len(answer_req.messages) <= 2 + 2 * 6 + 1 + (1 if backend == "openai" else 0)  # (+ system)
    # Turn 22: one rolling call that extends the previous summary with the one turn that left the window.
    llm_server.reset(scripted(summary="Eleven topics."))
    ask("Question 22?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), history=history_of(21), memo=memo)
    assert kinds(llm_server.requests) == ["rewrite", "summary", "answer"]
    rolling = llm_server.requests[1].last_user_text()
    assert "The user asked about ten topics." in rolling and "Question 15 about topic15?" in rolling
    assert "Question 1 about topic1?" not in rolling
    assert llm_server.requests[2].user_texts()[0].endswith("Eleven topics.")


def test_a_failing_summary_drops_the_old_turns_without_an_error(llm_server):
    llm_server.reset(scripted(summary_status=500))
    s = settings(llm_server)
    answer = ask("Question 21?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), history=history_of(20),
                 memo=SummaryMemo())
    assert kinds(llm_server.requests) == ["rewrite", "summary", "answer"]
    assert answer.error is None and answer.text.startswith("Each value has one owner")
    texts = llm_server.requests[-1].user_texts()
    assert not any(SUMMARY_HEADER in t for t in texts)
    assert texts[:-1] == [f"Question {i} about topic{i}?" for i in range(15, 21)]


def test_memory_zero_disables_the_summary(llm_server):
    llm_server.reset(scripted())
    s = settings(llm_server, memory_max_turns=0)
    ask("Question 31?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), history=history_of(30),
        memo=SummaryMemo())
    assert kinds(llm_server.requests) == ["rewrite", "answer"]


def test_history_shapes():
    turns = to_turns([{"role": "assistant", "content": "orphan"}, {"role": "user", "content": "a"},
                      {"role": "user", "content": "b"}, {"role": "assistant", "content": "B"},
                      {"role": "system", "content": "x"}, {"role": "user", "content": "  "}, "junk"])
    assert [(t.question, t.answer) for t in turns] == [("a", ""), ("b", "B")]


# -- answer cache ------------------------------------------------------------------------------------------------

def test_cache_hit_makes_no_llm_call_and_changes_invalidate(llm_server):
    llm_server.reset(lambda req: Reply(text="Each value has one owner [1]."))
    s = settings(llm_server, cache=True)
    cache = AnswerCache()
    first = ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), answer_cache=cache)
    assert len(llm_server.requests) == 1 and first.cached is False
    deltas: list[str] = []
    second = ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), answer_cache=cache,
                 on_delta=deltas.append)
    assert len(llm_server.requests) == 1  # no LLM call
    assert second.cached is True and second.text == first.text and "".join(deltas) == first.text
    assert [(n, h.chunk.id) for n, h in second.sources] == [(n, h.chunk.id) for n, h in first.sources]
    # An edited chunk (new text hash), another question, another model: each a miss.
    edited = [HITS[0], make_hit("book/borrowing.md", HITS[1].chunk.text + " Edited.", 0.41, 0.8), HITS[2]]
    edited[1] = Hit(Chunk(**{**HITS[1].chunk.__dict__, "text_hash": "changed"}), 0.8, {"vector": 1.0}, 0.41)
    assert ask("ownership?", settings=s, retrieve=Retriever(edited), chat=chat_for(s), answer_cache=cache).cached \
        is False
    assert ask("ownership rules?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s),
               answer_cache=cache).cached is False
    other = settings(llm_server, cache=True, model="other-model")
    assert ask("ownership?", settings=other, retrieve=Retriever(HITS), chat=chat_for(other),
               answer_cache=cache).cached is False
    assert len(llm_server.requests) == 4


def test_cache_is_off_by_default(llm_server):
    s = settings(llm_server)
    cache = AnswerCache()
    for _ in range(2):
        assert ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), answer_cache=cache).cached \
            is False
    assert len(llm_server.requests) == 2 and len(cache) == 0


# -- persona -----------------------------------------------------------------------------------------------------

def test_persona_off_keeps_the_prompt_byte_identical(llm_server):
    s = settings(llm_server)
    ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    expected, _ = render_prompt(s.generation.template, "ownership?", list(enumerate(HITS, 1)),
                                s.generation.max_context_chars)
    assert llm_server.requests[-1].last_user_text() == expected


def test_persona_and_personal_kb_are_a_delimited_block(llm_server, tmp_path):
    kb = tmp_path / "me.md"
    kb.write_text("I maintain the payments service and prefer short answers.\n"
                  "My staging login: postgres://me:Zr8wq3Lp@db.staging/payments\n")
    s = settings(llm_server, persona="a senior Rust reviewer", personal_kb=str(kb))
    ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    prompt = llm_server.requests[-1].last_user_text()
    expected, _ = render_prompt(s.generation.template, "ownership?", list(enumerate(HITS, 1)),
                                s.generation.max_context_chars)
    assert prompt.startswith(expected + "\n\n<user_context>\n")
    block = prompt[len(expected):]
    assert "Answer as: a senior Rust reviewer" in block
    assert "About the user: I maintain the payments service" in block
    assert "postgres://me:********@db.staging/payments" in block and "Zr8wq3Lp" not in prompt  # masked
    assert "</user_context>" in block and "cite every source you use as [n]" in block


# -- LLM failures --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_llm_failure_keeps_sources_and_answers_extractively(llm_server, backend):
    llm_server.queue(Reply(status=401, error="invalid api key"))
    s = settings(llm_server, backend)
    deltas: list[str] = []
    answer = ask("Who owns a value?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s),
                 on_delta=deltas.append)
    assert answer.error is not None and "401" in answer.error and "127.0.0.1" in answer.error
    assert answer.model == "extractive" and answer.text.startswith(FALLBACK_LABEL)
    assert [h.chunk.path for _, h in answer.sources] == [h.chunk.path for h in HITS]
    assert "owner" in answer.text and "[1]" in answer.text
    assert "".join(deltas) == answer.text
    assert len(llm_server.requests) == 1


def test_context_length_error_is_retried_once_with_a_smaller_context(llm_server):
    long_hits = [make_hit(f"doc{i}.md", ("Owners drop values at scope end. " * 60).strip(), 0.6, 1 - i / 10)
                 for i in range(5)]
    llm_server.queue(Reply(status=400, error="This model's maximum context length is 4096 tokens."),
                     "Values are dropped at the end of scope [1].")
    s = settings(llm_server, max_context_chars=8000)
    answer = ask("When are values dropped?", settings=s, retrieve=Retriever(long_hits), chat=chat_for(s))
    assert answer.error is None and answer.text == "Values are dropped at the end of scope [1]."
    first, second = (r.last_user_text() for r in llm_server.requests)
    assert len(second) < len(first) - 3000
    # A second context-length failure gives the extractive answer with the error.
    llm_server.queue(*[Reply(status=400, error="context_length_exceeded")] * 2)
    failed = ask("When are values dropped?", settings=s, retrieve=Retriever(long_hits), chat=chat_for(s))
    assert failed.error and "context_length_exceeded" in failed.error and failed.sources
    assert len(llm_server.requests) == 4


def test_temperature_reaches_anthropic(llm_server):
    s = settings(llm_server, "anthropic", temperature=0.7)
    ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    assert llm_server.requests[-1].body["temperature"] == 0.7
