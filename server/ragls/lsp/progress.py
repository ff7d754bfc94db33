"""`$/progress` from worker threads: work-done progress ("ragls: indexing") and partial results ({delta}).

pygls writes to the client from the event loop, so every send is marshalled with `call_soon_threadsafe`.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

from lsprotocol import types


class ThreadSafeProgress:
    """Sends progress for `server` (a pygls LanguageServer) from any thread, on `loop`."""

    def __init__(self, server: Any, loop: asyncio.AbstractEventLoop):
        self.server = server
        self.loop = loop
        self._indexing_token: str | None = None
        self._state: dict = {}
        self._shown = threading.Event()  # the client has the indexing progress (begin sent, no end yet)

    def _call(self, fn, *args) -> None:
        self.loop.call_soon_threadsafe(fn, *args)

    def client_supports_work_done(self) -> bool:
        caps = self.server.client_capabilities
        return bool(caps and caps.window and caps.window.work_done_progress)

    # -- work-done progress of the background indexer ------------------------------------------------------
    def indexing(self, active: bool, message: str, percentage: int | None = None) -> None:
        """Begin/report/end the "ragls: indexing" work-done progress."""
        if not self.client_supports_work_done():
            return
        self._call(self._indexing, active, message, percentage)

    def wait_shown(self, timeout: float) -> bool:
        """Block (not on the event loop) until the client has the indexing progress — its `begin` sent after the
        client answered `window/workDoneProgress/create` — or `timeout` seconds passed; at once for a client
        without work-done progress. True when shown."""
        return not self.client_supports_work_done() or self._shown.wait(timeout)

    def _indexing(self, active: bool, message: str, percentage: int | None) -> None:
        # Runs on the event loop. The client must answer window/workDoneProgress/create before `begin`, so
        # reports and the end are queued until it has.
        wdp = self.server.work_done_progress
        if active and self._indexing_token is None:
            token = f"ragls-indexing-{uuid.uuid4().hex[:8]}"
            self._indexing_token = token
            state = self._state = {"ready": False, "queued": []}

            def created(*_args):
                wdp.begin(token, types.WorkDoneProgressBegin(title="ragls: indexing", message=message,
                                                             percentage=percentage or 0, cancellable=False))
                state["ready"] = True
                if self._indexing_token == token:
                    self._shown.set()
                for action in state["queued"]:
                    action()

            wdp.create(token, callback=created)
            return
        if self._indexing_token is None:
            return
        token, state = self._indexing_token, self._state
        if active:
            def action():
                wdp.report(token, types.WorkDoneProgressReport(message=message, percentage=percentage))
        else:
            self._indexing_token = None
            self._shown.clear()

            def action():
                wdp.end(token, types.WorkDoneProgressEnd(message=message))
        if state["ready"]:
            action()
        else:
            state["queued"].append(action)

    # -- request-scoped progress ---------------------------------------------------------------------------
    def partial(self, token: int | str, value: dict) -> None:
        """`$/progress` with a client-chosen token (partialResultToken or workDoneToken) and a raw value."""
        self._call(self.server.progress, types.ProgressParams(token=token, value=value))
