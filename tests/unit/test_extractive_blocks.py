"""Extractive answers keep structure and drop markup (answer/extractive.py), without a model: lexical ranking."""

from __future__ import annotations

import pytest
from ragls.answer.extractive import EXTRACTIVE_LABEL, clean_markup, extractive_answer, split_sentences, units
from ragls.core.ir import Chunk, Hit, LineSpan

DOC = """## Install { #install }

<!-- maintainers: keep this short -->
::: fastapi.FastAPI

To install the package, run these commands:

```bash
pip install foo
foo init --force
```

The configuration file has three sections:

- a server section with the host and the port
- a database section with the connection string
- a logging section with the level

{* ../docs_src/app/main.py hl[3] *}
Unrelated prose about the project's history and its logo colours.
"""


def hit(text: str = DOC, focus: LineSpan | None = None) -> Hit:
    lines = text.count("\n")
    return Hit(chunk=Chunk(id="a", path="guide.md", text=text, span=LineSpan(10, 0, 10 + lines, 0), text_hash="a"),
               score=1.0, focus=focus)


def body(answer: str) -> list[str]:
    assert answer.startswith(EXTRACTIVE_LABEL + "\n\n")
    return answer[len(EXTRACTIVE_LABEL) + 2:].split("\n")


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


def test_no_raw_markup_reaches_the_answer():
    answer = extractive_answer("install package configuration sections project history", [(1, hit())],
                               max_sentences=10)
    for markup in ("{ #install }", ":::", "{*", "<!--", "maintainers"):
        assert markup not in answer
    assert clean_markup("# Title {#t}\n::: a.b\n{* x.py *}\n<!-- c -->\ntext").split("\n") == \
        ["# Title", "", "", "", "text"]


def test_template_tags_are_the_examples_text():
    # A Jinja/Django/Liquid tag line is not an include line ({* file *}, {! file !}): the answer about a template
    # language quotes its example whole.
    doc = ("Autoescaping can be switched on and off from within the templates with the autoescape tag:\n\n"
           "```jinja\n{% autoescape true %}\n    Autoescaping is active within this block\n{% endautoescape %}\n```\n")
    answer = extractive_answer("How do I switch autoescaping on from within a template?", [(1, hit(doc))])
    for line in ("{% autoescape true %}", "Autoescaping is active within this block", "{% endautoescape %}"):
        assert line in answer
    assert clean_markup("{% raw %}\n{{ x }}\n{% endraw %}\n{! inc.md !}").split("\n") == \
        ["{% raw %}", "{{ x }}", "{% endraw %}", ""]


def test_passages_of_the_focus_lines_lead_and_the_rest_of_the_chunk_competes():
    # Focus on the configuration sentence and list (file lines 22-26 = chunk lines 12-16): it leads; the install
    # sentence, which matches the question as well, comes after it (weighted OUTSIDE_WINDOW, not left out).
    lines = body(extractive_answer("install configuration", [(1, hit(focus=LineSpan(22, 0, 26, 0)))]))
    assert lines[0] == "- The configuration file has three sections [1]:"
    assert "- To install the package, run these commands [1]:" in lines


README = """# `@scope/widget`

A widget library which renders charts for TypeScript codebases.

[![NPM Version](https://img.shields.io/npm/v/widget.svg?style=flat)](https://www.npmjs.com/package/widget)
[![NPM Downloads](https://img.shields.io/npm/dm/widget.svg)](https://www.npmjs.com/package/widget)

See the [getting started guide](https://widget.dev/start) for installing the widget charts library.

- Charts are drawn with ![logo](logo.png) the [canvas renderer](https://widget.dev/canvas) by default

[npmjs-url]: https://www.npmjs.com/package/widget
[license-img]: https://img.shields.io/badge/license-MIT-blue.svg
"""


def test_badges_images_and_link_definitions_never_reach_the_answer():
    """Real READMEs (node_modules) open with badge lines `[![alt](shield)](url)` and end with `[label]: url`
    definitions; the answer showed them as raw markup ("![NPM Version](https://www.npmjs.com/...)")."""
    answer = extractive_answer("which widget charts library renders charts for TypeScript, npm version license",
                               [(1, hit(README))])
    lines = body(answer)
    assert lines, answer
    for line in lines:
        assert "![" not in line and "](" not in line and "]: http" not in line and "shields.io" not in line, line
    assert "- See the getting started guide for installing the widget charts library [1]." in lines
    assert "- Charts are drawn with the canvas renderer by default [1]" in lines
    assert clean_markup(README).count("\n") == README.count("\n")


def test_a_badge_line_is_no_passage():
    """A link whose text is images only (a badge) is nothing: with its image dropped it read as an empty link, whose
    target stands for its text, so nox's and Rich's badge lines were quoted as rows of URLs ("- https://github.com/
    wntrblm/nox https://pypi.python.org/pypi/nox ... [5]")."""
    text = ("# Widget\n\n[![PyPI](https://img.shields.io/pypi/v/widget.svg)](https://pypi.org/project/widget)\n"
            "[![CI](https://github.com/o/widget/workflows/CI/badge.svg)](https://github.com/o/widget/actions)\n"
            "[ ![Docs](https://readthedocs.org/badge.svg) ](https://widget.readthedocs.io)\n"
            "[![License](https://img.shields.io/github/license/o/widget)](https://github.com/o/widget)\n\n"
            "The widget package draws charts with the canvas renderer, see [the guide](https://widget.dev).\n")
    assert split_sentences(text) == ["The widget package draws charts with the canvas renderer, see the guide."]
    answer = extractive_answer("widget pypi ci docs badge", [(1, hit(text))])
    assert "https://" not in answer, answer


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


def test_rest_roles_and_section_underlines_read_as_text():
    """Sphinx roles (":meth:`~flask.make_response`") and a reST title's underline reached answers verbatim."""
    text = ("The Built-In Debugger\n---------------------\n\nWhile it is possible to set :data:`DEBUG` in your "
            "config, use :meth:`~flask.Flask.make_response` and read :ref:`the responses guide <about-responses>` "
            "or :ref:`about-responses` first. Set :paramref:`.Context.configure.compare_type` or "
            ":func:`~.context.configure` there.\n")
    assert clean_markup(text).count("\n") == text.count("\n")
    assert [u.text for u in units(text)] == [
        ("While it is possible to set `DEBUG` in your config, use `make_response` and read the responses guide or "
         "about-responses first."),
        "Set `Context.configure.compare_type` or `configure` there."]  # a leading dot only guides Sphinx's search


def test_a_chunk_opening_mid_sentence_does_not_answer_with_the_fragment():
    """A chunk's overlap with the one before starts mid-sentence ("overload that operator is listed."): that
    fragment is no answer; the sentences after it are."""
    text = "overload that operator is listed in the table.\nEvery operator of the table has an example beside it.\n"
    assert [u.sentence for u in units(text)] == ["Every operator of the table has an example beside it."]
    assert [u.sentence for u in units("The table lists every operator.\n")] == ["The table lists every operator."]


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


def test_myst_roles_read_as_their_text():
    """MyST roles (`{func}`x``, Sphinx's roles written for Markdown) read as reST's do: code roles as code, `{doc}` /
    `{ref}` as their text; "{class}" was quoted verbatim and its word scored. A code span or a JavaScript template
    literal that merely holds braces is left alone."""
    text = ("This can be replaced with the {func}`password_option` decorator; see {py:class}`~click.Path` and "
            "{doc}`the prompts page <prompts>`. Print `{x}` and `${name}` as they are.")
    assert clean_markup(text) == ("This can be replaced with the `password_option` decorator; see `Path` and the "
                                  "prompts page. Print `{x}` and `${name}` as they are.")


def test_a_sentence_read_with_its_antecedent_is_still_cited():
    """A sentence that refers back ("So ...") is shown with the sentence before it only when the pair fits in one
    citation (FOCUS_SENTENCE_LINES lines, cited from its first line): a long antecedent wrapped at 48 columns over
    six lines made the citation stop before the picked sentence."""
    import textwrap

    from ragls.answer.extractive import extractive_picks
    from ragls.answer.focus import quoted_focus

    prev = ("The Courier object keeps every socket it has opened in a small pool that lives as long as the object, "
            "and it checks each one for a closed peer before it lends it out again, which costs one system call per "
            "checkout and nothing more on a healthy network link today.")
    picked = "So repeated calls to one host reuse the same socket instead of opening a new one."
    text = "# Courier\n\n" + textwrap.fill(f"{prev} {picked}", 48) + "\n\nLogs are rotated daily.\n"
    q = "How do I stop opening a new socket for every call to the same host?"
    sources, picks = quoted_focus([(1, hit(text))], extractive_picks(q, [(1, hit(text))], max_sentences=1), q)
    focus, lines = sources[0][1].focus, text.split("\n")
    cited = " ".join(lines[focus.start_line - 10:focus.end_line - 10 + 1])  # hit() starts the chunk at line 10
    assert "opening a new one" in cited and picks[0][1].sentence.startswith("So repeated calls"), (cited, picks)


def test_an_abbreviation_before_a_capital_does_not_end_the_sentence():
    """"e.g.", "i.e.", "cf." and "vs." before a capital or a digit end no sentence: tox's "... very old (e.g.
    Python 3.6) and very new (e.g. Python 3.15) interpreters, ..." was quoted from "Python 3.15) interpreters"."""
    text = ("When a project supports both very old (e.g. Python 3.6) and very new (e.g. Python 3.15)\n"
            "interpreters, no single release covers both. Pin one (i.e. VIRTUALENV_VERSION) for the old ones.\n")
    assert [u.sentence for u in units(text, markdown=False)] == [
        ("When a project supports both very old (e.g. Python 3.6) and very new (e.g. Python 3.15) interpreters, no "
         "single release covers both."), "Pin one (i.e. VIRTUALENV_VERSION) for the old ones."]


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


EXTENSION_PAGE = """---
title: Mask Errors
---

# `MaskErrors`

This extension hides error messages from the client to prevent exposing
sensitive details. By default it masks all errors raised in any field resolver.

## Usage example:

Add the extension to the schema's extensions.
"""


def test_a_sentence_referring_back_to_an_identifier_page_title_is_led_by_it():
    """A page titled by the identifier it documents ("# `MaskErrors`") says "This extension hides ..." and never
    names it again: that sentence is read led by the title's name, as a sentence right under a section's identifier
    heading is; the page's other sentences are not (a README titled by its package is not what each sentence
    documents)."""
    lines = body(extractive_answer("hide error messages from the client, mask errors in resolvers",
                                   [(1, hit(EXTENSION_PAGE))]))
    assert "- `MaskErrors`: This extension hides error messages from the client to prevent exposing sensitive " \
           "details [1]." in lines, lines
    assert not any("`MaskErrors`: By default" in line for line in lines), lines


def test_only_the_first_sentence_under_an_identifier_title_is_led_by_it():
    """"It blocks ..." after a sentence that named the extension, or "It helps ..." in a later paragraph, is not
    led by the page title's name: only the first sentence under the title refers back to it."""
    page = ("# `DisableIntrospection`\n\nThe `DisableIntrospection` extension disables introspection queries for "
            "the schema. It blocks fields such as `__schema` and `__type`.\n\nMore text here about the schema.\n\n"
            "It helps to keep introspection queries away from production schemas.\n")
    lines = body(extractive_answer("disable introspection queries blocks fields __schema __type production",
                                   [(1, hit(page))]))
    assert lines and not any("`DisableIntrospection`: It" in line for line in lines), lines


def test_a_link_whose_text_is_code_holding_a_bracket_reads_as_its_text():
    """The Helix book links its config tables as "[`[editor.lsp]`](./editor.md#editorlsp-section)": the link text
    is a code span holding "]", which ended the link text before, so the answer and the search preview (break50)
    showed the link as written."""
    text = ("The [`[editor.lsp]`](./editor.md#editorlsp-section) section of `config.toml` toggles the language server"
            " features, and [`[editor.soft-wrap]` Section](#editorsoft-wrap-section) wraps long lines.\n")
    [unit] = units(text, None)
    assert unit.sentence == ("The `[editor.lsp]` section of `config.toml` toggles the language server features, and "
                             "`[editor.soft-wrap]` Section wraps long lines."), unit.sentence


def test_a_link_target_in_angle_brackets_or_with_parentheses_reads_as_its_text():
    """CommonMark link targets may be written in angle brackets or hold balanced parentheses: Ruff's docs link
    "[`vim.lsp.config`](<https://neovim.io/doc/user/lsp.html#vim.lsp.config()>)", which the answer read to the
    first ")" and showed as "`vim.lsp.config`>)" (break51)."""
    text = ("The Ruff language server can be set up using [`vim.lsp.config`](<https://neovim.io/doc/user/lsp.html"
            "#vim.lsp.config()>) (Neovim 0.11+) or [Lisp](https://en.wikipedia.org/wiki/Lisp_(language)) (a joke).\n")
    [unit] = units(text, None)
    assert unit.sentence == ("The Ruff language server can be set up using `vim.lsp.config` (Neovim 0.11+) or Lisp "
                             "(a joke)."), unit.sentence


@pytest.mark.timeout(90)
@pytest.mark.parametrize("pattern", ["[widget ", "![widget ", "[a](widget ", "[`a]` ", "[`widget ", "[a](<w ",
                                     "[a](w(w "])
def test_a_chunk_of_open_brackets_reads_in_linear_time(pattern):
    """A folder's chunk of unclosed brackets ("[widget [widget ...", "[a](" without ")") is read in time linear in
    its length: each link pattern scanned to the chunk's end from every bracket (red team, session 49: 10 s for
    one 20,000-character chunk under load, on every answer that read it; 200,000 characters take minutes). The
    timeout is a hang guard, two orders of magnitude above the linear time."""
    text = pattern * (200_000 // len(pattern))
    [unit] = units(text, None)
    assert unit.text.endswith("…") and text.startswith(unit.text[:-1].rstrip())  # no link in it: as written, cut


@pytest.mark.timeout(60)
def test_a_heading_of_spaces_reads_in_linear_time():
    """A folder's heading holding a long run of spaces ("# a" + spaces + "b"; an HTML heading so, or its permalink
    anchor) is labelled and converted in linear time: the label's separators and the permalink glyph pattern were
    tried from every space of the run, quadratic (red team, session 49: 19 s and 22 s for 20,000 spaces under load).
    200,000 spaces here; the timeout is a hang guard."""
    from ragls.answer.labels import heading_label
    from ragls.sources.convert import html_to_markdown

    spaces = " " * 200_000
    assert heading_label(f"### HTTP_PROXY,{spaces}ALL_PROXY") == ""  # too long to be a list of names
    assert heading_label("### HTTP_PROXY, HTTPS_PROXY") == "`HTTP_PROXY`, `HTTPS_PROXY`"
    text, _ = html_to_markdown(f"<html><body><main><h2 id='x'>Retries{spaces}now ¶</h2>"
                               "<p>The client retries three times and then gives up.</p></main></body></html>")
    assert "three times" in text


INSET_TITLES = """#############
 Install pipx
#############

Get pipx onto your system and add its app directory to your ``PATH``.

**********************************
 Run an app without installing
**********************************

``pipx run`` executes an app in a temporary environment and cleans up after itself:

.. code-block:: console

    $ pipx run pycowsay moo

^^^^^^^^^^^^^^^^^^
  Uninstall all
^^^^^^^^^^^^^^^^^^

Record what you have first with ``pipx list --short`` if you plan to reinstall later.
"""


def test_an_overlined_title_set_in_from_its_adornment_is_no_definition_list():
    """A reST title may be inset from its overline and underline (docutils allows it; pipx's and Celery's docs
    write " Install pipx" between two rows of "#"): the overline is no definition list term with the title as its
    definition. pipx answered "**********************************: Run an app without installing ******..." and
    its search preview read "******: Uninstall all"."""
    cleaned = clean_markup(INSET_TITLES, markdown=False)
    assert cleaned.count("\n") == INSET_TITLES.count("\n")
    assert ":\n" not in cleaned.replace("itself:\n", "")  # no "****:" term line
    assert [u.text for u in units(INSET_TITLES, markdown=False)] == [
        "Get pipx onto your system and add its app directory to your `PATH`.",
        ("`pipx run` executes an app in a temporary environment and cleans up after itself:\n```\n"
        "$ pipx run pycowsay moo\n```"),
        "Record what you have first with `pipx list --short` if you plan to reinstall later."]


TILDE_TITLE = """Examples
~~~~~~~~

And here is the same function rewritten asynchronously as a native coroutine:

.. testcode::

   from tornado.httpclient import AsyncHTTPClient

   async def asynchronous_fetch(url):
       http_client = AsyncHTTPClient()
       response = await http_client.fetch(url)
       return response.body
"""


def test_a_title_underlined_with_tildes_opens_no_code_fence_in_rest():
    """In reST "~~~~~~~~" under a title is its underline (a common third-level style), not a Markdown tilde fence:
    Tornado's "asynchronous HTTP request" example, a `.. testcode::` block indented by 3 spaces under an
    "Examples / ~~~~~~~~" title, was answered as the run-on sentence "async def asynchronous_fetch(url):
    http_client = AsyncHTTPClient() response = ..." (the literal block was never indented to read as code)."""
    assert [u.text for u in units(TILDE_TITLE, markdown=False)] == [
        ("And here is the same function rewritten asynchronously as a native coroutine:\n```\n"
        "from tornado.httpclient import AsyncHTTPClient\n\nasync def asynchronous_fetch(url):\n"
        "    http_client = AsyncHTTPClient()\n    response = await http_client.fetch(url)\n"
        "    return response.body\n```")]
    # in Markdown a row of tildes is a fence: what it holds is code as written
    fenced = "Run these two lines in the shell first:\n\n~~~~~~~~\n  a = 1\n::\n   b\n~~~~~~~~\n"
    assert [u.text for u in units(fenced)] == [
        "Run these two lines in the shell first:\n~~~~~~~~\n  a = 1\n::\n   b\n~~~~~~~~"]


INDENTED_TITLES = """``tornado.web`` --- ``RequestHandler`` and ``Application`` classes
==================================================================

.. automodule:: tornado.web

   Request handlers
   ----------------
   .. autoclass:: RequestHandler(...)

   Entry points
   ^^^^^^^^^^^^

   Implement any of the following methods (collectively known as the
   HTTP verb methods) to handle the corresponding HTTP method.
"""


def test_a_title_inside_a_directive_is_no_text():
    """Sphinx reads section titles in an `.. automodule::` body (Tornado's API pages title their parts so, indented
    as the body is): the title and its underline are no sentence. Tornado answered "Request handlers
    ---------------- .. autoclass:: RequestHandler(...)" and "HTTP client interfaces ----------------------"."""
    assert [u.text for u in units(INDENTED_TITLES, markdown=False)] == [
        ("Implement any of the following methods (collectively known as the HTTP verb methods) to handle the "
        "corresponding HTTP method.")]


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


HIDDEN_REST = """Intro
=====

.. testsetup::

   from tornado.web import *
   import asyncio

pipx splits its files across three locations, each with an override of its own:

.. mermaid::

    flowchart TD
        H1["PIPX_HOME"]

.. code-block:: console

    $ pipx environment

.. only:: html

   The default home is the local share folder on Linux.
"""


def test_rest_directives_no_reader_sees_as_text_are_no_passages():
    """A `.. testsetup::` body (Tornado: "from tornado.web import * import asyncio" read as a sentence) and a
    `.. mermaid::` diagram's source (pipx: a 20-line flowchart quoted under its lead-in) are not shown as text or
    code, as in MyST; an `.. only:: html` body is the page's text."""
    assert [u.text for u in units(HIDDEN_REST, markdown=False)] == [
        "pipx splits its files across three locations, each with an override of its own:\n```\n$ pipx environment\n```",
        "The default home is the local share folder on Linux."]


def test_mkdocstrings_options_under_an_identifier_line_are_no_code():
    """mkdocstrings' `::: module.path` line with its YAML options indented under it is the generated reference's
    settings: the line was removed and its options read as an indented code block, which MkDocs' theme guide then
    quoted under its title ("AnchorLink:" / "options: show_root_heading: false ...")."""
    text = ("#### AnchorLink\n\n::: mkdocs.structure.toc.AnchorLink\n    options:\n        show_root_heading: false\n"
            "        heading_level: 5\n\n### Navigation Objects\n\nNavigation objects hold the pages of the site.\n")
    cleaned = clean_markup(text)
    assert cleaned.count("\n") == text.count("\n") and "options" not in cleaned and "heading_level" not in cleaned
    assert [u.text for u in units(text)] == ["Navigation objects hold the pages of the site."]
