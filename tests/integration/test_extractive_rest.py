"""Extractive answers over reStructuredText (Sphinx) docs with the real offline model: the answer keeps the
identifier its source documents (issue 27; answer/rest.py, answer/passages.py)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, file_lines, line_of
from ragls.answer.ask import extractive_answer
from ragls.answer.extractive import extractive_picks, units
from ragls.answer.focus import quoted_focus
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def _answer(question: str, text: str, embedder) -> str:
    hit = Hit(chunk=Chunk(id="api.rst", path="api.rst", text=text, span=LineSpan(0, 0, text.count("\n"), 0),
                          text_hash="api.rst"), score=1.0)
    return extractive_answer(question, [(1, hit)], embed=embedder.embed_documents)


def _bullets(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


NESTED = """Mounting applications
---------------------

Sprocket keeps each part of a site in an application of its own. Build the
accounts part as its own application, then mount it on the main one under
a prefix by :meth:`Router.mount_child`::

   accounts = Router()
   accounts.route('/login', login)
   site.mount_child('/accounts/', accounts)

Hooks of the parent run before the hooks of the child.

* To serve static files of the child, register them with
  :func:`serve_static`::

     accounts.static('/assets', 'assets/')

  The assets of a child are served before those of its parent.
"""


def test_role_before_a_literal_block_keeps_its_identifier_and_the_code(embedder):
    """"... under a prefix by :meth:`Router.mount_child`::" and a literal block indented by 3 spaces (reST allows
    any indentation): the sentence names the method and carries the code, verbatim; the code is never read as
    a run-on sentence. The same in a list item."""
    answer = _answer("How do I mount an application under a prefix?", NESTED, embedder)
    lines = answer.splitlines()
    lead = next(k for k, line in enumerate(lines) if "mount it on the main one" in line)
    assert lines[lead].endswith("under a prefix by `Router.mount_child` [1]:"), answer
    assert "  site.mount_child('/accounts/', accounts)" in lines[lead + 1:lead + 6], answer
    assert not any("accounts = Router() accounts.route" in b for b in _bullets(answer))
    answer = _answer("How do I serve static files of a child application?", NESTED, embedder)
    lines = answer.splitlines()
    lead = next(k for k, line in enumerate(lines) if "register them with" in line)
    assert lines[lead].endswith("register them with `serve_static` [1]:"), answer
    assert "  accounts.static('/assets', 'assets/')" in lines[lead + 1:lead + 4], answer
    # the literal block ends where the item's text column resumes: that sentence is prose, not code
    code = answer.split("```")[1] if answer.count("```") >= 2 else ""
    assert "served before those of its parent" not in code, answer


FIELDS = """.. function:: fetch(url, *, pool=None, log_class=None)

   Fetch *url* through the shared connection pool.

   :param str url: the address to fetch.
   :type url: str
   :param pool: Connection pool to borrow from. Default:
                :data:`sprocket.default_pool`.
   :param log_class: Class that formats the request log lines.
                     Must be a subclass of :class:`sprocket.LogFormatter`.
   :type log_class: type
   :raises PoolClosed: when the pool was closed before the call.
   :returns: the response body as bytes.
   :rtype: bytes
"""


def test_field_list_reads_as_passages_labelled_by_the_parameter(embedder):
    """Sphinx field lists (":param log_class: text") are one passage per field, led by the parameter; ":type"
    lines are noise, and a field is never glued to the sentence before it."""
    answer = _answer("Which class formats the request log?", FIELDS, embedder)
    bullets = _bullets(answer)
    assert bullets[0].startswith("- `log_class`: Class that formats the request log lines."), answer
    assert all(":param" not in b and ":type" not in b and "log_class" not in b for b in bullets
               if b.startswith("- `pool`")), answer
    assert ":type" not in answer and ":rtype" not in answer and "\n  str\n" not in answer
    answer = _answer("What exception is raised when the pool was closed?", FIELDS, embedder)
    assert _bullets(answer)[0].startswith("- Raises `PoolClosed`: when the pool was closed"), answer


TABLES = """Certificate checks
------------------

The ``verify`` parameter takes one of these values:

+--------------+------------------------------------+
| ``verify``   | Meaning                            |
+==============+====================================+
| ``False``    | Skip certificate verification for  |
|              | this request only.                 |
+--------------+------------------------------------+
| ``True``     | Check against the system trust     |
|              | store.                             |
+--------------+------------------------------------+

.. list-table:: Limits
   :header-rows: 1

   * - Setting
     - Meaning
   * - ``max_redirects``
     - How many redirects are followed before giving up,
       ``10`` by default.

==============  ====================================
Setting         Meaning
==============  ====================================
``keep_alive``  Seconds an idle connection is kept
                open for reuse.
==============  ====================================
"""


def test_rest_table_rows_answer_whole_with_their_key(embedder):
    """Grid tables, list tables and simple tables: each row is one passage, whole (a cell wrapped over two
    lines included), with its first column; under a header naming the parameter (``verify``) a row is led by
    it — "`False`: Skip ..." alone does not say what to set."""
    answer = _answer("How do I skip certificate verification?", TABLES, embedder)
    assert "- `verify`: `False` | Skip certificate verification for this request only [1]." in _bullets(answer), \
        answer
    answer = _answer("How many redirects are followed?", TABLES, embedder)
    assert ("- `max_redirects` | How many redirects are followed before giving up, `10` by default [1]."
            in _bullets(answer)), answer
    answer = _answer("How long is an idle connection kept open?", TABLES, embedder)
    assert "- `keep_alive` | Seconds an idle connection is kept open for reuse [1]." in _bullets(answer), answer


def test_rest_table_row_wrapped_over_lines_cites_all_of_them(embedder):
    """A grid, list or simple table row wrapped over several source lines is one passage spanning all of them
    (rest_tables.ROW_CONTINUED): the citation (`quoted_focus`) covers the whole row, not only its first line."""
    lines = TABLES.split("\n")
    rows = {u.sentence.split(" |")[0]: (u.line, u.end) for u in units(TABLES, markdown=False) if " | " in u.sentence}
    wrapped = {"`verify`: `False`": "this request only.", "`verify`: `True`": "store.",
               "`max_redirects`": "``10`` by default.", "`keep_alive`": "open for reuse."}
    for key, tail in wrapped.items():
        first, last = rows[key]
        assert last > first and lines[last].rstrip(" |").endswith(tail), (key, rows[key], lines[first:last + 2])
    hit = Hit(chunk=Chunk(id="t.rst", path="t.rst", text=TABLES, span=LineSpan(0, 0, TABLES.count("\n"), 0),
                          text_hash="t.rst"), score=1.0)
    picked = extractive_picks("How do I skip certificate verification?", [(1, hit)],
                              embed=embedder.embed_documents)
    sources, picked = quoted_focus([(1, hit)], picked)
    focus = sources[0][1].focus
    assert focus.start_line <= rows["`verify`: `False`"][0] and focus.end_line >= rows["`verify`: `False`"][1], focus


OBJECTS = """.. class:: Server(handler, *, backlog=128)

   A low-level server for :class:`Handler` objects.

   .. attribute:: drain_timeout
      :type: float

      Seconds to wait for open requests on shutdown. Default is ``75.0``.

   .. method:: start(port)
      :async:

      Start listening on *port*.
"""


def test_nested_object_descriptions_keep_their_label_and_default(embedder):
    """An `.. attribute::` inside a `.. class::` is led by its own name, even under a `:type:` option, and a
    short "Default is ``75.0``." stays with the sentence it completes."""
    answer = _answer("How long does the server wait for open requests on shutdown?", OBJECTS, embedder)
    assert _bullets(answer)[0] == ("- `drain_timeout`: Seconds to wait for open requests on shutdown. "
                                   "Default is `75.0` [1]."), answer
    assert ":type" not in answer and ":async" not in answer


BODIES = """Client options
--------------

.. class:: Session(*, raise_errors=False)

   :param bool raise_errors:

      Automatically raise :exc:`StatusError` for every response with
      a 4xx or 5xx status, ``False`` by default.

   :param str agent: the ``User-Agent`` header sent with each request.

A server may send a wrong content type. This can be worked around in two ways:

1. Pass the expected type explicitly:

   ``await resp.json(content_type='custom/type')``.
2. Disable the check entirely:

   ``await resp.json(content_type=None)``.

Is there a switch to compress every response?

It's impossible. Choosing what to compress is a tricky matter for the
application to make, response by response.

.. py:data:: SESSION_REFRESH

    Whether the session cookie is sent again on every response.

    Default: ``True``
"""


def test_field_body_below_its_name_list_item_body_short_answers_and_own_defaults(embedder):
    """Four passages the reader used to drop (answer/rest.py `fields`, `admonitions`; answer/passages.py): a
    ":param bool raise_errors:" whose text is the indented paragraph below it is one passage led by the
    parameter; a list item ending in ":" carries the indented paragraph under it (reST and CommonMark read it as
    the item's own); a sentence shorter than MIN_WORDS ("It's impossible.") is read with the one after it, not
    lost; a "Default: ``True``" paragraph is read with the paragraph it completes (an object's, led by its name)."""
    answer = _answer("Which option raises an exception for every 4xx or 5xx response?", BODIES, embedder)
    assert "- `raise_errors`: Automatically raise `StatusError` for every response with a 4xx or 5xx status, " \
           "`False` by default [1]." in _bullets(answer), answer
    answer = _answer("How do I turn the content type check off?", BODIES, embedder)
    lines = answer.splitlines()
    lead = lines.index("- Disable the check entirely [1]:")
    assert lines[lead + 1] == "  `await resp.json(content_type=None)`.", answer
    answer = _answer("Can every response be compressed with one switch?", BODIES, embedder)
    assert "- It's impossible. Choosing what to compress is a tricky matter for the application to make, response " \
           "by response [1]." in _bullets(answer), answer
    answer = _answer("Is the session cookie sent again on every response by default?", BODIES, embedder)
    assert "- `SESSION_REFRESH`: Whether the session cookie is sent again on every response. Default: `True` [1]" \
        in _bullets(answer), answer


TABS = """*************************
 Environment variables
*************************

Each run starts from a clean environment: only the variables the runner passes on reach the commands.

Replacing PATH
==============

If you override ``PATH`` in the environment settings, include ``{env_bin_dir}`` in your custom value to keep
the virtual environment first:

.. tab:: TOML

    .. code-block:: toml

       [env_run_base]
       set_env.PATH = "{env_bin_dir}:/usr/local/bin"

.. tab:: INI

    .. code-block:: ini

       [testenv]
       set_env = PATH = {env_bin_dir}:/usr/local/bin

The runner never changes ``PATH`` of the shell it was started from.
"""


@pytest.fixture(scope="module")
def tabs_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("tabs"), {"env.rst": TABS}) as ws:
        yield ws


def test_a_code_block_inside_a_tab_comes_with_the_sentence_that_introduces_it(tabs_ws):
    """A ":" sentence before a sphinx-tabs / sphinx-inline-tabs `.. tab::` holding a `.. code-block::` (tox's
    docs): the answer quotes the first tab's code under it, cited at the sentence's lines; before, the tab's
    body was skipped as a directive and the answer quoted the lead-in alone, its ":" turned into "." (answer/rest.py
    `admonitions`, `_CONTAINER`). A reST title's overline is no sentence (answer/blocks.py)."""
    answer = tabs_ws.ask("How do I override PATH in the environment settings?")
    lines = answer.text.splitlines()
    lead = next(k for k, line in enumerate(lines) if "include `{env_bin_dir}` in your custom value" in line)
    assert lines[lead].endswith("to keep the virtual environment first [1]:"), answer.text
    assert lines[lead + 1:lead + 5] == ["  ```", "  [env_run_base]", '  set_env.PATH = "{env_bin_dir}:/usr/local/bin"',
                                        "  ```"], answer.text
    assert ".. tab::" not in answer.text and ".. code-block::" not in answer.text and "***" not in answer.text
    hit = next(h for n, h in answer.sources if n == 1)
    start, end = file_lines(hit.focus)
    assert start == line_of(TABS, "If you override") and end >= line_of(TABS, "the virtual environment first")


ROLE_TABLES = """Where am I running?
-------------------

+----------------------------------------------------------------+------------------------------+
| situation                                                      | :func:`sprocket.in_worker`   |
+================================================================+==============================+
| in a thread without an active call to :func:`sprocket.run`     | `False`                      |
+----------------------------------------------------------------+------------------------------+
| in a thread created by :func:`sprocket.to_thread.start`        | `True`                       |
+----------------------------------------------------------------+------------------------------+

=====================================  ======================================
Call                                   Effect
=====================================  ======================================
:meth:`sprocket.Pool.drain_all_now`    Blocks until every queued job is done.
=====================================  ======================================
"""


def test_rest_table_cells_with_roles_keep_their_columns(embedder):
    """Table columns are where the source's border puts them: a role in a cell (":func:`sprocket.run`", which reads
    shorter, "`sprocket.run`") does not shift the cells after it, so "`False`" is never cut into "`Fal | e`"."""
    answer = _answer("Am I in a worker when in a thread without an active call to sprocket.run?", ROLE_TABLES,
                     embedder)
    assert "- in a thread without an active call to `sprocket.run` | `False` [1]" in _bullets(answer), answer
    answer = _answer("Which call blocks until every queued job is done?", ROLE_TABLES, embedder)
    assert "- `sprocket.Pool.drain_all_now` | Blocks until every queued job is done [1]." in _bullets(answer), answer


TERMS = """Files
-----

.. glossary::

   pipe object
       An object with the API of a file object, whose methods that do
       I/O are async functions.

       Create one with :func:`sprocket.open_pipe`.

``buffer_size``
    How many bytes a pipe holds before a writer waits. The default is
    64 KiB.

A pipe is opened like this::

    def example():
        with open_pipe(path)
            pass

A pipe is closed like this:

.. code-block:: python

   pipe.close(
       flush=True)
"""


def test_rest_definition_lists_read_term_colon_definition(embedder):
    """A definition list item (a glossary's too) reads "term: definition", its later paragraphs as prose (not an
    indented code block); the lines of a literal block or a directive's body are never terms."""
    sentences = {u.sentence: u.line for u in units(TERMS, markdown=False)}
    lines = TERMS.split("\n")
    term = next(s for s in sentences if s.startswith("pipe object: An object with the API of a file object"))
    assert lines[sentences[term]].strip() == "pipe object", sentences
    assert "Create one with `sprocket.open_pipe`." in sentences, sentences
    answer = _answer("How many bytes does a pipe hold before a writer waits?", TERMS, embedder)
    assert _bullets(answer)[0].startswith("- `buffer_size`: How many bytes a pipe holds before a writer waits"), \
        answer
    answer = _answer("How is a pipe opened?", TERMS, embedder)
    assert "def example():\n      with open_pipe(path)\n" in answer and "example()::" not in answer, answer
    answer = _answer("How is a pipe closed?", TERMS, embedder)
    assert "pipe.close(\n      flush=True)" in answer, answer


# Falcon's FAQ (falconry/falcon ce0a35b, docs/user/faq.rst): the converter is named only as the target of a role
# with an explicit title, which Sphinx shows as "field converter", linked.
FIELD_CONVERTER = """How can I handle forward slashes within a route template field?
---------------------------------------------------------------

Falcon 4.0 shipped initial support for
:ref:`field converters <routing_field_converters>` that can match multiple
segments. The ``path`` :class:`field converter <falcon.routing.PathConverter>`
is capable of consuming multiple path segments when placed at the end of the
URL template.

In previous versions, you can work around the issue by implementing a Falcon
middleware component to rewrite the path before it is routed.
"""


def test_a_code_role_with_a_title_names_its_object(embedder):
    """`rest.rest_role`: an answer has no link to follow, so a titled code role names the object it links to;
    a text role (`:ref:`) reads as its title, and a title that ends in the object's name reads as written."""
    answer = _answer("My route is /files/{name} but names with slashes never match. How can one field capture "
                     "several segments?", FIELD_CONVERTER, embedder)
    assert "- The `path` `field converter` (`PathConverter`) is capable of consuming multiple path segments when " \
           "placed at the end of the URL template [1]." in answer, answer
    assert "support for field converters that can match" in " ".join(u.sentence for u in units(FIELD_CONVERTER,
                                                                                                 markdown=False))
    assert [u.sentence for u in units(":attr:`resp.text <falcon.Response.text>` is set to the body of the response.",
                                      markdown=False)] == ["`resp.text` is set to the body of the response."]


# Celery's task guide (celery/celery v5.7.0, docs/userguide/tasks.rst, `.. attribute:: Task.rate_limit`): a chunk
# that opens in the attribute's fourth paragraph, its directive line in the chunk before.
RATE_LIMIT_TAIL = """    Note that this is a *per worker instance* rate limit, and not a global
    rate limit. To enforce a global rate limit (e.g., for an API with a
    maximum number of  requests per second), you must restrict to a given
    queue.

    If a task is called with ``countdown`` or ``eta``, the ETA takes
    precedence: the task will not start before its ETA, and the rate
    limit is enforced afterwards, once the ETA has passed.

.. attribute:: Task.time_limit

    The hard time limit, in seconds, for this task.
    When not set the workers default is used.
"""


def test_a_chunk_opening_inside_a_directive_body_reads_it_as_prose(embedder):
    """`rest.opening_body`: the body's lines were read as an indented code block, and its sentences were no
    passages; a body that reads as code stays code."""
    answer = _answer("I put rate_limit='10/m' on a task, but with four workers running the API still gets about "
                     "forty calls a minute.", RATE_LIMIT_TAIL, embedder)
    assert "- Note that this is a *per worker instance* rate limit, and not a global rate limit [1]." in answer, answer
    found = {u.line: u.sentence for u in units(RATE_LIMIT_TAIL, markdown=False)}
    assert found[0] == "Note that this is a *per worker instance* rate limit, and not a global rate limit."
    code = "    app = Celery('tasks')\n    app.conf.task_default_rate_limit = '10/m'\n\nThe default applies to every task.\n"
    assert [u.sentence for u in units(code, markdown=False)] == ["The default applies to every task."]
