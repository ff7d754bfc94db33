"""What the retrieval pipeline (`search.search`) asks of a knowledge source, and the sources built on ragls' own
indexes.

Every kind of source — a workspace folder or a named RAG's index (`FolderSource`), the ephemeral `documents` of a
request (`retrieval/memory.DocumentsSource`), an attached Qdrant collection (`kb.qdrant_attach.CollectionSource`), a
team folder's shared collection (`kb.team.SharedSource`) — gives the same three things, and `search.search` does the
rest once for all of them (fusion, exact-match bonus, dedup, reranking, focus lines, parent document, abstention
evidence):

- candidate lists per signal with their scores (`Source.candidates` → `Candidates`): the vector signal's chunks
  with their (pooled) cosine, and the best window when the source stores windows; BM25's chunks with their score;
- chunk lookup (`get_chunks`, `chunks_of` for `retrieval.parent_document`) and corpus statistics for abstention
  (`term_stats`: chunk count and document frequencies of BM25 terms);
- capabilities: `vectors_ready` (its vector signal can be asked now), `has_bm25`, `has_graph`.

Chunks are keyed in the pipeline by (position of the source, chunk id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ragls.core.ir import Chunk
from ragls.retrieval.pooling import pooled_scores

if TYPE_CHECKING:
    from ragls.config.settings import RetrievalSettings
    from ragls.index.indexer import FolderIndex
    from ragls.retrieval.query import Query
    from ragls.sources.walk import FileFilter


@dataclass
class Candidates:
    """One source's candidates for one query.

    - `lists`: signal ("vector", "bm25") -> [(chunk id, score)], best first; vector scores are cosine (pooled over
      windows, `retrieval.window_margin`), BM25 scores the source's own BM25 (comparable between sources with
      `Source.bm25_comparable`).
    - `similarity`: chunk id -> cosine of its best window (Hit.similarity, abstention).
    - `matches`: chunk id -> best window (`stores.vectors.WindowMatch`: lines for focus, vector for dedup), for
      sources that store windows.
    - `chunks`: chunk id -> Chunk for the candidates the source already holds (payload-backed sources); the others
      are looked up with `get_chunks` only when needed.
    - `stats`: (chunk count, {term: document frequency}) of the pool the BM25 list was scored over, for a source
      without corpus statistics of its own (BM25 over its dense candidates); None: `Source.term_stats`.
    """

    lists: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    similarity: dict[str, float] = field(default_factory=dict)
    matches: dict[str, object] = field(default_factory=dict)
    chunks: dict[str, Chunk] = field(default_factory=dict)
    stats: tuple[int, dict[str, int]] | None = None


@runtime_checkable
class Source(Protocol):
    """One knowledge source of the retrieval pipeline (module docstring)."""

    has_bm25: bool
    has_graph: bool
    bm25_comparable: bool  # its BM25 scores are tantivy's over its own chunks (merged by score with other such)

    @property
    def vectors_ready(self) -> bool: ...

    def candidates(self, q: Query, n: int, settings: RetrievalSettings, signals: Sequence[str], *,
                   plain: bool = False) -> Candidates:
        """Top `n` per signal in `signals` for the analysed `q` (`q.vector`: its embedding, set when "vector" is
        asked); `plain`: BM25 without the RM3 feedback pass (query variants, the strong-signal probe)."""
        ...

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]: ...

    def chunks_of(self, path: str) -> list[Chunk]: ...

    def term_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]: ...

    # Optional (abstention's name test, `search._absent_names`): chunks holding the analysed `terms` as a phrase,
    # over the whole corpus. def phrase_count(self, terms: Sequence[str]) -> int

    def coverage(self) -> tuple[int, int]:
        """(chunks, chunks still without a vector): the vector signal's weight scales with the embedded share."""
        ...


class FolderSource:
    """A `FolderIndex` (workspace folder, a sources RAG's index, a team folder's overlay) as a pipeline source:
    LanceDB windows (pooled, `pooling.py`), tantivy BM25 (with typo tolerance; with `retrieval.bm25_feedback` the
    RM3 pass of `feedback.py`), the manifest for chunks."""

    has_bm25 = True
    bm25_comparable = True

    def __init__(self, index: FolderIndex, *, has_graph: bool = False):
        self.index = index
        self.has_graph = has_graph

    @property
    def vectors_ready(self) -> bool:
        return self.index.vectors_ready

    def candidates(self, q: Query, n: int, settings: RetrievalSettings, signals: Sequence[str], *,
                   plain: bool = False) -> Candidates:
        idx = self.index
        out = Candidates()
        if "vector" in signals and q.vector is not None and idx.vectors_ready:
            found = idx.vectors.search_windows(q.vector, n)
            lst = out.lists["vector"] = []
            for m, score in pooled_scores(idx.vectors, q.vector, found, settings.window_margin):
                lst.append((m.chunk_id, score))
                out.similarity[m.chunk_id] = m.similarity
                out.matches[m.chunk_id] = m
        if "bm25" in signals:
            out.lists["bm25"] = self._bm25(q, n, settings, plain)
        return out

    def _bm25(self, q: Query, n: int, settings: RetrievalSettings, plain: bool) -> list[tuple[str, float]]:
        idx = self.index
        if plain or not settings.bm25_feedback:
            return idx.bm25.search(q.text, n, words=q.bm25_words, compounds=q.compounds, cjk_runs=q.cjk_runs,
                                   title_weight=settings.bm25_title_weight,
                                   weights=q.word_weights)
        from ragls.retrieval.feedback import feedback_search

        def chunk_texts(ids: list[str]) -> dict[str, str]:
            return {cid: chunk.text for cid, chunk in idx.manifest.get_chunks(ids).items()}

        return feedback_search(idx.bm25, q.text, n, chunk_texts, fb_docs=settings.bm25_feedback_docs,
                               fb_terms=settings.bm25_feedback_terms, query_weight=settings.bm25_feedback_query_weight,
                               title_weight=settings.bm25_title_weight, word_weights=q.word_weights)

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        return self.index.manifest.get_chunks(list(ids))

    def chunks_of(self, path: str) -> list[Chunk]:
        return self.index.manifest.chunks_of(path)

    def term_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        bm25 = self.index.bm25
        return bm25.num_docs(), {t: bm25.doc_freq(t) for t in terms}

    def phrase_count(self, terms: Sequence[str]) -> int:
        return self.index.bm25.phrase_count(terms)

    def coverage(self) -> tuple[int, int]:
        return self.index.manifest.chunk_count(), self.index.pending_count()


def as_sources(items: Sequence) -> list:
    """`items` as pipeline sources: a `FolderIndex` becomes a `FolderSource`, a source stays as it is."""
    return [it if isinstance(it, Source) else FolderSource(it) for it in items]


def file_filters(sources) -> dict[str, FileFilter]:
    """{folder: its index's FileFilter} of the folder indexes among `sources` (`FolderSource`): what a page of the
    folder may show of another file (a literalinclude, `answer/includes.py`), as the open index decides."""
    return {str(s.index.folder): s.index.filter for s in sources if isinstance(s, FolderSource)}


def pool_bm25(q: Query, chunks: Mapping[str, Chunk]) -> tuple[list[tuple[str, float]], tuple[int, dict[str, int]]]:
    """BM25 over a pool of candidate texts (chunk id -> title and text), for sources that cannot score BM25 over
    their whole corpus (an attached Qdrant collection without a ragls `bm25` sparse vector, a team collection in
    embedded local mode), each chunk scored on its title and text: ([(chunk id, score)] best first, positive scores only; (pool size, {BM25 term of the
    query: document frequency in the pool})) — the statistics abstention weighs the query's terms by. BM25 k1 1.2,
    b 0.75, IDF over the pool (`stores.term_vectors.bm25_rank`)."""
    from ragls.core.analysis import stems
    from ragls.stores.term_vectors import bm25_rank

    texts = {cid: f"{c.title}\n{c.text}" for cid, c in chunks.items()}
    ids = list(texts)
    ranked = [(ids[i], s) for i, s in bm25_rank(q.text, [texts[k] for k in ids])]
    seen = [set(stems(texts[k])) for k in ids]
    return ranked, (len(ids), {t: sum(1 for s in seen if t in s) for t in q.terms})


class PooledSource:
    """Base of the sources whose candidates carry their chunks (an attached Qdrant collection, a team folder's
    shared collection): nothing is looked up again, there is no chunk list per file, and the query's term
    statistics come from the candidate pool (`pool_bm25`, `Candidates.stats`), so the corpus-wide hooks answer
    empty. Their BM25 scores are not tantivy's (`bm25_comparable`): the pipeline merges them with other sources'
    by rank."""

    has_bm25 = True
    has_graph = False
    bm25_comparable = False
    vectors_ready = True

    def get_chunks(self, ids: Sequence[str]) -> dict[str, Chunk]:
        return {}  # every candidate came with its chunk

    def chunks_of(self, path: str) -> list[Chunk]:
        return []

    def term_stats(self, terms: Sequence[str]) -> tuple[int, dict[str, int]]:
        return 0, {}  # the candidates' pool gives them (Candidates.stats)

    def coverage(self) -> tuple[int, int]:
        return 0, 0


def vector_weight_coverage(sources: Sequence[Source]) -> float:
    """Fraction (0..1) of the sources' chunks that have a vector; 1.0 when none reports chunks."""
    counts = [s.coverage() for s in sources]
    total = sum(chunks for chunks, _ in counts)
    if not total:
        return 1.0
    return max(0.0, (total - sum(min(pending, chunks) for chunks, pending in counts)) / total)

