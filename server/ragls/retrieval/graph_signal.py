"""The graph signal of hybrid retrieval (graph RAG, query time); the graph is built by `index/graph_extract.py`.

1. Seed entities: every entity whose name or alias occurs in the query as whole words, case-insensitively
   (score 1.0), plus the `SIM_TOP` entities whose name embedding has cosine similarity >= `SIM_FLOOR` with the
   query (score = that similarity). Name embeddings are computed once and kept in the manifest's embedding
   cache (keyed by the name, so they survive restarts) and in memory.
2. Expansion: `retrieval.graph_hops` rings around the seeds (0 = seeds only). A neighbour v of u scores
   score(u) * w(u, v) / max w(u, .) * (1 + max(0, cos(query, v))) / 2: edge weight relative to u's strongest
   edge, times the neighbour's own relevance to the query; the best path counts.
3. The best `ENTITY_TOP` entities vote for the chunks that mention them: a chunk scores the sum of its
   entities' scores. The signal is the chunk list by that score (fused by RRF with weight
   `retrieval.graph_weight`, 0.9), so `Hit.signals["graph"]` is a chunk's rank in it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragls.core.hashing import text_hash
from ragls.stores.graph import edge_weight, entity_key

if TYPE_CHECKING:
    import numpy as np

    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex
    from ragls.stores.graph import GraphStore

SIM_FLOOR = 0.5
SIM_TOP = 3
ENTITY_TOP = 20
MAX_NAME_WORDS = 8
_WORD = re.compile(r"\w+")


class GraphSignal:
    """Callable `(query, query vector or None, n) -> [((folder position, chunk id), score)]`, best first, at
    most `n`, over the graphs of `indexes` (`stores[i]` None: that folder has no graph). `hops` from
    `retrieval.graph_hops`."""

    def __init__(self, indexes: Sequence[FolderIndex], stores: Sequence[GraphStore | None], embedder: Embedder,
                 hops: int):
        self.indexes = indexes
        self.stores = stores
        self.embedder = embedder
        self.hops = hops
        self._names: dict[int, tuple[int, list[str], np.ndarray | None, dict[str, str]]] = {}
        self._lock = threading.Lock()

    def __call__(self, query: str, qvec, n: int) -> list[tuple[tuple[int, str], float]]:
        import numpy as np

        out: list[tuple[tuple[int, str], float]] = []
        for i, store in enumerate(self.stores):
            if store is None:
                continue
            if not self.indexes[i].writer:
                store.reload_if_changed()
            if qvec is None:
                qvec = self.embedder.embed_query(query)
            with store.lock:
                scores = self.entity_scores(i, store, query, np.asarray(qvec, dtype=np.float32))
                best = sorted(scores.items(), key=lambda kv: -kv[1])[:ENTITY_TOP]
                chunk_scores: dict[str, float] = {}
                for key, s in best:
                    for cid in store.graph.nodes[key]["chunks"]:
                        chunk_scores[cid] = chunk_scores.get(cid, 0.0) + s
            out += [((i, cid), s) for cid, s in chunk_scores.items()]
        return sorted(out, key=lambda kv: -kv[1])[:n]

    # -- entities ------------------------------------------------------------------------------------------
    def _name_index(self, i: int, store: GraphStore):
        """(graph version, entity keys, name vectors (len, dim) or None, {normalised alias: key})."""
        with self._lock:
            cached = self._names.get(i)
            if cached is not None and cached[0] == store.version:
                return cached
            keys = list(store.graph.nodes)
            aliases: dict[str, str] = {}
            for k in keys:
                data = store.graph.nodes[k]
                aliases.setdefault(k, k)
                for a in data.get("aliases", []):
                    aliases.setdefault(entity_key(a), k)
            names = [store.graph.nodes[k]["name"] for k in keys]
            vecs = self._embed_names(self.indexes[i], names) if names else None
            cached = (store.version, keys, vecs, aliases)
            self._names[i] = cached
            return cached

    def _embed_names(self, index: FolderIndex, names: list[str]) -> np.ndarray:
        import numpy as np

        hashes = [text_hash("entity name\0" + name) for name in names]
        fp = index.embed_fp
        cached = index.manifest.cached_vectors(fp, hashes)
        todo = {h: name for h, name in zip(hashes, names) if h not in cached}
        if todo:
            vecs = self.embedder.embed_documents(list(todo.values()))
            fresh = dict(zip(todo.keys(), vecs))
            if index.writer:
                index.manifest.cache_vectors(fp, fresh)
            cached.update(fresh)
        return np.stack([np.asarray(cached[h], dtype=np.float32) for h in hashes])

    def entity_scores(self, i: int, store: GraphStore, query: str, qvec: np.ndarray) -> dict[str, float]:
        """Entity key -> score for `query` after `hops` expansion (see module docstring)."""
        import numpy as np

        _, keys, vecs, aliases = self._name_index(i, store)
        if not keys:
            return {}
        sims = vecs @ qvec if vecs is not None else np.zeros(len(keys), dtype=np.float32)
        sim_of = dict(zip(keys, (float(s) for s in sims)))
        scores: dict[str, float] = {}
        words = _WORD.findall(query.casefold())
        for size in range(1, min(MAX_NAME_WORDS, len(words)) + 1):
            for start in range(len(words) - size + 1):
                k = aliases.get(" ".join(words[start:start + size]))
                if k is not None:
                    scores[k] = 1.0
        for j in np.argsort(-sims)[:SIM_TOP]:
            if sims[j] >= SIM_FLOOR:
                scores[keys[j]] = max(scores.get(keys[j], 0.0), float(sims[j]))
        graph = store.graph
        ring = dict(scores)
        for _ in range(self.hops):
            nxt: dict[str, float] = {}
            for u, su in ring.items():
                edges = graph[u]
                if not edges:
                    continue
                wmax = max(edge_weight(d) for d in edges.values())
                for v, d in edges.items():
                    s = su * edge_weight(d) / wmax * (1.0 + max(0.0, sim_of[v])) / 2.0
                    if s > scores.get(v, 0.0) and s > nxt.get(v, 0.0):
                        nxt[v] = s
            scores.update(nxt)
            ring = nxt
        return scores
