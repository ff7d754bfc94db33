"""Quoted messages on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py `quoted_factors`,
`retrieval.quoted_message_weight`): a question quoting an error message the docs list word for word scores the
chunk that lists it × the weight (case and punctuation aside), every other chunk as before; a question quoting
nothing, or quoting one or two words only, changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
    "messages.md": """# Error messages

## No source for code: 'filename.py'

A source file was traced while the program ran, but was not found when the report was written. The file may have
been generated and deleted again; set `ignore_errors = true` in the report settings to skip it.
""",
    "reporting.md": """# Reporting

The report command reads the measurement data and writes a summary of every source file it can find. Files that were
generated at run time and deleted since then are listed only when their code can still be read; pass `--omit` to
leave such files out of the report.
""",
}
QUOTED = 'The report stops with "No source for code" for a generated file. How do I get a report anyway?'


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("quoted"), DOCS)


def scores(folder: Path, question: str, weight: float | None) -> dict[str, float]:
    layers = [{"retrieval": {"quoted_message_weight": weight}}] if weight is not None else []
    ws = RagWorkspace([folder], layers, read_only=True)
    try:
        return {h.chunk.path: h.score for h in ws.retrieve(question, top_k=10) if h.chunk.path in DOCS}
    finally:
        ws.close()


def test_the_chunk_holding_the_quoted_message_is_scaled_by_the_weight(folder):
    off, on = scores(folder, QUOTED, 1.0), scores(folder, QUOTED, None)
    assert set(off) == set(on) == set(DOCS)
    assert on["messages.md"] == pytest.approx(1.05 * off["messages.md"])  # "No source for code: 'filename.py'"
    assert on["reporting.md"] == pytest.approx(off["reporting.md"])  # the same words, never as that run


@pytest.mark.parametrize("question", ["The report stops: no source for code. How do I get a report anyway?",
                                      'The report stops with "No source" for a file. How do I get a report anyway?'])
def test_no_quoted_message_no_factor(folder, question):
    assert scores(folder, question, None) == pytest.approx(scores(folder, question, 1.0))
