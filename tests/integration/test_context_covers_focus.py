"""A hit's context (`contextRange`, MCP `context_*`) always contains its focus (`focusRange`, MCP `start_line`-
`end_line`), on real stores (tantivy, LanceDB, the SQLite manifest) and the offline all-MiniLM-L6-v2, with vectors
and by keywords only (as while the embedding model loads).

The focus sentence is chosen among the passages of the blocks overlapping the hit's window, and such a block can run
past the window (found on black's docs: focus 94-98 with context 71-86; by keywords 63-64 with context 62-63): the
hit's window is widened to cover the focus (`retrieval/focus.context_span`) where the focus is set, so the typed
`Hit.window` (CLI, HTTP), the wire `contextRange` (LSP) and MCP `context_*` are one span.
"""

from __future__ import annotations

import pytest
from offline_index import folder_index
from ragls.answer import focus as answer_focus
from ragls.answer.agent_tools import hit_record
from ragls.answer.extractive import extractive_picks
from ragls.answer.focus import quoted_focus
from ragls.embedding.embed import offline_model_dir
from ragls.lsp.wire import to_wire_chunk, to_wire_range
from ragls.retrieval.search import search

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

# A server page in the shape of the one that showed the bug: a long hard-wrapped paragraph whose sentence about the
# header wraps onto a line without any query term, then a header table.
SERVER = """# Running the formatter as a server

The formatting server is a small HTTP service that formats code sent to it in
the body of a POST request, so that editors can format a file without starting
a new process for every save. It listens on localhost by default and answers
every request with the formatted code, or with an error when the code cannot
be parsed. The server keeps no state between requests and can be restarted at
any time without losing anything.

## Protocol

A request carries the code to format in its body, encoded as UTF-8. Options
that the command line takes as flags travel as request headers instead. The
`X-Line-Length` request header sets the
maximum number of characters on each formatted row of output, and the
`X-Skip-Source-First-Line` header makes the server ignore the opening row of
the input, which is handy for scripts that start with a shebang. A response
with status 204 means that the input was already well formatted and nothing
changed; status 200 carries the new code in its body, and status 400 means the
input could not be parsed, with the parser's message in the body.

| Header | Meaning |
|---|---|
| `X-Line-Length` | maximum width of formatted rows |
| `X-Python-Variant` | target versions, comma separated |
| `X-Fast-Or-Safe` | skip the equivalence check when `fast` |
"""

GUIDE = """# Getting started

Install the package with pip and run it on a file or a folder. It rewrites the
files in place and prints a summary of what changed; with `--check` it only
reports the files it would change and exits with status 1 when there are any.
The configuration lives in `pyproject.toml` under the `[tool.formatter]`
table, where the line length, the target versions and the files to exclude
can be set for the whole project.

- The `line-length` option sets how many characters fit on one line; the
  default is 88, which the authors chose after measuring many projects.
- The `exclude` option is a regular expression matched against every
  path, and files that match are left alone.
- The `preview` option turns on changes planned for the next major release
  so that users can try them early.
"""

QUESTIONS = [
    "Which request header sets the line length for the server?",
    "what does status 204 mean",
    "How do I skip the first line of the input?",
    "Where does the configuration live?",
    "what is the default line length",
    "Which option excludes files?",
    "Can I try changes planned for the next release?",
    "Does the server keep state between requests?",
]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    idx, s = folder_index(tmp_path_factory.mktemp("context"), {"server.md": SERVER, "guide.md": GUIDE},
                          window=64)  # small windows: many edges
    yield idx, s
    idx.close()


def _pos(p: dict) -> tuple[int, int]:
    return p["line"], p["character"]


def _assert_context_holds_focus(hit) -> None:
    wire = to_wire_chunk(hit)["source"]
    focus = wire.get("focusRange")
    if focus is None:
        return
    context = wire.get("contextRange", focus)  # no contextRange: the focus is its own context
    chunk = wire["range"]
    where = f"{hit.chunk.path}: focus {focus}, context {context}"
    assert _pos(context["start"]) <= _pos(focus["start"]) and _pos(focus["end"]) <= _pos(context["end"]), where
    assert _pos(chunk["start"]) <= _pos(context["start"]) and _pos(context["end"]) <= _pos(chunk["end"]), where
    rec = hit_record(hit)  # MCP search_docs: 1-based inclusive lines
    assert rec["context_start_line"] <= rec["start_line"] <= rec["end_line"] <= rec["context_end_line"], rec
    assert rec["chunk_start_line"] <= rec["context_start_line"] and rec["context_end_line"] <= rec["chunk_end_line"]
    if hit.window is not None:  # the typed result is the same span: Hit.window contains Hit.focus
        f, w = hit.focus, hit.window
        assert (w.start_line, w.start_char) <= (f.start_line, f.start_char), where
        assert (f.end_line, f.end_char) <= (w.end_line, w.end_char), where
        assert context == to_wire_range(w), where
        assert (rec["context_start_line"], rec["context_end_line"]) == (w.start_line + 1, w.end_line + 1), rec


@pytest.mark.parametrize("signals", [("vector", "bm25"), ("bm25",)], ids=["hybrid", "keywords_only"])
def test_every_hit_context_contains_its_focus(indexed, signals):
    idx, s = indexed
    checked = 0
    for question in QUESTIONS:
        for hit in search([idx], idx.embedder, question, settings=s.retrieval, top_k=5, signals=signals):
            _assert_context_holds_focus(hit)
            checked += hit.focus is not None
    assert checked >= len(QUESTIONS)


def test_a_focus_past_its_window_widens_the_context(indexed):
    """The keyword window of the header question is the lines holding its terms; the answering sentence wraps onto
    a line holding none, so the focus ends past the window and the context grows to hold it."""
    idx, s = indexed
    hits = search([idx], idx.embedder, QUESTIONS[0], settings=s.retrieval, top_k=1, signals=("bm25",))
    top = hits[0]
    assert top.chunk.path == "server.md"
    lines = SERVER.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("`X-Line-Length` request header"))
    rec = hit_record(top)
    assert rec["start_line"] <= header + 1 <= rec["end_line"]  # the focus holds the header's sentence
    assert rec["context_start_line"] <= rec["start_line"] and rec["end_line"] <= rec["context_end_line"]


def test_property_context_contains_focus_for_word_queries(indexed, monkeypatch):
    """Property-style: every run of three words of the corpus, asked by keywords and with vectors, gives hits whose
    context (typed, wire and MCP alike) contains their focus, and so do the sources of the extractive answer
    (`quoted_focus` moves a focus to the quoted lines)."""
    idx, s = indexed
    widened = []  # focus sets that reached past their raw window: the case the widening is for
    real = answer_focus.context_span

    def recording(focus, window):
        out = real(focus, window)
        widened.append(out != window)
        return out

    monkeypatch.setattr(answer_focus, "context_span", recording)
    words = [w.strip("`|.,;:()[]") for w in (SERVER + GUIDE).split()]
    words = [w for w in words if len(w) > 3]
    queries = [" ".join(words[i:i + 3]) for i in range(0, len(words) - 3, 7)]
    assert len(queries) > 30
    for q in queries:
        for signals in (("vector", "bm25"), ("bm25",)):
            hits = search([idx], idx.embedder, q, settings=s.retrieval, top_k=3, signals=signals)
            for hit in hits:
                _assert_context_holds_focus(hit)
            numbered = list(enumerate(hits, 1))
            for _, hit in quoted_focus(numbered, extractive_picks(q, numbered))[0]:
                _assert_context_holds_focus(hit)
    assert any(widened)  # the corpus does exercise a focus past its window
