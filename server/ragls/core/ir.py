"""Intermediate representation: plain frozen dataclasses passed between the layers.

Positions follow LSP: lines are 0-based, columns count UTF-16 code units, and a span's end is exclusive.
A line ends only at "\\n", "\\r\\n" or "\\r"; text reaches ragls with its lone CRs already turned into "\\n"
(`normalize_line_ends`), so readers that split at "\\n" count the same lines.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property

# The most hits one request may ask for (rag/query and rag/ask topK, `ragls query/ask --top-k`): a bound on the
# work and the reply one request can cause, far above any useful top_k (default 5).
MAX_TOP_K = 200
# The longest question or query one request may send (rag/query `query`, rag/ask `question`, HTTP, MCP, CLI), in
# characters: a bound on the work one request causes (ranking, focus and abstention read every word of it). Four
# times the editors' "Ask About Selection" quote (`MAX_SELECTION_CHARS`, 4,000) with room for the question around
# it; a longer text is refused with InvalidParams (-32602) naming the limit, as search APIs refuse an over-long
# query (Algolia: 512 characters) rather than cut it without saying so.
MAX_QUERY_CHARS = 16_000

# A carriage return not followed by a line feed: the line end of an old Mac file, or a stray CR in an edited one.
LONE_CR = re.compile(r"\r(?!\n)")


def normalize_line_ends(text: str) -> str:
    """`text` with every lone CR (`LONE_CR`) replaced by "\\n": the one line model of text in ragls, where a line
    ends at "\\n" and a CRLF line keeps its CR before it. Same length, so character offsets, spans and the line
    numbers counted at "\\n", "\\r\\n" or "\\r" (`index.lines.LineIndex`, the chunker, markdown-it) stay those of
    the file on disk, and every reader that splits at "\\n" (neighbours, answer blocks, includes) counts the same
    lines. Applied where text enters: decoded file bytes (`sources.load.decode_bytes`), text given as a string
    (`sources.load.load_text`, converted documents) and a user's question or history (`workspace.request_input.
    user_text`, which holds an editor's selected text)."""
    return LONE_CR.sub("\n", text) if "\r" in text else text


@dataclass(frozen=True)
class LineSpan:
    """Where a chunk sits in the file on disk: 0-based lines, UTF-16 columns, end exclusive (LSP `Range`)."""

    start_line: int
    start_char: int
    end_line: int
    end_char: int


@dataclass(frozen=True)
class Origin:
    """Where a stretch of a `Document`'s text lives on disk: from character `start` of the text up to the next
    origin's start, the lines of file `path` (an index key) from 0-based line `line` on. A reST page whose
    `.. include::` lines were replaced by the included files' text (`sources.rest_include.expand`) has one per
    stretch, its own and each fragment's; `literal`: the stretch is shown as a literal block (`:literal:`, `:code:`
    includes), so its underlined lines are no headings."""

    start: int
    path: str
    line: int
    literal: bool = False


@dataclass(frozen=True)
class Document:
    """One decoded source file.

    `path` is relative to `folder` with "/" separators; `kind` is "markdown", "text" or "code" and picks the
    chunker; `content_hash` is the sha256 hex of the raw bytes (see `hashing.content_hash`).
    """

    folder: str
    path: str
    text: str
    content_hash: str
    kind: str = "text"
    size: int = 0
    mtime_ns: int = 0
    # Converted documents (PDF, HTML, DOCX, web pages): (character offset in `text`, page or None, anchor) where
    # a page or a heading with an id starts, ascending. `chunking.chunk_document` gives each chunk the page and
    # anchor of the last mark at or before its start. Empty for plain files.
    marks: tuple[tuple[int, int | None, str], ...] = ()
    # A reST page with its includes resolved: where each stretch of `text` lives (ascending `start`, the first at 0);
    # `chunking.chunk_document` keeps every chunk within one stretch and gives it that file's path and lines.
    # Empty: the whole text is the file at `path`, from its first line.
    origins: tuple[Origin, ...] = ()

    def origin_at(self, offset: int) -> Origin:
        """The `origins` entry whose stretch holds character `offset` of `text`; an origin of the whole file at
        `path` when there are none."""
        if not self.origins:
            return Origin(0, self.path, 0)
        return self.origins[max(0, bisect_right(self._origin_starts, offset) - 1)]

    @cached_property
    def _origin_starts(self) -> list[int]:
        """The `start` of each of `origins`, listed once per document (`origin_at` runs per chunk and title)."""
        return [o.start for o in self.origins]


HEADING_SEP = " > "  # between the headings of a heading path, `Chunk.title` ("Setup > Retries")


def title_headings(title: str) -> list[str]:
    """The headings of the heading path `title`, outermost first ("Setup > Retries" -> ["Setup", "Retries"]);
    [] for ""."""
    return title.split(HEADING_SEP) if title else []


def heading_path(names) -> str:
    """The heading path of `names` (an iterable of headings, outermost first): the inverse of `title_headings`."""
    return HEADING_SEP.join(names)


@dataclass(frozen=True)
class Chunk:
    """A piece of a document, the unit that is embedded, indexed and retrieved.

    `id` is stable for (path, ordinal, text) — see `hashing.chunk_id`; `text_hash` keys the embedding cache, so the
    same text under another path re-uses its vector. `title` is the heading path ("Setup > Retries") or symbol.
    """

    id: str
    path: str
    text: str
    span: LineSpan
    text_hash: str
    ordinal: int = 0
    title: str = ""
    folder: str = ""
    page: int | None = None  # 1-based PDF page where the chunk starts (converted PDFs only)
    anchor: str = ""  # the nearest preceding heading's id in an HTML page/file: the URL `#fragment`
    # Contextual retrieval (index/contextual.py): 1-2 LLM-written sentences situating the chunk in its document,
    # prepended to its embedded and BM25-indexed text only; `text` and `span` stay the file's own (citations).
    context: str = ""
    # The document (index key) this chunk is part of when its text lives in another file: a reST page that
    # includes `path` (`.. include::`, `Document.origins`); `path` and `span` are then the included file's, so a
    # citation opens the file that holds the text. "" when the chunk is `path`'s own.
    included_in: str = ""

    @property
    def document(self) -> str:
        """The index key of the document this chunk belongs to (`included_in`, else `path`): the stores add,
        replace and delete a document's chunks under it, and retrieval counts a page's chunks by it."""
        return self.included_in or self.path


@dataclass(frozen=True)
class Hit:
    """A retrieved chunk. `score` is higher-is-better; `signals` maps a signal name (vector, bm25, graph) to its
    1-based rank, and "rerank" to the cross-encoder score."""

    chunk: Chunk
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    similarity: float | None = None  # cosine similarity to the query, when the vector signal saw this chunk
    # The lines that answer the query, inside the chunk's span: the answering sentence(s) of `window`
    # (retrieval/focus.py), at most about 6 lines. None when unknown.
    focus: LineSpan | None = None
    # The context of `focus`: the chunk's best embedding window, or for a hit only BM25 found the lines holding
    # the most query terms (retrieval/focus.py), widened to cover `focus` (`focus.context_span`, applied wherever
    # a focus is set: `answer/focus.sentence_focus`, `quoted_focus`), so it always contains the focus: the
    # focus sentence can run past the best window (its block overlaps it). None when unknown.
    window: LineSpan | None = None
    # The best window as retrieval chose it, before `window` was widened to cover `focus`
    # (`answer/focus.sentence_focus`): passages outside it weigh less in an extractive answer and when the
    # focus is chosen (`candidates.candidate_passages`). Not on the wire. None when no focus was chosen.
    best_window: LineSpan | None = None
    # More lines of the chunk an extractive answer quotes, each too far from `focus` (and from each other) to share
    # one span of at most `focus.MAX_FOCUS_LINES` lines (`answer/focus.quoted_focus`): the source stays one
    # entry and lists every quoted place (wire `focusRanges`). Empty otherwise.
    more_focus: tuple[LineSpan, ...] = ()
    # Each passage an extractive answer quotes from the chunk, in the answer's order: its lines as its citation
    # points at them (`answer/focus.focus_lines`), from the quoted sentence's first character (a sentence starting
    # mid-line after another), so a `[n]` opens at the sentence its item quotes (`answer/focus.quoted_focus`; wire
    # `quoteRanges`). Otherwise the answering passage alone when `focus` joined neighbours to it or it starts
    # mid-line (`answer/focus.sentence_focus`): where the source opens. Empty when it is the whole focus.
    quotes: tuple[LineSpan, ...] = ()


@dataclass(frozen=True)
class Citation:
    """A `[n]` used in an answer; `supported` per the rule in `answer/cite.py`."""

    n: int
    supported: bool


@dataclass(frozen=True)
class Answer:
    """The result of `rag/ask`: markdown text citing `[n]`, the numbered sources (1-based `n` -> hit)."""

    text: str
    sources: list[tuple[int, Hit]]
    citations: list[Citation]
    model: str
    abstained: bool = False
    elapsed_ms: float = 0.0
    retrieval_query: str | None = None  # the standalone query searched for a follow-up (None without history)
    # the earlier turns' words `retrieval_query` added to the follow-up (answer/conversation.borrowed_terms), if any
    retrieval_context: str | None = None
    cached: bool = False  # answered from the answer cache, without an LLM call
    error: str | None = None  # the LLM failed: `text` is then the extractive answer over `sources`
    llm_calls: object = None  # retrieval's LLM calls for this answer (llm/costs.LLMCallCounter), None: none


@dataclass
class RagInfo:
    """A `rag/list` entry (a named RAG or the workspace; `kb/rags.py`). `errors` are {"message"} dicts; `skipped` the sources/pages left out, with reasons."""

    name: str
    sources: list[str]
    files: int
    chunks: int
    pending_vectors: int
    last_indexed_at: float | None
    errors: list[dict[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    kind: str = "sources"
    origin: str = ""
    index_path: str = ""
