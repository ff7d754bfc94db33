"""Contextual retrieval (`retrieval.contextual`) on real stores: contexts written through the OpenAI SDK by the
loopback LLM server (tests/llm_server.py), which answers each chunk with a context naming a word that appears in
no document ("<topic>ology" per file), or with HTTP 500 for the chunk holding FAILME.

Asserts: exactly one call per new or changed chunk and none on re-index or rebuild (the context cache); the
prompt carries the document and the chunk; a failing call leaves its chunk plain with a warning and the index
complete; toggling changes the fingerprint (and rebuilds: no context left); the context is found by BM25 while
the hit's text and lines stay the file's own.
"""

from __future__ import annotations

import logging
import re
import sys

import pytest
from clikit import ragls
from llm_server import LLMServer, Reply
from ragls.config.trust import trust as trust_folder
from ragls.index.contextual import CONFIRM_ABOVE, confirm_calls, planned_calls
from ragls.index.windows import embedding_input
from ragls.llm.costs import COUNTER
from ragls.workspace.rag_workspace import RagWorkspace

DOCS = {
    "otters.md": "# Otters\n\nOtters float on their backs in the kelp beds of the northern Pacific coast.\n\n"
                 "They hold paws while sleeping so they do not drift apart on the tide.\n",
    "trains.md": "# Trains\n\nThe night train leaves at nine from platform two.\n",
    "broken.md": "# Broken\n\nThis chunk says FAILME and its context call fails.\n",
}
# A word per file that no document contains: only the context can make BM25 find it.
TOPICS = {"Otters": "lutrinology", "Trains": "ferroviology", "Broken": "brokenology", "Seals": "pinnipedology"}


def context_handler(req):
    prompt = req.last_user_text()
    chunk = prompt.split("<chunk>", 1)[1].split("</chunk>", 1)[0]
    if "FAILME" in chunk:
        return Reply(status=500, error="the provider fell over")
    title = re.search(r"^# (\w+)", prompt.split("<document>", 1)[1], re.MULTILINE).group(1)
    return f"Context: this chunk comes from the {TOPICS[title]} notes about {title.lower()}."


def write_config(folder, server, contextual=True):
    (folder / "ragls.toml").write_text(f"""
[retrieval]
contextual = {'true' if contextual else 'false'}
ingest_concurrency = 2
[chunking]
chunk_size = 100
[generation]
backend = "openai"
model = "ctx-model"
base_url = "{server.openai_url}"
max_retries = 0
[index]
path = "{(folder.parent / 'index').as_posix()}"
""")
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)


@pytest.fixture(scope="module")
def server():
    with LLMServer(context_handler) as srv:
        yield srv


@pytest.fixture(scope="module")
def folder(tmp_path_factory, server):
    root = tmp_path_factory.mktemp("ctx")
    folder = root / "docs"
    folder.mkdir()
    for name, body in DOCS.items():
        (folder / name).write_text(body)
    write_config(folder, server)
    return folder


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("RAGLS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.setenv("RAGLS_OFFLINE", "1")
    yield
    mp.undo()


@pytest.fixture(scope="module")
def indexed(env, folder, server):
    """The first index run: (workspace, requests it made, counter calls it added, log records)."""
    server.reset(context_handler)
    before = COUNTER.snapshot().get("contextual", 0)
    ws = RagWorkspace([folder])
    assert planned_calls(ws.indexes[0]) == 4  # otters.md: 2 chunks, trains.md 1, broken.md 1
    handler = _Records()
    logging.getLogger("ragls.index.contextual").addHandler(handler)
    try:
        ws.index()
    finally:
        logging.getLogger("ragls.index.contextual").removeHandler(handler)
    yield ws, list(server.requests), COUNTER.snapshot().get("contextual", 0) - before, handler.records
    ws.close()


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


def chunks(ws):
    return [c for batch in ws.indexes[0].manifest.iter_chunks() for c in batch]


def test_one_call_per_chunk_with_document_and_chunk(indexed):
    ws, requests, counted, _ = indexed
    all_chunks = chunks(ws)
    assert len(all_chunks) == 4 and len(requests) == 4 and counted == 4
    sent = sorted(r.last_user_text().split("<chunk>\n", 1)[1].split("\n</chunk>", 1)[0] for r in requests)
    assert sent == sorted(c.text for c in all_chunks)
    otters = next(r.last_user_text() for r in requests if "hold paws" in r.last_user_text())
    assert DOCS["otters.md"] in otters  # the whole document comes with the chunk
    assert {r.model for r in requests} == {"ctx-model"}
    assert ws.indexes[0].contextualizer.calls == 4 and ws.indexes[0].contextualizer.failed == 1


def test_context_stored_apart_from_the_text(indexed):
    ws, *_ = indexed
    by_path = {}
    for c in chunks(ws):
        by_path.setdefault(c.path, []).append(c)
    for c in by_path["otters.md"]:
        assert c.context == "this chunk comes from the lutrinology notes about otters."
        assert c.text in DOCS["otters.md"] and "lutrinology" not in c.text
        assert embedding_input(c).startswith(c.context + "\n\n")


def test_failed_call_leaves_the_chunk_plain_with_a_warning(indexed):
    ws, _, _, records = indexed
    (broken,) = ws.indexes[0].manifest.chunks_of("broken.md")
    assert broken.context == "" and "FAILME" in broken.text
    assert any("broken.md" in m and "indexed without it" in m for m in records)
    assert ws.indexes[0].vectors.chunk_count() == 4  # indexing went on: every chunk has its vector
    assert COUNTER.failures().get("contextual", 0) >= 1
    errors = [e["message"] for e in ws.status().errors]
    assert any("1 chunk indexed without a context" in m and "provider fell over" in m for m in errors)


def test_context_is_searchable_and_citations_keep_the_file_lines(indexed, folder):
    ws, *_ = indexed
    hits = ws.query("lutrinology", top_k=3).hits
    assert hits and hits[0].chunk.path == "otters.md" and "bm25" in hits[0].signals
    hit = hits[0].chunk
    lines = (folder / "otters.md").read_text().split("\n")
    assert "\n".join(lines[hit.span.start_line:hit.span.end_line + 1]).startswith(hit.text.rstrip("\n")[:30])
    assert hit.text in DOCS["otters.md"]
    # the failed chunk has no context: its topic word finds nothing
    assert not [h for h in ws.query("brokenology", top_k=3).hits if "bm25" in h.signals]


def test_no_calls_on_reindex_or_rebuild(indexed, server):
    ws, *_ = indexed
    server.reset(context_handler)
    ws.index()
    assert server.requests == []
    # a rebuild re-chunks every file: the contexts come from the cache (only the failed chunk is asked again)
    ws.rebuild()
    assert len(server.requests) == 1 and "FAILME" in server.requests[0].last_user_text()
    assert planned_calls(ws.indexes[0]) == 0


def test_changed_file_pays_once_per_chunk(indexed, folder, server):
    ws, *_ = indexed
    server.reset(context_handler)
    (folder / "seals.md").write_text("# Seals\n\nA harbour seal visits.\n")
    assert planned_calls(ws.indexes[0]) == 1  # seals.md's chunk; broken.md is unchanged (not re-indexed)
    ws.index()
    assert len(server.requests) == 1 and "harbour seal" in server.requests[0].last_user_text()
    assert ws.indexes[0].manifest.chunks_of("seals.md")[0].context.startswith("this chunk comes from the pinniped")


def test_toggle_changes_the_fingerprint(env, folder, server, indexed):
    ws, *_ = indexed
    on = ws.indexes[0].fingerprint
    ws.close()
    write_config(folder, server, contextual=False)
    try:
        plain = RagWorkspace([folder])
        assert plain.indexes[0].fingerprint != on and plain.indexes[0].contextualizer is None
        plain.index()
        assert all(c.context == "" for c in chunks(plain))
        assert not plain.query("lutrinology", top_k=3).hits or \
            all("bm25" not in h.signals for h in plain.query("lutrinology", top_k=3).hits)
        plain.close()
        # back on: the cache answers every chunk that had a context; no call but the failing chunk's
        write_config(folder, server, contextual=True)
        server.reset(context_handler)
        again = RagWorkspace([folder])
        assert again.indexes[0].fingerprint == on
        again.index()
        assert len(server.requests) == 1 and "FAILME" in server.requests[0].last_user_text()
        assert again.query("lutrinology", top_k=1).hits[0].chunk.path == "otters.md"
        again.close()
    finally:
        write_config(folder, server, contextual=True)


def test_confirm_prints_the_call_count(env, tmp_path, server):
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    folder = tmp_path / "docs"
    folder.mkdir()
    write_config(folder, server)
    (folder / "walrus.md").write_text("# Walrus\n\nTusks.\n")
    ws = RagWorkspace([folder])
    try:
        out = io.StringIO()
        assert confirm_calls(ws.indexes, out=out)  # not a terminal: goes on, saying how many
        assert "will make 1 LLM call (ctx-model)" in out.getvalue()  # walrus.md's one chunk
        # below the threshold no question is asked, even on a terminal
        assert confirm_calls(ws.indexes, out=Tty(), ask=lambda: pytest.fail("asked"))
        assert CONFIRM_ABOVE == 1000
        # above the threshold, on a terminal, the user is asked; "n" stops the run, "y" lets it go on
        from ragls.index import contextual

        mp = pytest.MonkeyPatch()
        mp.setattr(contextual, "CONFIRM_ABOVE", 0)
        mp.setattr(sys, "stdin", Tty())
        try:
            tty = Tty()
            assert not confirm_calls(ws.indexes, out=tty, ask=lambda: "n")
            assert "Make 1 LLM calls? [y/N]" in tty.getvalue()
            assert confirm_calls(ws.indexes, out=Tty(), ask=lambda: "y")
            assert confirm_calls(ws.indexes, True, True, out=Tty(), ask=lambda: pytest.fail("asked"))  # --yes
        finally:
            mp.undo()
    finally:
        ws.close()
    assert server.requests == [] or "Walrus" not in server.requests[-1].last_user_text()  # planning calls nothing


def test_cli_index_prints_the_planned_calls(env, tmp_path, server):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Otters\n\nOtters nap.\n")
    write_config(folder, server)
    server.reset(context_handler)
    proc = ragls(None, "index", folder)  # in-process (clikit); pytest's stdin is no terminal, so nothing is asked
    assert "contextual retrieval will make 1 LLM call (ctx-model)" in proc.stderr
    assert len(server.requests) == 1


def test_every_embedding_window_starts_with_the_context():
    from dataclasses import replace

    from ragls.core.ir import Document
    from ragls.embedding.embed import offline_model_dir
    from ragls.index.chunking import chunk_document
    from ragls.index.windows import plan_windows
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(offline_model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    text = "# Ownership\n\n" + " ".join(f"word{i} moves the value" for i in range(120)) + "\n"
    (chunk,) = chunk_document(Document("", "own.md", text, "h", "markdown"), 8000, 0)
    plain = plan_windows(chunk, tok, 64, 32)
    ctx = replace(chunk, context="This chapter of the Rust book explains ownership.")
    windows = plan_windows(ctx, tok, 64, 32)
    assert len(plain) > 1 and len(windows) > len(plain)  # the prefix leaves less room per window
    assert all(w.text.startswith(ctx.context + "\n\n") for w in windows)
    assert all(len(tok.encode(w.text).ids) <= 64 for w in windows)  # prefix + body fit the window
    assert (windows[0].start_line, windows[-1].end_line) == (plain[0].start_line, plain[-1].end_line)
