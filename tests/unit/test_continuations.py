"""Sentences that run on across a code block (answer/neighbours.py, `continues`, `read_with_neighbours`), without a
model: which lower-case paragraphs continue the sentence before the block, and a lead shown inside a joined passage
is not quoted again."""

from __future__ import annotations

from ragls.answer.neighbours import continues, read_with_neighbours
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan

DNS = """# DNS cache

By default the `Connector` caches DNS resolutions for `10` seconds. This behaviour can be changed to another TTL
for a resolution, as the following example shows:

```python
conn = Connector(ttl_dns_cache=300)
```

or disabling the use of the DNS cache table, so that every request resolves the host name again, as the following
example shows:

```python
conn = Connector(use_dns_cache=False)
```
"""

NAMES = """# Interpreters

Once an interpreter is installed, it is used by `quill` commands automatically. Quill also adds it to your `PATH`:

```console
$ python3.13
```

quill only installs a versioned executable by default, so the unversioned name keeps pointing at the system one.

Features move out of the experimental module in two steps:

```text
experimental -> main
```

b. At some point the code of the experimental feature is removed, but a stub keeps an error message.

- the default name, which is written as the feature's title and used for its page
"""


def _hit(text: str) -> Hit:
    return Hit(chunk=Chunk(id="a", path="dns.md", text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash="a"),
               score=1.0)


def _unit(text: str, opening: str):
    return next(u for u in units(text) if u.sentence.startswith(opening))


def test_a_lower_case_paragraph_after_a_block_continues_the_sentence_before_it():
    assert continues(_unit(DNS, "or disabling the use"), DNS)


def test_a_name_the_page_writes_as_code_an_enumerator_or_a_list_item_opens_no_continuation():
    """"quill only installs ..." opens with `quill`, a name; "b. At some point ..." is the second of a lettered
    list; a list item is a unit of its own."""
    assert not continues(_unit(NAMES, "quill only installs"), NAMES)
    assert not continues(_unit(NAMES, "b. At some point"), NAMES)
    assert not continues(_unit(NAMES, "the default name"), NAMES)


def test_a_lead_shown_inside_a_joined_passage_is_not_quoted_again():
    """"By default ..." is read with the next sentence, "This behaviour can be changed ...:", whose code names what
    the question asks (`ttl_dns_cache`); the picked continuation "or disabling ..." would bring that lead again
    before it (aiohttp's DNS cache answer quoted it twice before `neighbours._shown` compared lines)."""
    found = units(DNS)
    picked = [(1, _unit(DNS, "By default")), (1, _unit(DNS, "or disabling"))]
    out = read_with_neighbours(picked, {1: _hit(DNS)}, {"dns", "cache", "disable", "resolutions"})
    sentences = [u.sentence for _, u in out]
    assert sentences[0].startswith("By default") and "This behaviour can be changed" in sentences[0]
    assert sum(s.count("This behaviour can be changed") for s in sentences) == 1, sentences
    assert len(found) == 3
