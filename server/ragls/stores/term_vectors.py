"""BM25 term vectors from ragls' own tokenizer, for engines that store or score sparse vectors (Qdrant).

The terms are exactly those the tantivy BM25 store indexes (`analysis.EN_STEM`: lower case, English Snowball stems,
camelCase parts added), so a chunk matches the same words in Qdrant as in tantivy.

Document side (`doc_vector`): per term the BM25 term-frequency saturation
    tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
with k1 = 1.2, b = 0.75 (tantivy's values, Robertson & Zaragoza 2009) and a fixed `avgdl` (AVG_DOC_TERMS: a
2000-character chunk of English prose is ~300 terms; an incremental index cannot know the corpus mean when it
writes, and Qdrant's own BM25 encoder (fastembed `Bm25`) fixes avg_len the same way). Query side (`query_vector`):
weight 1 per distinct query term; the engine multiplies by the IDF (Qdrant: sparse vector `modifier = idf`, which
computes ln(1 + (N - n + 0.5) / (n + 0.5)) over the collection at query time — the same formula as tantivy).

Term ids are the first 31 bits of sha256(term) (Qdrant sparse indices are u32; 31 bits keep them positive
everywhere). Two terms colliding is ~n²/2^32: negligible for a vocabulary of a few 100k terms.

`bm25_rank` scores a handful of texts against a query in memory (IDF over those texts): BM25 over the payloads of
an attached collection that has no sparse vectors.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence

from ragls.core.analysis import EN_STEM, content_words, indexed_body, spelling_variant

K1 = 1.2
B = 0.75
AVG_DOC_TERMS = 300.0


def term_id(term: str) -> int:
    """Stable sparse index of an analyzed term: the first 31 bits of its sha256 (0 .. 2**31-1)."""
    return int.from_bytes(hashlib.sha256(term.encode("utf-8", "surrogatepass")).digest()[:4], "big") >> 1


def doc_terms(text: str, title: str = "") -> list[str]:
    """Analyzed terms of a chunk (title, then text with its camelCase parts), stop words kept, as tantivy indexes
    them."""
    return EN_STEM.analyze(f"{title}\n{indexed_body(text)}" if title else indexed_body(text))


def query_terms(text: str) -> list[str]:
    """Distinct analyzed terms of user text (English stop words dropped unless nothing else is left), each word's
    other English spelling's terms too ("colours" -> colour, color; `analysis.spelling_variant`, as the tantivy
    store searches it: here a chunk holding both spellings counts both); user text is never query syntax."""
    words = content_words(text)
    variants = [v for w in words if (v := spelling_variant(w))]
    return list(dict.fromkeys(t for w in [*words, *variants] for t in EN_STEM.analyze(w)))


def doc_vector(text: str, title: str = "", avgdl: float = AVG_DOC_TERMS) -> tuple[list[int], list[float]]:
    """(indices, values) of a chunk's BM25 document vector: saturated term frequencies (module docstring).
    Empty lists for a text without words."""
    terms = doc_terms(text, title)
    dl = len(terms)
    weights: dict[int, float] = {}
    for term, tf in Counter(terms).items():
        w = tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
        idx = term_id(term)
        weights[idx] = weights.get(idx, 0.0) + w
    return list(weights), list(weights.values())


def query_vector(text: str) -> tuple[list[int], list[float]]:
    """(indices, values) of a query: weight 1.0 per distinct term (the engine applies IDF)."""
    ids = list(dict.fromkeys(term_id(t) for t in query_terms(text)))
    return ids, [1.0] * len(ids)


def bm25_rank(query: str, texts: Sequence[str]) -> list[tuple[int, float]]:
    """BM25 (k1 1.2, b 0.75) of `texts` for `query`, IDF and average length over `texts` themselves.
    Returns (position in texts, score) for texts with a positive score, best first."""
    q = query_terms(query)
    if not q or not texts:
        return []
    docs = [Counter(doc_terms(t)) for t in texts]
    lengths = [sum(d.values()) for d in docs]
    avgdl = (sum(lengths) / len(lengths)) or 1.0
    n = len(docs)
    scored = []
    for i, (d, dl) in enumerate(zip(docs, lengths)):
        s = 0.0
        for term in q:
            tf = d.get(term, 0)
            if not tf:
                continue
            df = sum(1 for other in docs if term in other)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            s += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
        if s > 0:
            scored.append((i, s))
    scored.sort(key=lambda kv: -kv[1])
    return scored
