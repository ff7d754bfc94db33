"""Extractive answers (no LLM): the passages of the top hits that best answer the question, cited as `[n]`.

Built from each hit's chunk, its best embedding window (`Hit.best_window`, else `Hit.window`) first, read as passages
by `passages.py` (sentences across hard line wraps, whole list items, a ":" sentence with the list or code block it
introduces; markup that is not text removed).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from typing import Any

from ragls.answer.across_chunks import block_across, block_continued, option_continued
from ragls.answer.answer_type import asked_type, names_asked_type
from ragls.answer.candidates import Candidate, candidate_passages
from ragls.answer.cite import content_words
from ragls.answer.extractive_label import EXTRACTIVE_LABEL
from ragls.answer.fences import shown_fences
from ragls.answer.identifiers import (
    IDENTIFIER,
    LITERAL,
    SHORT_OPTION,
    identifier_words,
    literal_terms,
    passage_words,
    pointed_at,
)
from ragls.answer.includes import FileFilters
from ragls.answer.labels import labelled
from ragls.answer.lead_ins import lead_in_text
from ragls.answer.neighbours import (
    code_lines,
    quotes,
    read_with_neighbours,
    with_code_after,
)
from ragls.answer.next_passage import by_source, with_next_passages
from ragls.answer.passages import LIST_ITEM, Unit, chunk_units, clean_markup, units
from ragls.answer.program_output import EXAMPLE_END
from ragls.answer.repeats import quoted_once
from ragls.answer.sentences import ABBREVIATION_END
from ragls.core.ir import Chunk, Hit

__all__ = [
    "EXTRACTIVE_LABEL",
    "EXTRACTIVE_MAX_SENTENCES",
    "Candidate",
    "Unit",
    "answer_sentences",
    "candidate_passages",
    "clean_markup",
    "extractive_answer",
    "extractive_picks",
    "passage_words",
    "render_extractive",
    "split_sentences",
    "units",
]

EXTRACTIVE_MAX_SENTENCES = 4
SHORT_ANSWER_CHARS = 800  # four passages (sentences and blocks) this short in all leave room for a fifth

IDENTIFIER_BONUS = 0.1  # a passage naming an identifier the question's words point at (see extractive_answer)
KIND_ASKED = "\0kind"  # what `_matched` counts for a passage naming the kind of thing asked (`_next_pick`)
TYPE_BONUS = 0.1  # a passage naming a thing of the kind the question asks for (`answer_type`, passage_scores)
CODE_BONUS = 0.03  # a passage naming some identifier (code span, `name=`, `Class.method`, CamelCase), on topic
NAMED_WORDS = 2  # question words one identifier points at that make its passage an answer of its own
EXAMPLE_LINES = 8  # a code block this short after a paragraph's last sentence comes with it in an answer
EMBEDDED_CANDIDATES = 12  # with embed: the most candidates embedded per answer (`_worth_embedding`)
# with embed: the candidates of each source sharing the most question words, embedded beyond EMBEDDED_CANDIDATES
# (a lower hit's answering sentence was outranked there by the top hit's by rank alone; `_worth_embedding`)
EMBEDDED_PER_SOURCE = 3  # 2 until session 46: a lower hit's third sentence by words named the means
# with embed: a passage scoring below this share of the best one is off topic (0.6 until session 41: six answering
# sentences of the dev sets sat within 3 % under it; bench/history/sessions-40-41.md, "Extractive answers: the quoting floor")
RELATIVE_FLOOR = 0.58
EVIDENCE_FLOOR = 0.85  # with embed: ... unless its score before the rank prior is this share of the best such score
WORD_WEIGHT = 0.05  # with embed: added to a passage's cosine per question word it shares (see extractive_picks)
NEW_WORD = 0.15  # with embed: added to a later pick's score per question word no earlier pick holds (_next_pick)
RANK_DAMPING = 0.3  # a passage of the source at 0-based rank r weighs 1 / (1 + RANK_DAMPING * r) (rank_prior)
# with embed: the sources a passage quoted from a source the answer cites nothing from comes from (`_closest_elsewhere`)
ELSEWHERE_SOURCES = 5
ELSEWHERE_SHARE = 0.7  # ... and the share of the best cosine its own cosine reaches

_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)  # fenced blocks
_SELECTION_LABEL = re.compile(r"^Selected text \(.*\):[ \t]*$", re.MULTILINE)  # the clients' label above it


def passage_scores(query: set[str] | frozenset[str], found: list[Unit], words: list[set[str]] | list[frozenset[str]],
                   cosines: list[float] | None = None, kind: str | None = None) -> list[float | None]:
    """The score of each passage `found[i]` (its content words `words[i]`) for a question of content words `query`
    (`cite.content_words`, with its `literal_terms`), None for one left out; `cosines[i]`, when given, is the
    cosine similarity of the passage's sentence to the question (see `extractive_picks` for the rule; also
    retrieval/focus.py). A question word an identifier of the passage points at (`pointed_at`) counts as shared,
    and so does a literal term of the question the passage holds (a dotted number, a short option: it also earns
    IDENTIFIER_BONUS)."""
    query = frozenset(query)  # one key for `pointed_at`'s memo
    literals = {x for x in query if LITERAL.fullmatch(x) or SHORT_OPTION.fullmatch(x)}
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
        if kind is not None and names_asked_type(unit, kind):
            bonus += TYPE_BONUS
        if cosines is not None:
            out.append(None if not overlap and cosines[i] < 0.3 else cosines[i] + WORD_WEIGHT * len(overlap) + bonus)
        else:
            out.append(lexical[i] + bonus * top if overlap else None)
    return out


def extractive_answer(question: str, sources: list[tuple[int, Hit]],
                      max_sentences: int | None = None,
                      embed: Callable[[list[str]], Any] | None = None, label: str = EXTRACTIVE_LABEL,
                      embed_query: Callable[[str], Any] | None = None, files: FileFilters | None = None) -> str:
    """The `label` line (default EXTRACTIVE_LABEL), then the passages `extractive_picks` chooses as a list
    (`render_extractive`)."""
    return render_extractive(extractive_picks(question, sources, max_sentences, embed, embed_query, files), label)


def extractive_picks(question: str, sources: list[tuple[int, Hit]],
                     max_sentences: int | None = None,
                     embed: Callable[[list[str]], Any] | None = None,
                     embed_query: Callable[[str], Any] | None = None, files: FileFilters | None = None
                     ) -> list[tuple[int, Unit]]:
    """Up to `max_sentences` passages `(n, unit)` of `sources` that answer `question`, best first; `unit.line` is
    the passage's 0-based line in source n's chunk text, -1 for a "See <source>" pointer (no prose found).
    Without `max_sentences`, EXTRACTIVE_MAX_SENTENCES passages, and one more when they (sentences and the blocks
    they introduce) total fewer than SHORT_ANSWER_CHARS characters, about the median answer's length: an answer of
    four short passages has room for the next-best one, which is often the one naming the value ("If the range is invalid, the response will be a `416 Range Not
    Satisfiable` response." after four sentences on range requests; measured: bench/history/sessions-38-39.md, "Short
    examples under an answering sentence").

    Candidates (`passages.units`: sentences read across hard line wraps, whole list items) are the passages of
    each source's chunk; those outside its best window (`_context_lines`: `Hit.best_window`, else `Hit.window`) have
    their score weighted by OUTSIDE_WINDOW (`candidates.py`): the window is where the chunk reads closest to the
    question, not always where the sentence naming the answer sits. Lexical score of a candidate: the question's
    content words (`cite.content_words`) and dotted numbers (`literal_terms`, "3.9") it contains, or that one of
    its identifiers points at (`pointed_at`), each weighted by its inverse frequency among the candidates,
    idf(w) = ln(1 + N / df(w)) — a word found everywhere (the project's name) counts little. With `embed` (passage
    texts -> normalised vectors, the model's document side) and `embed_query` (question -> normalised vector, its
    query side: models with query/passage prompts embed the two differently; without it the question goes through
    `embed`, right only for a model that has no such prompts) candidates are ranked by the cosine similarity of
    their sentence (without the block it introduces) to the question instead (every candidate is embedded — the
    index's sentence pass stores their vectors — but only the EMBEDDED_CANDIDATES best by words and source rank,
    and each source's EMBEDDED_PER_SOURCE best by words, can be picked, `_worth_embedding`), plus WORD_WEIGHT per
    shared word; those
    sharing no word and below 0.3 cosine are left out, and so are those below RELATIVE_FLOOR of the best score (off
    topic). A candidate naming an identifier (`identifier_words`) gains IDENTIFIER_BONUS when the identifier points
    at a word of the question (`pointed_at`: the same word, one it abbreviates — `chars` for "characters" — or one
    inside it — "length" in `linelength`) or it holds a dotted number of the question, else CODE_BONUS when it
    shares a word with the question at all (a lexical score gains the same shares of the best lexical score).
    A question asking for a kind of thing ("What command starts ...?", `answer_type.asked_type`) gives a passage
    naming one of that kind ("... provides this with the `runworker` command:", `answer_type.names_asked_type`)
    TYPE_BONUS more, in the word pre-selection, for the lead and against the floors, which are taken on the scores
    without it (the kind asked is no evidence of the topic); later picks go by their scores without it, the kind
    counting once as a part of the question no pick covers (`_next_pick`; measured: bench/history/session-69.md,
    "The kind of thing asked for"). Either score is damped by the source's rank (`rank_prior`, 1 / (1 + 0.3 *
    rank)). Ties go to the better-ranked source, then the earlier candidate. A passage below RELATIVE_FLOOR of the best score is still kept when its
    score before the rank prior (its own evidence) reaches EVIDENCE_FLOOR of the best such score: a lower hit's
    sentence that reads as close to the question as any is not off topic for its rank. With `embed`, the best
    passage leads and each later one is the best by its
    score plus NEW_WORD per question word no earlier pick holds (`_next_pick`): the answer covers what the question
    asks rather than repeating one part of it. A candidate naming, in one identifier, NAMED_WORDS words of the question that no
    picked passage holds or names (`_names_the_question`: the part of the question the picks leave out) is added
    last, the best-scored one, even below the floor or past `max_sentences` (one passage more). Without
    `max_sentences`, the passage whose sentence reads closest to the question (the highest cosine, `_closest`) is
    quoted after the picks when they do not hold it, whatever its score (one passage more), and so is the closest
    of all candidates when the pre-selection left it out (`_rescued`); and after each passage read with its
    neighbours, the passage right after it in its chunk when that one scores NEXT_FLOOR (0.45) of the best passage,
    any candidate, pre-selected or not — as many as the floor left places among the picks, at least one, the best
    first (`next_passage.with_next_passages`). With no candidate
    at all, the first sentence of each of the two best sources is used. A passage shows a short code block after it
    when on topic, or when it is the paragraph's last sentence and the block at most EXAMPLE_LINES lines
    (`with_code_after`). A sentence
    keeps its own final punctuation ("..." stays "...")."""
    from ragls.answer.template import source_label

    question = asked_text(question)
    query = set(content_words(question)) | literal_terms(question)
    kind = asked_type(question)  # "Which command ...": passages naming a command gain TYPE_BONUS
    candidates, firsts = candidate_passages(sources, literal_terms(question), question, files)
    cosines = None
    rescued = None  # with embed: the closest candidate of all when the word pre-selection left it out (`_rescued`)
    every_passage: dict = {}  # with embed: each source's passages in order with their scores (`by_source`)
    if embed is not None and candidates:
        # the sentence alone: a code block it introduces would pull its cosine away from the question it answers
        qvec = embed_query(question) if embed_query is not None else embed([question])[0]
        vecs = embed([c.unit.sentence for c in candidates])  # all: the index's sentence pass stored them
        every_cosine = _with_lead_ins([float(v) for v in (vecs @ qvec)], candidates, embed, qvec)
        worth = _worth_embedding(query, candidates, kind)  # the others cannot be picked
        rescued = _rescued(query, candidates, every_cosine, worth)
        scores = passage_scores(query, [c.unit for c in candidates], [c.words for c in candidates], every_cosine)
        every_passage = by_source([(c.n, c.unit, None if x is None else x * c.weight * rank_prior(c.rank))
                                   for c, x in zip(candidates, scores)])  # every candidate, for `with_next_passages`
        candidates = [candidates[i] for i in worth]
        cosines = [every_cosine[i] for i in worth]
    plain = passage_scores(query, [c.unit for c in candidates], [c.words for c in candidates], cosines)
    weights = plain if kind is None else passage_scores(query, [c.unit for c in candidates],
                                                         [c.words for c in candidates], cosines, kind)
    scored = [(-w * weight * rank_prior(rank), rank, pos, n, unit)
              for w, (rank, pos, n, unit, _, weight) in zip(weights, candidates) if w is not None]
    scored.sort(key=lambda t: t[:3])
    # the floors measure the passages' topic, not the kind asked (TYPE_BONUS): their best score without it
    base = [(p * c.weight * rank_prior(c.rank), c.rank) for p, c in zip(plain, candidates) if p is not None]
    closest = None  # with embed: the passage of the highest cosine, quoted even below the floor (`_closest`)
    named = []  # the best passage naming the question's words in one identifier, even below the floor
    every: list = []  # with embed: every scored passage, floor or not (`_closest_elsewhere`); none when none scores
    if cosines is not None and scored:
        floor = max(b for b, _ in base) * RELATIVE_FLOOR
        strong = max(b / rank_prior(r) for b, r in base) * EVIDENCE_FLOOR  # its own evidence, rank aside
        named = [t for t in scored if _names_the_question(t[4], query)]
        closest = _closest(scored, candidates, cosines)
        every = list(scored)  # floor or not: `_closest_elsewhere` reads them after the picks
        scored = [t for t in scored if -t[0] >= floor or -t[0] / rank_prior(t[1]) >= strong]
    picked: list[tuple[int, Unit]] = []
    seen: set[str] = set()
    covered: set[str] = set()  # the question's words the picked passages hold or name
    remaining = list(scored)
    if kind is not None and cosines is not None and remaining:
        # TYPE_BONUS chooses the lead and lets a passage clear the floor; later picks go by their own score, the
        # kind asked counting once as a part of the question no pick covers yet (`_matched`, `_next_pick`)
        own = {id(c.unit): -p * c.weight * rank_prior(c.rank) for p, c in zip(plain, candidates) if p is not None}
        remaining = remaining[:1] + sorted(((own[id(t[4])], *t[1:]) for t in remaining[1:]), key=lambda t: t[:3])
    limit = max_sentences or EXTRACTIVE_MAX_SENTENCES
    while remaining and len(picked) < limit:
        *_, n, unit = remaining.pop(_next_pick(remaining, query, covered, kind) if picked and cosines is not None else 0)
        held = _held_items(n, unit, picked, seen)
        if held:  # a ":" sentence whose list holds picked items: it and its whole list take the first one's place
            picked[held[0]] = (n, unit)
            picked = [p for i, p in enumerate(picked) if i not in held[1:]]
            seen.add(_normalised(unit.text))
            covered |= _matched(unit, query, kind)
        elif _fresh(n, unit, picked, seen):
            seen.add(_normalised(unit.text))
            picked.append((n, unit))
            covered |= _matched(unit, query, kind)
            if max_sentences is None and len(picked) == limit == EXTRACTIVE_MAX_SENTENCES \
                    and sum(len(u.text) for _, u in picked) < SHORT_ANSWER_CHARS:
                limit += 1  # four short passages: room for a fifth
    best = max((b for b, _ in base), default=0.0) if scored else 0.0
    room = limit - len(picked)  # the places the quoting floor left empty (`with_next_passages` fills them)
    if closest is not None and max_sentences is None:
        n, unit = closest  # the passage reading closest to the question, whatever its source's rank
        if _fresh(n, unit, picked, seen):
            seen.add(_normalised(unit.text))
            picked.append((n, unit))
    if rescued is not None and max_sentences is None and _fresh(*rescued, picked, seen):
        seen.add(_normalised(rescued[1].text))
        picked.append(rescued)
    if cosines is not None and max_sentences is None:
        elsewhere = _closest_elsewhere(every, candidates, cosines, {k for k, _ in picked})
        if elsewhere is not None and _fresh(*elsewhere, picked, seen):
            seen.add(_normalised(elsewhere[1].text))
            picked.append(elsewhere)
    for *_, n, unit in named:
        if _names_the_question(unit, query - covered) and _fresh(n, unit, picked, seen):
            picked.append((n, unit))
            break
    picked = read_with_neighbours(picked, dict(sources), query, files)
    if every_passage and best > 0 and max_sentences is None:  # the passage after a quoted one (answer/next_passage.py)
        picked = with_next_passages(picked, every_passage, best, dict(sources), room)
    picked = [(n, block_across(n, unit, dict(sources))) for n, unit in picked]  # a lead-in's block in the next chunk
    picked = [(n, block_continued(n, unit, dict(sources))) for n, unit in picked]  # a block the chunk's end cut
    picked = [(n, option_continued(n, unit, dict(sources))) for n, unit in picked]  # a help option's description too
    introduced = {(n, u.block_end) for n, u in picked if u.attached}  # blocks a picked ":" sentence shows
    picked = quoted_once([(n, unit if (n, unit.code_end) in introduced else with_code_after(unit, query, EXAMPLE_LINES))
                          for n, unit in picked]) or firsts
    if not picked:  # chunks with no prose at all (code only): point at them
        picked = [(n, Unit(f"See {source_label(hit)}", line=-1)) for n, hit in sources[:2]]
    return picked


def _with_lead_ins(cosines: list[float], candidates: list[Candidate], embed: Callable[[list[str]], Any],
                   qvec: Any) -> list[float]:
    """`cosines` (of each candidate's sentence to the question vector `qvec`) with each short lead-in's
    (`lead_in_text`) raised to the cosine of its sentence read with its block when that is higher."""
    leads = [(i, t) for i, c in enumerate(candidates) if (t := lead_in_text(c.unit))]
    if not leads:
        return cosines
    out = list(cosines)
    for (i, _), x in zip(leads, embed([t for _, t in leads]) @ qvec):
        out[i] = max(out[i], float(x))
    return out


def _matched(unit: Unit, query: set[str] | frozenset[str], kind: str | None = None) -> frozenset[str]:
    """The words of `query` that `unit` (`Unit.scored_text`) holds or names (`pointed_at`), and KIND_ASKED when
    it names a thing of the `kind` the question asks for (`answer_type.names_asked_type`): the kind asked is a part
    of the question as its words are."""
    found = (passage_words(unit.scored_text) & query) | pointed_at(identifier_words(unit.scored_text), query)
    return found | {KIND_ASKED} if kind is not None and names_asked_type(unit, kind) else found


def _next_pick(remaining: list, query: set[str] | frozenset[str], covered: set[str], kind: str | None = None) -> int:
    """The index in `remaining` (scored candidates `(-score, rank, pos, n, unit)`, best first) of the next passage
    of an answer whose picks so far hold or name the question words `covered`: the best score plus NEW_WORD per
    question word the passage holds that no pick holds (`_matched`). A question asking two things ("Is there a
    default limit per host, and how can several sessions share one pool?") is answered by passages on each, not
    by four on the first; a passage repeating what the picks already say gains nothing. With the `kind` of thing
    the question asks for (`answer_type.asked_type`), a passage naming one counts it as one more such word
    (KIND_ASKED) until a pick names one. Ties as in the first ordering (source rank, then position)."""
    return min(range(len(remaining)), key=lambda j: (
        remaining[j][0] - NEW_WORD * len(_matched(remaining[j][4], query, kind) - covered), remaining[j][1], remaining[j][2]))


def _fresh(n: int, unit: Unit, picked: list[tuple[int, Unit]], seen: set[str]) -> bool:
    """True when `unit` of source `n` is not quoted yet: its normalised text is not in `seen` (the same passage from
    two sources, a selection and its file, once) and no passage picked from the same source holds it or is held by
    it (`neighbours.quotes`)."""
    return _normalised(unit.text) not in seen and not any(quotes(m, unit) or quotes(unit, m)
                                                          for k, m in picked if k == n)


def _held_items(n: int, unit: Unit, picked: list[tuple[int, Unit]], seen: set[str]) -> list[int]:
    """Indexes in `picked` of the list items of source `n` that passage `unit` (a ":" sentence) carries in its list
    (`neighbours.quotes`), when `unit` is quoted nowhere else: `extractive_picks` then quotes `unit` with its whole list in the
    first item's place. An item quoted alone answers less than the list its lead-in introduces: "A title defined in
    the nav configuration setting for a document." is the first of four ways "MkDocs will attempt to determine the
    title of a document in the following ways, in order:", and a question asking where a title comes from needs
    the other three. Empty when `unit` carries no list or one longer than EXAMPLE_LINES lines (an answer stays
    short), holds no pick, or is quoted already."""
    if not unit.attached or not LIST_ITEM.match(unit.attached) or code_lines(unit.attached) > EXAMPLE_LINES \
            or _normalised(unit.text) in seen \
            or any(k == n and quotes(m, unit) for k, m in picked):
        return []
    return [i for i, (k, m) in enumerate(picked) if k == n and m.item and quotes(unit, m)]


def _closest(scored: list, candidates: list[Candidate], cosines: list[float]) -> tuple[int, Unit] | None:
    """`(n, unit)` of the scored candidate (`(-score, rank, pos, n, unit)`, any score, floor or not) whose sentence
    has the highest cosine similarity to the question, ties to the better-ranked source, then the earlier passage.
    `extractive_picks` quotes it after its picks when they do not hold it: the rank prior, the window weight and the
    word and identifier bonuses rank a top hit's sentences that share the question's words above a lower hit's
    sentence that says what was asked in other words ("You can also easily print to standard error by passing
    `err=True`:" for "How do I write a warning to stderr rather than stdout with click's print function?", cosine
    0.56 against at most 0.49 for the picks, second hit, outside its best window). The sentence model was trained on
    sentence pairs; its single best match is worth a place whatever its source's rank (measured: bench/history/sessions-38-39.md,
    "The passage closest by meaning")."""
    closeness = {id(c.unit): x for c, x in zip(candidates, cosines)}
    best = min(scored, key=lambda t: (-closeness[id(t[4])], t[1], t[2]), default=None)
    return None if best is None else (best[3], best[4])


def _rescued(query: set[str], candidates: list[Candidate], cosines: list[float], worth: list[int]
             ) -> tuple[int, Unit] | None:
    """`(n, unit)` of the candidate whose sentence has the highest cosine similarity to the question among all
    `candidates` (`cosines[i]` for candidate i; ties to the better-ranked source, then the earlier passage), when it
    is none of those `_worth_embedding` chose (indexes `worth`) and `passage_scores` would score it (it shares a
    word with the question or reaches 0.3); else None. `extractive_picks` quotes it after `_closest` (one passage
    more): the word pre-selection ranks a top hit's sentences that repeat the question's words above a lower one's
    that answers in other words, and only the pre-selected candidates can be picked ("So you are expected to reuse a
    session object and make many requests from it." for "Is it fine to create a brand-new ClientSession ... for
    every URL?", "By default, requests do not time out unless a timeout value is set explicitly." for "how long
    will my call sit there?"). Its price is a vector per candidate, which the index's sentence pass
    stores (`answer_sentences`); measured: bench/history/session-52.md, "Key: the closest sentence of every candidate"."""
    if not candidates:
        return None
    best = min(range(len(candidates)), key=lambda i: (-cosines[i], candidates[i].rank, candidates[i].pos))
    if best in set(worth):
        return None
    c = candidates[best]
    if passage_scores(query, [c.unit], [c.words], [cosines[best]])[0] is None:
        return None
    return c.n, c.unit


def _closest_elsewhere(scored: list, candidates: list[Candidate], cosines: list[float], cited: set[int]
                       ) -> tuple[int, Unit] | None:
    """`(n, unit)` of the scored candidate (`(-score, rank, pos, n, unit)`, any score) of the first
    ELSEWHERE_SOURCES sources whose source `n` is not in `cited` (the sources the answer quotes already) with the
    highest cosine similarity to the question, when its sentence names an identifier (`IDENTIFIER`) and its cosine
    reaches ELSEWHERE_SHARE of the best cosine of all candidates; else None. `extractive_picks` quotes it after
    its picks. Retrieval often ranks a sibling page first (a guide that mentions what the question is about before
    the page that says how), and the rank prior then gives the first source every pick, so the page that names the
    means is cited and never quoted: "To use different ones, pass an identifier in the `cookiejar` request meta
    key." (second source) for a question on separate cookie sessions per spider, or "The `expires` argument
    defines an optional expiry time ..." (third source) for throwing away a task that has not started within a
    minute. The best match by meaning of a source the answer leaves out, naming what to use, earns one place —
    added, never in a pick's place: replacing the first source's weaker picks lost far more keys than it gained
    (measured: bench/history/sessions-44-45.md, "The closest sentence of a source the answer leaves out")."""
    closeness = {id(c.unit): x for c, x in zip(candidates, cosines)}
    best = min((t for t in scored if t[1] < ELSEWHERE_SOURCES and t[3] not in cited),
               key=lambda t: (-closeness[id(t[4])], t[1], t[2]), default=None)
    if best is None or not IDENTIFIER.search(best[4].sentence) \
            or closeness[id(best[4])] < ELSEWHERE_SHARE * max(cosines):
        return None
    return best[3], best[4]


def rank_prior(rank: int) -> float:
    """The weight of a passage of the source at 0-based `rank` (0 = the best hit): 1 / (1 + RANK_DAMPING * rank).
    Measured, not assumed (bench/history/sessions-36-37.md, "Passages across hits"): on the five dev sets and their probes any
    weaker damping (0, 0.1, 0.2) or stronger one (0.4, 0.5) lost more answer keys than it gained: a sentence's own
    evidence (its cosine, shared words, the identifier the question points at) does not yet tell a lower hit's
    answering sentence from its off-topic ones as well as the hit's rank does."""
    return 1 / (1 + RANK_DAMPING * rank)


def _names_the_question(unit: Unit, query: set[str] | frozenset[str]) -> bool:
    """Whether one identifier of `unit` (`Unit.scored_text`), one token (a code span holding spaces is a phrase
    or a command, not a name), is pointed at by NAMED_WORDS or more words of the question (`pointed_at`): `X-Line-Length` for "which header sets the line length" — the name the user asks for,
    although its sentence reads less like the question — or that names a short option the question names (`-j`:
    "-j N, --jobs N: Distribute the build over N processes" reads little like "What does the -j option do?").
    `query`: the question's words not yet answered."""
    text = unit.scored_text
    options = {x for x in query if SHORT_OPTION.fullmatch(x)}
    if options and options & literal_terms(text):
        return True
    return any(len(pointed_at(identifier_words(m.group(0)), query)) >= NAMED_WORDS
               for m in IDENTIFIER.finditer(text) if not any(c.isspace() for c in m.group(0)))


def _worth_embedding(query: set[str], candidates: list[Candidate], kind: str | None = None) -> list[int]:
    """Indexes of the `candidates` worth a sentence embedding, in candidate order: the EMBEDDED_CANDIDATES best —
    those sharing words with the question by lexical score (`passage_scores` without cosines) damped by source rank
    like the final score, then those sharing none by source rank and position — and, beyond them, the
    EMBEDDED_PER_SOURCE of each source sharing words with the best lexical score, undamped (at most
    EMBEDDED_CANDIDATES + EMBEDDED_PER_SOURCE x sources; 16.6 on average on the dev sets, against 12; 14.3 with
    two per source, which missed a lower page's sentence naming the means after two restating the question's
    words: bench/history/sessions-46-47.md, "Three sentences of each source embedded"). The rank damping
    let the top hit's sentences fill every place: "For this specific purpose, you can use the `env use` command to
    tell Poetry which Python version to use for the current project." (fifth hit, the highest cosine of all
    candidates) was never embedded, so never picked nor quoted as the closest (`_closest`) for "How do I switch it
    [to the 3.12 interpreter]?" (measured: bench/history/sessions-42-43.md, "Extractive answers: Key misses of coverage.py and
    Poetry classified"). A candidate beyond these is not picked: the words are part of the ranking (picking from
    every candidate by its cosine lost more answer keys than it found, bench/history/session-51.md "What limits the key
    identifier in the answer"); it is quoted only as the closest of all (`_rescued`)."""
    lexical = passage_scores(query, [c.unit for c in candidates], [c.words for c in candidates], kind=kind)
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
    introduces a list or code block (ends in ":") carries it, indented under its bullet, its fences showing their
    language only (`fences.shown_fences`); a table row as `Unit.shown` (with its columns' names); a passage led by
    its `Unit.lead` (the bare name its section's heading is)."""
    lines = []
    for n, unit in picked:
        body = labelled((unit.shown or unit.sentence).rstrip(), unit.lead, any_case=True)
        end = body[-1] if body[-1] in ".!?:" and not body.endswith((". .", "..")) and not _code_end(body) else ""
        if end == "." and ABBREVIATION_END.search(body):  # "e.g." keeps its period: "... e.g. [2]:", not "e.g [2]."
            body, end = body + ":" if unit.attached else body + " ", ":" if unit.attached else ""
        elif end == "." and unit.attached and EXAMPLE_END.search(body):
            body, end = body[:-1] + ":", ":"  # "..., for example [2]:" over the example it announces
        kept = body[: len(body) - len(end)].rstrip()
        lines.append(f"- {kept.rstrip(':').rstrip() if end == ':' else kept} [{n}]{end}")  # "file::" reads "file [1]:"
        if unit.attached:
            lines += ["  " + x if x else "" for x in shown_fences(unit.attached).split("\n")]
    return label + "\n\n" + "\n".join(lines)


def _code_end(body: str) -> bool:
    """Whether the last character of `body` belongs to code, not to the sentence: it is inside an unclosed code
    span, or a lone "." / "?" after a space ("python -m black --no-cache ." — the command's argument), so the
    citation marker must go after it, never inside the code."""
    return body.count("`") % 2 == 1 or (len(body) > 1 and body[-2].isspace())


def answer_sentences(chunk: Chunk, files: FileFilters | None = None) -> list[str]:
    """The texts `extractive_picks` may embed for passages of `chunk` (each candidate's `Unit.sentence`, from
    `passages.chunk_units` with the open indexes' file filters `files`, in passage order, then each short lead-in's
    sentence with its block, `passages.lead_in_text`): what the index's sentence pass embeds ahead
    (index/vector_phase.py), so a first answer finds their vectors cached."""
    found = chunk_units(chunk, files=files)
    return [u.sentence for u in found] + [t for u in found if (t := lead_in_text(u))]


@functools.cache
def sentences_version() -> str:
    """The version of the code `answer_sentences` runs: `core.hashing.source_digest` of answer/lead_ins.py (which
    imports answer/passages.py) and every ragls module it imports (16 hex chars; computed once per process). The index records it beside its sentence
    marks: after an upgrade or an edit that may read passages differently, the sentence pass checks every chunk
    again (its unchanged sentences are found in the embedding cache; only new ones go through the model). Kept
    beside the derived model files (`index.paths.models_root`) while the package's files are unchanged, so a
    process reads it back instead of parsing ~50 modules (~0.2 CPU-s of every indexing process)."""
    from ragls.core.hashing import source_digest
    from ragls.index.paths import models_root

    return source_digest("ragls.answer.lead_ins", kept_in=models_root())


def split_sentences(text: str) -> list[str]:
    """The candidate sentences (and list items) of a chunk text, without the blocks they introduce."""
    return [u.sentence for u in units(text)]
