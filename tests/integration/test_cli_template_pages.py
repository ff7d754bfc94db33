"""A Sphinx project's HTML templates (`_templates/*.html`, Jinja) have no text to index: `ragls index` says so in the
skipped files, and the HTML converter's own warnings about them do not reach the terminal (cli/app.py
`_setup_logging`)."""

from __future__ import annotations

import os

TEMPLATE = """<h3>Project links</h3>
<ul>
  <li><a href="{{ pathto('changelog') }}">Changelog</a></li>
  <li><a href="https://example.org/issues">Issue tracker</a></li>
</ul>
"""


def test_a_template_page_is_skipped_without_the_converters_warnings(tmp_path, caplog):
    """Every Sphinx project has `_templates/*.html` (pytest's sidebar links): each `ragls ask` or `index` printed
    "WARNING trafilatura.external: readability_lxml failed:" and "WARNING trafilatura.core: discarding data: None"
    above the answer, for a page ragls then lists as skipped with its own reason. trafilatura's warnings about a page
    it cannot extract are kept below ERROR, as other libraries' chatter is."""
    from clikit import ragls

    folder = tmp_path / "docs"
    (folder / "_templates").mkdir(parents=True)
    (folder / "guide.md").write_text("# Guide\n\nWorkers retry a failed job three times before giving up on it.\n")
    (folder / "_templates" / "sidebar.html").write_text(TEMPLATE)
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1"}
    ragls(env, "index", folder)
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("trafilatura")], caplog.text
    status = ragls(env, "status", folder).stdout
    assert "_templates/sidebar.html: no extractable text" in status, status
