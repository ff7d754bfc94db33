"""Extractive answers over Markdown docs written in MyST (Sphinx): a definition list, a colon-fence admonition, a
directive code fence and a link whose target names a Python object answer without markup artefacts and keep the
identifier (issue 27; answer/blocks.py, answer/markup.py, answer/passages.py). Real stores (tantivy, LanceDB), the
offline model, `RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from ragls.answer.passages import units
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

PROCESSORS = """# Processors

*pebble* ships a few processors for the event pipeline:

{func}`~pebble.processors.add_hostname`:

: Adds the name of the machine to the event dictionary under the key `host`.
  Put it early in the chain so that later processors can read it.

{class}`~pebble.processors.Sampler`

: Keeps one event in every *n* and throws the others away,
  so that chatty loggers stay affordable in production.

:::{important}
The renderer has to be the very last processor of the chain, because it turns the event dictionary into a string.
:::

```{code-block} python
:caption: app.py

pebble.configure(processors=[add_hostname, Sampler(10), render])
```
"""

OUTPUT = """# Output formats

Events are dictionaries, so pebble can write them in any format you like:

- [*logfmt*](pebble.renderers.LogfmtRenderer) lines for Loki and friends,
- [JSON](pebble.renderers.JSONRenderer) for log aggregators,
- or a colorful layout for [local development](development.md).
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("myst")
    mp = pytest.MonkeyPatch()
    mp.setenv("RAGLS_CACHE_DIR", str(root / "cache"))
    mp.setenv("RAGLS_OFFLINE", "1")
    folder = root / "docs"
    folder.mkdir()
    (folder / "processors.md").write_text(PROCESSORS)
    (folder / "output.md").write_text(OUTPUT)
    ws = RagWorkspace([folder])
    ws.index()
    yield ws
    ws.close()
    mp.undo()


def _bullets(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


def test_a_definition_answers_whole_led_by_its_term(ws):
    """`{class}`~pebble.processors.Sampler`` / blank line / ": Keeps one event ..." over two lines: one bullet, the
    term (the identifier) first, both lines of the definition, no ": " left over."""
    answer = ws.ask("How can I keep only a sample of the events of a noisy logger?").text
    assert "- `Sampler`: Keeps one event in every *n* and throws the others away, so that chatty loggers stay " \
           "affordable in production [1]." in _bullets(answer), answer
    assert not any(b.startswith("- :") for b in _bullets(answer)), answer


def test_a_definition_cites_its_term_through_its_last_line():
    """The unit spans the term's line through the definition's last (0-based lines of the text)."""
    found = [u for u in units(PROCESSORS) if u.sentence.startswith("`add_hostname`:")]
    assert [(u.line, u.end, u.item) for u in found] == [(4, 7, True)]
    assert found[0].sentence == ("`add_hostname`: Adds the name of the machine to the event dictionary under the key "
                                 "`host`. Put it early in the chain so that later processors can read it.")


def test_a_colon_fence_note_is_prose_and_a_code_directive_is_code(ws):
    """`:::{important}` ... `:::` reads as the sentence it holds, without the fence; the ```` ```{code-block} python
    ```` block is code fenced as python, its `:caption:` option dropped."""
    answer = ws.ask("Where in the processor chain does the renderer have to go?").text
    assert "- The renderer has to be the very last processor of the chain, because it turns the event dictionary " \
           "into a string [1]." in _bullets(answer), answer
    assert ":::" not in answer and "{important}" not in answer, answer
    code = [u for u in units(PROCESSORS) if u.code_after or u.attached]
    assert code and code[-1].code_after.startswith("```python\npebble.configure("), code
    assert ":caption:" not in code[-1].code_after


def test_a_link_target_naming_an_object_is_kept(ws):
    """"[*logfmt*](pebble.renderers.LogfmtRenderer)": the answer names the class the reader must use; a link to a
    page ("development.md") keeps only its text."""
    answer = ws.ask("Can pebble write its events as logfmt lines?").text
    assert "\n  - *logfmt* (`pebble.renderers.LogfmtRenderer`) lines for Loki and friends,\n" in answer, answer
    assert [u.sentence for u in units(OUTPUT) if "local development" in u.sentence] == \
        ["or a colorful layout for local development."]
