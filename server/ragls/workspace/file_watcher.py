"""The file watcher: watchfiles on the directories of every workspace folder that the walk enters, feeding
`IndexWorker.notify` (watch.py) with the paths that changed, symlinks not followed.

Each directory is watched on its own (one inotify watch), never an excluded one: a recursive watch of the folder put
one on every directory below it, node_modules and .gitignore'd build trees too (a folder of one README beside 3,000
`node_modules/*/lib` directories took 6,504 watches, where a user's limit `fs.inotify.max_user_watches` is often
8,192, shared with every other tool). A new directory, a renamed one, or an edited ignore file changes the set:
the watch is set up again and the folder rescanned once the new watch is set (`_run`: what happened between the
two watches is found by the scan; a scan before it would miss a change made while the watch was being set up).
The user's inotify limit (`fs.inotify.max_user_watches`, shared with every tool) reached: the shallowest directories
are watched, as many as fit (`_fewer`), and rag/status says how many are not (`LIMIT_WARNING`); the others are
looked at every UNWATCHED_POLL_S seconds (`DirPoll`: their entries' size and mtime), so an edit made there outside the
editor is indexed too, and a directory made there sets the watch up again as one made in a watched directory does
(it is polled from then on); the full set is tried again whenever the watch is set up again. A directory that cannot be watched (deleted before its watch was
set, unreadable) is left out and the others watched. A failing watch (watchfiles drops a batch holding a path that
is not UTF-8) rescans the folders and watches on, until it fails more than `MAX_WATCH_RESTARTS` times within
`WATCH_RESTART_WINDOW_S`: then it stops and says so in `workspace.errors` (LSP didSave still updates the index).
"""

from __future__ import annotations

import logging
import os
import re
import stat
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ragls.sources.walk import FileFilter, walked_dirs
from ragls.workspace.watch import IndexWorker

log = logging.getLogger(__name__)

MAX_WATCH_RESTARTS = 30  # watcher failures within WATCH_RESTART_WINDOW_S before it gives up (and says so)
WATCH_RESTART_WINDOW_S = 60.0
WATCH_CHECK_MS = 1000  # how often the watch looks for new symlink targets (a full scan finds them): cheap set tests
IGNORE_FILES = (".gitignore", "ragls.toml", os.path.join(".git", "info", "exclude"))  # edits change the set
# rag/status's warning while the inotify limit leaves directories unwatched (watched, wanted, unwatched).
LIMIT_WARNING = ("file watcher: the inotify watch limit (fs.inotify.max_user_watches) is reached: {0} of {1} folders "
                 "are watched, the shallowest first; the other {2} are looked at every {3:g} s instead, or when the "
                 "editor saves a file there; raise the limit (sysctl fs.inotify.max_user_watches=524288) to watch all")
# How often the directories the inotify limit leaves unwatched are looked at (`DirPoll`), at least: a poll of many
# directories waits POLL_COST_FACTOR times its own duration before the next, so polling takes at most 2 % of a core.
UNWATCHED_POLL_S = 10.0
POLL_COST_FACTOR = 50
# watchfiles' error when a directory cannot be watched names it: 'OS file watch limit reached. about ["/x/d55"]
# (Error { kind: MaxFilesWatch, … })', 'No such file or directory (os error 2) about ["/x/gone"]'. (Its
# `ignore_permission_denied=True` skipped every directory past the limit, and said nothing.)
# The path is a Rust debug string: a quote, a backslash, a newline or a tab in a name is escaped ('about
# ["/x/a\\"b"]'), `_named_path` reads it back.
_NAMED_PATH = re.compile(r'about \["((?:[^"\\]|\\.)*)"\]')
_DEBUG_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|(.))")
_DEBUG_CHARS = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _named_path(text: str) -> str | None:
    """The path a watchfiles error names ('… about ["/x/gone"]'), its Rust escapes read back (`\\"`, `\\\\`,
    `\\n`, `\\u{7f}`); None when it names none."""
    named = _NAMED_PATH.search(text)
    if named is None:
        return None
    return _DEBUG_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else _DEBUG_CHARS.get(m.group(2), m.group(2)),
                             named.group(1))


class DirPoll:
    """The directories the inotify limit leaves unwatched, looked at by polling: `changed()` lists the paths whose
    entry appeared, went away or changed type or inode, or for a file size or mtime, since the last look (the first
    look only records them: the folder was scanned when the watch was set), not following symlinks; a directory's own
    size and mtime change with its entries, which are looked at themselves (a file saved there made its directory a
    change, which the worker takes for a full scan). A directory that cannot be listed any
    more (deleted, moved) is a change itself. Each look lists every directory once (`os.scandir`, one stat an
    entry)."""

    def __init__(self, dirs: list[str]):
        self.dirs = dirs
        self._seen: dict[str, tuple] | None = None
        self.cost_s = 0.0  # the last look's duration (process CPU time would count other threads)

    def _entries(self) -> dict[str, tuple]:
        found: dict[str, tuple] = {}
        for d in self.dirs:
            try:
                with os.scandir(d) as it:
                    for entry in it:
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        # a directory by its type and inode alone: its size and mtime change with its entries,
                        # which its own look sees (a change of the directory is a full scan: `IndexWorker.notify`)
                        found[entry.path] = (st.st_mode >> 12, st.st_ino) if stat.S_ISDIR(st.st_mode) else \
                            (st.st_mode >> 12, st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                found[d] = ("unlisted",)
        return found

    def changed(self) -> list[str]:
        """The paths that changed since the last call (none at the first)."""
        start = time.monotonic()
        now = self._entries()
        before, self._seen = self._seen, now
        self.cost_s = time.monotonic() - start
        if before is None:
            return []
        return sorted(p for p in before.keys() | now.keys() if before.get(p) != now.get(p))


class FileWatcher:
    """watchfiles on every workspace folder, feeding `IndexWorker.notify`. Symlinks are not followed (no loops)."""

    def __init__(self, worker: IndexWorker, folders: list[Path]):
        self.worker = worker
        self.folders = folders
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragls-watch", daemon=True)
        self._limit_entry: dict[str, str] | None = None  # LIMIT_WARNING's entry in `worker.ws.errors`, while it holds

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3)

    def _watch_filter(self, default) -> Callable[[object, str], bool]:
        """watchfiles' default filter (no events from .git, node_modules, __pycache__, .venv …), letting through
        the kinds ragls needs from there: `.git/info/exclude` (and `.git`, `.git/info` made, to watch it), and the
        targets of indexed symlinks."""
        git = (os.sep + ".git", os.sep + os.path.join(".git", "info"), os.sep + os.path.join(".git", "info", "exclude"))

        def keep(change, path: str) -> bool:
            if default(change, path) or path.endswith(git):
                return True
            targets = [idx.symlink_targets for idx in self.worker.ws.indexes if idx.symlink_targets]
            return bool(targets) and any(path in t or os.path.realpath(path) in t for t in targets)
        return keep

    def watched_dirs(self) -> list[str]:
        """The directories to watch, sorted: those the walk of each workspace folder enters (`walk.walked_dirs`,
        with the folder's current ignore rules), its `.git/info` (the repository's own exclude file), and the
        directories of indexed symlinks' targets inside it. A folder that does not exist (moved away) has none."""
        found: set[str] = set()
        for idx in self.worker.ws.indexes:
            dirs = walked_dirs(FileFilter(idx.folder, idx.settings.sources, idx.index_dir))
            if not dirs:
                continue
            found.update(dirs)
            info = os.path.join(idx.folder, ".git", "info")
            if os.path.isdir(info) and not os.path.islink(info):
                found.add(info)
            found.update(self._target_dirs(idx))
        return sorted(found)

    @staticmethod
    def _target_dirs(idx) -> set[str]:
        """The directories inside `idx.folder` of the targets of its indexed symlinks (`symlink_targets`)."""
        root = os.path.realpath(idx.folder)
        parents = {os.path.dirname(target) for target in (idx.symlink_targets or {})}
        return {p for p in parents if p == root or p.startswith(root + os.sep)}

    def _rewatch(self, changes: set, watched: set[str]) -> bool:
        """Whether the set of watched directories must be set up again after `changes` ((Change, path) pairs):
        a directory to watch appeared (created, renamed, moved in, or deleted and made again: its old watch is
        gone), an ignore file changed and the set with it, or a symlink target lies in a directory not watched.
        A directory nothing is indexed from (a .gitignore'd build/ made again by each build) changes nothing, nor
        does a change of the folder's `.git` entry (never watched itself: `touch .git`, a chmod) while its
        `.git/info` is watched: each set the watch up again and rescanned the folder."""
        from watchfiles import Change

        for change, path in changes:
            if change == Change.deleted or (change != Change.added and path in watched) or not self._entered(path):
                continue
            if change != Change.added and path.endswith(os.sep + ".git"):
                info = os.path.join(path, "info")
                if info in watched or not os.path.isdir(info):
                    continue
            return True
        if any(path.endswith(os.sep + name) for _, path in changes for name in IGNORE_FILES):
            return set(self.watched_dirs()) != watched
        return any(not self._target_dirs(idx) <= watched for idx in self.worker.ws.indexes)

    def _entered(self, path: str) -> bool:
        """Whether `path` is a directory to watch: not a symlink, inside a workspace folder and entered by its walk
        (`FileFilter.dir_walked`), or the folder's `.git` or `.git/info` (made by `git init`)."""
        if not os.path.isdir(path) or os.path.islink(path):
            return False
        for idx in self.worker.ws.indexes:
            try:
                rel = Path(path).relative_to(idx.folder).as_posix()
            except ValueError:
                continue
            if rel in (".git", ".git/info") or (rel != "." and idx.filter.dir_walked(rel)):
                return True
        return False

    @staticmethod
    def _shallow_first(dirs: list[str]) -> list[str]:
        """`dirs` (absolute paths), the shallowest first (fewest path separators, then by name): under the inotify
        limit a folder's top directories are watched before its deep ones."""
        return sorted(dirs, key=lambda d: (d.count(os.sep), d))

    @staticmethod
    def _fewer(exc: BaseException, tried: list[str]) -> tuple[list[str], bool] | None:
        """The directories to watch next after the watch of `tried` failed with `exc`, and whether the inotify limit
        is why; None when `exc` names no directory of `tried` (a failure to count). watchfiles names the directory
        it could not watch ('… about ["/x/d55"]'): at "OS file watch limit reached" (the notify crate's
        MaxFilesWatch) those before it (their watches were set; half when it names none), at a directory gone or
        not readable (deleted before its watch was set, mode 300) all but it and those gone too. None too when
        nothing is left."""
        text = str(exc)
        path = _named_path(text)
        if isinstance(exc, OSError) and ("MaxFilesWatch" in text or "watch limit" in text):
            fewer, limited = tried[:tried.index(path) if path in tried else len(tried) // 2], True
            fewer = fewer[:len(tried) - 1]
        elif isinstance(exc, (FileNotFoundError, PermissionError, NotADirectoryError)) and path in tried:
            # and every other one gone too (a folder deleted or moved as its watch was set: one retry, not one a
            # directory)
            fewer, limited = [d for d in tried if d != path and os.path.isdir(d)], False
        else:
            return None
        return (fewer, limited) if fewer else None

    def _say_limit(self, watched: int, wanted: int) -> None:
        """Put LIMIT_WARNING in rag/status's errors while `watched` < `wanted` directories are watched, or take it
        out once all are."""
        errors = self.worker.ws.errors
        if self._limit_entry in errors:
            errors.remove(self._limit_entry)
        self._limit_entry = None
        if watched < wanted:
            self._limit_entry = {"message": LIMIT_WARNING.format(watched, wanted, wanted - watched, UNWATCHED_POLL_S),
                                 "severity": "warning"}
            errors.append(self._limit_entry)
            log.warning("%s", self._limit_entry["message"])

    def _run(self) -> None:
        import watchfiles

        restarts: deque[float] = deque()
        resync = False  # the folders are rescanned at the new watch's first report (changes or its first timeout)
        narrowed: list[str] | None = None  # the directories a failed watch left to try (None: all wanted)
        limited = False  # whether the inotify limit narrowed them; all are tried again at the next rewatch
        while not self._stop.is_set():
            tried: list[str] = []
            try:
                dirs = self.watched_dirs()
                if not dirs:  # every folder is gone (moved away, unmounted): look again later
                    self._stop.wait(WATCH_CHECK_MS / 1000)
                    continue
                watched = set(dirs)  # the directories wanted: one of them appearing is no new directory
                tried = self._shallow_first(dirs) if narrowed is None else narrowed
                poll = DirPoll(sorted(watched - set(tried))) if limited else None
                next_poll = time.monotonic()
                first = True
                for changes in watchfiles.watch(*tried, stop_event=self._stop, debounce=50, step=25,
                                                watch_filter=self._watch_filter(watchfiles.DefaultFilter()),
                                                recursive=False, raise_interrupt=False, yield_on_timeout=True,
                                                rust_timeout=WATCH_CHECK_MS, ignore_permission_denied=False):
                    if first:  # the watch is set now
                        first = False
                        self._say_limit(len(tried) if limited else len(dirs), len(dirs))
                    if resync:  # the watch is set now: the scan finds what changed before, the watch what after
                        resync = False
                        self.worker.request_sync()
                    if changes:
                        self.worker.notify(path for _, path in changes)
                    polled: set = set()
                    if poll is not None and time.monotonic() >= next_poll:  # the directories left unwatched
                        if found := poll.changed():
                            self.worker.notify(found)
                            # as a watch reports them: a directory made there is polled too once set up again
                            polled = {(watchfiles.Change.added, path) for path in found}
                        next_poll = time.monotonic() + max(UNWATCHED_POLL_S, POLL_COST_FACTOR * poll.cost_s)
                    if self._rewatch(changes | polled, watched):
                        break
                else:
                    return  # stopped
                log.debug("file watcher: the watched directories changed; watching them again")
                resync = True  # what changed while no watch was set: scanned once the new watch is set
                narrowed, limited = None, False
            except Exception as exc:  # noqa: BLE001 - watching is best effort; didSave still works
                if (fewer := self._fewer(exc, tried)) is not None:  # the others are watched: no failure
                    narrowed, limited = fewer[0], limited or fewer[1]
                    resync = True
                    continue
                # watchfiles drops a whole batch of events when one path in it is not valid UTF-8 ("Unable to
                # decode path ..."): scan the folders instead (it finds what the batch held) and watch on.
                now = time.monotonic()
                restarts.append(now)
                while restarts and now - restarts[0] > WATCH_RESTART_WINDOW_S:
                    restarts.popleft()
                if len(restarts) > MAX_WATCH_RESTARTS:
                    log.warning("file watcher stopped: %s", exc)
                    self.worker.ws.errors.append({"message": f"file watcher stopped: {exc}"})
                    return
                log.info("file watcher: %s; rescanning the workspace folders", exc)
                self.worker.request_sync()
                resync = True  # and once more when the next watch is set
                self._stop.wait(0.1)
