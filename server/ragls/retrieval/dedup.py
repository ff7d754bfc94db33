"""Near-duplicate removal (`retrieval.dedup_cosine`): a hit whose vector has cosine >= the threshold with a better
ranked hit is dropped (two copies of a README, a vendored doc, a page and its translation stub).

Vectorised: one (n, n) matrix of cosines of the L2-normalised vectors, then a greedy pass in rank order; 100
candidates of 384 dimensions take about 1 ms (`bench/dedup.py`). A pure-Python pairwise loop took
87% of a peer's query time at 100 candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def keep_distinct(vectors: Sequence[np.ndarray | None], threshold: float) -> list[bool]:
    """For candidates in rank order, True for each one kept. A candidate is dropped when its vector's cosine with
    a kept, better ranked candidate's vector is >= `threshold`. Candidates without a vector (None) are always
    kept and compared with nothing. Vectors: float32 (dim,), L2-normalised. `threshold` >= 1 turns it off."""
    import numpy as np

    n = len(vectors)
    keep = [True] * n
    idx = [i for i, v in enumerate(vectors) if v is not None]
    if len(idx) < 2 or threshold >= 1.0:
        return keep
    mat = np.stack([np.asarray(vectors[i], dtype=np.float32) for i in idx])
    # einsum's own loop, not BLAS: a multi-threaded BLAS matmul of this small size took 80 ms on a loaded 2-core
    # machine (thread start-up and contention) against 1 ms here.
    sims = np.einsum("id,jd->ij", mat, mat)
    kept = np.zeros(len(idx), dtype=bool)
    for a in range(len(idx)):
        if a and (sims[a, :a][kept[:a]] >= threshold).any():
            keep[idx[a]] = False
        else:
            kept[a] = True
    return keep
