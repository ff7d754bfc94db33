"""One thread-safe in-memory LRU for the server's memos: answers (`answer/cache.py`), retrieval steps' LLM replies
(`retrieval/llm_steps.py`) and conversation summaries (`answer/conversation.py`).

The eviction order is `cachetools.LRUCache`'s; this class adds the lock, since language-server requests and the
indexer run on several threads.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

V = TypeVar("V")


class LRU(Generic[V]):
    """At most `size` entries (>= 1); `get` counts as a use, the least recently used entry goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: LRUCache = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value stored under `key` (now the most recently used), or None."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: Hashable, value: V) -> None:
        """Store `value` under `key`, evicting the least recently used entry when full."""
        with self._lock:
            self._data[key] = value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
