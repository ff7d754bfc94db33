"""Extractive answers keep structure (answer/extractive.py), without a model: lexical ranking. A ":" sentence
carries the code block, list or table it introduces; reST literal blocks, directive bodies and options, notes and
figures are read as what they are."""

from __future__ import annotations

from blockkit import body, hit
from ragls.answer.extractive import clean_markup, extractive_answer, units
from ragls.core.ir import Chunk, Hit, LineSpan


def test_sentence_ending_in_colon_keeps_its_code_block_verbatim():
    lines = body(extractive_answer("How do I install the package?", [(1, hit())], max_sentences=1))
    assert lines == ["- To install the package, run these commands [1]:", "  ```bash", "  pip install foo",
                     "  foo init --force", "  ```"]


def test_sentence_ending_in_colon_keeps_its_list_as_a_list():
    lines = body(extractive_answer("Which sections does the configuration file have?", [(1, hit())],
                                   max_sentences=1))
    assert lines == ["- The configuration file has three sections [1]:",
                     "  - a server section with the host and the port",
                     "  - a database section with the connection string",
                     "  - a logging section with the level"]


def test_passages_of_the_focus_lines_lead_and_the_rest_of_the_chunk_competes():
    # Focus on the configuration sentence and list (file lines 22-26 = chunk lines 12-16): it leads; the install
    # sentence, which matches the question as well, comes after it (weighted OUTSIDE_WINDOW, not left out).
    lines = body(extractive_answer("install configuration", [(1, hit(focus=LineSpan(22, 0, 26, 0)))]))
    assert lines[0] == "- The configuration file has three sections [1]:"
    assert "- To install the package, run these commands [1]:" in lines


RST = """Blueprints
==========

To register the blueprint, call the method on the application::

    app.register_blueprint(simple_page)
    app.run(debug=True)

Install the extension with pip before you start:

.. code-block:: sh

    $ pip install flask-sqlalchemy

So how do you register that blueprint?  Like this::

    from flask import Flask
    app.register_blueprint(simple_page)

Each command of the list below is one line of text:

    first line of text
    second line of text
"""


def test_indented_and_rest_literal_blocks_stay_code_after_their_sentence():
    """reST literal blocks (after "::" or a `.. code-block::` line) and Markdown's 4-space code blocks are code:
    kept verbatim (fenced) under the sentence that introduces them, never flattened into a sentence, and "::"
    reads as ":" (the Flask docs are reST: their code came out as one run-on line before)."""
    answer = extractive_answer("how do I register the blueprint on the application", [(1, hit(RST))],
                               max_sentences=1)
    assert body(answer) == ["- To register the blueprint, call the method on the application [1]:", "  ```",
                            "  app.register_blueprint(simple_page)", "  app.run(debug=True)", "  ```"]
    answer = extractive_answer("install the extension with pip", [(1, hit(RST))], max_sentences=1)
    assert body(answer) == ["- Install the extension with pip before you start [1]:", "  ```",
                            "  $ pip install flask-sqlalchemy", "  ```"]
    # a short lead-in ("Like this::") joins the sentence before it, so the code is not lost with it
    assert "So how do you register that blueprint? Like this:\n```\nfrom flask import Flask\n" \
           "app.register_blueprint(simple_page)\n```" in [u.text for u in units(RST, markdown=False)]
    everything = extractive_answer("register blueprint install extension command list line text",
                                   [(1, hit(RST))], max_sentences=10)
    assert "::" not in everything and ".. code-block" not in everything
    assert "first line of text second line" not in everything  # never one flattened line


def test_admonition_bodies_are_prose_with_their_lines():
    """A reST `.. note::` body is indented text, not a code block: its sentences are candidates, on their own
    lines (0-based), read across the hard wraps."""
    text = ("Streaming\n---------\n\n.. note:: When streaming, you need to release\n    the connection yourself.\n\n"
            "    After all data is read you can call\n    `release_conn` to return the connection to the pool.\n")
    found = [(u.sentence, u.line, u.end) for u in units(text)]
    assert found == [("When streaming, you need to release the connection yourself.", 3, 4),
                     ("After all data is read you can call `release_conn` to return the connection to the pool.",
                      6, 7)]
    assert "```" not in extractive_answer("how do I return the connection to the pool", [(1, hit(text))])


# The shapes a ":" sentence ends a passage in: what it introduces comes after an mdBook `<Listing>` tag or a
# `<span class="filename">` caption, a `.. code-block::` line with its `:caption:` option, or a reST doctest
# block; or it is not in the chunk at all (an mdBook include removed, the chunk ending right after it).
LEAD_INS = """The detailed procedure is:

## Appendix

Open the generated manifest of the package and take a look:

<span class="filename">Filename: Cargo.toml</span>

```toml
[package]
name = "guessing_game"
```

The schema of the database is created with these statements:

.. code-block:: sql
    :caption: ``flaskr/schema.sql``

    DROP TABLE IF EXISTS user;

You can check the session from a Python shell like this:

>>> from yourapplication.database import init_db
>>> init_db()

Running it inside a workspace adds the new package to the members key of the workspace, like this:

```console
{{#include ../listings/ch02/output.txt}}
```

- The release checklist has these three items:
- Tag the release in the repository.

Finally the last step is:"""


def test_a_colon_sentence_carries_what_it_introduces_or_is_dropped():
    """A sentence ending in ":" answers with the block it introduces, found past HTML tag lines and reST directive
    lines and options; one whose block is not in the chunk (a heading follows, an include-only code block, a list
    item without a sub-list, the chunk's end) introduces nothing: a bare lead-in is not a passage, a longer
    sentence keeps what it says and ends in "." — an answer never ends a bullet on "[1]:" with nothing under it."""
    found = units(LEAD_INS)
    texts = [u.text for u in found]
    assert "Open the generated manifest of the package and take a look:\n```toml\n[package]\n" \
           'name = "guessing_game"\n```' in texts
    assert "The schema of the database is created with these statements:\n```\nDROP TABLE IF EXISTS user;\n```" \
           in texts
    assert "You can check the session from a Python shell like this:\n```\n" \
           ">>> from yourapplication.database import init_db\n>>> init_db()\n```" in texts
    assert all(u.attached for u in found if u.sentence.endswith(":")), [u.sentence for u in found]
    for lost in ("The detailed procedure", "these three items", "Finally the last"):  # bare lead-ins
        assert not any(lost in t for t in texts), lost
    assert "Running it inside a workspace adds the new package to the members key of the workspace, like this." \
        in texts  # what it says stays, without the ":" that introduced an include
    answer = extractive_answer("What is the detailed release procedure, its last step, the members key?",
                               [(1, hit(LEAD_INS))], max_sentences=10)
    assert "procedure is" not in answer and "[1]:\n-" not in answer and not answer.endswith(":")
    assert "Tag the release in the repository [1]." in answer and "workspace, like this [1]." in answer


def test_units_flag_list_items_table_rows_and_rest_fields_as_items():
    """`Unit.item`: list items, pipe-table rows and reST fields (made list items by answer/rest.py) are whole units
    of their own (never read with a neighbour, neighbours.read_with_neighbours); paragraph sentences are not."""
    md = ("Pools are reused across requests. Each host gets one.\n\n"
          "- `maxsize` sets how many connections are kept per host\n\n"
          "| name | default | meaning |\n|---|---|---|\n| `block` | `False` | wait for a free connection |\n")
    rst = "Creates a pool for the given host.\n\n:param int maxsize: the number of connections kept per host\n"
    found = {u.sentence: u.item for u in units(md)}
    assert found == {"Pools are reused across requests.": False, "Each host gets one.": False,
                     "`maxsize` sets how many connections are kept per host": True,
                     "`block` | `False` | wait for a free connection": True}
    assert [(u.sentence, u.item) for u in units(rst, markdown=False)] == [
        ("Creates a pool for the given host.", False), ("`maxsize`: the number of connections kept per host", True)]


def test_mkdocs_material_content_tabs_and_pymdownx_blocks_read_as_prose():
    """A content tab's body (`=== "Python 3.9 and above"`, indented 4 spaces) is prose and code, not one indented
    code block; a pymdownx.blocks fence (`/// note`, `///`) is no part of a sentence. Line numbers never move."""
    text = ('# Validators\n\n=== "Python 3.9 and above"\n\n    Attach a validator with the `field_validator`\n'
            '    decorator.\n\n    ```python\n    @field_validator("name")\n    def check(cls, v): ...\n    ```\n\n'
            '/// note | Errors\n    type: warning\n\nA validator that raises `ValueError` fails the model.\n///\n')
    cleaned = clean_markup(text)
    assert cleaned.count("\n") == text.count("\n")
    assert "///" not in cleaned and "===" not in cleaned and "type: warning" not in cleaned
    read = [u.text for u in units(text)]
    assert "Attach a validator with the `field_validator` decorator." in read, read
    assert "A validator that raises `ValueError` fails the model." in read, read
    assert '```python\n@field_validator("name")\ndef check(cls, v): ...\n```' in cleaned  # code stays code


def test_rust_doc_comments_are_not_pymdownx_fences():
    """`///` in a code block is a Rust doc comment, kept as it is."""
    text = "Document it:\n\n```rust\n/// Adds one.\n///\n/// # Examples\nfn add_one(x: i32) -> i32 {\n    x + 1\n}\n```\n"
    assert clean_markup(text) == text


# Litestar's docs: a directive option's value wrapped onto the next line (docutils reads options as a field list, so
# a value continues on lines indented past its ":"), then more options, then the code.
WRAPPED_OPTIONS = """Alternatively you can specify the number of seconds to cache the responses like so:

.. code-block:: python
    :caption: Caching the response for 120 seconds by setting the :paramref:`~litestar.handlers.HTTPRouteHandler.cache`
      parameter to the number of seconds to cache the response.
    :emphasize-lines: 1

    @get("/cached-path", cache=120)
    def my_cached_handler() -> str: ...

.. confval:: response_cache
    :default: ``120 seconds,
      then refreshed``

    How long a response is cached."""


def test_a_directive_option_wrapped_over_lines_is_no_code_and_no_text():
    """A `:caption:` wrapped over two lines, and the options after it, are the directive's settings: the ":" sentence
    carries the code below them (before: the caption's second line and ":emphasize-lines: 1" read as the code, the
    real code as a second block); a wrapped `:default:` reads whole (`rest.directive_options`)."""
    texts = [u.text for u in units(WRAPPED_OPTIONS, markdown=False)]
    assert "Alternatively you can specify the number of seconds to cache the responses like so:\n```\n" \
           '@get("/cached-path", cache=120)\ndef my_cached_handler() -> str: ...\n```' in texts, texts
    assert not any("emphasize" in t or "parameter to the number" in t for t in texts), texts
    assert any("The default of `response_cache` is `120 seconds, then refreshed`" in t for t in texts), texts


FIGURE = """Since handlers are defined on every layer, multiple layers of exception handlers are needed to handle errors:


.. figure:: /images/exception-handlers.jpg
    :width: 400px

    The layers of exception handlers, from the app down to a route handler.

Handlers defined on a lower layer override those above them."""


def test_a_figures_caption_is_prose_not_the_code_a_colon_sentence_introduces():
    """A `.. figure::` body is its caption (docutils), read as a paragraph: before, the indented caption was a code
    block that the ":" sentence before the figure showed as its example (Litestar's exceptions page)."""
    texts = [u.text for u in units(FIGURE, markdown=False)]
    assert not any("```" in t for t in texts), texts
    assert "The layers of exception handlers, from the app down to a route handler." in texts, texts
    assert "Since handlers are defined on every layer, multiple layers of exception handlers are needed to handle " \
           "errors." in texts, texts


NOTE_THEN_CODE = """A WebSocket connection can be handled with a `@websocket()` route handler.

.. note:: The websocket handler is a low level approach, requiring to handle the socket directly.

    For a more high level approach to handling WebSockets, see the websockets page.

.. code-block:: python

    @websocket(path="/socket")
    async def my_websocket_handler(socket: WebSocket) -> None: ...
"""


def test_the_code_after_a_note_is_not_the_notes_last_sentences():
    """A note's body reads as prose (dedented, `rest.admonitions`), but the code block after the note is outside it:
    it is not shown with the note's last paragraph (`passages._closed`: the paragraph is indented deeper as written
    than the block after it). A paragraph at the code's own level still carries it."""
    found = units(NOTE_THEN_CODE, markdown=False)
    note = next(u for u in found if "high level approach" in u.sentence)
    assert note.code_after == "" and note.attached == "", note
    found = units(NOTE_THEN_CODE.replace("    For a more", "For a more"), markdown=False)
    assert "@websocket" in next(u for u in found if "high level approach" in u.sentence).code_after


CODE_ONLY_STEP = """List apps
=========

Show what pipx manages:

.. code-block:: console

    $ pipx list

**************
 Uninstall all
**************

.. code-block:: console

    $ pipx uninstall-all

Record what you have first with ``pipx list --short`` if you plan to reinstall later.
"""


def test_a_code_block_right_under_a_title_is_quoted_with_the_title():
    """A section whose step is only a code block ("Uninstall all" / `$ pipx uninstall-all`) had no passage of its
    own: pipx's "How do I uninstall everything pipx installed?" retrieved that section and quoted the getting-started
    page's `pipx uninstall pycowsay` instead. The title introduces the block as a ":" sentence would, cited from the
    title's line through the code."""
    found = {u.text: (u.line, u.block_end) for u in units(CODE_ONLY_STEP, markdown=False)}
    assert found.get("Uninstall all:\n```\n$ pipx uninstall-all\n```") == (10, 15), found
    rst = Hit(chunk=Chunk(id="b", path="apps.rst", text=CODE_ONLY_STEP, span=LineSpan(0, 0, 18, 0), text_hash="b"),
              score=1.0)
    answer = extractive_answer("How do I uninstall everything pipx installed?", [(1, rst)], max_sentences=1)
    assert body(answer)[:4] == ["- Uninstall all [1]:", "  ```", "  $ pipx uninstall-all", "  ```"]
    # in Markdown the same: "## Reset" / a fenced block; a title with prose before its code is left as it was
    markdown = "## Reset the cache\n\n```sh\nfoo cache --reset\n```\n\n## Build\n\nRun the build in release mode:\n\n```sh\nfoo build\n```\n"
    assert [u.text for u in units(markdown)] == ["Reset the cache:\n```sh\nfoo cache --reset\n```",
                                                 "Run the build in release mode:\n```sh\nfoo build\n```"]
