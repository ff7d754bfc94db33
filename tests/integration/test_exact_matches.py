"""Exact identifier matches on a real index (tantivy + LanceDB + the offline MiniLM): a chunk holding a rare word
inside mostly-code text, and a snake_case identifier whose parts are common words, are ranked first in hybrid
search (retrieval/search.py exact-match bonus, stores/bm25.py compound-identifier phrases)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

ANIMALS = ["otter", "heron", "badger", "beaver", "kingfisher", "salmon", "vole", "stoat", "newt", "dragonfly"]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {f"note{i}.md": f"# Note {i}\n\nThe {animal} lives near the river and eats fish.\n"
             for i, animal in enumerate(ANIMALS)}
    fence = ["\n".join(f"let value_{n} = compute({n});" for n in range(a, b)) for a, b in ((0, 30), (30, 120))]
    # The rare word between code fences, in the middle of full-size, code-dominated embedding windows
    files["fence.md"] = (f"# Build script\n\n```rust\n{fence[0]}\n```\n\nBetween the fences: the manatee.\n\n"
                         f"```rust\n{fence[1]}\n```\n")
    # The words of get_worktrees, apart, in a short chunk; the identifier itself once, in a long chunk.
    files["options.md"] = "# Options\n\nWorktrees: to get one, get a branch first; worktrees share objects.\n"
    notes = " ".join(f"Release {n} fixed the {ANIMALS[n % 10]} exporter and tuned caching." for n in range(4))
    files["api.md"] = f"# Release notes\n\n{notes}\nThe helper get_worktrees() lists checkouts.\n"
    # fewer vector candidates than notes: the fence chunk is BM25's alone
    with extractive_workspace(tmp_path_factory.mktemp("exact"), files, filler=False,
                              toml="[retrieval]\ncandidates = 8\n") as w:
        yield w


def test_rare_word_in_a_code_heavy_chunk_ranks_first(ws):
    hits = ws.retrieve("manatee", top_k=5)
    assert hits[0].chunk.path == "fence.md"
    assert hits[0].signals == {"bm25": 1}  # found by BM25 alone: the vector signal's 8 candidates are notes


def test_snake_case_identifier_is_matched_as_a_phrase(ws):
    bm25 = ws.indexes[0].bm25.search("get_worktrees", 5)
    paths = [ws.indexes[0].manifest.get_chunks([cid])[cid].path for cid, _ in bm25]
    assert paths[0] == "api.md"  # not options.md: short, with both words, but apart
    assert ws.retrieve("get_worktrees", top_k=3)[0].chunk.path == "api.md"
