"""MkDocs includes resolved into the including Markdown page (sources/rest_include.py, index/inclusion.py), as reST's
`.. include::` is, on real indexes (tantivy, SQLite, LanceDB with the offline model) over real files: a snippet file
a page includes (pymdownx.snippets `--8<--`, a line or a block; include-markdown) is found as part of the page and
cited at its own lines, never as a hit of its own; a snippet path is read from the page's folder or the nearest
folder above it that holds it (the MkDocs project's `base_path`); a snippet nobody includes stays a document."""

from __future__ import annotations

from offline_index import extractive_workspace, file_lines, line_of
from ragls.config.settings import build_settings
from ragls.embedding.embed import Embedder
from ragls.index.indexer import FolderIndex

PAGE = """# ACME certificates

Traefik asks Let's Encrypt for certificates through a certificate resolver.

```bash tab="CLI"
--8<-- "content/https/ref-acme.txt"
```

## Storage

Keep the resolver's storage file on a volume so it survives restarts.
"""

SNIPPET = """# Enable ACME (Let's Encrypt): automatic SSL.
--certificatesresolvers.myresolver.acme.email=test@example.com

# Use a DNS-01 challenge for a wildcard certificate of the marmoset zone.
--certificatesresolvers.myresolver.acme.dnschallenge.provider=digitalocean
"""

NOTICE = """!!! note "Shared notice"

    The capybara gateway edition adds request quotas to every router.
"""

GUIDE = """# Routers

A router matches requests by rule.

{% include-markdown "includes/notice.md" %}
"""

LONELY = "# Loose note\n\nNobody includes this page about the okapi migration.\n"

FILES = {"content/reference/acme.md": PAGE, "content/https/ref-acme.txt": SNIPPET,
         "content/includes/notice.md": NOTICE, "content/routing/router.md": GUIDE, "content/loose.md": LONELY}


def test_a_snippet_is_part_of_the_page_and_cited_where_it_lives(tmp_path):
    with extractive_workspace(tmp_path, FILES) as ws:
        hits = ws.retrieve("DNS-01 challenge for a wildcard certificate of the marmoset zone", top_k=10)
        top = hits[0].chunk
        assert (top.path, top.included_in) == ("content/https/ref-acme.txt", "content/reference/acme.md"), hits
        first, last = file_lines(top.span)  # the snippet's own lines, which the editor opens
        assert first <= line_of(SNIPPET, "marmoset") <= last <= len(SNIPPET.splitlines())
        assert "--8<--" not in "\n".join(h.chunk.text for h in hits)
        # the snippet file is never a hit of its own: every chunk holding its text is the page's
        marmoset = [h.chunk for h in hits if "marmoset" in h.chunk.text]
        assert [(c.path, c.included_in) for c in marmoset] == [("content/https/ref-acme.txt", "content/reference/acme.md")]
        # the page's own text after the snippet: its lines in the page file, titled as the page's chunks are
        own = next(h.chunk for h in ws.retrieve("storage file on a volume survives restarts", top_k=5)
                   if "volume" in h.chunk.text)
        assert (own.path, own.included_in) == ("content/reference/acme.md", "")
        assert own.title.startswith("ACME certificates") and own.text.startswith("## Storage")
        assert file_lines(own.span)[0] <= line_of(PAGE, "volume") <= file_lines(own.span)[1]
        # include-markdown from a page two folders down, read from the folder above that holds includes/
        notice = next(h.chunk for h in ws.retrieve("capybara gateway edition request quotas", top_k=5)
                      if "capybara" in h.chunk.text)
        assert (notice.path, notice.included_in) == ("content/includes/notice.md", "content/routing/router.md")
        lonely = ws.retrieve("okapi migration", top_k=3)[0].chunk
        assert (lonely.path, lonely.included_in) == ("content/loose.md", "")
        answer = ws.ask("Which challenge gives a wildcard certificate of the marmoset zone?")
        # a source of the answer at the snippet's own path (listed after the page it quotes: `ask.cited_first`)
        assert "content/https/ref-acme.txt" in [h.chunk.path for _, h in answer.sources], answer.sources


def test_snippet_blocks_line_ranges_and_what_stays_as_written(tmp_path):
    """A block of snippet paths, a `:start:end` line range, an escaped `;--8<--` line and a path no folder holds:
    the first two are read in, the others stay as written; each chunk's lines are its file's."""
    page = ("# Guide\n\nIntro of the guide page.\n\n--8<--\nparts/a.md\nparts/b.md:3:3\n--8<--\n\n"
            ';--8<-- "parts/a.md"\n--8<-- "parts/missing.md"\n\nOutro of the guide page.\n')
    part_a = "## Part A\n\nAlpha text of part a.\n"
    part_b = "## Part B\n\nBravo text of part b.\nHidden line of part b.\n"
    folder = tmp_path / "docs"
    for rel, text in {"guide.md": page, "parts/a.md": part_a, "parts/b.md": part_b}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    settings = build_settings({"index": {"path": str(tmp_path / "index")}})[0]
    index = FolderIndex(folder, settings, Embedder(settings.embedding))
    index.sync(embed=False)
    try:
        chunks = [c for batch in index.manifest.iter_chunks() for c in batch]
        where = {(c.path, c.included_in): (file_lines(c.span), c.text) for c in chunks}
        assert where[("parts/a.md", "guide.md")] == ((1, 3), part_a.strip())
        assert where[("parts/b.md", "guide.md")] == ((3, 3), "Bravo text of part b.")
        own = "\n".join(text for (path, _), (_, text) in where.items() if path == "guide.md")
        assert ';--8<-- "parts/a.md"' in own and '--8<-- "parts/missing.md"' in own and "Hidden line" not in own
        assert ("parts/a.md", "") not in where and ("parts/b.md", "") not in where
        assert index.manifest.includers(read=True) == {"parts/a.md": {"guide.md"}, "parts/b.md": {"guide.md"}}
    finally:
        index.close()
