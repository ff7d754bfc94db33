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

@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"codegen.md": CODEGEN, "backends.md": BACKEND}
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

