"""`DocumentsSource`: the ephemeral `documents` of one request (rag/ask `documents`, `#file` / `#url` / `#cmd`
prompts) as a retrieval source, held in memory and never written to an index.

The chunks come from `chunking.chunk_document` with the workspace's chunking settings; each has one vector (its
text as the embedding model reads it, no further windows) and is indexed in an in-memory tantivy index by the same
BM25 store as a folder (`stores/bm25.Bm25Store(None)`: same analysis, typo tolerance, compound phrases and CJK
bigrams). The pipeline (`search.search`) then fuses, deduplicates, focuses and gathers abstention evidence for them
as for any folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ragls.core.ir import Chunk
from ragls.retrieval.source import Candidates
from ragls.stores.bm25 import Bm25Store
from ragls.stores.vectors import WindowMatch

if TYPE_CHECKING:
    from ragls.config.settings import RetrievalSettings
    from ragls.retrieval.query import Query

HEAP_BYTES = 15_000_000  # tantivy's smallest writer heap: a request's documents are small


class DocumentsSource:
    """`chunks` (ids unique; a repeated id keeps its first chunk) with their L2-normalised `vectors` (n, dim),
    row i for chunks[i]. Raises ValueError when the counts differ."""

    has_bm25 = True
    has_graph = False
    bm25_comparable = True
    vectors_ready = True

    def __init__(self, chunks: Sequence[Chunk], vectors: np.ndarray):
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        rows: dict[str, int] = {}
        for i, c in enumerate(chunks):
            rows.setdefault(c.id, i)
        self.chunks = {cid: chunks[i] for cid, i in rows.items()}
        self._ids = list(rows)
        self.vectors = np.asarray(vectors, dtype=np.float32)[list(rows.values())] if rows else np.zeros((0, 1))
        self.bm25 = Bm25Store(None, heap_bytes=HEAP_BYTES)
        self.bm25.add(self.chunks.values())
        self.bm25.commit()

    def candidates(self, q: Query, n: int, settings: RetrievalSettings, signals: Sequence[str], *,
                   plain: bool = False) -> Candidates:
        """Cosine top `n` over all chunks (exact) and BM25 top `n` (`plain` is always so: no RM3 pass over a
        handful of documents)."""
        out = Candidates()
        if "vector" in signals and q.vector is not None and len(self._ids):
            sims = self.vectors @ np.asarray(q.vector, dtype=np.float32)
            order = np.argsort(-sims, kind="stable")[:n]
            lst = out.lists["vector"] = []
            for r in order:
                cid, sim = self._ids[r], float(sims[r])
                span = self.chunks[cid].span
                lst.append((cid, sim))
                out.similarity[cid] = sim
                out.matches[cid] = WindowMatch(cid, sim, 0, span.start_line, span.end_line, self.vectors[r])
        if "bm25" in signals:
            out.lists["bm25"] = self.bm25.search(q.text, n, words=q.bm25_words, compounds=q.compounds,
                                                 cjk_runs=q.cjk_runs, title_weight=settings.bm25_title_weight,
                                                 weights=q.word_weights)
        return out

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        return {cid: self.chunks[cid] for cid in ids if cid in self.chunks}

    def chunks_of(self, path: str) -> list[Chunk]:
        return sorted((c for c in self.chunks.values() if c.document == path), key=lambda c: c.ordinal)

    def term_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        return self.bm25.num_docs(), {t: self.bm25.doc_freq(t) for t in terms}

    def phrase_count(self, terms: Sequence[str]) -> int:
        return self.bm25.phrase_count(terms)

    def coverage(self) -> tuple[int, int]:
        return len(self._ids), 0

    def close(self) -> None:
        self.bm25.close()
