"""`glob_walk.bounded_glob`: one bounded walk that both lists a glob's matches and bounds them (before, a counting
walk ran and then Python's `glob` listed the same folders again). Real folders; Python's `glob` is the oracle for
what matches."""

from __future__ import annotations

import glob
import os

import pytest
from ragls.sources import glob_walk
from ragls.sources.glob_walk import GlobTooWide, bounded_glob


@pytest.fixture
def tree(tmp_path):
    for rel in ("a/x.md", "a/.y.md", "a/b/z.md", "a/b/c/w.md", "a/.h/x/q.md", "d/b/r.md", "d/b/.s.md", "e/t.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    (tmp_path / "a" / "link").symlink_to(tmp_path / "d")  # a link to a folder: `**` follows it, as `glob` does
    (tmp_path / "a" / "dangle.md").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tmp_path / "a" / "b" / "f.md")
    return tmp_path


@pytest.mark.parametrize("pattern", [
    "**", "**/*.md", "*/*.md", "a/**/*.md", "a/**/b/*.md", "a/*/*.md", "**/.*", "**/.*.md", "a/**/**/*.md",
    "*/b/*", "a/**", "a/.*/*/*.md", "[ad]/b/*.md", "a/?/*.md", "a/b/f.md", "**/b", "a/*/", "nothere/**/*.md",
    "a/link/b/*.md", "a/**/r.md", "**/dangle.md",
])
def test_it_matches_what_glob_matches(tree, pattern):
    """Hidden names (`*` skips them, `.*` takes them, `**` enters no hidden folder), links to folders, a dangling
    link, a FIFO, literal parts after wildcards, a trailing "/" (folders only), "**/**"."""
    full = f"{tree}/{pattern}"
    assert sorted(bounded_glob([full])) == sorted({os.path.normpath(p) for p in glob.glob(full, recursive=True)})


def test_each_folder_is_listed_once_and_counted_once(tree, monkeypatch):
    """"a/**/*.md" lists each folder below a once (`**` and then `*.md` in each folder: `glob` listed them twice,
    after the counting walk listed them once more); the bound counts each listing once, all patterns together;
    each match maps to the first pattern that matched it."""
    listed = []
    scandir = os.scandir

    def counting(path):
        listed.append(str(path))
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    a = f"{tree}/a"
    matches = bounded_glob([f"{a}/**/*.md", f"{a}/b/*.md"])
    assert sorted(listed) == sorted([a, f"{a}/b", f"{a}/b/c", f"{a}/link", f"{a}/link/b"])
    assert matches == {p: f"{a}/**/*.md" for p in (f"{a}/x.md", f"{a}/dangle.md", f"{a}/b/z.md", f"{a}/b/f.md",
                                                     f"{a}/b/c/w.md", f"{a}/link/b/r.md")}
    entries = sum(len(os.listdir(p)) for p in listed)  # 18
    monkeypatch.setattr(glob_walk, "MAX_GLOB_ENTRIES", entries)
    assert len(bounded_glob([f"{a}/**/*.md", f"{a}/*/*.md"])) == 6
    monkeypatch.setattr(glob_walk, "MAX_GLOB_ENTRIES", entries - 1)
    with pytest.raises(GlobTooWide, match=rf"^searches too many folders \(more than {entries - 1} entries\); name "
                                          "a narrower folder$"):
        bounded_glob([f"{a}/**/*.md"])
