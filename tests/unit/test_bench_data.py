"""bench/data.py: a data set is found by flag, then $RAGLS_BENCH_DATA, then ../shared beside the repository, then
the fetch_data download folder; otherwise the error names every place and how to fetch the data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import data


def lay_out(root: Path, name: str) -> Path:
    rel, marker = data.LAYOUT[name]
    (root / rel).mkdir(parents=True)
    (root / rel / marker).write_text("x")
    return root / rel


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No shared folder, no download folder, no environment variable."""
    monkeypatch.setattr(data, "SHARED", tmp_path / "no-shared")
    monkeypatch.setattr(data, "fetch_root", lambda: tmp_path / "no-fetch")
    monkeypatch.delenv(data.ENV, raising=False)
    return tmp_path


def test_order_flag_env_shared_fetch(nowhere, monkeypatch):
    fetched = lay_out(nowhere / "fetch", "cranfield")
    monkeypatch.setattr(data, "fetch_root", lambda: nowhere / "fetch")
    assert data.dataset("cranfield") == fetched
    shared = lay_out(nowhere / "shared", "cranfield")
    monkeypatch.setattr(data, "SHARED", nowhere / "shared")
    assert data.dataset("cranfield") == shared
    env = lay_out(nowhere / "env", "cranfield")
    monkeypatch.setenv(data.ENV, str(nowhere / "env"))
    assert data.dataset("cranfield") == env
    assert data.dataset("cranfield", nowhere / "shared" / "bench" / "cranfield") == shared


def test_a_wrong_flag_is_an_error_not_a_fallback(nowhere):
    lay_out(nowhere / "no-shared", "rust-book")
    with pytest.raises(data.DataNotFound, match="is not a folder"):
        data.dataset("rust-book", nowhere / "typo")


def test_missing_everywhere_names_every_place(nowhere, monkeypatch):
    monkeypatch.setenv(data.ENV, str(nowhere / "env"))
    with pytest.raises(data.DataNotFound) as err:
        data.dataset("flask-docs")
    msg = str(err.value)
    for part in ("--corpus/--data", "$RAGLS_BENCH_DATA", "../shared beside the repository",
                 "fetch_data.py download folder", "python bench/fetch_data.py", "corpora/flask-docs"):
        assert part in msg
    assert data.available("flask-docs") is None
    assert "python bench/fetch_data.py" in data.missing_reason("flask-docs")


def test_shared_is_found_from_the_repository_not_the_working_directory(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert data.SHARED == Path(data.__file__).resolve().parents[1].parent / "shared"
    with pytest.raises(KeyError):
        data.dataset("imagenet")
