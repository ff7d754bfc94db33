"""The small indexes the integration tests build from documents written in the test, on real stores (tantivy,
LanceDB, the SQLite manifest) with the offline all-MiniLM-L6-v2 (the `ragls[offline]` extra), and the line numbers
their assertions compare: one setup for every such module.

- `folder_index(root, files)`: a `FolderIndex` over root/docs, indexed (text and vectors) into root/index — for
  tests that search it directly (`retrieval.search.search`).
- `fixture_workspace(root)`: an indexed, trusted `RagWorkspace` over a copy of tests/fixtures/docs (a small
  service's docs: upgrades, retries, auth tokens, health checks), without an LLM.
- `indexed_folder(root, files)`: a trusted folder root/docs whose ragls.toml names the index root/index and the
  offline model, indexed once by a `RagWorkspace` — for tests that open it again with other settings.

The two workspace indexes skip the sentence pass (`index.sentence_vectors = false`): it only caches the vectors
a first answer would compute with the model, bit for bit, and answers the same (the pass has its own tests,
tests/integration/test_sentence_vectors.py); most of these tests ask nothing, and the pass was a third of the
CPU of the largest such index.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragls.config.settings import Settings, build_settings
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.workspace.rag_workspace import RagWorkspace

# Five one-line pages of other topics beside a test's own documents: a site's BM25 document frequencies and vector
# neighbours, so the documents under test are not the whole corpus.
FIXTURE_DOCS = Path(__file__).resolve().parent / "fixtures" / "docs"
# Sections of ~1,500 characters: more than the model's 256 wordpieces, so each chunk has windows after its first.
LONG_SECTION = "\n".join(f"Step {i} of the harbour checklist is written down here in plain words, line by line."
                         for i in range(20))
FILLER_TOPICS = ("routing", "templates", "static files", "sessions", "websockets")
NO_SENTENCE_PASS = "sentence_vectors = false\n"  # an [index] line: see the module docstring


def _write(folder: Path, files: dict[str, str], filler: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    if filler:
        for i, topic in enumerate(FILLER_TOPICS):
            (folder / f"topic{i}.md").write_text(f"# {topic.title()}\n\nHow the framework handles {topic}: "
                                                 f"configure {topic} in the application settings.\n")


def folder_index(root: Path, files: dict[str, str], **embedding: Any) -> tuple[FolderIndex, Settings]:
    """(index, settings): `files` (name -> text) written to root/docs and indexed into root/index with the offline
    model; `embedding`: more embedding settings (e.g. `window=64`). The caller closes the index."""
    _write(root / "docs", files, filler=False)
    emb = {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir()), **embedding}
    settings = build_settings({"embedding": emb, "index": {"path": str(root / "index")}})[0]
    idx = FolderIndex(root / "docs", settings, Embedder(settings.embedding))
    idx.sync()
    return idx, settings


def offline_toml(index_dir: Path, more: str = "", sentence_pass: bool = False) -> str:
    """A ragls.toml's text naming the index directory `index_dir`, no sentence pass (`NO_SENTENCE_PASS`) unless
    `sentence_pass`, and the offline model, then `more` (TOML text whose tables come after [index] and
    [embedding])."""
    return (f'[index]\npath = "{index_dir.as_posix()}"\n{"" if sentence_pass else NO_SENTENCE_PASS}[embedding]\n'
            f'model_path = "{offline_model_dir().as_posix()}"\nmodel = "{OFFLINE_MODEL_NAME}"\n{more}')


def indexed_folder(root: Path, files: dict[str, str], *, filler: bool = True, toml: str = "",
                   sentence_pass: bool = False) -> Path:
    """root/docs holding `files` (plus the FILLER_TOPICS pages unless `filler` is False), its ragls.toml (the index
    root/index, the offline model, the sentence pass when `sentence_pass`, then `toml`) trusted, indexed once by a
    RagWorkspace that is closed again."""
    folder = root / "docs"
    _write(folder, files, filler)
    (folder / "ragls.toml").write_text(offline_toml(root / "index", toml, sentence_pass))
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    ws = RagWorkspace([folder])
    try:
        ws.index()
    finally:
        ws.close()
    return folder


@contextlib.contextmanager
def extractive_workspace(root: Path, files: dict[str, str], *, filler: bool = True, toml: str = "",
                         sentence_pass: bool = False) -> Iterator[RagWorkspace]:
    """An open RagWorkspace over `indexed_folder(root, files, filler=filler, sentence_pass=sentence_pass)` with no
    LLM (`generation.backend = "none"`: answers are extractive; `toml`: more ragls.toml text; `sentence_pass`: the
    answer sentences' vectors stored, as a server's index has them), closed on exit; skips the test when the offline
    model (ragls[offline]) is missing. For module fixtures:
    `with extractive_workspace(tmp_path_factory.mktemp("x"), {"a.md": A}) as ws: yield ws`."""
    import pytest

    if offline_model_dir() is None:
        pytest.skip("needs ragls[offline]")
    ws = RagWorkspace([indexed_folder(root, files, filler=filler, toml=f'[generation]\nbackend = "none"\n{toml}',
                                      sentence_pass=sentence_pass)])
    try:
        yield ws
    finally:
        ws.close()


def file_lines(span) -> tuple[int, int]:
    """1-based inclusive file lines of a LineSpan (an end at column 0 ends on the line before)."""
    end = span.end_line if span.end_char == 0 and span.end_line > span.start_line else span.end_line + 1
    return span.start_line + 1, end


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the first line of `text` holding `needle`."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def fixture_workspace(root: Path, extra: str = "") -> RagWorkspace:
    """An open RagWorkspace over root/docs, a copy of tests/fixtures/docs, indexed (text and vectors) into root/index
    with the offline model and no LLM (`generation.backend = "none"`); `extra`: more ragls.toml text. The folder is
    trusted; the caller closes the workspace."""
    folder = root / "docs"
    shutil.copytree(FIXTURE_DOCS, folder)
    (folder / "ragls.toml").write_text(offline_toml(root / "index", f'[generation]\nbackend = "none"\n{extra}'))
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    ws = RagWorkspace([folder])
    ws.index()
    return ws


def ranked(folder: Path, question: str, retrieval: dict[str, Any] | None = None, top_k: int = 5
           ) -> list[tuple[str, float]]:
    """The (path, score) of `question`'s top `top_k` hits over `folder` (indexed by `indexed_folder`), read-only,
    with the `retrieval` settings given (a prior's weight; None: the defaults)."""
    ws = RagWorkspace([folder], [{"retrieval": retrieval}] if retrieval else [], read_only=True)
    try:
        return [(h.chunk.path, h.score) for h in ws.retrieve(question, top_k=top_k)]
    finally:
        ws.close()


def write_long_pages(docs: Path) -> None:
    """Three Markdown pages in `docs` (created), harbour.md, lighthouse.md and ferry.md, each one `LONG_SECTION`
    naming its own subject: three chunks that each have windows after their first vector."""
    docs.mkdir()
    for name in ("harbour", "lighthouse", "ferry"):
        (docs / f"{name}.md").write_text(f"# The {name}\n\n{LONG_SECTION.replace('harbour', name)}\n")


def embed_first_vectors(index: FolderIndex) -> None:
    """Index the writer `index`'s text and embed every chunk's first vector only: its window pass has not started."""
    index.sync(embed=False)
    index.open_vectors()
    while index.pending_count():
        index.embed_pending_batch()
