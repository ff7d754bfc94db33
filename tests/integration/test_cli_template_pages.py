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


# A theme partial holding only a script (mkdocs-material's analytics integration): no HTML tree, which trafilatura
# logs as ERRORs ("parsed tree length: 1, wrong data type or not valid HTML", "empty HTML tree: None")
PARTIAL = """<script
  src="https://analytics.example.org/script.js"
  data-site="ABCDEF"
  defer
></script>
"""


def test_a_template_page_is_skipped_without_the_converters_warnings(tmp_path, caplog):
    """Every Sphinx project has `_templates/*.html` (pytest's sidebar links): each `ragls ask` or `index` printed
    "WARNING trafilatura.external: readability_lxml failed:" and "WARNING trafilatura.core: discarding data: None"
    above the answer, for a page ragls then lists as skipped with its own reason. trafilatura's warnings about a page
    it cannot extract, and its ERRORs about a page with no HTML tree (a theme's script-only partial), stay off
    the terminal: ragls says itself why the page is skipped."""
    from clikit import ragls

    folder = tmp_path / "docs"
    (folder / "_templates").mkdir(parents=True)
    (folder / "guide.md").write_text("# Guide\n\nWorkers retry a failed job three times before giving up on it.\n")
    (folder / "_templates" / "sidebar.html").write_text(TEMPLATE)
    (folder / "_templates" / "analytics.html").write_text(PARTIAL)  # trafilatura's ERRORs
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1"}
    ragls(env, "index", folder)
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("trafilatura")], caplog.text
    status = ragls(env, "status", folder).stdout
    assert "_templates/sidebar.html: no extractable text" in status, status
