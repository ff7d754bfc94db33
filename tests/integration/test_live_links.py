"""The watcher on a real index (IndexWorker + FileWatcher with watchfiles, tantivy, SQLite; BM25 signal):
symlinked files keep one copy under the real name and follow their target's edits; `.git/info/exclude` changes
apply without a restart; only the directories the walk enters are watched (inotify watches counted in /proc), new and
renamed ones too."""

from __future__ import annotations

import glob
import subprocess
import threading
import time

import pytest
from offline_index import offline_toml
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.file_watcher import FileWatcher
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.watch import IndexWorker

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")


# The watcher's report and the worker's re-index (debounce, then embedding) on a loaded machine; waits return as soon
# as the state is reached.
WAIT_S = 120.0


def eventually(check, what: str, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"{what} not seen within {timeout} s (last: {last!r})")


@pytest.fixture
def live(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    started = []

    def start(more: str = ""):
        (folder / "ragls.toml").write_text(offline_toml(tmp_path / "index", more, sentence_pass=True))
        trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
        ws = RagWorkspace([folder])
        ws.index()  # loads the model now: the worker would otherwise load it before the first edit is handled
        worker = IndexWorker(ws, debounce_ms=100)
        worker.start()
        watcher = FileWatcher(worker, ws.folders)
        # The watch is set up once it reports a change: observe the worker's notify and touch a probe file (not
        # matched by sources.include) until the first report arrives.
        reported = threading.Event()
        notify = worker.notify

        def observed(paths):
            reported.set()
            return notify(paths)

        worker.notify = observed
        watcher.start()
        started.append((ws, worker, watcher))
        probe = folder / "watch-probe.tmp"
        deadline = time.monotonic() + WAIT_S
        while not reported.wait(0.2):
            probe.write_text(str(time.monotonic()))
            assert time.monotonic() < deadline, "the file watcher never reported a change"
        probe.unlink()
        return ws

    start.started = started  # (ws, worker, watcher) of each start, for a test that observes the watcher
    yield folder, start
    for ws, worker, watcher in started:
        watcher.stop()
        worker.stop()
        ws.close()


def bm25(ws, query: str) -> list[str]:
    return [h.chunk.path for h in ws.retrieve(query, top_k=5, signals=("bm25",))]


def test_symlinked_files_use_the_real_path_and_follow_target_edits(live):
    folder, start = live
    (folder / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    (folder / "latest.md").symlink_to(folder / "guide.md")
    vendored = folder / "node_modules" / "pkg"
    vendored.mkdir(parents=True)
    (vendored / "README.md").write_text("# Pkg\n\nThe package exports a walrus parser.\n")
    (folder / "pkg.md").symlink_to(vendored / "README.md")  # a target the includes do not index
    ws = start()
    assert bm25(ws, "puffin crossing") == ["guide.md"]  # one copy, the real name (not latest.md)
    assert bm25(ws, "walrus parser") == ["pkg.md"]

    (folder / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the gannet colony.\n")
    eventually(lambda: bm25(ws, "gannet colony") == ["guide.md"], "the edit of guide.md")
    assert bm25(ws, "puffin crossing") == []  # no alias keeps the old text

    (vendored / "README.md").write_text("# Pkg\n\nThe package exports a narwhal tokenizer.\n")
    eventually(lambda: bm25(ws, "narwhal tokenizer") == ["pkg.md"], "the edit of the symlink's target")
    assert bm25(ws, "walrus parser") == []


def test_git_info_exclude_changes_apply_without_restart(live):
    folder, start = live
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    (folder / "public.md").write_text("# Public\n\nThe lighthouse opens at dawn.\n")
    (folder / "drafts.md").write_text("# Drafts\n\nThe lighthouse keeper's secret pancake recipe.\n")
    ws = start()
    assert bm25(ws, "pancake recipe") == ["drafts.md"]
    exclude = folder / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text(exclude.read_text() + "\ndrafts.md\n" if exclude.exists() else "drafts.md\n")
    eventually(lambda: bm25(ws, "pancake recipe") == [], "drafts.md excluded by .git/info/exclude")
    assert bm25(ws, "lighthouse dawn") == ["public.md"]


def inotify_watches() -> int:
    """The inotify watches this process holds (Linux: one "inotify wd:" line per watch in /proc/self/fdinfo)."""
    count = 0
    for info in glob.glob("/proc/self/fdinfo/*"):
        try:
            with open(info) as lines:
                count += sum(line.startswith("inotify wd:") for line in lines)
        except OSError:
            pass  # an fd closed meanwhile
    return count


@pytest.mark.skipif(not glob.glob("/proc/self/fdinfo/*"), reason="needs Linux's /proc")
def test_only_the_directories_it_indexes_are_watched_new_and_renamed_ones_too(live):
    """A recursive watch of the folder put one inotify watch on each of node_modules' and a .gitignore'd build
    tree's 360 directories (a user's limit is often 8,192, shared with every tool); now only the folder and docs/
    are watched, and a directory made or renamed later is watched too: an edit of a file in it is indexed."""
    folder, start = live
    for i in range(120):
        (folder / "node_modules" / f"pkg{i}" / "lib").mkdir(parents=True)
    for i in range(120):
        (folder / "build" / f"out{i}").mkdir(parents=True)
    (folder / ".gitignore").write_text("build/\n")
    (folder / "docs").mkdir()
    (folder / "docs" / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    before = inotify_watches()
    ws = start()
    assert bm25(ws, "puffin crossing") == ["docs/guide.md"]
    assert inotify_watches() - before == 2  # the folder and docs/

    deeper = folder / "docs" / "new" / "deeper"
    deeper.mkdir(parents=True)
    (deeper / "notes.md").write_text("# Notes\n\nThe harbour master keeps the tide tables.\n")
    eventually(lambda: bm25(ws, "harbour master tide") == ["docs/new/deeper/notes.md"], "a file in a new directory")
    eventually(lambda: inotify_watches() - before == 4, "the new directories watched")
    (deeper / "notes.md").write_text("# Notes\n\nThe harbour master keeps the gannet colony.\n")  # its own watch
    eventually(lambda: bm25(ws, "gannet colony") == ["docs/new/deeper/notes.md"], "the edit in the new directory")

    (folder / "docs" / "new").rename(folder / "docs" / "moved")
    eventually(lambda: bm25(ws, "gannet colony") == ["docs/moved/deeper/notes.md"], "the renamed directory")
    (folder / "docs" / "moved" / "deeper" / "notes.md").write_text("# Notes\n\nThe walrus parser.\n")
    eventually(lambda: bm25(ws, "walrus parser") == ["docs/moved/deeper/notes.md"], "the edit after the rename")
    eventually(lambda: inotify_watches() - before == 4, "the renamed directories watched, the old ones not")
    assert bm25(ws, "gannet colony") == []


@pytest.mark.skipif(not glob.glob("/proc/self/fdinfo/*"), reason="needs Linux's /proc")
def test_directories_no_include_glob_reaches_are_not_watched(live):
    """`sources.include = ["docs/**/*.md"]` indexes nothing from src/: its 150 directories took 150 inotify watches
    (and the walk entered each); now only the folder and docs/ are watched, a directory made in src/ sets up no
    watch, one made in docs/ does and its file is indexed."""
    folder, start = live
    for i in range(150):
        (folder / "src" / f"mod{i}").mkdir(parents=True)
    (folder / "src" / "mod0" / "readme.md").write_text("# Module\n\nThe kestrel hovers over the verge.\n")
    (folder / "docs").mkdir()
    (folder / "docs" / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    before = inotify_watches()
    ws = start('[sources]\ninclude = ["docs/**/*.md"]\n')
    assert bm25(ws, "puffin crossing") == ["docs/guide.md"]
    assert bm25(ws, "kestrel hovers") == []
    assert inotify_watches() - before == 2  # the folder and docs/

    (folder / "src" / "mod150").mkdir()
    (folder / "docs" / "api").mkdir()
    (folder / "docs" / "api" / "ref.md").write_text("# Reference\n\nThe harbour master keeps the tide tables.\n")
    eventually(lambda: bm25(ws, "harbour master tide") == ["docs/api/ref.md"], "a file in a new docs/ directory")
    eventually(lambda: inotify_watches() - before == 3, "docs/api watched")
    time.sleep(1.0)
    assert inotify_watches() - before == 3  # src/mod150 not


def test_a_change_of_the_git_entry_sets_up_no_new_watch(live):
    """The folder's `.git` entry touched or chmod'ed (its own watch is on `.git/info`): each set the watch up again
    and rescanned the whole folder. Now no rescan is requested, and an edit after it is indexed as before."""
    folder, start = live
    (folder / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    ws = start()
    _, worker, _ = start.started[-1]
    syncs = []
    request_sync = worker.request_sync
    worker.request_sync = lambda: syncs.append(1) or request_sync()
    for mode in (0o755, 0o775, 0o755, 0o775, 0o755):
        (folder / ".git").chmod(mode)
        time.sleep(0.3)
    (folder / "guide.md").write_text("# Guide\n\nThe harbour master keeps the tide tables.\n")
    eventually(lambda: bm25(ws, "harbour master tide") == ["guide.md"], "the edit after the .git changes")
    assert syncs == []


def test_a_link_out_of_the_folder_is_skipped_and_never_served(live, tmp_path):
    folder, start = live
    private = tmp_path / "private"
    private.mkdir()
    (private / "credentials").write_text("[default]\naws_access_key_id = the osprey ledger account\n")
    (folder / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    (folder / "notes.md").write_text("# Notes\n\nThe harbour master keeps the tide tables.\n")
    (folder / "pw.md").symlink_to(private / "credentials")  # there before the start: the full scan skips it
    ws = start()

    def skipped() -> dict[str, str]:
        return dict(ws.status().folders[0].skipped)

    assert bm25(ws, "osprey ledger account") == []
    assert "outside the indexed folder" in skipped()["pw.md"]
    assert bm25(ws, "harbour master tide tables") == ["notes.md"]
    # an indexed file replaced by a link out of the folder leaves the index, and says why
    (folder / "notes.md").unlink()
    (folder / "notes.md").symlink_to(private / "credentials")
    eventually(lambda: bm25(ws, "harbour master tide tables") == [], "notes.md replaced by an outside link")
    eventually(lambda: "notes.md" in skipped(), "notes.md listed as skipped")
    assert "outside the indexed folder" in skipped()["notes.md"]
    assert bm25(ws, "osprey ledger account") == [] and ws.status().folders[0].files == 1
    assert all("osprey" not in h.chunk.text for h in ws.query("osprey ledger account", top_k=5).hits)


def test_a_watch_event_ends_the_remembered_verdict(tmp_path):
    """The hits' file verdicts are remembered between queries (`FileFilter.served`): the watcher's event on a file
    swapped for a link out of the folder ends it, before any re-index, so the next query never serves the file."""
    from ragls.core.ir import Chunk, LineSpan

    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "ragls.toml").write_text(f'[index]\npath = "{(tmp_path / "index").as_posix()}"\n')
    (folder / "notes.md").write_text("# Notes\n\nThe harbour master keeps the tide tables.\n")
    (tmp_path / "credentials").write_text("aws_access_key_id = the osprey ledger account\n")
    ws = RagWorkspace([folder])
    try:
        chunk = Chunk(id="c", path="notes.md", text="The harbour master keeps the tide tables.",
                      span=LineSpan(2, 0, 2, 41), text_hash="h", folder=str(ws.indexes[0].folder))
        assert ws.servable(chunk)
        (folder / "notes.md").unlink()
        (folder / "notes.md").symlink_to(tmp_path / "credentials")
        assert ws.servable(chunk)  # remembered: no event seen yet
        worker = IndexWorker(ws)  # not started: its notify only marks the file, nothing is re-indexed
        assert worker.notify([folder / "notes.md"]) == 1
        assert not ws.servable(chunk)
    finally:
        ws.close()


def test_a_change_made_while_the_watch_is_set_up_again_is_indexed(live):
    """A new directory sets the watch up again, and the folder is rescanned for what changed meanwhile. The scan was
    requested before the new watch was set: a file written after that scan and before the watch was active was
    neither scanned nor reported, and stayed unindexed (a `git checkout` writing many files at once, ci66d). Here
    the write happens in that window, after the worker went idle: it is indexed by the scan made once the new watch
    is set."""
    folder, start = live
    (folder / "docs").mkdir()
    (folder / "docs" / "guide.md").write_text("# Guide\n\nThe ferry timetable lists the puffin crossing.\n")
    ws = start()
    _, worker, watcher = start.started[-1]
    listing = watcher.watched_dirs
    late = folder / "docs" / "late.md"

    def watched_dirs_then_write():
        dirs = listing()
        if (folder / "docs" / "new").is_dir() and not late.exists():
            time.sleep(0.5)
            worker.idle.wait(WAIT_S)  # the scan requested before this listing is done
            late.write_text("# Late\n\nThe lighthouse keeper logs the storm petrel.\n")
        return dirs

    watcher.watched_dirs = watched_dirs_then_write
    (folder / "docs" / "new").mkdir()
    (folder / "docs" / "new" / "trigger.md").write_text("# Trigger\n\nThe cormorant roost.\n")
    eventually(lambda: bm25(ws, "cormorant roost") == ["docs/new/trigger.md"], "the file in the new directory")
    eventually(lambda: late.exists(), "the write in the window")
    eventually(lambda: bm25(ws, "storm petrel") == ["docs/late.md"], "the file written while the watch was set up")


def test_directories_gone_before_their_watch_are_all_left_out_at_once(tmp_path):
    """A watch of directories some of which were deleted (a folder removed or moved as its watch is set up) fails
    with watchfiles naming the first one gone; the next watch leaves out every directory gone, not only that one (one
    retry, not one a directory), and watches the others."""
    import watchfiles

    kept = [tmp_path / "a", tmp_path / "d"]
    for path in kept:
        path.mkdir()
    tried = [str(tmp_path / name) for name in ("a", "b", "c", "d")]  # b and c do not exist
    with pytest.raises(OSError) as failed:
        for _ in watchfiles.watch(*tried, stop_event=threading.Event(), recursive=False, yield_on_timeout=True,
                                  rust_timeout=100, ignore_permission_denied=False):
            break
    assert FileWatcher._fewer(failed.value, tried) == ([str(p) for p in kept], False)


@pytest.mark.parametrize("name", ['say "hi"', "two\nlines", "back\\slash", "tab\there"])
def test_a_gone_directory_whose_name_watchfiles_escapes_is_left_out(tmp_path, name):
    """watchfiles names the directory it could not watch as a Rust debug string ('about ["/x/say \\"hi\\""]'): its
    escapes are read back, so a directory gone with a quote, a newline, a backslash or a tab in its name is left out
    and the others watched, not a watcher failure (of which MAX_WATCH_RESTARTS stop it)."""
    import watchfiles

    (tmp_path / "a").mkdir()
    tried = [str(tmp_path / "a"), str(tmp_path / name)]  # the second does not exist
    with pytest.raises(OSError) as failed:
        for _ in watchfiles.watch(*tried, stop_event=threading.Event(), recursive=False, yield_on_timeout=True,
                                  rust_timeout=100, ignore_permission_denied=False):
            break
    assert FileWatcher._fewer(failed.value, tried) == ([str(tmp_path / "a")], False), str(failed.value)


def test_a_file_saved_in_a_polled_directory_is_queued_alone_not_a_full_scan(tmp_path):
    """The directories the inotify limit leaves unwatched are polled (`file_watcher.DirPoll`). A file saved there
    (written to a temporary name and renamed over, as editors save) changes its directory's mtime, which the poll of
    the parent saw as a change of the directory itself: the worker took it for a new directory and scanned the whole
    workspace (`IndexWorker.notify`: a directory event is a full scan) at each save in a tree big enough to pass the
    limit. The file alone is queued now, as a watch reports it; a new directory still is a full scan."""
    from ragls.workspace.file_watcher import DirPoll

    folder = tmp_path / "ws"
    (folder / "area" / "deep").mkdir(parents=True)
    (folder / "ragls.toml").write_text(f'[index]\npath = "{(tmp_path / "index").as_posix()}"\n')
    (folder / "area" / "deep" / "notes.md").write_text("# Notes\n\nThe harbour master keeps the tide tables.\n")
    ws = RagWorkspace([folder])
    try:
        poll = DirPoll([str(folder / "area"), str(folder / "area" / "deep")])
        assert poll.changed() == []  # the first look only records
        (folder / "area" / "deep" / "notes.md.tmp").write_text("# Notes\n\nThe harbour opens at dawn.\n")
        (folder / "area" / "deep" / "notes.md.tmp").rename(folder / "area" / "deep" / "notes.md")
        changed = poll.changed()
        assert changed == [str(folder / "area" / "deep" / "notes.md")]
        worker = IndexWorker(ws)  # not started: its notify only marks what to index
        assert worker.notify(changed) == 1
        assert worker._dirty == {0: {"area/deep/notes.md"}}  # the file, not None (a full scan)
        (folder / "area" / "deep" / "more").mkdir()
        assert poll.changed() == [str(folder / "area" / "deep" / "more")]  # a new directory: its files unseen
    finally:
        ws.close()
