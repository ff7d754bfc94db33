"""Shared checks of the abstention tests over a real workspace (integration/test_abstention_user_values.py,
test_abstention_own_context.py, test_abstention_spellings.py): a question the docs answer is answered with no veto,
and one naming what they never mention abstains, that name reported."""

from __future__ import annotations


def assert_answered(ws, question: str, *, value: bool = False) -> None:
    """`question`, retrieved over the open RagWorkspace `ws`, names nothing absent (and, when `value`, asks no value
    the hits lack), and is answered."""
    result = ws.retrieve(question)
    assert result.evidence.absent_names == (), result.evidence
    if value:
        assert not result.evidence.value_missing, result.evidence
    assert not ws.query(question).abstained, result.evidence


def assert_abstains_naming(ws, question: str, name: str) -> None:
    """`question`, retrieved over `ws`, reports `name` among its absent names, and abstains."""
    result = ws.retrieve(question)
    assert name in result.evidence.absent_names, result.evidence
    assert ws.query(question).abstained
