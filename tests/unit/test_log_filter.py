"""Expected error answers (invalid params, request failed, cancelled) are logged as one line, not a traceback."""

from __future__ import annotations

import io
import logging

from pygls.exceptions import JsonRpcInvalidParams
from ragls.lsp.errors import JsonRpcRequestFailed, install_log_filter


def _log_exception(exc: Exception, *call: object) -> str:
    logger = logging.getLogger("pygls.protocol.json_rpc")
    buf = io.StringIO()
    handler = logging.StreamHandler(buf)
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        install_log_filter()
        install_log_filter()  # idempotent
        try:
            raise exc
        except Exception:
            logger.exception(*(call or ('Exception occurred for message "%s"', 7)))
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    return buf.getvalue()


def test_expected_errors_are_one_line_naming_the_request():
    # pygls' two calls: a failed future names the message id; a handler that raised, its method too
    assert _log_exception(JsonRpcRequestFailed(message="nothing staged")) == (
        "request 7 answered with error -32803: nothing staged\n")
    assert _log_exception(JsonRpcInvalidParams(message="topK must be >= 1"), "Failed to handle request %s %s %s", 9,
                          "rag/query", {"topK": 0}) == (
        "rag/query (request 9) answered with error -32602: topK must be >= 1\n")
    assert len(logging.getLogger("pygls.protocol.json_rpc").filters) == 1


def test_unexpected_errors_keep_their_traceback():
    text = _log_exception(ValueError("a bug"))
    assert 'Exception occurred for message "7"' in text
    assert "Traceback (most recent call last)" in text and "ValueError: a bug" in text
