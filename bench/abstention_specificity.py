"""Probe: a background-language prior for query terms absent from the corpus (issue 12; measured, shipped only if
it helps held out).

    python bench/abstention_specificity.py [--json spec.json] [--rows spec.json] [--floor 0.2]

`coverage` (server/ragls/retrieval/abstention.py) gives a query term found nowhere in the corpus the largest IDF,
so ONE absent everyday word ("allowed", "enormous", "somebody") sinks an answerable paraphrase as deeply as an
absent technical name (Lambda, CORS, serde) sinks a near miss. Here an absent term (df = 0 over the searched
folders) is weighted instead by IDF_max x s(zipf), zipf = wordfreq's `zipf_frequency(surface word, "en")` (0-8;
everyday words 4-6, technical names 1-3, unknown 0), with two monotone forms chosen a priori (not tuned on the dev
sets):

- `lin`: s = 1 for zipf <= 3, falling linearly to 0.1 at zipf 5, 0.1 above;
- `logit`: s = 1 / (1 + 10^(zipf - 4)): a word 10x more frequent than zipf 4 counts ~1/10.

Evidence per form: `coverage_<form>` (the shipped coverage with those weights) and `missing_<form>` (the
specificity-weighted IDF share of the absent terms). Same 223 questions and leave-one-corpus-out protocol as
bench/abstention_sentences.py; the decision is the product's (probability below the floor, or the cosine/keyword
rule), also for the far-off questions. Needs `pip install wordfreq` (not a ragls dependency: tried and rejected,
bench/history/early-retrieval-quality.md, "Abstention: a background-language prior for absent terms").
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import abstention_fit as af
from abstention import IN_SCOPE, OUT_OF_SCOPE
from abstention_sentences import print_loco
from data import dataset

FORMS = {
    "lin": lambda z: 1.0 if z <= 3 else (0.1 if z >= 5 else 1.0 - 0.9 * (z - 3) / 2),
    "logit": lambda z: 1.0 / (1.0 + 10 ** (z - 4)),
}


@lru_cache(maxsize=100_000)
def zipf(word: str) -> float:
    from wordfreq import zipf_frequency
    return zipf_frequency(word, "en")


def specificity_features(indexes, query, hits) -> dict:
    from ragls.core.analysis import stems
    from ragls.retrieval.abstention import _stems_of, idf

    n = sum(idx.bm25.num_docs() for idx in indexes)
    max_idf = idf(0, n)
    surface: dict[str, str] = {}
    for w in query.bm25_words:
        for t in stems(w):
            surface.setdefault(t, w)
    df = {t: sum(idx.bm25.doc_freq(t) for idx in indexes) for t in surface}
    seen = set().union(*[_stems_of(h) for h in hits]) if hits else set()
    out = {"absent": [surface[t] for t in surface if df[t] == 0]}
    for name, s in FORMS.items():
        w = {t: (idf(df[t], n) if df[t] else max_idf * s(zipf(surface[t]))) for t in surface}
        total = sum(w.values())
        if not w or total <= 0:
            out[f"coverage_{name}"], out[f"missing_{name}"] = 1.0, 0.0
            continue
        out[f"coverage_{name}"] = sum(v for t, v in w.items() if t in seen) / total
        out[f"missing_{name}"] = sum(v for t, v in w.items() if df[t] == 0) / total
    return out


def collect(corpus: Path, questions) -> list[dict]:
    """abstention_fit's rows plus the question text and the specificity features of its top hits."""
    def extra(ws, hits, text) -> dict:
        top = list(hits)[:ws.settings.retrieval.top_k]
        return {"text": text, **specificity_features(ws.indexes, hits.query, top)}

    return af.collect(corpus, questions, extra)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rows", type=Path)
    ap.add_argument("--floor", type=float, default=0.2)
    args = ap.parse_args()
    far = [(f"out-{i}", "out-of-scope", q, False) for i, q in enumerate(OUT_OF_SCOPE) if "pip" not in q]
    if args.rows:
        rows = json.loads(args.rows.read_text())
    else:
        rows = []
        for name in ("rust-book", "flask-docs"):
            extra = list(far)
            if name == "rust-book":
                extra += [(f"in-{i}", "in-scope", q, True) for i, q in enumerate(IN_SCOPE)]
            rows += collect(dataset(name), af.load_set(name) + extra)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    near = np.array([r["kind"] != "out-of-scope" for r in rows])
    print(f"{len(rows)} questions, {int(y.sum())} answerable")
    new = [f"{k}_{f}" for f in FORMS for k in ("coverage", "missing")]
    for f in ["cosine", "coverage", "agreement", "bm25_top", *new]:
        col = np.array([0.0 if r[f] is None else r[f] for r in rows])  # bm25_top None: no comparable BM25 score
        print(f"  AUROC {f:16s} alone: all {af.auroc(col, y):.3f}; dev-set questions "
              f"{af.auroc(col[near], y[near]):.3f}  (answerable median {np.median(col[y == 1]):.3f}, "
              f"near misses {np.median(col[near & (y == 0)]):.3f})")
    base = ("cosine", "coverage", "agreement")
    sets = [base, ("cosine", "coverage_lin", "agreement"), ("cosine", "coverage_logit", "agreement"),
            base + ("missing_lin",), base + ("missing_logit",), ("cosine", "coverage"), ("cosine", "coverage_lin"),
            ("cosine", "coverage_logit")]
    print_loco(rows, sets, args.floor, width=36)
    # the shipped coefficients with the re-weighted coverage in place of coverage (no refit), whatever evidence
    # they name (retrieval/abstention.py COEFFICIENTS; the rows hold every Evidence field)
    from ragls.retrieval.abstention import COEFFICIENTS as C
    terms = [f for f in C if f != "intercept"]
    if "coverage" not in terms:
        print(f"shipped coefficients ({', '.join(terms)}) have no coverage term: nothing to re-weight in place")
        return 0
    own = np.array([r["kind"] not in ("out-of-scope", "in-scope") for r in rows])
    def decide(cov):
        z = np.array([C["intercept"] + sum(C[f] * r[cov if f == "coverage" else f] for f in terms) for r in rows])
        return (1 / (1 + np.exp(-z)) < args.floor) | np.array([r["today_abstained"] for r in rows])

    base = decide("coverage")
    for cov in ("coverage", "coverage_lin", "coverage_logit"):
        line = f"shipped coefficients, {cov:15s}"
        for g in ("flask-docs", "rust-book"):
            m = np.array([r["corpus"] == g for r in rows]) & own
            dec = decide(cov)
            far = np.array([r["corpus"] == g and r["kind"] == "out-of-scope" for r in rows])
            line += (f" | {g}: near {int((dec & m & (y == 0)).sum())}/{int((m & (y == 0)).sum())}, answerable "
                     f"{int((dec & m & (y == 1)).sum())}/{int((m & (y == 1)).sum())}, far-off "
                     f"{int((dec & far).sum())}/{int(far.sum())}")
            line += "".join(f"\n      answered now: {r['id']} {r['text']!r}" for r, d, d0 in zip(rows, dec, base)
                            if r["corpus"] == g and d0 and not d) if cov != "coverage" else ""
            line += "".join(f"\n      abstained now: {r['id']} {r['text']!r}" for r, d, d0 in zip(rows, dec, base)
                            if r["corpus"] == g and d and not d0) if cov != "coverage" else ""
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
