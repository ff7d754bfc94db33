"""Content hashes, chunk ids and the index fingerprint.

All hashes are sha256 hex digests (truncated where noted) so they are stable across machines and Python versions.
"""

from __future__ import annotations

import hashlib
import json


def content_hash(data: bytes) -> str:
    """sha256 hex of raw file bytes (64 chars)."""
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    """sha256 hex of UTF-8 text (64 chars); keys the embedding cache, so equal text shares one vector."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def chunk_id(path: str, ordinal: int, chunk_text_hash: str) -> str:
    """Stable id of a chunk: 32 hex chars of sha256(path, ordinal, text hash)."""
    raw = f"{path}\0{ordinal}\0{chunk_text_hash}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


def fingerprint(parts: dict) -> str:
    """Index fingerprint: 16 hex chars of sha256 over the sorted JSON of `parts` (model, dim, chunking, tokenizer).
    When it changes the index is rebuilt."""
    raw = json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]
