"""`RetrievalResult.merge`: the results of several knowledge bases for one query as one, keeping what each
retrieval saw (abstention evidence, truncation, reranker report, LLM calls, corrective grade)."""

from __future__ import annotations

import pytest
from ragls.core.ir import Chunk, Hit, LineSpan
from ragls.retrieval.abstention import Evidence
from ragls.retrieval.llm_steps import LLMTrace
from ragls.retrieval.relevance import abstained
from ragls.retrieval.result import RetrievalResult

NEAR_MISS = Evidence(cosine=0.45, coverage=0.4, agreement=0.0, bm25_top=0.2, focus_coverage=0.35)  # P(answerable) ~ 0.4
ANSWERED = Evidence(cosine=0.7, coverage=1.0, agreement=1.0, bm25_top=0.8, focus_coverage=1.0)  # P ~ 0.97


def hit(cid: str, score: float, sim: float, text_hash: str | None = None) -> Hit:
    chunk = Chunk(id=cid, path=f"{cid}.md", text=cid, span=LineSpan(0, 0, 1, 0), text_hash=text_hash or cid)
    return Hit(chunk=chunk, score=score, signals={"vector": 1}, similarity=sim)


def trace(step: str, calls: int) -> LLMTrace:
    t = LLMTrace()
    t.counter.add(step, calls, 0)
    return t


def test_merge_orders_by_score_drops_repeated_texts_and_keeps_the_best_similarity():
    a = RetrievalResult((hit("a1", 0.9, 0.5), hit("a2", 0.3, 0.4)), best_similarity=0.55)
    b = RetrievalResult((hit("b1", 0.5, 0.6, text_hash="a1"), hit("b2", 0.4, 0.2)), best_similarity=0.61)
    merged = RetrievalResult.merge([a, b], top_k=3)
    assert [h.chunk.id for h in merged] == ["a1", "b2", "a2"]  # b1 repeats a1's text
    assert merged.best_similarity == 0.61 and len(merged) == 3 and merged[0].chunk.id == "a1"
    assert [h.chunk.id for h in merged[1:]] == ["b2", "a2"]


def test_merge_keeps_the_most_answerable_evidence_so_an_unrelated_base_changes_nothing():
    workspace = RetrievalResult((hit("w", 0.5, 0.45),), 0.45, evidence=NEAR_MISS)
    unrelated = RetrievalResult((hit("g", 0.6, 0.1),), 0.1, evidence=Evidence(cosine=0.1, coverage=0.1, agreement=0,
                                                                                 focus_coverage=0.1))
    merged = RetrievalResult.merge([workspace, unrelated], top_k=5)
    assert merged.evidence is NEAR_MISS
    assert abstained(workspace, 0.2, min_probability=0.5) and abstained(merged, 0.2, min_probability=0.5)
    answering = RetrievalResult((hit("n", 0.2, 0.7),), 0.7, evidence=ANSWERED)
    both = RetrievalResult.merge([workspace, answering], top_k=5)
    assert both.evidence is ANSWERED and not abstained(both, 0.2, min_probability=0.5)
    # a base without evidence (judged by the cosine floor alone) leaves the merged result without evidence
    assert RetrievalResult.merge([workspace, RetrievalResult((hit("q", 0.1, 0.3),), 0.3)], 5).evidence is None
    # a part without vector evidence yet has no probability: it is never abstained on
    pending = Evidence(cosine=None, coverage=1.0, agreement=0.0)
    assert Evidence.most_answerable([NEAR_MISS, pending]) is pending


def test_merge_keeps_truncation_rerank_report_llm_calls_and_the_grade():
    report = {"backend": "cross-encoder", "elapsedMs": 3.0, "candidates": 20}
    a = RetrievalResult((hit("a", 0.5, 0.5),), truncated=True, llm=trace("hyde", 1), corrective="insufficient")
    b = RetrievalResult((hit("b", 0.4, 0.5),), rerank=report, llm=trace("rerank", 2), corrective="insufficient")
    merged = RetrievalResult.merge([a, b], top_k=5)
    assert merged.truncated and merged.rerank == report
    assert merged.llm.counter.snapshot() == {"hyde": 1, "rerank": 2}
    assert merged.corrective == "insufficient" and abstained(merged, 0.2)
    graded_ok = RetrievalResult.merge([a, b.with_(corrective="sufficient")], top_k=5)
    assert graded_ok.corrective == "sufficient" and not abstained(graded_ok, 0.2)
    assert RetrievalResult.merge([a, b.with_(corrective=None)], top_k=5).corrective is None


def test_an_llm_grade_is_the_last_word_over_the_evidence():
    near = RetrievalResult((hit("w", 0.5, 0.45),), 0.45, evidence=NEAR_MISS)
    assert abstained(near, 0.2, min_probability=0.5)
    assert not abstained(near.with_(corrective="sufficient"), 0.2, min_probability=0.5)
    answered = RetrievalResult((hit("n", 0.2, 0.7),), 0.7, evidence=ANSWERED)
    assert abstained(answered.with_(corrective="insufficient"), 0.2, min_probability=0.5)


def test_a_result_is_a_read_only_sequence_of_hits():
    r = RetrievalResult([hit("a", 0.5, 0.5)])
    assert isinstance(r.hits, tuple) and list(r) == [r[0]] and bool(r) and not RetrievalResult()
    with pytest.raises(AttributeError):
        r.truncated = True  # frozen
    assert RetrievalResult.of(r) is r and RetrievalResult.of([r[0]]).hits == r.hits
