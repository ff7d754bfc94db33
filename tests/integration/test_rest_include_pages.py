"""reST `.. include::` resolved into the including page (sources/rest_include.py, index/inclusion.py), on real
indexes (tantivy, SQLite, LanceDB with the offline model) over real files: the included text is found as part of
the page (its section titles, its chunks) and cited at the lines of the file that holds it; a fragment some page
includes is no hit of its own, one nobody includes is; an edit of the fragment re-indexes the page (the file
watcher); an include out of the folder, through a link, of a secret or an ignored file reads nothing."""

from __future__ import annotations

import os
import threading
import time

import pytest
from offline_index import extractive_workspace, file_lines, line_of, offline_toml
from ragls.config.settings import build_settings
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.workspace.file_watcher import FileWatcher
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.watch import IndexWorker

PAGE = """.. include:: prune.rst.inc

Examples
~~~~~~~~

Do not forget to run ``tool compact`` after prune to actually free the quokka storage space.
"""

FRAGMENT = """.. _tool_prune:

tool prune
----------

Prune the archives of a repository according to the specified retention rules.

Options
    ``--keep-daily N``
        number of daily archives to keep in the wombat series
    ``--keep-weekly N``
        number of weekly archives to keep
"""

LONELY = """Lonely fragment
---------------

Nobody includes this page about the platypus migration.
"""

FILES = {"conf.py": "project = 'tool'\n", "usage/prune.rst": PAGE, "usage/prune.rst.inc": FRAGMENT,
         "usage/lonely.rst.inc": LONELY}


def test_included_text_is_part_of_the_page_and_cited_where_it_lives(tmp_path):
    with extractive_workspace(tmp_path, FILES) as ws:
        hits = ws.retrieve("how many daily archives of the wombat series to keep", top_k=5)
        top = hits[0].chunk
        assert (top.path, top.included_in) == ("usage/prune.rst.inc", "usage/prune.rst"), hits
        first, last = file_lines(top.span)  # the fragment's own lines, which the editor opens
        assert first <= line_of(FRAGMENT, "wombat series") <= last <= len(FRAGMENT.splitlines())
        assert top.text.startswith(".. _tool_prune:") and "wombat series" in top.text
        # the page's own text after the include: its lines in the page file, titled as on the built page
        own = next(h.chunk for h in ws.retrieve("free the quokka storage space after prune", top_k=5)
                   if "quokka" in h.chunk.text)
        assert (own.path, own.included_in, own.title) == ("usage/prune.rst", "", "Examples")
        assert file_lines(own.span)[0] <= line_of(PAGE, "quokka") <= file_lines(own.span)[1]
        assert ".. include::" not in own.text
        # the fragment is found once, as part of the page; one that nobody includes stays a document of its own
        wombat = [h.chunk for h in ws.retrieve("wombat series daily archives", top_k=20) if "wombat" in h.chunk.text]
        assert [(c.path, c.included_in) for c in wombat] == [("usage/prune.rst.inc", "usage/prune.rst")]
        lonely = ws.retrieve("platypus migration", top_k=3)[0].chunk
        assert (lonely.path, lonely.included_in) == ("usage/lonely.rst.inc", "")
        answer = ws.ask("How many daily archives of the wombat series are kept?")
        assert [h.chunk.path for _, h in answer.sources][:1] == ["usage/prune.rst.inc"], answer.sources


def _text_index(tmp_path, files: dict[str, str], **sources) -> FolderIndex:
    folder = tmp_path / "project" / "docs"
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    settings = build_settings({"index": {"path": str(tmp_path / "index")}, "sources": sources})[0]
    index = FolderIndex(folder, settings, Embedder(settings.embedding))
    index.sync(embed=False)
    return index


def _texts(index: FolderIndex) -> dict[tuple[str, str], str]:
    return {(c.path, c.included_in): c.text for batch in index.manifest.iter_chunks() for c in batch}


def test_an_include_reads_nothing_the_index_would_not(tmp_path):
    """Out of the folder (`..`, an absolute path above the source directory, a link out), a secret file, a file
    the folder's .gitignore ignores, one `sources.exclude` names, version control data: the directive line stays,
    nothing of the file reaches the index."""
    outside = tmp_path / "project" / "notes.rst"
    outside.parent.mkdir(parents=True)
    outside.write_text("OUTSIDE_MARKER kept out\n")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "private.rst.inc").write_text("LINKED_MARKER kept out\n")
    page = "Page\n====\n\n" + "".join(f".. include:: {t}\n\n" for t in (
        "../notes.rst", "/../notes.rst", "linked.rst.inc", ".env", "ignored.rst.inc", "drafts/plan.rst.inc",
        ".git/description.rst", "kept.rst.inc"))
    files = {"conf.py": "project = 'x'\n", "index.rst": page, ".env": "ENV_MARKER=1\n", ".gitignore": "ignored.rst.inc\n",
             "ignored.rst.inc": "IGNORED_MARKER kept out\n", "drafts/plan.rst.inc": "EXCLUDED_MARKER kept out\n",
             ".git/description.rst": "GIT_MARKER kept out\n", "kept.rst.inc": "Kept fragment text.\n"}
    folder = tmp_path / "project" / "docs"
    folder.mkdir(parents=True)
    os.symlink(tmp_path / "home" / "private.rst.inc", folder / "linked.rst.inc")
    index = _text_index(tmp_path, files, exclude=["drafts/**"])
    try:
        texts = _texts(index)
        everything = "\n".join(texts.values())
        for marker in ("OUTSIDE", "LINKED", "ENV", "IGNORED", "EXCLUDED", "GIT"):
            assert f"{marker}_MARKER" not in everything, marker
        assert texts[("kept.rst.inc", "index.rst")] == "Kept fragment text."  # the one allowed include
        assert ".. include:: ../notes.rst" in texts[("index.rst", "")]  # left as written
        assert index.manifest.includers(read=True) == {"kept.rst.inc": {"index.rst"}}
    finally:
        index.close()


def test_nested_includes_options_and_line_numbers(tmp_path):
    """A fragment's own include is relative to the fragment; `:start-after:` / `:end-before:` cut whole lines; a
    cycle is left as written; every chunk's lines are its file's."""
    page = "Guide\n=====\n\nIntro of the guide page.\n\n.. include:: parts/a.rst.inc\n   :start-after: .. start\n\nOutro of the guide page.\n"
    part_a = "Hidden preamble\n.. start\n\nPart A\n------\n\nAlpha text of part a.\n\n.. include:: b.rst.inc\n"
    part_b = "Part B\n~~~~~~\n\nBravo text of part b.\n\n.. include:: ../guide.rst\n"
    index = _text_index(tmp_path, {"conf.py": "", "guide.rst": page, "parts/a.rst.inc": part_a, "parts/b.rst.inc": part_b},
                        )
    try:
        chunks = [c for batch in index.manifest.iter_chunks() for c in batch]
        where = {c.text.split("\n")[0]: (c.path, c.included_in, file_lines(c.span), c.title) for c in chunks}
        assert where["Part A"] == ("parts/a.rst.inc", "guide.rst", (4, 7), "Part A")
        assert where["Part B"][:3] == ("parts/b.rst.inc", "guide.rst", (1, 6))
        assert where["Outro of the guide page."][:3] == ("guide.rst", "", (9, 9))
        assert not any("Hidden preamble" in c.text for c in chunks)
        assert index.manifest.includers(read=True) == {"parts/a.rst.inc": {"guide.rst"},
                                                       "parts/b.rst.inc": {"guide.rst"}}
    finally:
        index.close()


@pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")
def test_editing_a_fragment_re_indexes_the_page(tmp_path):
    """The file watcher reports the fragment; the page that includes it is read again (its chunks are the page's);
    a page that stops including it makes it a document of its own again."""
    folder = tmp_path / "ws"
    for rel, text in FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    (folder / "ragls.toml").write_text(offline_toml(tmp_path / "index", sentence_pass=True))
    trust_folder(folder)
    ws = RagWorkspace([folder])
    ws.index()
    worker = IndexWorker(ws, debounce_ms=100)
    worker.start()
    watcher = FileWatcher(worker, ws.folders)
    reported = threading.Event()
    notify = worker.notify
    worker.notify = lambda paths: (reported.set(), notify(paths))[1]
    watcher.start()

    def bm25(query: str) -> list[tuple[str, str]]:
        return [(h.chunk.path, h.chunk.included_in) for h in ws.retrieve(query, top_k=5, signals=("bm25",))]

    def eventually(check, what: str):
        deadline = time.monotonic() + 120
        while not check():
            assert time.monotonic() < deadline, what
            time.sleep(0.1)

    try:
        probe = folder / "watch-probe.tmp"
        while not reported.wait(0.2):  # the watch is set up once it reports a change
            probe.write_text(str(time.monotonic()))
        probe.unlink()
        (folder / "usage" / "prune.rst.inc").write_text(FRAGMENT.replace("wombat", "echidna"))
        eventually(lambda: bm25("echidna") == [("usage/prune.rst.inc", "usage/prune.rst")], "fragment edit")
        assert bm25("wombat") == []
        (folder / "usage" / "prune.rst").write_text(PAGE.replace(".. include:: prune.rst.inc\n", ""))
        eventually(lambda: bm25("echidna") == [("usage/prune.rst.inc", "")], "the include removed")
    finally:
        watcher.stop()
        worker.stop()
        ws.close()
