"""API reference pages that Sphinx autodoc or mkdocstrings fill from the package's docstrings (index/autodoc.py):
a docs folder holds only the directive, and rag/status says why questions about those APIs go unanswered and what
to index, with a real index (manifest, BM25, LanceDB) and the offline model."""

from __future__ import annotations

from offline_index import indexed_folder
from ragls.lsp.wire import to_wire_status
from ragls.workspace.rag_workspace import RagWorkspace
from ragls.workspace.status import workspace_status

PAGES = {
    "api/app.md": '---\ntitle: "sprocket.app"\n---\n\n::: sprocket.app\n    options:\n        show_root_heading: true\n',
    "api/web.rst": "Web\n===\n\n.. automodule:: sprocket.web\n   :members:\n",
    "guide.md": "# Guide\n\nSprocket serves pages. Run `sprocket serve` to start it.\n",
}


def _notices(folder) -> list[str]:
    """The autodoc notices of rag/status, each checked to be a note on the wire (noticeLevels "info": nothing fails,
    so an editor's status item is not marked as a warning for it)."""
    ws = RagWorkspace([folder])
    try:
        ws.index()
        wire = to_wire_status(workspace_status(ws))
        assert len(wire["noticeLevels"]) == len(wire["notices"])
        found = [(n, level) for n, level in zip(wire["notices"], wire["noticeLevels"]) if "autodoc" in n]
        assert all(level == "info" for _, level in found), found
        return [n for n, _ in found]
    finally:
        ws.close()


def test_status_says_which_pages_are_filled_from_docstrings(tmp_path):
    """Before, nothing told the user why "What does sprocket.web.serve return?" found only a directive line."""
    folder = indexed_folder(tmp_path, PAGES, filler=False)
    notices = _notices(folder)
    assert len(notices) == 1, notices
    assert notices[0].startswith(f"{folder}: 2 pages (api/app.md, api/web.rst) document Python APIs "
                                 "(`sprocket.app`, `sprocket.web`) with autodoc directives"), notices
    assert 'sources.include, e.g. "src/**/*.py"' in notices[0]
    (folder / "api" / "app.md").unlink()
    (folder / "api" / "web.rst").write_text("Web\n===\n\nThe web layer serves pages.\n")
    assert _notices(folder) == []  # the last autodoc page deleted or rewritten: no notice


def test_no_notice_when_the_package_is_indexed_too(tmp_path):
    files = {**PAGES, "sprocket/web.py": '"""The web layer."""\n\n\ndef serve():\n    """Serve pages."""\n'}
    folder = indexed_folder(tmp_path, files, filler=False, toml='[sources]\ninclude = ["**/*.md", "**/*.rst", "**/*.py"]\n')
    assert _notices(folder) == []
