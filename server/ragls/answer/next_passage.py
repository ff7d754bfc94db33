"""The passage right after a quoted one, quoted below the quoting floor (the extractive answer, answer/extractive.py).

A sentence that scores below `extractive.RELATIVE_FLOOR` of the best passage is off topic as often as it answers
when it stands anywhere in the sources (bench/history/session-65.md, "a lower quoting floor"); right after a passage
the answer quotes, in the same paragraph or the next one, it continues what that passage says, and it is where a
page names what it has just described: "Reverse proxies may show `502` responses while Gunicorn logs only new worker
startups." / "A common culprit is the OOM killer in cgroups-limited environments." The question is asked in the
words of the symptom; the cause, the means or the value is in the next sentence, in other words.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragls.answer.neighbours import NEXT_REFERENCE_WORDS, joined_sentences, quotes, refers_back
from ragls.answer.passages import EXTRACTIVE_MAX_SENTENCE_CHARS, LIST_ITEM, Unit
from ragls.core.ir import Hit

__all__ = ["NEXT_FLOOR", "NEXT_GAP_LINES", "by_source", "with_next_passages"]

NEXT_FLOOR = 0.45  # the share of the best passage's score the passage right after a quoted one reaches to be quoted
NEXT_GAP_LINES = 2  # at most this many lines between the quoted passage's end and the next one's first line

_LABEL = re.compile(r"^`[^`\n]+`(?:, `[^`\n]+`)*: ")  # a heading's label before a sentence (`labels.labelled`)


def by_source(scored: list[tuple[int, Unit, float | None]]) -> dict[int, list[tuple[Unit, float | None]]]:
    """{n: [(unit, score), ...]} of `scored` (`(n, unit, score)` of every candidate passage, each source's in chunk
    order; score as `extractive_picks` scores a pick, None when not scored): what `with_next_passages` reads."""
    out: dict[int, list[tuple[Unit, float | None]]] = {}
    for n, unit, score in scored:
        out.setdefault(n, []).append((unit, score))
    return out


def with_next_passages(picked: list[tuple[int, Unit]], passages: dict[int, list[tuple[Unit, float | None]]],
                       best: float, hits: dict[int, Hit], room: int) -> list[tuple[int, Unit]]:
    """`picked` (`(n, unit)`, the answer's passages in order, read with their neighbours already,
    `neighbours.read_with_neighbours`) with the passage that follows each in its source's chunk, when that one
    scores at least NEXT_FLOOR of `best` (the best passage's score, as `extractive_picks` scores them: cosine,
    shared words, identifier bonus, window weight and rank prior), starts at most NEXT_GAP_LINES lines after the
    quoted one ends (its block included: the same paragraph, or the next after a blank line), shows no program's
    output (`Unit.output`: evidence of the topic, not the answer) and is quoted nowhere in the answer yet. In the
    same paragraph it is read as one passage with the quoted one (`_one_paragraph`, joined as
    `neighbours.joined_sentences` joins two sentences); otherwise it follows it as a passage of its own.
    `passages[n]`: every passage of source n's chunk in order (`passages.chunk_units`), each with its score (None:
    not scored). The second half of an example a quoted passage shows ("It would be updated to:" and its block after
    "If you previously had the following ...:" and its block, `_goes_on`) is quoted whatever its score, first and
    beyond the budget below. One step: an added passage brings none of its own. At most max(`room`, 1) passages are added
    (`room`: the places the quoting floor left empty among the answer's picks; one more when it left none), the
    best-scored first: the answer grows by one passage at most beyond one the floor did not cut (adding every
    such passage changed 625 of 1,122 answers of 38 dev sets, +11.6 % of their text, many with a lower source's
    next sentence off the question: bench/history/session-66.md, "the passage right after a quoted one")."""
    found = []
    for n, unit in picked:
        nxt = _next_of(unit, passages.get(n, []))
        if nxt is None or nxt[0].output or not 0 <= nxt[0].line - unit.block_end <= NEXT_GAP_LINES:
            continue
        if _goes_on(unit, nxt[0]) or (nxt[1] is not None and nxt[1] >= NEXT_FLOOR * best):
            found.append((nxt[1] or 0.0, n, unit, nxt[0]))
    out = list(picked)
    budget = max(room, 1)
    for _, n, unit, after in sorted(found, key=lambda t: (not _goes_on(t[2], t[3]), -t[0])):
        if _shown(n, after, out):
            continue
        if not _goes_on(unit, after):  # the second half of a quoted example is no extra passage
            if budget <= 0:
                continue
            budget -= 1
        at = next(k for k, (m, u) in enumerate(out) if m == n and u is unit)
        if _one_paragraph(unit, after, hits.get(n)):
            out[at] = (n, replace(after, sentence=joined_sentences(unit.sentence, after.sentence), line=unit.line))
        else:
            out.insert(at + 1, (n, after))
    return out


def _goes_on(unit: Unit, after: Unit) -> bool:
    """Whether `after`, the passage right after quoted passage `unit`, is the second half of the example `unit`
    shows: `unit` carries a code block (`Unit.attached`, not a list) and `after` is a ":" lead-in of at most
    NEXT_REFERENCE_WORDS words that refers back (`neighbours.refers_back`) and carries a code block of its own (a
    list after an example is something else: "This has two drawbacks:"): "If you
    previously had the following in your GitHub Actions workflow file:" / the old step / "It would be updated to:" /
    the new one (Python Semantic Release's v10 upgrade guide, sr30). Quoted alone, the first half shows what no
    longer works; `with_next_passages` quotes the second whatever its score, outside its budget."""
    return bool(unit.attached) and not LIST_ITEM.match(unit.attached) \
        and bool(after.attached) and not LIST_ITEM.match(after.attached) \
        and after.sentence.endswith(":") and len(after.sentence.split()) <= NEXT_REFERENCE_WORDS \
        and refers_back(after.sentence)


def _next_of(unit: Unit, found: list[tuple[Unit, float | None]]) -> tuple[Unit, float | None] | None:
    """The passage of `found` (a chunk's passages in order, with their scores) right after the last one `unit`
    shows (the last whose sentence, its heading's label aside, `unit`'s sentence holds, within its lines), past
    the items of a list `unit` carries (`neighbours.quotes`); None when `unit` is none of them (a "See ..."
    pointer) or is the chunk's last."""
    last = None
    for k, (u, _) in enumerate(found):
        if unit.line <= u.line <= unit.end and _holds(unit, u):
            last = k
    if last is None:
        return None
    for u, score in found[last + 1:]:
        if not quotes(unit, u):
            return u, score
    return None


def _shown(n: int, unit: Unit, passages: list[tuple[int, Unit]]) -> bool:
    """Whether a passage of source `n` among `passages` shows `unit` already: its sentence holds `unit`'s (its
    heading's label aside), or `unit` lies within the block it carries (`neighbours.quotes`)."""
    return any(k == n and (_holds(m, unit) or quotes(m, unit)) for k, m in passages)


def _holds(passage: Unit, unit: Unit) -> bool:
    """Whether the sentence of `passage` holds the sentence of `unit`, without the label of its section's heading
    (a passage read with the fields above it, `neighbours.describes`, shows "`reload`: **Command line:** ...
    Restart workers when code changes." for "`reload`: Restart workers when code changes.")."""
    own = _LABEL.sub("", unit.sentence, count=1).rstrip(".:")
    return bool(own) and own in passage.sentence


def _one_paragraph(first: Unit, second: Unit, hit: Hit | None) -> bool:
    """Whether `second` follows `first` in the same paragraph of `hit`'s chunk: it starts on `first`'s last line or
    the next one with no blank line between, neither is a list item, `first` carries no block (`Unit.attached`),
    and the two sentences are shorter than EXTRACTIVE_MAX_SENTENCE_CHARS together."""
    if hit is None or first.item or second.item or first.attached \
            or len(first.sentence) + len(second.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS:
        return False
    if second.line == first.end:
        return True
    lines = hit.chunk.text.split("\n")
    return second.line == first.end + 1 < len(lines) and bool(lines[first.end].strip()) \
        and bool(lines[second.line].strip())
