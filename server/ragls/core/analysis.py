"""Text analysis: how ragls turns text into words and index terms — one module, used by the BM25 store (what it
indexes, `stores/bm25.py`), the query analyser (`retrieval/query.py`: a query is analysed once, the result passed
down), the exact-match bonus, focus lines, the abstention evidence and pseudo-relevance feedback.

- words (`query_words`): lower-case alphanumeric runs ("_" and punctuation separate them), plus the parts of
  camelCase identifiers (`retryMaxAttempts` -> retry, max, attempts); a CJK run gives its character bigrams;
- terms (`stems`, `EN_STEM`): tantivy's `en_stem` analysis (simple tokenizer, words over 40 bytes dropped, lower
  case, English Snowball stemmer) with ASCII folding before the stemmer ("naïve résumé" -> naiv, resum, as
  Lucene's ASCIIFoldingFilter) — exactly the terms the BM25 index holds for the same text (the index registers
  this analyzer as `BM25_TOKENIZER`). Words (`query_words`) are not folded: the exact-match bonus stays literal;
- CJK (`cjk_runs`, `run_bigrams`, `cjk_bigrams`): Chinese, Japanese and Korean are written without spaces, so
  their runs are indexed as overlapping character bigrams (Lucene's CJKAnalyzer);
- compound identifiers (`compound_identifiers`): `get_worktrees`, `os.path.join`, `HashMap::new`, searched as
  phrases;
- `STOPWORDS`: NLTK's English list, dropped from queries unless nothing else is left (`content_words`);
- spelling variants (`spelling_variant`): a word's other spelling, British or American ("colours" <-> "colors"),
  which BM25 also searches for the word, and its index term's (`variant_term`), which the abstention evidence
  counts as the same term.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import tantivy

_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # letters/digits; "_" and punctuation separate words
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# A compound identifier of the query: alphanumeric runs joined by "_", "." or "::" (get_worktrees, os.path.join,
# HashMap::new). Its words are also searched as a phrase (stores/bm25.py). Not "-": hyphenated English ("boundary-layer")
# is prose, and phrase-matching it cost 0.010 BM25 nDCG@10 on Cranfield (bench/history/early-retrieval-quality.md, "Exact identifier matches").
# A match starts only at the start of an alphanumeric run (the lookbehind): a start inside a run fails whenever the
# run's start failed, and trying every position of a long run made one pasted token (a 20 000-character hash, log
# line or CJK paragraph) cost O(n^2) regex steps -- 17 s for 20 000 characters, holding the GIL.
_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]+(?:(?:_+|\.|::)[^\W_]+)+", re.UNICODE)


# NLTK's English stop word list (nltk.corpus.stopwords.words("english"), the classic 179-word set).
STOPWORDS = frozenset([
    "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself", "yourselves", "he",
    "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs",
    "themselves", "what", "which", "who", "whom", "this", "that", "these", "those", "am", "is", "are", "was", "were",
    "be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but",
    "if", "or", "because", "as", "until", "while", "of", "at", "by", "for", "with", "about", "against", "between",
    "into", "through", "during", "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on",
    "off", "over", "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how", "all",
    "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same",
    "so", "than", "too", "very", "s", "t", "can", "will", "just", "don", "should", "now", "d", "ll", "m", "o", "re",
    "ve", "y", "ain", "aren", "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn",
    "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn",
])


# Scripts written without spaces between words: Han (CJK ideographs, extensions A-F, compatibility), Hiragana,
# Katakana (with the half-width forms), Hangul syllables and jamo, and the CJK iteration mark 々.
_CJK_RUN = re.compile(
    "[\u3005\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\u1100-\u11ff\u3130-\u318f\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]+")


_SURROGATE = re.compile("[\ud800-\udfff]")


#: Where a line ends for the parsers that read a chunk's text line by line: a LF, or a carriage return not followed by
#: one (an old Mac file, a stray CR), as markdown-it and `sources.passage.split_lines` count lines; a CRLF line keeps
#: its CR. `LINE_ENDS.split(text)` are the lines. Text now arrives with its lone CRs as LF (`ir.normalize_line_ends`),
#: so this splits as "\n" does; the CR stays here for chunks an index stored before that (a file's chunks are read
#: again only when its bytes change).
LINE_ENDS = re.compile(r"\r(?!\n)|\n")


def well_formed(text: Any) -> Any:
    """`text` with every lone surrogate (U+D800-U+DFFF, never a character) replaced by U+FFFD; anything that is not
    a `str` is returned as it is (the caller's own check rejects it). User text reaches ragls with them from JSON
    (`"\\ud800"` is legal JSON) and from argv bytes that are not UTF-8 (PEP 383 "surrogateescape"), and the
    embedding model's tokenizer, SQLite and an LLM's JSON body all reject them: a question is searched with the
    rest of its characters instead of failing (a 500 / a traceback)."""
    return _SURROGATE.sub("\ufffd", text) if isinstance(text, str) else text


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


BM25_TOKENIZER = "en_fold"  # the name the BM25 index registers `_analyzer()` under (stores/bm25.py)


def _analyzer(stop_words: frozenset[str] = frozenset()) -> tantivy.TextAnalyzer:
    """tantivy's built-in `en_stem` pipeline (SimpleTokenizer, RemoveLongFilter(40), LowerCaser, English Snowball
    stemmer; tantivy `tokenizer/mod.rs`) with tantivy's AsciiFoldingFilter after the lower-caser (accented Latin
    letters to their ASCII form: é -> e, ß -> ss, æ -> ae; other scripts unchanged), optionally dropping
    `stop_words` (lower case, unstemmed) before stemming. Its tokens are the terms the index holds for the same
    text."""
    builder = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
               .filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase())
               .filter(tantivy.Filter.ascii_fold()))
    if stop_words:
        builder = builder.filter(tantivy.Filter.custom_stopword(sorted(stop_words)))
    return builder.filter(tantivy.Filter.stemmer("english")).build()


EN_STEM = _analyzer()
EN_STEM_NO_STOP = _analyzer(STOPWORDS)


def register_bm25_tokenizer(index: tantivy.Index) -> None:
    """Register the BM25 fields' analyzer (`_analyzer()`) on a tantivy `index` as `BM25_TOKENIZER`; tantivy needs
    it before documents are added (a writer without it raises "Error getting tokenizer for field")."""
    index.register_tokenizer(BM25_TOKENIZER, _analyzer())


def indexed_body(text: str) -> str:
    """The text the `body` field indexes for a chunk text: the text plus its camelCase parts."""
    parts = camel_parts(text)
    return text + "\n" + " ".join(parts) if parts else text


def compound_identifiers(text: str) -> list[str]:
    """Distinct compound identifiers of `text` in order of appearance (`get_worktrees`, `os.path.join`,
    `HashMap::new`): alphanumeric runs joined by "_", "." or "::"."""
    return list(dict.fromkeys(m.group(0) for m in _COMPOUND.finditer(text)))


def stems(text: str) -> list[str]:
    """The BM25 terms of `text` (en_stem analysis: lower case, ASCII folding, English Snowball stems), stop words included; CJK
    runs give their character bigrams (the `cjk` field's terms) instead."""
    if not has_cjk(text):
        return EN_STEM.analyze(text)
    return EN_STEM.analyze(_CJK_RUN.sub(" ", text)) + cjk_bigrams(text)


@functools.lru_cache(maxsize=256)
def stem_set(text: str) -> frozenset[str]:
    """The distinct `stems` of `text`, memoised: the abstention evidence reads the terms of every top hit's text on
    every query, and the same chunks come back for every question on a topic. Keyed by the text itself (an edited
    chunk is a new key: nothing to invalidate). 256 Rust-book chunks and their terms are ~3.5 MB. Computed as the
    union of its lines' terms (`line_terms`, memoised per line): a chunk, its windows and its focus lines share
    their lines, and so do overlapping chunks."""
    return frozenset().union(*map(line_terms, text.splitlines()))


# Distinct lines whose terms `line_terms` keeps: ~1 KB each with the line, ~16 MB at most.
LINE_TERMS_MEMO = 16384


@functools.lru_cache(maxsize=LINE_TERMS_MEMO)
def line_terms(line: str) -> frozenset[str]:
    """The distinct `stems` of one line (or title), memoised per line (`LINE_TERMS_MEMO`). The terms of lines joined
    by line breaks are the union of each line's: the analysis splits at every character that is not a letter or a
    digit (line breaks, whitespace and punctuation alike: `str.splitlines`' separators are none of them) and a CJK
    run never spans a line break."""
    return frozenset(stems(line))


@functools.lru_cache(maxsize=256)
def word_set(text: str) -> frozenset[str]:
    """The distinct `query_words` of `text`, memoised like `stem_set` (the exact-match bonus and the keyword rule
    of abstention ask whether the top chunks hold the query's words)."""
    return frozenset(query_words(text))


# The regular differences of British and American spelling (British part, American part): colour / color,
# serialise / serialize, analyse / analyze, centre / center, fibre / fiber, cancelled / canceled, licence / license, catalogue /
# catalog (Wikipedia, "American and British English spelling differences": -our, -ise, -yse, -re, doubled
# consonants, -ence, -ogue).
_REGULAR = (("our", "or"), ("is", "iz"), ("ys", "yz"), ("re", "er"), ("ll", "l"), ("ence", "ense"), ("ogue", "og"))


def _regular_pair(british: str, american: str) -> bool:
    """True when `american` is `british` with one or two of the `_REGULAR` differences applied (colourised ->
    colorized takes two): a spelling of one word, not two words (disc / disk, programme / program, connexion /
    connection, tonne / ton, draught / draft, philtre / filter are each two words in technical writing)."""
    found = {british}
    for _ in range(2):
        found |= {w[:i] + us + w[i + len(uk):] for w in found for uk, us in _REGULAR
                  for i in range(len(w)) if w.startswith(uk, i)}
        if american in found:
            return True
    return False


@functools.cache
def _spellings() -> dict[str, str]:
    """{word: its other spelling} for the words English spells two ways by a regular difference (`_regular_pair`),
    British to American ("colour" -> "color", "serialise" -> "serialize", "cancelled" -> "canceled") and back,
    from breame's list of 1,730 British spellings and their American ones (Wikipedia's "American and British
    English spelling differences"); empty when the package cannot be read. Read once per process (~20 ms)."""
    try:
        from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS
    except ImportError:
        return {}
    pairs = [(uk, us) for uk, us in BRITISH_ENGLISH_SPELLINGS.items() if _regular_pair(uk, us)]
    return {**{us: uk for uk, us in pairs}, **dict(pairs)}


def spelling_variant(word: str) -> str | None:
    """The other English spelling of the lower-case `word` ("colours" -> "colors", "behavior" -> "behaviour"), or
    None when English spells it one way. Documentation is written in one spelling and questions in either (Zola's
    CLI page says "Colored output" and "colors", its highlighting page "colours"; a user asks to switch "the
    colours" off): BM25 searches a word and its variant as one word (`stores/bm25.py`)."""
    return _spellings().get(word)


@functools.cache
def _variant_terms() -> dict[str, str]:
    """{index term: the index term of its other spelling} over `_spellings()`' words that are one term each and
    differ as terms ("colour" <-> "color", "serialis" <-> "serial": Snowball stems "serialize" to "serial"); empty
    without the spelling list."""
    out: dict[str, str] = {}
    for word, other in _spellings().items():
        a, b = EN_STEM.analyze(word), EN_STEM.analyze(other)
        if len(a) == 1 and len(b) == 1 and a[0] != b[0]:
            out.setdefault(a[0], b[0])
    return out


def variant_term(term: str) -> str | None:
    """The index term (`stems`) of the other English spelling of a word whose index term is `term` ("colour" ->
    "color", "behavior" -> "behaviour"), or None when English spells it one way: what the abstention evidence
    counts as the same term, as BM25 searches both (`spelling_variant`). Built on the first call (~3,500 analyses,
    tens of milliseconds)."""
    return _variant_terms().get(term)


def content_words(text: str) -> list[str]:
    """Distinct query words (first occurrence order) without English stop words, unless only stop words remain;
    CJK bigrams left out (they are searched in the `cjk` field)."""
    words = [w for w in query_words(text) if not has_cjk(w)]
    return list(dict.fromkeys([w for w in words if w not in STOPWORDS] or words))
