"""Prompt rendering of ragls.answer.template: placeholders, source lines, context budget."""

from __future__ import annotations

from ragls.answer.template import (
    MIN_TRUNCATED_CHARS,
    human_lines,
    pack_context,
    render_prompt,
)
from ragls.config import DEFAULT_TEMPLATE
from ragls.ir import Chunk, Hit, LineSpan


def hit(path: str, text: str, span: LineSpan, title: str = "") -> Hit:
    return Hit(Chunk(id=path, path=path, text=text, span=span, text_hash="h", title=title), score=1.0)


A = hit("docs/a.md", "alpha " * 50, LineSpan(9, 0, 24, 0), title="Setup > Retries")
B = hit("docs/b.md", "bravo " * 100, LineSpan(0, 0, 4, 7))
C = hit("src/c.py", "charlie " * 100, LineSpan(2, 0, 2, 10))


def test_human_lines_are_one_based_and_inclusive():
    assert human_lines(LineSpan(9, 0, 24, 0)) == (10, 24)  # ends at column 0 of line 24: that line excluded
    assert human_lines(LineSpan(0, 0, 4, 7)) == (1, 5)
    assert human_lines(LineSpan(2, 0, 2, 10)) == (3, 3)


def test_placeholders_filled_with_sources_and_context():
    tpl = "Q: __INPUT__\nS:\n__SOURCES__\nC:\n__CONTEXT__\nEnd"
    prompt, used = render_prompt(tpl, "How do retries work?", [(1, A), (2, B)], 10_000)
    assert used == [(1, A), (2, B)]
    assert prompt.startswith("Q: How do retries work?\nS:\n[1] docs/a.md:10-24\n[2] docs/b.md:1-5\nC:\n")
    assert "[1] docs/a.md:10-24 — Setup > Retries\nalpha alpha" in prompt
    assert "\n\n[2] docs/b.md:1-5\nbravo" in prompt
    assert prompt.index("[1] docs/a.md:10-24 —") < prompt.index("[2] docs/b.md:1-5\nbravo")
    assert prompt.endswith("End")


def test_default_template_renders():
    prompt, _ = render_prompt(DEFAULT_TEMPLATE, "why?", [(1, C)], 5000)
    assert "__" not in prompt.replace("__init__", "")
    assert "[1] src/c.py:3-3" in prompt and "Question: why?" in prompt


def test_question_containing_placeholder_is_verbatim():
    prompt, _ = render_prompt("__INPUT__ | __CONTEXT__", "what is __CONTEXT__?", [(1, C)], 5000)
    assert prompt.startswith("what is __CONTEXT__? | [1] src/c.py:3-3")
    assert prompt.count("charlie") == 100


def test_context_never_exceeds_budget_and_truncates_or_drops():
    for budget in (500, 700, 900, 1000, 1500, 3000):
        context, used = pack_context([(1, A), (2, B), (3, C)], budget)
        assert len(context) <= budget
        assert [n for n, _ in used] == list(range(1, len(used) + 1))  # a prefix: numbering stays contiguous
    # A (300 chars + header) fits whole; B (600 chars) gets cut to fill a 700-char budget
    context, used = pack_context([(1, A), (2, B)], 700)
    assert [n for n, _ in used] == [1, 2]
    assert context.endswith("[…]") and len(context) > 700 - 10
    # too little room left for a useful piece of B: dropped
    small = len(pack_context([(1, A)], 10_000)[0]) + MIN_TRUNCATED_CHARS // 2
    context, used = pack_context([(1, A), (2, B)], small)
    assert [n for n, _ in used] == [1] and "bravo" not in context


def test_sources_list_only_used_chunks():
    prompt, used = render_prompt("__SOURCES__\n__CONTEXT__ __INPUT__", "q", [(1, A), (2, B), (3, C)], 400)
    assert [n for n, _ in used] == [1]
    assert "[2]" not in prompt and "[3]" not in prompt
