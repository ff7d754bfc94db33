"""glibc heap settings for the long-running server: fewer malloc arenas, and freed memory handed back to the OS.

glibc's malloc gives each thread that contends for the heap its own arena, up to 8 per core (M_ARENA_MAX,
mallopt(3)). Memory freed in one thread's arena is not reused by another thread, and memory freed at the top of
an arena stays resident until `malloc_trim(3)`. The server loads the model on one thread, indexes on another and
answers on a pool, so transient peaks (ONNX Runtime graph optimisation: ~55 MB freed right after the session is
created) stayed resident and were not reused. Two arenas is the value Heroku's "Tuning glibc Memory Behavior"
recommends for multi-threaded servers (`MALLOC_ARENA_MAX=2`); a MALLOC_ARENA_MAX set by the user wins.
Everything here is a no-op off glibc (macOS, Windows, musl).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

M_ARENA_MAX = -8  # glibc malloc.h
DEFAULT_ARENA_MAX = 2

_libc = None


def _glibc():
    """The C library when it is glibc, else None."""
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                libc.gnu_get_libc_version  # noqa: B018 - raises AttributeError on musl
                _libc = libc
            except (OSError, AttributeError):
                pass
    return _libc or None


def limit_arenas(arenas: int = DEFAULT_ARENA_MAX) -> bool:
    """Cap glibc's malloc arenas at `arenas` unless MALLOC_ARENA_MAX is set. Call early, before threads start.
    Returns True when the cap was applied."""
    libc = _glibc()
    if libc is None or "MALLOC_ARENA_MAX" in os.environ:
        return False
    return bool(libc.mallopt(M_ARENA_MAX, int(arenas)))


def trim() -> None:
    """Return free heap memory of every arena to the OS (`malloc_trim(0)`); takes milliseconds."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
