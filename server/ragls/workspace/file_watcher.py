"""The file watcher: watchfiles on every workspace folder, feeding `IndexWorker.notify` (watch.py) with the paths
that changed, symlinks not followed. A failing watch (watchfiles drops a batch holding a path that is not UTF-8)
rescans the folders and watches on, until it fails more than `MAX_WATCH_RESTARTS` times within
`WATCH_RESTART_WINDOW_S`: then it stops and says so in `workspace.errors` (LSP didSave still updates the index).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ragls.workspace.watch import IndexWorker

log = logging.getLogger(__name__)

MAX_WATCH_RESTARTS = 30  # watcher failures within WATCH_RESTART_WINDOW_S before it gives up (and says so)
WATCH_RESTART_WINDOW_S = 60.0


class FileWatcher:
    """watchfiles on every workspace folder, feeding `IndexWorker.notify`. Symlinks are not followed (no loops)."""

    def __init__(self, worker: IndexWorker, folders: list[Path]):
        self.worker = worker
        self.folders = folders
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragls-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3)

    def _watch_filter(self, default) -> Callable[[object, str], bool]:
        """watchfiles' default filter (no events from .git, node_modules, __pycache__, .venv …), letting through
        the two kinds ragls needs from there: `.git/info/exclude`, and the targets of indexed symlinks."""
        exclude = os.sep + os.path.join(".git", "info", "exclude")

        def keep(change, path: str) -> bool:
            if default(change, path) or path.endswith(exclude):
                return True
            targets = [idx.symlink_targets for idx in self.worker.ws.indexes if idx.symlink_targets]
            return bool(targets) and any(path in t or os.path.realpath(path) in t for t in targets)
        return keep

    def _run(self) -> None:
        import watchfiles

        restarts: deque[float] = deque()
        while not self._stop.is_set():
            try:
                for changes in watchfiles.watch(*self.folders, stop_event=self._stop, debounce=50, step=25,
                                                watch_filter=self._watch_filter(watchfiles.DefaultFilter()),
                                                recursive=True, raise_interrupt=False, yield_on_timeout=False,
                                                ignore_permission_denied=True):
                    self.worker.notify(path for _, path in changes)
                return  # stopped
            except Exception as exc:  # noqa: BLE001 - watching is best effort; didSave still works
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
                self._stop.wait(0.1)
