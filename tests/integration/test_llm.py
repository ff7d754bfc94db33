"""ragls.llm.chat with the real openai and anthropic SDKs against the loopback server (tests/llm_server.py)."""

from __future__ import annotations

import threading

import pytest
from llm_server import Reply, held_port
from ragls.config.settings import GenerationSettings
from ragls.core.errors import Cancelled, RequestFailed
from ragls.llm.chat import ChatModel, make_chat_model

KEY = "sk-test-secret-123"
BACKENDS = ["openai", "anthropic"]
TOOLS = [{"name": "rag__query", "description": "Search the project documents.",
          "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("RAGLS_TEST_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def model_for(server, backend: str, **overrides) -> ChatModel:
    url = server.openai_url if backend == "openai" else server.anthropic_url
    settings = {"backend": backend, "base_url": url, "model": "test-model", "api_key_env": "RAGLS_TEST_KEY",
                "max_retries": 0, **overrides}
    model = make_chat_model(GenerationSettings(**settings))
    assert model is not None
    return model


def test_backend_selection_and_defaults(monkeypatch):
    assert make_chat_model(GenerationSettings(backend="none")) is None
    assert make_chat_model(GenerationSettings()) is None  # auto, no keys in the environment
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    auto = make_chat_model(GenerationSettings())
    assert (auto.backend, auto.model, auto.base_url) == ("anthropic", "claude-3-5-haiku-latest",
                                                         "https://api.anthropic.com")
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    auto = make_chat_model(GenerationSettings())
    assert (auto.backend, auto.model, auto.base_url) == ("openai", "gpt-4o-mini", "https://api.openai.com/v1")
    ollama = make_chat_model(GenerationSettings(backend="ollama"))
    assert (ollama.model, ollama.base_url) == ("llama3.2", "http://localhost:11434/v1")


@pytest.mark.parametrize("backend", BACKENDS)
def test_complete_sends_prompt_system_and_key(llm_server, backend):
    llm_server.queue("Rust moves values [1].")
    model = model_for(llm_server, backend)
    assert model.complete("What is a move?", system="Be brief.") == "Rust moves values [1]."
    req = llm_server.requests[-1]
    assert (req.api, req.model, req.stream) == (backend, "test-model", False)
    assert req.last_user_text() == "What is a move?"
    assert req.system == "Be brief."
    auth = req.headers.get("authorization", "") + req.headers.get("x-api-key", "")
    assert KEY in auth


@pytest.mark.parametrize("backend", BACKENDS)
def test_streaming_deltas_arrive_in_order(llm_server, backend):
    pieces = ["Own", "ership ", "moves ", "values", " [1]."]
    llm_server.queue(Reply(text="".join(pieces), chunks=pieces))
    seen: list[str] = []
    text = model_for(llm_server, backend).complete("q", on_delta=seen.append)
    assert seen == pieces
    assert text == "".join(pieces)
    assert llm_server.requests[-1].stream is True


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("stream", [False, True])
def test_tool_call_round_trip(llm_server, backend, stream):
    llm_server.queue(
        Reply(text="Searching.", tool_calls=[{"id": "call_a", "name": "rag__query",
                                              "arguments": {"query": "borrow checker", "top_k": 3}}]),
        "The borrow checker enforces the rules [2].",
    )
    model = model_for(llm_server, backend)
    deltas: list[str] = []
    kwargs = {"on_delta": deltas.append} if stream else {}
    messages = [{"role": "user", "content": "Explain borrowing"}]
    first = model.chat(messages, tools=TOOLS, **kwargs)
    assert first.text == "Searching."
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [
        ("call_a", "rag__query", {"query": "borrow checker", "top_k": 3})]
    sent_tools = llm_server.requests[-1].tools
    if backend == "openai":
        assert sent_tools[0]["function"]["name"] == "rag__query"
        assert sent_tools[0]["function"]["parameters"]["required"] == ["query"]
    else:
        assert sent_tools[0]["name"] == "rag__query"
        assert sent_tools[0]["input_schema"]["required"] == ["query"]

    messages += [{"role": "assistant", "content": first.text, "tool_calls": [c.to_message() for c in first.tool_calls]},
                 {"role": "tool", "tool_call_id": "call_a", "name": "rag__query", "content": '{"count": 1}'}]
    second = model.chat(messages, tools=TOOLS, tool_choice="none", **kwargs)
    assert second.text == "The borrow checker enforces the rules [2]."
    assert second.tool_calls == []
    req = llm_server.requests[-1]
    assert req.tool_results() == [{"id": "call_a", "content": '{"count": 1}'}]
    assert req.user_texts() == ["Explain borrowing"]
    choice = req.body["tool_choice"]
    assert choice == "none" if backend == "openai" else choice == {"type": "none"}
    if stream:
        assert "".join(deltas) == "Searching.The borrow checker enforces the rules [2]."


def expect_failure(model: ChatModel, *needles: str) -> str:
    with pytest.raises(RequestFailed) as info:
        model.complete("q")
    message = str(info.value)
    assert model.backend in message and model.base_url in message
    for needle in needles:
        assert needle in message
    assert KEY not in message
    assert "Traceback" not in message
    return message


@pytest.mark.parametrize("backend", BACKENDS)
def test_error_paths_are_clear_and_server_keeps_working(llm_server, backend):
    model = model_for(llm_server, backend)
    llm_server.queue(Reply(status=401, error=f"Incorrect API key provided: {KEY}"))
    expect_failure(model, "401", "RAGLS_TEST_KEY")
    llm_server.queue(Reply(status=404, error="model not found"))
    expect_failure(model, "404", "test-model", "generation.model")
    llm_server.queue(Reply(status=429, error="slow down"))
    expect_failure(model, "429", "try again")
    llm_server.queue(Reply(status=500, error="kaput"))
    expect_failure(model, "500", "kaput")
    llm_server.queue("still here")
    assert model.complete("q") == "still here"


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_model_is_404(llm_server, backend):
    llm_server.known_models = {"real-model"}
    expect_failure(model_for(llm_server, backend, model="nope"), "'nope'", "404")
    assert model_for(llm_server, backend, model="real-model").complete("hi") == "You said: hi"


@pytest.mark.parametrize("backend", BACKENDS)
def test_rate_limit_retried_then_success(llm_server, backend):
    llm_server.queue(Reply(status=429), Reply(status=429), "finally")
    model = model_for(llm_server, backend, max_retries=2)
    assert model.complete("q") == "finally"
    assert len(llm_server.requests) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_timeout(llm_server, backend):
    llm_server.queue(Reply(text="late", delay_s=5))
    expect_failure(model_for(llm_server, backend, timeout_s=0.3), "0.3 s", "generation.timeout_s")
    assert model_for(llm_server, backend).complete("q") == "You said: q"


@pytest.mark.parametrize("backend", BACKENDS)
def test_connection_refused(backend):
    with held_port() as port:
        url = f"http://127.0.0.1:{port}" + ("/v1" if backend == "openai" else "")
        model = make_chat_model(GenerationSettings(backend=backend, base_url=url, api_key_env="RAGLS_TEST_KEY",
                                                   max_retries=0))
        expect_failure(model, "cannot connect", "generation.base_url")


@pytest.mark.parametrize("backend", BACKENDS)
def test_vendor_endpoint_unreachable_names_the_network_not_base_url(backend, monkeypatch):
    """No generation.base_url applies (none set, or an untrusted folder's was ignored): the request goes to the
    vendor's own endpoint, so the error names that URL and the network, not a setting the user never set."""
    monkeypatch.setenv("RAGLS_TEST_KEY", KEY)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    with held_port() as port:  # the vendor is reached through a proxy that refuses the connection
        for name in ("HTTPS_PROXY", "https_proxy"):
            monkeypatch.setenv(name, f"http://127.0.0.1:{port}")
        model = make_chat_model(GenerationSettings(backend=backend, api_key_env="RAGLS_TEST_KEY", max_retries=0))
        message = expect_failure(model, "cannot connect", f"check the network connection to {model.base_url}")
    assert model.base_url.startswith("https://api.") and "generation.base_url" not in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_missing_key(backend):
    model = make_chat_model(GenerationSettings(backend=backend))
    env = "OPENAI_API_KEY" if backend == "openai" else "ANTHROPIC_API_KEY"
    expect_failure(model, "no API key", f"set {env} or generation.api_key_env")
    named = make_chat_model(GenerationSettings(backend=backend, api_key_env="RAGLS_MISSING_KEY"))
    expect_failure(named, "set RAGLS_MISSING_KEY")


def test_local_openai_compatible_server_needs_no_key(llm_server, monkeypatch):
    model = make_chat_model(GenerationSettings(backend="openai", base_url=llm_server.openai_url, model="m"))
    assert model.complete("hi") == "You said: hi"
    ollama = make_chat_model(GenerationSettings(backend="ollama", base_url=llm_server.openai_url))
    assert ollama.complete("hi") == "You said: hi"
    assert llm_server.requests[-1].model == "llama3.2"


@pytest.mark.parametrize("backend", BACKENDS)
def test_cancel_stops_streaming(llm_server, backend):
    llm_server.queue(Reply(text="one two three four five six"))
    cancel = threading.Event()
    seen: list[str] = []

    def on_delta(piece: str) -> None:
        seen.append(piece)
        cancel.set()

    with pytest.raises(Cancelled):
        model_for(llm_server, backend).complete("q", on_delta=on_delta, cancel=cancel)
    assert seen == ["one "]
    assert model_for(llm_server, backend).complete("again") == "You said: again"


def test_cancel_before_request_sends_nothing(llm_server):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        model_for(llm_server, "openai").complete("q", cancel=cancel)
    assert llm_server.requests == []


def test_rejected_tools_fall_back_to_plain_chat(llm_server):
    llm_server.queue(Reply(status=400, error="registry.ollama.ai/library/gemma does not support tools"), "plain")
    model = model_for(llm_server, "openai")
    reply = model.chat([{"role": "user", "content": "q"}], tools=TOOLS)
    assert reply.text == "plain"
    assert model.supports_tools is False
    assert llm_server.requests[-1].tools == []
