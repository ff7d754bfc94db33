"""Deleting rows of the LanceDB vector store (`stores/vectors.py`) by chunk id and by file path, real LanceDB: more
values than one delete filter takes (500 ids, 200 paths) are deleted in batches, every window of a chunk goes, and
only the rows named go."""

from __future__ import annotations

import numpy as np
from ragls.core.ir import Chunk, LineSpan
from ragls.index.windows import Window
from ragls.stores.vectors import VectorStore


def test_deletes_by_id_and_by_path_span_batches_and_keep_the_others(tmp_path):
    dim, n = 8, 1200  # chunk i lives in file f{i // 2}.md; chunks of even i have two windows
    store = VectorStore(tmp_path / "vectors", dim)
    chunks = {f"c{i}": Chunk(id=f"c{i}", path=f"f{i // 2}.md", text="x", span=LineSpan(0, 0, 0, 1),
                             text_hash=f"h{i}") for i in range(n)}
    windows = [Window(chunk_id=f"c{i}", index=w, count=2 - i % 2, start_line=0, end_line=0, text="x")
               for i in range(n) for w in range(2 - i % 2)]
    vectors = np.random.default_rng(3).normal(size=(len(windows), dim)).astype(np.float32)
    store.add(chunks, windows, vectors, [f"h{int(w.chunk_id[1:])}" for w in windows])
    assert store.chunk_count() == n
    store.delete_ids(f"c{i}" for i in range(0, 1100, 2))  # 550 ids: two filters, each chunk with its two windows
    store.delete_paths(f"f{k}.md" for k in range(300, 550))  # 250 paths: two filters
    left = {f"c{i}" for i in range(n) if i % 2 and not 300 <= i // 2 < 550} | {f"c{i}" for i in range(1100, n)}
    assert set(store.ids()) == left and store.chunk_count() == len(left)
    keys = store.window_keys()
    assert {k[0] for k in keys} == left and len(keys) == store.count() == sum(2 - int(c[1:]) % 2 for c in left)
