"""What an editor sees while `ragls serve` starts (bench/history/session-52.md "What a newcomer and an editor wait for"):
`initialize` is answered before the settings, the stores and the workspace are imported, and while the embedding
model loads every progress message says so — also the offline fallback's note, which used to replace it (VS Code and
Neovim show "loading model" on the prefix, docs/protocol.md). A real LSP client over stdio; the offline MiniLM."""

from __future__ import annotations

import subprocess
import sys

import pytest
from lspkit import copy_docs, lsp_server, server_env, wait_indexed

LOADING = "loading the embedding model"


def test_the_server_module_imports_only_what_initialize_needs():
    # everything `ragls serve` imports before it reads `initialize` (the CLI, then lsp/server.py)
    probe = ("import sys, ragls.cli.app, ragls.lsp.server\n"
             "print(sorted(m for m in ('pydantic', 'ragls.config.settings', 'ragls.workspace.rag_workspace', "
             "'ragls.lsp.handlers', 'ragls.workspace.watch', 'lancedb', 'fastembed') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.asyncio
async def test_every_progress_message_says_the_model_loads_while_it_does(tmp_path):
    folder = copy_docs(tmp_path / "docs")
    async with lsp_server(folder, server_env(tmp_path / "cache"), {}) as client:
        await wait_indexed(client)
        messages = [getattr(v, "message", None) or "" for reports in client.progress_reports.values() for v in reports]
    assert messages[0] == "opening the index"  # the first thing the editor is told, once `initialized` arrives
    loading = messages.index(LOADING)
    # the vector pass's first message ("for meaning search 0/4 sections", workspace/watch.py) ends the loading
    done = next(i for i, m in enumerate(messages) if m.startswith("for meaning search"))
    fallback = [m for m in messages[loading:done] if "bundled offline embedding model" in m]
    assert fallback, messages  # ragls's default model cannot be downloaded here: the bundled MiniLM loads
    assert all(m.startswith(LOADING) for m in messages[loading:done]), messages[loading:done]
