"""Local LLM runtimes (llm/local.py): the `external` backend's lazy readiness and named errors, discovery of
runtimes on their known loopback ports (`ragls models`), and `generation.auto_start` with an `ollama` on PATH
(a stand-in script that serves the loopback LLM server on OLLAMA_HOST)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from askkit import HITS, Retriever
from llm_server import LLMServer, held_port
from ragls.answer.ask import ask
from ragls.cli.app import main
from ragls.config.settings import GenerationSettings, Settings
from ragls.core.errors import RequestFailed
from ragls.llm import local
from ragls.llm.chat import make_chat_model

TESTS_DIR = Path(__file__).resolve().parents[1]


def test_external_needs_a_base_url():
    with pytest.raises(ValueError, match='backend "external" needs generation.base_url'):
        GenerationSettings(backend="external")


def test_external_with_a_dead_url_names_the_url():
    with held_port() as port:
        check_dead_url(f"http://127.0.0.1:{port}/v1")


def check_dead_url(dead: str) -> None:
    model = make_chat_model(GenerationSettings(backend="external", base_url=dead, model="m", max_retries=0))
    with pytest.raises(RequestFailed) as info:
        model.complete("hi")
    message = str(info.value)
    assert message.startswith(f"external backend at {dead} is not reachable")
    # both probes refused: the reason once, without the "[Errno 111]" of the socket error
    assert f"is not reachable (Connection refused: GET {dead[:-3]}/health, GET {dead}/models); " in message, message
    assert "ragls never launches" in message
    # Through rag/ask: the sources and an extractive answer stay, the error says the same.
    s = Settings(generation=GenerationSettings(backend="external", base_url=dead, model="m", max_retries=0))
    answer = ask("Who owns a value?", settings=s, retrieve=Retriever(HITS), chat=make_chat_model(s.generation))
    assert answer.error is not None and dead in answer.error and len(answer.sources) == 3


def test_external_is_checked_once_takes_the_served_model_and_gets_no_vendor_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-vendor-secret")
    with LLMServer(known_models={"qwen2.5-7b"}) as srv:
        gen = GenerationSettings(backend="external", base_url=srv.openai_url, max_retries=0)
        first = make_chat_model(gen)
        assert first.complete("hello") == "You said: hello"
        assert first.model == "qwen2.5-7b"  # the first model /v1/models lists
        sent = srv.requests[-1]
        assert sent.model == "qwen2.5-7b"
        assert "sk-vendor-secret" not in json.dumps(sent.headers)
        # Ready once: a second model object does not probe again (the stub logs only POSTs; /health is a 404).
        second = make_chat_model(GenerationSettings(backend="external", base_url=srv.openai_url, model="qwen2.5-7b",
                                                    max_retries=0))
        assert second.complete("again") == "You said: again"
        assert srv.openai_url in local._ready


def test_discovery_finds_a_stub_on_a_known_port():
    runtime = next((r for r in local.KNOWN_RUNTIMES if r.backend == "external"
                    and not local.listening("127.0.0.1", r.port, 0.2)), None)
    if runtime is None:
        pytest.skip("every known runtime port is in use on this machine; cannot place a stub")
    try:
        srv = LLMServer(known_models={"stub-model", "other-model"}, port=runtime.port).start()
    except OSError as exc:
        pytest.skip(f"port {runtime.port} ({runtime.name}) became busy: {exc}")
    try:
        found = {f.runtime.key: f for f in local.discover()}
        assert runtime.key in found
        hit = found[runtime.key]
        assert hit.models == ["other-model", "stub-model"]
        assert hit.base_url == f"http://127.0.0.1:{runtime.port}/v1"
        toml = hit.settings_toml()
        assert toml.splitlines()[:4] == ["[generation]", 'backend = "external"',
                                         f'base_url = "http://127.0.0.1:{runtime.port}/v1"', 'model = "other-model"']
        report = local.describe_discovery(list(found.values()))
        assert f"{runtime.name}" in report and "running: other-model, stub-model" in report
    finally:
        srv.stop()


def test_models_command_prints_settings(capsys):
    runtime = next((r for r in local.KNOWN_RUNTIMES if r.backend == "external"
                    and not local.listening("127.0.0.1", r.port, 0.2)), None)
    if runtime is None:
        pytest.skip("every known runtime port is in use on this machine; cannot place a stub")
    try:
        srv = LLMServer(known_models={"stub-model"}, port=runtime.port).start()
    except OSError as exc:
        pytest.skip(f"port {runtime.port} ({runtime.name}) became busy: {exc}")
    try:
        assert main(["models", "--json"]) == 0
        rows = {r["runtime"]: r for r in json.loads(capsys.readouterr().out)}
        assert rows[runtime.key]["models"] == ["stub-model"]
        assert rows[runtime.key]["baseUrl"] == f"http://127.0.0.1:{runtime.port}/v1"
        assert main(["models"]) == 0
        out = capsys.readouterr().out
        assert f'base_url = "http://127.0.0.1:{runtime.port}/v1"' in out and 'model = "stub-model"' in out
    finally:
        srv.stop()


def test_auto_start_runs_ollama_serve_when_nothing_listens(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "ollama"
    fake.write_text(f"""#!{sys.executable}
import os, sys, time
sys.path.insert(0, {str(TESTS_DIR)!r})
assert sys.argv[1:] == ["serve"], sys.argv
from llm_server import LLMServer
host, port = os.environ["OLLAMA_HOST"].rsplit(":", 1)
LLMServer(port=int(port), reuse_port=True).start()
time.sleep(120)
""")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    # The port stays held (bound, not listening) by this test; the fake ollama binds it too (SO_REUSEPORT).
    with held_port(reuse_port=True) as port:
        run_auto_start(port)


def run_auto_start(port: int) -> None:
    base = f"http://127.0.0.1:{port}/v1"
    try:
        off = make_chat_model(GenerationSettings(backend="ollama", base_url=base, model="m", max_retries=0))
        with pytest.raises(RequestFailed, match="cannot connect"):  # auto_start is off by default
            off.complete("hi")
        model = make_chat_model(GenerationSettings(backend="ollama", base_url=base, model="m", max_retries=0,
                                                   auto_start=True))
        assert model.complete("hi") == "You said: hi"
        proc = local._started[f"http://127.0.0.1:{port}"]
        assert proc.poll() is None
        # Already listening: nothing more is started.
        assert local.ensure_ollama(f"http://127.0.0.1:{port}") is None
    finally:
        proc = local._started.pop(f"http://127.0.0.1:{port}", None)
        if proc is not None:
            proc.terminate()
            proc.wait(10)


def test_probe_urls_keep_a_base_urls_query_after_the_path():
    """A gateway's base_url with a query string (`?api-version=2`): /health and /models go on its path, before the
    query (appended to the whole string the probes asked for `...?api-version=2/models`)."""
    base = "http://gw.internal:8080/openai/v1?api-version=2"
    assert local.under(base, "/models") == "http://gw.internal:8080/openai/v1/models?api-version=2"
    assert local.under(local.root_of(base), "/health") == "http://gw.internal:8080/openai/health?api-version=2"
    assert local.root_of("http://127.0.0.1:11434/v1/") == "http://127.0.0.1:11434"
    assert local.under("http://127.0.0.1:1234/v1/", "/models") == "http://127.0.0.1:1234/v1/models"
    with LLMServer(known_models={"qwen2.5-7b"}) as srv:  # the stub answers /v1/models whatever the query
        probe = local.models_at(srv.openai_url + "?api-version=2")
        assert probe.error is None and probe.models == ["qwen2.5-7b"], probe
