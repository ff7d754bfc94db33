"""The answer cache (`generation.cache`, off by default): a repeated question over unchanged documents is answered
without calling the LLM.

The key is sha256 over the question, the retrieved chunks (id and text hash, in order), the model (backend, name,
URL, temperature) and the effective prompt (system text, history messages, rendered template), so any of those
changing is a miss: an edited document changes its chunks' hashes, a follow-up changes the history, a new template
or model changes the rest. Entries live in memory (LRU, CACHE_SIZE answers) for the life of the server; only
complete LLM answers are stored (never extractive fallbacks, errors or cancelled ones).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from ragls.core.ir import Hit
from ragls.core.lru import LRU

CACHE_SIZE = 512


@dataclass(frozen=True)
class CachedAnswer:
    """A stored answer: the raw model text (citations not yet checked) and its numbered sources."""

    text: str
    sources: tuple[tuple[int, Hit], ...]


def cache_key(question: str, hits: list[tuple[int, Hit]], model: str, prompt: object) -> str:
    """sha256 hex of (question, [(chunk id, text hash)], model description, effective prompt as JSON)."""
    raw = json.dumps({"q": question, "chunks": [[h.chunk.id, h.chunk.text_hash] for _, h in hits], "model": model,
                      "prompt": prompt}, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


class AnswerCache(LRU[CachedAnswer]):
    """Thread-safe in-memory LRU of `CachedAnswer`s (at most `size`); concurrent asks may read and write it."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        super().__init__(size)
