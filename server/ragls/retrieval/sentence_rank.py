"""The answering sentence's meaning in the ranking: the first fused candidates re-ordered by their best sentence.

The vector signal scores a chunk by its best 256-wordpiece window (`pooling.py`): a window holds ~1,100 characters,
and the one sentence that answers is a small part of its vector. all-MiniLM-L6-v2 was trained on sentence pairs; a
question's cosine with the answering sentence alone is often far above its cosine with any window around it, and
far above the sentences of a page that only shares the question's subject ("You can replace the Gunicorn binary
without downtime." 0.795 where its window scores 0.457, against an install page's best sentence 0.600; "Install
packages with conda:" 0.774 against a backends list's 0.484). Late interaction at the sentence level is the
remedy the passage-retrieval literature gives for long units (MaxSim in Khattab & Zaharia 2020, "ColBERT", at the
token level; "MaxP" over passages in Dai & Callan 2019).

Each of the first `SENTENCE_HEAD` fused candidates (convex scores, after the document priors and page support) gets
`retrieval.sentence_weight` x its page's best sentence among them added to its fused score — the best cosine of the
question with one of the answer sentences (the extractive answer's candidate passages, `passages.chunk_units`, whose
vectors the index's sentence pass stores) of that page's chunks in the head — and those candidates are re-sorted;
the rest keep their places. Every chunk of a page gains the same, so the sentences decide which page comes first
and the fused order still decides which of a page's chunks does: by each chunk's own best sentence, a page's
opening chunk, whose general sentences match many questions, rose above the chunk that answers (Jest's CLI.md and
SnapshotTesting.md intros, Datasette's testing page; 11 of 20 such moves within a page were for the worse), and a
page whose answering sentence sat in its second chunk lost the first place with its first (Locust's
`init_command_line_parser`). The vectors are read
where they are at hand (`Embedder.known_vectors`: the sentence pass stored them, or an answer embedded them); the
model never runs here (a query stays ~25 ms warm), so when any of the head's sentences has no vector yet (a cold
index, a named RAG before its sentence pass) the fused order is returned as it is. Where the weight and the head
come from: bench/history/session-64.md, "Ranking: the answering sentence's cosine over the first five".
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ragls.answer.includes import FileFilters
from ragls.answer.passages import chunk_units
from ragls.core.ir import Chunk
from ragls.retrieval.query import analyse

# How many of the first fused candidates are re-ordered: the default top_k, independent of the request's top_k so
# that rag/query at k 5 and `ragls eval` at k 10 rank alike.
SENTENCE_HEAD = 5


def best_sentence_cosines(chunks: Sequence[Chunk], embed: Callable[[list[str]], Any], query_vector: Any,
                          files: FileFilters | None = None, terms: frozenset[str] = frozenset(),
                          rare_share: float = 1.0) -> list[float | None] | None:
    """The best cosine of `query_vector` (normalised, (dim,)) with one of each chunk's answer sentences
    (`Unit.sentence` of `passages.chunk_units`, read with the open indexes' file filters `files`), one per chunk in
    order; None for a chunk without a sentence. `embed` maps texts to their normalised vectors ((len, dim)) or None
    when they are not all at hand (`Embedder.known_vectors`): then the whole result is None, so that no chunk is
    judged on its sentences while another is not. With `rare_share` < 1 and the question's index terms `terms`
    (`Query.focus_terms`), a sentence counts only when it holds one of them that at most `rare_share` of the
    chunks' distinct sentences hold (`rare_sentences`); a chunk without such a sentence gets None."""
    per_chunk = [[u.sentence for u in chunk_units(c, files=files) if u.sentence.strip()] for c in chunks]
    texts = list(dict.fromkeys(t for sents in per_chunk for t in sents))
    if not texts:
        return [None] * len(chunks)
    vectors = embed(texts)
    if vectors is None:
        return None
    cosines = dict(zip(texts, (vectors @ query_vector).tolist()))
    if rare_share < 1.0:
        counted = rare_sentences(texts, terms, rare_share)
        per_chunk = [[t for t in sents if t in counted] for sents in per_chunk]
    return [max(cosines[t] for t in sents) if sents else None for sents in per_chunk]


@functools.lru_cache(maxsize=8192)
def _sentence_terms(sentence: str) -> frozenset[str]:
    return analyse(sentence).focus_terms if sentence.strip() else frozenset()


def rare_sentences(sentences: Sequence[str], terms: frozenset[str], share: float) -> set[str]:
    """The distinct `sentences` holding one of the question's index terms `terms` that at most `share` of them hold
    (each sentence's terms as a query's, `Query.focus_terms`: stemmed content words). The words every candidate
    repeats — the product's name, the page's subject — pass nobody, so a short sentence naming the product ("SQLFluff
    aims to fill this space for SQL.") does not lift an overview page over the page that answers (session 64's
    lead; bench/history/session-65.md, "Ranking: a margin for the fused first")."""
    distinct = list(dict.fromkeys(sentences))
    held = {s: _sentence_terms(s) & terms for s in distinct}
    counts: dict[str, int] = {}
    for found in held.values():
        for t in found:
            counts[t] = counts.get(t, 0) + 1
    rare = {t for t, n in counts.items() if n <= share * len(distinct)}
    return {s for s, found in held.items() if found & rare}


def sentence_rerank(fused: list, chunks: dict, embed: Callable[[list[str]], Any] | None, query_vector: Any,
                    weight: float, files: FileFilters | None = None, head: int = SENTENCE_HEAD,
                    margin: float = 0.0, terms: frozenset[str] = frozenset(), rare_share: float = 1.0,
                    first_only: bool = False) -> list:
    """`fused` (`fuse.Fused`, convex scores, best first) with each of its first `head` entries raised by `weight` x
    the best sentence cosine (`best_sentence_cosines`) of its page's chunks among them (`chunks[key]` is the entry's
    chunk, `Chunk.document` its page) and those entries re-sorted by the new score (ties keep their order, so a page's
    chunks keep theirs); the raise is the contribution "sentence", none for a cosine <= 0 (a fused score stays
    positive: relevance shares, `fuse.relevance_shares`, are read from it). The first entry's page, the fused first,
    gains `margin` more (`retrieval.sentence_margin`, in cosine units times `weight`): another page takes the first place
    only when its raise beats the first's by more than the margin plus their fused gap, not on a difference of
    cosines within MiniLM's noise. With `rare_share` < 1 only the sentences holding a question term (`terms`) rare
    among the head's sentences count (`rare_sentences`). With `first_only` (`retrieval.sentence_first_only`) the
    sentences choose the first entry only: it comes first with its raise, and the head's other entries keep their
    fused order and scores (the extractive answer, built from the first hits, changes only where the first does).
    Entries below the head are unchanged. Returns
    `fused` itself when `weight` <= 0, without `embed` or `query_vector`, when an entry of the head has no chunk, or
    when a sentence's vector is not at hand."""
    if weight <= 0 or embed is None or query_vector is None or len(fused) < 2:
        return fused
    top = fused[:head]
    if any(f.key not in chunks for f in top):
        return fused
    cosines = best_sentence_cosines([chunks[f.key] for f in top], embed, query_vector, files, terms, rare_share)
    if cosines is None:
        return fused
    best: dict[str, float] = {}  # page -> its best sentence's cosine among the head's chunks
    for f, cos in zip(top, cosines):
        page = chunks[f.key].document
        if cos is not None and cos > best.get(page, -2.0):
            best[page] = cos
    first = chunks[top[0].key].document
    for f in top:
        page = chunks[f.key].document
        cos = best.get(page)
        # a sentence pointing away from the question adds nothing (scores stay >= 0)
        raise_ = weight * cos if cos is not None and cos > 0 else 0.0
        if page == first:
            raise_ += weight * margin
        if raise_:
            f.contributions["sentence"] = raise_
            f.score += raise_
    order = {id(f): i for i, f in enumerate(top)}
    ranked = sorted(top, key=lambda f: (-f.score, order[id(f)]))
    if not first_only:
        return ranked + fused[head:]
    # only the first place: the winner comes first with its raise, the others keep their fused places and scores
    for f in top:
        if f is not ranked[0] and "sentence" in f.contributions:
            f.score -= f.contributions.pop("sentence")
    return [ranked[0]] + [f for f in top if f is not ranked[0]] + fused[head:]
