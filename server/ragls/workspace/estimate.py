"""Cheap estimate of a folder's first index, before anything is indexed: files that would be indexed, approximate
chunks, and the embedding time. Editors ask it (`ragls estimate --json FOLDER`) to ask the user once before a
large first index; `ragls doctor` prints the same figures.

Nothing is written and no model is loaded: the walk is `sources.walk` (the server's own file selection, with
.gitignore and `sources.include/exclude` from the folder's ragls.toml); chunks are the listed bytes times the
chunks per byte of up to SAMPLE_FILES files spread over the listing, chunked by the indexer's own chunker
(heading-dense READMEs make chunks far shorter than `chunk_size`: 1,250 characters on average in a node_modules
folder, where bytes / `chunk_size` guessed 1,619 chunks for 2,581); files over `sources.max_file_bytes` are left
out, as the indexer skips them (a large log once made a 4-second folder an estimated 21.6 days); the time is
`workspace.estimate_embed_seconds` (measured throughput on a quiet 2-core machine, conservative). That is not what
a busy machine takes: the wall time (`wall_seconds`) adds the start-up (START_SECONDS) and scales by the machine's
load (`load_factor`): urllib3's docs, 58 chunks, estimated 0.2 min, took 104-135 s wall at load averages 9-12 on 2
cores (bench/history/sessions-36-37.md, "First-index estimate vs wall time"). The load is the one when estimating: a load that
rises during the index makes it longer still.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragls.config.trust_filter import load_settings
from ragls.core.ir import Document
from ragls.core.uris import key_path
from ragls.embedding.model_source import expected_max_length
from ragls.index.indexer import default_index_dir
from ragls.index.windows import windows_per_chunk
from ragls.sources.walk import walk


@dataclass
class IndexEstimate:
    """`folder` (absolute), `files` to index, approximate `chunks`, `seconds` to embed them on a quiet 2-core
    machine, `bytes` of text, `indexed` (an index of this folder already exists: only changes will be indexed),
    `index_path`, `long` (seconds > LONG_EMBED_WARNING_S, 10 minutes), `max_length` (tokens per embedding window
    of the model the index will load: `embedding.model_source.expected_max_length`), `load_average` (the 1-minute load average
    when estimated; None where the platform has none), `cores` (os.cpu_count) and `wall_seconds`: the first index's
    wall time at that load, (START_SECONDS + seconds) x `load_factor`."""

    folder: str
    files: int
    chunks: int
    bytes: int
    seconds: float
    indexed: bool
    index_path: str
    long: bool
    wall_seconds: float = 0.0
    load_average: float | None = None
    cores: int = 2
    max_length: int = 512  # tokens the estimate assumes the model reads (the embedding window), for the rate text

    def to_json(self) -> dict[str, Any]:
        """camelCase keys, as the editors read them."""
        d = asdict(self)
        for key in ("index_path", "wall_seconds", "load_average", "max_length"):
            head, tail = key.split("_")
            d[head + tail.capitalize()] = d.pop(key)
        return d


# Embedding windows per second on a quiet 2-core machine, by window length in wordpieces: the one source of the
# embedding-time figure (`estimate_embed_seconds`, `embed_rate_text`). A window is one embedding input: a
# 2,000-character chunk is 3 windows of 256 wordpieces for all-MiniLM-L6-v2, one text of 512 for a model reading
# 512 (`index.windows.windows_per_chunk`). 12 windows/s at 256 is conservative: bench/history/sessions-36-37.md ("Embedding rate
# of the estimate") measured 16-23 texts of up to 256 wordpieces per second on a quiet machine and 9-10 full
# 256-wordpiece windows per CPU-second; a cold index of 313 chunks (939 windows) took 1.3 min there.
WINDOWS_PER_SECOND = {256: 12.0, 512: 4.5}
LONG_EMBED_WARNING_S = 600  # seconds; `long` estimates (over 10 minutes) make editors ask before a first index


def windows_per_second(max_length: int) -> float:
    """Embedding windows per second on a quiet 2-core machine for a model reading `max_length` tokens: lengths up
    to 256 use WINDOWS_PER_SECOND[256], longer ones WINDOWS_PER_SECOND[512]."""
    return WINDOWS_PER_SECOND[256] if max_length <= 256 else WINDOWS_PER_SECOND[512]


def embed_rate_text(max_length: int) -> str:
    """The rate `estimate_embed_seconds` uses, as `ragls estimate` prints it: "12 windows of 256 wordpieces per
    second"."""
    return f"{windows_per_second(max_length):g} windows of {max_length} wordpieces per second"


def estimate_embed_seconds(chunks: int, max_length: int = 512, chunk_chars: int = 2000) -> float:
    """Seconds to embed `chunks` `chunk_chars`-character chunks with a model reading `max_length` tokens on a quiet
    2-core machine: each of a chunk's windows (`index.windows.windows_per_chunk`: 3 at 256, 1 at 512) at
    `windows_per_second(max_length)`: 313 chunks at 256 -> 313 x 3 / 12 = 78 s."""
    return chunks * windows_per_chunk(chunk_chars, max_length) / windows_per_second(max_length)


START_SECONDS = 5.0  # imports, model copy and load of a first `ragls index`: 4.0-4.5 CPU-s for a 1-file folder


def load_factor(load_average: float | None, cores: int) -> float:
    """How many times longer than on a quiet machine a CPU-bound run takes now: (load + 1) / cores, at least 1 —
    the run competes with `load` runnable tasks for `cores` cores. 1 when the load is unknown. Checked against
    urllib3's docs under `nice -n 10` (a smaller share than a plain run gets): 65 s predicted at load 6.1 on 2
    cores, 146 s taken (the load rose to 11.5); 98 s at load 9.1, 135 s taken (to 11.8)."""
    if load_average is None or cores < 1:
        return 1.0
    return max(1.0, (load_average + 1) / cores)


def wall_at_load(seconds: float, start: bool = True) -> tuple[float, float | None, int]:
    """(wall seconds, 1-minute load average or None, cores) of `seconds` of quiet-machine work run now: plus
    START_SECONDS when `start` (a process that still loads the model), times `load_factor` of the current load."""
    load, cores = current_load(), os.cpu_count() or 1
    return ((START_SECONDS if start else 0.0) + seconds) * load_factor(load, cores), load, cores


def embedding_time_text(chunks: int, pending: int, max_length: int) -> str:
    """`ragls status`'s "embedding:" figure for an index of `chunks` sections, `pending` of them not fully embedded
    (without a vector, or without the vectors of their later windows), for a model reading `max_length` tokens: the
    time left at the current load (`wall_at_load`, the model loaded) and on a quiet machine while sections wait,
    "~2.5 min left at the current load (load average 12.0 on 2 cores) for 44 sections not fully embedded yet
    (~0.2 min on a quiet 2-core machine)" (every window of each counted: an upper bound); else what a cold index
    would take. It
    printed only the quiet figure: "~0.2 min for a cold index of 44 sections" read as the time left, where nox's
    first index took 2.5 min wall at load 12 (bench/history/session-63.md)."""
    quiet = estimate_embed_seconds(pending or chunks, max_length)
    wall, load, cores = wall_at_load(quiet, start=not pending)
    at_load = "at the current load" + ("" if load is None else f" (load average {load:.1f} on {cores} cores)")
    if pending:
        return (f"~{wall / 60:.1f} min left {at_load} for {pending} section{'s' * (pending != 1)} not fully embedded yet "
                f"(~{quiet / 60:.1f} min on a quiet 2-core machine)")
    warning = "  WARNING: over 10 minutes" if quiet > LONG_EMBED_WARNING_S else ""
    return (f"a cold index of {chunks} section{'s' * (chunks != 1)}: ~{quiet / 60:.1f} min on a quiet 2-core machine, "
            f"~{wall / 60:.1f} min with start-up {at_load}{warning}")


def current_load() -> float | None:
    """The 1-minute load average, None where the platform has none (Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def estimate_first_index(folder: Path | str, *overrides: dict[str, Any] | None) -> IndexEstimate:
    """Estimate indexing `folder` with its ragls.toml plus `overrides` (editor settings). Raises ConfigError for
    invalid settings and OSError when the folder cannot be listed."""
    root = Path(folder).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"not a folder: {root}")
    settings, _ = load_settings(root, *overrides)
    index_dir = Path(settings.index.path) if settings.index.path else default_index_dir(root)
    listed = walk(root, settings.sources, index_dir)
    size = 0
    kept: list[str] = []
    for rel in listed:
        try:
            st_size = (root / key_path(rel)).stat().st_size
        except OSError:
            continue  # vanished or unreadable: the indexer skips it too
        if st_size > settings.sources.max_file_bytes:
            continue  # skipped "too large" by the indexer: a 2 GB log must not count as 2 GB of text to embed
        size += st_size
        kept.append(rel)
    listed = kept
    ratio = _chunks_per_byte(root, listed, settings)
    if ratio is None:
        chunks = -(-size // settings.chunking.chunk_size) if size else 0
    else:
        chunks = max(1, round(size * ratio)) if size else 0
    # The window of the model the first index will load: the offline all-MiniLM-L6-v2 reads 256 wordpieces where
    # ragls's default bge-small, when cached or downloadable, reads 512.
    max_length = expected_max_length(settings.embedding)
    seconds = estimate_embed_seconds(chunks, max_length, settings.chunking.chunk_size)
    wall, load, cores = wall_at_load(seconds)
    return IndexEstimate(folder=str(root), files=len(listed), chunks=chunks, bytes=size, seconds=round(seconds, 1),
                         indexed=(index_dir / "manifest.sqlite").is_file(), index_path=str(index_dir),
                         long=seconds > LONG_EMBED_WARNING_S, wall_seconds=round(wall, 1),
                         load_average=None if load is None else round(load, 2), cores=cores,
                         max_length=max_length)


SAMPLE_FILES = 48  # files chunked to measure chunks per byte; chunking them takes well under a second


def _chunks_per_byte(root: Path, listed: list[str], settings) -> float | None:
    """Chunks per file byte over up to SAMPLE_FILES of `listed`, evenly spread (every file when there are fewer),
    read and chunked as the indexer does (`sources.load.load_file`, `chunking.chunk_document`; a file the indexer
    skips for its text, `chunking.no_text_reason`, has no chunk). None when no sampled file could be read."""
    from ragls.index.chunking import chunk_document, no_text_reason
    from ragls.sources.load import load_file

    step = max(1, -(-len(listed) // SAMPLE_FILES))
    n_bytes = n_chunks = 0
    for rel in listed[::step]:
        doc = load_file(root, rel, settings.sources.max_file_bytes)
        if not isinstance(doc, Document) or not doc.size:
            continue
        n_bytes += doc.size  # the file's bytes, as `size` above counts them
        if no_text_reason(doc.text) is None:
            n_chunks += len(chunk_document(doc, settings.chunking.chunk_size, settings.chunking.overlap))
    return n_chunks / n_bytes if n_bytes else None
