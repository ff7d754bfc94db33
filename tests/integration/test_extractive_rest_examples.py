"""Extractive answers over a page that teaches reST itself (Sphinx's own docs, any extension's docs): the markup a
literal block shows ("... as in this example::", ".. code-block:: rst") is the example, quoted as written, never
read as the page's own markup; and reST footnote and citation references ("[#]_", "[1]_") and backslash escapes
("*PATTERN*\\s") are no text of the sentence. Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask`
without an LLM (answer/markup.py `clean_markup`, answer/rest.py `literal_lines`, answer/inline.py `link_text`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines, line_of

MARKUP = """Writing directives
==================

Basically, a directive consists of a name, arguments, options and content,
as in this example::

   .. function:: foo(x)
                 foo(y, z)
      :module: some.module.name

      Return a line of text input from the user.

``function`` is the directive name.  It is given two arguments here.

Cross-referencing functions
---------------------------

To cross-reference a function from any other page, write the func role with
the function's full name, as follows:

.. code-block:: rst
   :caption: docs/usage.rst

   The ``kind`` parameter should be ``"meat"``.  Otherwise,
   :py:func:`lumache.get_random_ingredients` will raise an exception.

   :param kind: Optional "kind" of ingredients.
   :type kind: list[str] or None

Including files
---------------

Longer displays of verbatim text may be stored in a separate file and included
with the ``literalinclude`` directive. [#]_  The ``gettext`` tool [1]_ extracts the
messages of a page, and any *EXCLUDE_PATTERN*\\s given are left out.

.. [#] There is a standard ``include`` directive too.
.. [1] See the GNU gettext manual.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("restexamples"), {"markup.rst": MARKUP}) as ws:
        yield ws


def _code_after(text: str, lead: str) -> list[str]:
    """The lines of the code block quoted right after the answer line holding `lead`."""
    lines = text.splitlines()
    at = next(k for k, line in enumerate(lines) if lead in line)
    assert lines[at + 1].strip() == "```", text
    end = next(k for k in range(at + 2, len(lines)) if lines[k].strip() == "```")
    return lines[at + 2:end]


def test_a_literal_block_of_markup_is_quoted_as_written(ws):
    """The example after "... as in this example::" is reST source: before, its ".. function::" line was read as
    an object description of the page itself (its line dropped, the rest dedented: "foo(y, z)" over ":module:"),
    so the answer showed a mangled example."""
    answer = ws.ask("What does a directive consist of?")
    code = [line.strip() for line in _code_after(answer.text, "as in this example")]
    assert code[:3] == [".. function:: foo(x)", "foo(y, z)", ":module: some.module.name"], answer.text


def test_a_code_block_of_markup_keeps_its_roles_and_fields(ws):
    """The `.. code-block:: rst` example shows the role to write: before, ":py:func:`lumache...`" was rendered as
    "`lumache.get_random_ingredients`" and ":param kind:" as a list item inside the example."""
    answer = ws.ask("How do I cross-reference a function from any other page?")
    code = "\n".join(_code_after(answer.text, "as follows"))
    assert ":py:func:`lumache.get_random_ingredients`" in code, answer.text
    assert ':param kind: Optional "kind" of ingredients.' in code, answer.text
    assert ":caption:" not in answer.text, answer.text


def test_footnote_references_and_escapes_are_no_text(ws):
    """"[#]_" and "[1]_" mark footnotes (docutils renders a superscript number), "\\s" is an escaped "s": before, the
    answer read "directive. [#]_" and "tool _ extracts" (the "[1]" dropped as a citation mark, its "_" left)."""
    answer = ws.ask("Which tool extracts the messages of a page?")
    assert "The `gettext` tool extracts the messages of a page, and any *EXCLUDE_PATTERN*s given are left out" \
        in answer.text, answer.text
    assert "[#]" not in answer.text and " _ " not in answer.text and "\\s" not in answer.text, answer.text


TOCTREE = """Table of contents
-----------------

.. rst:directive:: toctree

   This directive inserts a tree of links to the documents named in its body.

   .. rubric:: Options

   .. rst:directive:option:: numbered
                             numbered: depth

      If you want to have section numbers even in HTML output, give the
      toplevel toctree a ``numbered`` option.

   .. rst:directive:option:: glob

      All entries are matched against the list of available documents, and
      matches are inserted into the list alphabetically.

.. rst:role:: doc

   Link to the specified document; the document name can be specified in
   absolute or relative fashion.
"""


def test_the_options_of_a_documented_directive_are_prose(tmp_path):
    """Sphinx's reST domain documents directives, their options and roles (`.. rst:directive::`,
    `.. rst:directive:option::`, `.. rst:role::`, in Sphinx's docs and any extension's): an option's body, indented
    six spaces under its nested description, was read as an indented code block, and a question about it was
    answered with code or not at all. It is prose led by the option's name, as Sphinx shows it."""
    with extractive_workspace(tmp_path, {"toctree.rst": TOCTREE}) as ws:
        answer = ws.ask("How do I get section numbers even in HTML output?")
    assert "- `numbered`: If you want to have section numbers even in HTML output, give the toplevel toctree a " \
           "`numbered` option [1]." in answer.text, answer.text
    assert "```" not in answer.text, answer.text


NEWS = """Release notes
=============

-   :class:`CompressionMiddleware
    <pkg.middleware.compression.CompressionMiddleware>`
    now logs a warning when it drops a response for exceeding the size limit.

-   Documented :ref:`how
    to retry a failed media download
    <media-retry>` and how to set request headers for media requests.

-   Using network client APIs (:meth:`reactor.connectTCP()
    <twisted.internet.interfaces.IReactorTCP.connectTCP>`,
    :meth:`reactor.listenTCP()
    <twisted.internet.interfaces.IReactorTCP.listenTCP>`,
    :mod:`twisted.web.client` etc.) is not supported in callbacks.

-   The scheduler now keeps pending requests on disk between runs when a job
    directory is configured.
"""


def test_roles_wrapped_over_more_lines_than_words_keep_every_line(tmp_path):
    """A role alone on its two lines with one word of text (":class:`CompressionMiddleware" / "<...>`"), or a title
    wrapped inside a role over three lines, was read on fewer lines than written: every later line of the chunk
    moved up (Scrapy's release notes, five times), and a citation pointed above its sentence. The item still reads
    as one sentence."""
    with extractive_workspace(tmp_path, {"news.rst": NEWS}) as ws:
        hit = ws.retrieve("Does the scheduler keep pending requests on disk between runs?", top_k=1)[0]
        answer = ws.ask("What does the compression middleware log when it drops a response?")
        calls = ws.ask("Are network client APIs supported in callbacks?")
    assert file_lines(hit.focus)[0] == line_of(NEWS, "The scheduler now keeps"), file_lines(hit.focus)
    assert "`CompressionMiddleware` now logs a warning when it drops a response for exceeding the size limit" \
        in answer.text, answer.text
    assert "`reactor.listenTCP()`, `twisted.web.client` etc.) is not supported in callbacks" in calls.text, calls.text


ROLES = """Roles
-----

A role is an inline piece of explicit markup that says how its text is read.
The general syntax of a role is ``:rolename:`content```, and an inline
literal is written ````literal````.
"""


def test_a_role_written_in_an_inline_literal_is_its_example(tmp_path):
    """"``:rolename:`content```" shows how a role is written: before, the role inside the literal was rendered and
    the answer read "The general syntax of a role is ```content```"."""
    with extractive_workspace(tmp_path, {"roles.rst": ROLES}) as ws:
        answer = ws.ask("What is the general syntax of a role?")
    assert "The general syntax of a role is `` :rolename:`content` ``, and an inline literal is written " \
           "`` ``literal`` ``" in answer.text, answer.text
