"""The relevance test shared by rag/query and rag/ask: `abstained(result, floor)` says whether a retrieval result
holds nothing relevant enough to answer from (no hits, a corrective grade, the calibrated evidence of
`abstention.py`, the cosine floor, or a BM25 hit holding every content word of the question).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragls.core.analysis import stem_set, stems, word_set
from ragls.core.ir import Hit
from ragls.retrieval.query import Query, analyse
from ragls.retrieval.result import RetrievalResult


def has_words(chunk, words: set[str]) -> bool:
    """True when the chunk's title or text contains every one of `words` (BM25 query words) literally.

    Each of a text's `query_words` is a piece of the text lower-cased, so a word that is not a substring of the
    lower-cased text cannot be one of them: that test (microseconds) rules most chunks out before the text is split
    into words (~0.3 ms for 2,000 characters; `word_set` keeps the split). Exact: `str.lower` maps character by
    character except the Greek capital sigma (its final form depends on what follows), so a text holding one is
    always split."""
    text = f"{chunk.title}\n{chunk.text}"
    if "\u03a3" not in text:
        lowered = text.lower()
        if any(w not in lowered for w in words):
            return False
    return words <= word_set(text)



def abstained(result: Sequence[Hit], floor: float, query: str | Query | None = None, *,
              min_probability: float = 0.0) -> bool:
    """True when nothing relevant enough was found in `result` (a `RetrievalResult`; a plain list of hits is
    judged without evidence).

    0. No hits, or corrective retrieval graded them insufficient twice (`result.corrective`): abstain. An LLM
       that graded them sufficient (`result.corrective == "sufficient"`) is the last word: answer, whatever the
       evidence below says (it read the passages; the evidence only measures them).
    1. With `min_probability` > 0 and the result's `evidence` (with vector evidence): abstain when the
       calibrated probability that the index answers (retrieval/abstention.py) is below it (`Evidence.refused`:
       not for a paraphrase whose focus sentence it means, without a veto).
    2. Otherwise, and when rule 1 answers: relevant means any of: the best cosine similarity (of the hits, or
       `result.best_similarity` over all vector candidates) reaches `floor`; or (given the analysed query,
       `result.query`, else `query`) a hit BM25 found contains every content word of the query, literally or by
       its stem (`_holds_words`) — a
       search for an identifier or a rare term is answered even though short keyword queries rarely reach the
       dense floor; or, without any vector evidence yet (vectors still being computed), BM25 found something.
       Content words: BM25's query words minus English stop words. With rule 1 on and evidence, the floor is the
       evidence's `needed_cosine(floor)`: raised (up to 0.31 for MiniLM) as the share of the question's words in
       the focused passage falls, so a far-off question that reaches the bare floor by chance is refused.
    """
    result = RetrievalResult.of(result)
    if not result or result.corrective == "insufficient":  # graded twice (retrieval/corrective.py)
        return True
    if result.corrective == "sufficient":  # an LLM read the passages: its grade is the last word
        return False
    if min_probability > 0 and result.evidence is not None and result.evidence.refused(min_probability):
        return True
    query = result.query or query
    if query is not None and _keyword_match(result, query):
        return False
    sims = [h.similarity for h in result if h.similarity is not None]
    if result.best_similarity is not None:
        sims.append(result.best_similarity)
    if not sims:
        return not any("bm25" in h.signals for h in result)
    if min_probability > 0 and result.evidence is not None:
        floor = result.evidence.needed_cosine(floor)  # the far-off floor: higher with fewer question words in focus
    return max(sims) < floor


def _keyword_match(hits: Sequence[Hit], query: str | Query) -> bool:
    """True when a hit BM25 found holds every content word of `query` (BM25's words minus stop words), as BM25
    matched it: by its stem (`analysis.stems`), so "upgrade" is held by a chunk titled "Upgrading" — a short
    question's words found by BM25 are found, though a small file's one chunk has a low cosine."""
    words = analyse(query).content_words
    if not words:
        return False
    return any("bm25" in hit.signals and _holds_words(hit.chunk, words) for hit in hits)


def _holds_words(chunk, words: set[str]) -> bool:
    """Whether the chunk's title or text holds each of `words` (BM25 query words) literally (`has_words`) or by
    its stem (`analysis.stems`: "upgrade" in "Upgrading")."""
    if has_words(chunk, words):
        return True
    text = f"{chunk.title}\n{chunk.text}"
    literal, terms = word_set(text), stem_set(text)
    return all(w in literal or (set(stems(w)) and set(stems(w)) <= terms) for w in words)
