"""Window pooling: one vector score per chunk from the scores of its embedding windows.

A chunk is embedded as overlapping windows (`ragls.windows`). Scoring it by its best window alone ("MaxP" in Dai &
Callan 2019, "Deeper Text Understanding for IR with Contextual Neural Language Modeling") finds answers deep in a
long chunk, but it also gives every multi-window chunk several draws at a high score: a wrong chunk's tail window,
which lacks the chunk's opening (what the chunk is about), can outrank a right chunk that has a single window.
Combining the best passage's score with the document's own score is the classic remedy (Callan 1994,
"Passage-level evidence in document retrieval"); here the document-level score is window 0 ("FirstP": the chunk's
heading and opening text, the vector a one-window embedding of the chunk would have had):

    score = (1 - w) * best window cosine + w * window-0 cosine,     w = `retrieval.first_window_weight`

A chunk with one window scores its cosine whatever w is; w = 0 is MaxP, w = 1 FirstP. The chunk's `similarity`
(shown to users, used by abstention and the cosine floor) stays the best window's cosine; only the vector
signal's ranking uses the pooled score. docs/benchmarks.md ("Window pooling") has the measurements behind the
default.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pooled_scores(store, vector: np.ndarray, matches: Sequence, first_weight: float,
                  margin: float = 0.0) -> list[tuple[object, float]]:
    """[(WindowMatch, pooled score)] for a store's `matches` (`search_windows` output), best pooled score first.

    Window-0 cosines the search did not see are fetched with `store.first_window_similarities(vector, ids)` (one
    filtered scan); a store without that method, or a chunk whose window 0 is missing, keeps its best-window
    score. `first_weight` in [0, 1]; 0 returns the matches in their order with their cosines."""
    if first_weight <= 0 and margin <= 0:
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
        if first is None:
            score = m.similarity
        elif margin > 0:
            score = max(first, m.similarity - margin)
        else:
            score = (1.0 - first_weight) * m.similarity + first_weight * first
        out.append((m, score))
    out.sort(key=lambda ms: -ms[1])
    return out
