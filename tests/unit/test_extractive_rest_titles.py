"""Extractive answers read reST titles and hidden directives as no text (answer/extractive.py `units`),
without a model: titles inset from their adornment, underlined with tildes or inside a directive's body, and
directive bodies no reader sees."""

from __future__ import annotations

from ragls.answer.extractive import clean_markup, units

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
