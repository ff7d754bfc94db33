"""Each document prior and page support switched off in turn on recorded fused lists (issue 27: "each extra signal or
bonus stays only where it earns its place on held-out questions").

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json   # once per set
    python bench/prior_ablation.py rec/*.json [--held-out SET ...]

Reads `fused_replay.py record`'s lists (the first 40 fused entries as the product ranks them, recorded without page
support) and splits each entry's score as `file_rank_loco.py` does: factor x (0.6 n_v + 0.4 n_b) + bonus. The factor
is the product of the document-kind priors of `search._document_priors`; each prior's own factor is recomputed here
from the recorded chunk with the function the product calls (`retrieval/doc_kind.py`), so a row "without P" divides
P's factor out and re-sorts (page support, `fuse.page_support` at 0.1 over the first 30, is added back to every row
but its own). Rows: the shipped order, the priors as the checkout running the script computes
them (a candidate rule against the recorded lists of main), page support off, every prior and page support off ("convex
only"), and that without the exact-match bonus. Printed per row: file Hit@1 and MRR@10 over all sets, the questions
gained / lost against the shipped order, and the sets that lose; and the same over the sets written after the row's prior was
chosen (`PRIOR_SESSION`, `WRITTEN`), or over the sets `--held-out` names. The last row, a plain RRF of the two lists' ranks (the baseline
issue 27 names), re-sorts only the recorded 40: a chunk both lists rank midway that convex fusion put below them is
missed, so it is an upper estimate of what RRF loses. Approximate where a prior removed the exact-match bonus (the
bonus is not restored) or lifted entries from below the recorded 40.

Candidate signals beside the priors (bench/history/session-56.md, "The right file first on uWSGI and GoReleaser"):
the convex weight of the cosine lowered for long questions (`alpha_long`: questions of more than N content words),
and, with `--folders` (a file of `set=folder` items, whitespace-separated, as a shell variable lists them), the
corpus's anchor text: each page's BM25 score over the sentences of other pages that link to it
(`fused_replay.anchor_texts`) as a share of the best page's, x w, added to every recorded entry of the page.
`--loco` chooses each family's weight (the shipped order among them) by leave-one-corpus-out: for each set, the
weight best over the other sets (file Hit@1, then MRR@10), scored on that set.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from file_rank_loco import ALPHA, _parts  # noqa: E402

PRIORS = ("meta", "reference", "stub", "api", "repeated", "quoted", "written", "settings")
# The session each prior was chosen in (its section in bench/history/), and the session each dev set was written in
# (its "Held-out sets" section; sets of session 41 or before, the Rust book's and Flask's and urllib3's: 41). A row's
# held-out columns count the sets written after its prior was chosen: questions it was not fitted on.
PRIOR_SESSION = {"meta": 36, "stub": 41, "repeated": 42, "quoted": 42, "api": 43, "settings": 44, "page support": 45,
                 "written": 46, "reference": 39}
WRITTEN = {"alembic": 42, "pydantic": 42, "hatch": 43, "scrapy": 43, "uv": 44, "celery": 44, "fastapi": 45, "mypy": 45,
           "strawberry": 46, "setuptools": 46, "mkdocs-material": 47, "psycopg": 47, "commitizen": 48, "beets": 48,
           "zola": 49, "borg": 49, "caddy": 50, "pyramid": 50, "sqlfluff": 51, "cargo": 51, "jj": 52, "falcon": 52,
           "vite": 53, "xonsh": 53, "kitty": 54, "lefthook": 54, "uwsgi": 55, "goreleaser": 55}


def held_out(row: str, set_name: str) -> bool:
    """Whether `set_name` was written after the prior of `row` ("without P") was chosen."""
    prior = next((p for p in PRIOR_SESSION if row == f"without {p}"), None)
    return prior is not None and WRITTEN.get(set_name.removesuffix("-docs"), 41) > PRIOR_SESSION[prior]


def _chunk(r: dict, i: int):
    from ragls.core.hashing import text_hash
    from ragls.core.ir import Chunk, LineSpan

    return Chunk(id=str(i), path=r["path"], text=r["text"], span=LineSpan(r["lines"][0] - 1, 0, r["lines"][1], 0), text_hash=text_hash(r["text"]),
                 title=r.get("title", ""))


def prior_factors(q: dict) -> dict[str, np.ndarray]:
    """{prior: factor per recorded entry} with the shipped weights (`RetrievalSettings` defaults)."""
    from ragls.config.settings import RetrievalSettings
    from ragls.retrieval import doc_kind as dk
    from ragls.retrieval.query import analyse
    from ragls.retrieval.search import _named_compounds

    s = RetrievalSettings()
    text = q["question"]
    qa = analyse(text)
    fused = q["fused"]
    pairs = [(i, _chunk(r, i)) for i, r in enumerate(fused)]
    fresh = [(i, c) for i, c in pairs if not fused[i]["contrib"].get("bonus")]
    names = dk.written_names(text, _named_compounds(qa.compounds))
    got = {
        "meta": dk.meta_factors(text, pairs, s.meta_page_weight),
        "reference": dk.reference_factors(text, pairs, s.reference_entry_weight),
        "stub": dk.stub_factors(fresh, s.stub_chunk_weight),
        "api": dk.api_page_factors(fresh, s.api_page_weight),
        "repeated": dk.repeated_block_factors(fresh, s.repeated_block_weight, qa.focus_terms),
        "quoted": dk.quoted_factors(text, fresh, s.quoted_message_weight),
        "written": dk.written_factors(names, fresh, s.written_name_weight),
        "settings": dk.settings_factors(text, fresh[:dk.SETTINGS_HEAD], s.settings_page_weight),
    }
    out = {p: np.asarray([got[p].get(i, 1.0) for i in range(len(fused))]) for p in PRIORS}
    # variants measured beside the shipped priors (rows "... instead")
    out["api_entries"] = np.asarray([f if dk.is_reference_entry(c) else 1.0 for f, (_, c) in zip(out["api"], pairs)])
    return out


class Q:
    def __init__(self, q: dict):
        parts = np.asarray([_parts(r) for r in q["fused"]], dtype=float)
        self.nv, self.nb, self.bonus, self.factor = parts.T
        self.pf = prior_factors(q)
        self.paths = [r["path"] for r in q["fused"]]
        gold = set(q["gold"])
        self.gold_file = np.asarray([p in gold for p in self.paths])
        spans = q["gold_spans"]
        self.gold_span = np.asarray([any(r["path"] == p and r["lines"][0] <= e and r["lines"][1] >= s
                                         for p, s, e in spans) for r in q["fused"]]) if spans else self.gold_file
        self.id = q["id"]
        self.ranks = [(r["ranks"].get("vector", 0), r["ranks"].get("bm25", 0)) for r in q["fused"]]
        self.rrf = np.asarray([sum(1.0 / (60 + r["ranks"][k]) for k in ("vector", "bm25") if k in r["ranks"])
                               for r in q["fused"]])
        from ragls.retrieval.doc_kind import names_identifier
        from ragls.retrieval.query import analyse

        qa = analyse(q["question"])
        self.n_words = len(qa.content_words)
        self.names = bool(qa.compounds) or names_identifier(q["question"])
        self.anchor = np.zeros(len(self.paths))


    def order(self, off: set[str], support: bool, bonus: bool = True, recomputed: bool = False,
              on: tuple[str, ...] = (), rrf: float = 0.0, alpha_long: tuple[int, float] | None = None,
              anchor: float = 0.0) -> np.ndarray:
        """Entry indices, best first: the recorded factor without the priors `off` (with `on`'s variants), x the convex
        score — or with `rrf` (the vector weight) x RRF's score of the two lists' ranks (k 60, BM25 weight 1), the
        exact-match bonus converted to RRF's scale (BM25 first places: 0.4 under convex, 1/61 under RRF) and page
        support in proportion to the first entry's score. `alpha_long` (N, a): the cosine's weight a instead of
        ALPHA for a question of more than N content words; `anchor`: w x the page's anchor-text share (`self.anchor`)
        added after page support."""
        factor = np.prod([self.pf[p] for p in PRIORS], axis=0) if recomputed else self.factor.copy()
        for p in off:
            factor = factor / self.pf[p]
        for p in on:
            factor = factor * self.pf[p]
        alpha = alpha_long[1] if alpha_long and self.n_words > alpha_long[0] else ALPHA
        score = factor * (alpha * self.nv + (1 - alpha) * self.nb)
        add = self.bonus
        if rrf:
            score = factor * np.asarray([rrf * (1.0 / (60 + rv) if rv else 0.0) + (1.0 / (60 + rb) if rb else 0.0)
                                         for rv, rb in self.ranks])
            add = self.bonus * (1.0 / 61) / (1 - ALPHA)
        if support:  # fuse.page_support over the first 30 of this order, weight 0.1
            o = np.argsort(-(score + self.bonus), kind="stable")[:30]
            top = score[o[0]]
            by: dict[str, list[float]] = {}
            for i in o:
                by.setdefault(self.paths[i], []).append(score[i])
            extra = np.zeros_like(score)
            for i in o:
                sc = sorted(by[self.paths[i]], reverse=True)
                if len(sc) > 1 and top > 0:
                    extra[i] = 0.1 * sc[1] * (1.0 if rrf else 1.0 / top)
            score = score + extra
        if anchor:
            score = score + anchor * self.anchor
        if bonus is True or (bonus == "names" and self.names) or (
                isinstance(bonus, int) and not isinstance(bonus, bool) and self.n_words <= bonus):
            score = score + add
        return np.argsort(-score, kind="stable")

    def rrf_order(self) -> np.ndarray:
        """Plain RRF (k 60, both weights 1) of the entries' ranks in the two lists: no prior, bonus or page support."""
        return np.argsort(-self.rrf, kind="stable")

    def metrics(self, o: np.ndarray) -> tuple[int, float]:
        ranks = np.nonzero(self.gold_span[o[:10]])[0]
        return int(self.gold_file[o[0]]), (1.0 / (ranks[0] + 1) if len(ranks) else 0.0)


def anchor_shares(data: dict[str, list[Q]], questions: dict[str, dict[str, str]], folders: dict[str, Path]) -> None:
    """Set each question's `anchor`: per recorded entry, its page's BM25 score (k1 1.2, b 0.75, the index's stems)
    over the anchor-text documents of the set's folder (one per linked page: `fused_replay.anchor_texts` joined) as a
    share of the best page's; 0 for a page no other page links to, or a set without a folder."""
    import math
    from collections import Counter

    from fused_replay import anchor_texts
    from ragls.core.analysis import stems

    for name, qs in data.items():
        if name not in folders:
            continue
        docs = {p: Counter(stems(" ".join(texts))) for p, texts in anchor_texts(folders[name]).items()}
        n = len(docs)
        avg = sum(sum(c.values()) for c in docs.values()) / max(n, 1)
        df = Counter(t for c in docs.values() for t in c)
        for q in qs:
            terms = set(stems(questions[name][q.id]))
            score = {}
            for page, c in docs.items():
                length = sum(c.values())
                score[page] = sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * c[t] * 2.2
                                  / (c[t] + 1.2 * (0.25 + 0.75 * length / avg)) for t in terms if t in c)
            top = max(score.values(), default=0.0)
            if top > 0:
                q.anchor = np.asarray([score.get(p, 0.0) / top for p in q.paths])


def rows():
    yield "shipped (all priors, page support)", set(), True, True
    yield "priors as this checkout computes them", set(), True, True, True
    for p in PRIORS:
        yield f"without {p}", {p}, True, True
    yield "without page support", set(), False, True
    yield "the API-page factor on reference entries only instead", {"api"}, True, True, False, ("api_entries",)
    yield "without the exact-match bonus", set(), True, False
    yield "the bonus only for a question naming an identifier", set(), True, "names"
    for n in (4, 6, 8):
        yield f"the bonus only for a question of <= {n} content words", set(), True, n
    yield "convex only (no prior, no page support)", set(PRIORS), False, True
    yield "convex only, no exact-match bonus", set(PRIORS), False, False
    yield "plain RRF of the two lists' ranks (k 60, weights 1)", None, False, False
    yield "RRF (vector 1.125) + the priors", set(), False, False, False, (), 1.125
    yield "RRF (vector 1.125) + the priors + bonus", set(), False, True, False, (), 1.125
    yield "RRF (vector 1.125) + the priors + bonus + page support", set(), True, True, False, (), 1.125
    yield "RRF (vector 1.0) + the priors + bonus + page support", set(), True, True, False, (), 1.0
    for n, a in ((10, 0.55), (12, 0.55), (15, 0.55), (12, 0.5), (12, 0.65)):
        yield f"alpha_long: the cosine's weight {a} for questions of > {n} content words", set(), True, True, False, (), \
            0.0, (n, a)
    for w in (0.01, 0.02, 0.03, 0.05, 0.1):
        yield f"anchor: + {w} x the page's anchor-text share", set(), True, True, False, (), 0.0, None, w


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--held-out", nargs="*", default=[], help="set names (file stems) to report apart")
    ap.add_argument("--show", help="print the questions a row gains / loses (its row number, 1-based)")
    ap.add_argument("--folders", type=Path, help="a file of set=folder items: adds the anchor-text rows' feature")
    ap.add_argument("--loco", action="store_true", help="each family's weight by leave-one-corpus-out")
    args = ap.parse_args()
    recorded = {f.stem: json.loads(f.read_text()) for f in args.files}
    data = {s: [Q(q) for q in rows_ if q["answerable"] and q["fused"]] for s, rows_ in recorded.items()}
    if args.folders:
        folders = dict(item.split("=", 1) for item in args.folders.read_text().split() if "=" in item)
        anchor_shares(data, {s: {q["id"]: q["question"] for q in rows_} for s, rows_ in recorded.items()},
                      {s: Path(p) for s, p in folders.items()})
    base = {s: [q.metrics(q.order(set(), True)) for q in qs] for s, qs in data.items()}
    by_row: dict[str, dict[str, list]] = {}
    print("| row | file Hit@1 | MRR@10 sum | gained / lost | sets losing | held-out Hit@1 | held-out gained / lost |")
    print("|---|---|---|---|---|---|---|")
    for n, (name, off, support, bonus, *recomputed) in enumerate(rows(), 1):
        hit = mrr = gained = lost = hh = hg = hl = 0
        losing, moved = [], []
        for s, qs in data.items():
            m = [q.metrics(q.rrf_order() if off is None else q.order(off, support, bonus, *recomputed)) for q in qs]
            by_row.setdefault(name, {})[s] = m
            dh = sum(a for a, _ in m) - sum(a for a, _ in base[s])
            hit += sum(a for a, _ in m)
            mrr += sum(b for _, b in m)
            g = sum(a > b for (a, _), (b, _) in zip(m, base[s]))
            lo = sum(a < b for (a, _), (b, _) in zip(m, base[s]))
            moved += [f"{'+' if a > b else '-'}{q.id}" for q, (a, _), (b, _) in zip(qs, m, base[s]) if a != b]
            gained += g
            lost += lo
            if dh < 0:
                losing.append(f"{s} {dh}")
            if s in args.held_out or held_out(name, s):
                hh += sum(a for a, _ in m)
                hg += g
                hl += lo
        print(f"| {name} | {hit} | {mrr:.2f} | +{gained} / -{lost} | {', '.join(losing) or 'none'} | "
              f"{hh or ''} | {f'+{hg} / -{hl}' if hh else ''} |")
        if args.show and int(args.show) == n:
            print(" ".join(moved))
    if args.loco:
        for family in ("alpha_long", "anchor"):
            loco(family, {r: m for r, m in by_row.items() if r.startswith(family + ":")}, base)
    return 0


def loco(family: str, rows_: dict[str, dict[str, list]], base: dict[str, list]) -> None:
    """Print the family's leave-one-corpus-out figures: for each set the row (or the shipped order) best over the
    other sets by file Hit@1, then MRR@10, scored on the set; and the sets that lose against the shipped order."""
    rows_ = {"shipped": base, **rows_}
    hit = mrr = 0.0
    losing, chosen = [], []
    for s, shipped_s in base.items():
        others = [t for t in base if t != s]
        best = max(rows_, key=lambda r, others=others: (sum(a for t in others for a, _ in rows_[r][t]),
                                                         sum(b for t in others for _, b in rows_[r][t])))
        chosen.append(best)
        h = sum(a for a, _ in rows_[best][s])
        hit += h
        mrr += sum(b for _, b in rows_[best][s])
        if h < sum(a for a, _ in shipped_s):
            losing.append(f"{s} {h - sum(a for a, _ in shipped_s)}")
    shipped = sum(a for m in base.values() for a, _ in m)
    print(f"LOCO {family}: file Hit@1 {int(hit)} (shipped {shipped}), MRR@10 sum {mrr:.2f}; sets losing: "
          f"{', '.join(losing) or 'none'}; chosen: {dict(Counter(chosen))}")


if __name__ == "__main__":
    raise SystemExit(main())
