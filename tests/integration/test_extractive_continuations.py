"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): a sentence that runs on across a
code block ("... the following schema file:" / the schema / "by running the following command:" / the command) is
quoted whole: a picked lead with the paragraph continuing it, a picked continuation with the ":" lead and short block
before it (`neighbours.continues`, `neighbours.read_with_neighbours`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

CODEGEN = """# Code generation

Quill supports code generation from schema files. Let's assume we have the following schema file:

```graphql
type Query {
  user: User
}

type User {
  id: ID!
  name: String!
}
```

by running the following command:

```shell
quill schema-codegen schema.graphql
```

we'll get the following output:

```python
import quill


@quill.type
class Query:
    user: User | None


@quill.type
class User:
    id: quill.ID
    name: str
```
"""

BACKEND = """# Build backends

Some projects need to inspect the user's machine before deciding their build requirements. One way of doing that is
an in-tree backend that wraps the default one.

If you put the following configuration in your `pyproject.toml`:

```toml
[build-system]
requires = ["packer"]
build-backend = "backend"
backend-path = ["_custom_build"]
```

then you can implement a thin wrapper around `build_meta` in the `_custom_build/backend.py` file, as shown in the
following example:

```python
from packer import build_meta as _orig
from packer.build_meta import *


def get_requires_for_build_wheel(config_settings=None):
    return _orig.get_requires_for_build_wheel(config_settings) + [...]


def get_requires_for_build_sdist(config_settings=None):
    return _orig.get_requires_for_build_sdist(config_settings) + [...]
```
"""
WORKERS = """# Worker kinds

## Evented worker

Quill ships an evented worker for asyncio applications, so no third-party server is needed to run them.

### Choosing it

Set the worker kind to `evented`:

```bash
quill serve app:main --worker-kind evented
```

Or in a settings file:

```python
# quill_settings.py
worker_kind = "evented"
```
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"codegen.md": CODEGEN, "backends.md": BACKEND, "workers.md": WORKERS}
    with extractive_workspace(tmp_path_factory.mktemp("continuations"), files) as w:
        yield w


def test_a_picked_lead_is_quoted_with_the_paragraph_continuing_it(ws):
    """"Let's assume we have the following schema file:" is picked with its schema; the command the question asks
    for is under "by running the following command:", which continues that sentence across the schema (main
    quoted the lead and its schema only)."""
    lines = ws.ask("I already have my API written as a schema file. Can Quill generate the Python classes from it?"
                   ).text.splitlines()
    at = lines.index("- by running the following command [1]:")
    assert lines[at + 1:at + 4] == ["  ```shell", "  quill schema-codegen schema.graphql", "  ```"]
    assert not any(x.startswith("- we'll get the following output") for x in lines)  # a program's output: not shown


def test_a_picked_continuation_is_quoted_after_its_lead_and_the_lead_s_block(ws):
    """"then you can implement a thin wrapper ..." answers the question, but `backend-path` is in the
    configuration its lead, "If you put the following configuration in your `pyproject.toml`:", shows (main quoted
    the continuation alone)."""
    text = ws.ask("How can I wrap build_meta in my own small build backend module that lives inside the repository?"
                  ).text
    lead = text.index("- If you put the following configuration in your `pyproject.toml` [1]:")
    assert lead < text.index('  backend-path = ["_custom_build"]') < text.index("- then you can implement a thin wrapper")
    assert text.count("If you put the following configuration") == 1



def test_a_picked_alternative_is_quoted_after_the_way_it_is_the_alternative_of(ws):
    """"Or in a settings file:" is one of two ways; read first, it is the other way of nothing yet: the way it
    continues, the command line with `--worker-kind evented`, comes before it (`neighbours.alternative`; main
    quoted "Or in a settings file:" first, the command line after it)."""
    text = ws.ask("How do I put the worker choice in quill_settings.py instead of the command line?").text
    assert "- Or in a settings file [1]:" in text
    lead = text.index("- Set the worker kind to `evented` [1]:")
    assert lead < text.index("  quill serve app:main --worker-kind evented") < text.index("- Or in a settings file")
    assert text.count("Set the worker kind") == 1


def test_alternative_reads_an_or_opener_only():
    """`alternative`: a passage opening with "Or" (after its heading's label) that introduces a block, not a list
    item, not "Or not"."""
    from ragls.answer.neighbours import alternative
    from ragls.answer.passages import units

    found = {u.sentence: u for u in units(WORKERS)}
    assert alternative(found["Or in a settings file:"])
    assert not alternative(found["Set the worker kind to `evented`:"])
    assert not any(alternative(u) for u in units("- Or in a settings file, which is read at start-up.\n"
                                                  "- Or on the command line, which wins.\n"))
    assert not any(alternative(u) for u in units("Or not at all, if the default suits you.\n"))
    assert not any(alternative(u) for u in units(  # says what its example does: not only where it is
        "Or this example, which retries twice.\n\n```python\nclient = Client(retries=2)\n```\n"))
