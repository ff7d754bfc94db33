"""Globs and ignore files too costly to match fail closed (config/globs.kept_out, sources/ignore_files.read_ignore_file):
what the folder's author (or the user) meant to keep out stays out, matched by a wider glob or by leaving out all
below the ignore file; a glob that would let files in is left out. Real folders, real pathspec."""

from __future__ import annotations

import pytest
from pathspec import GitIgnoreSpec
from ragls.config.globs import glob_problem, glob_warnings, widened
from ragls.config.settings import SourcesSettings
from ragls.sources import walk as walk_mod
from ragls.sources.walk import FileFilter, walk

ALL = ["**/*"]


def make(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(("glob", "wide"), [
    ("**/secrets/**/*key*", "**/*key*"),
    ("*a*a*a*b", "*a*b"),
    ("*a*b*c*key*", "*key*"),
    ("a*a*a*a*a*b/**", "a*a*b/"),
    ("docs/**/x/**/y*z*", "docs/**/y*z*"),
    ("**/a/**/a/**/a/**/b", "**/b"),
    ("{x,*a*a*a*}.md", "*.md"),
    ("x/{a/b,c}*d*e*f", "x/**"),
])
def test_a_widened_glob_is_cheap_and_matches_all_the_original_matches(glob, wide):
    assert glob_problem(glob) is not None and widened(glob) == wide and glob_problem(wide) is None
    original, wider = GitIgnoreSpec.from_lines([glob.replace("{x,*a*a*a*}", "*a*a*a*")]), GitIgnoreSpec.from_lines([wide])
    for path in ("app/secrets/prod/api_key.txt", "aXaYaZb", "q/aaab/c.md", "docs/x/m/y1z2", "n/a/o/a/p/a/b",
                 "x/a/b1d2e3f", "xaaaa.md", "secrets/key"):
        assert wider.match_file(path) or not original.match_file(path), path


def test_an_ignore_line_or_exclude_too_costly_to_match_still_keeps_its_files_out(tmp_path):
    """Session 58 dropped such a line with a warning, so `app/secrets/prod/api_key.txt` was indexed although the
    folder's .gitignore names it. Now the line is matched by a wider glob (`**/*key*`: `docs/keyboard.md` goes too,
    the price of failing closed), and a "!" line too costly to match is left out (its files stay ignored). The
    same for sources.exclude; an include glob too costly to match is still left out (its files stay out)."""
    make(tmp_path, {
        ".gitignore": "**/secrets/**/*key*\n!**/secrets/**/*key*.pub*\n*.log\n",
        "app/secrets/prod/api_key.txt": "k", "app/secrets/prod/api_key.pub.txt": "p", "app/main.md": "m",
        "docs/keyboard.md": "k", "docs/guide.md": "g", "run.log": "l", "notes/private/x/my_token.md": "t",
        "aaab.md": "a",
    })
    assert walk(tmp_path, SourcesSettings(include=ALL)) == [
        ".gitignore", "aaab.md", "app/main.md", "docs/guide.md", "notes/private/x/my_token.md"]
    s = SourcesSettings(include=["*a*a*a*b.md", "**/*.md"], exclude=["**/private/**/*token*", "!**/x/**/*my*token*"])
    assert walk(tmp_path, s) == ["aaab.md", "app/main.md", "docs/guide.md"]
    f = FileFilter(tmp_path, s)
    assert f.reason("app/secrets/prod/api_key.txt") == "ignored by .gitignore"
    assert f.reason("notes/private/x/my_token.md") == "excluded by sources.exclude"
    costly = "has more than 3 wildcards, or more than 2 in one name (matching it could take minutes per file)"
    wider = "the files it matches are kept out by the wider glob"
    assert glob_warnings(s.include, s.exclude, tmp_path) == [
        f"sources.include glob '*a*a*a*b.md' {costly}; it is ignored",
        f"sources.exclude glob '**/private/**/*token*' {costly}; {wider} '**/*token*'",
        f"sources.exclude glob '!**/x/**/*my*token*' {costly}; it is ignored"]


def test_an_ignore_file_of_too_many_patterns_leaves_out_all_below_it(tmp_path):
    """A .gitignore of more than MAX_IGNORE_PATTERNS patterns (pathspec matches every path against each one: a
    folder's 20,000-line file cost 3.7 CPU-s to compile and 15 ms per path) is not compiled: everything below its
    directory is left out. One above the folder (in the same repository) leaves out the whole folder — it is not
    taken for "the folder itself is ignored", which would drop the rules above it."""
    many = "".join(f"build-{i}/\n" for i in range(walk_mod.MAX_IGNORE_PATTERNS + 1))
    make(tmp_path / "ws", {"a.md": "a", "gen/.gitignore": "# generated\n" + many, "gen/b.md": "b", "gen/c/d.md": "d"})
    assert walk(tmp_path / "ws", SourcesSettings()) == ["a.md"]
    assert FileFilter(tmp_path / "ws", SourcesSettings()).reason("gen/c/d.md") == "ignored by gen/.gitignore"
    repo = tmp_path / "repo"
    make(repo, {".git/HEAD": "", ".gitignore": many, "docs/a.md": "a", "docs/sub/b.md": "b", "top.md": "t"})
    assert walk(repo / "docs", SourcesSettings()) == []
    assert FileFilter(repo / "docs", SourcesSettings()).reason("sub/b.md") == f"ignored by {repo / '.gitignore'}"


def test_the_folders_gitignore_files_hold_at_most_10000_patterns_together(tmp_path):
    """Each nested .gitignore within MAX_IGNORE_PATTERNS, but a path is matched against those of every one above it:
    40 nested files of 5,000 lines (2.6 MB) cost 20 CPU-s at every command, `ragls query` too. The file past what
    the shallower ones left fails closed (all below it left out) and says so."""
    lines = "".join(f"build-{i}/\n" for i in range(4_000))
    files = {}
    for depth in range(1, 5):
        where = "/".join(f"l{k}" for k in range(1, depth + 1))
        files |= {f"{where}/.gitignore": lines, f"{where}/page.md": "p", f"{where}/build-7/x.md": "x"}
    make(tmp_path / "ws", {"top.md": "t", **files})
    walker = FileFilter(tmp_path / "ws", SourcesSettings())
    assert walk_mod.walk_with(walker) == ["l1/l2/page.md", "l1/page.md", "top.md"]
    assert walker.reason("l1/l2/l3/page.md") == "ignored by l1/l2/l3/.gitignore"
    assert walker.reason("l1/build-7/x.md") == "ignored by l1/.gitignore"  # the files within the budget apply
    assert walker.ignore_problems == {"l1/l2/l3/.gitignore": (
        "ignore file of 4,000 patterns, past the 10,000 the folder's .gitignore files may "
        "hold together (each is matched against every path below it): everything below its folder is left out")}


def test_the_gitignore_budget_fails_the_same_file_closed_whoever_asks_first(tmp_path):
    """The 10,000 patterns were spent in reading order: the walk's filter read the .gitignore files as it went, the
    watcher's (after a .gitignore event clears it) and rag/query's the chain of the path they were asked about, so
    in a folder past the budget a file the scan left out was indexed at its next event, or the other way round.
    Every filter now spends it shallow first and by name over the directories the walk enters: `a` and `b` (4,000
    each) whole, `c` (4,000, of 2,000 left) fails closed, whichever path is asked about first."""
    lines = "".join(f"build-{i}/\n" for i in range(4_000))
    make(tmp_path / "ws", {"top.md": "t", **{f"{d}/.gitignore": lines for d in "cba"},
                           **{f"{d}/page.md": "p" for d in "abc"}, **{f"{d}/sub/deep.md": "d" for d in "abc"},
                           "a/build-7/x.md": "x"})
    walker = FileFilter(tmp_path / "ws", SourcesSettings())
    assert walk_mod.walk_with(walker) == ["a/page.md", "a/sub/deep.md", "b/page.md", "b/sub/deep.md", "top.md"]
    problem = {"c/.gitignore": (
        "ignore file of 4,000 patterns, past the 10,000 the folder's .gitignore files may "
        "hold together (each is matched against every path below it): everything below its folder is left out")}
    assert walker.ignore_problems == problem
    for first in ["c/sub/deep.md", "c/page.md", "b/sub/deep.md", "a/build-7/x.md"]:
        asked = FileFilter(tmp_path / "ws", SourcesSettings())  # rag/query's, or a reader's: this path first
        assert [asked.reason(first), asked.reason("c/page.md"), asked.reason("b/page.md")] == [
            walker.reason(first), "ignored by c/.gitignore", None], first
        assert asked.ignore_problems == problem
    watcher = FileFilter(tmp_path / "ws", SourcesSettings())
    assert watcher.reason("a/page.md") is None
    (tmp_path / "ws" / "b" / ".gitignore").write_text(lines[:10])  # an edit: the event clears the filter
    watcher.invalidate()
    assert watcher.reason("c/sub/deep.md") is None and watcher.ignore_problems == {}
    assert walk(tmp_path / "ws", SourcesSettings()) == [
        "a/page.md", "a/sub/deep.md", "b/page.md", "b/sub/deep.md", "c/page.md", "c/sub/deep.md", "top.md"]
    assert walker.reason("a/build-7/x.md") == "ignored by a/.gitignore"


def test_a_folders_globs_are_compiled_once_for_every_filter(tmp_path):
    """Every walk, rewatch and read-back builds a FileFilter: a ragls.toml of 50,000 include globs cost 4 CPU-s to
    compile each time (the file watcher built one at each rewatch). The same lists share one compiled spec now, and
    the filter of a folder of thousands of globs still takes only what they match."""
    make(tmp_path, {"d7/a.md": "x", "d2999/b.md": "x", "other/c.md": "x"})
    settings = SourcesSettings(include=[f"d{i}/**/*.md" for i in range(3000)], exclude=["**/drafts/**"])
    first, second = FileFilter(tmp_path, settings), FileFilter(tmp_path / "elsewhere", settings)
    assert first._include is second._include and first._exclude is second._exclude
    assert walk(tmp_path, settings) == ["d2999/b.md", "d7/a.md"]


def test_the_watchers_filter_reads_the_gitignore_files_at_a_scan_not_at_an_event(tmp_path, monkeypatch):
    """The budget's order makes a filter's first verdict read every .gitignore of the walked directories (a
    traversal: 0.5-0.9 s for 3,232 directories at load 12), and the watcher asks its filter on the server's event
    loop. The indexer reads them for it after each full scan (`FileFilter.read_ignore_files`), and an event while a
    full scan is queued (after a .gitignore event cleared the filter) asks no filter. Counted as directory listings."""
    from ragls.workspace.rag_workspace import RagWorkspace
    from ragls.workspace.watch import IndexWorker

    folder = tmp_path / "ws"
    make(folder, {"ragls.toml": f'[index]\npath = "{(tmp_path / "index").as_posix()}"\n', "top.md": "t",
                  ".gitignore": "gen/\n", **{f"d{k}/sub/page.md": "p" for k in range(5)}})
    listed: list[str] = []
    real_scandir = walk_mod.os.scandir

    def recording_scandir(path):
        listed.append(str(path))
        return real_scandir(path)

    ws = RagWorkspace([folder])
    try:
        ws.index(embed=False)
        idx = ws.indexes[0]
        monkeypatch.setattr(walk_mod.os, "scandir", recording_scandir)
        worker = IndexWorker(ws)  # not started: notify only marks what changed
        assert worker.notify([folder / "d3" / "sub" / "page.md"]) == 1
        assert idx.filter.reason("d3/gen/x.md") == "ignored by .gitignore"
        assert listed == [], listed  # read at the scan
        (folder / ".gitignore").write_text("gen/\nd2/\n")
        assert worker.notify([folder / ".gitignore", folder / "d4" / "sub" / "page.md"]) == 2
        assert listed == [], listed  # a full scan is queued: no filter asked
        idx.sync()  # the full scan (the worker's job), on its thread: it lists the folder, and reads the filter's
        listed.clear()
        assert idx.filter.reason("d2/sub/page.md") == "ignored by .gitignore" and listed == [], listed
    finally:
        ws.close()
