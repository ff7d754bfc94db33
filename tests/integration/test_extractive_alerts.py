"""GitHub alerts ("> [!TIP]" atop a blockquote) read as the prose they hold (answer/markup.py `_ALERT`), with the
real offline model: Starship's presets page quoted "[!TIP] This preset will become the default preset ..." (break51)."""

from __future__ import annotations

import pytest
from askkit import extractive_over
from ragls.answer.preview import chunk_preview
from ragls.core.ir import Chunk, LineSpan


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


PRESETS = """# Presets

## No Nerd Fonts

This preset changes the symbols for several modules so that no Nerd Font symbols
are used anywhere in the prompt.

> [!TIP]
> This preset will become the default preset in a future release of starship.

## Elvish

   > [!warning]
   > Only elvish v0.18 or higher is supported.

```md
> [!NOTE]
> An alert written in an example stays as written.
```
"""


def _chunk() -> Chunk:
    return Chunk(id="presets.md", path="presets.md", text=PRESETS, span=LineSpan(0, 0, PRESETS.count("\n"), 0),
                 text_hash="presets.md")


def test_an_alerts_marker_is_no_word_of_the_answer(embedder):
    answer = extractive_over("Will the no nerd font preset become the default preset?", PRESETS, "presets.md",
                             embedder.embed_documents)
    assert "- This preset will become the default preset in a future release of starship [1]." in answer, answer
    assert "[!TIP]" not in answer, answer
    answer = extractive_over("Which elvish version is supported?", PRESETS, "presets.md", embedder.embed_documents)
    assert "Only elvish v0.18 or higher is supported" in answer and "[!warning]" not in answer, answer


def test_an_alerts_marker_is_no_word_of_the_preview():
    line = PRESETS.split("\n").index("> This preset will become the default preset in a future release of starship.")
    preview = chunk_preview(_chunk(), LineSpan(line - 1, 0, line, 10))
    assert preview.startswith("This preset will become the default preset"), preview
