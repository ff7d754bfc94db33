"""A hit's focus (`focusRange`) holds the two passages its chunk reads closest to the question when both fit in
FOCUS_SENTENCE_LINES lines (`answer/focus._with_runner_up`), on real stores (tantivy, LanceDB, the SQLite manifest)
and the offline all-MiniLM-L6-v2 with the sentence pass's stored vectors, through `RagWorkspace.retrieve` as every
front calls it. The best passage restates the question ("By default, the builder deletes and recreates ..."); the
one that answers it, naming the option, is ranked second three lines below, and before session 67 the focus was
the restatement alone. A runner-up too far away stays out: the focus keeps at most FOCUS_SENTENCE_LINES lines.
"""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines, line_of
from ragls.answer.neighbours import FOCUS_SENTENCE_LINES

ENVIRONMENTS = """# Build environments

Each build runs in an environment of its own, with the packages its recipe lists.

## Reusing environments

By default, the builder deletes and recreates environments every time it is
run. This is usually fine for most projects and continuous integration servers,
as the package cache makes a re-install rather quick. Some situations may make
it advantageous to keep them between runs: pass the `--keep-envs` flag and the
builder leaves each environment in place.

## Cleaning up

Old environments are removed by `builder clean`, which frees the disk space
they hold. It removes every environment that no recipe names any more.
"""

RECIPES = "# Recipes\n\nA recipe names the packages a build installs and the commands it runs.\n"
QUESTION = "How do I stop the builder from deleting and recreating the environments every time I run it?"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A RagWorkspace over environments.md and recipes.md, indexed with the sentence pass."""
    with extractive_workspace(tmp_path_factory.mktemp("runner_up"), {"environments.md": ENVIRONMENTS,
                                                                      "recipes.md": RECIPES},
                              filler=False, sentence_pass=True) as ws:
        yield ws


def test_the_focus_holds_the_restatement_and_the_answer_below_it(workspace):
    top = workspace.retrieve(QUESTION, 2).hits[0]
    assert top.chunk.path == "environments.md"
    first, last = file_lines(top.focus)
    assert first == line_of(ENVIRONMENTS, "By default, the builder deletes")
    assert first <= line_of(ENVIRONMENTS, "--keep-envs") <= last  # the option the user needs
    assert last - first + 1 <= FOCUS_SENTENCE_LINES
    assert line_of(ENVIRONMENTS, "builder clean") > last  # the next section's sentence stays out
