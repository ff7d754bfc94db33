"""Local LLM runtimes: discovery on loopback (`ragls models`, `ragls doctor`), the lazy readiness check of the
`external` backend, and `generation.auto_start` (start `ollama serve` on first use).

Known runtimes and their default ports (each project's documentation): Ollama 11434 (`/api/tags`, OpenAI API under
`/v1`), LM Studio 1234, llama.cpp `llama-server` 8080, vLLM 8000, Jan 1337, KoboldCpp 5001 (all OpenAI-compatible:
`GET /v1/models`). Probes use plain HTTP GETs with a short timeout (`httpx`, which the openai SDK already brings).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from ragls.core.errors import RequestFailed
from ragls.core.uris import display_url, http_url

log = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 0.5
READY_TIMEOUT_S = 5.0
OLLAMA_START_WAIT_S = 20.0


@dataclass(frozen=True)
class Runtime:
    """A local runtime ragls knows: `key` (short id), `name`, default `port`, and how ragls talks to it
    (`backend` "ollama" or "external")."""

    key: str
    name: str
    port: int
    backend: str = "external"


KNOWN_RUNTIMES: tuple[Runtime, ...] = (
    Runtime("ollama", "Ollama", 11434, "ollama"),
    Runtime("lmstudio", "LM Studio", 1234),
    Runtime("llamacpp", "llama.cpp server", 8080),
    Runtime("vllm", "vLLM", 8000),
    Runtime("jan", "Jan", 1337),
    Runtime("koboldcpp", "KoboldCpp", 5001),
)


@dataclass(frozen=True)
class Found:
    """A runtime that answered: its root URL (`http://127.0.0.1:<port>`), OpenAI base URL (root + "/v1") and the
    model names it serves (possibly empty)."""

    runtime: Runtime
    root: str
    models: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return self.root + "/v1"

    def settings_toml(self) -> str:
        """Copy-pasteable `ragls.toml` lines that use this runtime (first model, others listed in a comment)."""
        lines = ["[generation]", f'backend = "{self.runtime.backend}"']
        if self.runtime.backend == "external" or self.runtime.port != 11434:
            lines.append(f'base_url = "{self.base_url}"')
        if self.models:
            lines.append(f'model = "{self.models[0]}"')
            if len(self.models) > 1:
                lines.append("# other models: " + ", ".join(self.models[1:]))
        return "\n".join(lines)


def _get_json(url: str, timeout: float):
    import httpx

    resp = httpx.get(url, timeout=timeout)
    resp.raise_for_status()
    return resp.json()


def _model_ids(payload) -> list[str]:
    """Model names from an OpenAI `/v1/models` ({"data": [{"id"}]}) or Ollama `/api/tags` ({"models": [{"name"}]})
    payload; [] for anything else."""
    if not isinstance(payload, dict):
        return []
    items = payload.get("data") if isinstance(payload.get("data"), list) else payload.get("models")
    out = []
    for item in items or []:
        if isinstance(item, dict):
            name = item.get("id") or item.get("name") or item.get("model")
            if isinstance(name, str) and name:
                out.append(name)
    return out


def listening(host: str, port: int, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """True when a TCP connection to host:port succeeds within `timeout` seconds."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def probe(runtime: Runtime, host: str = "127.0.0.1", timeout: float = PROBE_TIMEOUT_S) -> Found | None:
    """The runtime on host:runtime.port, or None when nothing there answers like it. Ollama is asked `/api/tags`
    first, every runtime `/v1/models`; a server that listens but answers neither is reported with no models when
    it answers HTTP at all."""
    if not listening(host, runtime.port, timeout):
        return None
    root = f"http://{host}:{runtime.port}"
    paths = ["/api/tags", "/v1/models"] if runtime.key == "ollama" else ["/v1/models"]
    for path in paths:
        try:
            return Found(runtime, root, _model_ids(_get_json(root + path, timeout)))
        except Exception as exc:  # noqa: BLE001 - any failure: try the next path
            log.debug("probe %s%s: %s", root, path, exc)
    return None


def discover(runtimes: tuple[Runtime, ...] = KNOWN_RUNTIMES, host: str = "127.0.0.1",
             timeout: float = PROBE_TIMEOUT_S) -> list[Found]:
    """Probe every runtime concurrently; the ones that answered, in `runtimes` order. Takes about `timeout` s at
    most per runtime (in parallel). Never raises."""
    with ThreadPoolExecutor(max_workers=len(runtimes) or 1) as pool:
        results = list(pool.map(lambda r: probe(r, host, timeout), runtimes))
    return [f for f in results if f is not None]


def describe_discovery(found: list[Found], runtimes: tuple[Runtime, ...] = KNOWN_RUNTIMES) -> str:
    """The report `ragls models` prints: one line per runtime (running with its models, or not running), then a
    `ragls.toml` snippet for each running one."""
    by_key = {f.runtime.key: f for f in found}
    lines = []
    for r in runtimes:
        f = by_key.get(r.key)
        where = f"127.0.0.1:{r.port}"
        if f is None:
            lines.append(f"  {r.name:<17} {where:<16} not running")
        else:
            models = ", ".join(f.models) if f.models else "(no models listed)"
            lines.append(f"  {r.name:<17} {where:<16} running: {models}")
    for f in found:
        lines += ["", f"# {f.runtime.name} — put in ragls.toml:", f.settings_toml()]
    if not found:
        lines += ["", "No local LLM runtime answers on its default port. Start one (e.g. `ollama serve`), or use",
                  "an API: set OPENAI_API_KEY or ANTHROPIC_API_KEY."]
    return "\n".join(lines)


# -- the `external` backend: lazy readiness -------------------------------------------------------------------

_ready: set[str] = set()
_ready_lock = threading.Lock()


def root_of(base_url: str) -> str:
    """`http://host:port/v1` → `http://host:port` (the path's trailing `/v1` removed; a query string, a gateway's
    `?api-version=...`, stays after the path)."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/").removesuffix("/v1"), fragment=""))


def under(base_url: str, path: str) -> str:
    """`path` ("/models", "/health") appended to the path of `base_url`, before its query string:
    `http://gw/v1?api-version=2` + "/models" → `http://gw/v1/models?api-version=2` (appended to the whole string it
    read `...?api-version=2/models`)."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path, fragment=""))


def check_ready(base_url: str, timeout: float = READY_TIMEOUT_S) -> list[str]:
    """Is the OpenAI-compatible server at `base_url` up? `GET <root>/health`, then `GET <base_url>/models`; the
    first 2xx wins. Returns the model names `/models` listed ([] when /health answered). A URL that answered once
    is not checked again in this process (`forget_ready` after a connection failure).
    Raises RequestFailed naming the URL and what each probe got."""
    with _ready_lock:
        if base_url in _ready:
            return []
    root = root_of(base_url)
    tried: list[tuple[str, str]] = []  # (probe, reason)
    for url, is_models in ((under(root, "/health"), False), (under(base_url, "/models"), True)):
        try:
            payload = _get_json(url, timeout)
        except Exception as exc:  # noqa: BLE001 - reported in the message
            tried.append((f"GET {display_url(url)}", _reason(exc)))
            continue
        with _ready_lock:
            _ready.add(base_url)
        return _model_ids(payload) if is_models else []
    raise RequestFailed(f"external backend at {display_url(base_url)} is not reachable ({_probes_text(tried)}); start the "
                        f"server (ragls never launches an external backend) or fix generation.base_url")


def _probes_text(tried: list[str]) -> str:
    """What each readiness probe got, one reason once: [("GET u1", "Connection refused"), ("GET u2", "Connection
    refused")] -> "Connection refused: GET u1, GET u2"; different reasons -> "GET u1: HTTP 404; GET u2: timed out"."""
    reasons = {reason for _, reason in tried}
    if len(reasons) == 1:
        return f"{reasons.pop()}: {', '.join(probe for probe, _ in tried)}"
    return "; ".join(f"{probe}: {reason}" for probe, reason in tried)


def list_models(base_url: str, timeout: float = READY_TIMEOUT_S) -> list[str]:
    """Model names from `GET <base_url>/models`; [] when it fails."""
    try:
        return _model_ids(_get_json(under(base_url, "/models"), timeout))
    except Exception:  # noqa: BLE001
        return []


def forget_ready(base_url: str) -> None:
    """Check `base_url` again on next use (after it failed to connect)."""
    with _ready_lock:
        _ready.discard(base_url)


@dataclass(frozen=True)
class Probe:
    """What `models_at` found at one OpenAI-compatible base URL: the model names, whether an API key was needed
    (`key_used`: the answer came only with the key from `api_key_env`), and `error` (a sentence) when it failed."""

    base_url: str
    models: list[str] = field(default_factory=list)
    key_used: bool = False
    error: str | None = None


def models_at(base_url: str, api_key_env: str | None = None, timeout: float = READY_TIMEOUT_S) -> Probe:
    """`GET <base_url>/models` without a key first (LM Studio, llama.cpp, vLLM, Jan need none); on HTTP 401/403
    again with the key in the environment variable `api_key_env` (default OPENAI_API_KEY) when it is set. The key
    is never returned or logged. Never raises: a failure is `Probe.error`, naming the URL and what it got."""
    import httpx

    try:
        url = under(http_url(base_url), "/models")
    except ValueError as exc:
        return Probe(base_url, error=str(exc))
    env = api_key_env or "OPENAI_API_KEY"
    key = os.environ.get(env) or None
    try:
        resp = httpx.get(url, timeout=timeout)
        if resp.status_code in (401, 403) and key:
            resp = httpx.get(url, timeout=timeout, headers={"Authorization": f"Bearer {key}"})
            resp.raise_for_status()
            return Probe(base_url, _model_ids(resp.json()), key_used=True)
        if resp.status_code in (401, 403):
            return Probe(base_url, error=f"GET {display_url(url)}: HTTP {resp.status_code} - this server needs an API key; set "
                                         f"{env} in the environment the editor starts ragls from")
        resp.raise_for_status()
        return Probe(base_url, _model_ids(resp.json()))
    except Exception as exc:  # noqa: BLE001 - reported as the probe's error
        return Probe(base_url, error=f"GET {display_url(url)}: {_reason(exc)}")


def _reason(exc: Exception) -> str:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status is not None:
        return f"HTTP {status}"
    text = str(exc) or type(exc).__name__
    return re.sub(r"^\[Errno -?\d+\] ", "", text.splitlines()[0])[:120]  # "[Errno 111] Connection refused"


# -- generation.auto_start --------------------------------------------------------------------------------------

_started: dict[str, subprocess.Popen] = {}
_start_lock = threading.Lock()
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def ensure_ollama(base_url: str, wait_s: float = OLLAMA_START_WAIT_S) -> subprocess.Popen | None:
    """`generation.auto_start` for the ollama backend: when `base_url` is on loopback, nothing listens on its port
    and `ollama` is on PATH, start `ollama serve` (OLLAMA_HOST set to that host:port, output discarded, its own
    session so it outlives nothing but is never killed by ragls) and wait up to `wait_s` seconds for the port.
    Returns the process started (None when nothing was started). Raises RequestFailed when it was started but the
    port never opened. Started at most once per URL per process."""
    parts = urlsplit(base_url)
    host, port = parts.hostname or "localhost", parts.port or 11434
    if host not in LOOPBACK or listening(host, port):
        return None
    binary = shutil.which("ollama")
    if binary is None:
        log.info("generation.auto_start: `ollama` is not on PATH; not starting it")
        return None
    with _start_lock:
        proc = _started.get(base_url)
        if proc is None or proc.poll() is not None:
            env = {**os.environ, "OLLAMA_HOST": f"{'127.0.0.1' if host == 'localhost' else host}:{port}"}
            log.info("generation.auto_start: starting %s serve on %s:%d", binary, host, port)
            proc = subprocess.Popen([binary, "serve"], env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            _started[base_url] = proc
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if listening(host, port, 0.2):
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise RequestFailed(f"generation.auto_start: started `{binary} serve` but nothing listens on {host}:{port} "
                        f"after {wait_s:g} s" + (f" (it exited with {proc.returncode})" if proc.poll() is not None
                                                  else ""))
