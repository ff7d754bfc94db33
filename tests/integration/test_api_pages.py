"""API pages on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py,
`retrieval.api_page_weight`): a hook's reference entry under api/ repeats a task question's words (every migration,
ALTER COLUMN, types, "don't care") and wins it with the prior off; with the default the guide page whose sentence
says what to do ranks first, and the API page is demoted, not dropped."""

from __future__ import annotations

from pathlib import Path

import offline_index
import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

HOOK = """# Type comparison hook

`compare_type(context, column, reflected_type, model_type)` is called for every column whose type the migration
generator compares between the database and your models. Return True when the types differ and the generated
migration should ALTER COLUMN to the model's type, False when you don't care about the difference, or None to let
the default comparison decide. Every migration you generate calls it once per column.
"""
GUIDE = """# Generating migrations

The migration generator compares the database with your models and writes the operations that bring the database
up to date: new tables and columns, dropped ones, changed nullability, changed types. Review each generated file
before you run it: renamed columns show up as a drop and an add. Set `compare_type = false` in the `[generate]`
section to leave column types out of the comparison.
"""
QUESTION = "Every migration I generate wants to ALTER COLUMN types I don't care about. How do I stop that?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("api"), {"api/hooks.md": HOOK, "generating.md": GUIDE})


def ranked(folder: Path, weight: float | None) -> list[tuple[str, float]]:
    return offline_index.ranked(folder, QUESTION, None if weight is None else {"api_page_weight": weight})


def test_the_guide_page_ranks_above_the_api_page(folder):
    off = ranked(folder, 1.0)
    assert off[0][0] == "api/hooks.md"  # the prior off: the hook's entry (0.967 against 0.875) wins
    got = ranked(folder, None)
    assert got[0][0] == "generating.md"
    api = next(score for path, score in got if path == "api/hooks.md")  # demoted, not dropped
    assert api == pytest.approx(0.9 * off[0][1])
    rest = dict(off[1:])
    assert all(rest[path] == pytest.approx(score) for path, score in got if path != "api/hooks.md")
