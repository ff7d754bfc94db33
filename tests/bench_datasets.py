"""The benchmark data sets for tests (bench/data.py's lookup): a path, or a skip saying how to get the data.

A missing data set skips the test with the reason and the command that fetches the data (pytest reports every
skip; `-rs` prints the reasons), on CI too: a checkout without `../shared` beside it must not turn CI red for data
that `bench/fetch_data.py` can fetch. No test passes without its data.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from data import available, missing_reason


def dataset_or_skip(name: str) -> Path:
    """The folder of data set `name` ("rust-book", "flask-docs", "cranfield"); skips, saying how to get it, without
    it."""
    path = available(name)
    if path is None:
        pytest.skip(missing_reason(name))
    return path
