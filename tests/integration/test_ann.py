"""The approximate vector index (index.ann_threshold): real LanceDB. Past the threshold the IVF_PQ index is built
and search uses it, keeping the exact search's recall; a workspace past a small test threshold builds it after
indexing and answers with the same top chunk as before."""

from __future__ import annotations

import numpy as np
from ragls.core.ir import Chunk, LineSpan
from ragls.embedding.embed import OFFLINE_MODEL_NAME, offline_model_dir
from ragls.index.windows import Window
from ragls.stores.vectors import VectorStore
from ragls.workspace.rag_workspace import RagWorkspace


def unit(v):
    return (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)


def test_ann_search_keeps_the_exact_search_recall(tmp_path):
    rng = np.random.default_rng(7)
    dim, n = 64, 3000
    vecs = unit(rng.normal(size=(n, dim)))
    store = VectorStore(tmp_path / "vectors", dim)
    chunks = {f"c{i}": Chunk(id=f"c{i}", path=f"f{i}.md", text="x", span=LineSpan(0, 0, 0, 1), text_hash=f"h{i}")
              for i in range(n)}
    windows = [Window(chunk_id=f"c{i}", index=0, count=1, start_line=0, end_line=0, text="x") for i in range(n)]
    store.add(chunks, windows, vecs, [f"h{i}" for i in range(n)])
    queries = unit(vecs[:40] + 0.3 * unit(rng.normal(size=(40, dim))))  # query i is a noisy copy of chunk c{i}
    exact = [[cid for cid, _ in store.search(q, 10)] for q in queries]
    # The exact search's one-request path returns what LanceDB's synchronous query builder returns.
    cols = ["id", "window", "start_line", "end_line", "vector", "_distance"]
    assert store._nearest_rows(queries[0], 40).equals(
        store.table.search(queries[0]).distance_type("cosine").select(cols).limit(40).to_arrow())
    reader = VectorStore(tmp_path / "vectors", dim)  # another process's view: it caches per table version
    assert not store.has_ann() and not reader.has_ann() and reader.chunk_count() == n
    store.build_ann()
    assert store.has_ann()
    assert not reader.has_ann()  # not refreshed yet: still the version it read
    reader.refresh()
    assert reader.has_ann() and reader.chunk_count() == n
    approx = [[cid for cid, _ in store.search(q, 10)] for q in queries]
    # Approximate search may miss a neighbour now and then; it must keep the exact search's recall on the whole
    # and find the chunk each query was made from.
    recall = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact)])
    assert recall >= 0.9
    assert sum(f"c{i}" in a for i, a in enumerate(approx)) >= 38
    assert all(sims == sorted(sims, reverse=True) for sims in ([s for _, s in store.search(q, 10)] for q in queries))
    extra = {"new": Chunk(id="new", path="new.md", text="x", span=LineSpan(0, 0, 0, 1), text_hash="hn")}
    store.add(extra, [Window(chunk_id="new", index=0, count=1, start_line=0, end_line=0, text="x")],
              unit(rng.normal(size=(1, dim))), ["hn"])
    assert store.chunk_count() == n + 1  # its own write: counted again
    reader.refresh()
    assert reader.chunk_count() == n + 1  # a new table version: counted again


def test_workspace_builds_the_index_past_the_threshold(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(280):
        (folder / f"note{i:03}.md").write_text(f"# Note {i}\n\nItem {i} concerns subject number {i * 13 % 97}.\n")
    (folder / "retries.md").write_text("# Retries\n\nFailed uploads are retried five times with exponential "
                                       "backoff capped at sixty seconds.\n")
    emb = {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir())}
    ws = RagWorkspace([folder], [{"embedding": emb, "index": {"ann_threshold": 100}}])
    try:
        ws.index()
        assert ws.indexes[0].vectors.has_ann()
        hits = ws.query("how often are failed uploads retried").hits
        assert hits[0].chunk.path == "retries.md"
    finally:
        ws.close()
