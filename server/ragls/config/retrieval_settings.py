"""The `[retrieval]` settings: how a question is searched and when the index abstains — the candidates, hybrid
fusion (convex or RRF) and its weights, the ranking factors of retrieval/doc_kind.py, page support, the answering
sentence's cosine, BM25 pseudo-relevance feedback, window pooling, the abstention floors, rerankers, the knowledge
graph, contextual retrieval and the LLM-assisted query steps. Each default says beside it where it was measured
(bench/history/); docs/configuration.md describes each setting. Part of `Settings` (config/settings.py).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from ragls.config.prompts import DEFAULT_CONTEXTUAL_PROMPT, DEFAULT_EXTRACTOR_PROMPT
from ragls.config.section import Section


class RetrievalSettings(Section):
    """Hybrid retrieval. RRF: score = sum_s w_s / (k + rank_s) (Cormack et al. 2009, k = 60)."""

    top_k: int = Field(5, ge=1, le=200)
    candidates: int = Field(30, ge=1, le=1000)
    # How the vector and BM25 lists are fused (retrieval/fuse.py): "convex" = convex_alpha x the normalised cosine
    # + (1 - convex_alpha) x the normalised BM25 score (Bruch et al. 2023; the default since session 37: it ranked
    # the right file first more often on every held-out set, bench/history/sessions-36-37.md "Convex fusion: the right file first"); "rrf" = weighted
    # Reciprocal Rank Fusion with rrf_k and the weights below (the default before). Extra signals (graph, query
    # variants) and sources whose BM25 scores are not comparable are always fused by RRF.
    fusion: Literal["convex", "rrf"] = "convex"
    convex_alpha: float = Field(0.6, ge=0.0, le=1.0)
    rrf_k: float = Field(60.0, gt=0, le=10_000)
    vector_weight: float = Field(1.125, ge=0.0, le=100.0)
    bm25_weight: float = Field(1.0, ge=0.0, le=100.0)
    # BM25 score of a query term in a chunk's title (heading path) relative to its body score: 1 = alike (before
    # 2026-12-01), 0 = body only (stores/bm25.py). 0.5: the only value measured that kept or improved every set
    # (bench/history/early-retrieval-quality.md, "BM25 title weight").
    bm25_title_weight: float = Field(0.5, ge=0.0, le=10.0)
    graph_weight: float = Field(0.9, ge=0.0, le=100.0)
    # Added to the fused score of a chunk BM25 ranks 1st (resp. 2nd-3rd) when it contains every content word of
    # the query (qmd's top-rank bonus values): an exact identifier match is not buried under vector-only hits.
    # Under convex fusion the 2nd-3rd get top_rank_bonus x their BM25 score / the best instead of top3_rank_bonus
    # (retrieval/search.py `_convex_bonus`). 0 turns it off. See retrieval/fuse.py and
    # bench/history/sessions-38-39.md, "the exact-match bonus on the convex scale".
    top_rank_bonus: float = Field(0.05, ge=0.0, le=10.0)
    top3_rank_bonus: float = Field(0.02, ge=0.0, le=10.0)
    # Fused score factor of chunks of changelog / release-notes / contributing / authors pages when the question
    # does not ask about versions, changes or contributing (retrieval/doc_kind.py); 1 = off.
    meta_page_weight: float = Field(0.6, ge=0.0, le=1.0)
    # Fused score factor of API reference entries (a Sphinx object description, a mkdocstrings block) when the
    # question names no identifier (retrieval/doc_kind.py; bench/history/sessions-38-39.md "API reference entries"); 1 = off.
    reference_entry_weight: float = Field(1.0, ge=0.0, le=1.0)  # off: docs/configuration.md
    # Fused score factor of stub chunks: less than a sentence of prose once headings, directives and markup are left
    # out (retrieval/doc_kind.py; bench/history/sessions-40-41.md "Stub chunks"); 1 = off.
    stub_chunk_weight: float = Field(0.9, ge=0.0, le=1.0)
    # Fused score factor of the chunks of a page named as the API reference (a folder or file "api", "api_reference";
    # retrieval/doc_kind.py; bench/history/sessions-42-43.md "API pages"); 1 = off.
    api_page_weight: float = Field(0.9, ge=0.0, le=1.0)
    # Fused score factor of a chunk made of long lines repeated word for word on 2+ other candidate pages (a generated
    # `--help` block), scaled by the share of its lines so repeated and of the question's words it holds only there
    # (retrieval/doc_kind.py; bench/history/sessions-42-43.md "Repeated blocks"); 1 = off.
    repeated_block_weight: float = Field(0.9, ge=0.0, le=1.0)
    # Fused score factor (>= 1) of a chunk holding word for word a message of 3+ words the question quotes (an error
    # the user saw; retrieval/doc_kind.py; bench/history/sessions-42-43.md "Quoted messages"); 1 = off.
    quoted_message_weight: float = Field(1.05, ge=1.0, le=2.0)
    # Fused score factor (>= 1) of a settings page's chunk (a folder or file "config", "configuration", "settings") or
    # of a chunk stating settings by its markup (`.. confval::`, a table of options) among the first 5 fused entries when the question asks which setting to use or what to set
    # (retrieval/doc_kind.py; bench/history/sessions-44-45.md "Settings pages"); 1 = off.
    settings_page_weight: float = Field(1.2, ge=1.0, le=2.0)
    # Fused score factor (>= 1) of a chunk among the first 2 x top_k + 10 fused entries holding, as written, the names
    # the question writes as names (code spans, `--options`, compound identifiers): 1 + (this - 1) x the share held
    # (retrieval/doc_kind.py `written_factors`; bench/history/sessions-46-47.md "Sibling pages: the name as the question writes
    # it", chosen by leave-one-corpus-out); 1 = off.
    written_name_weight: float = Field(1.05, ge=1.0, le=2.0)
    # Added to each of the first 30 fused entries (convex fusion only): this x the fused score of its page's
    # second-best entry among them / the first entry's (retrieval/fuse.py `page_support`): a page answering with two
    # passages beats a sibling page with one. 0.1: chosen by leave-one-corpus-out over the 23 docs sets
    # (bench/history/sessions-44-45.md, "Page support by leave-one-corpus-out"); 0 = off.
    page_support_weight: float = Field(0.1, ge=0.0, le=1.0)
    # Added to each of the first 5 fused entries (convex fusion only): this x the best cosine of the question with one
    # of the answer sentences of its page's chunks among the 5 (vectors the index's sentence pass stored); re-sorted
    # (retrieval/sentence_rank.py; bench/history/session-64.md "Ranking: the answering sentence's cosine over the
    # first five"); 0 = off, the default: it lost file Hit@1 on 19 dev sets it was not tuned on (bench/history/
    # session-64.md, "The session's figures and held-out sets 63 and 64").
    sentence_weight: float = Field(0.0, ge=0.0, le=10.0)
    # With sentence_weight on: the fused first's page gains this more (x sentence_weight), so another page takes the
    # first place only when its best sentence beats the first's by more than this plus their fused gap, not on a
    # difference within MiniLM's noise (retrieval/sentence_rank.py; bench/history/session-65.md "Ranking: a margin
    # for the fused first"); 0 = none.
    sentence_margin: float = Field(0.05, ge=0.0, le=1.0)
    # With sentence_weight on: a sentence counts only when it holds a question term that at most this share of the
    # head's sentences hold (retrieval/sentence_rank.py `rare_sentences`: a sentence naming only the product or the
    # page's subject lifts nothing); 1 = every sentence counts, the default: at 0.3 it gained 2 file Hit@1 over the
    # margin alone on 17 held-out dev sets, and a paraphrase's answering sentence, holding none of the question's
    # words, counts no more (bench/history/session-65.md "Ranking: a margin for the fused first").
    sentence_rare_share: float = Field(1.0, ge=0.0, le=1.0)
    # With sentence_weight on: the sentences choose the first hit only, the others keep the fused order and scores
    # (retrieval/sentence_rank.py; re-sorting the five moved the answer's later passages: Key -3 on 18 dev sets,
    # bench/history/session-65.md "Ranking: a margin for the fused first"); false = the first 5 re-sorted by their
    # raised scores (session 64's form).
    sentence_first_only: bool = True
    # BM25 pseudo-relevance feedback, RM3 (retrieval/feedback.py); Anserini's BM25+RM3 defaults 10 / 10 / 0.5.
    bm25_feedback: bool = False
    bm25_feedback_docs: int = Field(10, ge=1, le=100)
    bm25_feedback_terms: int = Field(10, ge=1, le=100)
    bm25_feedback_query_weight: float = Field(0.5, ge=0.0, le=1.0)
    # A chunk's vector score: max(window 0's cosine, best window's cosine - window_margin) (retrieval/pooling.py);
    # 0 = best window only (the default: 0.03 lifts Cranfield but lowers the dev sets' MRR, bench/history/early-speed-and-operations.md,
    # "Window pooling").
    window_margin: float = Field(0.0, ge=0.0, le=1.0)
    # Abstention floor on the best cosine similarity; see docs/configuration.md for how it was measured. Its old
    # name `sufficiency_floor` (raggity's) still works (`RENAMED`).
    min_similarity: float = Field(0.20, ge=-1.0, le=1.0)
    # false: vector signal only (BM25 still answers while no vector exists yet).
    hybrid: bool = True
    # Hits whose vectors have cosine >= dedup_cosine with a better hit are dropped (retrieval/dedup.py); 1 = off.
    dedup_cosine: float = Field(0.92, ge=0.0, le=1.0)
    # Return each hit's whole section (chunks of its file under the same heading path), bounded by
    # generation.max_context_chars (retrieval/parent.py).
    parent_document: bool = False
    # With a reranker: hits whose cross-encoder score is below this are dropped; 0 = off.
    relevance_floor: float = Field(0.0, ge=-1000.0, le=1000.0)  # a cross-encoder logit
    # Abstention on the calibrated probability that the index answers (retrieval/abstention.py): abstain below
    # it; 0 turns the rule off (the cosine floor alone, as before).
    abstention_probability: float = Field(0.2, ge=0.0, le=1.0)
    reranker_model: str | None = None
    reranker_model_path: str | None = None
    extractor_model: str | None = None
    extractor_prompt: str = DEFAULT_EXTRACTOR_PROMPT
    graph_hops: int = Field(1, ge=0, le=5)
    graph_concurrency: int = Field(4, ge=1, le=64)
    # Contextual retrieval (index/contextual.py): one LLM call per new or changed chunk at index time writes a 1-2
    # sentence context that is prepended to the chunk's embedded and BM25-indexed text. Off by default (it costs
    # one call per chunk); `contextual_model` defaults to generation.model.
    contextual: bool = False
    contextual_model: str | None = None
    contextual_prompt: str = DEFAULT_CONTEXTUAL_PROMPT
    ingest_concurrency: int = Field(8, ge=1, le=64)  # concurrent index-time LLM calls (contextual; raggity's 8)
    # Rerankers (retrieval/rerankers.py). None: the cross-encoder when reranker_model(_path) is set, else no
    # reranking (the behaviour before); "cross-encoder", "colbert", "llm", "none", or "package.module:ClassName".
    rerank_backend: str | None = None
    colbert_model: str = "answerdotai/answerai-colbert-small-v1"
    colbert_model_path: str | None = None
    rerank_llm_candidates: int = Field(20, ge=2, le=100)  # the LLM reranker reorders this many fused candidates
    # Past this budget the fused (RRF) order is returned and the timeout reported; 0 = no budget.
    rerank_timeout_ms: int = Field(10_000, ge=0, le=600_000)
    # ONNX Runtime provider of the cross-encoder / ColBERT: auto (CUDA when available, else CPU: fastembed's own
    # choice, the behaviour before), cpu, cuda, rocm, directml; each chain ends on the CPU
    rerank_provider: str = "auto"
    # LLM-assisted query-time steps (retrieval/assisted.py), each opt-in, each one LLM call per question of the
    # generation backend: HyDE, step-back question, expand_n paraphrases; corrective grading (1-2 calls).
    hyde: bool = False
    step_back: bool = False
    expand_n: int = Field(0, ge=0, le=10)
    corrective: bool = False
    # A transform's ranked list weighs this times the question's own list of the same signal (qmd: 1/2).
    transform_weight: float = Field(0.5, ge=0.0, le=10.0)
    # Skip rule: no LLM step when BM25's top score s/(1+s) >= strong_signal_score and leads by strong_signal_gap.
    strong_signal_score: float = Field(0.85, ge=0.0, le=1.0)
    strong_signal_gap: float = Field(0.15, ge=0.0, le=1.0)
    # Time budget of each retrieval LLM call (no retries); past it the step is left out (plain retrieval).
    llm_timeout_s: float = Field(15.0, gt=0, le=600)

    @property
    def abstention_floor(self) -> float:
        """The abstention floor on the best cosine similarity: the one setting `min_similarity` (old name
        `sufficiency_floor`, see `RENAMED`)."""
        return self.min_similarity

    @field_validator("contextual_prompt")
    @classmethod
    def _contextual_has_placeholders(cls, v: str) -> str:
        for name in ("__CHUNK__", "__DOCUMENT__"):
            if name not in v:
                raise ValueError(f"contextual_prompt must contain the placeholder {name}")
        return v

    @field_validator("rerank_backend")
    @classmethod
    def _known_rerank_backend(cls, v: str | None) -> str | None:
        if v is None or v in ("cross-encoder", "colbert", "llm", "none"):
            return v
        if re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", v.strip()):
            return v.strip()
        raise ValueError('rerank_backend must be "cross-encoder", "colbert", "llm", "none" or an import path '
                         '"package.module:ClassName"')

    @field_validator("extractor_prompt")
    @classmethod
    def _extractor_has_chunk(cls, v: str) -> str:
        if "__CHUNK__" not in v:
            raise ValueError("extractor_prompt must contain the placeholder __CHUNK__")
        return v
