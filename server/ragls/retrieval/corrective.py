"""Corrective retrieval (`retrieval.corrective`), after CRAG (Yan et al., "Corrective Retrieval Augmented
Generation", 2024), without the web search: an LLM grades whether the retrieved passages answer the question.

Round 1: one call grades the top passages. Its reply starts with SUFFICIENT or INSUFFICIENT; an INSUFFICIENT
grade carries, on its next line, `Query: <a better search query>` (the rewrite is part of the same call).
Round 2 (only after INSUFFICIENT): the rewritten query is retrieved, its hits are merged into the first ones by
RRF (`merge_rounds`), and one more call (+1) grades the merged passages. INSUFFICIENT after round 2 is the
final grade: the question abstains (`relevance.abstained`) and the nearest passages are listed.

So a question costs 1 call when the first passages suffice and 2 when they do not. An unreadable grade, an
INSUFFICIENT grade without a query, or a failed call ends the step with the passages retrieved so far (plain
retrieval; a failed call is counted as a failure) — corrective retrieval never abstains without two grades.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ragls.core.ir import Hit
from ragls.core.uris import display_path
from ragls.retrieval.llm_steps import LLMTrace, StepLLM

GRADE_SYSTEM = ("You judge whether passages retrieved from documentation contain the answer to a question. Reply "
                "SUFFICIENT when they contain it (or enough to answer it), else INSUFFICIENT.")
PASSAGE_CHARS = 1200  # of each passage, in the grading prompt
_GRADE = re.compile(r"\b(insufficient|not sufficient|sufficient)\b", re.IGNORECASE)
_QUERY = re.compile(r"^\s*(?:better\s+)?(?:search\s+)?query\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)


def grade_prompt(question: str, hits: Sequence[Hit], rewrite: bool) -> str:
    """The grading prompt: the question, the numbered passages (each cut at PASSAGE_CHARS, quoted as data by
    `answer.template.quote_passage`, so a passage cannot forge another one or the reply format), what to reply."""
    from ragls.answer.template import DATA_NOTE, human_lines, quote_passage

    parts = [f"Question: {question}", "", DATA_NOTE, ""]
    for n, h in enumerate(hits, 1):
        parts.append(quote_passage(h.chunk.text[:PASSAGE_CHARS], display_path(h.chunk.path),
                                   human_lines(h.chunk.span), n=n, heading=h.chunk.title or ""))
    parts.append("")
    if rewrite:
        parts.append("Do these passages answer the question? Reply SUFFICIENT, or INSUFFICIENT followed on the "
                     "next line by `Query: ` and a better search query for the missing information.")
    else:
        parts.append("Do these passages answer the question? Reply SUFFICIENT or INSUFFICIENT.")
    return "\n".join(parts)


def parse_grade(text: str) -> tuple[str | None, str | None]:
    """(grade, rewritten query) from a grading reply: grade "sufficient" / "insufficient" from the first
    SUFFICIENT / INSUFFICIENT / NOT SUFFICIENT word (None when there is none); the query from a `Query:` line,
    else from the first other non-empty line after an INSUFFICIENT grade."""
    m = _GRADE.search(text or "")
    if m is None:
        return None, None
    grade = "sufficient" if m.group(1).lower() == "sufficient" else "insufficient"
    if grade == "sufficient":
        return grade, None
    q = _QUERY.search(text)
    if q is not None:
        query = q.group(1).strip().strip('"\'`').strip()
        return grade, query or None
    rest = [line.strip().strip('"\'`') for line in text[m.end():].splitlines()[1:] if line.strip()]
    return grade, rest[0] if rest else None


def merge_rounds(first: Sequence[Hit], second: Sequence[Hit], top_k: int, k: float = 60.0) -> list[Hit]:
    """RRF of two ranked hit lists (equal weights, `k` = retrieval.rrf_k), one hit per chunk id, best `top_k`.
    A hit keeps its first-round signals and gains "corrective" (its rank in round 2); a hit only round 2 found
    has just that signal and no similarity (it was measured against the rewritten query)."""
    scores: dict[str, float] = {}
    hits: dict[str, Hit] = {}
    for rank, h in enumerate(first, 1):
        scores[h.chunk.id] = 1.0 / (k + rank)
        hits[h.chunk.id] = h
    for rank, h in enumerate(second, 1):
        cid = h.chunk.id
        scores[cid] = scores.get(cid, 0.0) + 1.0 / (k + rank)
        if cid in hits:
            old = hits[cid]
            hits[cid] = replace(old, signals={**old.signals, "corrective": float(rank)})
        else:
            hits[cid] = replace(h, signals={"corrective": float(rank)}, similarity=None)
    order = sorted(scores, key=lambda c: -scores[c])[:top_k]
    return [replace(hits[c], score=scores[c]) for c in order]


def correct(question: str, hits: Sequence[Hit], llm: StepLLM, trace: LLMTrace,
            retrieve: Callable[[str], Sequence[Hit]], top_k: int, rrf_k: float = 60.0) -> list[Hit] | None:
    """Corrective retrieval of `question` over its first `hits` (module docstring). `retrieve(text)` ranks hits
    for the rewritten query. Returns the merged hits after a second round, None when the first passages stand.
    Sets `trace.grade` (the final grade, None when no grade could be read), `trace.rounds` and
    `trace.queries["corrective"]` (the rewrite)."""
    trace.rounds = 1
    reply = llm.call("corrective", grade_prompt(question, hits[:top_k], rewrite=True), GRADE_SYSTEM, trace)
    if reply is None:
        return None
    grade, rewrite = parse_grade(reply)
    if grade != "insufficient" or not rewrite:
        trace.grade = grade if grade == "sufficient" else None
        if grade is None or (grade == "insufficient" and not rewrite):
            trace.errors.append(f"corrective: unreadable grade {reply[:80]!r}; the first passages are kept")
        return None
    trace.queries["corrective"] = rewrite
    trace.rounds = 2
    merged = merge_rounds(hits, retrieve(rewrite), top_k, rrf_k)
    reply = llm.call("corrective", grade_prompt(question, merged, rewrite=False), GRADE_SYSTEM, trace)
    final, _ = parse_grade(reply) if reply is not None else (None, None)
    trace.grade = final
    return merged
