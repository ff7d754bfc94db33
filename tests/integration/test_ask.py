"""ragls.answer.ask end to end: hand-made hits or the offline MiniLM model, the real SDKs against the loopback
LLM server (tests/llm_server.py), abstention, extractive mode, citations, tool rounds, history, cancel."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from askkit import (
    BORROWING,
    CARGO,
    EXTRA,
    HITS,
    LIFETIMES,
    OWNERSHIP,
    Retriever,
    chat_for,
    make_hit,
    settings,
)
from llm_server import Reply, Request
from ragls.answer.ask import EXTRACTIVE_LABEL, TOOL_MAX_TOP_K, ask
from ragls.config.settings import RetrievalSettings
from ragls.core.errors import Cancelled, InvalidParams
from ragls.core.ir import Citation, Hit

pytestmark = pytest.mark.usefixtures("ask_key")

# -- abstention ----------------------------------------------------------------------------------------------

def test_abstains_without_hits_and_never_calls_the_llm(llm_server):
    s = settings(llm_server)
    deltas: list[str] = []
    answer = ask("What is the airspeed of a swallow?", settings=s, retrieve=Retriever([]), chat=chat_for(s),
                 on_delta=deltas.append)
    assert answer.abstained is True
    assert answer.sources == [] and answer.citations == []
    assert answer.text.startswith("Not in your docs: no passage matched the question.")
    assert deltas == [answer.text]
    assert llm_server.requests == []


def test_abstains_below_the_similarity_floor(llm_server):
    s = settings(llm_server)
    s.retrieval = RetrievalSettings(min_similarity=0.7)
    answer = ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    assert answer.abstained is True
    assert "0.62" in answer.text and "0.7" in answer.text
    assert llm_server.requests == []
    s.retrieval = RetrievalSettings(min_similarity=0.6)
    llm_server.queue("Values have one owner [1].")
    assert ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s)).abstained is False


def test_empty_question_is_invalid():
    with pytest.raises(InvalidParams):
        ask("  ", settings=settings(), retrieve=Retriever(HITS))


# -- extractive ----------------------------------------------------------------------------------------------

def test_extractive_answer_without_llm():
    deltas: list[str] = []
    retriever = Retriever(HITS)
    answer = ask("When is a value dropped by its owner?", settings=settings(), retrieve=retriever, top_k=3,
                 on_delta=deltas.append)
    assert retriever.calls == [("When is a value dropped by its owner?", 3)]
    assert answer.model == "extractive" and answer.abstained is False
    assert answer.text.startswith(EXTRACTIVE_LABEL)
    lines = answer.text.splitlines()[2:]
    assert lines[0] == "- When the owner goes out of scope, the value will be dropped [1]."
    assert all(line.startswith("- ") for line in lines)
    assert [n for n, _ in answer.sources] == [1, 2, 3]
    assert answer.citations and answer.citations[0] == Citation(1, True)
    assert all(c.supported for c in answer.citations)
    assert deltas == [answer.text]


def test_extractive_skips_code_and_headings():
    text = "# Ownership rules\n\n```rust\nlet s = String::from(\"owner\");\n```\n\n- Each value has exactly one owner."
    answer = ask("Who is the owner of a value?", settings=settings(),
                 retrieve=Retriever([make_hit("a.md", text, 0.8, 1.0)]))
    assert answer.text.splitlines()[2:] == ["- Each value has exactly one owner [1]."]


# -- LLM path ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_prompt_sources_and_checked_citations(llm_server, backend):
    seen: dict[str, str] = {}

    def handler(req: Request) -> Reply:
        seen["prompt"] = req.last_user_text()
        return Reply(text="When the owner goes out of scope the value is dropped [1]. "
                          "Cargo compiles crates in parallel [2]. Macros are expanded early [9].")

    llm_server.handler = handler
    s = settings(llm_server, backend)
    deltas: list[str] = []
    answer = ask("What happens when the owner goes out of scope?", settings=s, retrieve=Retriever(HITS),
                 chat=chat_for(s), on_delta=deltas.append)
    prompt = seen["prompt"]
    assert "Question: What happens when the owner goes out of scope?" in prompt
    assert "[1] book/ownership.md:11-11\n[2] book/borrowing.md:1-1\n[3] book/cargo.md:5-5" in prompt
    assert ('[1] book/ownership.md:11 — Ownership\n<passage path="book/ownership.md" lines="11-11">\n'
            + OWNERSHIP + "\n</passage>") in prompt
    assert prompt.index(OWNERSHIP) < prompt.index(BORROWING) < prompt.index(CARGO)
    assert answer.text == ("When the owner goes out of scope the value is dropped [1]. "
                           "Cargo compiles crates in parallel [2]. Macros are expanded early.")
    assert answer.citations == [Citation(1, True), Citation(2, False)]
    assert [(n, h.chunk.path) for n, h in answer.sources] == [
        (1, "book/ownership.md"), (2, "book/borrowing.md"), (3, "book/cargo.md")]
    assert answer.model == "test-model" and answer.abstained is False
    assert "".join(deltas).endswith("Macros are expanded early [9].")  # streamed raw, cleaned in the result
    assert llm_server.requests[-1].stream is True


def test_history_is_sent_before_the_question(llm_server):
    llm_server.queue("Each value has one owner [1].")
    s = settings(llm_server, max_tool_rounds=0)
    history = [{"role": "user", "content": "Tell me about Rust."},
               {"role": "assistant", "content": "Rust is a systems language."},
               {"role": "system", "content": "ignored"}, {"role": "user", "content": ""}]
    ask("And ownership?", settings=s, retrieve=Retriever(HITS), history=history, chat=chat_for(s))
    messages = llm_server.requests[-1].messages
    assert [(m["role"], m["content"][:20]) for m in messages[:2]] == [
        ("user", "Tell me about Rust."), ("assistant", "Rust is a systems la")]
    assert messages[2]["role"] == "user" and "Question: And ownership?" in messages[2]["content"]
    assert len(messages) == 3
    assert llm_server.requests[-1].tools == []  # max_tool_rounds = 0: no tool offered


def test_extra_hits_ranked_with_retrieved_ones(llm_server):
    llm_server.queue("Lifetimes are regions of code [1].")
    s = settings(llm_server)
    answer = ask("What are lifetimes?", settings=s, retrieve=Retriever(HITS), top_k=3, extra_hits=[EXTRA],
                 chat=chat_for(s))
    assert [h.chunk.path for _, h in answer.sources] == ["lifetimes.md", "book/ownership.md", "book/borrowing.md"]
    assert answer.citations == [Citation(1, True)]


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_tool_round_adds_sources(llm_server, backend):
    def handler(req: Request) -> Reply:
        results = req.tool_results()
        if not results:
            # The tool as the model's API receives it: the schema that bounds top_k and requires a query.
            [tool] = req.tools
            offered = tool["function"]["parameters"] if backend == "openai" else tool["input_schema"]
            assert offered["required"] == ["query"] and offered["properties"]["top_k"]["maximum"] == TOOL_MAX_TOP_K
            return Reply(text="Let me search.", tool_calls=[
                {"id": "t1", "name": "rag__query", "arguments": {"query": "reference lifetimes", "top_k": 2}}])
        payload = json.loads(results[-1]["content"])
        assert payload["rag_name"] == "workspace" and payload["count"] == 2
        assert [c["source"] for c in payload["chunks"]] == ["[4] lifetimes.md:1-1", "[1] book/ownership.md:11-11"]
        assert payload["chunks"][0]["text"] == LIFETIMES
        return Reply(text="Lifetimes are named regions of code a reference must be valid for [4].")

    llm_server.handler = handler
    s = settings(llm_server, backend, max_tool_rounds=2)
    retriever = Retriever(HITS, by_query={"lifetimes": [EXTRA, HITS[0]]})
    deltas: list[str] = []
    answer = ask("How long is a reference valid?", settings=s, retrieve=retriever, chat=chat_for(s),
                 on_delta=deltas.append)
    assert retriever.calls[1] == ("reference lifetimes", 2)
    assert [(n, h.chunk.path) for n, h in answer.sources] == [
        (1, "book/ownership.md"), (2, "book/borrowing.md"), (3, "book/cargo.md"), (4, "lifetimes.md")]
    assert answer.citations == [Citation(4, True)]
    assert answer.text == "Let me search.\n\nLifetimes are named regions of code a reference must be valid for [4]."
    assert "".join(deltas) == answer.text
    assert len(llm_server.requests) == 2


def test_tool_rounds_are_bounded(llm_server):
    def handler(req: Request) -> Reply:
        return Reply(tool_calls=[{"name": "rag__query", "arguments": {"query": f"again {len(req.messages)}"}}])

    llm_server.handler = handler
    s = settings(llm_server, max_tool_rounds=2)
    answer = ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    assert len(llm_server.requests) == 3  # 2 tool rounds, then a final turn with tool_choice "none"
    assert [r.body.get("tool_choice") for r in llm_server.requests] == ["auto", "auto", "none"]
    assert answer.text == "" and answer.citations == []
    assert [n for n, _ in answer.sources] == [1, 2, 3]  # tool results were already known sources


def test_bad_tool_arguments_get_an_error_result(llm_server):
    llm_server.queue(Reply(tool_calls=[{"id": "x", "name": "rag__query", "arguments": {"top_k": 3}},
                                       {"id": "y", "name": "shell", "arguments": {}}]),
                     "Values have one owner [1].")
    s = settings(llm_server)
    answer = ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    results = [json.loads(r["content"]) for r in llm_server.requests[-1].tool_results()]
    assert "query" in results[0]["error"] and "unknown tool" in results[1]["error"]
    assert answer.citations == [Citation(1, True)]


def test_cancel_stops_streaming(llm_server):
    llm_server.queue(Reply(text="Each value has one owner and it is dropped at the end of its scope [1]."))
    s = settings(llm_server)
    cancel = threading.Event()
    deltas: list[str] = []

    def on_delta(piece: str) -> None:
        deltas.append(piece)
        if len(deltas) == 2:
            cancel.set()

    with pytest.raises(Cancelled):
        ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s), on_delta=on_delta, cancel=cancel)
    assert deltas == ["Each ", "value "]


def test_backend_failure_keeps_the_sources_with_the_error(llm_server):
    llm_server.queue(Reply(status=401))
    s = settings(llm_server)
    answer = ask("ownership?", settings=s, retrieve=Retriever(HITS), chat=chat_for(s))
    assert answer.error is not None and "401" in answer.error
    assert answer.model == "extractive" and len(answer.sources) == 3


# -- with the real offline embedding model --------------------------------------------------------------------

@pytest.fixture(scope="module")
def minilm_retriever():
    embed = pytest.importorskip("ragls.embedding.embed")
    from ragls.config.settings import EmbeddingSettings
    from ragls.index.chunking import chunk_document
    from ragls.sources.load import load_text

    model_dir = embed.offline_model_dir()
    if model_dir is None:
        pytest.skip("ragls[offline] is not installed")
    embedder = embed.Embedder(EmbeddingSettings(model="sentence-transformers/all-MiniLM-L6-v2",
                                                model_path=str(model_dir)))
    docs = {"ownership.md": f"# Ownership\n\n{OWNERSHIP}\n", "borrowing.md": f"# References\n\n{BORROWING}\n",
            "cargo.md": f"# Cargo\n\n{CARGO}\n"}
    chunks = [c for path, text in docs.items() for c in chunk_document(load_text(path, text))]
    vectors = embedder.embed_documents([c.text for c in chunks])

    def retrieve(query: str, k: int) -> list[Hit]:
        sims = vectors @ embedder.embed_query(query)
        order = np.argsort(-sims)[:k]
        return [Hit(chunks[i], float(sims[i]), {"vector": float(r + 1)}, float(sims[i]))
                for r, i in enumerate(order)]

    return retrieve


def test_real_model_answers_in_scope_and_abstains_out_of_scope(minilm_retriever):
    s = settings()
    inside = ask("What happens to a value when its owner goes out of scope?", settings=s,
                 retrieve=minilm_retriever, top_k=2)
    assert inside.abstained is False
    assert inside.sources[0][1].chunk.path == "ownership.md"
    assert "dropped [1]" in inside.text
    assert inside.citations[0] == Citation(1, True)
    outside = ask("What is the capital of France?", settings=s, retrieve=minilm_retriever, top_k=2)
    # abstained: no LLM, nothing cited; the closest passages are still listed, as sources (the text says why only)
    assert outside.abstained is True and outside.citations == [] and outside.text.startswith("Not in your docs: ")
    assert outside.sources and "Closest matches" not in outside.text
    assert [n for n, _ in outside.sources] == list(range(1, len(outside.sources) + 1))


def test_documents_are_answered_even_when_the_question_resembles_no_text(llm_server):
    """"Summarize this" with a selection: the user's document is relevant by definition (no abstention below
    the floor), and index hits that fail the relevance test on their own are left out of the sources."""
    llm_server.queue("It says lifetimes are regions of code [1].")
    s = settings(llm_server)
    s.retrieval = RetrievalSettings(min_similarity=0.7)  # every index hit (0.62 at best) is below the floor
    selection = make_hit("selection.md", LIFETIMES, 0.06, 0.06)
    answer = ask("Summarize this", settings=s, retrieve=Retriever(HITS), top_k=3, extra_hits=[selection],
                 chat=chat_for(s))
    assert answer.abstained is False and len(llm_server.requests) == 1
    assert [h.chunk.path for _, h in answer.sources] == ["selection.md"]
    assert LIFETIMES in llm_server.requests[-1].messages[-1]["content"]
    # Without the document the same question abstains, and the model is not called.
    answer = ask("Summarize this", settings=s, retrieve=Retriever(HITS), top_k=3, chat=chat_for(s))
    assert answer.abstained is True and len(llm_server.requests) == 1
