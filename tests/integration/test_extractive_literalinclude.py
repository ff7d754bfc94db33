"""Extractive answers over reST pages whose examples are `.. literalinclude::` files (Litestar's docs: 442 of them,
the code of nearly every how-to), with the real offline model and a real index (answer/includes.py)."""

from __future__ import annotations

from offline_index import extractive_workspace, file_lines, line_of

CACHING = """Caching
=======

Sometimes it's desirable to cache some responses, especially if these involve expensive calculations.
Sprocket comes with a simple mechanism for caching responses:

.. literalinclude:: /examples/caching/cache.py
    :language: python
    :lines: 1, 4-6

You can specify the number of seconds to cache the responses for the given handler like so:

.. literalinclude:: /examples/caching/cache.py
    :language: python
    :caption: Caching the response for 120 seconds by setting the
      cache parameter to the number of seconds.
    :lines: 1, 8-10

A response is stored under a key made of its path; provide a key builder to change it:

.. literalinclude:: ../examples/caching/key_builder.py
    :pyobject: key_builder
"""

CACHE_PY = """from sprocket import get


@get("/cached", cache=True)
async def cached_handler() -> str:
    return "cached"

@get("/cached-seconds", cache=120)
async def seconds_handler() -> str:
    return "cached for 120 seconds"
"""

KEY_BUILDER_PY = """import sprocket


def key_builder(request) -> str:
    return request.url.path + request.headers.get("accept", "")


app = sprocket.App(cache_key_builder=key_builder)
"""


def test_a_literalinclude_shows_the_included_files_code(tmp_path):
    """A ":" sentence over `.. literalinclude::` carries the code Sphinx shows there: the included file's lines as
    `:lines:` / `:pyobject:` cut them, its path from the source directory (the folder of conf.py) when it starts
    with "/", else from the page's folder; the citation stays on the page's own lines. Before, the index held only
    the directive and the sentence lost its code (a short lead-in was dropped, a longer one ended in "."), or, under
    a wrapped `:caption:`, showed the caption's second line and ":lines: 1, 8-10" as the code."""
    files = {"conf.py": "project = 'sprocket'\n", "usage/caching.rst": CACHING,
             "examples/caching/cache.py": CACHE_PY, "examples/caching/key_builder.py": KEY_BUILDER_PY}
    with extractive_workspace(tmp_path, files) as ws:
        answer = ws.ask("How do I cache the response of a handler for a number of seconds?")
        assert 'like so [1]:\n  ```python\n  from sprocket import get\n  @get("/cached-seconds", cache=120)\n' \
               '  async def seconds_handler() -> str:\n      return "cached for 120 seconds"\n  ```' in answer.text, answer.text
        assert ":lines:" not in answer.text and "cache parameter to the number" not in answer.text, answer.text
        hit = next(h for k, h in answer.sources if k == 1)
        assert hit.chunk.path == "usage/caching.rst"
        spans = [file_lines(s) for s in (hit.focus, *hit.more_focus)]
        assert any(a <= line_of(CACHING, "like so:") <= b for a, b in spans), spans
        answer = ws.ask("How do I provide a key builder to change the cache key?")
        assert "def key_builder(request) -> str:" in answer.text and "app = sprocket.App" not in answer.text, answer.text
        # an edited example shows as it is now
        (tmp_path / "docs" / "examples/caching/key_builder.py").write_text(KEY_BUILDER_PY.replace("accept", "x-tenant"))
        answer = ws.ask("How do I provide a key builder to change the cache key?")
        assert 'request.headers.get("x-tenant", "")' in answer.text, answer.text


DROPDOWN = """JWT Auth Backend
----------------

It sends the JWT token using a header and expects requests to send it under the same header key.

.. dropdown:: Click to see the code

    .. literalinclude:: /examples/jwt_auth.py
        :language: python
"""


def test_a_literalinclude_inside_a_dropdown_is_the_code_after_the_paragraph(tmp_path):
    """Litestar puts most examples in a `.. dropdown:: Click to see the code` (or a tab) right after the paragraph
    they illustrate: the include past those directive lines is that paragraph's code (`passages._included`)."""
    from ragls.answer.passages import units

    (tmp_path / "examples").mkdir()
    (tmp_path / "conf.py").write_text("project = 'sprocket'\n")
    (tmp_path / "examples/jwt_auth.py").write_text("jwt_auth = JWTAuth(token_secret='x')\n")
    found = units(DROPDOWN, markdown=False, source="jwt.rst", folder=str(tmp_path))
    sends = next(u for u in found if u.sentence.startswith("It sends the JWT token"))
    assert sends.code_after == "```python\njwt_auth = JWTAuth(token_secret='x')\n```", sends


def test_the_workspace_hands_its_indexes_filter_down(tmp_path):
    """What a page's literalinclude may show is the open index's decision (its `sources.exclude`), handed down by
    the workspace to the answer and to the hits' focus (`RagWorkspace.ask`'s `files`, `source.file_filters`):
    an example under an excluded folder is not shown, one beside it is. With the default settings (what
    answer/includes.py used without a filter handed down) the excluded example showed."""
    files = {"conf.py": "project = 'sprocket'\n", "usage/caching.rst": CACHING,
             "examples/caching/cache.py": CACHE_PY, "examples/caching/key_builder.py": KEY_BUILDER_PY}
    toml = '[sources]\nexclude = ["examples/caching/cache.py"]\n'
    with extractive_workspace(tmp_path, files, toml=toml) as ws:
        answer = ws.ask("How do I cache the response of a handler for a number of seconds?")
        assert "seconds_handler" not in answer.text and "from sprocket import get" not in answer.text, answer.text
        answer = ws.ask("How do I provide a key builder to change the cache key?")
        assert "def key_builder(request) -> str:" in answer.text, answer.text
