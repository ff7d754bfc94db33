"""Extractive answers over MkDocs pages whose examples are pymdownx.snippets lines (Textual's docs: 731 of them in 151
pages, inside content tabs), with the real offline model and a real index (answer/includes.py `snippets`)."""

from __future__ import annotations

from offline_index import extractive_workspace, file_lines, line_of

INPUT = """# Input

## Bindings

Keys may be associated with actions for a given widget. This association is known as a key binding.

To create bindings, add a `BINDINGS` class variable to your app or widget. This should be a list of tuples of three
strings.

The following example binds the keys ++r++, ++g++, and ++b++ to an action which adds a bar widget to the screen.

=== "binding01.py"

    ```python title="binding01.py" hl_lines="6-10"
    --8<-- "docs/examples/guide/input/binding01.py"
    ```

=== "binding01.tcss"

    ```css title="binding01.tcss"
    --8<-- "docs/examples/guide/input/binding01.tcss"
    ```

## Mouse capture

To capture the mouse so that every mouse event goes to one widget, call its capture method:

```python
--8<-- "docs/examples/guide/input/mouse01.py:capture"
```

To release the captured mouse, call the release method with no arguments:

```python
--8<-- "docs/examples/guide/input/mouse01.py:9:10"
```

The project's credentials are read from the environment:

```python
--8<-- ".env"
```
"""

BINDING01_PY = """from textual.app import App
from textual.widgets import Footer, Static


class BindingApp(App):
    BINDINGS = [
        ("r", "add_bar('red')", "Add Red"),
        ("g", "add_bar('green')", "Add Green"),
        ("b", "add_bar('blue')", "Add Blue"),
    ]

    def compose(self):
        yield Footer()

    def action_add_bar(self, color: str) -> None:
        bar = Static(color)
        bar.styles.background = color
        self.mount(bar)
        self.call_after_refresh(self.screen.scroll_end, animate=False)
"""

MOUSE01_PY = """from textual.app import App


class MouseApp(App):
    # --8<-- [start:capture]
    def on_mount(self) -> None:
        self.query_one("#ball").capture_mouse()
    # --8<-- [end:capture]
    def on_unmount(self) -> None:
        self.release_mouse()
"""


def test_a_snippet_fence_shows_the_files_code(tmp_path):
    """A fence holding only `--8<-- "path"` lines shows the code of the files it names, as MkDocs builds the page:
    the name relative to the project's root (the indexed `docs/` folder's parent: "docs/examples/..." is the
    folder's "examples/..."), cut by a section name or line ranges, without its section marker lines, or to
    the lines its fence highlights (`hl_lines`); the citation stays on the page's own lines. Before, the answer showed the file's name as the code
    (`--8<-- "docs/examples/guide/input/binding01.py"`), and a sentence under which the code is the example had
    nothing to show. A secret file a page names is never shown."""
    files = {"guide/input.md": INPUT, "examples/guide/input/binding01.py": BINDING01_PY,
             "examples/guide/input/binding01.tcss": "Bar {\n    height: 5;\n}\n",
             "examples/guide/input/mouse01.py": MOUSE01_PY, ".env": "OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234\n"}
    with extractive_workspace(tmp_path, files) as ws:
        answer = ws.ask("How do I capture the mouse so every mouse event goes to one widget?")
        assert 'call its capture method [1]:\n  ```python\n  def on_mount(self) -> None:\n' \
               '      self.query_one("#ball").capture_mouse()\n  ```' in answer.text, answer.text
        assert "8<" not in answer.text and "[start:capture]" not in answer.text, answer.text
        hit = next(h for k, h in answer.sources if k == 1)
        assert hit.chunk.path == "guide/input.md"
        spans = [file_lines(s) for s in (hit.focus, *hit.more_focus)]
        assert any(a <= line_of(INPUT, "call its capture method") <= b for a, b in spans), spans
        answer = ws.ask("How do I release the captured mouse?")
        assert "  ```python\n  def on_unmount(self) -> None:\n      self.release_mouse()\n  ```" in answer.text, answer.text
        # the lines the fence highlights (`hl_lines`) under the sentence that is no ":" lead-in: the whole 19-line
        # module was too long to come with it, and the file's name was all it showed before; the fence shows its
        # language only (`fences.shown_fences`: not `title="binding01.py"`)
        answer = ws.ask("How do I bind a key to an action?")
        assert '  ```python\n  BINDINGS = [\n      ("r", "add_bar(\'red\')", "Add Red"),\n' \
               in answer.text and "def compose" not in answer.text and "hl_lines" not in answer.text, answer.text
        answer = ws.ask("Where are the project's credentials read from?")
        assert "sk-proj" not in answer.text and "OPENAI_API_KEY" not in answer.text, answer.text
