"""Cheap estimate of a folder's first index, before anything is indexed: files that would be indexed, approximate
chunks, and the embedding time. Editors ask it (`ragls estimate --json FOLDER`) to ask the user once before a
large first index; `ragls doctor` prints the same figures.

Nothing is written and no model is loaded: the walk is `sources.walk` (the server's own file selection, with
.gitignore and `sources.include/exclude` from the folder's ragls.toml); chunks are the listed bytes times the
chunks per byte of up to SAMPLE_FILES files spread over the listing, chunked by the indexer's own chunker
(heading-dense READMEs make chunks far shorter than `chunk_size`: 1,250 characters on average in a node_modules
folder, where bytes / `chunk_size` guessed 1,619 chunks for 2,581); files over `sources.max_file_bytes` are left
out, as the indexer skips them (a large log once made a 4-second folder an estimated 21.6 days); the time is
`workspace.estimate_embed_seconds` (measured throughput on 2 cores, conservative).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragls.config.trust_filter import load_settings
from ragls.core.ir import Document
from ragls.core.uris import key_path
from ragls.embedding.embed import declared_max_length
from ragls.index.indexer import default_index_dir
from ragls.sources.walk import walk
from ragls.workspace.rag_workspace import LONG_EMBED_WARNING_S, estimate_embed_seconds


@dataclass
class IndexEstimate:
    """`folder` (absolute), `files` to index, approximate `chunks`, `seconds` to embed them on 2 cores, `bytes` of
    text, `indexed` (an index of this folder already exists: only changes will be indexed), `index_path`, and
    `long` (seconds > LONG_EMBED_WARNING_S, 10 minutes)."""

    folder: str
    files: int
    chunks: int
    bytes: int
    seconds: float
    indexed: bool
    index_path: str
    long: bool

    def to_json(self) -> dict[str, Any]:
        """camelCase keys, as the editors read them."""
        d = asdict(self)
        d["indexPath"] = d.pop("index_path")
        return d


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
    # Truncation: the model folder's declared limit when it names one (256 for all-MiniLM-L6-v2), else the setting.
    max_length = min(settings.embedding.max_length,
                     declared_max_length(settings.embedding.model_path) or settings.embedding.max_length)
    seconds = estimate_embed_seconds(chunks, max_length, settings.chunking.chunk_size)
    return IndexEstimate(folder=str(root), files=len(listed), chunks=chunks, bytes=size, seconds=round(seconds, 1),
                         indexed=(index_dir / "manifest.sqlite").is_file(), index_path=str(index_dir),
                         long=seconds > LONG_EMBED_WARNING_S)


SAMPLE_FILES = 48  # files chunked to measure chunks per byte; chunking them takes well under a second


def _chunks_per_byte(root: Path, listed: list[str], settings) -> float | None:
    """Chunks per file byte over up to SAMPLE_FILES of `listed`, evenly spread (every file when there are fewer),
    read and chunked as the indexer does (`sources.load.load_file`, `chunking.chunk_document`). None when no
    sampled file could be read."""
    from ragls.index.chunking import chunk_document
    from ragls.sources.load import load_file

    step = max(1, -(-len(listed) // SAMPLE_FILES))
    n_bytes = n_chunks = 0
    for rel in listed[::step]:
        doc = load_file(root, rel, settings.sources.max_file_bytes)
        if not isinstance(doc, Document) or not doc.size:
            continue
        n_bytes += doc.size  # the file's bytes, as `size` above counts them
        n_chunks += len(chunk_document(doc, settings.chunking.chunk_size, settings.chunking.overlap))
    return n_chunks / n_bytes if n_bytes else None
