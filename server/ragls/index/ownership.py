"""Which process writes an index: the writer lock of an index dir, who holds it, and handover requests.

A folder's index is written by one process at a time: the one holding `index.lock` (a `filelock` lock, released
by the OS when the process dies). The holder names itself in `writer.json` ({pid, role, since}) so the others can
say who indexes (`rag/status` "writerProcess", the MCP `index_status`); the lock, not the file, decides.

Handover: a process whose role yields (`YIELDING_ROLES`: an agent's MCP server, which lives as long as an agent
session) gives the index to an editor's language server that starts later. The editor, finding the lock held by
a yielding writer, writes `handover.json` ({pid, role}); the writer finishes its unit of work, releases the lock
and reads on; the editor takes the lock at its next takeover attempt and removes the file. While a live process
has asked, a yielding process does not take the lock back; a request from a process that is gone is dropped.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

# Who this process is; the entry points set it ("ragls serve", "ragls mcp", "ragls index", ...).
PROCESS_ROLE = "ragls"
YIELDING_ROLES = frozenset({"ragls mcp"})
LOCK_FILE = "index.lock"
WRITER_FILE = "writer.json"
HANDOVER_FILE = "handover.json"


def set_role(role: str) -> None:
    """Name this process for writer.json / handover.json (e.g. "ragls serve")."""
    global PROCESS_ROLE
    PROCESS_ROLE = role


def yields() -> bool:
    """True when this process hands its indexes over to an editor that asks (YIELDING_ROLES)."""
    return PROCESS_ROLE in YIELDING_ROLES


def alive(pid: int) -> bool:
    """True when a process with this pid exists (signal 0; another user's process counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class WriterLock:
    """The writer lock of one index dir, with its writer.json and handover.json. Not thread-local: the lock is
    taken on the thread that opens the workspace and released on another."""

    def __init__(self, index_dir: Path):
        # filelock is imported here: it pulls in asyncio (~0.1 s), which `ragls status` / a served query never need.
        from filelock import FileLock

        self.dir = Path(index_dir)
        self._lock = FileLock(str(self.dir / LOCK_FILE), thread_local=False)
        self.held = False

    def try_acquire(self, announce: bool = True) -> bool:
        """Take the lock if free (no wait). `announce`: write writer.json naming this process."""
        from filelock import Timeout

        try:
            self._lock.acquire(timeout=0)
        except Timeout:
            return False
        self.held = True
        if announce:
            self._write(WRITER_FILE, {"pid": os.getpid(), "role": PROCESS_ROLE, "since": time.time()})
        return True

    def release(self) -> None:
        """Release the lock (removing writer.json when it names this process)."""
        if not self.held:
            return
        try:
            if self._read(WRITER_FILE).get("pid") == os.getpid():
                (self.dir / WRITER_FILE).unlink()
        except (OSError, ValueError, AttributeError):
            pass
        self.held = False
        self._lock.release()

    def is_free(self) -> bool:
        """True when no process holds the lock (probes it: take and release at once)."""
        if self.held:
            return False
        if self.try_acquire(announce=False):
            self.held = False
            self._lock.release()
            return True
        return False

    def holder(self) -> dict:
        """{pid, role} from writer.json; role "unknown" (pid None) when it is missing or unreadable."""
        try:
            info = self._read(WRITER_FILE)
            return {"pid": int(info["pid"]), "role": str(info["role"])}
        except (OSError, ValueError, KeyError, TypeError):
            return {"pid": None, "role": "unknown"}

    # -- handover ------------------------------------------------------------------------------------------
    def request_handover(self) -> bool:
        """Another process holds the lock: ask it for the index when it yields and this process does not.
        Returns True when a request from this process is in place."""
        if self.held or yields() or self.holder()["role"] not in YIELDING_ROLES:
            return False
        if self.requester() == os.getpid():
            return True
        if not self._write(HANDOVER_FILE, {"pid": os.getpid(), "role": PROCESS_ROLE}):
            return False
        log.info("asked the %s writing %s to hand the index over", self.holder()["role"], self.dir)
        return True

    def handover_requested(self) -> bool:
        """This process holds the lock, yields, and another live process asked for the index."""
        if not self.held or not yields():
            return False
        pid = self.requester()
        return pid is not None and pid != os.getpid()

    def may_take(self) -> bool:
        """False while a yielding process should leave the lock to a live process that asked for it."""
        pid = self.requester()
        return not (yields() and pid is not None and pid != os.getpid())

    def requester(self) -> int | None:
        """pid of a live process that asked for the index, else None (a stale request is removed)."""
        try:
            pid = int(self._read(HANDOVER_FILE)["pid"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            self.clear_request()
            return None
        if pid != os.getpid() and not alive(pid):
            self.clear_request()
            return None
        return pid

    def clear_request(self) -> None:
        try:
            (self.dir / HANDOVER_FILE).unlink()
        except OSError:
            pass

    # -- files ---------------------------------------------------------------------------------------------
    def _read(self, name: str) -> dict:
        return json.loads((self.dir / name).read_text())

    def _write(self, name: str, info: dict) -> bool:
        tmp = self.dir / f".{name}.{os.getpid()}"
        try:
            tmp.write_text(json.dumps(info))
            os.replace(tmp, self.dir / name)
        except OSError as exc:  # informational: the lock decides
            log.debug("cannot write %s: %s", self.dir / name, exc)
            return False
        return True
