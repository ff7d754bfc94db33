"""The user's shared embedding cache (stores/embed_cache.py): a moved folder and a second clone re-embed nothing
(real LanceDB, tantivy and the offline model); the LRU bound evicts the least recently used vectors; a read creates
no file; `index.embedding_cache_mb = 0` keeps the cache per index."""

from __future__ import annotations

import shutil

import numpy as np
from ragls.config.settings import build_settings
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.stores.embed_cache import EmbeddingCache


def settings(index_path, **index):
    emb = {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir())}
    return build_settings({"embedding": emb, "index": {"path": str(index_path), **index}})[0]


def write_docs(folder):
    folder.mkdir(parents=True)
    for n in range(3):
        (folder / f"doc{n}.md").write_text(f"# Doc {n}\n\n" + f"Paragraph {n} about topic {n * 7}. " * 40 + "\n")
    return folder


def test_moved_folder_and_second_clone_re_embed_nothing(tmp_path):
    first = write_docs(tmp_path / "project")
    s = settings(tmp_path / "index-a")
    idx = FolderIndex(first, s, Embedder(s.embedding))
    idx.sync()
    computed = idx.embedder.texts_embedded
    assert computed >= 3
    idx.close()

    moved = tmp_path / "elsewhere" / "project-moved"
    moved.parent.mkdir()
    shutil.move(first, moved)
    clone = tmp_path / "clone"
    shutil.copytree(moved, clone)
    for folder, index_path in ((moved, tmp_path / "index-b"), (clone, tmp_path / "index-c")):
        s = settings(index_path)
        idx = FolderIndex(folder, s, Embedder(s.embedding))
        try:
            idx.sync()
            assert idx.embedder.texts_embedded == 0  # every window came from the shared cache
            assert idx.pending_count() == 0 and idx.vectors.count() >= 3
        finally:
            idx.close()


def test_per_index_cache_when_the_shared_one_is_off(tmp_path):
    folder = write_docs(tmp_path / "project")
    s = settings(tmp_path / "index-a", embedding_cache_mb=0)
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    idx.sync()
    idx.close()
    s = settings(tmp_path / "index-b", embedding_cache_mb=0)
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    try:
        idx.sync()
        assert idx.embedder.texts_embedded > 0  # nothing shared between the two indexes
    finally:
        idx.close()


def test_lru_bound_evicts_least_recently_used(tmp_path):
    path = tmp_path / "cache.sqlite"
    cache = EmbeddingCache(path, limit_bytes=300 * 1536)  # room for 300 384-d float32 vectors
    assert cache.get("fp", ["x"]) == {} and not path.exists()  # a read creates nothing
    vec = np.ones(384, dtype=np.float32)
    cache.put("fp", {f"old{i}": vec for i in range(200)})
    cache.get("fp", [f"old{i}" for i in range(100)])  # the first 100 are used again: most recent
    cache.put("fp", {f"new{i}": vec for i in range(200)})  # 400 vectors > 300: evict down to 90% (270)
    kept = cache.get("fp", [f"old{i}" for i in range(200)] + [f"new{i}" for i in range(200)])
    assert len(kept) == 270 and cache.size_bytes() == 270 * 1536
    assert all(f"new{i}" in kept for i in range(200))  # the newest survive
    assert sum(f"old{i}" in kept for i in range(100)) == 70  # refreshed ones outlive the never-reused ones
    assert not any(f"old{i}" in kept for i in range(100, 200))
    cache.close()


def test_a_lookup_without_touch_writes_nothing(tmp_path):
    """A request's lookup (`touch=False`: the answer sentences `rag/ask` reads, RagWorkspace._stored_vectors) finds
    the vectors without refreshing their access time: no write, so it never waits for another process's."""
    cache = EmbeddingCache(tmp_path / "cache.sqlite", limit_bytes=300 * 1536)
    vec = np.ones(384, dtype=np.float32)
    cache.put("fp", {"a": vec, "b": vec})
    db = cache._db(create=False)
    db.execute("UPDATE embeddings SET used_at=1")
    got = cache.get("fp", ["a", "b", "c"], touch=False)
    assert set(got) == {"a", "b"} and np.array_equal(got["a"], vec)
    assert db.execute("SELECT MAX(used_at) FROM embeddings").fetchone()[0] == 1
    cache.get("fp", ["a"])  # a lookup that touches: "a" becomes most recent
    assert db.execute("SELECT used_at > 1 FROM embeddings WHERE text_hash='a'").fetchone()[0] == 1
    cache.close()
