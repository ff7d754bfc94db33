"""A reST chunk that opens at its section title's underline (the chunker's overlap starts a chunk at any line) reads
the title line back from the file (`openings.opening_lines`, `passages.chunk_units`). Real files in a folder and the
real passage reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from extractkit import _bullets
from ragls.answer.ask import extractive_answer
from ragls.answer.passages import chunk_units, units
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


SETTINGS = """Settings
========

``commit_message``
~~~~~~~~~~~~~~~~~~

Commit message to use when making release commits.

``commit_author``
~~~~~~~~~~~~~~~~~

**Type:** ``str``

Author used in commits in the format ``name <email>``.
"""


def test_a_rest_chunk_opening_at_its_title_underline_reads_the_title(tmp_path: Path):
    """The chunker cut between a section title, "``commit_author``", and its underline (Python Semantic Release's
    configuration.rst, sr02): the chunk reads its title back, and the passage under it is led by the setting's name
    (`labels.heading_label`) as in a chunk holding the title."""
    (tmp_path / "settings.rst").write_text(SETTINGS, encoding="utf-8")
    lines = SETTINGS.split("\n")
    chunk = Chunk(id="s", path="settings.rst", text="\n".join(lines[9:15]), span=LineSpan(9, 0, 14, 0),
                  text_hash="s", folder=str(tmp_path))
    assert chunk.text.startswith("~~~")
    assert [u.sentence for u in chunk_units(chunk)] == [
        "`commit_author`: Author used in commits in the format `name <email>`."]


def test_the_answer_names_the_setting(tmp_path: Path, embedder):
    """With the real model, the answer to which setting changes the commits' author quotes the passage led by
    `commit_author`; over a file changed since (its line at the chunk's start is no longer the underline) the chunk
    is read as it is, without the title."""
    (tmp_path / "settings.rst").write_text(SETTINGS, encoding="utf-8")
    lines = SETTINGS.split("\n")
    chunk = Chunk(id="s", path="settings.rst", text="\n".join(lines[9:15]), span=LineSpan(9, 0, 15, 0),
                  text_hash="s", folder=str(tmp_path))
    answer = extractive_answer("Which setting changes the author the release commits are made as?",
                               [(1, Hit(chunk=chunk, score=1.0))], embed=embedder.embed_documents)
    assert _bullets(answer)[0] == "- `commit_author`: Author used in commits in the format `name <email>` [1].", answer
    (tmp_path / "settings.rst").write_text(SETTINGS.replace("~~~~~~~~~~~~~~~~~\n\n**Type", "\n\n**Type"),
                                           encoding="utf-8")
    assert chunk_units(chunk) == units(chunk.text, markdown=False, source="settings.rst", folder=str(tmp_path))
