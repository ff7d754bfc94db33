"""The user's own folder in a shared temporary dir (`index.paths.user_temp_dir`), one implementation for its two
uses: the model files a read-only cache keeps for the next process (`model_source._kept_root`, test_model_links.py)
and the local socket of an index whose path is too long for a socket's name (`local_socket._socket_path`). Someone
else may have made the name first in a shared /tmp, or made it a link: such a folder is never used."""

from __future__ import annotations

import os

import pytest
from ragls.index.paths import user_temp_dir
from ragls.lsp import local_socket

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")

LONG_INDEX = "i" * 120  # past a socket name's 107 bytes: the socket goes to the runtime dir


def test_a_long_index_paths_socket_is_never_made_through_a_planted_link(tmp_path, monkeypatch):
    """A link planted under the runtime folder's name: the socket's folder was made 700 through it (the target's
    mode changed, whoever's folder it was) and the socket bound there. Now no socket is made (the CLI runs in
    process), the target untouched."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    target.chmod(0o755)
    (tmp_path / "run" / f"ragls-{os.getuid()}").symlink_to(target)
    assert local_socket._socket_path(tmp_path / LONG_INDEX) is None
    assert target.stat().st_mode & 0o777 == 0o755


def test_a_long_index_paths_socket_is_in_the_users_own_runtime_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    path = local_socket._socket_path(tmp_path / LONG_INDEX)
    runtime = tmp_path / "run" / f"ragls-{os.getuid()}"
    assert path is not None and path.parent == runtime and path.name.startswith("ragls-")
    assert runtime.stat().st_mode & 0o777 == 0o700
    assert local_socket._socket_path(tmp_path / "index") == tmp_path / "index" / local_socket.SOCKET_NAME  # short


def test_the_users_temp_dir_is_theirs_alone_or_none(tmp_path):
    made = user_temp_dir("ragls-x", tmp_path)
    assert made == tmp_path / "ragls-x" and made.stat().st_mode & 0o777 == 0o700
    made.chmod(0o770)  # group may write: what it holds may be someone else's
    assert user_temp_dir("ragls-x", tmp_path) is None
    (tmp_path / "file").write_text("")
    assert user_temp_dir("file", tmp_path) is None
    if os.geteuid() == 0:
        made.chmod(0o700)
        os.chown(made, os.getuid() + 1, -1)
        assert user_temp_dir("ragls-x", tmp_path) is None
