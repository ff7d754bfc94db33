"""A title-less Sphinx `:ref:` whose label is first written in a page added while the server runs: the real server
(`python -m ragls serve`) over stdio, its real watcher, index and the offline model, the extractive backend. Before,
the answer walked the folder for labels once per process, on the first answer that needed one (0.3 s for Python
Semantic Release's docs, 1.5 s for Celery's, on the request), and a label of a page added later read as the label
until the server restarted; the index now keeps each page's labels (index/rest_labels.py)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from lspkit import lsp_server, request, server_env, wait_indexed

pytestmark = pytest.mark.asyncio(loop_scope="module")

UPGRADE = """Upgrading the sync daemon
========================

The ``--legacy-queue`` flag was removed in version 4. To keep failed uploads and retry them later, turn on the
:ref:`daemon-retry-queue` and raise the :ref:`daemon-upload-limit` in the daemon's settings file instead.
"""

SETTINGS = """Daemon settings
===============

.. _daemon-retry-queue:

Retry queue
-----------

Failed uploads wait in the retry queue and are sent again every ten minutes.

.. _daemon-upload-limit:

Upload size limit
-----------------

The largest file the daemon uploads, in megabytes (default 512).
"""

QUESTION = {"question": "The --legacy-queue flag was removed. How do I keep failed uploads and retry them later?"}


async def test_a_label_of_a_page_added_while_serving_reads_as_its_title(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "upgrading.rst").write_text(UPGRADE, encoding="utf-8")
    env = server_env(Path(tempfile.mkdtemp(prefix="ragls-e2e-ref-titles-")))
    async with lsp_server(folder, env, {"generation": {"backend": "none"}}) as lsp:
        await wait_indexed(lsp, files=1)
        res = await request(lsp, "rag/ask", QUESTION)
        assert "turn on the daemon-retry-queue and raise the daemon-upload-limit" in res["answer"], res["answer"]
        (folder / "settings.rst").write_text(SETTINGS, encoding="utf-8")
        await wait_indexed(lsp, files=2)
        res = await request(lsp, "rag/ask", QUESTION)
        assert "turn on the Retry queue and raise the Upload size limit" in res["answer"], res["answer"]
