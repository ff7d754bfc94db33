"""Extractive answers (no LLM): the passages of the top hits that best answer the question, cited as `[n]`.

Built from each hit's chunk, its best embedding window (`Hit.best_window`, else `Hit.window`) first, read as passages
by `passages.py` (sentences across hard line wraps, whole list items, a ":" sentence with the list or code block it
introduces; markup that is not text removed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from ragls.answer.cite import content_words
from ragls.answer.identifiers import (
    IDENTIFIER,
    LITERAL,
    identifier_words,
    literal_terms,
    passage_words,
    pointed_at,
)
from ragls.answer.passages import EXTRACTIVE_MAX_SENTENCE_CHARS, LIST_ITEM, Unit, clean_markup, is_markdown, units
from ragls.core.ir import Hit

FOCUS_SENTENCE_LINES = 6  # the most lines a focus sentence (or list item) spans on its own (answer/focus.py)

__all__ = [
    "EXTRACTIVE_LABEL",
    "EXTRACTIVE_MAX_SENTENCES",
    "Candidate",
    "Unit",
    "candidate_passages",
    "clean_markup",
    "extractive_answer",
    "extractive_label",
    "extractive_picks",
    "no_llm_reason",
    "passage_words",
    "render_extractive",
    "split_sentences",
    "units",
]

EXTRACTIVE_LABEL = ("*Extractive answer (no LLM configured): the passages of your documents that best match "
                    "the question.*")


def extractive_label(why_no_llm: str | None = None) -> str:
    """The label over an extractive answer: EXTRACTIVE_LABEL, or with `why_no_llm` (an untrusted folder's ignored
    LLM settings, `FolderLayer.ignored_llm`) the same label saying why no LLM is used instead of "no LLM
    configured"."""
    if not why_no_llm:
        return EXTRACTIVE_LABEL
    return (f"*Extractive answer: the passages of your documents that best match the question. No LLM is used: "
            f"{why_no_llm}.*")


def no_llm_reason(why_no_llm: str | None = None) -> str:
    """Why answers are extractive, for a status line: "no LLM configured", or with `why_no_llm` (as in
    `extractive_label`) "no LLM is used: <why>"."""
    return f"no LLM is used: {why_no_llm}" if why_no_llm else "no LLM configured"
EXTRACTIVE_MAX_SENTENCES = 4
SHORT_ANSWER_CHARS = 800  # four passages (sentences and blocks) this short in all leave room for a fifth

IDENTIFIER_BONUS = 0.1  # a passage naming an identifier the question's words point at (see extractive_answer)
CODE_BONUS = 0.03  # a passage naming some identifier (code span, `name=`, `Class.method`, CamelCase), on topic
NAMED_WORDS = 2  # question words one identifier points at that make its passage an answer of its own
NEXT_REFERENCE_WORDS = 12  # a sentence this short referring back to a quoted one is read with it (`_explains`)
SHORT_CODE_LINES = 3  # a code block after a sentence this short (lines of code) comes with it when on topic
EXAMPLE_LINES = 8  # a code block this short after a paragraph's last sentence comes with it in an answer
EMBEDDED_CANDIDATES = 12  # with embed: the most candidates embedded per answer (`_worth_embedding`)
# with embed: the candidates of each source sharing the most question words, embedded beyond EMBEDDED_CANDIDATES
# (a lower hit's answering sentence was outranked there by the top hit's by rank alone; `_worth_embedding`)
EMBEDDED_PER_SOURCE = 2
# with embed: a passage scoring below this share of the best one is off topic (0.6 until session 41: six answering
# sentences of the dev sets sat within 3 % under it; docs/benchmarks.md, "Extractive answers: the quoting floor")
RELATIVE_FLOOR = 0.58
EVIDENCE_FLOOR = 0.85  # with embed: ... unless its score before the rank prior is this share of the best such score
WORD_WEIGHT = 0.05  # with embed: added to a passage's cosine per question word it shares (see extractive_picks)
NEW_WORD = 0.15  # with embed: added to a later pick's score per question word no earlier pick holds (_next_pick)
RANK_DAMPING = 0.3  # a passage of the source at 0-based rank r weighs 1 / (1 + RANK_DAMPING * r) (rank_prior)
OUTSIDE_WINDOW = 0.8  # the weight of a passage of a hit's chunk outside its context lines (see extractive_picks)

_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)  # fenced blocks
_SELECTION_LABEL = re.compile(r"^Selected text \(.*\):[ \t]*$", re.MULTILINE)  # the clients' label above it


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


def passage_scores(query: set[str] | frozenset[str], found: list[Unit], words: list[set[str]] | list[frozenset[str]],
                   cosines: list[float] | None = None) -> list[float | None]:
    """The score of each passage `found[i]` (its content words `words[i]`) for a question of content words `query`
    (`cite.content_words`, with its `literal_terms`), None for one left out; `cosines[i]`, when given, is the
    cosine similarity of the passage's sentence to the question (see `extractive_picks` for the rule; also
    retrieval/focus.py). A question word an identifier of the passage points at (`pointed_at`) counts as shared,
    and so does a literal term of the question the passage holds (it also earns IDENTIFIER_BONUS)."""
    literals = {x for x in query if LITERAL.fullmatch(x)}
    pointed = [pointed_at(identifier_words(unit.scored_text), query) | (w & literals) for unit, w in zip(found, words)]
    overlaps = [(w & query) | p for w, p in zip(words, pointed)]
    df: dict[str, int] = {}
    for o in overlaps:
        for x in o:
            df[x] = df.get(x, 0) + 1
    total = max(1, len(found))
    # fsum: exact whatever order the set yields its words (set order varies with the hash seed between processes)
    lexical = [math.fsum(math.log(1 + total / df[x]) for x in o) for o in overlaps]
    top = max(lexical, default=0.0)
    out: list[float | None] = []
    for i, (unit, overlap) in enumerate(zip(found, overlaps)):
        named = identifier_words(unit.scored_text)
        bonus = 0.0
        if overlap:
            bonus = IDENTIFIER_BONUS if pointed[i] else CODE_BONUS if named else 0.0
        if cosines is not None:
            out.append(None if not overlap and cosines[i] < 0.3 else cosines[i] + WORD_WEIGHT * len(overlap) + bonus)
        else:
            out.append(lexical[i] + bonus * top if overlap else None)
    return out


def extractive_answer(question: str, sources: list[tuple[int, Hit]],
                      max_sentences: int | None = None,
                      embed: Callable[[list[str]], Any] | None = None, label: str = EXTRACTIVE_LABEL,
                      embed_query: Callable[[str], Any] | None = None) -> str:
    """The `label` line (default EXTRACTIVE_LABEL), then the passages `extractive_picks` chooses as a list
    (`render_extractive`)."""
    return render_extractive(extractive_picks(question, sources, max_sentences, embed, embed_query), label)


def extractive_picks(question: str, sources: list[tuple[int, Hit]],
                     max_sentences: int | None = None,
                     embed: Callable[[list[str]], Any] | None = None,
                     embed_query: Callable[[str], Any] | None = None) -> list[tuple[int, Unit]]:
    """Up to `max_sentences` passages `(n, unit)` of `sources` that answer `question`, best first; `unit.line` is
    the passage's 0-based line in source n's chunk text, -1 for a "See <source>" pointer (no prose found).
    Without `max_sentences`, EXTRACTIVE_MAX_SENTENCES passages, and one more when they (sentences and the blocks
    they introduce) total fewer than SHORT_ANSWER_CHARS characters, about the median answer's length: an answer of
    four short passages has room for the next-best one, which is often the one naming the value ("If the range is invalid, the response will be a `416 Range Not
    Satisfiable` response." after four sentences on range requests; measured: docs/benchmarks.md, "Short
    examples under an answering sentence").

    Candidates (`passages.units`: sentences read across hard line wraps, whole list items) are the passages of
    each source's chunk; those outside its best window (`_context_lines`: `Hit.best_window`, else `Hit.window`) have
    their score weighted by OUTSIDE_WINDOW (`candidate_passages`): the window is where the chunk reads closest to the
    question, not always where the sentence naming the answer sits. Lexical score of a candidate: the question's
    content words (`cite.content_words`) and dotted numbers (`literal_terms`, "3.9") it contains, or that one of
    its identifiers points at (`pointed_at`), each weighted by its inverse frequency among the candidates,
    idf(w) = ln(1 + N / df(w)) — a word found everywhere (the project's name) counts little. With `embed` (passage
    texts -> normalised vectors, the model's document side) and `embed_query` (question -> normalised vector, its
    query side: models with query/passage prompts embed the two differently; without it the question goes through
    `embed`, right only for a model that has no such prompts) candidates are ranked by the cosine similarity of
    their sentence (without the block it introduces) to the question instead (only the EMBEDDED_CANDIDATES best by
    words and source rank, and each source's EMBEDDED_PER_SOURCE best by words, are embedded and can be picked,
    `_worth_embedding`), plus WORD_WEIGHT per shared word; those
    sharing no word and below 0.3 cosine are left out, and so are those below RELATIVE_FLOOR of the best score (off
    topic). A candidate naming an identifier (`identifier_words`) gains IDENTIFIER_BONUS when the identifier points
    at a word of the question (`pointed_at`: the same word, one it abbreviates — `chars` for "characters" — or one
    inside it — "length" in `linelength`) or it holds a dotted number of the question, else CODE_BONUS when it
    shares a word with the question at all (a lexical score gains the same shares of the best lexical score).
    Either score is damped by the source's rank (`rank_prior`, 1 / (1 + 0.3 * rank)). Ties go to the better-ranked
    source, then the earlier candidate. A passage below RELATIVE_FLOOR of the best score is still kept when its
    score before the rank prior (its own evidence) reaches EVIDENCE_FLOOR of the best such score: a lower hit's
    sentence that reads as close to the question as any is not off topic for its rank. With `embed`, the best
    passage leads and each later one is the best by its
    score plus NEW_WORD per question word no earlier pick holds (`_next_pick`): the answer covers what the question
    asks rather than repeating one part of it. A candidate naming, in one identifier, NAMED_WORDS words of the question that no
    picked passage holds or names (`_names_the_question`: the part of the question the picks leave out) is added
    last, the best-scored one, even below the floor or past `max_sentences` (one passage more). Without
    `max_sentences`, the passage whose sentence reads closest to the question (the highest cosine, `_closest`) is
    quoted after the picks when they do not hold it, whatever its score (one passage more). With no candidate
    at all, the first sentence of each of the two best sources is used. A passage shows a short code block after it
    when on topic, or when it is the paragraph's last sentence and the block at most EXAMPLE_LINES lines
    (`with_code_after`). A sentence
    keeps its own final punctuation ("..." stays "...")."""
    from ragls.answer.template import source_label

    question = asked_text(question)
    query = set(content_words(question)) | literal_terms(question)
    candidates, firsts = candidate_passages(sources, literal_terms(question))
    cosines = None
    if embed is not None and candidates:
        candidates = [candidates[i] for i in _worth_embedding(query, candidates)]  # the others cannot be picked
        # the sentence alone: a code block it introduces would pull its cosine away from the question it answers
        qvec = embed_query(question) if embed_query is not None else embed([question])[0]
        vecs = embed([c.unit.sentence for c in candidates])
        cosines = [float(v) for v in (vecs @ qvec)]
    weights = passage_scores(query, [c.unit for c in candidates], [c.words for c in candidates], cosines)
    scored = [(-w * weight * rank_prior(rank), rank, pos, n, unit)
              for w, (rank, pos, n, unit, _, weight) in zip(weights, candidates) if w is not None]
    scored.sort(key=lambda t: t[:3])
    closest = None  # with embed: the passage of the highest cosine, quoted even below the floor (`_closest`)
    named = []  # the best passage naming the question's words in one identifier, even below the floor
    if cosines is not None and scored:
        floor = -scored[0][0] * RELATIVE_FLOOR
        strong = max(-t[0] / rank_prior(t[1]) for t in scored) * EVIDENCE_FLOOR  # its own evidence, rank aside
        named = [t for t in scored if _names_the_question(t[4], query)]
        closest = _closest(scored, candidates, cosines)
        scored = [t for t in scored if -t[0] >= floor or -t[0] / rank_prior(t[1]) >= strong]
    picked: list[tuple[int, Unit]] = []
    seen: set[str] = set()
    covered: set[str] = set()  # the question's words the picked passages hold or name
    remaining = list(scored)
    limit = max_sentences or EXTRACTIVE_MAX_SENTENCES
    while remaining and len(picked) < limit:
        *_, n, unit = remaining.pop(_next_pick(remaining, query, covered) if picked and cosines is not None else 0)
        held = _held_items(n, unit, picked, seen)
        if held:  # a ":" sentence whose list holds picked items: it and its whole list take the first one's place
            picked[held[0]] = (n, unit)
            picked = [p for i, p in enumerate(picked) if i not in held[1:]]
            seen.add(_normalised(unit.text))
            covered |= _matched(unit, query)
        elif _fresh(n, unit, picked, seen):
            seen.add(_normalised(unit.text))
            picked.append((n, unit))
            covered |= _matched(unit, query)
            if max_sentences is None and len(picked) == limit == EXTRACTIVE_MAX_SENTENCES \
                    and sum(len(u.text) for _, u in picked) < SHORT_ANSWER_CHARS:
                limit += 1  # four short passages: room for a fifth
    if closest is not None and max_sentences is None:
        n, unit = closest  # the passage reading closest to the question, whatever its source's rank
        if _fresh(n, unit, picked, seen):
            seen.add(_normalised(unit.text))
            picked.append((n, unit))
    for *_, n, unit in named:
        if _names_the_question(unit, query - covered) and _fresh(n, unit, picked, seen):
            picked.append((n, unit))
            break
    picked = _completed(picked, dict(sources), query)
    introduced = {(n, u.block_end) for n, u in picked if u.attached}  # blocks a picked ":" sentence shows
    picked = _block_once([(n, unit if (n, unit.code_end) in introduced else with_code_after(unit, query, EXAMPLE_LINES))
                          for n, unit in picked]) or firsts
    if not picked:  # chunks with no prose at all (code only): point at them
        picked = [(n, Unit(f"See {source_label(hit)}", line=-1)) for n, hit in sources[:2]]
    return picked


def _completed(picked: list[tuple[int, Unit]], hits: dict[int, Hit], query: set[str] | frozenset[str]
               ) -> list[tuple[int, Unit]]:
    """`picked` with each passage that refers back to the sentence right before it read with that sentence
    (`_antecedent`), and each sentence read with the sentence right after it in its chunk (the same paragraph or
    the next, only a blank line between) when that one names an identifier the question's words point at
    (`pointed_at`) that the first does not name, in its own words or in the code of at most SHORT_CODE_LINES lines
    it shows (`with_code_after`, or the block it introduces): a lead-in quoted without what completes it ("... another
    solution is to run the tests one at a time." then "If you want more control over the number of threads used,
    you can send the `--test-threads` flag ... Take a look at the following example:" and `cargo test --
    --test-threads=1`). The prose says what to do, the next sentence names how; shown as one passage under the
    first one's citation. A sentence that names such an identifier already is read with the next one only when the
    two are shorter than EXTRACTIVE_MAX_SENTENCE_CHARS: "In this mode `sys.stdout.fileno()` ... raise
    `io.UnsupportedOperation`" then "C-level consumers (`faulthandler`, ...) must opt into the `capture="fd"` mode"
    for a question naming both (measured: docs/benchmarks.md, "The next sentence naming another identifier").
    A next sentence the answer quotes anyway stays where it is (two answering sentences of
    one paragraph are not one passage: "This is why we recommend Sentry ..." and "If you specify `block=True`
    ..." each answer one part of a question). List items and table rows are whole units of their own
    and are never joined (`Unit.item`); a longer block after the next sentence is an example of something else
    more often than the line the user needs (measured: docs/benchmarks.md, "Lead-ins read with what completes
    them")."""
    out: list[tuple[int, Unit]] = []
    quoted = {(n, u.line, u.sentence) for n, u in picked}
    for n, unit in picked:
        hit = hits.get(n)
        found = units(hit.chunk.text, markdown=is_markdown(hit.chunk.path)) if hit is not None and unit.line >= 0 else []
        at = next((i for i, u in enumerate(found) if u.line == unit.line and u.sentence == unit.sentence), None)
        prev, own = (found[at - 1] if at else None), unit
        if prev is not None and _antecedent(prev, unit) and (n, prev.line, prev.sentence) not in quoted \
                and not any(k == n and (_quotes(m, prev) or _quotes(prev, m)) for k, m in picked):
            unit = replace(unit, sentence=f"{prev.sentence} {unit.sentence}", line=prev.line)
        mine = pointed_at(identifier_words(own.scored_text), query)
        if at is not None and not own.attached:
            nxt = with_code_after(found[at + 1], query) if at + 1 < len(found) else None
            if nxt is not None and nxt.line - unit.end <= 2 and not unit.item and not nxt.item \
                    and _code_lines(nxt.attached) <= SHORT_CODE_LINES \
                    and pointed_at(identifier_words(nxt.text), query) - mine \
                    and (not mine or len(unit.sentence) + len(nxt.sentence) < EXTRACTIVE_MAX_SENTENCE_CHARS) \
                    and (n, nxt.line, nxt.sentence) not in quoted \
                    and not any(k == n and (_quotes(m, nxt) or _quotes(nxt, m)) for k, m in picked):
                unit = replace(nxt, sentence=f"{unit.sentence} {nxt.sentence}", line=unit.line)
            elif _explains(unit, found[at + 1] if at + 1 < len(found) else None) \
                    and (n, found[at + 1].line, found[at + 1].sentence) not in quoted \
                    and not any(k == n and (_quotes(m, found[at + 1]) or _quotes(found[at + 1], m)) for k, m in picked):
                unit = replace(found[at + 1], sentence=f"{unit.sentence} {found[at + 1].sentence}", line=unit.line)
        out.append((n, unit))
        after = _after_block(found, at, own, query) if at is not None else None
        if after is not None and (n, after.line, after.sentence) not in quoted \
                and not any(k == n and (_quotes(m, after) or _quotes(after, m)) for k, m in picked):
            out.append((n, after))
            quoted.add((n, after.line, after.sentence))
    return out


def _explains(unit: Unit, nxt: Unit | None) -> bool:
    """Whether `nxt`, the passage right after `unit` in its chunk, is read with it (`_completed`): a short sentence of
    the same paragraph (at most NEXT_REFERENCE_WORDS words, no blank line between) that refers back to it
    (`_BACK_REFERENCE`: "This happens when returning to the top of a loop." after "A branch can go backwards in a
    file, so you might see a branch from a later line to an earlier line, like `55->50`."): it says why or what
    for, which the question often asks, in words it shares with neither (measured: docs/benchmarks.md, "Extractive
    answers: Key misses of coverage.py and Poetry classified"). Never a list item or table row, a passage carrying a
    block, or a pair longer than EXTRACTIVE_MAX_SENTENCE_CHARS or FOCUS_SENTENCE_LINES lines."""
    return nxt is not None and not unit.item and not nxt.item and not unit.attached and not nxt.attached \
        and nxt.line <= unit.end + 1 and len(nxt.sentence.split()) <= NEXT_REFERENCE_WORDS \
        and _BACK_REFERENCE.match(nxt.sentence) is not None \
        and len(unit.sentence) + len(nxt.sentence) < EXTRACTIVE_MAX_SENTENCE_CHARS \
        and nxt.end - unit.line < FOCUS_SENTENCE_LINES


def _after_block(found: list[Unit], at: int, own: Unit, query: set[str] | frozenset[str]) -> Unit | None:
    """The sentence right after the block that passage `found[at]` (`own`, a ":" sentence) carries, when
    `extractive_picks` quotes it after `own` (`_completed`): it opens the paragraph after the block (only a blank
    line between), is not a list item, and names an identifier the question's words point at (`pointed_at`) that
    neither `own` nor its block names. The block shows how, and the sentence after it often names the option that
    does what the question asks: "The easiest way is creating a small `start-myproject.py` file that runs the
    application using the builtin server:", its `run_simple(...)` example, then "You can also pass it the
    `extra_files` keyword argument with a list of additional files (like configuration files) you want to observe."
    for "How do I make run_simple watch that file too?". Quoted as a passage of its own (its own citation lines).
    None otherwise."""
    if not own.attached or own.block_end <= own.end:
        return None
    nxt = next((u for u in found[at + 1:] if u.line > own.block_end), None)
    if nxt is None or nxt.item or nxt.line - own.block_end > 2:
        return None
    mine = pointed_at(identifier_words(own.text), query)
    return nxt if pointed_at(identifier_words(nxt.sentence), query) - mine else None


# A sentence opening with a word that refers back to the sentence before it: a connective ("So", "Thus",
# "However", "To do this,") or a pronoun or demonstrative subject ("It", "This", "These", "They").
_BACK_REFERENCE = re.compile(r"^(?:So|Thus|Therefore|Hence|However|Otherwise|Instead|Also|Then|It|Its|This|That|These|"
                             r"Those|They|Their|Such|To do (?:this|so|that)|In (?:this|that|which|such a) case|"
                             r"As a result|For (?:this|that) reason)\b")


def _antecedent(prev: Unit, unit: Unit) -> bool:
    """Whether passage `unit` is read with `prev`, the passage right before it in its chunk (the same paragraph, or
    the one before with only a blank line between): `unit` refers back to it — it opens with a connective or a
    pronoun (`_BACK_REFERENCE`: "So if you're making several requests to the same host, the underlying TCP
    connection will be reused" after "It also persists cookies ... made from the Session instance") — or it
    speaks in words of an identifier `prev` names and names none itself ("A background task should be attached to
    a response" after "Starlette includes a `BackgroundTask` class": every word of the name, at least two, in
    `unit`). A sentence quoted without what it refers to answers less than it says (the antecedent problem of
    extractive summaries); shown as one passage, display only (the scores are the picked sentence's own).
    Never list items, table rows or fields (`Unit.item`), a `prev` carrying a block, or a pair longer than
    EXTRACTIVE_MAX_SENTENCE_CHARS or than FOCUS_SENTENCE_LINES lines (`focus_lines` cites a passage from its first
    line on: a longer pair's citation would stop before the picked sentence)."""

    if unit.item or prev.item or prev.attached or unit.line - prev.end > 2 \
            or len(prev.sentence) + len(unit.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS \
            or unit.end - prev.line >= FOCUS_SENTENCE_LINES:
        return False
    if _BACK_REFERENCE.match(unit.sentence):
        return True
    if identifier_words(unit.sentence):
        return False
    words = passage_words(unit.sentence)
    return any(len(named := identifier_words(m.group(0))) >= 2 and named <= words
               for m in IDENTIFIER.finditer(prev.sentence))


def _code_lines(block: str) -> int:
    """The lines of `block` (a list or code block as `Unit.attached` shows it) that are not blank or fences."""
    return sum(1 for x in block.split("\n") if x.strip() and not x.startswith(("```", "~~~")))


def _matched(unit: Unit, query: set[str] | frozenset[str]) -> frozenset[str]:
    """The words of `query` that `unit` (`Unit.scored_text`) holds or names (`pointed_at`)."""
    return (passage_words(unit.scored_text) & query) | pointed_at(identifier_words(unit.scored_text), query)


def _next_pick(remaining: list, query: set[str] | frozenset[str], covered: set[str]) -> int:
    """The index in `remaining` (scored candidates `(-score, rank, pos, n, unit)`, best first) of the next passage
    of an answer whose picks so far hold or name the question words `covered`: the best score plus NEW_WORD per
    question word the passage holds that no pick holds (`_matched`). A question asking two things ("Is there a
    default limit per host, and how can several sessions share one pool?") is answered by passages on each, not
    by four on the first; a passage repeating what the picks already say gains nothing. Ties as in the first
    ordering (source rank, then position)."""
    return min(range(len(remaining)), key=lambda j: (
        remaining[j][0] - NEW_WORD * len(_matched(remaining[j][4], query) - covered), remaining[j][1], remaining[j][2]))


def _fresh(n: int, unit: Unit, picked: list[tuple[int, Unit]], seen: set[str]) -> bool:
    """True when `unit` of source `n` is not quoted yet: its normalised text is not in `seen` (the same passage from
    two sources, a selection and its file, once) and no passage picked from the same source holds it or is held by
    it (`_quotes`)."""
    return _normalised(unit.text) not in seen and not any(_quotes(m, unit) or _quotes(unit, m)
                                                          for k, m in picked if k == n)


def _held_items(n: int, unit: Unit, picked: list[tuple[int, Unit]], seen: set[str]) -> list[int]:
    """Indexes in `picked` of the list items of source `n` that passage `unit` (a ":" sentence) carries in its list
    (`_quotes`), when `unit` is quoted nowhere else: `extractive_picks` then quotes `unit` with its whole list in the
    first item's place. An item quoted alone answers less than the list its lead-in introduces: "A title defined in
    the nav configuration setting for a document." is the first of four ways "MkDocs will attempt to determine the
    title of a document in the following ways, in order:", and a question asking where a title comes from needs
    the other three. Empty when `unit` carries no list or one longer than EXAMPLE_LINES lines (an answer stays
    short), holds no pick, or is quoted already."""
    if not unit.attached or not LIST_ITEM.match(unit.attached) or _code_lines(unit.attached) > EXAMPLE_LINES \
            or _normalised(unit.text) in seen \
            or any(k == n and _quotes(m, unit) for k, m in picked):
        return []
    return [i for i, (k, m) in enumerate(picked) if k == n and m.item and _quotes(unit, m)]


def _closest(scored: list, candidates: list[Candidate], cosines: list[float]) -> tuple[int, Unit] | None:
    """`(n, unit)` of the scored candidate (`(-score, rank, pos, n, unit)`, any score, floor or not) whose sentence
    has the highest cosine similarity to the question, ties to the better-ranked source, then the earlier passage.
    `extractive_picks` quotes it after its picks when they do not hold it: the rank prior, the window weight and the
    word and identifier bonuses rank a top hit's sentences that share the question's words above a lower hit's
    sentence that says what was asked in other words ("You can also easily print to standard error by passing
    `err=True`:" for "How do I write a warning to stderr rather than stdout with click's print function?", cosine
    0.56 against at most 0.49 for the picks, second hit, outside its best window). The sentence model was trained on
    sentence pairs; its single best match is worth a place whatever its source's rank (measured: docs/benchmarks.md,
    "The passage closest by meaning")."""
    closeness = {id(c.unit): x for c, x in zip(candidates, cosines)}
    best = min(scored, key=lambda t: (-closeness[id(t[4])], t[1], t[2]), default=None)
    return None if best is None else (best[3], best[4])


def rank_prior(rank: int) -> float:
    """The weight of a passage of the source at 0-based `rank` (0 = the best hit): 1 / (1 + RANK_DAMPING * rank).
    Measured, not assumed (docs/benchmarks.md, "Passages across hits"): on the five dev sets and their probes any
    weaker damping (0, 0.1, 0.2) or stronger one (0.4, 0.5) lost more answer keys than it gained: a sentence's own
    evidence (its cosine, shared words, the identifier the question points at) does not yet tell a lower hit's
    answering sentence from its off-topic ones as well as the hit's rank does."""
    return 1 / (1 + RANK_DAMPING * rank)


def _names_the_question(unit: Unit, query: set[str] | frozenset[str]) -> bool:
    """Whether one identifier of `unit` (`Unit.scored_text`), one token (a code span holding spaces is a phrase
    or a command, not a name), is pointed at by NAMED_WORDS or more words of the question (`pointed_at`): `X-Line-Length` for "which header sets the line length" — the name the user asks for,
    although its sentence reads less like the question. `query`: the question's words not yet answered."""
    text = unit.scored_text
    return any(len(pointed_at(identifier_words(m.group(0)), query)) >= NAMED_WORDS
               for m in IDENTIFIER.finditer(text) if not any(c.isspace() for c in m.group(0)))


def candidate_passages(sources: list[tuple[int, Hit]], literals: set[str] | frozenset[str] = frozenset()
                       ) -> tuple[list[Candidate], list[tuple[int, Unit]]]:
    """(candidates, firsts) of `extractive_picks` (and of `answer/focus.sentence_focus`, one source at a time):
    every passage of each source's chunk as a `Candidate` — its words with the `literals` (dotted numbers) of the
    question it holds, weight 1 within the source's context lines (`_context_lines`), OUTSIDE_WINDOW elsewhere
    (all 1 when the context holds no passage) — and the first passage of the context of each of the two best
    sources (the answer when nothing scores)."""
    candidates: list[Candidate] = []
    firsts: list[tuple[int, Unit]] = []
    for rank, (n, hit) in enumerate(sources):
        context = _context_lines(hit)
        markdown = is_markdown(hit.chunk.path)
        inside = units(hit.chunk.text, context, markdown) if context is not None else []
        near = {(u.line, u.sentence) for u in inside}
        for pos, unit in enumerate(units(hit.chunk.text, markdown=markdown)):
            weight = 1.0 if not inside or (unit.line, unit.sentence) in near else OUTSIDE_WINDOW
            words = passage_words(unit.scored_text)
            if literals:
                words = words | (literal_terms(unit.scored_text) & literals)
            candidates.append(Candidate(rank, pos, n, unit, words, weight))
        first = inside[:1] or units(hit.chunk.text, markdown=markdown)[:1]
        if first and len(firsts) < 2:
            firsts.append((n, first[0]))
    return candidates, firsts


def _worth_embedding(query: set[str], candidates: list[Candidate]) -> list[int]:
    """Indexes of the `candidates` worth a sentence embedding, in candidate order: the EMBEDDED_CANDIDATES best —
    those sharing words with the question by lexical score (`passage_scores` without cosines) damped by source rank
    like the final score, then those sharing none by source rank and position — and, beyond them, the
    EMBEDDED_PER_SOURCE of each source sharing words with the best lexical score, undamped (at most
    EMBEDDED_CANDIDATES + EMBEDDED_PER_SOURCE x sources; 14 on average on the dev sets, against 12). The rank damping
    let the top hit's sentences fill every place: "For this specific purpose, you can use the `env use` command to
    tell Poetry which Python version to use for the current project." (fifth hit, the highest cosine of all
    candidates) was never embedded, so never picked nor quoted as the closest (`_closest`) for "How do I switch it
    [to the 3.12 interpreter]?" (measured: docs/benchmarks.md, "Extractive answers: Key misses of coverage.py and
    Poetry classified"). The model pass is most of `rag/ask`'s time (~30 sentences, docs/benchmarks.md). A
    candidate beyond these is not picked (its price: a sentence sharing no word with the question, past that many,
    is not found by meaning)."""
    lexical = passage_scores(query, [c.unit for c in candidates], [c.words for c in candidates])
    order = sorted(range(len(candidates)), key=lambda i: (
        lexical[i] is None, -(lexical[i] or 0.0) * candidates[i].weight * rank_prior(candidates[i].rank), i))
    chosen = set(order[:EMBEDDED_CANDIDATES])
    per_source: dict[int, int] = {}
    for i in sorted((i for i, x in enumerate(lexical) if x is not None),
                    key=lambda i: (-(lexical[i] or 0.0) * candidates[i].weight, i)):
        rank = candidates[i].rank
        if per_source.get(rank, 0) < EMBEDDED_PER_SOURCE:
            per_source[rank] = per_source.get(rank, 0) + 1
            chosen.add(i)
    return sorted(chosen)


def _quotes(a: Unit, b: Unit) -> bool:
    """Whether passage `a` already shows passage `b` (both of one chunk): `b`'s lines lie within the list or code
    block `a` carries ("Black will exit with:" and its list, then one of its items) — no text twice in an answer."""
    return a.block_end > a.end and a.end < b.line and b.end <= a.block_end


def with_code_after(unit: Unit, query: set[str] | frozenset[str], example_lines: int = 0) -> Unit:
    """`unit` showing the code block right after its sentence (`Unit.code_after`) when that code names an
    identifier pointing at a word of the question (`pointed_at`) that the sentence itself does not name: "it
    might improve performance to increase this number" answers "how do I raise the number of pools?" with
    `urllib3.PoolManager(num_pools=50)` under it. Code of at most SHORT_CODE_LINES lines naming such an
    identifier comes with it even when the sentence names it too: "configure git to ignore revisions listed in a
    file on every call to `git blame`" answers with its one `git config blame.ignoreRevsFile ...` line. Any
    sentence of the paragraph above the block can show it (`Unit.code_after`); one that is not the paragraph's
    last only code that short (the block right after a sentence illustrates that sentence; a long one under an
    earlier sentence is often about the rest of the paragraph: the 28-line test module under "When valid data is
    sent in a POST request, create should insert ..."). With `example_lines` (an answer's passages:
    EXAMPLE_LINES; the focus passes none), a block of at most that many lines right after the paragraph's last
    sentence comes with it whatever it names: the short example under a sentence shows how to do what the sentence
    says, and its name is often one the question's own words never point at — "How do I lock a view so that only
    signed-in users can open it?" is answered by `@requires('authenticated')` under "Alternatively you might want to
    redirect unauthenticated users to a different page." (measured: docs/benchmarks.md, "Short examples under an
    answering sentence"). Never a program's output (`Unit.output`). Otherwise `unit` as it is."""
    if not unit.code_after or unit.attached or unit.output:  # a program's output is not what to do
        return unit
    code = pointed_at(identifier_words(unit.code_after), query)
    own = set(content_words(unit.sentence)) | pointed_at(identifier_words(unit.sentence), query)
    short = _code_lines(unit.code_after)
    example = unit.code_scored and short <= example_lines  # right after the paragraph's last sentence
    if not example and not (code and short <= SHORT_CODE_LINES) and (not code - own or not unit.code_scored):
        return unit
    return replace(unit, attached=unit.code_after, block_end=unit.code_end, code_after="")


def _block_once(picked: list[tuple[int, Unit]]) -> list[tuple[int, Unit]]:
    """`picked` with each block of a chunk shown once, under the first passage showing it: two sentences of one
    paragraph can both carry the code block after it (`Unit.code_after`, `with_code_after`; a block whose ":"
    sentence is picked too stays with that sentence, `extractive_picks`). A later passage keeps its sentence; a
    ":" at its end, with nothing under it now, becomes "."."""
    shown: set[tuple[int, int]] = set()
    out = []
    for n, unit in picked:
        if unit.attached and unit.block_end > unit.end:
            if (n, unit.block_end) in shown:
                sentence = unit.sentence[:-1].rstrip() + "." if unit.sentence.endswith(":") else unit.sentence
                unit = replace(unit, sentence=sentence, attached="", block_end=unit.end)
            else:
                shown.add((n, unit.block_end))
        out.append((n, unit))
    return out


def _normalised(text: str) -> str:
    """`text` lower-cased with its whitespace runs as single spaces (how passages are compared)."""
    return " ".join(text.split()).lower()


def asked_text(question: str) -> str:
    """What `question` asks, without the fenced blocks it quotes: Ask About Selection (both clients) sends
    "question\n\nSelected text (file:5-6):\n```\n…\n```", and scoring passages against the quoted selection picks
    the selection's own sentences ("Who owns the rename?" answered with the selected "The team agreed to rename
    …" instead of "Priya owns the rename" beside it); the clients' "Selected text (…):" label goes too. The whole question when nothing is left outside the fences
    or it has no fence."""
    prose = _SELECTION_LABEL.sub(" ", _FENCED.sub(" ", question))
    return prose if content_words(prose) else question


def render_extractive(picked: list[tuple[int, Unit]], label: str = EXTRACTIVE_LABEL) -> str:
    """The `label` line, then each passage `(n, unit)` as a list item followed by its `[n]`; a passage that
    introduces a list or code block (ends in ":") carries it, indented under its bullet."""
    lines = []
    for n, unit in picked:
        body = unit.sentence.rstrip()
        end = body[-1] if body[-1] in ".!?:" and not body.endswith((". .", "..")) and not _code_end(body) else ""
        lines.append(f"- {body[: len(body) - len(end)].rstrip()} [{n}]{end}")
        if unit.attached:
            lines += ["  " + x if x else "" for x in unit.attached.split("\n")]
    return label + "\n\n" + "\n".join(lines)


def _code_end(body: str) -> bool:
    """Whether the last character of `body` belongs to code, not to the sentence: it is inside an unclosed code
    span, or a lone "." / "?" after a space ("python -m black --no-cache ." — the command's argument), so the
    citation marker must go after it, never inside the code."""
    return body.count("`") % 2 == 1 or (len(body) > 1 and body[-2].isspace())


def split_sentences(text: str) -> list[str]:
    """The candidate sentences (and list items) of a chunk text, without the blocks they introduce."""
    return [u.sentence for u in units(text)]
