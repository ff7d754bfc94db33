"""A query analysed once: the words every retrieval step needs, computed when the query arrives.

BM25 search, the exact-match bonus, focus lines of BM25-only hits and the abstention rule all look at the same
words; before this value each of them re-tokenised the text. `analyse(text)` gives a frozen `Query`; the query
vector is added once computed (`with_vector`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragls.errors import InvalidParams
from ragls.stores.bm25 import STOPWORDS, compound_identifiers, query_words

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Query:
    """An analysed query.

    - `text`: the query as given, stripped.
    - `words`: BM25's query words (lower-case alphanumeric runs plus camelCase parts, `bm25.query_words`).
    - `bm25_words`: distinct words BM25 searches (stop words dropped unless only stop words remain).
    - `content_words`: `words` minus English stop words (what an exact match must contain); may be empty.
    - `compounds`: compound identifiers (`get_worktrees`, `os.path.join`, `HashMap::new`), searched as phrases.
    - `vector`: the query embedding (float32, L2-normalised) once computed, else None.
    """

    text: str
    words: tuple[str, ...]
    bm25_words: tuple[str, ...]
    content_words: frozenset[str]
    compounds: tuple[str, ...]
    vector: np.ndarray | None = None

    def with_vector(self, vector: np.ndarray) -> Query:
        """The same query with its embedding."""
        return replace(self, vector=vector)


def analyse(text: object) -> Query:
    """Analyse a user query. Raises InvalidParams for a non-string or an empty/whitespace-only query."""
    if isinstance(text, Query):
        return text
    if not isinstance(text, str) or not text.strip():
        raise InvalidParams("query must be a non-empty string")
    text = text.strip()
    words = tuple(query_words(text))
    content = [w for w in words if w not in STOPWORDS]
    return Query(text=text, words=words, bm25_words=tuple(dict.fromkeys(content or words)),
                 content_words=frozenset(content), compounds=tuple(compound_identifiers(text)))
