"""abstention's meaning veto (`Evidence.meaning_absent`, retrieval/abstention.py): a question holding words no chunk of
the searched sources holds (`lacking_words`: of its asking clause, the user's own material and the value asked for
left out) whose top hits' focus texts do not mean them either — the best cosine of those texts with the question
WITHOUT the words exceeds the one WITH them by ABSENT_MEANING_VETO or more (`absent_meaning`): the missing words
only pull the question away from passages that speak of the rest. `with_absent_meaning` sets it on the evidence
where it can change the decision (bench/history/sessions-40-41.md, "Abstention: the meaning veto").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ragls.core.analysis import stems
from ragls.core.ir import Hit
from ragls.retrieval.absent_names import spelled_out
from ragls.retrieval.abstention import (
    SENTENCE_HITS,
    Evidence,
    asked_query,
    asked_weights,
    focus_text,
    sentence_cosine,
)
from ragls.retrieval.asked_value import VALUE_WORDS, measure_compounds
from ragls.retrieval.names import user_material
from ragls.retrieval.query import Query, blend
from ragls.retrieval.user_context import without_user_context

# absent_meaning's veto: the cosine gain, without the question's words no chunk holds, at which the passages are taken
# not to mean them. Set leave-one-corpus-out by `python bench/abstention_absent_meaning.py` (the largest gain of any
# answerable question of the other dev corpora, rounded up, plus 0.01: 0.08 in every fold of 12 corpora, written down
# in bench/history/sessions-40-41.md, "Abstention: the meaning veto", before it was tried on sets nobody here had seen), MiniLM's cosine. Held out: near misses
# abstained Werkzeug 3/6 -> 4/6, MkDocs 3/6 -> 5/6, coverage.py 4/6 -> 5/6, Poetry 4/6 -> 5/6 (the last two blind),
# no answerable question of 16 corpora refused more.
ABSENT_MEANING_VETO = 0.08
_EDGES = ".,;:!?()\"'`"  # a word's punctuation, left out of the words reported


def absent_meaning(stats: Sequence[tuple[int, dict[str, int]]], query: Query, hits: Sequence[Hit], embed_query,
                   embed) -> tuple[float, tuple[str, ...]] | None:
    """(delta, the words dropped) for `meaning_absent`, or None when it does not apply: no query vector
    (`query.vector`, the question as embedded for search), no hits, or no word of the asking clause
    (`asked_query(query, clause=True)`, the user's own material left out) whose every term is in no chunk of the
    sources of `stats` (document frequency 0 everywhere) — never a word of the value asked for (`VALUE_WORDS`: how
    *long*, how *many*; dropped, the question asks something else) — or nothing left without them. delta = the best cosine of
    the first SENTENCE_HITS hits' focus texts (`focus_text`, 1,000 characters at most; embedded with `embed(texts) ->
    (n, dim)`) with the question without those words (`embed_query(text) -> (dim,)`) minus the best with
    `query.vector`: above 0 when the dropped words only pulled the question away from the passages. A name a hit
    writes in another form (`absent_names.spelled_out`: VS as "Visual Studio", TestPyPI as test.pypi.org) is not
    dropped: the passages say it. Rows and vectors
    L2-normalised (cosine = dot product). For a chat follow-up with borrowed words the question without those words
    is embedded as `query.vector` was (`query.blend`), so the two cosines compare alike."""
    if query.vector is None or not hits:
        return None
    words = re.findall(r"\S+", query.text)
    dropped = [w for w in lacking_words(stats, query, words) if not spelled_out(w.strip(_EDGES), hits)]
    kept = " ".join(w for w in words if w not in dropped)
    if not dropped or not kept.strip():
        return None
    passages = embed([focus_text(h)[:1000] for h in hits[:SENTENCE_HITS]])
    without = embed_query(kept)
    own_kept = " ".join(w for w in re.findall(r"\S+", query.own_text) if w not in dropped)
    if query.context and own_kept.strip():  # a follow-up's vector blends its own words' in: so does this one
        without = blend(embed_query(own_kept), without)
    delta = float(max(passages @ without)) - float(max(passages @ query.vector))
    return delta, tuple(dict.fromkeys(w.strip(_EDGES) for w in dropped))


def lacking_words(stats: Sequence[tuple[int, dict[str, int]]], query: Query, words: Sequence[str] | None = None
                  ) -> list[str]:
    """The words of `query.text` (split at whitespace, punctuation kept; or the given `words` of it) with a term
    of the asking clause (`asked_query(query, clause=True)`, the user's own material left out: `names.
    user_material`) that no chunk of the sources of `stats` holds (document frequency 0 everywhere), never a
    word of the value asked for (`VALUE_WORDS`) nor of a "-" compound that measures (`asked_value.
    measure_compounds`: "a multi-gigabyte TeX distribution" asks about TeX; the docs need not write the user's
    measure, nor a word only their URL or path holds: `names.literal_words`): what `absent_meaning` drops. [] when
    every such term is held."""
    own = (user_material(query.text) | set(stems(" ".join(measure_compounds(query.text))))
           | set(stems(_described_own(query.text))))
    weights, max_idf = asked_weights(stats, asked_query(query, clause=True), frozenset(own))
    lacking = {t for t, w in weights.items() if w >= max_idf and t not in VALUE_WORDS}
    if not lacking:
        return []
    if words is None:
        words = re.findall(r"\S+", query.text)
    return [w for w in words if set(stems(re.sub(r"[^\w-]", " ", w))) & lacking]


def with_absent_meaning(evidence: Evidence | None, stats: Sequence[tuple[int, dict[str, int]]], query: Query,
                        hits: Sequence[Hit], embed_query, embed, min_probability: float) -> Evidence | None:
    """`evidence` with `meaning_absent` (1.0 when `absent_meaning`'s delta reaches ABSENT_MEANING_VETO) and
    `absent_words` set — computed only where it can change the decision: evidence the calibrated rule does not
    refuse (`Evidence.refused` at `min_probability`, `retrieval.abstention_probability`; 0 turns the rule off) and a
    question word no chunk holds. Evidence with a probability below `min_probability` and no veto first gets its
    `sentence_cosine` (over `hits`, the shown ones): at PARAPHRASE_COSINE or above it is not refused, and the
    meaning veto is judged as for any answered question. Costs one query embedding and up to SENTENCE_HITS passage
    embeddings (memoised by the caller's `embed`)."""
    if evidence is None or min_probability <= 0 or evidence.probability() is None:
        return evidence
    if evidence.probability() < min_probability:
        if evidence.vetoed() or query.vector is None:
            return evidence
        evidence = replace(evidence, sentence_cosine=sentence_cosine(query.vector, hits, embed))
        if evidence.refused(min_probability):
            return evidence
    found = absent_meaning(stats, query, hits, embed_query, embed)
    if found is None or found[0] < ABSENT_MEANING_VETO:
        return evidence
    return replace(evidence, meaning_absent=1.0, absent_words=found[1])


def _described_own(text: str) -> str:
    """The words of `text` that only describe the user's own things (`user_context.without_user_context` blanks
    them: "JavaScript" in "... to get taskrun for my JavaScript project?"), space-separated: the docs answer for the
    product, not for the user's project, so like the name test (bench/history/session-66.md, "Abstention: the user's
    own things") the meaning veto does not drop them as words no chunk holds."""
    kept = without_user_context(text)
    return " ".join(text[m.start():m.end()] for m in re.finditer(r"\S+", text)
                    if kept[m.start():m.end()].strip() == "")

