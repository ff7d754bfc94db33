"""A hit on a Markdown chunk at file line 10 and the bullet lines of an extractive answer: the unit tests of
extractive answers without a model (answer/extractive.py, lexical ranking)."""

from __future__ import annotations

from ragls.answer.extractive_label import EXTRACTIVE_LABEL
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
