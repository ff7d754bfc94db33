"""What an editor sees while `ragls serve` starts (bench/history/session-52.md "What a newcomer and an editor wait for"):
`initialize` is answered before the settings, the stores and the workspace are imported, and while the embedding
model loads every progress message says so — also the offline fallback's note, which used to replace it (VS Code and
Neovim show "loading model" on the prefix, docs/protocol.md). A real LSP client over stdio; the offline MiniLM."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from lspkit import copy_docs, lsp_server, server_env, wait_indexed
from lsprotocol import types
from ragls.config.trust import trust as trust_folder

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


def _many_sections(folder):
    """A folder of 40 short sections and 6 long ones (several embedding windows each), so each vector step of a
    first index (first vectors in batches of 32, long sections' windows, answer sentences) takes more than one
    batch. Written for this test: words of no fixture."""
    folder.mkdir()
    for f in range(4):
        parts = [f"# Topic {f}\n"]
        for s in range(10):
            parts.append(f"## Setting {f}-{s}\n\nThe option number {s} of topic {f} sets how often the worker "
                         f"retries a failed job. It defaults to {s + 2} tries. Raise it on a slow network.\n")
        (folder / f"topic{f}.md").write_text("\n".join(parts), encoding="utf-8")
    for f in range(6):
        body = " ".join(f"Paragraph {k} of chapter {f} explains how the scheduler orders queued jobs by priority "
                        f"and age, and why a job waiting {k} minutes is promoted." for k in range(40))
        (folder / f"chapter{f}.md").write_text(f"# Chapter {f}\n\n{body}\n", encoding="utf-8")
    return folder


@pytest.mark.asyncio
async def test_a_first_index_reports_one_progress_that_reaches_100_percent_once(tmp_path):
    # session 66: the three vector steps each counted from 0 to 100 %, so the editor's bar started over twice
    folder = _many_sections(tmp_path / "docs")
    async with lsp_server(folder, server_env(tmp_path / "cache"), {}) as client:
        await wait_indexed(client)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 240
        while not any(isinstance(v, types.WorkDoneProgressEnd) for reports in client.progress_reports.values()
                      for v in reports) and loop.time() < deadline:
            await asyncio.sleep(0.2)
        tokens = list(client.progress_reports)
        first = client.progress_reports[tokens[0]]
    assert isinstance(first[-1], types.WorkDoneProgressEnd), first[-1]
    assert first[-1].message == "done"
    steps = [(v.message, v.percentage) for v in first[1:-1] if v.percentage is not None
             and v.message.startswith("for ")]
    messages = [m for m, _ in steps]
    percentages = [p for _, p in steps]
    assert percentages == sorted(percentages), steps  # never back to 0 at a new step
    assert percentages[0] < 10 and 50 < percentages[-1] < 100, steps
    # all three steps were reported, in order, each with its place among them
    assert any(m.startswith("for meaning search ") and m.endswith(", step 1 of 3") for m in messages), messages
    assert any(m.startswith("for meaning search in long sections ") and m.endswith(", step 2 of 3")
               for m in messages), messages
    assert any(m.startswith("for faster answers ") and m.endswith(", step 3 of 3") for m in messages), messages
    # session 67: each step weighed by its chunks gave step 1 a third of the bar, though the 6 long sections' other
    # windows (about 8 each) outnumber the 46 first vectors: the bar then crawled through step 2. Weighed by the
    # wordpieces each step embeds, step 2 starts well below a third and step 3 past half
    step2 = next(p for m, p in steps if m.endswith(", step 2 of 3"))
    step3 = next(p for m, p in steps if m.endswith(", step 3 of 3"))
    assert step2 < 25 and step3 > 50, steps


@pytest.mark.asyncio
async def test_two_folders_with_and_without_the_sentence_pass_count_their_own_steps(tmp_path):
    # session 66: the steps were 3 for every folder once any folder had the sentence pass, so a folder without it
    # said "step 1 of 3" and counted 2 of its 3 steps: the bar of such a workspace never came near 100 %
    with_pass = copy_docs(tmp_path / "docs")
    without = _many_sections(tmp_path / "notes")
    (without / "ragls.toml").write_text("[index]\nsentence_vectors = false\n", encoding="utf-8")
    trust_folder(without)  # the user trusts this test's own folder (ragls/config/trust.py)
    async with lsp_server([with_pass, without], server_env(tmp_path / "cache"), {}) as client:
        status = await wait_indexed(client)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 240
        while not any(isinstance(v, types.WorkDoneProgressEnd) for reports in client.progress_reports.values()
                      for v in reports) and loop.time() < deadline:
            await asyncio.sleep(0.2)
        first = client.progress_reports[next(iter(client.progress_reports))]
    chunks = {f["uri"].rstrip("/").rsplit("/", 1)[-1]: f["chunks"] for f in status["folders"]}
    n_with, n_without = chunks["docs"], chunks["notes"]
    assert n_with != n_without, chunks  # a message's "x/n" tells its folder
    assert isinstance(first[-1], types.WorkDoneProgressEnd), first[-1]
    steps = [(v.message, v.percentage) for v in first[1:-1] if v.percentage is not None
             and v.message.startswith("for ")]
    assert [p for _, p in steps] == sorted(p for _, p in steps), steps
    of_without = [m for m, _ in steps if f"/{n_without} " in m]
    of_with = [m for m, _ in steps if f"/{n_with} " in m]
    assert of_with and all(m.endswith(" of 3") for m in of_with), of_with
    assert of_without and all(m.endswith(" of 2") for m in of_without), of_without
    # the workspace's folders are embedded in order: the last report is the second folder's last batch of long
    # sections' windows, its percentage every step of the first folder and most of the second's (its steps weighed
    # by the wordpieces they embed: FolderIndex.vector_work_estimate), near the end of the bar
    message, percentage = steps[-1]
    assert message.startswith("for meaning search in long sections ") and message.endswith(", step 2 of 2"), steps
    assert 80 <= percentage < 100, steps
