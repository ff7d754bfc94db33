"""`ragls ask` without an LLM: each source's printed lines hold the passage the extractive answer quotes from it.

The focus (`retrieval/focus.py`) is the passage that scores best by shared words; the extractive answer ranks by
meaning when a model is loaded, so it can quote another sentence of the same chunk. Found trying ragls on Click's
docs: "[2] utils.md:321-322" cited for a sentence on line 336. A source quoted more than once prints the lines of all
its passages when they fit in `focus.MAX_FOCUS_LINES`; a passage farther away gets a source entry of its own (found
trying attrs' docs: "namedtuples are *always* immutable" cited why.md:73-84, the sentence is on line 108).
With `--top-k 1` the answer lists one source, however far apart its quoted passages lie: the source's entry shows
every quoted place ("asgi.rst:4-10, 22-27"; on Flask's docs 21 of 44 questions listed one chunk twice).
A reST source is titled by the section of its cited lines, not of its chunk's first line (Click's options.rst:230-239
read "Tuples as Multi Value Options", its section is "Counting").
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from clikit import ragls
from lspkit import server_env

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

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


# One section answering twice, 20 lines apart (the shape of attrs' "Why not… namedtuples?").
FAR = """# Records

## Why not tuples?

Frozen records are immutable: once created, an instance cannot be changed, and assigning to a field raises an error.

A record is a class, so it can have methods and properties like any other class.
Its string form lists the field names and values, which reads well in logs and in a debugger.
Comparing two records compares their fields in order, the same way tuples compare.
Records can be sorted when every field can be sorted.
Subclassing a record adds fields after the ones of its parent class.
The library writes these methods for you when the class is created, once.
Reading a field is as fast as reading an attribute of a plain class.
Records can be pickled and copied with the standard library.
Type checkers understand the generated methods, so editors complete field names.
A record can carry documentation for each field.
Defaults can be plain values or factories called for each new instance.
Validators run on every field when an instance is created.
Converters turn the values they are given into the type the field holds.
None of this needs a metaclass or a base class.
Records work with slots, which makes them smaller in memory.

Plain tuples are always immutable, so you cannot make an instance mutable when you need to change it later.
"""


def _bullets(out: str) -> list[tuple[str, str]]:
    """(sentence, n) of each "- sentence [n]" bullet of an extractive answer."""
    return re.findall(r"^- (.+?) \[(\d+)\]", out, re.MULTILINE)


def _ask_one_file(tmp_path, name: str, text: str, question: str):
    """`ragls ask` over a folder holding only `name` (content `text`): (stdout, cited places, bullets)."""
    ws = tmp_path / "docs"
    ws.mkdir()
    (ws / name).write_text(text)
    out = ragls(server_env(tmp_path / "cache"), "ask", ws, question).stdout
    return out, _places(out, name), _bullets(out)


def _places(out: str, name: str) -> dict[int, list[tuple[int, int]]]:
    """n -> the cited places of source [n] ("[1] path:4-10, 22-27" -> [(4, 10), (22, 27)]); each [n] once."""
    entries = re.findall(rf"^\[(\d+)\] .*?{re.escape(name)}:([0-9, -]+?)(?:  |$)", out, re.MULTILINE)
    assert len({n for n, _ in entries}) == len(entries), f"a source listed twice:\n{out}"
    return {int(n): [(int(a), int(b or a)) for a, b in re.findall(r"(\d+)(?:-(\d+))?", lines)]
            for n, lines in entries}


def _assert_each_bullet_is_in_a_cited_place(out: str, doc: str, places, bullets) -> None:
    """Each bullet's first 8 words are words of one of its source's cited places (the answer shows a sentence
    without its markup: reST links and ``literals`` are cleaned)."""
    lines = doc.splitlines()
    assert bullets and places, out
    for sentence, n in bullets:
        head = re.findall(r"\w+", sentence)[:8]
        assert any(set(head) <= set(re.findall(r"\w+", " ".join(lines[a - 1:b]))) for a, b in places[int(n)]), \
            f"[{n}] {places[int(n)]} do not hold {sentence!r}:\n{out}"


def test_cited_lines_hold_the_quoted_sentence(tmp_path):
    out, places, bullets = _ask_one_file(tmp_path, "utils.md", DOC,
                                         "How do I show a progress bar while processing items?")
    _assert_each_bullet_is_in_a_cited_place(out, DOC, places, bullets)


def test_distant_passages_of_one_chunk_cite_their_own_lines(tmp_path):
    out, places, bullets = _ask_one_file(tmp_path, "records.md", FAR, "How do I make a record immutable?")
    _assert_each_bullet_is_in_a_cited_place(out, FAR, places, bullets)
    quoted = [p for _, n in bullets for p in places[int(n)]]
    assert max(b for _, b in quoted) - min(a for a, _ in quoted) > 12, out  # both far passages were quoted
    assert all(b - a < 12 for a, b in quoted), out  # each cited as its own lines, not one span across both


FLASK = Path(__file__).parent.parent / "fixtures" / "flask-docs"  # two files of Flask's docs (BSD, LICENSE.txt)


def test_top_k_1_lists_the_chunk_once_with_every_quoted_place(tmp_path):
    """Flask's deploying/asgi.rst is one chunk; the answer to this question quotes its first paragraph and its
    last lines, 12+ lines apart. It listed "[1] asgi.rst:22-27" and "[2] asgi.rst:4-10" for `--top-k 1`."""
    ws = tmp_path / "docs"
    shutil.copytree(FLASK, ws)
    out = ragls(server_env(tmp_path / "cache"), "ask", "--top-k", "1", ws,
                "Can the Flask class serve both ASGI and WSGI?").stdout
    assert re.findall(r"^\[\d+\] ", out, re.MULTILINE) == ["[1] "], out  # top_k 1: one source entry
    places = _places(out, "asgi.rst")
    _assert_each_bullet_is_in_a_cited_place(out, (FLASK / "asgi.rst").read_text(), places, _bullets(out))
    assert len(places[1]) == 2 and places[1] == sorted(places[1]), out  # both places, in line order
    (a1, b1), (a2, b2) = places[1]
    assert a2 - b1 > 1 and max(b1 - a1, b2 - a2) < 12, out  # two separate citations, each short


# reST sibling sections small enough to share one chunk (the shape of Click's options.rst).
RST = """Options
=======

Multi Value Options
-------------------

Sometimes you have options that take more than one argument, and the number of arguments is fixed.

Counting
--------

To count how often a flag was given, set count so the option's value is the number of times it was repeated,
for example to raise the verbosity of a command with every extra flag.
"""


def test_rest_source_is_titled_by_the_section_of_its_cited_lines(tmp_path):
    ws = tmp_path / "docs"
    ws.mkdir()
    (ws / "options.rst").write_text(RST)
    out = ragls(server_env(tmp_path / "cache"), "ask", ws, "How do I count how often a flag was given?").stdout
    cited = re.search(r"^\[\d+\] .*?options\.rst:(\d+)-\d+  (.+)$", out, re.MULTILINE)
    assert cited and int(cited.group(1)) == 12, out  # the Counting sentence, in a chunk that starts at Options
    assert cited.group(2) == "Counting", out
