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

if TYPE_CHECKING:
    import numpy as np


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


CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _code_spans(text: str) -> list[str]:
    """The lower-cased words of the query's `code spans` (a stop word quoted as code is a name: `` `as` ``)."""
    return [w for span in CODE_SPAN.findall(text) for w in query_words(span)]


def analyse(text: object) -> Query:
    """Analyse a user query (an analysed `Query` is returned as it is). Raises InvalidParams for a non-string or an
    empty/whitespace-only query."""
    if isinstance(text, Query):
        return text
    if not isinstance(text, str) or not text.strip():
        raise InvalidParams("query must be a non-empty string")
    text = text.strip()
    words = tuple(query_words(text))
    content = [w for w in words if w not in STOPWORDS]
    bm25_words = tuple(dict.fromkeys(content or words))
    stemmed = {w: stems(w) for w in dict.fromkeys(words)}
    return Query(text=text, words=words, bm25_words=bm25_words, content_words=frozenset(content),
                 compounds=tuple(compound_identifiers(text)),
                 terms=tuple(dict.fromkeys(t for w in bm25_words for t in stemmed[w])),
                 focus_terms=frozenset(t for w in (content or bm25_words) for t in stemmed[w]),
                 cjk_runs=tuple(cjk_runs(text)))
