"""Settings: one pydantic tree, merged from ragls.toml < initializationOptions < didChangeConfiguration.

Keys may be given nested (`[retrieval] top_k = 5`), flat by their `rag_*` alias (`rag_top_k = 5`), and in
camelCase (`topK`, as VS Code settings are written). Unknown keys are reported as warnings, never fatal; invalid
values raise `ConfigError` naming the field. Defaults are the project's established ones (chunk 2000 chars,
overlap 5 %, top_k 5, RRF k 60 with weights vector 1.125 / BM25 1.0 / graph 0.9, graph hops 1).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ragls.config.aliases import ALIASES, RENAMED, OldName, did_you_mean, snake_case
from ragls.config.prompts import DEFAULT_CONTEXTUAL_PROMPT, DEFAULT_EXTRACTOR_PROMPT, DEFAULT_TEMPLATE
from ragls.config.trust import (  # noqa: F401 - defined where the language server reads them before pydantic loads
    CONFIG_FILE,
    EDITOR_TRUST_CONFIGS_KEY,
    EDITOR_TRUST_KEY,
    parse_toml,
)
from ragls.core.errors import ConfigError
from ragls.core.key_shapes import looks_like_key
from ragls.core.uris import http_url

# Documentation types; .pdf and .html/.htm are converted to text (sources/convert.py) before chunking. `.rst.inc`:
# the reST fragments Sphinx pages pull in with `.. include::` (Symfony's form options, QEMU's devices, Borg's command
# usages live only there), read as reST (`sources.load.markup_extension`).
DEFAULT_INCLUDE = ["**/*.{md,markdown,mdx,rst,rst.inc,txt,adoc,org,pdf,html,htm}"]
# Built-in junk directories: never walked, whatever the include globs say.
JUNK_DIRS = [".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target", "site-packages",
             ".ragls-index", ".hg", ".svn", ".tox", ".mypy_cache", ".pytest_cache"]
# Secret files (`sources.exclude_secrets`): never read, indexed or shown to a model, whatever `sources.include` says.
# Key and certificate files, and the credential files of common tools: curl/ftp/git (.netrc, Windows `_netrc`),
# PostgreSQL (.pgpass), twine/PyPI (.pypirc), git's credential store (.git-credentials), npm/yarn (.npmrc and
# .yarnrc.yml, which hold `_authToken` / `npmAuthToken`), Apache (.htpasswd), the AWS CLI (.aws/credentials).
SECRET_GLOBS = [".env*", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.p12", "*.pfx",
                ".netrc", "_netrc", ".pgpass", ".pypirc", ".git-credentials", ".npmrc", ".yarnrc.yml", ".htpasswd",
                "**/.aws/credentials"]


class _Section(BaseModel):
    # nan / inf (legal TOML) are no setting's value: every number has finite bounds (docs/configuration.md, "Bounds")
    model_config = ConfigDict(extra="ignore", validate_assignment=True, allow_inf_nan=False)


class SourcesSettings(_Section):
    """Which files are indexed. Globs are gitignore-style, with `**` and brace sets (`**/*.{md,txt}`)."""

    include: list[str] = Field(default_factory=lambda: list(DEFAULT_INCLUDE))
    exclude: list[str] = Field(default_factory=list)
    max_file_bytes: int = Field(2_000_000, gt=0, le=1_000_000_000)  # 2 MB
    respect_gitignore: bool = True
    exclude_secrets: bool = True
    loader_timeout_s: float = Field(120.0, gt=0, le=86_400)  # each [document_loaders] command
    # A symlink whose real path is outside the folder is skipped unless this is true (sources/walk.py, inside_folder)
    follow_outside_links: bool = False


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
ENV_NAME_PROBLEM = ("must name an environment variable (letters, digits and _, e.g. OPENAI_API_KEY), not hold the "
                    "key itself: put the key in an environment variable and name that variable here")


def env_var_name(value: str | None) -> str | None:
    """`value` when it can name an environment variable (`generation.api_key_env`, `index.qdrant_api_key_env`,
    `rag/models` `apiKeyEnv`, `qdrant.api_key_env` of an attached collection); None stays None. Raises ValueError
    (ENV_NAME_PROBLEM, which never quotes the value) for anything else — above all a key pasted in place of the
    name (`ghp_…`, 32 hex digits, random mixed case: `core.key_shapes.looks_like_key`; `AzureOpenAIKey2024Prod` is
    a name) unless a variable of that name is set: "no API key; set ghp_…" put it in logs, rag/status and errors."""
    if value is None:
        return value
    if not _ENV_NAME.fullmatch(value) or (looks_like_key(value) and value not in os.environ):
        raise ValueError(ENV_NAME_PROBLEM)
    return value


EnvName = Annotated[str | None, AfterValidator(env_var_name)]


class WebSettings(_Section):
    """Fetching URLs and crawling `…/**` sources of named RAGs (sources/web.py, sources/crawl.py). Pages are capped at
    `sources.max_file_bytes`. `delay_s` is the pause between two requests to the same site (politeness; a
    robots.txt `Crawl-delay` that is longer wins)."""

    max_pages: int = Field(500, ge=1, le=1_000_000)
    max_depth: int = Field(4, ge=0, le=100)
    delay_s: float = Field(0.5, ge=0, le=3600)
    timeout_s: float = Field(30.0, gt=0, le=3600)
    user_agent: str = "ragls/0.1 (retrieval-augmented documentation indexer; respects robots.txt)"
    respect_robots: bool = True


class ChunkingSettings(_Section):
    """Chunk size in characters; overlap defaults to 5 % of the size (100 for the default 2000)."""

    chunk_size: int = Field(2000, ge=100, le=1_000_000)
    chunk_overlap: int | None = Field(None, ge=0, le=1_000_000)

    @property
    def overlap(self) -> int:
        if self.chunk_overlap is None:
            return round(self.chunk_size * 0.05)
        return min(self.chunk_overlap, self.chunk_size // 2)


class EmbeddingSettings(_Section):
    """fastembed model. `model_path` loads a local directory (fastembed `specific_model_path`)."""

    model: str = "BAAI/bge-small-en-v1.5"
    model_path: str | None = None
    max_length: int = Field(512, ge=16, le=8192)  # tokens; texts are truncated to this
    batch_size: int = Field(1, ge=1, le=1024)  # texts per model call; larger batches are slower on CPU and cost memory
    threads: int | None = Field(None, ge=1, le=1024)
    offline_fallback: bool = True  # use the bundled all-MiniLM-L6-v2 when the model cannot be downloaded
    # ONNX Runtime execution provider: "auto" (CUDA when available, else CPU — the behaviour before), "cpu", "cuda",
    # "rocm", "directml"; each falls back to CPU when its provider is not installed (a warning says so).
    provider: str = "auto"
    # Worker processes for indexing (fastembed's data-parallel encoding, each with its own ONNX session); 0/1 = off.
    parallel: int = Field(0, ge=0, le=64)
    # Multi-window vectors (index/windows.py): each chunk is embedded as overlapping windows of `window` wordpieces
    # (None = the model's max length, e.g. 256 for all-MiniLM-L6-v2) every `window_stride` wordpieces (None = half
    # a window; = window gives non-overlapping windows, about 2/3 of the cost), so no line of a chunk is truncated.
    window: int | None = Field(None, ge=32, le=8192)
    window_stride: int | None = Field(None, ge=8, le=8192)


class IndexSettings(_Section):
    """Where the index lives; default: a per-workspace folder in the user's cache dir (platformdirs).

    `backend = "qdrant"` keeps the vectors (dense + BM25 sparse) in Qdrant (`stores/qdrant.py`) instead of LanceDB;
    the manifest and tantivy stay in `path`. `qdrant_location`: ":memory:", a local directory (embedded) or an
    http(s) URL; default `<index path>/qdrant`. `qdrant_collection`: default derived from the repository identity,
    the embedding model and the chunker (`repo.collection_name`). `team = true`: query the shared collection
    read-only and overlay the files that differ locally (`kb/team.py`)."""

    path: str | None = None
    # The user's shared, content-addressed embedding cache (stores/embed_cache.py), LRU-bounded; 0 = per-index only
    embedding_cache_mb: int = Field(1024, ge=0, le=1_048_576)
    # Window rows past which the vector store gets an approximate (IVF_PQ) index, built in the background; raggity's
    # default. 0 = always exact.
    ann_threshold: int = Field(50_000, ge=0, le=1_000_000_000)
    # Embed the candidate sentences of the extractive answer (answer/passages.chunk_units) in the background, after
    # every window (index/vector_phase.py `_sentence_batch`): a first rag/ask then reads their vectors from the
    # embedding cache instead of running the model (~70 % more background embedding; bench/history/session-51.md, "Answer sentences embedded at index time").
    sentence_vectors: bool = True
    backend: Literal["lancedb", "qdrant"] = "lancedb"
    qdrant_location: str | None = None
    qdrant_collection: str | None = None
    qdrant_api_key_env: EnvName = None
    qdrant_replication_factor: int = Field(1, ge=1, le=100)  # used when ragls creates the collection on a served cluster
    qdrant_shards: int | None = Field(None, ge=1, le=10_000)
    repo_id: str | None = None
    team: bool = False

    @model_validator(mode="after")
    def _team_needs_qdrant(self) -> IndexSettings:
        if self.team and self.backend != "qdrant":
            raise ValueError("index.team needs index.backend = \"qdrant\" (the shared index lives in Qdrant)")
        return self


class RetrievalSettings(_Section):
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


class GenerationSettings(_Section):
    """LLM used by `rag/ask` and `rag/commitMessage`. Keys come from the environment only (`api_key_env`)."""

    backend: Literal["auto", "openai", "anthropic", "ollama", "external", "none"] = "auto"
    model: str | None = None
    base_url: Annotated[str | None, AfterValidator(http_url)] = None
    api_key_env: EnvName = None
    temperature: float = Field(0.1, ge=0.0, le=2.0)
    timeout_s: float = Field(60.0, gt=0, le=3600)
    max_context_chars: int = Field(12000, ge=500, le=4_000_000)
    max_retries: int = Field(2, ge=0, le=10)
    max_tool_rounds: int = Field(2, ge=0, le=10)
    template: str = DEFAULT_TEMPLATE
    # Conversations (answer/conversation.py): past turns beyond this are folded into a rolling summary; 0 = no
    # summary (older turns are dropped).
    memory_max_turns: int = Field(20, ge=0, le=1000)
    cache: bool = False  # answer cache (answer/cache.py), in memory, keyed on question, chunks, model and prompt
    persona: str | None = None  # how to answer this user ("a junior developer; explain terms")
    personal_kb: str | None = None  # facts about the user, as text or a path to a text file
    auto_start: bool = False  # start `ollama serve` on first use when it is on PATH and nothing listens

    @field_validator("template")
    @classmethod
    def _template_has_placeholders(cls, v: str) -> str:
        for name in ("__INPUT__", "__CONTEXT__"):
            if name not in v:
                raise ValueError(f"template must contain the placeholder {name}")
        return v

    @model_validator(mode="after")
    def _external_needs_url(self) -> GenerationSettings:
        if self.backend == "external" and not (self.base_url or "").strip():
            raise ValueError('backend "external" needs generation.base_url (the OpenAI-compatible server\'s URL, '
                             'e.g. http://127.0.0.1:8080/v1); ragls never launches it')
        return self

    def resolved_backend(self) -> str:
        """The backend in use: explicit, else openai if OPENAI_API_KEY is set, else anthropic if
        ANTHROPIC_API_KEY is set, else none."""
        if self.backend != "auto":
            return self.backend
        if os.environ.get("OPENAI_API_KEY"):
            return "openai"
        if os.environ.get("ANTHROPIC_API_KEY"):
            return "anthropic"
        return "none"


class CommitSettings(_Section):
    style: Literal["conventional", "plain"] = "conventional"
    max_diff_chars: int = Field(24000, ge=1000, le=4_000_000)
    max_prompt_tokens: int | None = Field(None, ge=2000, le=1_000_000)


class WatchSettings(_Section):
    enabled: bool = True
    debounce_ms: int = Field(300, ge=0, le=600_000)


class ObservabilitySettings(_Section):
    """OpenTelemetry export (ragls.core.telemetry; needs the `otel` extra)."""

    otel_endpoint: str | None = None  # OTLP/HTTP base URL, e.g. http://127.0.0.1:4318; unset = no tracing


class Settings(_Section):
    """All ragls settings. See docs/configuration.md for each one."""

    sources: SourcesSettings = Field(default_factory=SourcesSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    commit: CommitSettings = Field(default_factory=CommitSettings)
    watch: WatchSettings = Field(default_factory=WatchSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    # name -> command ("pdftotext $1 -"); see sources/loaders.py
    document_loaders: dict[str, str] = Field(default_factory=dict)
    # name -> the raw [rags.NAME] table (sources + per-RAG overrides); validated by kb/rags.py
    rags: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @field_validator("document_loaders")
    @classmethod
    def _loaders_are_commands(cls, v: dict[str, str]) -> dict[str, str]:
        for name, command in v.items():
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
                raise ValueError(f"loader name {name!r} must be a word (letters, digits, - and _)")
            if not isinstance(command, str) or not command.strip():
                raise ValueError(f"loader {name!r} needs a command, e.g. \"pdftotext $1 -\"")
        return v
    observability: ObservabilitySettings = Field(default_factory=ObservabilitySettings)
    # "default", or "low-ram": hard overrides for small machines (see apply_profile); `ragls doctor` prints it.
    profile: Literal["default", "low-ram"] = "default"

    @model_validator(mode="after")
    def _low_ram_profile(self) -> Settings:
        """`profile = "low-ram"` wins over every other layer: the embedded store (LanceDB + tantivy), no
        cross-encoder reranker, no knowledge graph, no answer cache, no data-parallel embedding, one text per model
        call, and a small shared embedding cache bound."""
        if self.profile != "low-ram":
            return self
        overrides = [(self.retrieval, "reranker_model", None), (self.retrieval, "reranker_model_path", None),
                     (self.retrieval, "extractor_model", None), (self.embedding, "parallel", 0),
                     (self.embedding, "batch_size", 1), (self.generation, "cache", False),
                     (self.index, "backend", "lancedb")]
        if self.retrieval.rerank_backend in ("cross-encoder", "colbert"):  # ONNX rerankers: no model in memory
            overrides.append((self.retrieval, "rerank_backend", None))
        for section, name, value in overrides:
            if name in type(section).model_fields:
                object.__setattr__(section, name, value)
        object.__setattr__(self.index, "embedding_cache_mb", min(self.index.embedding_cache_mb, 128))
        return self

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        overlap = self.chunking.chunk_overlap
        if overlap is not None and overlap >= self.chunking.chunk_size:
            raise ValueError("chunking.chunk_overlap must be smaller than chunking.chunk_size")
        return self


TOP_LEVEL = ("profile",)  # settings outside any [section]

# Top-level tables whose keys are user-chosen names (merged per name, not validated as settings here).
TABLES = ("document_loaders", "rags")

def normalize(data: dict[str, Any] | None) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Turn user settings (nested, flat aliases, camelCase, optionally wrapped in a "ragls" key) into the nested
    snake_case shape of `Settings`. Returns (nested dict, warnings about unknown keys). A null value (an editor's
    "unset") is dropped, so the layers below it (ragls.toml, the default) apply."""
    out: dict[str, dict[str, Any]] = {}
    warnings: list[str] = []
    by_old_name: set[tuple[str, str]] = set()  # set in this layer through an old name: it wins (`RENAMED`)

    def put(section: str, name: str, value: Any, old: str | None = None) -> None:
        if old is not None:
            by_old_name.add((section, name))
            warnings.append(OldName(f"setting {old} is an old name of {section}.{name}; it still works, but "
                                    f"use {section}.{name}"))
        elif (section, name) in by_old_name:
            return
        out.setdefault(section, {})[name] = value

    if not data:
        return out, warnings
    if isinstance(data.get("ragls"), dict) and len(data) == 1:
        data = data["ragls"]
    sections = Settings.model_fields
    for raw_key, value in data.items():
        key = snake_case(raw_key)
        if raw_key in (EDITOR_TRUST_KEY, EDITOR_TRUST_CONFIGS_KEY):
            continue  # read by editor_trust / editor_trusted_configs, not a setting
        if key in TABLES:  # user-named entries: keys are names, not settings
            out[key] = dict(value) if isinstance(value, dict) else value
        elif key in sections and key not in TOP_LEVEL and isinstance(value, dict):
            model = sections[key].annotation
            fields = model.model_fields  # type: ignore[union-attr]
            for sub_raw, sub_value in value.items():
                if sub_value is None:
                    continue
                sub = snake_case(sub_raw)
                if sub in fields:
                    put(key, sub, sub_value)
                elif sub in ALIASES and ALIASES[sub][0] == key:
                    put(key, ALIASES[sub][1], sub_value)
                elif sub in RENAMED and RENAMED[sub][0] == key:
                    put(key, RENAMED[sub][1], sub_value, old=f"{key}.{sub_raw}")
                else:
                    names = list(fields) + [a for a, (s, _) in ALIASES.items() if s == key]
                    warnings.append(f"unknown setting {key}.{sub_raw}{did_you_mean(sub, names, key + '.')}")
        elif value is None:
            continue
        elif key in TOP_LEVEL:
            out[key] = value  # type: ignore[assignment] - a top-level scalar (profile)
        elif key in ALIASES:
            put(*ALIASES[key], value)
        elif key in RENAMED:
            put(*RENAMED[key], value, old=raw_key)
        elif key in sections and key not in TOP_LEVEL:  # `retrieval = 5`, `[[sources]]`: was "unknown setting
            # retrieval (did you mean retrieval?)"
            what = ("an array of tables ([[...]])" if isinstance(value, list) and value and isinstance(value[0], dict)
                    else {bool: "a boolean", int: "a number", float: "a number", str: "a string",
                          list: "a list"}.get(type(value), "a value"))
            warnings.append(f"setting {raw_key} is a section, not {what}: write its settings under [{key}], one "
                            f"name = value a line (docs/configuration.md); ignored")
        else:
            warnings.append(f"unknown setting {raw_key}{did_you_mean(key, list(sections) + list(ALIASES))}")
    return out, warnings


def _deep_merge(base: dict, extra: dict) -> dict:
    merged = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def read_toml(folder: str | os.PathLike | None) -> dict[str, Any]:
    """Read `ragls.toml` in `folder` as written, trusted or not (for tools that edit the file; settings come from
    `trust_filter.folder_layer`); {} when absent. Raises ConfigError on a syntax error, naming the file."""
    if folder is None:
        return {}
    return read_toml_file(Path(folder) / CONFIG_FILE)


def read_toml_file(path: Path) -> dict[str, Any]:
    """A ragls.toml file as a dict; {} when absent. Raises ConfigError naming the file on a syntax error."""
    if not path.is_file():
        return {}
    try:
        return parse_toml(path, path.read_bytes())
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None


def build_settings(*layers: dict[str, Any] | None, origin: str | None = None) -> tuple[Settings, list[str]]:
    """Merge settings layers (later wins) and validate. Returns (settings, warnings).

    Raises ConfigError with the dotted field name and pydantic's reason when a value is invalid, e.g.
    "invalid settings: generation.template: template must contain the placeholder __CONTEXT__"; with `origin` (the
    file the layers came from) "invalid settings in <origin>: ...".
    """
    merged: dict[str, Any] = {}
    warnings: list[str] = []
    for layer in layers:
        nested, warns = normalize(layer)
        warnings += warns
        merged = _deep_merge(merged, nested)
    try:
        return Settings.model_validate(merged), warnings
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"]) or "settings"
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"{loc}: {msg}")
        where = f" in {origin}" if origin else ""
        raise ConfigError(f"invalid settings{where}: " + "; ".join(problems)) from None


# Settings a folder's own ragls.toml cannot turn on, because they reach outside the folder (docs/security.md); the
# user's layers (editor settings) can.
USER_ONLY = (("sources", "follow_outside_links"),)
