"""Chat models over the official SDKs: OpenAI-compatible (OpenAI, Ollama, llama.cpp, vLLM, LM Studio) and Anthropic.

One neutral shape is used by the rest of ragls and converted here for each SDK:

- messages: `{"role": "user" | "assistant", "content": str}`; an assistant turn that called tools also carries
  `"tool_calls": [{"id", "name", "arguments": dict}]`; a tool result is
  `{"role": "tool", "tool_call_id": str, "name": str, "content": str}`.
- tools: `{"name": str, "description": str, "parameters": <JSON schema of the arguments object>}`.

Every backend failure becomes `RequestFailed` with a sentence that names the backend, its URL and what to do;
429 and 5xx are retried by the SDK itself (`max_retries` = `generation.max_retries`, exponential backoff, honouring
Retry-After). API keys are read from the environment only and never logged or put into messages.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ragls.config.settings import GenerationSettings
from ragls.core.errors import Cancelled, RequestFailed
from ragls.core.telemetry import traced
from ragls.core.uris import display_url

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_URLS",
    "Cancelled",
    "ChatModel",
    "ChatReply",
    "ToolCall",
    "default_model",
    "make_chat_model",
]

log = logging.getLogger(__name__)

DEFAULT_MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-3-5-haiku-latest", "ollama": "llama3.2"}
DEFAULT_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://localhost:11434/v1",
}
KEY_ENVS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "ollama": "OLLAMA_API_KEY"}
ANTHROPIC_MAX_TOKENS = 4096  # Anthropic requires max_tokens; an answer never needs more
CANCEL_POLL_S = 0.05  # how often a cancelled request's watcher looks at its cancel event


@dataclass(frozen=True)
class ToolCall:
    """A tool call requested by the model. `arguments` is the decoded JSON object ({} if the model sent none;
    `{"_invalid_json": raw}` if it sent something that is not a JSON object)."""

    id: str
    name: str
    arguments: dict = field(default_factory=dict)

    def to_message(self) -> dict:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class ChatReply:
    """One model turn: its text (may be "" when it only called tools) and the tool calls it made."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)


Delta = Callable[[str], None]


def _parse_arguments(raw: str | dict | None) -> dict:
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"_invalid_json": raw}
    return value if isinstance(value, dict) else {"_invalid_json": raw}


@contextmanager
def _close_on_cancel(cancel: threading.Event | None, client: Any):
    """While the block runs, a watcher closes `client` (its HTTP connections) within CANCEL_POLL_S of `cancel`
    being set, so a request blocked on the network ends at once instead of at its next streamed piece.
    `make_chat_model` makes one model (and client) per request, so no other request shares what is closed."""
    if cancel is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(CANCEL_POLL_S):
            if cancel.is_set():
                try:
                    client.close()
                except Exception:  # noqa: BLE001, S110 - closing is best effort
                    pass
                return

    threading.Thread(target=watch, name="ragls-llm-cancel", daemon=True).start()
    try:
        yield
    finally:
        finished.set()


class ChatModel(ABC):
    """A configured chat model. Use `make_chat_model`; do not instantiate directly.

    Attributes: `backend` ("openai", "anthropic", "ollama" or "external"), `model`, `base_url` (the URL requests go to, shown
    in error messages), `supports_tools` (False after the server rejected a request with tools).
    """

    backend: str
    model: str
    base_url: str

    def __init__(self, gen: GenerationSettings, backend: str) -> None:
        self.gen = gen
        self.backend = backend
        self.model = gen.model or DEFAULT_MODELS.get(backend, "")  # external: resolved from /models on first use
        self.base_url = (gen.base_url or DEFAULT_URLS.get(backend, "")).rstrip("/")
        self.supports_tools = True
        self._client: Any = None
        self._lock = threading.Lock()

    # -- public API -------------------------------------------------------------------------------------------

    @traced("llm.chat")
    def chat(
        self,
        messages: list[dict],
        *,
        system: str | None = None,
        tools: list[dict] | None = None,
        tool_choice: str = "auto",
        on_delta: Delta | None = None,
        cancel: threading.Event | None = None,
    ) -> ChatReply:
        """Send one turn. `messages` and `tools` are in the neutral shape (module docstring); `tool_choice` is
        "auto" or "none" (tools stay declared but the model must answer in text).

        Streams when `on_delta` or `cancel` is given: `on_delta(piece)` is called for each text piece in order.
        Raises `Cancelled` as soon as `cancel` is set (checked before the request and between streamed pieces),
        `RequestFailed` for any backend failure (after the SDK's retries for 429/5xx)."""
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled")
        client = self._get_client()
        stream = on_delta is not None or cancel is not None
        try:
            with _close_on_cancel(cancel, client):
                if stream:
                    return self._stream(client, messages, system, tools, tool_choice, on_delta, cancel)
                return self._create(client, messages, system, tools, tool_choice)
        except (Cancelled, RequestFailed):
            raise
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one clear message
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled") from None
            if tools and self._rejects_tools(exc):
                log.info("%s: model %s rejected tools; retrying without them", self.backend, self.model)
                self.supports_tools = False
                return self.chat(
                    self._without_tool_turns(messages), system=system, on_delta=on_delta, cancel=cancel
                )
            raise self._failure(exc) from None

    def complete(
        self,
        prompt: str,
        *,
        system: str | None = None,
        on_delta: Delta | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """One user prompt → the model's text. Same streaming, cancel and error behaviour as `chat`."""
        return self.chat([{"role": "user", "content": prompt}], system=system, on_delta=on_delta,
                         cancel=cancel).text

    def describe(self) -> str:
        """"backend model at URL", for status lines and logs (never includes the key, nor credentials of the URL:
        `uris.display_url`)."""
        return f"{self.backend} {self.model} at {display_url(self.base_url)}"

    # -- shared helpers -----------------------------------------------------------------------------------------

    def _key_env(self) -> str:
        return self.gen.api_key_env or KEY_ENVS.get(self.backend, "OPENAI_API_KEY")

    def _api_key(self) -> str | None:
        """The key from the environment. Required only for the vendor's own endpoint (no base_url) or when
        `api_key_env` names a variable explicitly; local servers (Ollama, llama.cpp...) need none."""
        if self.backend == "external" and self.gen.api_key_env is None:
            return "no-key"  # someone else's server: never send it a vendor key from the environment
        key = os.environ.get(self._key_env()) or None
        if key:
            return key
        needs_key = self.gen.api_key_env is not None or (self.backend != "ollama" and self.gen.base_url is None)
        if needs_key:
            hint = (f"set {self._key_env()}" if self.gen.api_key_env
                    else f"set {self._key_env()} or generation.api_key_env")
            raise RequestFailed(f"{self._where()}: no API key; {hint} (the key is read from the environment only)")
        return "no-key"  # local OpenAI-compatible servers ignore it, but the SDK wants a string

    def _where(self) -> str:
        return f"{self.backend} backend at {display_url(self.base_url)}"

    def _vendor_endpoint(self) -> bool:
        """True when requests go to the vendor's own endpoint (`DEFAULT_URLS` of openai / anthropic) because no
        `generation.base_url` applies (none set, or an untrusted folder's was ignored)."""
        return self.gen.base_url is None and self.backend in ("openai", "anthropic")

    def _check_url(self) -> str:
        """What to check after a failed connection to `base_url`: the network to the vendor's endpoint, which no
        setting named (`_vendor_endpoint`), else the server and generation.base_url."""
        if self._vendor_endpoint():
            return f"check the network connection to {display_url(self.base_url)} (and HTTPS_PROXY when one is set)"
        return "is the server running? Check generation.base_url"

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                self._prepare_server()
                self._client = self._make_client(self._api_key())
            return self._client

    def _prepare_server(self) -> None:
        """Before the first request: `external` — check readiness (GET /health, then /models; see
        `local.check_ready`) and take the first served model when `generation.model` is unset; `ollama` with
        `generation.auto_start` — start `ollama serve` when nothing listens (`local.ensure_ollama`)."""
        from ragls.llm import local

        if self.backend == "external":
            models = local.check_ready(self.base_url, min(self.gen.timeout_s, local.READY_TIMEOUT_S))
            if not self.model:
                models = models or local.list_models(self.base_url, min(self.gen.timeout_s,
                                                                        local.READY_TIMEOUT_S))
                if not models:
                    raise RequestFailed(f"external backend at {display_url(self.base_url)} lists no model; set "
                                        "generation.model")
                self.model = models[0]
        elif self.backend == "ollama" and self.gen.auto_start:
            local.ensure_ollama(local.root_of(self.base_url))

    @abstractmethod
    def _make_client(self, key: str) -> Any:
        """The SDK client for this backend, with `key` (None for keyless local servers)."""

    @abstractmethod
    def _sdk(self) -> Any:
        """The SDK module (imported lazily)."""

    @abstractmethod
    def _create(self, client, messages, system, tools, tool_choice) -> ChatReply:
        """One non-streaming completion."""

    @abstractmethod
    def _stream(self, client, messages, system, tools, tool_choice, on_delta, cancel) -> ChatReply:
        """One streaming completion, each text piece sent to `on_delta`; stops when `cancel` is set."""

    @staticmethod
    def _without_tool_turns(messages: list[dict]) -> list[dict]:
        out = []
        for m in messages:
            if m.get("role") == "tool":
                out.append({"role": "user", "content": f"Result of {m.get('name', 'tool')}: {m.get('content', '')}"})
            else:
                out.append({"role": m["role"], "content": m.get("content") or ""})
        return out

    def _rejects_tools(self, exc: Exception) -> bool:
        sdk = self._sdk()
        if isinstance(exc, sdk.BadRequestError):
            text = str(getattr(exc, "message", exc)).lower()
            return "tool" in text
        return False

    def _server_message(self, exc: Exception) -> str:
        body = getattr(exc, "body", None)
        if isinstance(body, dict):  # {"error": {"message": ...}} (OpenAI, Anthropic) or {"message": ...}
            inner = body.get("error") if isinstance(body.get("error"), dict) else body
            text = str(inner.get("message") or exc)
        else:
            text = str(getattr(exc, "message", "") or exc)
        text = text.strip().replace("\n", " ")
        key = os.environ.get(self._key_env())
        if key:
            text = text.replace(key, "***")
        return text[:300]

    def _failure(self, exc: Exception) -> RequestFailed:
        """Map an SDK exception to RequestFailed naming backend, URL and what to do."""
        sdk = self._sdk()
        where = self._where()
        retries = self.gen.max_retries
        if isinstance(exc, sdk.APITimeoutError):
            msg = (f"{where}: no reply within {self.gen.timeout_s:g} s; check that the server is up or raise "
                   f"generation.timeout_s")
        elif isinstance(exc, sdk.APIConnectionError):
            msg = f"{where}: cannot connect ({self._server_message(exc)}); " + self._check_url()
            if self.backend == "external":
                from ragls.llm.local import forget_ready

                forget_ready(self.base_url)
        elif isinstance(exc, sdk.AuthenticationError):
            msg = (f"{where}: the API key was rejected (HTTP 401); check {self._key_env()}"
                   + ("" if self.gen.api_key_env else " or set generation.api_key_env"))
        elif isinstance(exc, sdk.PermissionDeniedError):
            msg = f"{where}: access denied (HTTP 403) for model {self.model!r}; check the key's permissions"
        elif isinstance(exc, sdk.RateLimitError):
            msg = (f"{where}: rate limited (HTTP 429) after {retries} retr{'y' if retries == 1 else 'ies'}; "
                   f"wait and try again, or raise generation.max_retries")
        elif isinstance(exc, sdk.NotFoundError):
            msg = (f"{where}: model {self.model!r} not found (HTTP 404); set generation.model to a model this "
                   f"server has" + (" (e.g. `ollama pull llama3.2`)" if self.backend == "ollama" else "")
                   + ("" if self._vendor_endpoint() else " and check generation.base_url"))
        elif isinstance(exc, sdk.APIStatusError):
            msg = f"{where}: request failed (HTTP {exc.status_code}): {self._server_message(exc)}"
        elif isinstance(exc, sdk.APIError):
            msg = f"{where}: request failed: {self._server_message(exc)}"
        else:
            log.warning("%s: unexpected %s", where, type(exc).__name__, exc_info=exc)
            msg = f"{where}: request failed ({type(exc).__name__}: {self._server_message(exc)})"
        return RequestFailed(msg)


class OpenAIChat(ChatModel):
    """OpenAI Chat Completions (`openai` SDK); also Ollama, llama.cpp server, vLLM, LM Studio via `base_url`."""

    def _sdk(self) -> Any:
        import openai

        return openai

    def _make_client(self, key: str) -> Any:
        import openai

        return openai.OpenAI(api_key=key, base_url=self.base_url, timeout=self.gen.timeout_s,
                             max_retries=self.gen.max_retries)

    @staticmethod
    def convert_messages(messages: list[dict], system: str | None) -> list[dict]:
        """Neutral messages → Chat Completions messages."""
        out: list[dict] = [{"role": "system", "content": system}] if system else []
        for m in messages:
            role = m["role"]
            if role == "tool":
                out.append({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m.get("content", "")})
            elif role == "assistant" and m.get("tool_calls"):
                out.append({
                    "role": "assistant",
                    "content": m.get("content") or None,
                    "tool_calls": [
                        {"id": c["id"], "type": "function",
                         "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments") or {})}}
                        for c in m["tool_calls"]
                    ],
                })
            else:
                out.append({"role": role, "content": m.get("content") or ""})
        return out

    @staticmethod
    def convert_tools(tools: list[dict]) -> list[dict]:
        """Neutral tools → Chat Completions `tools` (function type)."""
        return [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                                  "parameters": t.get("parameters") or {"type": "object"}}}
                for t in tools]

    def _kwargs(self, messages, system, tools, tool_choice) -> dict:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": self.convert_messages(messages, system),
            "temperature": self.gen.temperature,
        }
        if tools:
            kwargs["tools"] = self.convert_tools(tools)
            kwargs["tool_choice"] = tool_choice
        return kwargs

    def _create(self, client, messages, system, tools, tool_choice) -> ChatReply:
        resp = client.chat.completions.create(**self._kwargs(messages, system, tools, tool_choice))
        if not resp.choices:
            return ChatReply("")
        msg = resp.choices[0].message
        calls = [ToolCall(c.id, c.function.name, _parse_arguments(c.function.arguments))
                 for c in (msg.tool_calls or []) if getattr(c, "function", None)]
        return ChatReply(msg.content or "", calls)

    def _stream(self, client, messages, system, tools, tool_choice, on_delta, cancel) -> ChatReply:
        text: list[str] = []
        calls: dict[int, dict] = {}
        stream = client.chat.completions.create(stream=True, **self._kwargs(messages, system, tools, tool_choice))
        with stream:
            for chunk in stream:
                if cancel is not None and cancel.is_set():
                    raise Cancelled("cancelled")
                for choice in chunk.choices or []:
                    delta = choice.delta
                    if delta is None:
                        continue
                    if delta.content:
                        text.append(delta.content)
                        if on_delta is not None:
                            on_delta(delta.content)
                    for tc in delta.tool_calls or []:
                        slot = calls.setdefault(tc.index or 0, {"id": "", "name": "", "arguments": ""})
                        if tc.id:
                            slot["id"] = tc.id
                        if tc.function is not None:
                            if tc.function.name:
                                slot["name"] += tc.function.name
                            if tc.function.arguments:
                                slot["arguments"] += tc.function.arguments
        tool_calls = [ToolCall(c["id"] or f"call_{i}", c["name"], _parse_arguments(c["arguments"]))
                      for i, c in sorted(calls.items()) if c["name"]]
        return ChatReply("".join(text), tool_calls)


class AnthropicChat(ChatModel):
    """Anthropic Messages API (`anthropic` SDK); `base_url` supported. `generation.temperature` is sent, capped at
    1.0 (the Messages API's maximum)."""

    def _sdk(self) -> Any:
        import anthropic

        return anthropic

    def _make_client(self, key: str) -> Any:
        import anthropic

        return anthropic.Anthropic(api_key=key, base_url=self.base_url, timeout=self.gen.timeout_s,
                                   max_retries=self.gen.max_retries)

    @staticmethod
    def convert_messages(messages: list[dict]) -> list[dict]:
        """Neutral messages → Anthropic messages: tool calls become `tool_use` blocks, tool results become
        `tool_result` blocks in a user turn, and consecutive turns of one role are merged (the API wants them
        alternating)."""
        out: list[dict] = []

        def add(role: str, blocks: list[dict]) -> None:
            if out and out[-1]["role"] == role:
                out[-1]["content"].extend(blocks)
            else:
                out.append({"role": role, "content": list(blocks)})

        for m in messages:
            role = m["role"]
            content = m.get("content") or ""
            if role == "tool":
                add("user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": content}])
            elif role == "assistant":
                blocks = [{"type": "text", "text": content}] if content else []
                blocks += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c.get("arguments") or {}}
                           for c in m.get("tool_calls") or []]
                if blocks:
                    add("assistant", blocks)
            elif content:
                add("user", [{"type": "text", "text": content}])
        return out

    @staticmethod
    def convert_tools(tools: list[dict]) -> list[dict]:
        """Neutral tools → Anthropic tools (`input_schema`)."""
        return [{"name": t["name"], "description": t.get("description", ""),
                 "input_schema": t.get("parameters") or {"type": "object"}} for t in tools]

    def _kwargs(self, messages, system, tools, tool_choice) -> dict:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": ANTHROPIC_MAX_TOKENS,
            "messages": self.convert_messages(messages),
            # The Messages API takes `temperature` (0-1; generation.temperature allows OpenAI's 0-2, so it is
            # capped), but this SDK's create() no longer has the argument: it goes in the body.
            "extra_body": {"temperature": min(1.0, self.gen.temperature)},
        }
        if system:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = self.convert_tools(tools)
            kwargs["tool_choice"] = {"type": "none" if tool_choice == "none" else "auto"}
        return kwargs

    def _create(self, client, messages, system, tools, tool_choice) -> ChatReply:
        resp = client.messages.create(**self._kwargs(messages, system, tools, tool_choice))
        text, calls = [], []
        for block in resp.content or []:
            if block.type == "text":
                text.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(block.id, block.name, _parse_arguments(block.input)))
        return ChatReply("".join(text), calls)

    def _stream(self, client, messages, system, tools, tool_choice, on_delta, cancel) -> ChatReply:
        text: list[str] = []
        blocks: dict[int, dict] = {}
        stream = client.messages.create(stream=True, **self._kwargs(messages, system, tools, tool_choice))
        with stream:
            for event in stream:
                if cancel is not None and cancel.is_set():
                    raise Cancelled("cancelled")
                kind = event.type
                if kind == "content_block_start" and event.content_block.type == "tool_use":
                    cb = event.content_block
                    blocks[event.index] = {"id": cb.id, "name": cb.name, "json": "",
                                           "input": cb.input if isinstance(cb.input, dict) else {}}
                elif kind == "content_block_delta":
                    delta = event.delta
                    if delta.type == "text_delta" and delta.text:
                        text.append(delta.text)
                        if on_delta is not None:
                            on_delta(delta.text)
                    elif delta.type == "input_json_delta" and event.index in blocks:
                        blocks[event.index]["json"] += delta.partial_json or ""
        calls = [ToolCall(b["id"], b["name"], _parse_arguments(b["json"]) if b["json"] else b["input"])
                 for _, b in sorted(blocks.items())]
        return ChatReply("".join(text), calls)


def default_model(backend: str) -> str | None:
    """The model used when `generation.model` is unset: DEFAULT_MODELS[backend]; None for "none"/unknown."""
    return DEFAULT_MODELS.get(backend)


def make_chat_model(gen: GenerationSettings) -> ChatModel | None:
    """The chat model for `gen` (backend from `gen.resolved_backend()`), or None for backend "none".

    Never contacts the server and never fails for a missing key: that is reported by the first `chat` call as
    `RequestFailed`, so `rag/status` can still show the configured backend. Defaults: models in DEFAULT_MODELS,
    URLs in DEFAULT_URLS (ollama: its OpenAI-compatible endpoint at localhost:11434/v1, no key needed).
    "external" is an OpenAI-compatible server someone else runs: `base_url` required (config validation), no key
    unless `api_key_env` names one, readiness checked on first use."""
    backend = gen.resolved_backend()
    if backend == "none":
        return None
    if backend in ("openai", "ollama", "external"):
        return OpenAIChat(gen, backend)
    if backend == "anthropic":
        return AnthropicChat(gen, backend)
    raise RequestFailed(f"unknown generation backend {backend!r}; use openai, anthropic, ollama, external or none")
