"""`RetrievalResult`: what one retrieval of one query gives — the hits, best first, and everything the later steps
(abstention, the wire, the LLM-call accounting) read about how they were found.

The retrieval pipeline returns one (`search.search`, with its LLM steps `assisted.assisted_search`; a named
RAG's `retrieve`, `kb.team.TeamIndex.search` and `kb.qdrant_attach.AttachedCollection.search` call it); a request naming several knowledge bases
combines theirs with `RetrievalResult.merge`, which keeps (combines) the abstention evidence, the truncation flag,
the reranker's report and the LLM calls instead of dropping them. It is a read-only sequence of `Hit` (iterate,
index, `len`), so code that only needs the hits treats it as a list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, overload

from ragls.core.ir import Hit
from ragls.retrieval.abstention import Evidence
from ragls.retrieval.fuse import relevance_shares
from ragls.retrieval.llm_steps import LLMTrace

if TYPE_CHECKING:
    from ragls.retrieval.query import Query


@dataclass(frozen=True)
class RetrievalResult(Sequence[Hit]):
    """Hits of one query, best first, with what retrieval saw.

    - `hits`: the hits (a tuple; a list given is converted).
    - `best_similarity`: the highest cosine similarity among ALL vector candidates (not only the returned hits),
      so abstention does not depend on top_k; None without vector evidence.
    - `query`: the analysed query (`retrieval.query.Query`), None when the retriever did not analyse it.
    - `evidence`: the abstention evidence (retrieval/abstention.py), None when not gathered.
    - `truncated`: the query was longer than the embedding model reads (retrieval/query_fit.py).
    - `rerank`: the reranker's report (`rerankers.rerank_fused`: backend, elapsedMs, candidates, timedOut /
      error, llmCalls), None without a reranker.
    - `llm`: the LLM-assisted steps' trace (retrieval/assisted.py, and the LLM reranker's call), None without them.
    - `corrective`: corrective retrieval's final grade, "sufficient" / "insufficient" / None (not graded).
    - `term_stats`: per searched source, (chunk count, {query term: document frequency}) — what the evidence
      weighed the query's terms by, kept so a later step (corrective retrieval) can gather evidence again.
    """

    hits: tuple[Hit, ...] = ()
    best_similarity: float | None = None
    query: Query | None = None
    evidence: Evidence | None = None
    truncated: bool = False
    rerank: dict | None = None
    llm: LLMTrace | None = field(default=None, compare=False)
    corrective: str | None = None
    term_stats: tuple = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.hits, tuple):
            object.__setattr__(self, "hits", tuple(self.hits))

    # -- a read-only sequence of Hit -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.hits)

    @overload
    def __getitem__(self, i: int) -> Hit: ...

    @overload
    def __getitem__(self, i: slice) -> list[Hit]: ...

    def __getitem__(self, i):
        """One hit, or a list of hits for a slice."""
        return list(self.hits[i]) if isinstance(i, slice) else self.hits[i]

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __bool__(self) -> bool:
        return bool(self.hits)

    @classmethod
    def of(cls, hits: Sequence[Hit]) -> RetrievalResult:
        """`hits` itself when it is a RetrievalResult, else a result of those hits without evidence (a list of
        hits made by hand: tests, callers outside retrieval)."""
        return hits if isinstance(hits, RetrievalResult) else cls(tuple(hits))

    def with_(self, **changes) -> RetrievalResult:
        """A copy with `changes` (field name -> value), e.g. `with_(hits=..., corrective="sufficient")`."""
        return replace(self, **changes)

    def shown(self) -> RetrievalResult:
        """The hits a user is shown — rag/query's list, rag/ask's sources — without those whose relevance share is
        0 (`fuse.relevance_shares`: no signal found them any better than unrelated, a convex score of 0; a list
        of 20 in a small folder, or an unrelated note beside the one answering page, listed as "0%"). The one
        rule for both; decisions on the retrieval (abstention) and `ragls eval`'s ranking read the whole result.
        Fusion scores only: after a reranker (its scale is its own, or its timed-out fused order) the result as
        it is."""
        shares = relevance_shares([h.score for h in self.hits]) if self.rerank is None else None
        if not shares or 0.0 not in shares:
            return self
        return self.with_(hits=tuple(h for h, share in zip(self.hits, shares) if share > 0.0))

    # -- several knowledge bases ---------------------------------------------------------------------------
    @classmethod
    def merge(cls, results: Sequence[RetrievalResult], top_k: int) -> RetrievalResult:
        """The results of several knowledge bases for the same query as one: hits by score (each result's fused
        RRF or reranker score), identical texts once (the best scored), at most `top_k`.

        - `best_similarity`: the best of the results'; `query`: the first result's that has one.
        - `evidence`: `Evidence.most_answerable` of the results' — the request is answerable when one of its
          knowledge bases answers it, so abstention decides as it would on that one alone (an unrelated knowledge
          base added to a request changes nothing); None when some result has none (the cosine-floor rule then
          judges the merged hits, as for that result alone).
        - `truncated`: any result's; `rerank`: the first report; `llm`: every result's trace merged, so the
          question's llmCalls are whole; `corrective`: "insufficient" only when every result was graded so,
          "sufficient" when one was, else None.
        One result is returned as it is (only cut to `top_k`)."""
        if len(results) == 1:
            only = results[0]
            return only if len(only) <= top_k else only.with_(hits=only.hits[:top_k])
        out: list[Hit] = []
        seen: set[str] = set()
        for h in sorted((h for r in results for h in r.hits), key=lambda h: -h.score):
            if h.chunk.text_hash not in seen:
                seen.add(h.chunk.text_hash)
                out.append(h)
                if len(out) == top_k:
                    break
        sims = [r.best_similarity for r in results if r.best_similarity is not None]
        return cls(hits=tuple(out), best_similarity=max(sims, default=None),
                   query=next((r.query for r in results if r.query is not None), None),
                   evidence=Evidence.most_answerable([r.evidence for r in results]),
                   truncated=any(r.truncated for r in results),
                   rerank=next((r.rerank for r in results if r.rerank), None),
                   llm=_merged_traces(r.llm for r in results), corrective=_combined_grade(results),
                   term_stats=tuple(s for r in results for s in r.term_stats))


def _merged_traces(traces: Iterable[LLMTrace | None]) -> LLMTrace | None:
    """One trace holding every given trace's calls, failures and texts; None when none is given."""
    present = [t for t in traces if t is not None]
    if not present:
        return None
    out = LLMTrace()
    for t in present:
        out.merge(t)
    return out


def _combined_grade(results: Sequence[RetrievalResult]) -> str | None:
    grades = [r.corrective for r in results]
    if grades and all(g == "insufficient" for g in grades):
        return "insufficient"
    return "sufficient" if "sufficient" in grades else None
