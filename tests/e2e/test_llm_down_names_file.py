"""The LLM down, named in the user's own ragls.toml (`$RAGLS_CONFIG_DIR/ragls.toml`, `~/.config/ragls/ragls.toml` on
Linux): the error said "Check generation.base_url in ragls.toml or settings.generation.base_url in
require("ragls").setup()" (Neovim) or "Check generation.base_url" (the CLI), so the user searched the folder for a
ragls.toml it did not have (clients68's lead). It names the file that set the URL (config/setting_names.py
`setting_files`), on both fronts; a setting the editor sent is still named as the editor's. Real components: the
loopback LLM server of tests/, stopped, a real index, the CLI in this process and the server over stdio."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from clikit import ragls
from llm_server import LLMServer
from lspkit import SERVER_COMMAND, copy_docs, init_params, request, server_env, wait_indexed
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient
from ragls.config.setting_names import name_setting_files, name_settings, setting_files

ROOT = Path(tempfile.mkdtemp(prefix="ragls-e2e-llm-down-"))
CONFIG = ROOT / "config"
ENV = {**server_env(ROOT / "cache"), "RAGLS_CONFIG_DIR": str(CONFIG), "RAGLS_DATA_DIR": str(ROOT / "data"),
       "RAGLS_TEST_LLM_KEY": "sk-test"}
LLM = LLMServer().start()
LLM.stop()  # the LLM is down: its port refuses connections
CONFIG.mkdir()
(CONFIG / "ragls.toml").write_text(f'[generation]\nbackend = "openai"\nbase_url = "{LLM.openai_url}"\n'
                                   'model = "test-model"\napi_key_env = "RAGLS_TEST_LLM_KEY"\nmax_retries = 0\n'
                                   'timeout_s = 5\n')
USER_FILE = str(CONFIG / "ragls.toml")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The docs in a git repository with a change staged, for a commit message."""
    docs = copy_docs(tmp_path_factory.mktemp("down") / "docs")
    git = ["git", "-C", str(docs), "-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "init"]):
        subprocess.run([*git, *args], check=True, capture_output=True, env={**ENV, "GIT_CONFIG_GLOBAL": "/dev/null"})
    (docs / "guide" / "retries.md").write_text((docs / "guide" / "retries.md").read_text() + "\nRetries back off.\n")
    subprocess.run([*git, "add", "."], check=True, capture_output=True, env={**ENV, "GIT_CONFIG_GLOBAL": "/dev/null"})
    return docs


def test_the_cli_names_the_users_file_when_the_llm_is_down(workspace):
    out = ragls(ENV, "ask", workspace, "How do I disable retries?", "--no-server", check=False)
    assert out.returncode == 1
    assert f"is the server running? Check generation.base_url in {USER_FILE}" in out.stderr, out.stderr
    assert "in ragls.toml" not in out.stderr
    out = ragls(ENV, "commit-msg", workspace, check=False)
    assert out.returncode == 1
    assert f"Check generation.base_url in {USER_FILE}" in out.stderr, out.stderr


@pytest_lsp.fixture(scope="module", loop_scope="module",
                    config=ClientServerConfig(server_command=SERVER_COMMAND, server_env=ENV))
async def client(lsp_client: LanguageClient, workspace):
    await lsp_client.initialize_session(init_params([workspace], {}, client_name="Neovim"))
    await wait_indexed(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_rag_ask_names_the_users_file_when_the_llm_is_down(client):
    res = await request(client, "rag/ask", {"question": "How do I disable retries?"})
    message = res["error"]["message"]
    assert f"is the server running? Check generation.base_url in {USER_FILE}" in message, message
    assert "ragls.toml or" not in message and "setup()" not in message and res["model"] == "extractive"


@pytest.mark.asyncio(loop_scope="module")
async def test_rag_commit_message_names_the_users_file_when_the_llm_is_down(client, workspace):
    from ragls.core.uris import path_to_uri

    with pytest.raises(JsonRpcException) as err:
        await request(client, "rag/commitMessage", {"repository": path_to_uri(workspace)})
    assert err.value.code == -32803 and f"Check generation.base_url in {USER_FILE}" in str(err.value), err.value
    assert "ragls.toml or" not in str(err.value)


def test_a_setting_the_editor_sent_is_named_by_the_editor_not_by_a_file(tmp_path):
    """A later layer (the editor's settings) overrides the file's value: no file is named for it, and the editor
    front names the editor's setting (`name_settings`); a folder's trusted file that sets it is named instead."""
    user, folder = tmp_path / "user.toml", tmp_path / "docs" / "ragls.toml"
    files = setting_files([(user, {"generation": {"base_url": "http://127.0.0.1:1"}}),
                           (folder, {"generation": {"model": "m"}})], [{"generation": {"baseUrl": "http://x"}}])
    assert files == {"generation.model": folder}
    message = "is the server running? Check generation.base_url"
    assert name_setting_files(message, files) == message
    assert name_settings(message, {"generation": {"baseUrl": "http://x"}}, "Neovim") == (
        'is the server running? Check settings.generation.base_url in require("ragls").setup()')
    files = setting_files([(user, {"generation": {"base_url": "u"}}), (folder, {"generation": {"baseUrl": "f"}})])
    named = name_setting_files(message, files)
    assert named == f"{message} in {folder}"
    assert name_settings(named, {}, "Neovim") == named  # the editor front leaves a name with its file as it is
