"""Key (issue 27) with the real offline model: a chunk that opens inside a list table's body reads its rows as rows,
a camelCase heading leads the passages under it, a sentence broken off by the code block it names comes with it,
a footnote mark inside a code span is code and an HTML character reference reads as its character
(answer/rest_tables.py, answer/labels.py, answer/passages.py, answer/inline.py)."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.extractive import units
from ragls.answer.inline import plain
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def _answer(question: str, path: str, text: str, embedder) -> str:
    hit = Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
              score=1.0)
    return extractive_answer(question, [(1, hit)], embed=embedder.embed_documents)


# The second chunk of a Bash-to-xonsh page: its `.. list-table::` line and header row are in the chunk before, and
# the chunk opens on the last lines of a row's third cell.
LIST_TABLE_TAIL = """\
        ``$XONSH_SUBPROC_CMD_RAISE_ERROR = True`` to additionally raise on
        *every* failing individual command.
    * - ``set -x``
      - ``trace on`` and ``$XONSH_SUBPROC_TRACE = True``
      - Turns on tracing of source code lines during execution.
    * - ``$$``
      - ``os.getpid()``
      - Get PID of the current shell.
    * - ``$?``
      - ``@.lastcmd.rtn``
      - Returns the exit code, or status, of the previous command.
        To get the exit code of the command in xonsh script
        use ``!().rtn`` for not interactive processes.
    * - ``$@``
      - ``$ARGS``
      - List of all command line argument and parameter strings.

Functions
=========

Use ``def`` to define a function the way Python does.
"""


def test_a_chunk_opening_inside_a_list_table_reads_its_rows(embedder):
    """`rest_tables.opening_list_table`: the rows were read as prose (`rest.opening_body`) and a row's first two
    cells, the bash form and the xonsh one, were lost."""
    rows = {u.line: u.sentence for u in units(LIST_TABLE_TAIL, markdown=False)}
    assert rows[8] == ("`$?` | `@.lastcmd.rtn` | Returns the exit code, or status, of the previous command. To get "
                       "the exit code of the command in xonsh script use `!().rtn` for not interactive processes."), rows
    assert rows[2] == "`set -x` | `trace on` and `$XONSH_SUBPROC_TRACE = True` | Turns on tracing of source code " \
                      "lines during execution.", rows
    answer = _answer("How do I get the exit status of the previous command in xonsh, like $? in bash?",
                     "bash_to_xsh.rst", LIST_TABLE_TAIL, embedder)
    assert "@.lastcmd.rtn" in answer, answer
    # an indented run of one row is no table: left as it was
    one = "      - on_dns_cache_hit\n    * - cache_miss\n      - on_dns_cache_miss\n\nClasses\n-------\n"
    assert not any("|" in u.sentence for u in units(one, markdown=False))


OPTIONS = """\
## customLogger

- **Type:** `Logger`

Use a custom logger to log messages. You can use the `createLogger` API to get the default logger and customize it.

## clearScreen

- **Type:** `boolean`
- **Default:** `true`

Set to `false` to prevent Vite from clearing the terminal screen when logging certain messages.

## envDir

- **Type:** `string | false`
- **Default:** `root`

The directory from which `.env` files are loaded. Can be an absolute path, or a path relative to the project root.
"""


def test_a_camel_case_heading_leads_the_passages_under_it(embedder):
    """`labels.heading_label`: "## clearScreen" names a configuration option, as "## build.sourcemap" does; the
    sentence under it never repeats the name."""
    answer = _answer("Vite keeps wiping my terminal when it logs, so I lose the output of other processes. Can I "
                     "stop that?", "shared-options.md", OPTIONS, embedder)
    assert "- `clearScreen`: Set to `false` to prevent Vite from clearing the terminal screen" in answer, answer


COMPLETION = """\
Selecting a tab completion result
=================================

In the ``prompt_toolkit`` shell, you can cycle through possible
tab-completion results using the TAB key and use ENTER to select the
completion you want. By default, ENTER will also execute the current
line. If you would prefer to not automatically execute the line (say,
if you're constructing a long pathname), you can set

.. code-block:: xonshcon

   $COMPLETIONS_CONFIRM = True

in your :doc:`xonsh RC <xonshrc>`.
"""


def test_a_sentence_broken_off_by_its_code_block_comes_with_it(embedder):
    """`program_output.broken_off`: "..., you can set" / `$COMPLETIONS_CONFIRM = True` / "in your xonsh RC." — the
    block is the object of the sentence's verb, as after a ":"; the block was shown with no passage."""
    found = {u.line: u for u in units(COMPLETION, markdown=False)}
    assert found[6].attached == "```\n$COMPLETIONS_CONFIRM = True\n```", found
    assert "in your xonsh RC." not in [u.sentence for u in found.values()]  # the end of that sentence, no passage
    answer = _answer("I am constructing a long pathname with tab completion; how do I keep ENTER from executing the "
                     "line?", "completers.rst", COMPLETION, embedder)
    assert "you can set [1]\n  ```\n  $COMPLETIONS_CONFIRM = True\n  ```" in answer, answer


def test_a_footnote_mark_inside_a_code_span_is_code():
    """`inline.link_text`: "[^:]" in a regular expression read as a footnote mark and was dropped."""
    text = r"**Default:** `{ origin: /^https?:\/\/(?:(?:[^:]+\.)?localhost)$/ }` (allows localhost)[^cors]"
    assert plain(text) == r"**Default:** `{ origin: /^https?:\/\/(?:(?:[^:]+\.)?localhost)$/ }` (allows localhost)"


# benoitc/gunicorn 65ac1a3, docs/content/signals.md ("Master process"): HTML character references in Markdown prose
SIGNALS = """## Master process

- `QUIT`, `INT` &mdash; quick shutdown.
- `TERM` &mdash; graceful shutdown; waits for workers to finish requests.
- `TTIN` &mdash; increase worker count by one.
- `TTOU` &mdash; decrease worker count by one.
"""


def test_an_html_character_reference_reads_as_its_character(embedder):
    """Markdown shows "&mdash;" as "—" (CommonMark 6.2): the answer did not (`inline._character`)."""
    answer = _answer("Which signal adds one more worker?", "signals.md", SIGNALS, embedder)
    assert "- `TTIN` — increase worker count by one [1]." in answer.splitlines(), answer
    assert "&mdash;" not in answer


def test_character_references_outside_code_only_and_never_markup():
    assert plain("a&nbsp;b &#8594; c &#x2014; d") == "a b → c — d"
    assert plain("`x &mdash; y` &lt;div&gt; AT&T &bogus;") == "`x &mdash; y` &lt;div&gt; AT&T &bogus;"
    assert plain("`TTIN` &mdash; increase", markdown=False) == "`TTIN` &mdash; increase"  # reST shows it as written
