"""Extractive answers with the real offline model: a remedy after the operating system it applies to ("On Linux you
can use `systemd-inhibit` to avoid that.") tells what to do as a remedy without one does (`neighbours._REMEDY`), so
it is read with the sentence it answers (`neighbours.explains`). Borg's FAQ (borg-p25): "While backing up your data
over the network, your machine should not go to sleep." was quoted alone, the two commands that keep it awake not."""

from __future__ import annotations

import pytest
from extractkit import _bullets
from ragls.answer.ask import extractive_answer
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


FAQ = """# Frequently asked questions

## Can a sync survive a suspended laptop?

While a sync runs over the network, your machine should not go to sleep. On Linux you can use `systemd-inhibit`
to avoid that. On macOS you can use `caffeinate`.

## Why is the first sync slow?

The first sync sends every file; later ones only send what changed.
"""

NETWORK = """# Syncing over a network

A sync over the network keeps one connection open for its whole run. When the connection breaks, the sync fails
and the next run starts where it stopped. A laptop on a slow network may take hours for a first sync.
"""


def test_the_remedy_after_a_platform_comes_with_the_need(embedder):
    chunk = Chunk(id="faq", path="faq.md", text=FAQ, span=LineSpan(0, 0, FAQ.count("\n"), 0), text_hash="faq")
    network = Chunk(id="net", path="network.md", text=NETWORK, span=LineSpan(0, 0, NETWORK.count("\n"), 0),
                    text_hash="net")
    answer = extractive_answer("My laptop suspends in the middle of a long sync over the network and the sync fails. "
                               "How do I keep it awake?",
                               [(1, Hit(chunk=chunk, score=1.0)), (2, Hit(chunk=network, score=0.9))],
                               embed=embedder.embed_documents)
    first = _bullets(answer)[0]
    assert first.startswith("- While a sync runs over the network, your machine should not go to sleep. On Linux you "
                            "can use `systemd-inhibit` to avoid that."), answer
    assert "`caffeinate`" in first, answer
