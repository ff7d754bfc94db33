"""The command line's indexing progress (cli/common.py `Progress`) on a real folder index with the offline model,
when stderr is no terminal (a log, a pipe, a coding agent reading the output)."""

from __future__ import annotations

import pytest
from offline_index import indexed_folder
from ragls.cli.common import Progress
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace


def test_an_unchanged_folder_of_200_files_prints_no_scan_line(tmp_path, capsys):
    """Each `ragls ask` checks the folder for changed files first. On an unchanged folder of 204 pages it printed
    "ragls: files 200/204" (the check reported every 200th file and not its end), which read as 4 files missing;
    a quick check now prints nothing, and indexing a changed file still prints its line."""
    if offline_model_dir() is None:
        pytest.skip("needs ragls[offline]")
    # one text for every page: the embedding cache embeds it once (its key is the text), so the index is quick
    files = {f"page{i:03}.md": "# A page\n\nOne topic of the guide.\n" for i in range(204)}
    folder = indexed_folder(tmp_path, files, filler=False)
    capsys.readouterr()
    ws = RagWorkspace([folder], on_progress=Progress())
    try:
        ws.index()
        assert "ragls:" not in capsys.readouterr().err
        (folder / "page007.md").write_text("# Page 7\n\nTopic number seven, rewritten.\n")
        ws.index()
        assert "ragls: files 1/1" in capsys.readouterr().err
    finally:
        ws.close()


def test_a_quick_check_at_the_end_of_a_long_run_prints_nothing(capsys):
    """The check for changed files is timed from its own start (its 0/N report), not from the command's: after a
    first `ask` had embedded for minutes, the check that followed printed "ragls: files checked for changes 9/9"
    under the answer."""
    import time

    progress = Progress()
    progress.tty = False
    for name in ("started", "scan_started", "last_log"):  # the run so far took 100 s
        setattr(progress, name, time.monotonic() - 100)
    progress("scan", 0, 9, "0/9 files scanned")
    progress("scan", 9, 9, "9/9 files scanned")
    assert "ragls:" not in capsys.readouterr().err
