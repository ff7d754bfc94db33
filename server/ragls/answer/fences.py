"""Code fences as an answer shows them: an opening fence with its language only, the rest of its info string (a file
title, line highlights, a tool's attributes) left out (`fence_line`, `shown_fences`). Display only: what a passage is
scored on keeps the info string (answer/passages.py)."""

from __future__ import annotations

import re

from ragls.answer.blocks import FENCE_OPEN

__all__ = ["fence_line", "shown_fences"]

# An opening fence's info string: its language, then what the page's tools read ("```python title="main.py"",
# "```js twoslash [vite.config.js]", "```console exec="1" source="console"", "```rust,ignore"), or attributes
# only ("``` { .yaml .no-copy }")
_FENCE_INFO = re.compile(r"^(\s*(?:`{3,}|~{3,}))\s*(?:\{\s*\.)?([\w+#-]*)(.*)$")


def fence_line(line: str) -> str:
    """An opening code fence line as an answer shows it: the fence and the block's language only ("```python"),
    without the rest of its info string — a file title (`title="main.py"`, VitePress' `[vite.config.js]`), line
    highlights (`hl_lines="2 3"`, `{12}`), a tool's attributes (markdown-exec's `exec="1" source="console"`,
    Pydantic's `{test="skip"}`, mdBook's `,ignore`). CommonMark reads the info string's first word as the language
    and renders none of the rest, which in an answer's plain text reads as noise; an attribute list opening with a
    class (`{ .yaml .no-copy }`) names the language by it. `line` as it is when it opens no fence or is a MyST
    directive's (```` ```{code-block} python ````)."""
    m = _FENCE_INFO.match(line)
    if not m or not m.group(3).strip() or not (m.group(2) or m.group(3).lstrip().startswith("[")):
        return line  # no info beyond the language, or a MyST directive ("```{code-block} python")
    return m.group(1) + m.group(2)


def shown_fences(block: str) -> str:
    """`block` (a passage's list or code block, `Unit.attached`) as an answer shows it: each opening code fence with
    its language only (`fence_line`); the lines inside a fence as written. Display only — the info string's words
    stay in what a passage is scored on (Hatch's ```` ```toml tab="config.toml" ```` names the file a question asks
    about)."""
    if "`" not in block and "~" not in block:
        return block
    lines = block.split("\n")
    fence = ""
    for k, line in enumerate(lines):
        m = FENCE_OPEN.match(line)
        if m is None:
            continue
        mark = re.match(r"\s*(`{3,}|~{3,})", line).group(1)
        if not fence:
            fence = mark
            lines[k] = fence_line(line)
        elif mark.startswith(fence) and not line.strip()[len(mark):].strip():
            fence = ""
    return "\n".join(lines)
