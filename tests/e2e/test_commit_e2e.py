"""`rag/commitMessage` over LSP (real server over stdio, real git, openai SDK against the loopback LLM server,
CONTRIBUTING.md retrieved from the real index) and `ragls commit-msg` on the command line."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clikit import ragls
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, client_capabilities
from ragls.core.uris import path_to_uri
from ragls.embedding.embed import offline_model_dir

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

KEY_ENV = "RAGLS_E2E_COMMIT_KEY"
CONTRIBUTING = ("# Contributing\n\n## Commit messages\n\nCommit messages use the form `area: change`. "
                "Allowed areas: core, docs. Keep the subject short.\n")
CORE_PY = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=git_env()).stdout


def git_env() -> dict[str, str]:
    """Neither the system's nor the user's git config is read."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env


def make_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    for key, value in (("user.name", "Test"), ("user.email", "t@example.com"), ("commit.gpgsign", "false")):
        git(root, "config", key, value)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


async def request(client, method: str, params: dict):
    return await client.protocol.send_request_async(method, params)


@pytest.mark.timeout(300)
async def test_commit_message_over_lsp(tmp_path, llm_server):
    model_dir = offline_model_dir()
    if model_dir is None:
        pytest.skip("ragls[offline] (bundled MiniLM) is not installed")
    repo = make_repo(tmp_path / "repo", {"CONTRIBUTING.md": CONTRIBUTING, "src/core.py": CORE_PY})
    (repo / "src/core.py").write_text(CORE_PY.replace("sum(xs)", "STAGED_SUM(xs)"), encoding="utf-8")
    git(repo, "add", "src/core.py")
    (repo / "src/core.py").write_text(CORE_PY.replace("sum(xs)", "STAGED_SUM(xs)").replace("len(xs)", "UNSTAGED"),
                                      encoding="utf-8")
    not_repo = tmp_path / "plain"
    not_repo.mkdir()
    clean = make_repo(tmp_path / "clean", {"a.txt": "a\n"})

    env = {**git_env(), KEY_ENV: "sk-e2e", "RAGLS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.pop("OPENAI_API_KEY", None)
    client = await ClientServerConfig([sys.executable, "-m", "ragls", "serve"], server_env=env).start()
    try:
        options = {
            "generation": {"backend": "openai", "base_url": llm_server.openai_url, "api_key_env": KEY_ENV,
                           "model": "test-model", "max_retries": 0},
            "embedding": {"model": "sentence-transformers/all-MiniLM-L6-v2", "model_path": str(model_dir)},
            "index": {"path": str(tmp_path / "index")},
            "watch": {"enabled": False},
        }
        await client.initialize_session(types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), initialization_options=options,
            workspace_folders=[types.WorkspaceFolder(uri=path_to_uri(repo), name="repo")]))
        for _ in range(600):  # until CONTRIBUTING.md is indexed and embedded
            folder = (await request(client, "rag/status", {})).folders[0]
            if folder.files >= 1 and folder.pending == 0 and folder.pendingVectors == 0:
                break
            await asyncio.sleep(0.2)
        else:
            pytest.fail("indexing did not finish")

        llm_server.queue("core: use STAGED_SUM in total\n\nThe sum goes through the staged helper.")
        result = await request(client, "rag/commitMessage", {})
        assert result.message == "core: use STAGED_SUM in total\n\nThe sum goes through the staged helper."
        assert (result.truncated, result.files) == (False, ["src/core.py"])
        prompt = llm_server.requests[-1].last_user_text()
        assert "Allowed areas: core, docs." in prompt  # the indexed convention reached the model
        assert "+    return STAGED_SUM(xs)" in prompt and "UNSTAGED" not in prompt

        llm_server.queue("Use helpers in core")
        result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="ragls.commitMessage", arguments=[{"staged": False, "style": "plain"}]))
        assert result == {"message": "Use helpers in core", "truncated": False, "files": ["src/core.py"]}
        prompt = llm_server.requests[-1].last_user_text()
        assert "UNSTAGED" in prompt and "sentence case" in prompt

        asked = len(llm_server.requests)
        for params, code, text in [
            ({"repository": path_to_uri(not_repo)}, -32803, f"not a git repository: {not_repo}"),
            ({"repository": path_to_uri(clean)}, -32803, "nothing staged — stage changes or pass staged:false"),
            ({"style": "haiku"}, -32602, "style"),
            # checked as a workspace folder's URI is (uris.folder_uri_path): a host was dropped (/share was
            # described), a NUL reached git as "not a git repository"
            ({"repository": "file://server/share"}, -32602, "a host 'server' before its path"),
            ({"repository": "file:///x%00y"}, -32602, "repository: 'file:///x%00y': a NUL character in its path"),
        ]:
            with pytest.raises(JsonRpcException) as err:
                await request(client, "rag/commitMessage", params)
            assert err.value.code == code and text in str(err.value)
        assert len(llm_server.requests) == asked  # failed requests never reached the model
        llm_server.queue("core: still answering")
        assert (await request(client, "rag/commitMessage", {})).message == "core: still answering"
    finally:
        await client.shutdown_session()


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in git_env().items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    return ragls(env, "commit-msg", *args, cwd=cwd, check=False)  # in-process (clikit)


def test_commit_msg_cli_without_a_model(tmp_path):
    repo = make_repo(tmp_path / "repo", {"docs/guide.md": "# Guide\n", "src/core.py": CORE_PY})
    out = run_cli(cwd=repo)
    assert out.returncode == 1 and "nothing staged" in out.stderr and out.stdout == ""
    (repo / "docs/guide.md").write_text("# Guide\n\nMore.\n", encoding="utf-8")
    git(repo, "add", ".")
    (repo / "src/core.py").write_text(CORE_PY + "# unstaged\n", encoding="utf-8")
    out = run_cli(cwd=repo)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "docs: update guide.md\n"
    out = run_cli(str(repo), "--all", "--style", "plain", cwd=tmp_path)
    assert out.stdout.startswith("Update guide.md and core.py\n"), out.stderr
    (repo / "docs/faq.md").write_text("# FAQ\n", encoding="utf-8")  # one file changed, another added: both said
    git(repo, "add", "docs/faq.md")
    assert run_cli(cwd=repo).stdout == "docs: update guide.md, add faq.md\n"
    out = run_cli(str(tmp_path), cwd=tmp_path)
    assert out.returncode == 1 and f"not a git repository: {tmp_path}" in out.stderr


PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"


def test_commit_msg_prompt_carries_no_secret(tmp_path, llm_server):
    """A staged `.env` is named but never shown, and a key pasted into a staged file reaches the model masked (the
    indexer's masker): `ragls commit-msg` on a real repository, the prompt recorded by the loopback LLM server."""
    repo = make_repo(tmp_path / "repo", {"README.md": "# App\n"})
    (repo / ".env").write_text("OPENAI_API_KEY=sk-proj-Q3mZ8vT1kLw0pR7yXc5bN2hJ\nDB_PASSWORD=hunter22\n")
    (repo / "settings.py").write_text('AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ3mKEY99"\n'
                                      'DATABASE_URL = "postgres://app:s3cretpw@db/app"\nDEBUG = False\n')
    (repo / "deploy.md").write_text(f"Deploy key:\n\n-----BEGIN PRIVATE KEY-----\n{PEM_BODY}\n-----END PRIVATE KEY-----\n"
                                    "Rotate it yearly.\n")
    git(repo, "add", "-f", ".env", "settings.py", "deploy.md")
    (repo / "ragls.toml").write_text(f'[generation]\nbackend = "openai"\nbase_url = "{llm_server.openai_url}"\n'
                                     f'api_key_env = "{KEY_ENV}"\nmodel = "test-model"\nmax_retries = 0\n')
    env = {**git_env(), KEY_ENV: "sk-e2e", "RAGLS_OFFLINE": "1"}
    trusted = ragls(env, "trust", repo, check=False)  # in-process (clikit), as run_cli
    assert trusted.returncode == 0, trusted.stderr
    llm_server.queue("chore: add settings")
    out = ragls(env, "commit-msg", cwd=repo, check=False)
    assert out.returncode == 0 and out.stdout == "chore: add settings\n", out.stderr
    prompt = llm_server.requests[-1].last_user_text()
    assert "- secret file added: .env (content not shown)" in prompt and "+++ b/.env" not in prompt
    assert '+AWS_SECRET_ACCESS_KEY = "***************************************"' in prompt
    assert '+DATABASE_URL = "postgres://app:********@db/app"' in prompt and "+DEBUG = False" in prompt
    # a private key's body masked, each line's `+` kept (the body's and the END line's were masked too: session 62)
    assert (f"+-----BEGIN PRIVATE KEY-----\n+{'*' * len(PEM_BODY)}\n+-----END PRIVATE KEY-----\n+Rotate it yearly."
            in prompt)
    for secret in ("sk-proj-Q3mZ8vT1kLw0pR7yXc5bN2hJ", "hunter22", "wJalrXUtnFEMI", "s3cretpw", PEM_BODY):
        assert secret not in prompt


def test_commit_msg_without_a_model_calls_a_new_function_a_feature(tmp_path):
    """Without an LLM, a staged change that only adds a function to an existing code file is a `feat`, not a
    `fix`; changing an existing line stays a `fix`, and so does adding lines that define nothing. The subject names
    the function added or changed; a line outside any function leaves the file's name alone."""
    repo = make_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a + b\n"})
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
                                  encoding="utf-8")
    git(repo, "add", ".")
    out = run_cli(cwd=repo)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "feat: add sub() to calc.py\n", out.stdout  # the subject names it (commit/topics.py)
    git(repo, "commit", "-q", "-m", "sub")
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return a - b\n",
                                  encoding="utf-8")
    git(repo, "add", ".")
    assert run_cli(cwd=repo).stdout == "fix: update add() in calc.py\n"
    git(repo, "reset", "-q", "--hard")
    (repo / "calc.py").write_text((repo / "calc.py").read_text(encoding="utf-8") + "\nPRECISION = 2\n",
                                  encoding="utf-8")
    git(repo, "add", ".")
    assert run_cli(cwd=repo).stdout.startswith("fix: update calc.py\n")
