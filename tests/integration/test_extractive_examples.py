"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): a short code example right after
the paragraph's last sentence comes with that sentence (`neighbours.with_code_after`, EXAMPLE_LINES), and four short
passages leave room for a fifth (`extractive.extractive_picks`, SHORT_ANSWER_CHARS)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.extractive import EXAMPLE_LINES, EXTRACTIVE_MAX_SENTENCES, SHORT_ANSWER_CHARS

GUARDS = """# Guarding views

Pages can be limited to people who have signed in. Visitors who are not signed in get a 403 page instead of the
view.

The guard is an endpoint decorator that checks the caller's scopes before the view runs.

```python
@guarded("member")
async def dashboard(request):
    ...
```

A guard never touches the session store; it reads the scopes the login step put on the request.
"""

EXPORTS = """# Exporting reports

Reports can be exported as spreadsheets. The exporter writes one sheet per section and names each sheet after its
section heading.

The exporter runs as a background job that streams rows to the file as they are produced.

```python
book = Workbook(title)
for part in parts:
    page = book.add_page(part.heading)
    for row in part.rows:
        page.append(row)
book.compression = "deflate"
book.batch = 500
book.on_progress = print
book.save(target)
book.close()
```

Large reports take a few minutes; the job keeps running when the browser tab is closed.
"""

RANGES = """# Partial downloads

Archive downloads support range requests from any client. A range request with a `Range` header gets the requested
bytes of the archive back. The `Accept-Ranges` header is sent with every archive download that exists. Only the
`bytes` unit is understood in a range request for an archive. A range request can be combined with compression of
the archive download. A range past the end of the archive download gets a `416` status back.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"guards.md": GUARDS, "exports.md": EXPORTS, "ranges.md": RANGES}
    with extractive_workspace(tmp_path_factory.mktemp("examples"), files) as w:
        yield w


def test_a_short_example_after_the_answering_sentence_is_shown_whatever_it_names(ws):
    """`@guarded("member")` names nothing the question's words point at ("guard a view", "signed-in visitors"),
    so before EXAMPLE_LINES the answer quoted "The guard is an endpoint decorator ..." without the line to write."""
    lines = ws.ask("How do I guard a view so that only signed-in visitors can open it?").text.splitlines()
    at = lines.index("- The guard is an endpoint decorator that checks the caller's scopes before the view runs [1].")
    assert lines[at + 1:at + 6] == ["  ```python", '  @guarded("member")', "  async def dashboard(request):",
                                    "      ...", "  ```"]


def test_a_longer_block_naming_nothing_asked_is_not_shown(ws):
    """The 11-line program after "The exporter runs as a background job ..." is longer than EXAMPLE_LINES and names
    nothing the question points at: the sentence stands alone."""
    assert EXAMPLE_LINES < 11
    text = ws.ask("How does the exporter write the file?").text
    assert "- The exporter runs as a background job that streams rows to the file as they are produced [1]." in text
    assert "Workbook(" not in text


def test_four_short_passages_leave_room_for_a_fifth(ws):
    """Five sentences on range requests, each under 100 characters: the four best total less than
    SHORT_ANSWER_CHARS, so the fifth, the one naming the `416` status, is quoted too (main quoted four)."""
    bullets = [line for line in ws.ask("How do range requests of archive downloads work?").text.splitlines()
               if line.startswith("- ")]
    assert len(bullets) == EXTRACTIVE_MAX_SENTENCES + 1, bullets
    assert sum(len(b) for b in bullets[:EXTRACTIVE_MAX_SENTENCES]) < SHORT_ANSWER_CHARS
    assert "- A range past the end of the archive download gets a `416` status back [1]." in bullets


# A sentence announcing the example after it without a ":" ("In the following example, ..."), over a block longer
# than EXAMPLE_LINES that names nothing the question asks.
ANNOUNCED = """# Rewriting headers

In the following example, requests are sent on with an extra tracing header while
responses lose the header that names the server software.

```yaml
http:
  middlewares:
    cleanup:
      headers:
        customRequestHeaders:
          X-Trace: "on"
        customResponseHeaders:
          X-Powered-By: ""
          Server: ""
```
"""


def test_an_example_the_sentence_announces_is_shown_with_it():
    """"In the following example, ..." says the block after it shows what it states: the block comes with it in an
    answer whatever its length (`with_code_after`), as a ":" sentence's does; the focus (no example_lines) does
    not take it."""
    from ragls.answer.neighbours import with_code_after
    from ragls.answer.passages import units

    unit = next(u for u in units(ANNOUNCED) if u.sentence.startswith("In the following example"))
    assert unit.code_after.count("\n") + 1 > EXAMPLE_LINES
    shown = with_code_after(unit, {"strip", "respons", "head"}, EXAMPLE_LINES)
    assert "customResponseHeaders" in shown.attached
    assert with_code_after(unit, {"strip", "respons", "head"}).attached == ""
