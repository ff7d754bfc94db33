"""Source strings of named RAGs → files and URLs (sources/resolve.py) on a real directory tree."""

from __future__ import annotations

from ragls.config.settings import SourcesSettings
from ragls.sources.resolve import resolve_sources


def test_source_forms(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for rel in ("notes/a.md", "notes/sub/b.txt", "notes/sub/c.rst", "srv/x/README.md", "srv/y/z/README.md",
                "srv/y/other.md", "docs/m.pdf", "docs/n.md", "weird dir/we;ird.md"):
        path = (home if rel.startswith("notes") else tmp_path) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    r = resolve_sources([
        "~/notes/**/*.{md,txt}",
        f"{tmp_path}/srv/**/README.md",
        "pdf:docs/m.pdf;docs/n.md",
        "docs",
        "https://docs.example.com/guide/**",
        "jina:https://example.com/page",
        "missing.md",
    ], tmp_path, SourcesSettings(), {"jina": "curl -s https://r.jina.ai/$1"})
    assert r.files == {
        f"{home}/notes/a.md": None, f"{home}/notes/sub/b.txt": None,
        f"{tmp_path}/srv/x/README.md": None, f"{tmp_path}/srv/y/z/README.md": None,
        f"{tmp_path}/docs/m.pdf": "pdf", f"{tmp_path}/docs/n.md": "pdf",
    }
    assert r.urls == {"https://docs.example.com/guide/**": (None, True), "https://example.com/page": ("jina", False)}
    assert [(s.path, s.reason) for s in r.skipped] == [("missing.md", f"not found: {tmp_path}/missing.md")]


def test_loader_prefix_applies_to_each_file_of_a_list_and_unknown_prefix_is_a_path(tmp_path):
    (tmp_path / "we;ird.md").write_text("x\n")
    (tmp_path / "c:d.md").write_text("x\n")
    r = resolve_sources(["c:d.md"], tmp_path, SourcesSettings())
    assert r.files == {f"{tmp_path}/c:d.md": None}  # "c" is no loader: a file name with a colon


def test_a_secret_file_a_source_names_is_not_read(tmp_path):
    """A named file or a glob's match that is a secret file (`.env`, `.netrc`, `*.pem`, a link to one) or lies in
    `.git/` is skipped with the reason, as a directory walk skips it: a cloned folder's `[rags.notes] sources =
    [".env", ".net*", ".git/config"]`
    (untrusted, but inside the folder, so kept) indexed the `.env` its README asked the user to fill in (red team,
    session 49). `sources.exclude_secrets = false` (the user's own settings) reads them."""
    (tmp_path / "docs").mkdir()
    (tmp_path / ".env").write_text("ADMIN_PIN=7731\n")
    (tmp_path / ".netrc").write_text("machine x login y password hunter2\n")
    (tmp_path / "docs" / "deploy.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    (tmp_path / "docs" / "notes.md").symlink_to(tmp_path / ".env")
    (tmp_path / ".git" / "logs").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text('[remote "origin"]\n\turl = https://me:tok3n@example.com/r.git\n')
    (tmp_path / ".git" / "logs" / "HEAD").write_text("0 1 Jane Doe <jane@example.com> clone\n")
    r = resolve_sources([".env", ".net*", "docs/*.pem;docs/notes.md", "docs/*.md", ".git/config", ".git/logs/*"],
                        tmp_path, SourcesSettings())
    assert r.files == {f"{tmp_path}/docs/a.md": None}
    assert sorted(s.path.removeprefix(f"{tmp_path}/") for s in r.skipped if s.reason.startswith("version")) == [
        ".git/config", ".git/logs/HEAD"]
    assert sorted(s.path.removeprefix(f"{tmp_path}/") for s in r.skipped if s.reason.startswith("secret")) == [
        ".env", ".netrc", "docs/deploy.pem", "docs/notes.md"]  # (docs/*.md's notes.md leads out of docs/: skipped so)
    assert len(resolve_sources([".env", ".net*"], tmp_path, SourcesSettings(exclude_secrets=False)).files) == 2


def test_a_glob_match_that_is_no_file_is_skipped_with_its_reason(tmp_path):
    """A glob source's match that is a dangling link or a FIFO is listed as skipped with the reason a folder's walk
    gives (before, dropped silently); a folder it matches is no file source and says nothing."""
    import os

    from ragls.sources.walk import BROKEN_LINK

    (tmp_path / "a.md").write_text("x\n")
    (tmp_path / "gone.md").symlink_to(tmp_path / "nowhere.md")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "dir.md").mkdir()
    r = resolve_sources([f"{tmp_path}/*.md"], tmp_path, SourcesSettings())
    assert r.files == {f"{tmp_path}/a.md": None}
    assert [(s.path, s.reason) for s in r.skipped] == [
        (f"{tmp_path}/gone.md", BROKEN_LINK), (f"{tmp_path}/pipe.md", "not a regular file (a FIFO)")]
    only_a_folder = resolve_sources([f"{tmp_path}/dir.*"], tmp_path, SourcesSettings())
    pattern = f"{tmp_path}/dir.*"
    assert [(s.path, s.reason) for s in only_a_folder.skipped] == [(pattern, f"no file matches {pattern!r}")]


def test_a_glob_source_whose_walk_is_too_wide_is_skipped_saying_so(tmp_path, monkeypatch):
    """A named RAG's glob was listed by `glob` without a bound ("/**/*.md", or "/*/*/*/*.md" with no `**`, lists
    every folder it reaches). Past `glob_walk.MAX_GLOB_ENTRIES` entries, counted as `glob_walk.bounded_glob` lists them,
    the source is skipped with the reason (rag/list, rag/rebuild); within the bound it reads what it read before."""
    from ragls.sources import glob_walk

    monkeypatch.setattr(glob_walk, "MAX_GLOB_ENTRIES", 20)
    for i in range(6):
        for j in range(4):
            (tmp_path / "wide" / f"d{i}" / f"e{j}").mkdir(parents=True)
            (tmp_path / "wide" / f"d{i}" / f"e{j}" / "x.txt").write_text("x\n")
    (tmp_path / "wide" / "d0" / "e0" / "a.md").write_text("# A\n")
    too_wide = "searches too many folders (more than 20 entries); name a narrower folder"
    # each folder listed once, all brace expansions together: "wide" 6, then d*/e0 7, d*/e1 6, d*/e2 6
    for source in ("wide/**/*.md", "wide/*/*/*.md", "wide/*/e{0,1,2}/*.md"):
        r = resolve_sources([source], tmp_path, SourcesSettings())
        assert (r.files, [(s.path, s.reason) for s in r.skipped]) == ({}, [(source, f"{source!r} {too_wide}")])
    # a literal part lists nothing: 6 folders, then d0/e0's 2 entries
    assert resolve_sources(["wide/d0/*/a.md", "wide/*/e0/a.md"], tmp_path, SourcesSettings()).files == {
        f"{tmp_path}/wide/d0/e0/a.md": None}
    assert not resolve_sources(["wide/d0/e0/*"], tmp_path, SourcesSettings()).skipped


def test_which_matches_of_a_dotdot_glob_count_as_inside(tmp_path):
    """A glob source's matches must lie (real path) inside its literal folder, the one its walk starts from
    (`glob_walk.glob_base`: the path normalised, so "docs/sub/../*.md" starts from docs/ and
    "docs/../notes/*.md" from notes/). Before, resolve.py took its own, unnormalised prefix ("docs/sub/..", whose
    real path is the parent of where the link `sub` leads), so docs/'s own files were refused as links out of it."""
    from ragls.sources.walk import OUTSIDE_LINK

    ws, away = tmp_path / "ws", tmp_path / "away"
    (ws / "docs").mkdir(parents=True)
    (ws / "notes").mkdir()
    (away / "deep").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("x\n")
    (ws / "notes" / "n.md").write_text("x\n")
    (away / "secret.md").write_text("x\n")
    (away / "deep" / "e.md").write_text("x\n")
    (ws / "docs" / "out.md").symlink_to(away / "secret.md")
    (ws / "docs" / "sub").symlink_to(away / "deep")

    def resolved(source):
        r = resolve_sources([source], ws, SourcesSettings())
        return sorted(p.removeprefix(f"{tmp_path}/") for p in r.files), sorted(
            (s.path.removeprefix(f"{tmp_path}/"), s.reason) for s in r.skipped)

    outside = [("ws/docs/out.md", OUTSIDE_LINK)]
    assert resolved("docs/sub/../*.md") == (["ws/docs/a.md"], outside)
    assert resolved("docs/../notes/*.md") == (["ws/notes/n.md"], [])
    assert resolved("docs/*/../a.md") == (["ws/docs/a.md"], [])  # no glob character once normalised
    assert resolved("docs/{a,out}.md") == (["ws/docs/a.md"], outside)
    assert resolved("docs/sub/*.md") == (["away/deep/e.md"], [])  # the literal folder is the link's target
