"""rag/status lists at most `status.SKIPPED_LISTED` files left out per folder and counts the rest (`skippedMore`): a
folder of 20,000 empty files made a 1.8 MB status reply that both clients listed whole. Real RagWorkspace and
manifest (no embedding model); the wire as the server sends it, MCP index_status and `ragls status`'s lines."""

from __future__ import annotations

import json

from ragls.answer.agent_tools import status_result
from ragls.lsp.wire import to_wire_status
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.status import SKIPPED_LISTED


def test_status_lists_the_first_skipped_files_and_counts_the_rest(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nThe walrus eats clams at low tide.\n")
    for i in range(SKIPPED_LISTED + 7):
        (folder / f"blob{i:03}.md").write_bytes(b"x\0\0\0y")  # binary: skipped with its reason
    ws = RagWorkspace([folder], [{"index": {"path": str(tmp_path / "index")}}])
    try:
        ws.indexes[0].sync(embed=False)
        wire = to_wire_status(ws.status())["folders"][0]
        assert len(wire["skipped"]) == SKIPPED_LISTED
        assert wire["skipped"][0] == {"path": "blob000.md", "reason": wire["skipped"][0]["reason"]}
        assert "binary" in wire["skipped"][0]["reason"]
        assert wire["skippedMore"] == 7
        text, data = status_result(ws, "this process (ragls mcp)")
        assert len(data["folders"][0]["skipped"]) == SKIPPED_LISTED and data["folders"][0]["skipped_more"] == 7
        assert "... and 7 more files skipped" in text
    finally:
        ws.close()


def test_a_few_skipped_files_are_all_listed_without_a_count(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nThe walrus eats clams at low tide.\n")
    (folder / "blob.md").write_bytes(b"x\0\0\0y")
    ws = RagWorkspace([folder], [{"index": {"path": str(tmp_path / "index")}}])
    try:
        ws.indexes[0].sync(embed=False)
        wire = to_wire_status(ws.status())["folders"][0]
        assert [s["path"] for s in wire["skipped"]] == ["blob.md"] and "skippedMore" not in wire
    finally:
        ws.close()


def test_ragls_status_all_lists_every_skipped_file(tmp_path, capsys):
    """`ragls status` prints rag/status's first SKIPPED_LISTED skipped files and "... and N more files"; `--all`
    lists every one with its reason, read from the manifest (text and --json), and writes nothing."""
    from ragls.cli import app as cli

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text("# Guide\n\nThe walrus eats clams at low tide.\n")
    for i in range(SKIPPED_LISTED + 7):
        (folder / f"blob{i:03}.md").write_bytes(b"x\0\0\0y")
    index = tmp_path / "index"
    ws = RagWorkspace([folder], [{"index": {"path": str(index)}}])
    try:
        ws.indexes[0].sync(embed=False)
    finally:
        ws.close()
    common = ["status", str(folder), "--index-path", str(index), "--no-server"]
    assert cli.main(common) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("skipped:")]
    assert len(lines) == SKIPPED_LISTED + 1
    assert lines[-1] == "skipped:     ... and 7 more files (`ragls status --all` lists them)"
    before = {p: p.stat().st_mtime_ns for p in index.rglob("*") if p.is_file()}
    assert cli.main([*common, "--all"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("skipped:")]
    assert [line.split(":")[1].strip() for line in lines] == [f"blob{i:03}.md" for i in range(SKIPPED_LISTED + 7)]
    assert all("binary" in line for line in lines)
    assert cli.main([*common, "--all", "--json"]) == 0
    [data] = json.loads(capsys.readouterr().out)["folders"]
    assert len(data["skipped"]) == SKIPPED_LISTED + 7 and "skippedMore" not in data
    assert data["skipped"][-1]["path"] == f"blob{SKIPPED_LISTED + 6:03}.md"
    assert {p: p.stat().st_mtime_ns for p in index.rglob("*") if p.is_file()} == before
