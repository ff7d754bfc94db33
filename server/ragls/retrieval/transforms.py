"""Query transforms: extra ranked lists for one question, written by an LLM, fused with the question's own lists.

Each transform is opt-in (`[retrieval]`) and costs one LLM call per question (cached, `llm_steps.py`):

- `hyde` — Hypothetical Document Embeddings (Gao et al., "Precise Zero-Shot Dense Retrieval without Relevance
  Labels", 2022): the model writes a short passage that would answer the question; the passage is embedded as a
  document and searched in the vector store: one extra vector list, signal "hyde".
- `step_back` — step-back prompting (Zheng et al., "Take a Step Back", 2023): the model writes a more general
  question behind this one; it is searched like the question (vector + BM25): signals "step_back_vector",
  "step_back_bm25".
- `expand_n` — multi-query expansion (RAG-Fusion): the model writes N paraphrases in one call; each is searched
  (vector + BM25): signals "expand1_vector", "expand1_bm25", ... (names without ":" or other
  non-identifier characters: pygls clients turn result objects into namedtuples). All lists are fused by weighted RRF
  (`fuse.py`); a transform's list weighs `retrieval.transform_weight` times the question's own list of the same
  signal (0.5: qmd gives the original query twice the weight of each expansion), so the question's own ranking
  leads and a transform adds what it finds.

The skip rule keeps cheap questions cheap (qmd's "strong signal"): no LLM step when BM25's best hit is strong
and clearly ahead — its score normalised as s / (1 + s) (qmd's mapping of a raw BM25 score into [0, 1)) is at
least `retrieval.strong_signal_score` and leads the second one's by at least `retrieval.strong_signal_gap`
(0.85 / 0.15, qmd's values; bench/history/early-speed-and-operations.md, "The skip rule on the dev sets", measures how often it fires with tantivy's scores and whether
the skipped questions' top hits are right).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragls.retrieval.llm_steps import LLMTrace, StepLLM
from ragls.retrieval.query import Query, analyse

if TYPE_CHECKING:
    from ragls.config.settings import RetrievalSettings
    from ragls.embedding.embed import Embedder
    from ragls.retrieval.source import Source

HYDE_SYSTEM = ("You write the passage of technical documentation that answers a question. Reply with the "
               "passage only: 2 to 4 plain sentences, no heading, no preamble, no markdown.")
STEP_BACK_SYSTEM = ("You rewrite a search question into a more general 'step-back' question about the concept or "
                    "topic behind it. Reply with that one question only.")
EXPAND_SYSTEM = ("You rephrase search queries for a documentation search engine. Reply with the rephrasings "
                 "only, one per line, no numbering, no quotes, no explanation.")
DEFAULT_EXPAND = 3  # paraphrases when a request asks for expansion (`expand: true`) and expand_n is 0
TRANSFORMS = ("hyde", "step_back", "expand")
_SUFFIX = re.compile(r"_(?:vector|bm25)$")
_BULLET = re.compile(r"^\s*(?:[-*•]+|\d+[.)]|\(\d+\))\s*")


@dataclass(frozen=True)
class Variant:
    """A text searched for the question: `name` is its signal prefix ("hyde", "step_back", "expand2"),
    `step` its `llm.costs` step, `kinds` the lists it gives ("vector", "bm25"), `as_document` embeds it as a
    document (HyDE) rather than as a query."""

    name: str
    step: str
    text: str
    kinds: tuple[str, ...] = ("vector", "bm25")
    as_document: bool = False


def hyde_prompt(question: str) -> str:
    return f"Question: {question}\n\nWrite the passage that answers it."


def step_back_prompt(question: str) -> str:
    return f"Question: {question}\n\nStep-back question:"


def expand_prompt(question: str, n: int) -> str:
    return (f"Write {n} different rephrasings of this search query, using other words (synonyms, the terms a "
            f"documentation page would use) but the same meaning.\n\nQuery: {question}")


def parse_lines(text: str, n: int, original: str) -> list[str]:
    """At most `n` distinct lines of `text` with bullets/numbering and quotes removed, none equal to `original`
    (case and surrounding punctuation ignored), in order."""
    seen = {original.strip().lower().strip(" ?.!")}
    out = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip().strip('"\'`').strip()
        key = line.lower().strip(" ?.!")
        if not key or key in seen or line.endswith(":"):
            continue
        seen.add(key)
        out.append(line)
        if len(out) == n:
            break
    return out


def expansions_wanted(settings: RetrievalSettings, expand: bool | None) -> int:
    """Paraphrases to write: `expand` False → 0; True → `expand_n`, or DEFAULT_EXPAND when that is 0; None (the
    request does not say) → `expand_n`."""
    if expand is False:
        return 0
    if expand:
        return settings.expand_n or DEFAULT_EXPAND
    return settings.expand_n


def normalised_bm25(score: float) -> float:
    """qmd's query-independent mapping of a raw BM25 score into [0, 1): |s| / (1 + |s|)."""
    s = abs(score)
    return s / (1.0 + s)


def strong_signal(sources: Sequence[Source], q: Query, settings: RetrievalSettings) -> tuple[bool, float, float]:
    """(skip, top, gap): BM25's best two hits over `sources` (raw scores merged) normalised by
    `normalised_bm25`; `skip` when top >= `strong_signal_score` and top - second >= `strong_signal_gap`. A single
    hit has gap = top. No hit: (False, 0, 0)."""
    scores = sorted((s for src in sources if src.has_bm25
                     for _, s in src.candidates(q, 2, settings, ("bm25",), plain=True).lists.get("bm25", [])),
                    reverse=True)
    if not scores:
        return False, 0.0, 0.0
    top = normalised_bm25(scores[0])
    second = normalised_bm25(scores[1]) if len(scores) > 1 else 0.0
    gap = top - second
    return top >= settings.strong_signal_score and gap >= settings.strong_signal_gap, top, gap


def write_variants(question: str, llm: StepLLM, trace: LLMTrace, *, hyde: bool, step_back: bool,
                   expand_n: int) -> list[Variant]:
    """Ask the model for the enabled transforms of `question`, concurrently (one call each, cached); a failed
    call gives no variant (plain retrieval for that transform, the failure counted in `trace`)."""
    jobs = {}
    if hyde:
        jobs["hyde"] = (hyde_prompt(question), HYDE_SYSTEM)
    if step_back:
        jobs["step_back"] = (step_back_prompt(question), STEP_BACK_SYSTEM)
    if expand_n:
        jobs["expand"] = (expand_prompt(question, expand_n), EXPAND_SYSTEM)
    if not jobs:
        return []
    if len(jobs) == 1:
        step, (prompt, system) = next(iter(jobs.items()))
        replies = {step: llm.call(step, prompt, system, trace)}
    else:
        with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="ragls-transform") as pool:
            futures = {step: pool.submit(llm.call, step, p, s, trace) for step, (p, s) in jobs.items()}
            replies = {step: f.result() for step, f in futures.items()}
    out: list[Variant] = []
    if replies.get("hyde"):
        passage = " ".join(replies["hyde"].split())
        trace.queries["hyde"] = passage
        out.append(Variant("hyde", "hyde", passage, ("vector",), as_document=True))
    if replies.get("step_back"):
        lines = parse_lines(replies["step_back"], 1, question)
        if lines:
            trace.queries["step_back"] = lines[0]
            out.append(Variant("step_back", "step_back", lines[0]))
    if replies.get("expand"):
        lines = parse_lines(replies["expand"], expand_n, question)
        trace.queries["expand"] = lines
        out += [Variant(f"expand{i}", "expand", line) for i, line in enumerate(lines, 1)]
    return out


def variant_lists(sources: Sequence[Source], ready: Sequence[int], embedder: Embedder,
                  variants: Sequence[Variant], n: int, settings: RetrievalSettings, known: dict | None = None
                  ) -> tuple[dict[str, list[tuple[tuple[int, str], float]]], dict[str, float]]:
    """The ranked lists of `variants` for `search.search`: ({signal: [((source position, chunk id), score)]},
    {signal: RRF weight}). Vector lists search the `ready` sources (positions of those whose vectors are ready)
    with the variant's embedding; BM25 lists every source (plain BM25, no RM3 pass). A variant's signal is
    "<name>" for a vector-only variant (HyDE), else "<name>_vector" / "<name>_bm25"; its weight is the question's
    weight for that signal times `retrieval.transform_weight`. Chunks a source returned with its candidates
    (payload-backed sources) are added to `known` ({(source position, chunk id): Chunk}) when given."""
    lists: dict[str, list[tuple[tuple[int, str], float]]] = {}
    weights: dict[str, float] = {}
    base = {"vector": settings.vector_weight, "bm25": settings.bm25_weight}
    vectors: dict[str, object] = {}
    if ready:  # one model call for the query-like texts, one for the HyDE passages
        for as_doc in (False, True):
            texts = [v for v in variants if "vector" in v.kinds and v.as_document == as_doc]
            if texts:
                embed = embedder.embed_documents if as_doc else embedder.embed_queries
                vectors.update(zip((v.name for v in texts), embed([v.text for v in texts])))
    for v in variants:
        for kind in v.kinds:
            signal = v.name if len(v.kinds) == 1 else f"{v.name}_{kind}"
            if kind == "vector":
                if not ready:
                    continue
                vq = analyse(v.text).with_vector(vectors[v.name])
                positions = list(ready)
            else:
                vq = analyse(v.text)
                positions = range(len(sources))
            lists[signal] = []
            for i in positions:
                found = sources[i].candidates(vq, n, settings, (kind,), plain=True)
                lists[signal] += [((i, cid), score) for cid, score in found.lists.get(kind, [])]
                if known is not None:
                    known.update(((i, cid), chunk) for cid, chunk in found.chunks.items())
            weights[signal] = base[kind] * settings.transform_weight
    return lists, weights


def transforms_of(signals: dict[str, float]) -> list[str]:
    """Which transforms contributed a hit, from its `Hit.signals`: ["hyde", "step_back", "expand",
    "corrective"] in that order, those present."""
    names = {_SUFFIX.sub("", s).rstrip("0123456789") for s in signals}
    return [t for t in (*TRANSFORMS, "corrective") if t in names]
