"""Folder trust, decided in one place: `folder_layer` turns a folder's `ragls.toml` into a settings layer for
`load_settings` (below) and the named-RAG registry, so every front (LSP, CLI, MCP, HTTP) gets the same answer. A
trusted folder (config/trust.py's store, or the editor's `workspaceTrusted`) gets all of its file; an untrusted one only
the allow-list `SAFE` of settings that tune retrieval inside the folder.

Everything not listed here is ignored for an untrusted folder — so a setting added later is safe by default and must
be listed here (with its reason) to take effect without trust. Left out on purpose, because they run programs, reach
the network, name environment variables, spend the user's LLM quota or read/write outside the folder:
`document_loaders` (commands), the models a first use downloads (`embedding.model`, `retrieval.reranker_model`,
`colbert_model`, the ONNX `rerank_backend`s), `generation.*` but a few formatting knobs (backend, model, base_url, api_key_env,
personal_kb, persona, template, auto_start, retries), `index.*` but `ann_threshold` (the index path, Qdrant URLs and keys,
team collections, the user's shared embedding cache size), model paths
(`embedding.model_path`, `retrieval.*_model_path`), `embedding.parallel` (worker processes), LLM-calling retrieval
steps (contextual, extractor, hyde, step_back, expand_n, corrective, the "llm" and import-path rerankers),
`observability.otel_endpoint`, `sources.exclude_secrets`, `sources.respect_gitignore = false`, `web.user_agent` / `web.respect_robots`, and `[rags.*]`
tables with a URL, a source outside the folder or a backend table (Qdrant).
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragls.config import trust
from ragls.config.globs import expand_braces, pattern_count
from ragls.config.setting_names import setting_files
from ragls.config.settings import (  # noqa: F401 - the editor's trust keys are re-exported for the fronts
    CONFIG_FILE,
    EDITOR_TRUST_CONFIGS_KEY,
    EDITOR_TRUST_KEY,
    USER_ONLY,
    Settings,
    build_settings,
    normalize,
    parse_toml,
    read_toml_file,
)
from ragls.config.trust import editor_trust, editor_trusted_configs, user_config_file
from ragls.core.errors import ConfigError

Rule = Callable[[Any, Path | None], bool]


def _inside(path: str, folder: Path | None) -> bool:
    """Whether `path` (relative = to `folder`; `~` is outside) names `folder` or something under it once `..` and
    symlinks are resolved. False without a folder."""
    if folder is None or not isinstance(path, str) or not path.strip() or path.strip().startswith("~"):
        return False
    root = Path(os.path.realpath(folder))
    target = Path(os.path.realpath(root / path))  # an absolute `path` replaces root in the join
    return target == root or root in target.parents


def _no_reranker(value: Any, folder: Path | None) -> bool:
    """Only turning reranking off: the ONNX rerankers ("cross-encoder", "colbert") download their model on first
    use (a network connection the folder would choose), "llm" spends the user's quota and an import path runs
    Python code."""
    return value in (None, "none")


def _only_on(value: Any, folder: Path | None) -> bool:
    """Only the stricter choice: `sources.respect_gitignore = false` would index what the user's `.gitignore` keeps
    out of a clone (their own untracked `terraform.tfvars`, local notes) for search, prompts and agents."""
    return value is True


def _any(value: Any, folder: Path | None) -> bool:
    return True


def _fields(*names: str) -> dict[str, Rule]:
    return {name: _any for name in names}


#: section -> field -> rule(value, folder): the settings an untrusted folder may set.
SAFE: dict[str, dict[str, Rule]] = {
    "sources": {**_fields("include", "exclude", "max_file_bytes", "loader_timeout_s"), "respect_gitignore": _only_on},
    "chunking": _fields("chunk_size", "chunk_overlap"),
    # (`model` is left out: a model not in the cache is downloaded, a network connection and up to gigabytes the
    # folder would choose before the user trusts it — the user's own default model is downloaded as ever.
    # `parallel` is left out: it starts up to 64 worker processes, a choice for the user's machine.)
    "embedding": _fields("max_length", "batch_size", "threads", "offline_fallback", "provider", "window",
                         "window_stride"),
    # (`path` needs trust: inside the folder it would let the folder ship a ready-made index, links or poisoned
    # stores, for ragls to open and write.)
    "index": _fields("ann_threshold"),
    "retrieval": {
        **_fields("top_k", "candidates", "fusion", "convex_alpha", "rrf_k", "vector_weight", "bm25_weight", "bm25_title_weight",
                  "graph_weight", "top_rank_bonus", "top3_rank_bonus", "meta_page_weight", "reference_entry_weight",
                  "stub_chunk_weight", "api_page_weight", "repeated_block_weight", "quoted_message_weight",
                  "settings_page_weight", "written_name_weight", "page_support_weight", "sentence_weight",
                  "sentence_margin", "sentence_rare_share", "sentence_first_only",
                  "bm25_feedback", "bm25_feedback_docs",
                  "bm25_feedback_terms", "bm25_feedback_query_weight", "window_margin", "min_similarity",
                  "hybrid", "dedup_cosine", "parent_document", "relevance_floor",
                  "abstention_probability", "graph_hops", "graph_concurrency",
                  "ingest_concurrency", "rerank_llm_candidates", "rerank_timeout_ms",
                  "rerank_provider", "transform_weight", "strong_signal_score", "strong_signal_gap",
                  "llm_timeout_s"),
        # (`reranker_model`, `colbert_model` and the ONNX rerankers are left out: a model download, see `_no_reranker`)
        "rerank_backend": _no_reranker,
    },
    "generation": _fields("temperature", "timeout_s", "max_context_chars", "memory_max_turns", "cache"),
    "commit": _fields("style", "max_diff_chars", "max_prompt_tokens"),
    "watch": _fields("enabled", "debounce_ms"),
    "web": _fields("max_pages", "max_depth", "delay_s", "timeout_s"),
}
SAFE_TOP_LEVEL = frozenset({"profile"})

#: section -> field -> the largest value an untrusted folder's ragls.toml may give a number, where the schema's own
#: bound (settings.py `le=`, which the user's settings and a trusted folder get) is far above what a folder needs:
#: each one caps the memory, threads, disk or LLM quota one file could otherwise claim. Ten times the default, or the
#: machine's CPUs for threads. A larger value is used at this bound, with a warning (`bounded`).
FOLDER_MAX: dict[str, dict[str, float]] = {
    # (loader_timeout_s: without trust it bounds only the built-in PDF reader, whose time a folder's PDF can claim
    # whole: the default, so the folder may only lower it)
    "sources": {"max_file_bytes": 20_000_000, "loader_timeout_s": 120},
    "chunking": {"chunk_size": 20_000, "chunk_overlap": 10_000},
    # the embedding's threads (embedding.sessions.thread_split); a batch's attention memory grows with its size (16 x 512 tokens ~ 200 MB)
    "embedding": {"threads": os.cpu_count() or 1, "batch_size": 16},
    "retrieval": {"rerank_timeout_ms": 60_000, "llm_timeout_s": 120, "graph_concurrency": 16},
    "generation": {"timeout_s": 600, "max_context_chars": 120_000},
    "commit": {"max_diff_chars": 240_000, "max_prompt_tokens": 64_000},
    "watch": {"debounce_ms": 60_000},
    "web": {"max_pages": 5_000, "max_depth": 10, "delay_s": 60, "timeout_s": 300},
}
#: The glob patterns (brace sets expanded: `{0..1023}/*.md` is 1,024) an untrusted folder's ragls.toml may give
#: `sources.include`, `sources.exclude` and its [rags.*] sources together. Each is compiled and matched against
#: every path, and a RAG source is also expanded by the trust check itself: a 22 KB file of 1,000 such globs cost
#: 76 CPU-s and 1.4 GB to index with, and 32 CPU-s to read as [rags.*] sources, at every command (1 MB: an hour).
#: As many as an ignore file may hold (ignore_files.MAX_IGNORE_PATTERNS); a real ragls.toml holds a handful.
MAX_FOLDER_GLOBS = 5_000
GLOB_SETTINGS = frozenset({("sources", "include"), ("sources", "exclude")})
TOO_MANY_GLOBS = f"more than {MAX_FOLDER_GLOBS:,} glob patterns in the file"
#: section -> field -> the smallest value an untrusted folder's ragls.toml may give a number whose smaller values
#: multiply the work of indexing and search: embedding windows every 8 wordpieces (the schema's least) made ten times
#: the vectors of the default's 128 (two flask-docs pages: 119 -> 1,160 windows, 16.7 -> 95.9 CPU-s to index), a
#: window of 32 wordpieces (its stride half of it) as many. A smaller value is used at this bound, with a warning
#: (`bounded`): at most twice the default's windows. (`chunking.chunk_size` keeps the schema's 100: folders set
#: 300-800 for their pages, and a chunk of fewer characters than a window is embedded once.)
FOLDER_MIN: dict[str, dict[str, float]] = {"embedding": {"window": 128, "window_stride": 64}}
RAG_KEYS = frozenset({"sources", "description"})  # rags.RAG_KEYS: the keys of a [rags.NAME] table that are not settings
BUILTIN_LOADER = re.compile(r"^(pdf|docx|html):(?!//)(.+)$")  # sources/resolve.BUILTIN_LOADERS, which run no program
_GLOB_CHARS = re.compile(r"[*?\[{]")


def bounded(section: str, name: str, value: Any) -> tuple[Any, str | None]:
    """An untrusted folder's number for `section.name` within bounds: (value, None) when it lies within the schema's
    bounds (settings.py `ge`/`gt`/`le`), `FOLDER_MIN` and `FOLDER_MAX`; (the bound, a warning naming the setting and
    the bound used) above them or below `FOLDER_MIN`; (the default, a warning) below the schema's minimum; (None, a warning) for nan, which is dropped. So a
    folder's file never stops the folder from opening with an out-of-range number, and never claims more than
    `FOLDER_MAX`. Anything but a number (a bool, a string) is returned as it is, for the schema to judge."""
    model = Settings.model_fields[section].annotation if section in Settings.model_fields else None
    field = getattr(model, "model_fields", {}).get(name)
    if field is None or isinstance(value, bool) or not isinstance(value, int | float):
        return value, None
    setting = f"{section}.{name} = {value!r} in the folder's ragls.toml"
    if math.isnan(value):
        return None, f"{setting} is not a number: left out"
    low = next((m.ge if hasattr(m, "ge") else m.gt for m in field.metadata if hasattr(m, "ge") or hasattr(m, "gt")),
               None)
    inclusive = any(hasattr(m, "ge") for m in field.metadata)
    if low is not None and (value < low or (value == low and not inclusive)):
        bound = f"below its minimum {low}" if inclusive else f"not above {low}, as it must be"
        used = "it is left unset (chosen automatically)" if field.default is None else f"the default {field.default} is used"
        return field.default, f"{setting} is {bound}: {used}"
    folder_low = FOLDER_MIN.get(section, {}).get(name, -math.inf)
    if value < folder_low:
        low = float(folder_low) if isinstance(field.default, float) else int(folder_low)
        return low, (f"{setting} is below {low:,}, the least an untrusted folder may set: {low:,} is used (set a "
                     "smaller one in your own settings, or trust the folder)")
    schema_high = min([m.le for m in field.metadata if hasattr(m, "le")], default=math.inf)
    folder_high = FOLDER_MAX.get(section, {}).get(name, math.inf)
    if value > min(schema_high, folder_high):
        high = min(schema_high, folder_high)
        high = float(high) if isinstance(field.default, float) else int(high)
        if folder_high < schema_high:
            return high, (f"{setting} is above {high:,}, the most an untrusted folder may set: {high:,} is used "
                          "(set a larger one in your own settings, or trust the folder)")
        return high, f"{setting} is above its maximum {high:,}: {high:,} is used"
    return value, None


@dataclass(frozen=True)
class IgnoredSetting:
    """A setting of an untrusted folder's ragls.toml that trusting the folder would add: its dotted `name`
    ("document_loaders", "generation.base_url", "rags.loot"), the `value` the file gives it (`normalize`'s shape; a
    table is a dict) and, when the name alone does not say why it is left out, `why` ("a source outside the
    folder")."""

    name: str
    value: Any
    why: str | None = None

    @property
    def label(self) -> str:
        """The name as the untrusted-file notice lists it: "rags.loot (a source outside the folder)"."""
        return f"{self.name} ({self.why})" if self.why else self.name


class _GlobBudget:
    """The glob patterns an untrusted ragls.toml may still give (`MAX_FOLDER_GLOBS`, shared by its glob lists in
    file order)."""

    def __init__(self) -> None:
        self.left = MAX_FOLDER_GLOBS

    def take(self, globs: Any) -> bool:
        """Whether the glob list `globs` (a string is one glob) fits in what is left; it is taken when it does."""
        count = pattern_count([globs] if isinstance(globs, str) else globs if isinstance(globs, list) else [],
                              self.left)
        if count > self.left:
            return False
        self.left -= count
        return True


def restrict(nested: dict[str, Any], folder: Path | None, notes: list[str] | None = None,
             budget: _GlobBudget | None = None) -> tuple[dict[str, Any], list[IgnoredSetting]]:
    """The part of a normalized settings layer (`config.normalize`'s nested shape) an untrusted folder may set,
    numbers within bounds (`bounded`: a warning for each one changed is added to `notes`), and what was left out
    with the values the layer gives it (`IgnoredSetting`: "document_loaders", "generation.base_url", "rags.loot"),
    in order. `folder`: the folder the layer comes from (paths must stay inside it). A glob list (`GLOB_SETTINGS`,
    a RAG's sources) past what is left of the file's `MAX_FOLDER_GLOBS` patterns is left out too (`TOO_MANY_GLOBS`;
    `budget`: what the file's earlier lists left, for the [rags.*] tables' own settings)."""
    kept: dict[str, Any] = {}
    ignored: list[IgnoredSetting] = []
    budget = budget or _GlobBudget()
    for key, value in nested.items():
        if key == "rags" and isinstance(value, dict):
            rags, dropped = _restrict_rags(value, folder, notes, budget)
            if rags:
                kept["rags"] = rags
            ignored += dropped
        elif isinstance(value, dict) and key != "document_loaders":  # a section (normalize keeps only known ones)
            section = {}
            for name, v in value.items():
                rule = SAFE.get(key, {}).get(name)
                if rule is not None and (key, name) in GLOB_SETTINGS and not budget.take(v):
                    ignored.append(IgnoredSetting(f"{key}.{name}", v, TOO_MANY_GLOBS))
                elif rule is not None and rule(v, folder):
                    v, note = bounded(key, name, v)
                    if note is not None and notes is not None:
                        notes.append(note)
                    if v is not None:
                        section[name] = v
                else:
                    ignored.append(IgnoredSetting(f"{key}.{name}", v))
            if section:
                kept[key] = section
        elif key in SAFE_TOP_LEVEL:
            kept[key] = value
        else:
            ignored.append(IgnoredSetting(key, value))
    return kept, ignored


def _restrict_rags(rags: dict[str, Any], folder: Path | None, notes: list[str] | None,
                   budget: _GlobBudget) -> tuple[dict[str, Any], list[IgnoredSetting]]:
    """[rags.NAME] tables of an untrusted folder: kept when every source is a path inside the folder and nothing
    but sources, a description and allowed settings is set (a backend table such as `qdrant = {...}` reaches a
    server), and the sources fit in the file's glob `budget` (checked first: the check of each source expands its
    brace sets); their settings go through the same allow-list (with no `index.path`: a RAG's index lives in the
    user's cache)."""

    kept, ignored = {}, []
    for name, table in rags.items():
        if not isinstance(table, dict):
            ignored.append(IgnoredSetting(f"rags.{name}", table))
            continue
        sources = table.get("sources", [])
        sources = [sources] if isinstance(sources, str) else sources
        if not isinstance(sources, list):
            ignored.append(IgnoredSetting(f"rags.{name}", table))
            continue
        if not budget.take([str(source) for source in sources]):
            ignored.append(IgnoredSetting(f"rags.{name}", table, TOO_MANY_GLOBS))
            continue
        problem = next((p for p in map(_source_problem, map(str, sources), [folder] * len(sources)) if p), None)
        if problem:
            ignored.append(IgnoredSetting(f"rags.{name}", table, problem))
            continue
        own, warnings = normalize({k: v for k, v in table.items() if k not in RAG_KEYS})
        if warnings:  # an unknown key may be a backend table (qdrant = {...}): the whole RAG is left out
            ignored.append(IgnoredSetting(f"rags.{name}", table, "not only sources and settings"))
            continue
        settings, dropped = restrict(own, None, notes, budget)
        kept[name] = {**{k: table[k] for k in RAG_KEYS if k in table}, **settings}
        ignored += [IgnoredSetting(f"rags.{name}.{d.name}", d.value, d.why) for d in dropped]
    return kept, ignored


def _source_problem(source: str, folder: Path | None) -> str | None:
    """Why a RAG source string (sources/resolve.py's forms) is not for an untrusted folder — "a URL source", "a
    source outside the folder" — or None when it names only files inside `folder`: no URL, no `~`, no `..`, each
    `;`-separated part's fixed prefix (before the first glob character) inside the folder — checked on each of
    the part's brace expansions (`globs.expand_braces`, as `sources/resolve.py` expands them: `{..,docs}/x.md`
    names `../x.md`)."""

    source = source.strip()
    m = BUILTIN_LOADER.match(source)
    if m:
        source = m.group(2)
    if "://" in source:
        return "a URL source"
    for part in (p.strip() for p in source.split(";")):
        if not part:
            continue
        try:
            expansions = expand_braces(part)
        except ValueError:
            return "a glob with too many brace expansions"
        for pattern in expansions:
            glob = _GLOB_CHARS.search(pattern)
            prefix = pattern[:glob.start()] if glob else pattern
            if ".." in Path(pattern).parts or not _inside(prefix or ".", folder):
                return "a source outside the folder"
    return None


@dataclass
class FolderLayer:
    """A folder's ragls.toml as a settings layer (`normalize`'s nested shape). `trusted`: all of it applies; else
    `data` holds only what `trust_filter.SAFE` allows and `ignored` the rest, with the file's values (what `ragls
    trust` shows), `notice` being the one line that says so and how to trust. `warnings`: unknown keys. `path`: the
    ragls.toml."""

    data: dict[str, Any]
    trusted: bool
    path: Path | None = None
    ignored: list[IgnoredSetting] = field(default_factory=list)
    notice: str | None = None
    warnings: list[str] = field(default_factory=list)
    raw: bytes | None = None  # the file's bytes this answer is about (what `ragls trust` records the hash of)
    how: str | None = None  # how to trust it ("read the file, then run `ragls trust DIR` to use them"), when untrusted
    # Which file set each setting in force, by dotted name (`setting_names.setting_files`): the user's ragls.toml or
    # this one; filled by `load_folder_settings`.
    setting_files: dict[str, Path] = field(default_factory=dict)

    def ignored_llm(self) -> str | None:
        """One sentence for an answer given without an LLM when this untrusted file named one (`LLM_SETTINGS`):
        "<path>'s LLM settings (generation.backend, generation.base_url) are ignored until the folder is trusted:
        read the file, then run `ragls trust DIR` to use them" (the wording of `untrusted_notice`); else None."""
        names = [i.name for i in self.ignored if i.name in LLM_SETTINGS]
        if self.trusted or not names or self.how is None:
            return None
        return (f"{self.path}'s LLM settings ({', '.join(names)}) are ignored until the folder is trusted: "
                f"{self.how}")


#: The settings of a folder's ragls.toml that choose an LLM (`FolderLayer.ignored_llm`).
LLM_SETTINGS = ("generation.backend", "generation.model", "generation.base_url", "generation.api_key_env")


def folder_layer(folder: str | os.PathLike | None, overrides: Sequence[dict[str, Any] | None] = ()) -> FolderLayer:
    """The settings a folder's ragls.toml may give — the one place folder trust is decided, so every front (LSP,
    CLI, MCP, HTTP) and its start-up scan get the same answer. Trusted when the editor says so (`editor_trust` of
    `overrides`: the user's own settings; when the editor sent `editor_trusted_configs`, only for the folders listed
    there and the very version of the file the user approved), else when the user's trust store (config/trust.py) has the folder with this
    very file's hash; an untrusted file keeps only `trust_filter.SAFE` settings. A ragls.toml that links out of the
    folder is not even read unless the editor trusts the workspace or the store has the folder
    (`trust.config_outside`): a notice says so. The user's own layers (editor settings, `~/.config/ragls`) are never filtered. Raises
    ConfigError for a file that cannot be read or parsed."""

    if folder is None:
        return FolderLayer({}, True)
    folder = Path(folder)
    path = folder / CONFIG_FILE
    outside = trust.config_outside(folder)
    if outside is not None and editor_trust(overrides) is not True:
        how = f"read it, then run `ragls trust {shlex.quote(str(folder))}` to use it"
        return FolderLayer({}, False, path, notice=(f"{path} is a link to a file outside the folder ({outside}), so "
                                                    f"it was not read; {how}"), how=how)
    try:
        raw = trust.read_config_bytes(folder)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    if raw is None:
        return FolderLayer({}, True)
    nested, warnings = normalize(parse_toml(path, raw))
    for section, name in USER_ONLY:  # never from a folder, trusted or not
        if isinstance(nested.get(section), dict) and nested[section].pop(name, None) is not None:
            warnings.append(f"ignored {section}.{name} in the folder's ragls.toml: a folder cannot let itself reach "
                            "files outside it; set it in your editor's settings")
    verdict = editor_trust(overrides)
    approved = editor_trusted_configs(overrides) if verdict else None
    if approved is not None and approved.get(trust.folder_key(folder)) != trust.config_hash(raw):
        # the user approved another version of this file in the editor, or the editor approved files one by one and
        # never this folder's (a folder added to Neovim's workspace): the trust store decides
        verdict = None
    state = trust.state(folder, raw) if verdict is None else ("trusted" if verdict else "restricted")
    if state == "trusted":
        return FolderLayer(nested, True, path, warnings=warnings, raw=raw)
    kept, ignored = restrict(nested, folder, warnings)
    notice = untrusted_notice(path, ignored, state) if ignored else None
    return FolderLayer(kept, False, path, ignored, notice, warnings, raw, how_to_trust(path, state))


def untrusted_notice(path: Path, ignored: list[IgnoredSetting], state: str) -> str:
    """The one line saying which settings of an untrusted ragls.toml were ignored (their labels, never values) and
    how to trust it. `state`: trust.state's "untrusted" / "changed", or "restricted" (the editor's restricted
    mode)."""
    what = ", ".join(i.label for i in ignored)
    if state == "restricted":
        return (f"{path}: the editor has not trusted this workspace (restricted mode), so these settings were "
                f"ignored: {what}; {how_to_trust(path, state)}")
    why = "changed since you trusted it" if state == "changed" else "is not trusted"
    return f"{path} {why}, so these settings were ignored: {what}; {how_to_trust(path, state)}"


def how_to_trust(path: Path, state: str) -> str:
    """How the user trusts the ragls.toml at `path` (`state` as in `untrusted_notice`): "read the file, then run
    `ragls trust DIR` to use them", or in the editor's restricted mode "trust the workspace in the editor to use
    them"."""
    if state == "restricted":
        return "trust the workspace in the editor to use them"
    return f"read the file, then run `ragls trust {shlex.quote(str(path.parent))}` to use them"


def user_layer() -> dict[str, Any]:
    """The settings of the user's own ragls.toml (`trust.user_config_file()`: `~/.config/ragls/ragls.toml` on Linux)
    as a layer: the whole file but its `[rags.*]` tables (named RAGs, kb/rags.py), never filtered (the user wrote
    it; a `USER_ONLY` setting such as `sources.follow_outside_links` is set there). {} without the file. Read each
    time a front loads a folder's settings. Raises ConfigError naming the file on a syntax error."""
    return {k: v for k, v in read_toml_file(user_config_file()).items() if k != "rags"}


def load_settings(folder: str | os.PathLike | None, *overrides: dict[str, Any] | None) -> tuple[Settings, list[str]]:
    """Settings for a workspace folder: the user's ragls.toml (`user_layer`), then the folder's (for an untrusted
    folder only what `SAFE` allows; never a `USER_ONLY` setting: see `folder_layer`), then each override
    (initializationOptions, then didChangeConfiguration). Returns (settings, warnings; the untrusted-file notice
    is one of them). Raises ConfigError."""
    settings, warnings, _ = load_folder_settings(folder, *overrides)
    return settings, warnings


def load_folder_settings(folder: str | os.PathLike | None,
                         *overrides: dict[str, Any] | None) -> tuple[Settings, list[str], Any]:
    """`load_settings` with the folder's layer (`FolderLayer`: trusted or not, what was ignored, which file set each
    setting). Raises
    ConfigError; an invalid value the folder's ragls.toml holds names that file ("invalid settings in
    /src/app/ragls.toml: retrieval.top_k: ..."), as a syntax error in it does."""
    layer = folder_layer(folder, overrides)
    user = user_layer()
    try:
        settings, warnings = build_settings(user, layer.data, *overrides)
    except ConfigError:
        refit = _without_untrusted_overlap(layer, user, overrides)
        if refit is None:
            if user:
                build_settings(user, origin=str(user_config_file()))  # raises when the user file's values are invalid
            if layer.path is not None and layer.data:
                build_settings(layer.data, origin=str(layer.path))  # raises when the file's own values are invalid
            raise
        settings, warnings = refit
    layer.setting_files = setting_files([(user_config_file(), user), (layer.path, layer.data)], overrides)
    return settings, layer.warnings + warnings + ([layer.notice] if layer.notice else []), layer


def _without_untrusted_overlap(layer: FolderLayer, user: dict[str, Any],
                               overrides: Sequence[dict[str, Any] | None]) -> tuple[Settings, list[str]] | None:
    """The settings built without an untrusted folder's `chunking.chunk_overlap`, when that is what made them
    invalid: each number is bounded on its own (`bounded`), but the overlap must also stay below the chunk size (the
    only rule across two settings a folder may set, `Settings._overlap_below_size`), which the user's layers may
    set. So a folder's file never stops the folder from opening; a warning names both, and `layer.data` loses the
    overlap. None otherwise (a trusted file's or the user's own conflict is an error, as any invalid value of
    theirs, and so is anything else left invalid)."""
    chunking = layer.data.get("chunking", {})
    if layer.trusted or "chunk_overlap" not in chunking:
        return None
    rest = {k: v for k, v in chunking.items() if k != "chunk_overlap"}
    data = {k: v for k, v in layer.data.items() if k != "chunking"} | ({"chunking": rest} if rest else {})
    try:
        settings, warnings = build_settings(user, data, *overrides)
    except ConfigError:
        return None
    note = (f"chunking.chunk_overlap = {chunking['chunk_overlap']} in the folder's ragls.toml is not below "
            f"chunking.chunk_size {settings.chunking.chunk_size}: left out (the default 5 % is used)")
    layer.data = data
    return settings, [note, *warnings]
