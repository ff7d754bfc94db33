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


def test_a_terminal_bar_shows_no_rate_in_its_first_second(tmp_path, monkeypatch):
    """On a terminal, a phase that reports its first batch (or all of its files) within microseconds of its start
    showed tqdm's quotient of the two: a first index of Prometheus' docs printed "files: 27/27 [00:00<00:00,
    1272429.30files/s]" and "32/368 [00:00<00:00, 2982616.18chunks/s]". A bar shows no rate (nor time left) before
    it has run `RATE_AFTER_S`, so every "[00:00<...]" it prints says "?files/s" or "?sections/s"."""
    import io
    import re
    import sys

    if offline_model_dir() is None:
        pytest.skip("needs ragls[offline]")
    folder = indexed_folder(tmp_path, {"intro.md": "# Intro\n\nThe guide starts here.\n"}, filler=False)
    for i in range(12):  # twelve new pages, indexed in one run below: files, then their first vectors
        (folder / f"page{i:02}.md").write_text(f"# Page {i}\n\nTopic number {i} of the guide, in its own words.\n")
    screen = io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    progress = Progress()
    progress.tty = True  # as on a terminal: tqdm bars
    ws = RagWorkspace([folder], on_progress=progress)
    try:
        ws.index()
    finally:
        progress.close()
        ws.close()
    shown = re.findall(r"(\d+)/(\d+) \[(\d\d:\d\d)<[^,\]]*, ([^\]]*)\]", screen.getvalue())
    assert any(done == total == "12" for done, total, _, _ in shown), screen.getvalue()  # the files bar was drawn
    quick = [(done, rate) for done, _, elapsed, rate in shown if elapsed == "00:00"]
    assert quick and all(rate.startswith("?") for _, rate in quick), quick
