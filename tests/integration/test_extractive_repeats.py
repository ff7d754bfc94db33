"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): a block two pages hold is quoted
once (`repeats.quoted_once`: the same command under a sentence of each page, one copy with a blank line before its
output), and the sources are numbered in the order the answer quotes them (`ask.cited_first`): the answer reads
[1] first, the sources it quotes nothing from come after the ones it quotes."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from offline_index import extractive_workspace
from ragls.answer.ask import cited_first
from ragls.answer.passages import units
from ragls.answer.repeats import quoted_once
from ragls.core.ir import Chunk, Hit, LineSpan

SESSIONS = """Sessions
========

The session lets you remember information from one request to the next. To use sessions you have to set a
secret key.

How to generate good secret keys
--------------------------------

A secret key should be as random as possible. Your operating system has ways to generate pretty random data based
on a cryptographic random generator. Use the following command to quickly generate a value for
``Widget.secret_key`` (or ``SECRET_KEY``)::

    $ python -c 'import secrets; print(secrets.token_hex())'
    '192b9bdd22ab9ed4d12e236c78afcb9a393ec15f71bbf5dc987d54727823bcbf'
"""

DEPLOY = """Deploy to production
====================

Configure the secret key
------------------------

In the beginning of the tutorial you gave a default value for the secret key. This should be changed to some
random bytes in production. Otherwise, attackers could use the public key to modify the session cookie, or
anything else that uses the secret key.

You can use the following command to output a random secret key:

.. code-block:: none

    $ python -c 'import secrets; print(secrets.token_hex())'

    '192b9bdd22ab9ed4d12e236c78afcb9a393ec15f71bbf5dc987d54727823bcbf'
"""

RELEASE = "# Release notes\n\nVersion 2.1 adds a dark mode to the dashboard and fixes the export of large reports.\n"

_COMMAND = "python -c 'import secrets; print(secrets.token_hex())'"
_MARKER = re.compile(r"\[(\d+)\]")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("repeats"), {"sessions.rst": SESSIONS,
                                                                     "deploy.rst": DEPLOY, "release.md": RELEASE}) as w:
        yield w


def _hit(path: str, text: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
               score=1.0)


def test_a_command_two_pages_hold_is_quoted_once(ws):
    """Both pages are sources of the answer and both show the command; the answer shows it once."""
    answer = ws.ask("How do I generate a random secret key for production?")
    assert {h.chunk.path for _, h in answer.sources} >= {"sessions.rst", "deploy.rst"}, answer.sources
    assert answer.text.count(_COMMAND) == 1, answer.text


def test_the_answer_cites_its_sources_in_the_order_it_quotes_them(ws):
    """Numbers in the answer's text, in order of first use, are 1, 2, ...; `sources` are listed by number, those
    the answer cites first; each cited source's chunk holds the sentence quoted with its number. A document handed
    over with the question (`documents`, first in the context) that answers nothing comes after the pages quoted:
    the answer read [2] [3] with [1] the release notes, not cited."""
    for question, documents in (("How do I generate a random secret key for production?", None),
                                ("Why should the default secret key be changed in production?", ["release.md"]),
                                ("How random should a secret key be?", ["release.md"])):
        answer = ws.ask(question, documents=documents)
        used = list(dict.fromkeys(int(x) for x in _MARKER.findall(answer.text)))
        assert used == list(range(1, len(used) + 1)), answer.text
        assert [n for n, _ in answer.sources] == list(range(1, len(answer.sources) + 1))
        assert [c.n for c in answer.citations] == used
        by_n = dict(answer.sources)
        if documents:
            release = next(n for n, hit in answer.sources if hit.chunk.path == "release.md")
            assert release > len(used), (answer.sources, answer.text)
        quoted = [(m.group(1), int(m.group(2))) for line in answer.text.splitlines()
                  if (m := re.match(r"- (.{20}).* \[(\d+)\]", line))]
        assert quoted, answer.text
        for start, n in quoted:
            assert start in " ".join(by_n[n].chunk.text.split()), (start, n, answer.text)


def test_quoted_once_on_the_pages_passages():
    """The deployment page's lead-in names nothing but the command it introduces: left out once the sessions
    page's sentence has shown the command; a sentence naming an identifier keeps its words, its ":" now "."; a
    sentence an earlier passage holds is left out; a passage of a new block stays."""
    first = next(u for u in units(SESSIONS) if u.sentence.startswith("Use the following command"))
    lead_in = next(u for u in units(DEPLOY) if u.sentence.startswith("You can use the following command"))
    assert _COMMAND in first.attached and _COMMAND in lead_in.attached
    assert quoted_once([(1, first), (2, lead_in)]) == [(1, first)]
    out = quoted_once([(2, lead_in), (1, first)])
    assert out[0] == (2, lead_in)
    assert out[1][1].sentence.endswith("(or `SECRET_KEY`).") and out[1][1].attached == ""
    again = next(u for u in units(DEPLOY) if u.sentence.startswith("This should be changed"))
    before = next(u for u in units(DEPLOY) if u.sentence.startswith("In the beginning"))
    joined = type(before)(f"{before.sentence} {again.sentence}", line=before.line, end=again.end)
    assert quoted_once([(2, joined), (1, again)]) == [(2, joined)]
    assert quoted_once([(1, again), (2, lead_in)]) == [(1, again), (2, lead_in)]
    # a page's tabs: one caption over its YAML and over its TOML (each a unit whose lines hold its block) — both
    # stay; the YAML again, from another page, does not
    yaml = type(first)("Sets the maximum request body to 2MB:", "```yaml\nbuffering:\n  maxBody: 2000000\n```", 4, 8, 8)
    toml = type(first)("Sets the maximum request body to 2MB:", "```toml\n[buffering]\nmaxBody = 2000000\n```", 10, 14, 14)
    copy = replace(yaml, attached="```yml\nbuffering:\n\n  maxBody:   2000000\n```")
    assert quoted_once([(1, yaml), (1, toml), (2, copy)]) == [(1, yaml), (1, toml)]


def test_cited_first_numbers_the_sources_as_the_answer_quotes_them():
    """Sources renumbered by first quote, the unquoted ones after in retrieval order; the passages follow."""
    hits = [_hit(p, t) for p, t in (("a.rst", SESSIONS), ("b.rst", DEPLOY), ("c.rst", SESSIONS), ("d.rst", DEPLOY))]
    quote = units(DEPLOY)[0]
    numbered, picked = cited_first(list(enumerate(hits, 1)), [(3, quote), (2, quote), (3, quote)])
    assert [(n, h.chunk.path) for n, h in numbered] == [(1, "c.rst"), (2, "b.rst"), (3, "a.rst"), (4, "d.rst")]
    assert [n for n, _ in picked] == [1, 2, 1]
