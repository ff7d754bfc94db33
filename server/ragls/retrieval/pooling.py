"""Window pooling: one vector score per chunk from the cosines of its embedding windows.

A chunk is embedded as overlapping windows (`ragls.index.windows`). Scoring it by its best window alone ("MaxP" in Dai &
Callan 2019, "Deeper Text Understanding for IR with Contextual Neural Language Modeling") finds answers deep in a
long chunk, but it also gives every multi-window chunk several draws: the cosines of two overlapping windows of
one chunk differ by noise (on Cranfield-1400, later window minus window 0: mean -0.001, standard deviation 0.044
over all query x chunk pairs), so the max of them sits above window 0 on average (+0.015) even where no window
answers better, and a wrong chunk's tail window, which lacks the chunk's opening, can outrank a right chunk that
has one window. Combining passage-level with document-level evidence is the classic remedy (Callan 1994,
"Passage-level evidence in document retrieval"); here window 0 (the heading and opening text, the vector a
one-window embedding of the chunk would have had, "FirstP") is the document-level score, and a later window
counts only by what it adds beyond the noise:

    score = max(window-0 cosine, best window cosine - margin),     margin = `retrieval.window_margin`

A chunk with one window scores its cosine; margin 0 is MaxP (the default: a margin lifts Cranfield but demotes
answers deep in long technical sections, bench/history/early-speed-and-operations.md, "Window pooling"). The hit's `similarity` (shown to users, used by
abstention and the cosine floor) stays the best window's cosine; only the vector signal's ranking uses the pooled
score. bench/history/early-speed-and-operations.md ("Window pooling") has the measurements.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def pooled_scores(store, vector: np.ndarray, matches: Sequence, margin: float) -> list[tuple[object, float]]:
    """[(WindowMatch, pooled score)] for a store's `matches` (`search_windows` output), best pooled score first
    (ties keep the search's order).

    Window-0 cosines the search did not see (`WindowMatch.first_similarity` None) are fetched with
    `store.first_window_similarities(vector, ids)` (one filtered scan); a store without that method, or a chunk
    whose window 0 is missing, keeps its best-window cosine. `margin` in cosine units, >= 0; 0 returns the
    matches in their order with their cosines."""
    if margin <= 0:
        return [(m, m.similarity) for m in matches]
    need = [m.chunk_id for m in matches if m.index != 0 and getattr(m, "first_similarity", None) is None]
    fetch = getattr(store, "first_window_similarities", None)
    fetched = fetch(vector, need) if need and fetch is not None else {}
    out = []
    for m in matches:
        if m.index == 0:
            first = m.similarity
        else:
            first = getattr(m, "first_similarity", None)
            if first is None:
                first = fetched.get(m.chunk_id)
        out.append((m, m.similarity if first is None else max(first, m.similarity - margin)))
    out.sort(key=lambda ms: -ms[1])
    return out
