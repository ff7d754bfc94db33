"""The benchmark data sets for tests (bench/data.py's lookup): a path, or a skip saying how to get the data.

On CI (`CI` set) the shared data folder is always beside the clone, so a missing data set fails the test instead
of skipping it: no test passes silently without its data there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from data import available, missing_reason


def dataset_or_skip(name: str) -> Path:
    """The folder of data set `name` ("rust-book", "flask-docs", "cranfield"); skips (fails on CI) without it."""
    path = available(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(missing_reason(name) + " (CI must have the shared data folder)")
        pytest.skip(missing_reason(name))
    return path
