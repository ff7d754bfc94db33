"""Extractive answers over a MyST page that teaches MyST (myst-parser's own docs): a code fence showing role or
target syntax is the example as written, not markup of the page (answer/markup.py), and a ```` ```{literalinclude}
```` fence shows the included file's code as reST's `.. literalinclude::` does (answer/includes.py), with the same
folder-trust checks; attribute lists (MyST attrs_inline / attrs_block, mkdocs attr_list) are markup, never words.
Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.passages import units
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

MATH = """# Math shortcuts

For example, `$x_{hey}=it+is^{math}$` renders as inline math.
This is equivalent to writing the math role:

```md
{math}`x_{hey}=it+is^{math}`
```

To label a section so other pages can point at it, write a target line above its heading:

```md
(my-section)=
## My section
```
"""

CODE = """# Source code

(syntax/literalinclude)=
## Including code from files

Longer pieces of sample code can be shown from their own files with the literalinclude directive:

```{literalinclude} examples/sampler.py
:start-after: start example
:end-before: end example
```

The secret settings of the deployment are shown in full as well:

```{literalinclude} ../.env
```
"""

ATTRS = """# Front matter

The `pebble_title_to_header = True`{l=python} setting turns the title key of the front matter into the page heading.

{.glossary}
hostname processor
: Adds the name of the machine to every event.

- Events carry their level
- and their timestamp.
{ .annotate }
"""

SAMPLER = '''"""Samples."""
# start example
def keep_one_in(n):
    """Keep one event in every n."""
    return n
# end example
'''


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"syntax/math.md": MATH, "syntax/code.md": CODE, "syntax/attrs.md": ATTRS,
             "syntax/examples/sampler.py": SAMPLER, ".env": "API_TOKEN=sk-live-0123456789abcdef0123456789\n"}
    with extractive_workspace(tmp_path_factory.mktemp("mystex"), files) as ws:
        yield ws


def test_a_role_in_a_code_fence_is_shown_as_written(ws):
    """"```md" / "{math}`x_{hey}=it+is^{math}`": the example is the role's syntax; read as a role it lost its
    "{math}" and the answer showed "`x_{hey}=it+is^{math}`", the inline-code the page contrasts it with."""
    answer = ws.ask("What is inline dollar math equivalent to writing?").text
    assert "{math}`x_{hey}=it+is^{math}`" in answer, answer


def test_a_target_line_in_a_code_fence_is_shown_as_written():
    """A MyST target line "(my-section)=" inside a code fence is the example, not a target of the page."""
    code = [u.attached for u in units(MATH) if "## My section" in u.attached]
    assert code and "(my-section)=\n## My section" in code[0], code


def test_a_myst_literalinclude_shows_the_included_code(ws):
    """```` ```{literalinclude} examples/sampler.py ```` with `:start-after:` / `:end-before:`: the answer shows the
    function between the markers (as `.. literalinclude::` in reST), not an empty fence named for the path."""
    answer = ws.ask("How are longer pieces of sample code shown from their own files?").text
    assert "def keep_one_in(n):" in answer, answer
    assert "start example" not in answer and "examples/sampler.py" not in answer.split("Sources:")[0], answer


def test_a_myst_literalinclude_outside_the_tree_or_of_a_secret_file_shows_nothing(ws):
    """"../.env" from syntax/ is inside the folder but a secret file: nothing is read (walk.secret_file)."""
    answer = ws.ask("Are the secret settings of the deployment shown?").text
    assert "sk-live" not in answer and "API_TOKEN" not in answer, answer


def test_attribute_lists_are_no_words(ws):
    """"`...`{l=python}" (an inline code's language), "{.glossary}" above a definition list and "{ .annotate }"
    under a list are settings of the element next to them: the answer shows none of them."""
    answer = ws.ask("Which setting turns the title key of the front matter into the page heading?").text
    assert "`pebble_title_to_header = True` setting" in answer and "{l=python}" not in answer, answer
    found = [u.sentence for u in units(ATTRS)]
    assert "hostname processor: Adds the name of the machine to every event." in found, found
    assert not any("{" in x for x in found), found
