"""LLM-assisted query-time retrieval (retrieval/assisted.py, transforms.py, corrective.py) on a real index
(tantivy + LanceDB + the offline MiniLM) with the real OpenAI / Anthropic SDKs against the loopback LLM server:
what the model received, the fused order of each transform, the skip rule, corrective rounds, failures degrading to
plain retrieval, the cache, and the cost reporting (rag/query, rag/ask, rag/status wire, the CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from llm_server import Reply, route
from ragls.cli import app as cli
from ragls.config.trust import trust as trust_folder
from ragls.core.errors import InvalidParams
from ragls.embedding.embed import offline_model_dir
from ragls.llm.costs import COUNTER
from ragls.lsp.wire import (
    AskParams,
    QueryParams,
    parse,
    to_wire_answer,
    to_wire_query,
    to_wire_status,
)
from ragls.retrieval.corrective import GRADE_SYSTEM, parse_grade
from ragls.retrieval.llm_steps import CACHE
from ragls.retrieval.transforms import (
    EXPAND_SYSTEM,
    HYDE_SYSTEM,
    STEP_BACK_SYSTEM,
    parse_lines,
)
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
    "drop.md": "# Scope end\n\nWhen the owner of a value goes out of scope, Rust calls `drop` and frees the heap "
               "allocation.\n",
    "borrow.md": "# References\n\nA reference lets you use a value without taking ownership of it; the borrow "
                 "checker enforces the rules.\n",
    "threads.md": "# Threads\n\nSpawn a thread with `thread::spawn` and wait for it with `join`. Channels send "
                  "values between threads.\n",
    "errors.md": "# Recoverable errors\n\nFunctions that can fail return `Result`; the `?` operator propagates the "
                 "error to the caller.\n",
    "cargo.md": "# Cargo\n\nCargo builds your package, downloads its dependencies and runs the tests with "
                "`cargo test`.\n",
    "traits.md": "# Traits\n\nA trait defines shared behaviour; types implement it, and generic functions take "
                 "trait bounds.\n",
    "closures.md": "# Closures\n\nClosures are anonymous functions that capture their environment by reference or "
                   "by move.\n",
    "iterators.md": "# Iterators\n\nThe `Iterator` trait's `next` method yields items; adapters like `map` and "
                    "`filter` are lazy.\n",
    "smart.md": "# Smart pointers\n\n`Box<T>` stores data on the heap; `Rc<T>` counts references to shared data.\n",
    "macros.md": "# Macros\n\nDeclarative macros with `macro_rules!` match patterns and expand into code at compile "
                 "time.\n",
    "worktrees.md": "# Git helpers\n\nThe helper get_worktrees() lists the checkouts of a repository.\n",
    "testing.md": "# Writing tests\n\nAnnotate a function with `#[test]`; `assert_eq!` compares two values and "
                  "panics when they differ.\n",
}
QUESTION = "how is memory given back when a variable is no longer used"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("llmq")
    docs = root / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text)
    (docs / "ragls.toml").write_text(f'[index]\npath = "{(root / "index").as_posix()}"\n[embedding]\n'
                                     f'model_path = "{offline_model_dir().as_posix()}"\n'
                                     'model = "sentence-transformers/all-MiniLM-L6-v2"\n')
    trust_folder(docs)  # the user trusts this test's own folder (ragls/config/trust.py)
    return docs


@pytest.fixture(scope="module")
def ws(folder):
    w = RagWorkspace([folder])
    w.index()
    base = w.settings
    yield w
    w.settings = base
    w.close()


@pytest.fixture
def configure(ws, llm_server):
    """configure(backend="openai", **retrieval) → the workspace's settings with those retrieval steps and the
    loopback server as generation backend; the transform cache is emptied first."""
    base = ws.settings
    CACHE.clear()

    def apply(backend: str = "openai", **retrieval):
        url = llm_server.openai_url if backend == "openai" else llm_server.anthropic_url
        gen = base.generation.model_copy(update={"backend": backend, "base_url": url, "model": "test-model"})
        ws.settings = base.model_copy(update={"retrieval": base.retrieval.model_copy(update=retrieval),
                                              "generation": gen})
        return ws

    yield apply
    ws.settings = base


def plain_hits(configure, question: str, k: int, **retrieval):
    """The hits of plain retrieval (every LLM step off; `retrieval`: other retrieval settings)."""
    hits = configure(**retrieval).retrieve(question, k)
    assert hits.llm is None
    return hits


def paths(hits) -> list[str]:
    return [h.chunk.path for h in hits]


def assert_rrf(ws, hits) -> None:
    """Each hit's score is its weighted RRF over its signals (plus a possible exact-match bonus), best first."""
    r = ws.settings.retrieval
    base = {"vector": r.vector_weight, "bm25": r.bm25_weight}
    for h in hits:
        expected = 0.0
        for signal, rank in h.signals.items():
            kind = "vector" if signal == "hyde" else signal.rsplit("_", 1)[-1]
            w = base[kind] * (r.transform_weight if signal not in base else 1.0)
            expected += w / (r.rrf_k + rank)
        assert h.score - expected == pytest.approx(0.0, abs=1e-9) or \
            h.score - expected == pytest.approx(r.top_rank_bonus, abs=1e-9) or \
            h.score - expected == pytest.approx(r.top3_rank_bonus, abs=1e-9), (h.chunk.path, h.signals, h.score)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_expansion_sends_one_prompt_and_fuses_each_paraphrase(configure, llm_server):
    # the answering sentence ("... Rust calls `drop` and frees the heap allocation", `retrieval.sentence_weight` on)
    # puts drop.md first by itself; without it (the default) BM25 and the vectors disagree and the wrong chunk leads
    assert paths(plain_hits(configure, QUESTION, 4, sentence_weight=1.0))[0] == "drop.md"
    plain = plain_hits(configure, QUESTION, 4)
    ws = configure(expand_n=2)
    assert paths(plain)[0] == "borrow.md"
    llm_server.reset(route({"rephrasings": "- which function frees the heap allocation when the owner goes out "
                                           "of scope\n2. what does drop do"}))
    hits = ws.retrieve(QUESTION, 4)
    assert len(llm_server.requests) == 1
    req = llm_server.requests[0]
    assert req.system == EXPAND_SYSTEM and f"Query: {QUESTION}" in req.last_user_text()
    assert "Write 2 different rephrasings" in req.last_user_text()
    first = "which function frees the heap allocation when the owner goes out of scope"
    assert hits.llm.queries["expand"] == [first, "what does drop do"]
    assert paths(hits)[0] == "drop.md"
    assert hits[0].signals["expand1_bm25"] == 1 and hits[0].signals["expand2_bm25"] == 1
    assert all(s.isidentifier() for h in hits for s in h.signals)  # pygls clients read results as namedtuples
    assert_rrf(ws, hits)
    assert hits.llm.counter.snapshot() == {"expand": 1}


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_hyde_embeds_the_passage_as_an_extra_vector_list(configure, llm_server, backend):
    ws = configure(backend, hyde=True)
    question = "how can code generate other code before the program is built"
    passage = "Declarative macros written with macro_rules! match patterns and expand into code at compile time."
    llm_server.reset(route({"passage": passage}))
    hits = ws.retrieve(question, 5)
    assert [r.api for r in llm_server.requests] == [backend]
    assert llm_server.requests[0].system == HYDE_SYSTEM
    assert f"Question: {question}" in llm_server.requests[0].last_user_text()
    assert hits.llm.queries["hyde"] == passage
    macros = next(h for h in hits if h.chunk.path == "macros.md")
    assert macros.signals["hyde"] == 1  # the passage's nearest chunk
    assert not any(s.startswith("hyde_") for h in hits for s in h.signals)  # vector only, no BM25 list
    assert paths(hits)[0] == "macros.md"
    assert_rrf(ws, hits)
    wire = to_wire_query(ws.query(question), explain=True)
    assert wire["chunks"][0]["transforms"] == ["hyde"]
    assert wire["llmCalls"]["queries"]["hyde"] == passage


def test_step_back_question_is_searched_like_the_question(configure, llm_server):
    ws = configure(step_back=True)
    llm_server.reset(route({"step-back": "Step-back question: How do threads communicate in Rust?"}))
    hits = ws.retrieve("why does my program hang waiting on a worker", 5)
    assert llm_server.requests[0].system == STEP_BACK_SYSTEM
    assert hits.llm.queries["step_back"] == "Step-back question: How do threads communicate in Rust?"
    threads = next(h for h in hits if h.chunk.path == "threads.md")
    assert threads.signals["step_back_bm25"] == 1 and "step_back_vector" in threads.signals
    assert_rrf(ws, hits)


def test_all_three_transforms_run_concurrently_one_call_each(configure, llm_server):
    ws = configure(hyde=True, step_back=True, expand_n=3)
    llm_server.reset(route({"passage": "Rust frees the heap allocation when the owner goes out of scope.",
                            "step-back": "How does Rust manage memory?",
                            "rephrasings": "when is memory freed\nwhat frees a value\nhow does drop work"}))
    hits = ws.retrieve(QUESTION, 5)
    assert sorted(r.system for r in llm_server.requests) == sorted([HYDE_SYSTEM, STEP_BACK_SYSTEM, EXPAND_SYSTEM])
    assert hits.llm.counter.snapshot() == {"hyde": 1, "step_back": 1, "expand": 1}
    assert paths(hits)[0] == "drop.md"
    assert_rrf(ws, hits)


def test_skip_rule_skips_an_exact_identifier_query(configure, llm_server):
    ws = configure(hyde=True, expand_n=3, corrective=True)
    llm_server.reset(route({}, default="should not be asked"))
    hits = ws.retrieve("get_worktrees", 3)
    assert llm_server.requests == []  # no LLM call at all
    assert paths(hits)[0] == "worktrees.md"
    assert "BM25's top hit is strong" in hits.llm.skipped
    assert hits.llm.counter.total() == 0


def test_the_same_question_is_answered_from_the_cache(configure, llm_server):
    ws = configure(expand_n=2)
    llm_server.reset(route({"rephrasings": "what frees a value\nwhen is memory freed"}))
    first = ws.retrieve(QUESTION, 4)
    second = ws.retrieve(QUESTION, 4)
    assert len(llm_server.requests) == 1
    assert second.llm.cached == ["expand"] and second.llm.counter.total() == 0
    assert paths(first) == paths(second)


@pytest.mark.parametrize("failure", [Reply(status=500, error="boom"), Reply(delay_s=30, text="too late")])
def test_a_failing_or_slow_llm_gives_plain_retrieval_and_is_counted(configure, llm_server, failure):
    plain = plain_hits(configure, QUESTION, 4)
    ws = configure(hyde=True, expand_n=2, corrective=True, llm_timeout_s=0.5)
    llm_server.reset(route({}, default=failure))
    before = COUNTER.failures()
    hits = ws.retrieve(QUESTION, 4)
    assert paths(hits) == paths(plain)
    assert [h.signals for h in hits] == [h.signals for h in plain]
    assert hits.llm.counter.failures() == {"hyde": 1, "expand": 1, "corrective": 1}
    after = COUNTER.failures()
    assert all(after.get(s, 0) == before.get(s, 0) + 1 for s in ("hyde", "expand", "corrective"))
    assert hits.corrective is None
    assert ws.query(QUESTION).abstained == configure().query(QUESTION).abstained  # no grade: the usual rule


def test_corrective_sufficient_grade_makes_one_call_and_keeps_the_hits(configure, llm_server):
    plain = plain_hits(configure, QUESTION, 3)
    ws = configure(corrective=True)
    llm_server.reset(route({"judge": "SUFFICIENT"}))
    hits = ws.retrieve(QUESTION, 3)
    assert len(llm_server.requests) == 1
    sent = llm_server.requests[0]
    assert sent.system == GRADE_SYSTEM and f"Question: {QUESTION}" in sent.last_user_text()
    assert DOCS[paths(plain)[0]].split("\n\n")[1].strip() in sent.last_user_text()  # the passages were shown
    assert "Query: " in sent.last_user_text()  # asked for a rewrite in the same call
    assert paths(hits) == paths(plain) and hits.corrective == "sufficient" and hits.llm.rounds == 1


def test_corrective_insufficient_grade_runs_a_second_round(configure, llm_server):
    ws = configure(corrective=True)
    grades = iter(["INSUFFICIENT\nQuery: spawn a thread and wait for it with join", "SUFFICIENT"])
    llm_server.reset(route({"judge": lambda req: next(grades)}))
    question = "how do I run two computations at once"
    hits = ws.retrieve(question, 3)
    assert len(llm_server.requests) == 2 and hits.llm.counter.snapshot() == {"corrective": 2}
    assert "Query: " not in llm_server.requests[1].last_user_text()  # the second grade asks for no rewrite
    assert hits.llm.queries["corrective"] == "spawn a thread and wait for it with join"
    threads = next(h for h in hits if h.chunk.path == "threads.md")
    assert threads.signals["corrective"] == 1
    assert "threads.md" in llm_server.requests[1].last_user_text()  # the merged passages were graded
    assert hits.corrective == "sufficient" and hits.llm.rounds == 2


def test_corrective_insufficient_twice_abstains_with_the_nearest_passages(configure, llm_server):
    ws = configure(corrective=True)
    llm_server.reset(route({"judge": "INSUFFICIENT\nQuery: garbage collector tuning flags"},
                           default="unexpected answer call"))
    question = "how do I tune the garbage collector"
    result = ws.query(question, 3)
    assert result.abstained and result.llm.grade == "insufficient"
    assert len(llm_server.requests) == 2
    llm_server.reset(route({"judge": "INSUFFICIENT\nQuery: garbage collector tuning flags"},
                           default="unexpected answer call"))
    CACHE.clear()
    answer = ws.ask(question, top_k=3)
    assert answer.abstained and "insufficient" in answer.text and "Closest matches" not in answer.text
    assert answer.sources and all(r.system == GRADE_SYSTEM for r in llm_server.requests)  # no answer call
    assert to_wire_answer(answer)["llmCalls"] == {"steps": {"corrective": {"calls": 2, "failures": 0}}}


def test_an_unreadable_grade_keeps_the_first_hits(configure, llm_server):
    plain = plain_hits(configure, QUESTION, 3)
    ws = configure(corrective=True)
    llm_server.reset(route({"judge": "I cannot tell."}))
    hits = ws.retrieve(QUESTION, 3)
    assert len(llm_server.requests) == 1 and paths(hits) == paths(plain) and hits.corrective is None


def test_no_generation_backend_means_plain_retrieval(configure, llm_server, ws):
    configure(expand_n=3)
    ws.settings = ws.settings.model_copy(update={"generation": ws.settings.generation.model_copy(
        update={"backend": "none"})})
    hits = ws.retrieve(QUESTION, 3)
    assert llm_server.requests == [] and "no generation backend" in hits.llm.skipped


def test_status_reports_the_process_llm_calls(configure, llm_server):
    ws = configure(expand_n=2)
    before = COUNTER.snapshot().get("expand", 0)
    llm_server.reset(route({"rephrasings": "a\nb"}))
    ws.retrieve(QUESTION, 3)
    status = to_wire_status(ws.status())
    assert status["llmCalls"]["steps"]["expand"]["calls"] == before + 1


def test_wire_params_take_an_optional_boolean_expand():
    assert parse(QueryParams, {"query": "x"}).expand is None
    assert parse(QueryParams, {"query": "x", "expand": True}).expand is True
    assert parse(AskParams, {"question": "x", "expand": False}).expand is False
    with pytest.raises(InvalidParams, match="expand"):
        parse(QueryParams, {"query": "x", "expand": "yes"})


def test_cli_query_expand_explain_prints_calls_and_transforms(folder, llm_server, capsys, tmp_path):
    CACHE.clear()
    llm_server.reset(route({"rephrasings": "which function frees the heap allocation when the owner goes out of "
                                           "scope\nwhat does drop do\nwhen is the heap allocation freed"}))
    toml = folder / "ragls.toml"
    original = toml.read_text()
    toml.write_text(original + f'[generation]\nbackend = "openai"\nbase_url = "{llm_server.openai_url}"\n'
                               'model = "test-model"\n')
    trust_folder(toml.parent)  # the user trusts this test's own folder (ragls/config/trust.py)
    try:
        assert cli.main(["query", str(folder), QUESTION, "--expand", "--explain", "--top-k", "3"]) == 0
    finally:
        toml.write_text(original)
        trust_folder(toml.parent)  # the user trusts this test's own folder (ragls/config/trust.py)
    out = capsys.readouterr().out
    assert "Write 3 different rephrasings" in llm_server.requests[0].last_user_text()  # --expand, expand_n 0
    assert "LLM calls: expand 1" in out
    assert "expand1: which function frees the heap allocation" in out
    first = next(line for line in out.splitlines() if line.startswith("1. "))
    assert first.startswith("1. drop.md") and "via expand" in first


def test_parsers():
    assert parse_lines("1. one\n2) two\n- one\n* Query\n\nthree", 5, "query") == ["one", "two", "three"]
    assert parse_grade("SUFFICIENT.") == ("sufficient", None)
    assert parse_grade("Insufficient\nQuery: `thread spawn`") == ("insufficient", "thread spawn")
    assert parse_grade("NOT SUFFICIENT\nthread spawn join") == ("insufficient", "thread spawn join")
    assert parse_grade("maybe") == (None, None)


def test_a_named_rag_gets_the_llm_steps_and_counts_them(tmp_path, llm_server, monkeypatch):
    """A sources RAG's search takes the request's `expand` like the workspace folders; its calls reach the
    question's tally, also when it is merged with another RAG's hits."""
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in ("drop.md", "borrow.md", "threads.md"):
        (notes / name).write_text(DOCS[name])
    project = tmp_path / "project"
    project.mkdir()
    (project / "readme.md").write_text("# Project\n\nThe project readme talks about deployment pipelines.\n")
    (project / "ragls.toml").write_text(f'[embedding]\nmodel_path = "{offline_model_dir().as_posix()}"\n'
                                        'model = "sentence-transformers/all-MiniLM-L6-v2"\n'
                                        f'[rags.notes]\nsources = ["{notes.as_posix()}/*.md"]\n'
                                        f'[rags.more]\nsources = ["{(notes / "threads.md").as_posix()}"]\n')
    trust_folder(project)  # the user trusts this test's own folder (ragls/config/trust.py)
    CACHE.clear()
    ws = RagWorkspace([project])
    try:
        base = ws.settings
        gen = base.generation.model_copy(update={"backend": "openai", "base_url": llm_server.openai_url,
                                                 "model": "test-model"})
        ws.settings = base.model_copy(update={"generation": gen})
        llm_server.reset(route({"rephrasings": "- which function frees the heap allocation\n- what does drop do"}))
        hits = ws.retrieve(QUESTION, 3, rag="notes", expand=True)
        assert len(llm_server.requests) == 1 and "rephrasings" in llm_server.requests[0].last_user_text()
        assert hits.llm.queries["expand"] == ["which function frees the heap allocation", "what does drop do"]
        assert paths(hits)[0].endswith("drop.md") and "expand1_bm25" in hits[0].signals
        assert ws.retrieve(QUESTION, 3, rag="notes", expand=False).llm is None  # the request's switch: off
        both = ws.retrieve(QUESTION, 3, rag=["notes", "more"], expand=True)  # cached reply: no new call
        assert len(llm_server.requests) == 1 and both.llm.counter.snapshot() == {}
        assert both.llm.cached == ["expand"] and paths(both)[0].endswith("drop.md")
        CACHE.clear()
        llm_server.reset(route({"rephrasings": Reply(status=500, error="overloaded")}))
        both = ws.retrieve(QUESTION, 3, rag=["notes", "more"], expand=True)
        assert len(llm_server.requests) == 2  # each RAG asked (a failure is not cached), both calls counted
        assert both.llm.counter.snapshot() == {"expand": 2} and both.llm.counter.failures() == {"expand": 2}
    finally:
        ws.close()
