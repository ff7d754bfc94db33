"""The document-kind prior's head on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/search.py
`_document_priors`): a long changelog has more candidate chunks than the first 2 x top_k + 10 (at least 30) the
priors weigh; once the head's changelog chunks are demoted, the next ones from below move up into the shown hits, and they are
demoted too — no shown changelog chunk keeps its undemoted score (near-copy removal off: the sections are alike)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.search import PAGE_HEAD, prior_head
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

WAYS = ("is retried", "waits longer", "backs off", "times out")
# One release section (~520 characters) per chunk (CHUNKING): 48 changelog chunks, more than the head's 30;
# 120 sections at the default chunk size made 46 chunks (126 windows to embed): 30 CPU-s for this test, now 8.
SECTIONS = 48
CHUNKING = "[chunking]\nchunk_size = 600\n"


def changelog() -> str:
    rng = random.Random(7)

    def section(i: int) -> str:
        body = " ".join(f"The retry timeout of the upload client was "
                        f"{rng.choice(['fixed', 'changed', 'improved', 'reworked', 'adjusted'])} so that a slow server "
                        f"{way} before the request gives up; issue {100 + i * 7 + j}." for j, way in enumerate(WAYS))
        return f"## {i // 10}.{i % 10}.0 (2024-0{1 + i % 9}-1{i % 9})\n\n{body}\n"

    return "# Changelog\n\n" + "\n".join(section(i) for i in range(SECTIONS, 0, -1))


GUIDE = """# Uploads

## Retries and timeouts

The upload client retries a request that timed out. Set `retry_timeout` in the `[upload]` section to the number of
seconds it waits for a slow server before it gives up and retries; the default is 30.
"""
QUESTION = "How long does the upload client wait for a slow server before it retries?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("head"), {"CHANGES.md": changelog(), "uploads.md": GUIDE},
                          toml=CHUNKING)


def scores(folder: Path, weight: float | None, top_k: int) -> dict[tuple[str, int], float]:
    layers = [{"retrieval": {"dedup_cosine": 1.0, **({"meta_page_weight": weight} if weight is not None else {})}}]
    ws = RagWorkspace([folder], layers, read_only=True)
    try:
        return {(h.chunk.path, h.chunk.span.start_line): h.score for h in ws.retrieve(QUESTION, top_k=top_k)}
    finally:
        ws.close()


def test_changelog_chunks_lifted_into_the_head_are_demoted_too(folder):
    off = scores(folder, 1.0, 60)  # every candidate, the prior off
    assert sum(path == "CHANGES.md" for path, _ in off) > prior_head(5)  # more changelog candidates than the head holds
    shown = scores(folder, None, 5)
    assert next(iter(shown)) == ("uploads.md", 0)
    changes = [key for key in shown if key[0] == "CHANGES.md"]
    assert changes  # demoted, not dropped
    assert all(shown[key] == pytest.approx(0.6 * off[key]) for key in changes)


def test_the_first_hits_at_top_k_5_are_those_at_10(folder):
    # the head is 2 x top_k + 10 but at least top_k 10's 30 (`search.prior_head`): rag/query at its default top_k 5
    # ranks as `ragls eval` measures at 10
    assert (prior_head(5), prior_head(10), prior_head(20)) == (PAGE_HEAD, 30, 50)
    five, ten = scores(folder, None, 5), scores(folder, None, 10)
    assert list(five.items()) == list(ten.items())[:5]
