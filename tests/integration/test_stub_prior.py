"""Stub chunks on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py,
`retrieval.stub_chunk_weight`): a page's one-line intro, cut off by its first subheading, matches a question about
the page's topic as well as the section that answers it; with the prior off it ranks first, with the default the
answering section does; the stub is demoted, not dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

LAYOUT = """Pages live in the `docs` folder; each Markdown file there becomes one page of the site, and folders
become sections of the navigation. An `index.md` file in a folder is that section's first page, and files whose names
start with a dot are left out. Images and other files next to the pages are copied to the site as they are.
"""
WRITING = ("# Writing your pages\n\nHow to lay out and write the Markdown source files of your site.\n\n---\n\n"
           "## File layout\n\n" + LAYOUT * 6)
HOOKS = """# Configuration

## hooks

A list of paths to Python scripts, relative to the configuration file, that are loaded and used as plugin
instances. This enables no new abilities compared to plugins; it only simplifies one-off usages, as these scripts
do not need to be installed like plugins do. A script only needs a function named after the event it handles, such
as `on_page_markdown`, which receives each page's source before it is converted.
"""
QUESTION = "Can a script change the Markdown of my pages?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("stub"), {"writing.md": WRITING, "configuration.md": HOOKS})


def ranked(folder: Path, weight: float | None) -> list[tuple[str, int, float]]:
    # page support off (`retrieval.page_support_weight`): the prior alone; writing.md's second passage would otherwise
    # lift its stub too (tests/integration/test_page_support.py)
    layers = [{"retrieval": {"page_support_weight": 0.0, **({"stub_chunk_weight": weight} if weight is not None else {})}}]
    ws = RagWorkspace([folder], layers, read_only=True)
    try:
        return [(h.chunk.path, h.chunk.span.start_line, h.score) for h in ws.retrieve(QUESTION, top_k=5)]
    finally:
        ws.close()


def test_a_stub_ranks_below_the_answering_section(folder):
    off = ranked(folder, 1.0)
    assert off[0][:2] == ("writing.md", 0)  # the prior off: the one-line intro (cosine 0.63 against 0.48) wins
    got = ranked(folder, None)
    assert got[0][:2] == ("configuration.md", 0)
    stub = next(score for path, line, score in got if (path, line) == ("writing.md", 0))  # demoted, not dropped
    assert stub == pytest.approx(0.9 * off[0][2])
    rest = {(path, line): score for path, line, score in off[1:]}
    assert all(rest[path, line] == pytest.approx(score) for path, line, score in got if (path, line) != ("writing.md", 0))
