"""`ragls http` over loopback: /healthz without a token, 401 without the bearer token, /retrieve with the fixture's
exact file and lines, /status, /ask as JSON and as Server-Sent Events from the real openai SDK pointed at the
loopback model, a malformed body answered 400 with the server still serving, a foreign Host (DNS rebinding), a
foreign Origin and a text/plain POST (a web page's simple request) refused before any endpoint runs, and a
non-loopback bind refused without --allow-remote and a token, a port in use said before the index is opened."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import httpx
import pytest
from llm_server import LLMServer
from lspkit import copy_docs, server_env
from ragls.config.trust import trust as trust_folder

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

TOKEN = "test-token-5f1c"


@pytest.fixture(scope="module")
def llm():
    with LLMServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def api(tmp_path_factory, llm):
    ws = copy_docs(tmp_path_factory.mktemp("http") / "docs")
    (ws / "ragls.toml").write_text(
        "[chunking]\nchunk_size = 300\n[generation]\nbackend = \"openai\"\n"
        f"base_url = \"{llm.openai_url}\"\nmodel = \"test-model\"\napi_key_env = \"RAGLS_TEST_LLM_KEY\"\n"
        "max_retries = 0\n")
    trust_folder(ws)  # the user trusts this test's own folder (ragls/config/trust.py)
    env = {**server_env(tmp_path_factory.mktemp("http-cache")), "RAGLS_HTTP_TOKEN": TOKEN,
           "RAGLS_TEST_LLM_KEY": "sk-test"}
    # --port 0: the OS picks the port and the server names it on stderr once its socket listens.
    proc = subprocess.Popen([sys.executable, "-m", "ragls", "http", str(ws), "--port", "0"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if found := re.search(r"HTTP API on http://127\.0\.0\.1:(\d+) ", line):
                break
        assert found, f"ragls http exited {proc.wait(30)}: {''.join(seen)}"
        threading.Thread(target=proc.stderr.read, daemon=True).start()  # drain: the pipe must never fill up
        base = f"http://127.0.0.1:{found.group(1)}"
        deadline = time.monotonic() + 120
        while not httpx.get(f"{base}/healthz", timeout=10).json()["ready"]:  # listening: only readiness to wait for
            assert time.monotonic() < deadline, "the index never became ready"
            time.sleep(0.2)
        yield base, ws
    finally:
        proc.terminate()
        proc.wait(30)


AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_token_required_but_not_for_healthz(api):
    base, _ = api
    assert httpx.get(f"{base}/healthz").status_code == 200
    r = httpx.post(f"{base}/retrieve", json={"query": "retries"})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert httpx.post(f"{base}/retrieve", json={"query": "retries"},
                      headers={"Authorization": "Bearer wrong"}).status_code == 401


def test_retrieve_and_status(api):
    base, _ = api
    r = httpx.post(f"{base}/retrieve", json={"query": "how long is the retry backoff ceiling", "topK": 2},
                   headers=AUTH, timeout=120)
    assert r.status_code == 200
    first = r.json()["chunks"][0]["source"]
    assert first["path"] == "guide/retries.md" and first["range"]["start"]["line"] == 5
    status = httpx.get(f"{base}/status", headers=AUTH, timeout=60).json()
    assert status["folders"][0]["files"] == 4 and TOKEN not in json.dumps(status)


def test_bad_bodies_get_400_and_the_server_serves_on(api):
    base, _ = api
    r = httpx.post(f"{base}/retrieve", content=b"{not json", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == -32602
    r = httpx.post(f"{base}/retrieve", json={"query": "   "}, headers=AUTH)
    assert r.status_code == 400 and r.json()["error"]["code"] == -32602
    # A body over 16 MB is refused unread (413), whether it says its length or comes in chunks
    big = b'{"query": "' + b"a" * (17 * 1024 * 1024) + b'"}'
    r = httpx.post(f"{base}/retrieve", content=big, headers={**AUTH, "Content-Type": "application/json"}, timeout=60)
    assert r.status_code == 413 and r.json()["error"] == {"code": -32600,
                                                          "message": "the request body is over 16,777,216 bytes"}
    r = httpx.post(f"{base}/retrieve", content=(big[i:i + 2**20] for i in range(0, len(big), 2**20)),
                   headers={**AUTH, "Content-Type": "application/json"}, timeout=60)
    assert r.status_code == 413
    r = httpx.post(f"{base}/retrieve", json={"query": "how long is the retry backoff ceiling"}, headers=AUTH,
                   timeout=120)
    assert r.status_code == 200 and r.json()["chunks"]
    assert httpx.get(f"{base}/healthz").json()["status"] == "ok"


def test_web_pages_are_refused_host_origin_and_content_type(api, llm):
    base, _ = api
    port = base.rsplit(":", 1)[1]
    asked = len(llm.requests)
    query = {"query": "how long is the retry backoff ceiling"}
    cases = [  # (headers, how the request is sent, status)
        ({"Host": f"attacker.example:{port}"}, "get", 403),  # DNS rebinding: the page's own name, our address
        ({"Host": "attacker.example"}, "json", 403),
        ({"Origin": "http://attacker.example"}, "json", 403),  # a page of another site, fetch() with the token
        ({"Origin": f"http://localhost.attacker.example:{port}"}, "json", 403),
        ({"Origin": "null"}, "json", 403),  # a sandboxed frame or a file:// page
        ({"Content-Type": "text/plain"}, "text", 415),  # a CSRF "simple request": no CORS preflight
        ({"Content-Type": "application/x-www-form-urlencoded"}, "text", 415),
        ({}, "text-no-type", 415),
    ]
    for extra, how, status in cases:
        headers = {**AUTH, **extra}
        if how == "get":
            r = httpx.get(f"{base}/status", headers=headers)
        elif how == "json":
            r = httpx.post(f"{base}/retrieve", json=query, headers=headers)
        else:
            r = httpx.post(f"{base}/ask" if how == "text" else f"{base}/retrieve",
                           content=json.dumps({"question": "What is the ceiling?", **query}).encode(),
                           headers=headers)
        assert r.status_code == status, (extra, how, r.text)
        error = r.json()["error"]
        assert error["code"] == -32600 and ("refused" in error["message"] or "application/json" in error["message"])
        assert "chunks" not in r.json() and "folders" not in r.json()
    assert len(llm.requests) == asked  # the refused /ask never reached the model (no quota spent)
    # the same requests from the user's own tools and pages on this machine are served
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "localhost"):
        r = httpx.post(f"{base}/retrieve", json=query,
                       headers={**AUTH, "Host": host, "Origin": f"http://{host}"}, timeout=120)
        assert r.status_code == 200 and r.json()["chunks"][0]["source"]["path"] == "guide/retries.md", host
    r = httpx.post(f"{base}/retrieve", json=query, headers={**AUTH, "Content-Type": "application/json; charset=utf-8"},
                   timeout=120)
    assert r.status_code == 200


def test_ask_json_and_streamed(api, llm):
    base, _ = api
    llm.queue("The ceiling is 60 seconds [1].")
    r = httpx.post(f"{base}/ask", json={"question": "What is the retry backoff ceiling?"}, headers=AUTH,
                   timeout=120)
    body = r.json()
    assert r.status_code == 200 and body["answer"] == "The ceiling is 60 seconds [1]."
    assert body["sources"][0]["path"] == "guide/retries.md"
    assert "backoff ceiling" in llm.requests[-1].user_texts()[-1]  # the question reached the model

    llm.queue("Sixty seconds [1].")
    events = []
    with httpx.stream("POST", f"{base}/ask", json={"question": "What is the retry backoff ceiling?",
                                                   "stream": True}, headers=AUTH, timeout=120) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        event = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((event, json.loads(line.removeprefix("data: "))))
    deltas = [d["delta"] for e, d in events if e == "delta"]
    assert len(deltas) >= 2 and "".join(deltas) == "Sixty seconds [1]."
    assert events[-1][0] == "result" and events[-1][1]["answer"] == "Sixty seconds [1]."


def test_non_loopback_bind_is_refused_without_allow_remote_and_token(tmp_path):
    env = server_env(tmp_path / "cache")
    env.pop("RAGLS_HTTP_TOKEN", None)
    for extra in ([], ["--allow-remote"]):
        proc = subprocess.run([sys.executable, "-m", "ragls", "http", str(tmp_path), "--host", "0.0.0.0", *extra],
                              env=env, capture_output=True, text=True, timeout=60, check=False)
        assert proc.returncode == 2
        assert ("--allow-remote" in proc.stderr) if not extra else ("bearer token" in proc.stderr)


def test_a_port_in_use_is_said_at_once_before_the_index_is_opened(tmp_path):
    """A second `ragls http` on a port another server holds: uvicorn logged "[Errno 98] Address already in use" and
    exited 3, after the index was opened (5 s, a model load); now one line names the address and what to do, exit 1,
    no index made."""
    import socket

    folder = copy_docs(tmp_path / "docs")
    cache = tmp_path / "cache"
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "ragls", "http", str(folder), "--port", str(port)],
                              env=server_env(cache), capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1, proc.stderr
    assert (f"ragls: cannot listen on 127.0.0.1:{port}: Address already in use (another `ragls http` or another "
            "server holds it); choose another port with --port, or --port 0 for a free one") in proc.stderr
    assert not (cache / "indexes").exists()
