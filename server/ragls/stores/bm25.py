"""BM25 store: a tantivy index of chunk titles and texts.

Fields: `id` and `path` (raw, for lookups and deletes), `title` and `body` (tantivy's `en_stem` tokenizer: lower
case, English Snowball stemming). Code-aware tokens: `en_stem` already splits `snake_case` and `foo.bar` at the
punctuation; camelCase identifiers are additionally indexed as their parts (`retryMaxAttempts` -> `retry max
attempts`), so either spelling matches. Scores are tantivy's BM25 (k1 = 1.2, b = 0.75).

Chinese, Japanese and Korean text is written without spaces between words, so the `body` tokens of a CJK sentence
are whole clauses (and clauses over 40 bytes are dropped by tantivy's length filter): a third field, `cjk`, holds the
overlapping character bigrams of every CJK run ("数据库连接" -> 数据 据库 库连 连接; a lone character as itself), as
Lucene's CJKAnalyzer does. A query holding CJK searches the `cjk` field with its own bigrams (term queries, plus the
bigrams of each CJK run as a phrase, so an exact substring ranks first). An index made before the field existed is
rebuilt from the manifest when it opens (its schema no longer matches).

User text is never parsed as query syntax: `search` reduces it to lower-case alphanumeric words before handing it
to the parser, so `retry:max`, `"unterminated`, `a AND (b`, `-v` or `{0}` are plain words. English stop words
(NLTK's list: articles, pronouns, question words, auxiliaries) are dropped from the query unless nothing else is
left: questions ("what ... must be obeyed when ...") otherwise match documents on rare function words such as
"what" or "when" (Cranfield BM25 nDCG@10 0.355 -> 0.366, see docs/benchmarks.md). The index keeps every word.
"""

from __future__ import annotations

import logging
import re
import shutil
import threading
from collections.abc import Iterable
from pathlib import Path

import tantivy

from ragls.ir import Chunk
from ragls.telemetry import traced

log = logging.getLogger(__name__)

TOKENIZER_VERSION = "bm25-en_stem-camel-v1"

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # letters/digits; "_" and punctuation separate words
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
SEARCH_FIELDS = ("title", "body")
# A compound identifier of the query: alphanumeric runs joined by "_", "." or "::" (get_worktrees, os.path.join,
# HashMap::new). Its words are also searched as a phrase (below). Not "-": hyphenated English ("boundary-layer")
# is prose, and phrase-matching it cost 0.010 BM25 nDCG@10 on Cranfield (docs/benchmarks.md).
# A match starts only at the start of an alphanumeric run (the lookbehind): a start inside a run fails whenever the
# run's start failed, and trying every position of a long run made one pasted token (a 20 000-character hash, log
# line or CJK paragraph) cost O(n^2) regex steps -- 17 s for 20 000 characters, holding the GIL.
_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]+(?:(?:_+|\.|::)[^\W_]+)+", re.UNICODE)


# NLTK's English stop word list (nltk.corpus.stopwords.words("english"), the classic 179-word set).
STOPWORDS = frozenset(["i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "this", "that", "these", "those", "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during", "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so", "than", "too", "very", "s", "t", "can", "will", "just", "don", "should", "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn", "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn"])


# Scripts written without spaces between words: Han (CJK ideographs, extensions A-F, compatibility), Hiragana,
# Katakana (with the half-width forms), Hangul syllables and jamo, and the CJK iteration mark 々.
_CJK_RUN = re.compile(
    "[\u3005\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\u1100-\u11ff\u3130-\u318f\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]+")


def has_cjk(text: str) -> bool:
    """True when `text` holds a character of a CJK script (see `cjk_bigrams`)."""
    return _CJK_RUN.search(text) is not None


def cjk_runs(text: str) -> list[str]:
    """The runs of consecutive CJK characters in `text`, in order: "用 Python 连接数据库" -> ["用", "连接数据库"]."""
    return _CJK_RUN.findall(text)


def run_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of one CJK run; a one-character run is its own term."""
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def cjk_bigrams(text: str) -> list[str]:
    """The `cjk` field's terms for `text`: the bigrams of every CJK run, in order ("数据库" -> 数据, 据库)."""
    return [g for run in cjk_runs(text) for g in run_bigrams(run)]


def camel_parts(text: str) -> list[str]:
    """Parts of every camelCase / PascalCase identifier in `text`: "parseHTTPRequest" -> parse, HTTP, Request.
    Identifiers without an inner capital give nothing (they are already whole words)."""
    parts: list[str] = []
    for ident in _IDENT.findall(text):
        if ident[1:] != ident[1:].lower() and ident != ident.upper():
            found = _CAMEL_PART.findall(ident)
            if len(found) > 1:
                parts.extend(found)
    return parts


def query_words(text: str) -> list[str]:
    """The words of a user query as BM25 will use them: lower-case alphanumeric runs plus camelCase parts; a CJK
    run gives its character bigrams instead ("连接数据库 timeout" -> 连接, 接数, 数据, 据库, timeout), so a CJK
    substring of a text is made of that text's words."""
    words = []
    for w in _WORD.findall(_CJK_RUN.sub(" ", text)):
        words.append(w.lower())
    words += cjk_bigrams(text)
    words += [p.lower() for p in camel_parts(text)]
    return words


def _analyzer(stop_words: frozenset[str] = frozenset()) -> tantivy.TextAnalyzer:
    """tantivy's built-in `en_stem` pipeline (SimpleTokenizer, RemoveLongFilter(40), LowerCaser, English Snowball
    stemmer; tantivy `tokenizer/mod.rs`), optionally dropping `stop_words` (lower case, unstemmed) before
    stemming. Its tokens are the terms the index holds for the same text."""
    builder = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
               .filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase()))
    if stop_words:
        builder = builder.filter(tantivy.Filter.custom_stopword(sorted(stop_words)))
    return builder.filter(tantivy.Filter.stemmer("english")).build()


_EN_STEM = _analyzer()
_EN_STEM_NO_STOP = _analyzer(STOPWORDS)


def indexed_body(text: str) -> str:
    """The text the `body` field indexes for a chunk text: the text plus its camelCase parts."""
    parts = camel_parts(text)
    return text + "\n" + " ".join(parts) if parts else text


def compound_identifiers(text: str) -> list[str]:
    """Distinct compound identifiers of `text` in order of appearance (`get_worktrees`, `os.path.join`,
    `HashMap::new`): alphanumeric runs joined by "_", "." or "::"."""
    return list(dict.fromkeys(m.group(0) for m in _COMPOUND.finditer(text)))


def fuzzy_distance(word: str) -> int:
    """Edit distance a query word absent from the index may be matched at: 0 below 4 characters (too many
    neighbours), 1 up to 7, 2 from 8 characters (Lucene/Elasticsearch "AUTO" fuzziness, shifted one up)."""
    return 0 if len(word) < 4 else (1 if len(word) < 8 else 2)


FUZZY_BOOST = 0.5  # a fuzzy match scores as a plain term match of half the weight (tantivy scores it constant)


def stems(text: str) -> list[str]:
    """The BM25 terms of `text` (en_stem analysis: lower case, English Snowball stems), stop words included; CJK
    runs give their character bigrams (the `cjk` field's terms) instead."""
    if not has_cjk(text):
        return _EN_STEM.analyze(text)
    return _EN_STEM.analyze(_CJK_RUN.sub(" ", text)) + cjk_bigrams(text)


def _content_words(text: str) -> list[str]:
    """Distinct query words (first occurrence order) without English stop words, unless only stop words remain;
    CJK bigrams left out (they are searched in the `cjk` field)."""
    words = [w for w in query_words(text) if not has_cjk(w)]
    return list(dict.fromkeys([w for w in words if w not in STOPWORDS] or words))


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    sb.add_text_field("path", stored=False, tokenizer_name="raw")
    sb.add_text_field("title", stored=False, tokenizer_name="en_stem")
    sb.add_text_field("body", stored=False, tokenizer_name="en_stem")
    sb.add_text_field("cjk", stored=False, tokenizer_name="whitespace")
    return sb.build()


class Bm25Store:
    """tantivy index in `directory`. One writer per process (guarded by a lock); any number of readers.

    `add`/`delete_paths` stage changes; `commit` makes them durable and visible. Raises OSError when the directory
    cannot be opened.
    """

    def __init__(self, directory: Path, *, writable: bool = True, heap_bytes: int = 50_000_000):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._writable = writable
        self._heap = heap_bytes
        self._writer = None
        self._lock = threading.Lock()
        self.has_cjk = True  # False: an older index without the `cjk` field, opened read-only
        try:
            self.index = tantivy.Index(_schema(), path=str(self.directory), reuse=True)
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
        self.index = tantivy.Index(_schema(), path=str(self.directory), reuse=True)
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
                # a contextual chunk's LLM-written context (contextual.py) is searchable with its text
                text = f"{c.context}\n\n{c.text}" if c.context else c.text
                w.add_document(tantivy.Document(id=c.id, path=c.path, title=c.title or "", body=indexed_body(text),
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
                self._writer.commit()
                self._writer.wait_merging_threads()
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
               compounds: Iterable[str] | None = None, fuzzy: bool = True,
               title_weight: float = 1.0) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, BM25 score) for free text, best first. [] when the text has no words.

        `words`/`compounds`: the query already analysed (`retrieval.query.Query.bm25_words` / `.compounds`);
        by default computed from `text`. With `fuzzy`, a word whose terms the index does not hold is also matched
        at edit distance `fuzzy_distance(word)` (transpositions cost 1) in title and body: "HashMpa" finds
        "HashMap". CJK in `text` is searched by its bigrams in the `cjk` field (`_cjk_queries`). `title_weight`
        (`retrieval.bm25_title_weight`) multiplies each term's BM25 score in the `title` field (1: title and body
        count alike; 0: body only). User text never becomes query syntax: words become term objects of their
        analysed terms, fuzzy terms too."""
        words = [w for w in words if not has_cjk(w)] if words is not None else _content_words(text)
        cjk = self._cjk_queries(text)
        if not (words or cjk) or limit <= 0:
            return []
        clauses = self._word_terms(words, title_weight)
        clauses += self._compound_phrases(text if compounds is None else None, compounds)
        clauses += (self._fuzzy_terms(words, title_weight) if fuzzy else []) + cjk
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
        A word whose terms repeat another's counts again, as in the parsed query."""
        schema = self.index.schema
        return [self._fields(lambda f, t=term: tantivy.Query.term_query(schema, f, t, index_option="freq"),
                             title_weight)
                for word in words for term in _EN_STEM.analyze(word)]

    def _fuzzy_terms(self, words: Iterable[str], title_weight: float = 1.0) -> list[tantivy.Query]:
        """Fuzzy term queries (title, weighted by `title_weight`, and body) for the query words none of whose
        terms the index holds."""
        out = []
        searcher = self.index.searcher()
        schema = self.index.schema
        for word in words:
            distance = fuzzy_distance(word)
            if not distance:
                continue
            for term in _EN_STEM.analyze(word):
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
            terms = _EN_STEM.analyze(match)
            if len(terms) >= 2:
                phrases.append(tantivy.Query.phrase_query(self.index.schema, "body", terms))
        return phrases

    def _cjk_queries(self, text: str) -> list[tantivy.Query]:
        """For a query holding CJK: one term query per distinct bigram on the `cjk` field, and each run of two or
        more bigrams as a phrase (an exact substring outranks chunks that merely share its characters). []
        without CJK."""
        runs = cjk_runs(text)
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
        return [t for w in _content_words(text) for t in _EN_STEM.analyze(w)]

    def text_terms(self, text: str) -> list[str]:
        """Indexed `body` terms of a chunk text (with its camelCase parts), English stop words left out: the
        vocabulary pseudo-relevance feedback may add. "The runner was running" -> ["runner", "run"]."""
        return _EN_STEM_NO_STOP.analyze(indexed_body(text))

    def doc_freq(self, term: str) -> int:
        """Number of chunks whose `body` (for a CJK bigram: `cjk`) holds the indexed `term` (already analyzed; 0 when
        absent)."""
        field = "cjk" if self.has_cjk and has_cjk(term) else "body"  # a CJK bigram lives in the `cjk` field
        return int(self.index.searcher().doc_freq(field, term))

    def num_docs(self) -> int:
        """Chunks visible to searches (without reloading)."""
        return int(self.index.searcher().num_docs)

    def search_terms(self, weights: dict[str, float], limit: int, *,
                     title_weight: float = 1.0) -> list[tuple[str, float]]:
        """Top `limit` (chunk id, score) for a weighted bag of indexed terms, best first: score = sum over terms of
        weight x (`title_weight` x BM25(term) in `title` + BM25(term) in `body`) (with all weights 1 this equals
        `search` on the same words). Terms are term objects, never parsed. [] when no term has a positive
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
