"""No tracked file names an absolute path of one machine (issue 21): benchmarks, tests and docs find their data
through bench/data.py, so they work from any clone."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# An absolute path starts the path (not "tools/home/..." or "framework/"): nothing path-like just before it.
_START = r"(?<![\w.$}~/-])"
PATTERN = re.compile(_START + r"(?:/" + "work/" + r"|/" + "root/" + r"|/" + r"home/[a-z_][a-z0-9_.-]*/)")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot list tracked files")
    return [ROOT / name for name in out.decode().split("\0") if name]


def offenders(files: list[Path]) -> list[str]:
    """["path:line: text"] for every line of `files` holding a machine-absolute path (binary files skipped)."""
    found = []
    for path in files:
        if path.is_symlink():  # git stores a symlink's target as its content
            target = os.readlink(path)
            if PATTERN.search(target) or Path(target).is_absolute():
                found.append(f"{path.relative_to(ROOT)}: symlink to {target}")
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if PATTERN.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:160]}")
    return found


def test_pattern_catches_machine_paths_and_spares_relative_ones():
    bad = ["/" + "work/shared/corpora/rust-book", "cd /" + "root/src", '"/' + 'home/alice/data"',
           "--corpus=/" + "work/x"]
    good = ["../shared/corpora", "$tools/" + "home/.config", "framework/" + "work/x", "~/" + "work/notes",
            "bench/results/" + "work/", "https://example.org/" + "home/x/"]
    assert [s for s in bad if not PATTERN.search(s)] == []
    assert [s for s in good if PATTERN.search(s)] == []


def test_no_absolute_machine_paths_in_tracked_files():
    found = offenders(tracked_files())
    assert found == [], "absolute machine paths (use bench/data.py or a relative path):\n" + "\n".join(found)
