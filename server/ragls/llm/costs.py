"""LLM calls spent by retrieval, counted so every LLM-assisted step is cost-visible.

Issue 20 asks that each LLM-assisted retrieval step (query transforms, corrective retrieval, contextual retrieval,
the LLM reranker) count its calls and report them in `rag/status` (`llmCalls`), in `--explain` and in the CLI.
One process-wide `LLMCallCounter` (`COUNTER`) keeps totals per step; a per-question tally is a fresh counter
passed down a single query and merged into the totals with `merge`.

Step names (the keys of `snapshot()`): "hyde", "step_back", "expand", "corrective", "contextual", "rerank".
"""

from __future__ import annotations

import threading
from collections import Counter

STEPS = ("hyde", "step_back", "expand", "corrective", "contextual", "rerank")


class LLMCallCounter:
    """Thread-safe counts of LLM calls (and failed calls) per retrieval step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: Counter[str] = Counter()
        self._failures: Counter[str] = Counter()

    def add(self, step: str, calls: int = 1, failures: int = 0) -> None:
        """Count `calls` LLM calls of `step` (one of STEPS), of which `failures` failed (timeouts included).

        Raises ValueError for an unknown step name, so a typo cannot hide a cost.
        """
        if step not in STEPS:
            raise ValueError(f"unknown LLM retrieval step {step!r}; expected one of {', '.join(STEPS)}")
        with self._lock:
            self._calls[step] += calls
            if failures:
                self._failures[step] += failures

    def merge(self, other: LLMCallCounter) -> None:
        """Add another counter's counts (e.g. one question's tally) into this one."""
        calls, failures = other.snapshot(), other.failures()
        with self._lock:
            self._calls.update(calls)
            self._failures.update(failures)

    def snapshot(self) -> dict[str, int]:
        """Calls per step, only steps with at least one call: e.g. {"hyde": 3, "corrective": 1}."""
        with self._lock:
            return {k: v for k, v in self._calls.items() if v}

    def failures(self) -> dict[str, int]:
        """Failed calls per step (the step fell back to plain retrieval), only non-zero entries."""
        with self._lock:
            return {k: v for k, v in self._failures.items() if v}

    def total(self) -> int:
        """All calls counted, every step together."""
        with self._lock:
            return sum(self._calls.values())


#: Totals of this process, reported by `rag/status` as `llmCalls`.
COUNTER = LLMCallCounter()
