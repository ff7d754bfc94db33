"""What rag/status `pending` and MCP index_status's "files queued" count (`RagWorkspace.files_queued`): the files
the indexer really has still to index. A fresh server's start-up scan of an indexed folder checks every file but
queues only what changed — MCP index_status said "16 files queued … still being built" of a complete index. Real
RagWorkspace, manifest and IndexWorker (not started: its queue is driven by hand); no embedding model."""

from __future__ import annotations

from ragls.answer.agent_tools import index_progress
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.watch import IndexWorker


def docs(tmp_path, n=5):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(n):
        (folder / f"page{i}.md").write_text(f"# Page {i}\n\nThe walrus number {i} eats clams at low tide.\n")
    return folder


def test_a_never_indexed_folder_counts_every_file(tmp_path):
    folder = docs(tmp_path)
    ws = RagWorkspace([folder], [{"index": {"path": str(tmp_path / "index")}}])
    try:
        worker = IndexWorker(ws)
        worker.request_sync()  # the start-up scan
        assert ws.files_queued() == {0: 1}  # every known file, at least 1: nothing is indexed yet
        assert index_progress(ws)["files_queued"] == 1
    finally:
        ws.close()


def test_the_start_up_scan_of_an_indexed_folder_queues_only_what_changed(tmp_path):
    folder = docs(tmp_path)
    layer = [{"index": {"path": str(tmp_path / "index")}}]
    ws = RagWorkspace([folder], layer)
    try:
        ws.indexes[0].sync(embed=False)
    finally:
        ws.close()
    (folder / "page1.md").write_text("# Page 1\n\nThe walrus now eats mussels.\n")
    (folder / "page3.md").unlink()
    ws = RagWorkspace([folder], layer)  # a fresh server on it
    try:
        worker = IndexWorker(ws)
        worker.request_sync()
        idx = ws.indexes[0]
        assert ws.files_queued() == {}  # not 5: before its scan nothing is known to have changed
        seen = []  # files_queued() each time the sync writes to the stores
        write_text = idx._write_text

        def observed(*args, **kwargs):
            seen.append(ws.files_queued())
            return write_text(*args, **kwargs)

        idx._write_text = observed
        ws.syncing = {0: 0}  # as the worker marks the sync in progress (`_next`)
        report = idx.sync(embed=False)
        assert sorted(report.indexed) == ["page1.md"] and report.deleted == ["page3.md"]
        # its scan found 2 changes: the deleted file is written first, then the changed one
        assert seen == [{0: 2}, {0: 1}]
        assert idx.sync_left is None and ws.files_queued() == {}
    finally:
        ws.close()
