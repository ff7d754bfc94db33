"""sources.walk: include globs with braces, .gitignore (nested, negation), junk dirs, secrets, temp files,
index dir, symlinks, unreadable directories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from privileges import unprivileged
from ragls.answer.blocks import is_markdown
from ragls.config.globs import expand_braces, glob_problem
from ragls.config.settings import SourcesSettings
from ragls.sources import walk as walk_mod
from ragls.sources.load import kind_for
from ragls.sources.walk import FileFilter, walk

ALL = ["**/*"]


def make(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def settings(**kw) -> SourcesSettings:
    return SourcesSettings(**kw)


def test_expand_braces():
    assert expand_braces("**/*.{md,txt}") == ["**/*.md", "**/*.txt"]
    assert expand_braces("{a,{b,c}d}.md") == ["a.md", "bd.md", "cd.md"]
    assert expand_braces("{docs,guide}/*.{md,rst}") == ["docs/*.md", "docs/*.rst", "guide/*.md", "guide/*.rst"]
    assert expand_braces("x{a}y") == ["x{a}y"]
    assert expand_braces("{a,b") == ["{a,b"]
    assert expand_braces(r"\{a,b}") == [r"\{a,b}"]
    assert expand_braces("ch{1..3}.md") == ["ch1.md", "ch2.md", "ch3.md"]
    with pytest.raises(ValueError):
        expand_braces("{a,b,c,d}" * 6)


def test_glob_problem_allows_real_globs_and_refuses_backtracking_bombs():
    """Real include/exclude/.gitignore globs pass; one that makes pathspec's regular expression backtrack for
    minutes on a long name or a deep path, or expands past the brace limit, is named (config/globs.py)."""
    for ok in ("**/*.md", "**/*.{md,txt}", "docs/**/*_test*.py", "!**/*.min.*", "/libexec/*/*.class", "*.py[cod]"):
        assert glob_problem(ok) is None, ok
    for bad in ("*a*a*a*b", "a*a*a*a*a*b/**", "**/a/**/a/**/a/**/b", "{x,*a*a*a*}.md"):
        assert "wildcards" in glob_problem(bad), bad
    assert glob_problem("{a,b,c,d}" * 6) == "expands to more than 1024 patterns"


def test_default_include_and_braces(tmp_path):
    make(tmp_path, {
        "README.md": "r", "docs/guide.markdown": "g", "docs/a.mdx": "a", "docs/deep/x.rst": "x", "notes.txt": "n",
        "b.adoc": "b", "c.org": "c", "main.py": "p", "data.json": "{}", "Makefile": "all:",
    })
    assert walk(tmp_path, settings()) == [
        "README.md", "b.adoc", "c.org", "docs/a.mdx", "docs/deep/x.rst", "docs/guide.markdown", "notes.txt",
    ]
    nested = settings(include=["docs/**/*.{md{,x},{rst,txt}}", "*.py"])
    assert walk(tmp_path, nested) == ["docs/a.mdx", "docs/deep/x.rst", "main.py"]


def test_exclude_setting(tmp_path):
    make(tmp_path, {"a.md": "", "drafts/b.md": "", "c.old.md": "", "d.bak.md": "", "sub/e.md": ""})
    s = settings(exclude=["drafts/", "*.{old,bak}.md"])
    assert walk(tmp_path, s) == ["a.md", "sub/e.md"]
    f = FileFilter(tmp_path, s)
    assert f.reason("drafts/b.md") == "excluded by sources.exclude"
    assert f.reason("c.old.md") == "excluded by sources.exclude"


def test_nested_gitignore_with_negation(tmp_path):
    files = {
        ".gitignore": "*.log\n*.draft.md\n# comment\nout/\n/rootonly.md\n",
        "a.md": "", "b.log": "", "rootonly.md": "", "x.draft.md": "", "out/o.md": "",
        "sub/.gitignore": "*.txt\n!keep.txt\n!important.draft.md\n/only-here.md\n",
        "sub/t.txt": "", "sub/keep.txt": "", "sub/important.draft.md": "", "sub/other.draft.md": "",
        "sub/rootonly.md": "", "sub/only-here.md": "", "sub/deeper/only-here.md": "", "sub/deeper/u.txt": "",
        "sub/deeper/v.log": "",
        "other/t.txt": "",
    }
    make(tmp_path, files)
    found = walk(tmp_path, settings(include=ALL))
    assert found == [
        ".gitignore", "a.md", "other/t.txt", "sub/.gitignore", "sub/deeper/only-here.md", "sub/important.draft.md",
        "sub/keep.txt", "sub/rootonly.md",
    ]
    f = FileFilter(tmp_path, settings(include=ALL))
    assert f.reason("b.log") == "ignored by .gitignore"
    assert f.reason("sub/t.txt") == "ignored by sub/.gitignore"
    assert f.reason("sub/deeper/v.log") == "ignored by .gitignore"
    assert f.reason("out/o.md") == "ignored by .gitignore"
    assert f.included("sub/keep.txt") and f.included("sub/important.draft.md")
    # Without gitignore support everything is back.
    assert walk(tmp_path, settings(include=ALL, respect_gitignore=False)) == sorted(files)


def test_files_in_ignored_directory_cannot_be_reincluded(tmp_path):
    make(tmp_path, {".gitignore": "logs/\n!logs/keep.md\n", "logs/keep.md": "", "logs/x.md": "", "y.md": ""})
    assert walk(tmp_path, settings()) == ["y.md"]
    assert FileFilter(tmp_path, settings()).reason("logs/keep.md") == "ignored by .gitignore"


def test_invalidate_reloads_gitignore(tmp_path):
    make(tmp_path, {"a.md": "", "b.md": "", "d/c.md": ""})
    f = FileFilter(tmp_path, settings())
    assert f.included("b.md") and f.included("d/c.md")
    (tmp_path / ".gitignore").write_text("b.md\nd/\n")
    assert f.included("b.md")  # cached
    f.invalidate()
    assert not f.included("b.md") and not f.included("d/c.md")
    assert walk_mod.walk_with(f) == ["a.md"]


def test_junk_dirs_pruned_at_any_depth(tmp_path, monkeypatch):
    make(tmp_path, {
        "a.md": "", "node_modules/pkg/README.md": "", "web/node_modules/x/README.md": "", ".git/info.md": "",
        "target/doc.md": "", "sub/.venv/lib/site.md": "", "sub/__pycache__/x.md": "", "sub/ok.md": "",
        "node_modules.md": "",
    })
    listed: list[str] = []
    real_scandir = os.scandir

    def recording_scandir(path):
        listed.append(Path(path).relative_to(tmp_path).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(walk_mod.os, "scandir", recording_scandir)
    assert walk(tmp_path, settings()) == ["a.md", "node_modules.md", "sub/ok.md"]
    # never descended into junk (each listed twice: by the walk, and to read the .gitignore files in order: GitIgnores)
    assert sorted(set(listed)) == [".", "sub", "web"]
    f = FileFilter(tmp_path, settings())
    assert f.reason("web/node_modules/x/README.md") == "junk directory node_modules"
    assert f.reason("sub/.venv/lib/site.md") == "junk directory .venv"


def test_secrets_excluded_by_default(tmp_path):
    make(tmp_path, {
        ".env": "K=1", ".env.local": "K=2", "conf/server.pem": "", "conf/server.key": "", "id_rsa": "",
        "id_rsa.pub": "", "conf/app.toml": "", "environment.md": "",
    })
    assert walk(tmp_path, settings(include=ALL)) == ["conf/app.toml", "environment.md"]
    assert FileFilter(tmp_path, settings(include=ALL)).reason("conf/.env.prod") == "secret (sources.exclude_secrets)"
    assert len(walk(tmp_path, settings(include=ALL, exclude_secrets=False))) == 8


def test_secret_and_git_names_in_any_case_are_left_out(tmp_path):
    """On a case-insensitive file system (macOS, Windows) `.ENV` is `.env` and `.GIT/config` is `.git/config`: a
    cloned folder's `notes.md -> .ENV` read the user's `.env` there, and `sources.include = [".GIT/**"]` git's
    config (red team, session 49: the names were matched in their own case only). The case of a name never
    matters to these rules; this file system is case-sensitive, so the files here are distinct."""
    make(tmp_path, {".ENV": "K=1", "Deploy.PEM": "", "ID_RSA": "", ".GIT/config.md": "url", ".Hg/hgrc.md": "",
                    "notes/guide.md": ""})
    os.symlink(".ENV", tmp_path / "notes.md")
    assert walk(tmp_path, settings(include=ALL)) == ["notes/guide.md"]
    f = FileFilter(tmp_path, settings(include=ALL))
    assert f.reason("notes.md") == "symlink to a secret file (sources.exclude_secrets)"
    assert f.reason(".GIT/config.md") == "junk directory .GIT"


def test_editor_temp_files_always_excluded(tmp_path):
    make(tmp_path, {
        "notes.md": "", "notes.md~": "", ".notes.md.swp": "", ".notes.md.swx": "", "4913": "", "sub/4913": "",
        "x.tmp": "", ".#notes.md": "",
    })
    assert walk(tmp_path, settings(include=ALL, respect_gitignore=False, exclude_secrets=False)) == ["notes.md"]
    assert FileFilter(tmp_path, settings(include=ALL)).reason("sub/.a.md.swp") == "editor temp file"


def test_index_dir_inside_folder_is_skipped(tmp_path):
    make(tmp_path, {"a.md": "", "idx/meta.md": "", "cache/ragls/index.md": "", "cache/other.md": ""})
    assert walk(tmp_path, settings(), index_dir=tmp_path / "idx") == ["a.md", "cache/other.md",
                                                                        "cache/ragls/index.md"]
    assert walk(tmp_path, settings(), index_dir=tmp_path / "cache" / "ragls") == ["a.md", "cache/other.md",
                                                                                   "idx/meta.md"]
    f = FileFilter(tmp_path, settings(), index_dir=tmp_path / "cache" / "ragls")
    assert f.reason("cache/ragls/index.md") == "index directory"
    # An index dir outside the folder excludes nothing.
    assert len(walk(tmp_path / "cache", settings(), index_dir=tmp_path / "idx")) == 2


def test_symlinks_loop_file_and_dangling(tmp_path):
    outside = tmp_path / "outside"
    ws = tmp_path / "ws"
    make(outside, {"ext.md": "external"})
    make(ws, {"real.md": "r", "sub/s.md": "s"})
    (ws / "loop").symlink_to(ws, target_is_directory=True)
    (ws / "sub" / "up").symlink_to(ws / "sub", target_is_directory=True)
    (ws / "link.md").symlink_to(ws / "real.md")
    (ws / "ext.md").symlink_to(outside / "ext.md")
    (ws / "dangling.md").symlink_to(ws / "missing.md")
    (ws / "self.md").symlink_to(ws / "self.md")  # a link to itself: ELOOP
    (ws / "vendor").symlink_to(outside, target_is_directory=True)  # a folder link out: never followed, but said
    # link.md -> real.md is left out: real.md is indexed under its own name (real-path identity); ext.md points
    # out of the folder: left out and recorded, so the indexer lists it as skipped
    assert walk(ws, settings()) == ["real.md", "sub/s.md"]
    ff = FileFilter(ws, settings())
    walk_mod.walk_with(ff)
    assert ff.outside == ["ext.md"] and ff.aliases == {}
    # a dangling link or a loop the include globs take is said, not silently left out, and so is a folder link out
    # of the folder (folder links inside it, loops included, are not: their files are indexed under the real path)
    assert ff.unreadable == {"dangling.md": walk_mod.BROKEN_LINK,
                             "self.md": f"{walk_mod.LINK_LOOP}: Too many levels of symbolic links",
                             "vendor/": walk_mod.OUTSIDE_DIR_LINK}
    assert ff.reason("ext.md") == walk_mod.OUTSIDE_LINK and ff.reason("real.md") is None
    assert ff.alias_of_indexed("link.md") and not ff.alias_of_indexed("ext.md")
    # the user's opt-in lists it under its own path, as any other link
    follow = FileFilter(ws, settings(follow_outside_links=True))
    assert walk_mod.walk_with(follow) == ["ext.md", "real.md", "sub/s.md"]
    assert follow.aliases == {os.path.realpath(outside / "ext.md"): ["ext.md"]} and follow.outside == []
    assert follow.reason("ext.md") is None
    assert follow.unreadable["vendor/"] == walk_mod.OUTSIDE_DIR_LINK  # a folder link is never followed


def test_inside_folder_is_the_real_path_rule(tmp_path):
    make(tmp_path / "ws", {"a.md": "a", "sub/b.md": "b"})
    make(tmp_path / "private", {"key.md": "k"})
    ws = tmp_path / "ws"
    (ws / "sub" / "up").symlink_to(tmp_path / "private", target_is_directory=True)
    (ws / "pw.md").symlink_to("/etc/passwd")
    (ws / "rel.md").symlink_to("sub/b.md")
    assert walk_mod.inside_folder(ws, Path("sub/b.md")) == "sub/b.md"
    assert walk_mod.inside_folder(ws, ws / "rel.md") == "sub/b.md"  # the real path, relative to the real folder
    for path in ("pw.md", "../private/key.md", "sub/../../private/key.md", "sub/up/key.md", "/etc/passwd", ".", ""):
        assert walk_mod.inside_folder(ws, Path(path)) is None, path
    if os.path.exists("/proc/self/status"):
        (ws / "status.md").symlink_to("/proc/self/status")
        assert walk_mod.inside_folder(ws, Path("status.md")) is None
        assert FileFilter(ws, settings()).reason("status.md") == walk_mod.OUTSIDE_LINK
    # a folder reached through a symlink is compared by its real path
    (tmp_path / "alias").symlink_to(ws, target_is_directory=True)
    assert walk_mod.inside_folder(tmp_path / "alias", Path("sub/b.md")) == "sub/b.md"
    assert walk(tmp_path / "alias", settings()) == ["a.md", "sub/b.md"]


def test_unreadable_directory_is_skipped(tmp_path, monkeypatch):
    make(tmp_path, {"a.md": "", "locked/b.md": "", "open/c.md": ""})
    real_scandir = os.scandir

    def scandir(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(walk_mod.os, "scandir", scandir)
    assert walk(tmp_path, settings()) == ["a.md", "open/c.md"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("mode", [0o000, 0o644])
def test_unreadable_directory_really_chmod(tmp_path, mode):
    """Real permission bits, checked by the kernel (as root: in a process without CAP_DAC_*, tests/privileges.py):
    a folder that cannot be listed (000) or whose entries cannot be reached (644, `chmod -R 644`) is one
    `unreadable` entry; the rest is walked."""
    make(tmp_path, {"a.md": "", "locked/b.md": "", "open/c.md": ""})
    (tmp_path / "locked").chmod(mode)
    script = ("import json, sys; from pathlib import Path; from ragls.config.settings import SourcesSettings; "
              "from ragls.sources.walk import FileFilter, walk_with; ff = FileFilter(Path(sys.argv[1]), "
              "SourcesSettings()); print(json.dumps([walk_with(ff), ff.unreadable]))")
    try:
        proc = subprocess.run(unprivileged([sys.executable, "-c", script, str(tmp_path)]), capture_output=True,
                              text=True, check=True)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert json.loads(proc.stdout) == [["a.md", "open/c.md"], {"locked/": "unreadable folder: Permission denied"}]


def test_a_folder_too_deep_for_its_names_is_one_skipped_entry(tmp_path, caplog):
    """A tree deeper than the OS's path limit (4,096 bytes on Linux): the deepest folder that can be listed but whose
    names (its .gitignore) cannot be reached is one `unreadable` entry, with no warning beside it that its ignore
    file was not read (break64: a 3,000-folder-deep tree gave three such warnings and the folder's entry)."""
    make(tmp_path, {"a.md": ""})
    name, fds = "d" * 9, [os.open(tmp_path, os.O_RDONLY)]  # 10-byte steps: some folder is listable, its .gitignore not
    try:
        while len(os.fsencode(tmp_path)) + 10 * len(fds) < 4200:
            os.mkdir(name, dir_fd=fds[-1])
            fds.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    finally:
        for fd in fds:
            os.close(fd)
    caplog.set_level("WARNING")
    ff = FileFilter(tmp_path, settings())
    assert walk_mod.walk_with(ff) == ["a.md"]
    assert ff.ignore_problems == {} and not caplog.records, caplog.text[-300:]
    [(key, reason)] = ff.unreadable.items()
    assert reason == "unreadable folder: File name too long"
    assert len(os.fsencode(tmp_path / key / ".gitignore")) >= 4096 > len(os.fsencode(tmp_path / key))


def test_reason_normalizes_paths(tmp_path):
    f = FileFilter(tmp_path, settings())
    assert f.included("./docs/a.md") and f.included("docs\\a.md")
    assert f.reason("docs/a.py") == "not matched by sources.include"
    assert f.reason("") == "not a file path"
    assert not f.dir_included("a/node_modules/b")
    assert f.dir_included("a/b")


def test_gitignore_above_the_folder_in_the_same_repo(tmp_path):
    repo = tmp_path / "repo"
    make(repo, {
        ".git/info/exclude": "local.md\n",
        ".gitignore": "*.secret.md\ndocs/drafts/\n/top.md\n!docs/keep.secret.md\n",
        "docs/a.md": "", "docs/x.secret.md": "", "docs/keep.secret.md": "", "docs/drafts/d.md": "",
        "docs/local.md": "", "docs/sub/local.md": "", "docs/top.md": "", "docs/sub/b.md": "",
        "docs/sub/.gitignore": "!x.secret.md\n", "docs/sub/x.secret.md": "",
    })
    assert walk(repo / "docs", settings()) == ["a.md", "keep.secret.md", "sub/b.md", "sub/x.secret.md", "top.md"]
    f = FileFilter(repo / "docs", settings())
    assert f.reason("x.secret.md") == f"ignored by {repo / '.gitignore'}"
    assert f.reason("local.md") == f"ignored by {repo / '.git' / 'info' / 'exclude'}"
    # Outside a repository, the .gitignore of a parent directory does not apply.
    make(tmp_path, {"plain/.gitignore": "*.md\n", "plain/inner/a.md": ""})
    assert walk(tmp_path / "plain" / "inner", settings()) == ["a.md"]


def test_a_worktree_whose_git_is_a_file_has_no_ignore_problem(tmp_path):
    """A git worktree's (or submodule's) `.git` is a file naming its git dir: reading `.git/info/exclude` through it
    failed with "Not a directory", listed in rag/status and shown as a pop-up at every start."""
    repo = tmp_path / "wt"
    make(repo, {".git": "gitdir: /elsewhere/.git/worktrees/wt\n", ".gitignore": "drafts/\n", "docs/a.md": "",
                "docs/drafts/d.md": ""})
    f = FileFilter(repo / "docs", settings())
    assert walk(repo / "docs", settings()) == ["a.md"] and f.reason("drafts/d.md") == f"ignored by {repo / '.gitignore'}"
    assert f.ignore_problems == {}


def test_upper_case_extensions_match_default_includes(tmp_path):
    make(tmp_path, {"NOTES.MD": "x", "docs/README.TXT": "x", "Guide.Rst": "x", "photo.JPG": "x", "MD": "x"})
    assert walk(tmp_path, settings()) == ["Guide.Rst", "NOTES.MD", "docs/README.TXT"]


def test_rest_include_fragments_are_documentation(tmp_path):
    """`.rst.inc` (the reST a Sphinx page pulls in with `.. include::`) matches the default includes in any case,
    and reads as reST; another `.inc` (a PHP or C include file) is no documentation."""
    make(tmp_path, {"usage/init.rst.inc": "x", "usage/LIST.RST.INC": "x", "lib/config.inc": "x",
                    "src/tables.h.inc": "x"})
    assert walk(tmp_path, settings()) == ["usage/LIST.RST.INC", "usage/init.rst.inc"]
    assert [kind_for(p) for p in ("usage/init.rst.inc", "lib/config.inc", "src/tables.h.inc")] == ["text", "text", "code"]
    assert [is_markdown(p) for p in ("usage/init.rst.inc", "notes.md.inc", "lib/config.inc")] == [False, True, True]
    assert FileFilter(tmp_path, settings()).included("docs/README.TXT")
    assert not FileFilter(tmp_path, settings(include=["**/*.md"])).included("photo.JPG")


def test_latin1_file_name_is_listed_as_a_key(tmp_path):
    from ragls.core.uris import display_path, key_path

    make(tmp_path, {"a.md": "x"})
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"# x")
    listed = walk(tmp_path, settings())
    assert len(listed) == 2 and listed[0] == "a.md"
    odd = listed[1]
    odd.encode("utf-8")  # a key is valid UTF-8 (SQLite, tantivy, JSON)
    assert os.fsencode(key_path(odd)) == b"caf\xe9.md"
    assert display_path(odd) == "caf\ufffd.md"
    assert FileFilter(tmp_path, settings()).included(odd)


def test_a_folder_its_repository_ignores_is_indexed_when_asked_for(tmp_path):
    """`ragls index clients/vscode/node_modules/typescript` in a repo ignoring node_modules/ (or a workspace folder
    under an ignored vendor/) found 0 files and said nothing; the folder asked for by name is indexed, with its own
    .gitignore files, and the outer rules still apply to the repository's other folders."""
    repo = tmp_path / "repo"
    make(repo, {
        ".git/HEAD": "", ".gitignore": "node_modules/\nvendor/*\n*.draft.md\n",
        "node_modules/pkg/README.md": "", "node_modules/pkg/CHANGELOG.md": "", "node_modules/pkg/.gitignore": "C*\n",
        "vendor/lib/docs/guide.md": "", "docs/a.md": "", "docs/b.draft.md": "",
    })
    assert walk(repo / "node_modules" / "pkg", settings()) == ["README.md"]
    assert walk(repo / "vendor" / "lib", settings()) == ["docs/guide.md"]
    assert walk(repo / "docs", settings()) == ["a.md"]
    assert walk(repo, settings()) == ["docs/a.md"]


def test_the_users_own_ignore_file_applies_in_a_repository(tmp_path, monkeypatch):
    """git's `core.excludesFile` (default `$XDG_CONFIG_HOME/git/ignore`) is the user's own list of what never belongs
    in a repository (their notes, their editor's files); a clone's `.gitignore` is its author's, who cannot know it
    (red team, session 48: a clone's untracked `notes.local.md`, ignored by the user's global ignore file, was
    indexed). Lowest priority, as in git: the repository's files can take a name back; outside a repository it does
    not apply."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    make(home, {".config/git/ignore": "*.local.md\nscratch/\n"})
    repo = tmp_path / "clone"
    make(repo, {".git/HEAD": "ref: refs/heads/main\n", "README.md": "", "notes.local.md": "", "scratch/a.md": "",
                "docs/b.local.md": "", "docs/.gitignore": "!b.local.md\n"})
    assert walk(repo, settings()) == ["README.md", "docs/b.local.md"]
    assert FileFilter(repo, settings()).reason("notes.local.md") == f"ignored by {home / '.config' / 'git' / 'ignore'}"
    make(home, {".gitconfig": "[core]\n\texcludesFile = ~/my-ignore\n", "my-ignore": "README.md\n"})
    assert walk(repo, settings()) == ["docs/b.local.md", "notes.local.md", "scratch/a.md"]
    make(tmp_path, {"plain/README.md": "", "plain/notes.local.md": ""})
    assert walk(tmp_path / "plain", settings()) == ["README.md", "notes.local.md"]


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_ignore_file_that_is_no_regular_file_is_not_read(tmp_path, kind):
    """A `.gitignore` is the folder's input: a FIFO there blocked the walk forever (`ragls index` hung; red team,
    session 48) and a link to /dev/zero would read until memory ran out. Only a regular file is read as one."""
    make(tmp_path, {"a.md": "", "docs/b.md": ""})
    if kind == "fifo":
        os.mkfifo(tmp_path / "docs" / ".gitignore")
    else:
        os.symlink("/dev/zero", tmp_path / "docs" / ".gitignore")
    assert walk(tmp_path, settings()) == ["a.md", "docs/b.md"]


def test_served_verdicts_are_forgotten_at_a_change(tmp_path, monkeypatch):
    """`FileFilter.served` remembers a file's verdict for the hits of later queries, and never past a change it
    is told of (`changed`: the watcher's events; `invalidate`: an ignore file edited) or SERVED_TTL_S seconds."""
    ws = tmp_path / "ws"
    make(ws, {"a.md": "a", "b.md": "b", "c.md": "c"})
    make(tmp_path / "private", {"key.md": "k"})
    filt = FileFilter(ws, settings())
    assert filt.served("a.md") and filt.served("b.md") and filt.served("c.md")
    # a.md swapped for a link out of the folder: remembered until the watcher's event, then refused
    (ws / "a.md").unlink()
    (ws / "a.md").symlink_to(tmp_path / "private" / "key.md")
    assert filt.served("a.md")
    filt.changed()
    assert not filt.served("a.md")
    # b.md ignored by a new .gitignore: refused once the filter is invalidated (the watcher does it for .gitignore)
    (ws / ".gitignore").write_text("b.md\n")
    assert filt.served("b.md")
    filt.invalidate()
    assert not filt.served("b.md")
    # c.md swapped for a link out with no event seen (a reader process without a watcher): refused after the TTL
    assert filt.served("c.md")
    (ws / "c.md").unlink()
    (ws / "c.md").symlink_to(tmp_path / "private" / "key.md")
    later = walk_mod.time.monotonic() + walk_mod.SERVED_TTL_S + 1
    monkeypatch.setattr(walk_mod, "time", SimpleNamespace(monotonic=lambda: later))
    assert not filt.served("c.md")


def test_a_verdict_computed_across_a_change_is_not_remembered(tmp_path, monkeypatch):
    """A change reported while `served` computes a verdict (the watcher's thread beside a query's) leaves that
    verdict unremembered: the next query judges the file again."""
    ws = tmp_path / "ws"
    make(ws, {"a.md": "a"})
    make(tmp_path / "private", {"key.md": "k"})
    filt = FileFilter(ws, settings())
    included = filt.included

    def racing(rel):  # the verdict is taken, then the file is swapped and the watcher reports it
        verdict = included(rel)
        (ws / "a.md").unlink()
        (ws / "a.md").symlink_to(tmp_path / "private" / "key.md")
        filt.changed()
        return verdict

    monkeypatch.setattr(filt, "included", racing)
    assert filt.served("a.md")
    monkeypatch.setattr(filt, "included", included)
    assert not filt.served("a.md")


def test_a_newline_in_a_folder_name_is_matched_like_any_character(tmp_path):
    # pathspec writes `**/` as `(?:.+/)?`, whose "." stops at a newline: every file under a folder named "notes\nold"
    # matched no include glob (never indexed, never listed), no .gitignore or sources.exclude rule, and no secret
    # glob (`x\ny/.env` was no secret file for a read-back or the commit diff).
    make(tmp_path, {"notes\nold/guide.md": "# Guide\n", "notes\nold/site/out.md": "# Out\n",
                    "notes\nold/drafts/d.md": "# Draft\n", "notes\nold/.env": "API_TOKEN=abc\n",
                    "top\n.md": "# Top\n", ".gitignore": "site/\n"})
    assert walk(tmp_path, settings(exclude=["**/drafts/**"])) == ["notes\nold/guide.md", "top\n.md"]
    assert walk_mod.secret_file("notes\nold/.env") and not walk_mod.secret_file("notes\nold/guide.md")
    found = FileFilter(tmp_path, settings(include=ALL))
    assert found.reason("notes\nold/.env") == walk_mod.SECRET_FILE
    assert found.reason("notes\nold/site/out.md") == "ignored by .gitignore"
