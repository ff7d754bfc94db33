"""Reranker backends (`retrieval.rerank_backend`) on real stores: ColBERT with a tiny ONNX late-interaction model
built here and loaded by fastembed (tests/tiny_colbert.py: MaxSim = designated words shared with the query), a
user class from a temporary module, the listwise LLM reranker through the OpenAI SDK against the loopback server
(its order follows the scripted reply), and the time budget (a blocked reranker: the fused order comes back, the
timeout is reported)."""

from __future__ import annotations

import re
import textwrap

import pytest
from llm_server import LLMServer, Reply
from ragls.llm.costs import COUNTER
from ragls.lsp.wire import to_wire_query
from ragls.retrieval.cross_encoder import rerank_providers
from ragls.retrieval.llm_rerank import parse_order
from ragls.retrieval.rerankers import describe_report, make_reranker
from ragls.retrieval.search import search
from ragls.workspace.rag_workspace import RagWorkspace
from tiny_colbert import make_colbert_dir

DOCS = {
    "otters.md": "# Otters\n\nOtters float on their backs and hold paws while sleeping.\n",
    "tides.md": "# Tides\n\nTides rise twice a day; the otters feed at low tide near the kelp.\n",
    "harbour.md": "# Harbour\n\nThe harbour is busy; a harbour seal sometimes visits the otters.\n",
    "trains.md": "# Trains\n\nThe night train leaves at nine from platform two.\n",
}
QUERY = "where do otters sleep with a seal"

CUSTOM = '''
import threading

MADE = []
GATE = threading.Event()


class ByPathDescending:
    """Orders chunks by path, Z to A (a rule no fusion would give)."""

    def __init__(self, model_name=None):
        MADE.append(model_name)

    def rerank(self, query, chunks):
        return sorted(chunks, key=lambda c: c.path, reverse=True)


class Scored:
    def __init__(self, model_name=None):
        pass

    def rerank(self, query, chunks):
        return [(c, float(len(c.text))) for c in sorted(chunks, key=lambda c: -len(c.text))]


class Blocked:
    """Never answers until the test opens GATE: the time budget must return the fused order."""

    def __init__(self, model_name=None):
        pass

    def rerank(self, query, chunks):
        GATE.wait(60)
        return list(reversed(chunks))


class Broken:
    def __init__(self, model_name=None):
        pass

    def rerank(self, query, chunks):
        raise ZeroDivisionError("the user's bug")
'''


@pytest.fixture(scope="module")
def server():
    with LLMServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def ws(tmp_path_factory, server):
    mp = pytest.MonkeyPatch()
    mp.setenv("RAGLS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.setenv("RAGLS_OFFLINE", "1")
    modules = tmp_path_factory.mktemp("modules")
    (modules / "ragls_test_rerankers.py").write_text(textwrap.dedent(CUSTOM))
    mp.syspath_prepend(str(modules))
    folder = tmp_path_factory.mktemp("docs")
    for name, body in DOCS.items():
        (folder / name).write_text(body)
    w = RagWorkspace([folder], [{"generation": {"backend": "openai", "base_url": server.openai_url,
                                                "model": "rank-model", "max_retries": 0}}])
    w.index()
    yield w
    w.close()
    mp.undo()


@pytest.fixture
def settings(ws):
    """The workspace's retrieval settings, restored after each test."""
    r = ws.settings.retrieval
    saved = r.model_dump()
    yield r
    for k, v in saved.items():
        setattr(r, k, v)


def fused_paths(ws, k=4):
    return [h.chunk.path for h in search(ws.indexes, ws.embedder, QUERY, settings=ws.settings.retrieval, top_k=k)]


def test_colbert_maxsim_from_a_local_folder(ws, settings, tmp_path):
    settings.rerank_backend = "colbert"
    settings.colbert_model = "acme/tiny-colbert"
    settings.colbert_model_path = str(make_colbert_dir(tmp_path / "colbert", ["seal", "sleeping"]))
    result = ws.query(QUERY, top_k=4)
    by_path = {h.chunk.path: h.score for h in result.hits}
    # "seal" is in the query and harbour.md; "sleeping" only in otters.md, not in the query ("sleep" is): MaxSim 1/0
    assert result.hits[0].chunk.path == "harbour.md" and by_path["harbour.md"] == 1.0
    assert {p: s for p, s in by_path.items() if p != "harbour.md"} == {"otters.md": 0.0, "tides.md": 0.0,
                                                                      "trains.md": 0.0}
    assert result.hits[0].signals["rerank"] == 1.0 and "bm25" in result.hits[0].signals
    assert result.rerank["backend"] == "colbert" and "timedOut" not in result.rerank
    assert to_wire_query(result, True)["rerank"]["candidates"] == 4
    assert fused_paths(ws)[0] == "otters.md"  # without the reranker: RRF puts the sleeping otters first


def test_colbert_known_model_name_with_its_file(ws, settings, tmp_path):
    settings.rerank_backend = "colbert"
    settings.colbert_model = "answerdotai/answerai-colbert-small-v1"  # fastembed's file name: vespa_colbert.onnx
    settings.colbert_model_path = str(make_colbert_dir(tmp_path / "c2", ["train"], onnx_rel="vespa_colbert.onnx"))
    hits = ws.query("which train leaves at nine", top_k=2).hits
    assert hits[0].chunk.path == "trains.md" and hits[0].score == 1.0


def test_custom_class_from_a_module(ws, settings):
    import ragls_test_rerankers as mod

    settings.rerank_backend = "ragls_test_rerankers:ByPathDescending"
    settings.reranker_model = "acme/custom-v1"
    result = ws.query(QUERY, top_k=4)
    assert [h.chunk.path for h in result.hits] == ["trains.md", "tides.md", "otters.md", "harbour.md"]
    assert [h.score for h in result.hits] == [1.0, 0.5, 1 / 3, 0.25]
    assert mod.MADE[-1] == "acme/custom-v1"
    settings.rerank_backend = "ragls_test_rerankers:Scored"
    hits = ws.query(QUERY, top_k=4).hits
    assert [h.score for h in hits] == sorted((float(len(h.chunk.text)) for h in hits), reverse=True)


def test_custom_class_errors(ws, settings):
    from ragls.core.errors import RequestFailed

    settings.rerank_backend = "ragls_test_rerankers:Broken"
    result = ws.query(QUERY, top_k=4)  # a bug in the user's class: the fused order, reported
    assert [h.chunk.path for h in result.hits] == fused_paths(ws)
    assert "ZeroDivisionError" in result.rerank["error"]
    assert "failed" in describe_report(result.rerank)
    settings.rerank_backend = "ragls_test_rerankers:NoSuchClass"
    with pytest.raises(RequestFailed, match="has no class NoSuchClass"):
        ws.query(QUERY)
    settings.rerank_backend = "no_such_module_xyz:Thing"
    with pytest.raises(RequestFailed, match="cannot import no_such_module_xyz"):
        ws.query(QUERY)


def test_timeout_returns_the_fused_order(ws, settings):
    import ragls_test_rerankers as mod

    settings.rerank_backend = "ragls_test_rerankers:Blocked"
    settings.rerank_timeout_ms = 50
    try:
        result = ws.query(QUERY, top_k=4)
    finally:
        mod.GATE.set()  # let the abandoned thread finish
    assert [h.chunk.path for h in result.hits] == fused_paths(ws)
    assert all("rerank" not in h.signals for h in result.hits)
    assert result.rerank["timedOut"] is True and result.rerank["backend"] == "ragls_test_rerankers:Blocked"
    assert to_wire_query(result)["rerank"]["timedOut"] is True
    assert "fused order shown" in describe_report(result.rerank)


def test_llm_reranker_follows_the_scripted_order(ws, settings, server):
    settings.rerank_backend = "llm"

    def handler(req):
        passages = dict(re.findall(r"^\[(\d+)\] (.*)$", req.last_user_text(), re.MULTILINE))
        first = next(n for n, t in passages.items() if "night train" in t)
        second = next(n for n, t in passages.items() if "low tide" in t)
        return f"[{first}] > [{second}]"

    server.reset(handler)
    before = COUNTER.snapshot().get("rerank", 0)
    result = ws.query(QUERY, top_k=4)
    assert [h.chunk.path for h in result.hits][:2] == ["trains.md", "tides.md"]
    rest = [p for p in fused_paths(ws) if p not in ("trains.md", "tides.md")]
    assert [h.chunk.path for h in result.hits][2:] == rest  # not named: fused order
    assert [h.score for h in result.hits] == [1.0, 0.5, 1 / 3, 0.25]
    (req,) = server.requests
    assert req.model == "rank-model" and f"Search query: {QUERY}" in req.last_user_text()
    assert len(re.findall(r"^\[\d+\] ", req.last_user_text(), re.MULTILINE)) == 4
    assert COUNTER.snapshot().get("rerank", 0) - before == 1
    # the question's own tally (rag/query's llmCalls) counts the reranker's call too
    assert result.rerank["llmCalls"] == 1
    assert to_wire_query(result)["llmCalls"] == {"steps": {"rerank": {"calls": 1, "failures": 0}}}
    answer = ws.ask(QUERY, top_k=4)  # one reranker call, then the answer's own call (not a retrieval step)
    assert answer.llm_calls.snapshot() == {"rerank": 1} and len(server.requests) == 3


def test_llm_reranker_bounded_and_failing(ws, settings, server):
    settings.rerank_backend = "llm"
    settings.rerank_llm_candidates = 2
    server.reset(lambda req: "[2] > [1]")
    result = ws.query(QUERY, top_k=4)
    fused = fused_paths(ws)
    assert [h.chunk.path for h in result.hits] == [fused[1], fused[0], *fused[2:]]
    assert len(re.findall(r"^\[\d+\] ", server.requests[0].last_user_text(), re.MULTILINE)) == 2
    # the provider fails: the fused order, the failure reported and counted, no error
    server.reset(lambda req: Reply(status=500, error="overloaded"))
    failures = COUNTER.failures().get("rerank", 0)
    result = ws.query(QUERY, top_k=4)
    assert [h.chunk.path for h in result.hits] == fused and "error" in result.rerank
    assert COUNTER.failures().get("rerank", 0) == failures + 1
    assert to_wire_query(result)["llmCalls"]["steps"]["rerank"] == {"calls": 1, "failures": 1}
    server.reset(lambda req: "I cannot rank these.")
    assert "names no passage number" in ws.query(QUERY, top_k=4).rerank["error"]


def test_llm_reranker_works_again_after_a_timeout(ws, settings, server):
    settings.rerank_backend = "llm"
    settings.rerank_timeout_ms = 100
    server.reset(lambda req: Reply(text="[2] > [1]", delay_s=30))  # cut short when the server stops
    result = ws.query(QUERY, top_k=4)
    assert result.rerank["timedOut"] is True and [h.chunk.path for h in result.hits] == fused_paths(ws)
    # the next question, with a model that answers, is reranked: the timed-out call broke nothing
    settings.rerank_timeout_ms = 0
    server.reset(lambda req: "[2] > [1]")
    result = ws.query(QUERY, top_k=4)
    fused = fused_paths(ws)
    assert "error" not in result.rerank and [h.chunk.path for h in result.hits][:2] == [fused[1], fused[0]]


def test_question_tally_counts_the_reranker_beside_the_query_transforms(ws, settings, server):
    settings.rerank_backend = "llm"
    settings.step_back = True
    server.reset(lambda req: "[2] > [1]")  # the step-back question and the ranking both get this reply
    result = ws.query(QUERY, top_k=4)
    steps = to_wire_query(result)["llmCalls"]["steps"]
    assert steps == {"step_back": {"calls": 1, "failures": 0}, "rerank": {"calls": 1, "failures": 0}}
    assert len(server.requests) == 2


def test_parse_order():
    assert parse_order("[3] > [1] > [3] > [9]", 3) == [2, 0, 1]
    assert parse_order("2, 1", 2) == [1, 0]


def test_backend_choice_keeps_the_old_names(ws):
    from ragls.config.settings import build_settings
    from ragls.retrieval.cross_encoder import Reranker

    old, _ = build_settings({"rag_reranker_model": "Xenova/ms-marco-MiniLM-L-6-v2"})
    assert isinstance(make_reranker(old), Reranker)  # unset backend + reranker_model: the cross-encoder
    assert make_reranker(build_settings({})[0]) is None
    off, _ = build_settings({"rag_reranker_model": "x", "retrieval": {"rerank_backend": "none"}})
    assert make_reranker(off) is None
    from ragls.core.errors import ConfigError

    with pytest.raises(ConfigError, match="rerank_backend"):
        build_settings({"retrieval": {"rerank_backend": "bogus backend"}})


def test_rerank_provider_chains_end_on_cpu(caplog):
    assert rerank_providers("cpu") == ["CPUExecutionProvider"]
    with caplog.at_level("WARNING"):
        assert rerank_providers("tpu") == ["CPUExecutionProvider"]
        assert rerank_providers("cuda")[-1] == "CPUExecutionProvider"
    assert "unknown retrieval.rerank_provider 'tpu'" in caplog.text
