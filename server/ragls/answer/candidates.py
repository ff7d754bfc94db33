"""The candidate passages of an answer and of a hit's focus: every passage of each source's chunk (`passages.py`),
with its content words and its weight, 1 within the lines retrieval chose (the hit's best window) and OUTSIDE_WINDOW
elsewhere. `extractive.extractive_picks` picks the answer's passages from them, `focus.sentence_focus` a hit's focus.
"""

from __future__ import annotations

from typing import NamedTuple

from ragls.answer.cite import english_question, other_language
from ragls.answer.identifiers import literal_terms, passage_words
from ragls.answer.includes import FileFilters
from ragls.answer.passages import Unit, chunk_units
from ragls.core.ir import Hit

OUTSIDE_WINDOW = 0.8  # the weight of a passage of a hit's chunk outside its context lines (candidate_passages)


class Candidate(NamedTuple):
    """A passage of a source's chunk as the extractive answer and the focus weigh it (`candidate_passages`)."""

    rank: int  # 0-based rank of its source among the sources (0 = the best hit)
    pos: int  # its position among the passages of the chunk (`passages.units` order)
    n: int  # the source's citation number
    unit: Unit
    words: frozenset[str]  # its content words (`passage_words`) with the question's dotted numbers it holds
    weight: float  # 1 within the source's context lines, OUTSIDE_WINDOW elsewhere


def _context_lines(hit: Hit) -> tuple[int, int] | None:
    """The lines passages are weighed by, as 0-based lines of the hit's chunk text: its best window as retrieval
    chose it (`Hit.best_window`, before `sentence_focus` widened the context to the focus), else its context
    (`Hit.window`), else its focus lines — or None (whole chunk)."""
    f = hit.best_window or hit.window or hit.focus
    if f is None:
        return None
    base = hit.chunk.span.start_line
    return f.start_line - base, f.end_line - base


def candidate_passages(sources: list[tuple[int, Hit]], literals: set[str] | frozenset[str] = frozenset(),
                       question: str = "", files: FileFilters | None = None
                       ) -> tuple[list[Candidate], list[tuple[int, Unit]]]:
    """(candidates, firsts) of `extractive_picks` (and of `answer/focus.sentence_focus`, one source at a time):
    every passage of each source's chunk as a `Candidate` — its words with the `literals` (dotted numbers) of the
    question it holds, weight 1 within the source's context lines (`_context_lines`), OUTSIDE_WINDOW elsewhere
    (all 1 when the context holds no passage) — and the first passage of the context of each of the two best
    sources (the answer when nothing scores). For an English `question` (`cite.english_question`), passages in
    another language (`cite.other_language`: a README's translations beside it) are left out, unless the sources
    hold no other passage. `files`: the open indexes' file filters by folder (`passages.chunk_units`: what a
    page's literalinclude may show)."""
    candidates: list[Candidate] = []
    firsts: list[tuple[int, Unit]] = []
    foreign = english_question(question)
    keep = (lambda u: True) if not foreign else (lambda u: not other_language(u.sentence))
    if foreign and not any(keep(u) for _, hit in sources for u in chunk_units(hit.chunk, files=files)):
        keep = (lambda u: True)  # nothing in the question's language: a folder of one other language
    for rank, (n, hit) in enumerate(sources):
        context = _context_lines(hit)
        inside = [u for u in chunk_units(hit.chunk, context, files) if keep(u)] if context is not None else []
        near = {(u.line, u.sentence) for u in inside}
        for pos, unit in enumerate(chunk_units(hit.chunk, files=files)):
            if not keep(unit):
                continue
            weight = 1.0 if not inside or (unit.line, unit.sentence) in near else OUTSIDE_WINDOW
            words = passage_words(unit.scored_text)
            if literals:
                words = words | (literal_terms(unit.scored_text) & literals)
            candidates.append(Candidate(rank, pos, n, unit, words, weight))
        first = inside[:1] or [u for u in chunk_units(hit.chunk, files=files) if keep(u)][:1]
        if first and len(firsts) < 2:
            firsts.append((n, first[0]))
    return candidates, firsts
