"""The query analyser: a query analysed once, when it arrives, into every form the retrieval steps need.

BM25 search, the exact-match bonus, focus lines of BM25-only hits and the abstention evidence all look at the same
words and terms; `analyse(text)` computes them once (with `ragls/core/analysis.py`, the analysis the BM25 index uses
for documents) into a frozen `Query` that is passed down; the query vector is added once computed
(`with_vector`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragls.core.analysis import STOPWORDS, cjk_runs, compound_identifiers, query_words, stems
from ragls.core.errors import InvalidParams
from ragls.retrieval.query_fit import fit_query

if TYPE_CHECKING:
    import numpy as np

    from ragls.embedding.embed import Embedder


@dataclass(frozen=True)
class Query:
    """An analysed query.

    - `text`: the query as given, stripped.
    - `words`: BM25's query words (lower-case alphanumeric runs plus camelCase parts, `analysis.query_words`).
    - `bm25_words`: distinct words BM25 searches (stop words dropped unless only stop words remain).
    - `content_words`: `words` minus English stop words (what an exact match must contain); may be empty.
    - `compounds`: compound identifiers (`get_worktrees`, `os.path.join`, `HashMap::new`), searched as phrases.
    - `terms`: the distinct index terms of `bm25_words` (`analysis.stems`), in order: what the abstention
      evidence weighs by IDF.
    - `focus_terms`: the index terms of `content_words` (of `bm25_words` when it has none): what focus lines of
      a BM25-only hit must hold.
    - `cjk_runs`: the query's runs of CJK characters (BM25 searches their bigrams in its `cjk` field).
    - `vector`: the query embedding (float32, L2-normalised) once computed, else None.
    - `own_text` / `context`: for a chat follow-up searched with words borrowed from the earlier question
      (`answer/conversation.py`), the follow-up as typed and the `bm25_words` only the borrowed words gave; they
      weigh CONTEXT_WEIGHT of the follow-up's own (`word_weights` for BM25, `query_vector` for the
      embedding): the follow-up's words decide what is found, the borrowed ones only tell its subject apart. ""
      and empty otherwise.
    """

    text: str
    words: tuple[str, ...]
    bm25_words: tuple[str, ...]
    content_words: frozenset[str]
    compounds: tuple[str, ...]
    terms: tuple[str, ...] = ()
    focus_terms: frozenset[str] = frozenset()
    cjk_runs: tuple[str, ...] = ()
    vector: np.ndarray | None = None
    own_text: str = ""
    context: frozenset[str] = frozenset()

    @property
    def word_weights(self) -> dict[str, float]:
        """{BM25 word: weight} for the words that do not weigh 1 (the borrowed `context` words); {} for most."""
        return dict.fromkeys(self.context, CONTEXT_WEIGHT)

    @property
    def searchable(self) -> bool:
        """False when the query holds no word to search — only punctuation or symbols (`( " * :`, `-`), or only
        stop words (`AND OR NOT`, `the of and`: `core.analysis.STOPWORDS`) none of which is quoted as code
        (`` `as` `` is a name to look up): user text is never query syntax, so such a query matches nothing
        (`search.search` returns no hits, and the request abstains) instead of the nearest chunks of an embedding
        of punctuation or of the passages richest in "the". (None of the 683 questions of bench/questions is
        only stop words.)"""
        if self.content_words or self.cjk_runs:
            return True
        return bool(self.words) and any(w in self.words for w in _code_spans(self.text))

    def with_vector(self, vector: np.ndarray) -> Query:
        """The same query with its embedding."""
        return replace(self, vector=vector)


# What a word borrowed from the earlier question weighs against the follow-up's own (BM25 term boost, and the share of
# the embedded query, `query_vector`): measured on bench/followups (bench/history/session-58.md, "Chat
# follow-ups").
CONTEXT_WEIGHT = 0.25
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _code_spans(text: str) -> list[str]:
    """The lower-cased words of the query's `code spans` (a stop word quoted as code is a name: `` `as` ``)."""
    return [w for span in CODE_SPAN.findall(text) for w in query_words(span)]


def analyse(text: object, *, context: str = "") -> Query:
    """Analyse a user query (an analysed `Query` is returned as it is). `context`: words borrowed from an earlier
    question of a chat (`answer/conversation.borrowed_terms`): the query is `text` followed by them, the words only
    they give weighing CONTEXT_WEIGHT (`Query.own_text`, `Query.context`); not when `text` has no content word of
    its own ("why?": the borrowed words are then all there is to search). Raises InvalidParams for a non-string or
    an empty/whitespace-only query."""
    if isinstance(text, Query):
        return text
    if not isinstance(text, str) or not text.strip():
        raise InvalidParams("query must be a non-empty string")
    text = text.strip()
    if context.strip():
        own = analyse(text)
        whole = analyse(f"{text} {context.strip()}")
        if not own.content_words:
            return whole
        return replace(whole, own_text=text, context=frozenset(w for w in whole.bm25_words if w not in own.words))
    words = tuple(query_words(text))
    content = [w for w in words if w not in STOPWORDS]
    bm25_words = tuple(dict.fromkeys(content or words))
    stemmed = {w: stems(w) for w in dict.fromkeys(words)}
    return Query(text=text, words=words, bm25_words=bm25_words, content_words=frozenset(content),
                 compounds=tuple(compound_identifiers(text)),
                 terms=tuple(dict.fromkeys(t for w in bm25_words for t in stemmed[w])),
                 focus_terms=frozenset(t for w in (content or bm25_words) for t in stemmed[w]),
                 cjk_runs=tuple(cjk_runs(text)))


def query_vector(embedder: Embedder, q: Query, model_text: str) -> np.ndarray:
    """The embedding searched for `q` (float32 (dim,), L2-normalised): `model_text`'s (the query as the model reads
    it, `query_fit.fit_query`); for a chat follow-up with borrowed words (`Query.context`) `blend`ed with the
    follow-up's own text's: its own words decide which passages are close, the borrowed ones pull toward the
    earlier subject."""
    whole = embedder.embed_query(model_text)
    if not (q.context and q.own_text):
        return whole
    own_text, _ = fit_query(q.own_text, embedder.query_token_count, embedder.max_length)
    return blend(embedder.embed_query(own_text), whole)


def blend(own: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """`own` (the embedding of a follow-up as typed) plus CONTEXT_WEIGHT x `whole` (of it with the borrowed words),
    L2-normalised, float32 (dim,)."""
    import numpy as np  # here: a BM25-only first answer (MCP, CLI) imports no numpy (tests/integration/test_mcp_start)

    mixed = np.asarray(own, dtype=np.float32) + CONTEXT_WEIGHT * np.asarray(whole, dtype=np.float32)
    return mixed / max(float(np.linalg.norm(mixed)), 1e-12)
