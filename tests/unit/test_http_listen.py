"""`ragls http --port 0` announces its port once clients can connect: the socket listens before `on_listening` runs,
so a client told the port is queued in the backlog while uvicorn starts instead of refused (a CI run under load
saw every tests/e2e/test_http.py fixture refused: the port was announced when the socket was only bound)."""

from __future__ import annotations

import socket

import pytest
from ragls.http.api import serve


class _Stop(Exception):
    pass


def test_the_announced_port_accepts_connections_before_the_server_runs():
    seen = []

    def listening(port: int) -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:  # refused when only bound
            seen.append(conn.getpeername()[1])
        raise _Stop  # before uvicorn serves: the check is about the moment of the announcement

    with pytest.raises(_Stop):
        serve(None, "127.0.0.1", 0, on_listening=listening)
    assert seen and seen[0] > 0
