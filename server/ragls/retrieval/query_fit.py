"""Long queries: keep the part of a pasted query the embedding model can see, and say that it was cut.

Embedding models read a bounded number of tokens (`embedding.max_length`, 256 for all-MiniLM-L6-v2) and cut the
rest off the end. A long pasted query — a stack trace, a log excerpt or a paragraph followed by the question —
usually ends with what the user asks, so the end is kept instead: whole sentences or lines from the end while they
fit, or the last words of the last sentence when it alone is too long. BM25 still searches the whole text. The
caller reports the cut (`truncated: true` in the rag/query result, a log line).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PARTS = re.compile(r"(?<=[.!?。！？])\s+|\s*\n\s*")


def fit_query(text: str, count_tokens: Callable[[str], int | None], limit: int) -> tuple[str, bool]:
    """(`text`, False) when the model sees all of it, else (its most informative tail that fits, True).

    `count_tokens(text)` gives the tokens the model sees, capped at `limit` (a count >= `limit` means the text is
    cut), or None when unknown (then nothing is cut here). The tail is made of whole sentences/lines from the end,
    joined by a space or newline as in the text; when even the last one does not fit, of its last words (binary
    search: O(log words) counts)."""
    n = count_tokens(text)
    if n is None or n < limit:
        return text, False
    parts = [p for p in _PARTS.split(text.strip()) if p]
    kept: list[str] = []
    for part in reversed(parts):
        candidate = "\n".join([part, *kept])
        if (count_tokens(candidate) or 0) >= limit:
            break
        kept.insert(0, part)
    if kept:
        return "\n".join(kept), True
    words = parts[-1].split() if parts else text.split()
    lo, hi = 1, len(words)  # the largest number of tail words that fits
    best = 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if (count_tokens(" ".join(words[-mid:])) or 0) < limit:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    tail = " ".join(words[-best:])
    if (count_tokens(tail) or 0) >= limit:  # one enormous "word": keep its last characters
        tail = tail[-limit:]
    return tail, True
