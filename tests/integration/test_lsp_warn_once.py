"""A line the user must act on (an invalid ragls.toml kept out, an untrusted one) is shown once
(`RaglsServer._warn_once`), also when two reopens meet it at the same moment — a setting changed and the watcher's
look at the saved file each reopen the workspace, on their own threads. Under load the second reopen arrived while
the first was writing its warning to stderr, and the editor showed the message twice
(tests/e2e/test_lifecycle.py, test_a_malformed_ragls_toml_the_editor_trusts_keeps_the_open_workspace, load 44)."""

from __future__ import annotations

import logging
import threading
import time
from types import SimpleNamespace

from ragls.lsp.server import RaglsServer


class _SlowLine(logging.Handler):
    """stderr that takes its time: each warning line holds its thread 0.2 s, as a busy pipe does."""

    def emit(self, record):
        time.sleep(0.2)


def test_a_message_two_threads_warn_at_once_is_shown_once():
    ls = RaglsServer()
    shown: list[str] = []
    ls.progress_sender = SimpleNamespace(loop=SimpleNamespace(
        call_soon_threadsafe=lambda show, params: shown.append(params.message)))
    message = "ragls: /docs/ragls.toml: Expected ']' at the end of a table declaration (keeping the previous settings)"
    logger = logging.getLogger("ragls.lsp.server")
    handler, level = _SlowLine(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    try:
        threads = [threading.Thread(target=ls._warn_once, args=(message,)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        ls._warn_once(message)  # and any later reopen that meets it again
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert shown == [message]
    ls._warn_once("ragls: another file's error")
    assert shown == [message, "ragls: another file's error"]
