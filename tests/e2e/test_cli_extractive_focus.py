"""`ragls ask` without an LLM: each source's printed lines hold the passage the extractive answer quotes from it.

The focus (`retrieval/focus.py`) is the passage that scores best by shared words; the extractive answer ranks by
meaning when a model is loaded, so it can quote another sentence of the same chunk. Found trying ragls on Click's
docs: "[2] utils.md:321-322" cited for a sentence on line 336. A source quoted more than once prints the lines of all
its passages when they fit in `focus.MAX_FOCUS_LINES`, else those of its best one (its first bullet).
"""

from __future__ import annotations

import re

from clikit import ragls
from lspkit import server_env

DOC = """# Utilities

## Showing Progress Bars

Some command line scripts have to process a lot of data, and you want to quickly show the user some
progress about how long that will take. The library supports simple progress bar rendering for that through the
`progressbar` function.

The basic usage is very simple: the idea is that you have an iterable that you want to operate on. For each item in
the iterable it might take some time to do processing. So say you have a loop like this:

```python
for user in all_the_users_to_process:
    modify_the_user(user)
```

To hook this up with an automatically updating progress bar, all you need to do is to change the code to this:

```python
with progressbar(all_the_users_to_process) as bar:
    for user in bar:
        modify_the_user(user)
```

The bar then updates itself as the loop advances and estimates the remaining time.
"""


def test_cited_lines_hold_the_quoted_sentence(tmp_path):
    ws = tmp_path / "docs"
    ws.mkdir()
    (ws / "utils.md").write_text(DOC)
    lines = DOC.splitlines()
    out = ragls(server_env(tmp_path / "cache"), "ask", ws, "How do I show a progress bar while processing items?").stdout
    ranges = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
              for m in re.finditer(r"^\[(\d+)\] .*?utils\.md:(\d+)-(\d+)", out, re.MULTILINE)}
    bullets = re.findall(r"^- (.+?) \[(\d+)\]", out, re.MULTILINE)
    assert bullets and ranges, out
    firsts = {n: sentence for sentence, n in reversed(bullets)}  # the best passage quoted from each source
    assert len(firsts) == len(ranges), out
    for n, sentence in firsts.items():
        start, end = ranges[int(n)]
        cited = " ".join(" ".join(lines[start - 1:end]).split())
        head = " ".join(sentence.split())[:40]
        assert head in cited, f"[{n}] {start}-{end} does not hold {sentence!r}:\n{out}"
