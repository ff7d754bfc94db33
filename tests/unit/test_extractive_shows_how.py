"""Extractive answers: a quoted sentence is read with the last sentence of its paragraph when that one introduces the
code block under the paragraph (`neighbours.shows_how`): "The preview hostname defaults to `localhost`, and the port
defaults to `4000`." / "Either option can be given on the command line:" / `sitegen preview ... --port 8080`. The
first sentence says what can be changed, the block shows how; quoted alone it leaves out the option the user needs."""

from __future__ import annotations

from ragls.answer.neighbours import read_with_neighbours
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan

SERVE = """# Previewing a site

The `preview` command builds the site and serves it over HTTP, rebuilding it whenever a source file changes.

## Server options

The preview hostname defaults to `localhost`, and the port defaults to `4000`. Either option can be given on the
command line:

```bash
sitegen preview path/to/site --port 8080 --host 127.0.0.1
```

## Opening a browser

When you pass `--open`, sitegen opens the site in your default web browser after the server has started.

## Drafts

Pages marked as drafts are left out of the preview. They are built only when the `--drafts` flag is given. The
build then shows a banner on each draft page so that nobody mistakes it for a published one. Drafts are never
copied to the output folder of a release build.

```bash
sitegen preview --drafts
sitegen build
sitegen build --release
sitegen check
```
"""


def _hit(text: str) -> Hit:
    return Hit(chunk=Chunk(id="a", path="serve.md", text=text, span=LineSpan(0, 0, text.count("\n"), 0),
                           text_hash="a"), score=1.0)


def test_the_lead_in_with_its_block_comes_with_the_quoted_sentence():
    """The sentence holding the block only as the code after it (not the paragraph's last sentence: that code is
    not shown with it) is read with the lead-in that carries the block (`read_with_neighbours` on the page's
    chunk, as parsed by `passages.units`)."""
    found = units(SERVE)
    port = next(u for u in found if u.sentence.startswith("The preview hostname defaults"))
    out = read_with_neighbours([(1, port)], {1: _hit(SERVE)}, {"port", "serve", "preview", "another"})
    assert len(out) == 1
    assert out[0][1].sentence.startswith("The preview hostname defaults to `localhost`, and the port defaults to "
                                         "`4000`. Either option can be given on the command line:")
    assert "--port 8080" in out[0][1].attached
    assert out[0][1].line == port.line


def test_only_a_lead_in_carrying_the_paragraphs_short_block():
    """`shows_how` reads a ":" lead-in carrying the block the sentence before holds as its code after; not the
    sentence after a paragraph's first one when it introduces nothing."""
    from ragls.answer.neighbours import shows_how

    found = units(SERVE)
    port = next(u for u in found if u.sentence.startswith("The preview hostname defaults"))
    lead = next(u for u in found if u.sentence.startswith("Either option"))
    assert port.code_after and not port.attached and lead.attached == port.code_after
    assert shows_how(port, lead, {"port", "serve", "preview", "another"})
    drafts = next(u for u in found if u.sentence.startswith("Pages marked as drafts"))
    assert not shows_how(drafts, found[found.index(drafts) + 1], {"draft", "preview"})
