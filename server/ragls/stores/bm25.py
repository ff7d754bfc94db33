"""BM25 store: a tantivy index of chunk titles and texts.

Fields: `id` and `path` (raw, for lookups and deletes), `title` and `body` (`analysis.BM25_TOKENIZER`: tantivy's
`en_stem` pipeline with ASCII folding — lower case, "é" -> "e", English Snowball stemming). Code-aware tokens: `en_stem` already splits `snake_case` and `foo.bar` at the
punctuation; camelCase identifiers are additionally indexed as their parts (`retryMaxAttempts` -> `retry max
attempts`), so either spelling matches. Scores are tantivy's BM25 (k1 = 1.2, b = 0.75).

Chinese, Japanese and Korean text is written without spaces between words, so the `body` tokens of a CJK sentence
are whole clauses (and clauses over 40 bytes are dropped by tantivy's length filter): a third field, `cjk`, holds the
overlapping character bigrams of every CJK run ("数据库连接" -> 数据 据库 库连 连接; a lone character as itself), as
Lucene's CJKAnalyzer does. A query holding CJK searches the `cjk` field with its own bigrams (term queries, plus the
bigrams of each CJK run as a phrase, so an exact substring ranks first). An index made before the field existed is
rebuilt from the manifest when it opens (its schema no longer matches).

The analysis (words, camelCase parts, stems, CJK bigrams, compound identifiers, stop words) is
`ragls/core/analysis.py`, shared with the query analyser. User text is never parsed as query syntax: `search` reduces it
to lower-case alphanumeric words and builds term objects of their analysed terms, so `retry:max`, `"unterminated`,
`a AND (b`, `-v` or `{0}` are plain words. English stop words
(NLTK's list: articles, pronouns, question words, auxiliaries) are dropped from the query unless nothing else is
left: questions ("what ... must be obeyed when ...") otherwise match documents on rare function words such as
"what" or "when" (Cranfield BM25 nDCG@10 0.355 -> 0.366, see bench/history/early-retrieval-quality.md, "What was measured on the way"). The index keeps every word.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import tantivy

from ragls.core.analysis import (
    BM25_TOKENIZER,
    EN_STEM,
    EN_STEM_NO_STOP,
    cjk_bigrams,
    compound_identifiers,
    content_words,
    has_cjk,
    indexed_body,
    register_bm25_tokenizer,
    run_bigrams,
    spelling_variant,
)
from ragls.core.analysis import cjk_runs as find_cjk_runs
from ragls.core.ir import Chunk
from ragls.core.telemetry import traced

log = logging.getLogger(__name__)

TOKENIZER_VERSION = "bm25-en_stem-camel-fold-v2"  # v2: ASCII folding (an older index is rebuilt)

SEARCH_FIELDS = ("title", "body")


def fuzzy_distance(word: str) -> int:
    """Edit distance a query word absent from the index may be matched at: 0 below 4 characters (too many
    neighbours), 1 up to 7, 2 from 8 characters (Lucene/Elasticsearch "AUTO" fuzziness, shifted one up)."""
    return 0 if len(word) < 4 else (1 if len(word) < 8 else 2)


FUZZY_BOOST = 0.5  # a fuzzy match scores as a plain term match of half the weight (tantivy scores it constant)


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    sb.add_text_field("path", stored=False, tokenizer_name="raw")
    sb.add_text_field("title", stored=False, tokenizer_name=BM25_TOKENIZER)
    sb.add_text_field("body", stored=False, tokenizer_name=BM25_TOKENIZER)
    sb.add_text_field("cjk", stored=False, tokenizer_name="whitespace")
    return sb.build()


def _index(directory: Path | None = None) -> tantivy.Index:
    """A tantivy index of `_schema()` in `directory` (None: in memory) with the BM25 fields' analyzer registered.
    Raises ValueError "schema does not match" for an index made with another schema, OSError when unreadable."""
    index = tantivy.Index(_schema()) if directory is None else tantivy.Index(_schema(), path=str(directory), reuse=True)
    register_bm25_tokenizer(index)
    return index


def _boosted(queries: list[tantivy.Query], weight: float) -> list[tantivy.Query]:
    """`queries` with each score multiplied by `weight` (themselves at 1)."""
    return queries if weight == 1.0 else [tantivy.Query.boost_query(q, weight) for q in queries]


class Bm25Store:
    """tantivy index in `directory` (None: in memory, for a request's ephemeral documents). One writer per process
    (guarded by a lock); any number of readers.

    `add`/`delete_paths` stage changes; `commit` makes them durable and visible. Raises OSError when the directory
    cannot be opened.
    """

    def __init__(self, directory: Path | None, *, writable: bool = True, heap_bytes: int = 50_000_000):
        self._writable = writable
        self._heap = heap_bytes
        self._writer = None
        self._lock = threading.Lock()
        self.has_cjk = True  # False: an older index without the `cjk` field, opened read-only
        if directory is None:
            self.directory = None
            self.index = _index()
            return
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            self.index = _index(self.directory)
        except ValueError as exc:
            if "schema does not match" not in str(exc):
                raise
            if not writable:  # the writer process (or the next writer) rebuilds it; read it as it is meanwhile
                self.index = tantivy.Index.open(str(self.directory))
                self.has_cjk = False
                return
            # Made by an older version (no `cjk` field): BM25 is derived from the manifest, so start it afresh;
            # the indexer's reconcile() sees the ids differ and re-adds every chunk.
            self._start_afresh()

    def _start_afresh(self) -> None:
        log.warning("BM25 index %s has an older schema: rebuilding it from the manifest", self.directory)
        shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True)
        self.index = _index(self.directory)
        self.has_cjk = True

    def set_writable(self, writable: bool) -> None:
        """Switch between read-only and writable (a reader process that took over the writer lock, a writer that
        handed it over). Becoming read-only drops the tantivy IndexWriter, releasing tantivy's own writer lock
        (uncommitted additions are rolled back: callers commit each batch)."""
        with self._lock:
            self._writable = writable
            if writable and not self.has_cjk:
                self._start_afresh()  # the caller's reconcile() re-adds every chunk from the manifest
            if not writable and self._writer is not None:
                self._writer.rollback()
                self._writer = None

    def _w(self):
        if not self._writable:
            raise PermissionError("this BM25 store was opened read-only")
        if self._writer is None:
            self._writer = self.index.writer(heap_size=self._heap, num_threads=1)
        return self._writer

    def add(self, chunks: Iterable[Chunk]) -> None:
        """Stage chunks for indexing (title weighs in through its own field; a chunk's `context` is indexed in
        `body` before its text)."""
        with self._lock:
            w = self._w()
            for c in chunks:
                # a contextual chunk's LLM-written context (index/contextual.py) is searchable with its text
                text = f"{c.context}\n\n{c.text}" if c.context else c.text
                w.add_document(tantivy.Document(id=c.id, path=c.document, title=c.title or "", body=indexed_body(text),
                                                cjk=" ".join(cjk_bigrams(f"{c.title}\n{text}"))))

    def delete_paths(self, paths: Iterable[str]) -> None:
        with self._lock:
            w = self._w()
            for p in paths:
                w.delete_documents_by_term("path", p)

    def delete_ids(self, ids: Iterable[str]) -> None:
        with self._lock:
            w = self._w()
            for i in ids:
                w.delete_documents_by_term("id", i)

    def delete_all(self) -> None:
        with self._lock:
            self._w().delete_all_documents()

    def commit(self) -> None:
        """Make staged changes durable and visible to searches."""
        with self._lock:
            if self._writer is not None:
                try:
                    self._writer.commit()
                    self._writer.wait_merging_threads()
                except BaseException:
                    # e.g. a full disk: drop what was staged (the caller's retry stages it again) and the writer
                    # with it, so the next batch starts from the last good commit
                    with contextlib.suppress(Exception):
                        self._writer.rollback()
                    self._writer = None
                    raise
                self._writer = None  # releases tantivy's writer lock between batches
        self.index.reload()

    def count(self) -> int:
        self.index.reload()
        return self.index.searcher().num_docs

    def ids(self) -> list[str]:
        """Every chunk id in the index (with duplicates, if any) — used by start-up reconciliation."""
        self.index.reload()
        searcher = self.index.searcher()
        n = searcher.num_docs
        if n == 0:
            return []
        res = searcher.search(tantivy.Query.all_query(), limit=n)
        return [searcher.doc(addr)["id"][0] for _, addr in res.hits]

    @traced("bm25.search")
    def search(self, text: str, limit: int, *, words: Iterable[str] | None = None,
               compounds: Iterable[str] | None = None, cjk_runs: Iterable[str] | None = None, fuzzy: bool = True,
               title_weight: float = 1.0, weights: dict[str, float] | None = None) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, BM25 score) for free text, best first. [] when the text has no words.

        `words`/`compounds`/`cjk_runs`: the query already analysed (`retrieval.query.Query.bm25_words` /
        `.compounds` / `.cjk_runs`); each computed from `text` when not given. With `fuzzy`, a word whose terms the
        index does not hold is also matched at edit distance `fuzzy_distance(word)` (transpositions cost 1) in
        title and body: "HashMpa" finds "HashMap". CJK in `text` is searched by its bigrams in the `cjk` field (`_cjk_queries`). `title_weight`
        (`retrieval.bm25_title_weight`) multiplies each term's BM25 score in the `title` field (1: title and body
        count alike; 0: body only). User text never becomes query syntax: words become term objects of their
        analysed terms, fuzzy terms too. `weights` ({word: weight}, `Query.word_weights`) multiplies the score of
        each listed word (its terms, fuzzy terms too); words not listed weigh 1."""
        words = [w for w in words if not has_cjk(w)] if words is not None else content_words(text)
        cjk = self._cjk_queries(find_cjk_runs(text) if cjk_runs is None else list(cjk_runs))
        if not (words or cjk) or limit <= 0:
            return []
        by_weight: dict[float, list[str]] = {}
        for w in words:
            by_weight.setdefault(float((weights or {}).get(w, 1.0)), []).append(w)
        exact: list[tantivy.Query] = []
        near: list[tantivy.Query] = []
        for weight, group in by_weight.items():
            exact += _boosted(self._word_terms(group, title_weight), weight)
            near += _boosted(self._fuzzy_terms(group, title_weight), weight) if fuzzy else []
        clauses = exact + self._compound_phrases(text if compounds is None else None, compounds) + near + cjk
        if not clauses:
            return []
        query = clauses[0] if len(clauses) == 1 else tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, q) for q in clauses])
        searcher = self.index.searcher()
        res = searcher.search(query, limit=limit, count=False)
        return [(searcher.doc(addr)["id"][0], float(score)) for score, addr in res.hits]

    def _fields(self, make, title_weight: float) -> tantivy.Query:
        """`make(field)` for `body` and `title` as one should-query, the title's boosted by `title_weight`
        (left out at 0)."""
        clauses = [(tantivy.Occur.Should, make("body"))]
        if title_weight > 0:
            title = make("title")
            if title_weight != 1.0:
                title = tantivy.Query.boost_query(title, float(title_weight))
            clauses.insert(0, (tantivy.Occur.Should, title))
        return tantivy.Query.boolean_query(clauses)

    def _word_terms(self, words: Iterable[str], title_weight: float = 1.0) -> list[tantivy.Query]:
        """One query per analysed term of each query word: its BM25 score in `body` plus `title_weight` times its
        score in `title` (with weight 1 the query tantivy's parser builds for the same words over both fields).
        A word whose terms repeat another's counts again, as in the parsed query. A one-term word English spells
        two ways (`analysis.spelling_variant`: "colours" / "colors") is scored by whichever of its two terms
        scores higher in a chunk (a disjunction max, tie-breaker 0): a chunk in either spelling matches, and one
        holding both counts once."""
        schema = self.index.schema

        def term_query(term: str) -> tantivy.Query:
            return self._fields(lambda f, t=term: tantivy.Query.term_query(schema, f, t, index_option="freq"),
                                title_weight)

        out = []
        for word in words:
            terms = EN_STEM.analyze(word)
            other = self._variant_term(word, terms)
            if other is None:
                out += [term_query(term) for term in terms]
            else:
                out.append(tantivy.Query.disjunction_max_query([term_query(terms[0]), term_query(other)], 0.0))
        return out

    @staticmethod
    def _variant_term(word: str, terms: Sequence[str]) -> str | None:
        """The analysed term of `word`'s other spelling (`analysis.spelling_variant`) when `word` is one term and
        its variant is one other term; else None."""
        variant = spelling_variant(word)
        if variant is None or len(terms) != 1:
            return None
        other = EN_STEM.analyze(variant)
        return other[0] if len(other) == 1 and other[0] != terms[0] else None

    def _fuzzy_terms(self, words: Iterable[str], title_weight: float = 1.0) -> list[tantivy.Query]:
        """Fuzzy term queries (title, weighted by `title_weight`, and body) for the query words none of whose
        terms the index holds, in neither spelling (`_variant_term`)."""
        out = []
        searcher = self.index.searcher()
        schema = self.index.schema
        for word in words:
            distance = fuzzy_distance(word)
            if not distance:
                continue
            terms = EN_STEM.analyze(word)
            other = self._variant_term(word, terms)
            if other is not None and (searcher.doc_freq("body", other) or searcher.doc_freq("title", other)):
                continue  # the other spelling is indexed: the word is found as it is spelt there
            for term in terms:
                if searcher.doc_freq("body", term) or searcher.doc_freq("title", term):
                    continue
                fields = self._fields(lambda f, t=term, d=distance: tantivy.Query.fuzzy_term_query(
                    schema, f, t, distance=d, transposition_cost_one=True), title_weight)
                out.append(tantivy.Query.boost_query(fields, FUZZY_BOOST))
        return out

    def _compound_phrases(self, text: str | None, compounds: Iterable[str] | None = None) -> list[tantivy.Query]:
        """One `body` phrase query per compound identifier in `text` (its words in order, stop words kept):
        `get_worktrees` splits into two common-looking words, and only the phrase tells the chunk that holds the
        identifier from chunks that merely say "get" often. A matching chunk adds the phrase's BM25 score to its
        term scores; the phrase is built from analyzed terms, never parsed."""
        phrases = []
        for match in (compound_identifiers(text) if compounds is None else compounds):
            terms = EN_STEM.analyze(match)
            if len(terms) >= 2:
                phrases.append(tantivy.Query.phrase_query(self.index.schema, "body", terms))
        return phrases

    def _cjk_queries(self, runs: list[str]) -> list[tantivy.Query]:
        """For a query holding CJK (its CJK `runs`): one term query per distinct bigram on the `cjk` field, and
        each run of two or more bigrams as a phrase (an exact substring outranks chunks that merely share its
        characters). [] without CJK."""
        if not runs or not self.has_cjk:
            return []
        schema = self.index.schema
        terms = dict.fromkeys(g for run in runs for g in run_bigrams(run))
        queries = [tantivy.Query.term_query(schema, "cjk", g, index_option="freq") for g in terms]
        for run in dict.fromkeys(runs):
            grams = run_bigrams(run)
            if len(grams) >= 2:
                queries.append(tantivy.Query.phrase_query(schema, "cjk", grams))
        return queries

    def query_terms(self, text: str) -> list[str]:
        """The indexed terms `search(text)` looks up, in query order, one per (distinct) query word: "Running
        runners, HashMap::new" -> ["run", "runner", "hashmap", "new", "hash", "map"]. Two words with one stem give
        the term twice (as the parsed query does)."""
        return [t for w in content_words(text) for t in EN_STEM.analyze(w)]

    def text_terms(self, text: str) -> list[str]:
        """Indexed `body` terms of a chunk text (with its camelCase parts), English stop words left out: the
        vocabulary pseudo-relevance feedback may add. "The runner was running" -> ["runner", "run"]."""
        return EN_STEM_NO_STOP.analyze(indexed_body(text))

    def doc_freq(self, term: str) -> int:
        """Number of chunks whose `body` (for a CJK bigram: `cjk`) holds the indexed `term` (already analyzed; 0 when
        absent)."""
        field = "cjk" if self.has_cjk and has_cjk(term) else "body"  # a CJK bigram lives in the `cjk` field
        return int(self.index.searcher().doc_freq(field, term))

    def phrase_count(self, terms: Sequence[str]) -> int:
        """Number of chunks whose `body` or `title` holds the indexed `terms` (already analyzed) next to each other
        in this order (a tantivy phrase query of term objects, never parsed); one term: its document frequency
        in either field. 0 for no terms."""
        terms = [t for t in terms if t]
        if not terms:
            return 0
        schema = self.index.schema
        if len(terms) == 1:
            make = lambda f: tantivy.Query.term_query(schema, f, terms[0])  # noqa: E731
        else:
            make = lambda f: tantivy.Query.phrase_query(schema, f, list(terms))  # noqa: E731
        query = tantivy.Query.boolean_query([(tantivy.Occur.Should, make(f)) for f in SEARCH_FIELDS])
        return int(self.index.searcher().search(query, limit=1, count=True).count)

    def num_docs(self) -> int:
        """Chunks visible to searches (without reloading)."""
        return int(self.index.searcher().num_docs)

    def search_terms(self, weights: dict[str, float], limit: int, *,
                     title_weight: float = 1.0) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, score) for a weighted bag of indexed terms, best first: score = sum over terms of
        weight x (`title_weight` x BM25(term) in `title` + BM25(term) in `body`) (with all weights 1 this equals
        `search` on the same words, spelling variants aside). Terms are term objects, never parsed. [] when no term has a positive
        weight."""
        terms = [(t, w) for t, w in weights.items() if t and w > 0]
        if not terms or limit <= 0:
            return []
        schema = self.index.schema
        should = tantivy.Occur.Should
        clauses = []
        for term, weight in terms:
            fields = self._fields(lambda f, t=term: tantivy.Query.term_query(schema, f, t, index_option="freq"),
                                  title_weight)
            clauses.append((should, tantivy.Query.boost_query(fields, float(weight))))
        searcher = self.index.searcher()
        res = searcher.search(tantivy.Query.boolean_query(clauses), limit=limit, count=False)
        return [(searcher.doc(addr)["id"][0], float(score)) for score, addr in res.hits]

    def reload(self) -> None:
        """See commits made by other processes."""
        self.index.reload()

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.rollback()
                self._writer = None
