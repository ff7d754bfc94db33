"""The window plan (`ragls.index.windows`) with the real all-MiniLM-L6-v2 wordpiece tokenizer: windows step by the
stride, the last one holds only what remains from its own step (a passage of its own, not a near-copy of the
window before it), a very short remainder is pulled back to a quarter window, and every wordpiece of the chunk is
in some window."""

from __future__ import annotations

import itertools

import pytest
from ragls.core.ir import Document
from ragls.embedding.embed import offline_model_dir
from ragls.index.chunking import chunk_document
from ragls.index.windows import MIN_TAIL, plan_windows, tail_starts

MODEL_DIR = offline_model_dir()


@pytest.fixture(scope="module")
def tok():
    if MODEL_DIR is None:
        pytest.skip("needs ragls[offline]")
    from tokenizers import Tokenizer

    t = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    t.no_padding()
    t.no_truncation()
    return t


def test_tail_starts_step_by_the_stride_and_end_with_the_remainder():
    assert tail_starts(100, 240, 120) == [0]  # fits one window
    assert tail_starts(240, 240, 120) == [0]
    # 300 wordpieces (a Cranfield abstract): the tail starts at the next step and holds the last 180
    assert tail_starts(300, 240, 120) == [0, 120]
    # 450 (a 2,000-character chunk): 0-240, 120-360, 240-450 (before: the last one pulled back to 210-450)
    assert tail_starts(450, 240, 120) == [0, 120, 240]
    assert tail_starts(1, 240, 120) == [0]


def test_short_remainder_is_pulled_back_to_a_quarter_window():
    # stride = window (a partition): 250 wordpieces leave a 10-wordpiece tail, too short to embed alone
    assert tail_starts(250, 240, 240) == [0, 250 - int(240 * MIN_TAIL)]
    assert tail_starts(420, 240, 240) == [0, 240]  # 180 remain: a window of its own
    # the pull-back never reaches the window before it
    assert tail_starts(242, 240, 240) == [0, 182]


@pytest.mark.parametrize("stride", [32, 64])
def test_windows_cover_the_chunk_and_the_tail_is_its_own_passage(tok, stride):
    words = " ".join(f"word{i} moves the value" for i in range(150))
    (chunk,) = chunk_document(Document("", "own.md", "# Ownership\n\n" + words + "\n", "h", "markdown"), 8000, 0)
    windows = plan_windows(chunk, tok, 64, stride)
    assert len(windows) > 2
    assert all(len(tok.encode(w.text).ids) <= 64 for w in windows)  # heading + text fit the model
    prefix = "Ownership\n\n"
    bodies = [w.text.removeprefix(prefix) for w in windows]
    assert all(w.text.startswith(prefix) for w in windows)
    assert bodies[0].startswith("# Ownership\n\nword0 ") and bodies[-1].endswith("word149 moves the value")
    n_tokens = [len(tok.encode(b, add_special_tokens=False).ids) for b in bodies]
    # every window but the last is full (re-tokenising a window's text may differ by a wordpiece at its edges);
    # the last starts one stride step after the one before it and holds only the rest
    assert max(n_tokens[:-1]) - min(n_tokens[:-1]) <= 2
    assert n_tokens[-1] < n_tokens[0] - 2
    full = len(tok.encode(chunk.text, add_special_tokens=False).ids)
    step_tokens = (full - n_tokens[-1]) / (len(windows) - 1)
    assert step_tokens == pytest.approx(n_tokens[0] * stride / 64, abs=2)
    # together the windows cover every character of the chunk but white space; with stride < window,
    # consecutive windows overlap
    spans = []
    for b in bodies:
        start = chunk.text.index(b, spans[-1][0] if spans else 0)
        spans.append((start, start + len(b)))
    covered = set().union(*(range(a, b) for a, b in spans))
    assert all(i in covered for i, ch in enumerate(chunk.text) if not ch.isspace())
    if stride < 64:
        assert all(b[0] < a[1] for a, b in itertools.pairwise(spans))
