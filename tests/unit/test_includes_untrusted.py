"""A literalinclude is read from an untrusted folder (answer/includes.py): never outside it through a link, never a
secret file, and secret values in an included example masked, as for every passage shown."""

from __future__ import annotations

import os

from ragls.answer.includes import included_block

PAGE = "Caching\n=======\n\nUse it like so:\n\n.. literalinclude:: {target}\n    :language: python\n"


def _block(folder, target: str, files=None):
    (folder / "docs").mkdir(exist_ok=True)
    (folder / "docs" / "conf.py").write_text("project = 'x'\n")
    text = PAGE.format(target=target)
    return included_block(text, 5, "docs/caching.rst", str(folder), files)


def test_an_example_inside_the_folder_is_shown(tmp_path):
    (tmp_path / "docs" / "examples").mkdir(parents=True)
    (tmp_path / "docs" / "examples" / "app.py").write_text("cache = True\n")
    block = _block(tmp_path, "/examples/app.py")
    assert block is not None and block.lines == ["```python", "cache = True", "```"]


def test_a_link_out_of_the_folder_is_not_followed(tmp_path):
    outside = tmp_path / "home"
    outside.mkdir()
    (outside / "notes.py").write_text("PRIVATE_MARKER = 1\n")
    folder = tmp_path / "project"
    (folder / "docs").mkdir(parents=True)
    os.symlink(outside, folder / "docs" / "examples")
    assert _block(folder, "/examples/notes.py") is None
    os.symlink(outside / "notes.py", folder / "docs" / "mine.py")
    assert _block(folder, "mine.py") is None


def test_a_secret_file_is_never_shown(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / ".env").write_text("OPENAI_API_KEY=sk-live-0123456789abcdefghij\n")
    assert _block(tmp_path, "/.env") is None
    os.symlink(tmp_path / "docs" / ".env", tmp_path / "docs" / "settings.py")  # an innocent name linking to it
    assert _block(tmp_path, "settings.py") is None


def test_secret_values_in_an_example_are_masked(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "client.py").write_text('api_key = "sk-live-0123456789abcdefghij"\nclient = Client(api_key)\n')
    block = _block(tmp_path, "client.py")
    assert block is not None
    shown = "\n".join(block.lines)
    assert "sk-live-0123456789abcdefghij" not in shown and "client = Client(api_key)" in shown


def test_the_repositorys_own_git_data_is_never_shown(tmp_path):
    """`.git/` is git's data about the user's clone (the remote URL, http.extraheader, the user's name and e-mail in
    logs/HEAD), never a page's example; the index never walks it (red team, session 47: '.. literalinclude::
    ../.git/config' showed the clone's config in the answer)."""
    (tmp_path / ".git" / "logs").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text('[remote "origin"]\n\turl = https://github.com/me/private\n')
    (tmp_path / ".git" / "logs" / "HEAD").write_text("0000 1111 Jane Doe <jane@example.com> clone\n")
    assert _block(tmp_path, "../.git/config") is None
    assert _block(tmp_path, "/../.git/logs/HEAD") is None
    os.symlink(tmp_path / ".git" / "config", tmp_path / "docs" / "git.cfg")
    assert _block(tmp_path, "git.cfg") is None
    (tmp_path / ".GIT").mkdir()  # `.git` itself on a case-insensitive file system (macOS, Windows)
    (tmp_path / ".GIT" / "config").write_text('[http]\n\textraheader = "AUTHORIZATION: basic Zm9vOmJhcg=="\n')
    (tmp_path / "docs" / ".Env").write_text("DB_PASSWORD=hunter2\n")
    assert _block(tmp_path, "../.GIT/config") is None
    assert _block(tmp_path, ".Env") is None


def test_a_file_the_index_never_reads_is_never_shown(tmp_path):
    """What the folder's `.gitignore` ignores (the user's untracked `terraform.tfvars`, a `private/` folder), a junk
    folder or `.git/info/exclude` keeps out is not the page's to show either (red team, session 48: a page of a
    cloned repository showed the user's gitignored terraform.tfvars in an answer); an included example the index
    merely does not take (`sources.include` has no `*.py` by default) is still shown."""
    (tmp_path / ".gitignore").write_text("terraform.tfvars\nprivate/\n!docs/kept.py\n")
    (tmp_path / "terraform.tfvars").write_text('vpn_shared_phrase = "correct horse battery staple"\n')
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "notes.txt").write_text("salary table\n")
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / "index.js").write_text("module.exports = 1\n")
    (tmp_path / "docs").mkdir()
    os.symlink(tmp_path / "terraform.tfvars", tmp_path / "docs" / "vars.py")  # a tracked name linking to it
    (tmp_path / "docs" / "kept.py").write_text("kept = 1\n")
    for target in ("../terraform.tfvars", "/../private/notes.txt", "../node_modules/pkg/index.js", "vars.py"):
        assert _block(tmp_path, target) is None, target
    assert _block(tmp_path, "kept.py").lines == ["```python", "kept = 1", "```"]


def test_the_open_index_decides_what_a_page_may_show(tmp_path):
    """With the folder's index open, a literalinclude asks that index's own filter (`FolderIndex.filter`, handed
    down by the workspace): a file the folder's `sources.exclude` keeps out is not shown, and a `.gitignore` edit
    counts as soon as the watcher has invalidated the filter (answer/includes.py kept a second filter of default
    settings, rebuilt every 5 s)."""
    from ragls.config.settings import build_settings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex

    folder = tmp_path / "project"
    (folder / "docs" / "drafts").mkdir(parents=True)
    (folder / "docs" / "drafts" / "plan.py").write_text("launch = 'friday'\n")
    (folder / "docs" / "app.py").write_text("cache = True\n")
    assert _block(folder, "drafts/plan.py") is not None  # no index open: the default sources settings
    settings = build_settings({"sources": {"exclude": ["docs/drafts/**"]}, "index": {"path": str(tmp_path / "i")}})[0]
    index = FolderIndex(folder, settings, Embedder(settings.embedding))
    try:
        assert _block(folder, "drafts/plan.py", index.filter) is None
        assert _block(folder, "app.py", index.filter).lines == ["```python", "cache = True", "```"]
        (folder / ".gitignore").write_text("docs/app.py\n")
        index.filter.invalidate()  # what the watcher does when a .gitignore changes
        assert _block(folder, "app.py", index.filter) is None
    finally:
        index.close()


def test_a_snippet_reads_by_the_same_rule(tmp_path):
    """A pymdownx.snippets fence (`--8<-- "path"`, answer/includes.py `snippets`) is read by the literalinclude's
    rule: a name above the folder ("../notes.py", the project root's files when `docs/` is indexed), a link out of
    it, a secret file or a gitignored file leaves the fence as written; a file inside it is shown."""
    from ragls.answer.blocks import markdown_blocks
    from ragls.answer.includes import snippets

    outside = tmp_path / "home"
    outside.mkdir()
    (outside / "notes.py").write_text("PRIVATE_MARKER = 1\n")
    folder = tmp_path / "project"
    (folder / "docs" / "examples").mkdir(parents=True)
    (folder / "notes.py").write_text("ROOT_MARKER = 1\n")
    (folder / "docs").mkdir(exist_ok=True)
    (folder / "docs" / ".gitignore").write_text("local.py\n")
    (folder / "docs" / "local.py").write_text("IGNORED_MARKER = 1\n")
    (folder / "docs" / ".env").write_text("OPENAI_API_KEY=sk-live-0123456789abcdefghij\n")
    (folder / "docs" / "examples" / "app.py").write_text("cache = True\n")
    os.symlink(outside / "notes.py", folder / "docs" / "examples" / "linked.py")
    docs = folder / "docs"

    def shown(name: str) -> list[str]:
        page = f'Use it like so:\n\n```python\n--8<-- "{name}"\n```\n'
        return snippets(markdown_blocks(page), "guide.md", str(docs))[-1].lines

    assert shown("docs/examples/app.py") == ["```python", "cache = True", "```"]
    assert shown("examples/app.py") == ["```python", "cache = True", "```"]
    for name in ("../notes.py", "notes.py", "examples/linked.py", "docs/examples/linked.py", ".env", "local.py",
                 "../.git/config"):
        assert shown(name) == ["```python", f'--8<-- "{name}"', "```"], name
