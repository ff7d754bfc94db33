"""Cheap estimate of a folder's first index, before anything is indexed: files that would be indexed, approximate
chunks, and the embedding time. Editors ask it (`ragls estimate --json FOLDER`) to ask the user once before a
large first index; `ragls doctor` prints the same figures.

Nothing is written and no model is loaded: the walk is `sources.walk` (the server's own file selection, with
.gitignore and `sources.include/exclude` from the folder's ragls.toml), chunks are bytes / `chunk_size`, and the
time is `workspace.estimate_embed_seconds` (measured throughput on 2 cores, conservative).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ragls.config import load_settings
from ragls.embed import declared_max_length
from ragls.indexer import default_index_dir
from ragls.sources.walk import walk
from ragls.workspace import LONG_EMBED_WARNING_S, estimate_embed_seconds


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
    for rel in listed:
        try:
            size += (root / rel).stat().st_size
        except OSError:
            continue  # vanished or unreadable: the indexer skips it too
    chunks = -(-size // settings.chunking.chunk_size) if size else 0
    # Truncation: the model folder's declared limit when it names one (256 for all-MiniLM-L6-v2), else the setting.
    max_length = min(settings.embedding.max_length,
                     declared_max_length(settings.embedding.model_path) or settings.embedding.max_length)
    seconds = estimate_embed_seconds(chunks, max_length)
    return IndexEstimate(folder=str(root), files=len(listed), chunks=chunks, bytes=size, seconds=round(seconds, 1),
                         indexed=(index_dir / "manifest.sqlite").is_file(), index_path=str(index_dir),
                         long=seconds > LONG_EMBED_WARNING_S)
