"""One thread-safe in-memory LRU for the server's memos: answers (`answer/cache.py`), retrieval steps' LLM replies
(`retrieval/llm_steps.py`), conversation summaries (`answer/conversation.py`) and files' heading paths
(`index/titles.py`, bounded by weight).

The eviction order is `cachetools.LRUCache`'s; this class adds the lock, since language-server requests and the
indexer run on several threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

V = TypeVar("V")


class LRU(Generic[V]):
    """At most `size` entries (>= 1); `get` counts as a use, the least recently used entry goes first. With `weigh`
    (value -> weight >= 1), at most `size` total weight instead (a value heavier than `size` is not stored)."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None) -> None:
        self.size = size
        self._data: LRUCache = LRUCache(maxsize=size, getsizeof=weigh)
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value stored under `key` (now the most recently used), or None."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: Hashable, value: V) -> None:
        """Store `value` under `key`, evicting the least recently used entry when full."""
        with self._lock:
            try:
                self._data[key] = value
            except ValueError:  # heavier than the whole cache (cachetools: "value too large")
                self._data.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)
