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

from pydantic import AfterValidator, Field, ValidationError, field_validator, model_validator

from ragls.config.aliases import ALIASES, RENAMED, OldName, did_you_mean, snake_case
from ragls.config.prompts import DEFAULT_TEMPLATE
from ragls.config.retrieval_settings import RetrievalSettings
from ragls.config.section import Section
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


class SourcesSettings(Section):
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


class WebSettings(Section):
    """Fetching URLs and crawling `…/**` sources of named RAGs (sources/web.py, sources/crawl.py). Pages are capped at
    `sources.max_file_bytes`. `delay_s` is the pause between two requests to the same site (politeness; a
    robots.txt `Crawl-delay` that is longer wins)."""

    max_pages: int = Field(500, ge=1, le=1_000_000)
    max_depth: int = Field(4, ge=0, le=100)
    delay_s: float = Field(0.5, ge=0, le=3600)
    timeout_s: float = Field(30.0, gt=0, le=3600)
    user_agent: str = "ragls/0.1 (retrieval-augmented documentation indexer; respects robots.txt)"
    respect_robots: bool = True


class ChunkingSettings(Section):
    """Chunk size in characters; overlap defaults to 5 % of the size (100 for the default 2000)."""

    chunk_size: int = Field(2000, ge=100, le=1_000_000)
    chunk_overlap: int | None = Field(None, ge=0, le=1_000_000)

    @property
    def overlap(self) -> int:
        if self.chunk_overlap is None:
            return round(self.chunk_size * 0.05)
        return min(self.chunk_overlap, self.chunk_size // 2)


class EmbeddingSettings(Section):
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


class IndexSettings(Section):
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


class GenerationSettings(Section):
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


class CommitSettings(Section):
    style: Literal["conventional", "plain"] = "conventional"
    max_diff_chars: int = Field(24000, ge=1000, le=4_000_000)
    max_prompt_tokens: int | None = Field(None, ge=2000, le=1_000_000)


class WatchSettings(Section):
    enabled: bool = True
    debounce_ms: int = Field(300, ge=0, le=600_000)


class ObservabilitySettings(Section):
    """OpenTelemetry export (ragls.core.telemetry; needs the `otel` extra)."""

    otel_endpoint: str | None = None  # OTLP/HTTP base URL, e.g. http://127.0.0.1:4318; unset = no tracing


class Settings(Section):
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
