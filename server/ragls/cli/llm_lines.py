"""Terminal lines for LLM-assisted retrieval (`llmCalls` of rag/query, rag/ask and rag/status): what a question
or the process spent, and with `--explain` what the model wrote and why steps were skipped."""

from __future__ import annotations

from typing import Any


def calls_text(steps: dict[str, dict[str, int]]) -> str:
    """"hyde 1, expand 1 (1 failed)" — or "none" when no call was made."""
    parts = []
    for step, c in steps.items():
        failed = f" ({c['failures']} failed)" if c.get("failures") else ""
        parts.append(f"{step.replace('_', '-')} {c['calls']}{failed}")
    return ", ".join(parts) or "none"


def query_lines(llm: dict[str, Any] | None, explain: bool) -> list[str]:
    """Lines printed after `ragls query` results (nothing when no LLM step is on)."""
    if not llm:
        return []
    lines = [f"LLM calls: {calls_text(llm.get('steps', {}))}"]
    if llm.get("cached"):
        lines[0] += f"; from cache: {', '.join(sorted(set(llm['cached'])))}"
    if not explain:
        return lines
    if llm.get("skipped"):
        lines.append(f"  skipped: {llm['skipped']}")
    queries = llm.get("queries") or {}
    if "hyde" in queries:
        lines.append(f"  hyde passage: {queries['hyde'][:300]}")
    if "step_back" in queries:
        lines.append(f"  step-back question: {queries['step_back']}")
    for n, text in enumerate(queries.get("expand") or [], 1):
        lines.append(f"  expand{n}: {text}")
    if "corrective" in queries:
        lines.append(f"  corrective rewrite: {queries['corrective']}")
    if llm.get("grade"):
        lines.append(f"  corrective grade: {llm['grade']}")
    return lines


def status_line(wire: dict[str, Any]) -> str | None:
    """The `ragls status` line for the process's retrieval LLM calls, None when it made none."""
    steps = (wire.get("llmCalls") or {}).get("steps") or {}
    return f"llm calls:   {calls_text(steps)}" if steps else None
