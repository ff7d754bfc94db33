"""Names as the question writes them, on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py
`written_names` / `written_factors`, `retrieval.written_name_weight`): a command-line reference and a configuration
reference document the same check, one as `--warn-unreachable`, the other as `warn_unreachable`; a question writing
the option's command-line form scores the chunk that writes it so × the weight, the sibling that writes it otherwise
as before, and a question writing no name changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
    "command_line.md": """# The command line

## Miscellaneous strictness flags

`--warn-unreachable`
:   Shows a warning when code is unreachable after type analysis. The strict flag does not turn this check on:
    pass it on its own.
""",
    "config_file.md": """# The configuration file

## Configuring warnings

`warn_unreachable = True`
:   Shows a warning when encountering any code inferred to be unreachable or redundant after performing type
    analysis. Strict mode leaves this warning off; set it in the file's global section.
""",
}
WRITTEN = "I turned on strict mode, but unreachable code still gets no warning. Does `--warn-unreachable` need setting too?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("written"), DOCS)


def scores(folder: Path, question: str, weight: float | None) -> dict[str, float]:
    layers = [{"retrieval": {"written_name_weight": weight}}] if weight is not None else []
    ws = RagWorkspace([folder], layers, read_only=True)
    try:
        return {h.chunk.path: h.score for h in ws.retrieve(question, top_k=10) if h.chunk.path in DOCS}
    finally:
        ws.close()


def test_the_chunk_writing_the_name_as_the_question_does_is_scaled(folder):
    off, on = scores(folder, WRITTEN, 1.0), scores(folder, WRITTEN, None)
    assert set(off) == set(on) == set(DOCS)
    assert on["command_line.md"] == pytest.approx(1.05 * off["command_line.md"])  # `--warn-unreachable` as written
    assert on["config_file.md"] == pytest.approx(off["config_file.md"])  # warn_unreachable: another form
    # the configuration reference wins the near tie without the factor (0.998 against 0.979), the page that writes the
    # option as the question does with it (0.979 x 1.05 = 1.028)
    assert max(off, key=off.get) == "config_file.md"
    assert max(on, key=on.get) == "command_line.md"


def test_no_written_name_no_factor(folder):
    question = "I turned on strict mode, but unreachable code still gets no warning. Does that need setting too?"
    assert scores(folder, question, None) == pytest.approx(scores(folder, question, 1.0))
