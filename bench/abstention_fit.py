"""Fit and check the abstention rule (server/ragls/retrieval/abstention.py) on the dev question sets.

    python bench/abstention_fit.py [--rust-book PATH] [--flask-docs PATH] [--floor 0.5] [--json out.json]

Questions: bench/questions/rust-book.jsonl and flask-docs.jsonl (answerable: every kind but "unanswerable"),
plus bench/abstention.py's 40 in-scope / 40 out-of-scope Rust book questions. Each corpus is indexed by
`RagWorkspace` with default settings (the index in the user cache dir is reused); each question is retrieved as
`rag/query` does and its `Evidence` (every field of ALL_FEATURES) recorded.

Model: logistic regression P(answerable) = σ(b0 + b·x), fitted by Newton's method with a small L2 penalty
(λ = 0.01, intercept not penalised). Reported, all on held-out predictions:
- leave-one-corpus-out (fit on the Rust book, test on Flask and the reverse): the honest "new documents" figure;
- 5-fold cross-validation over all questions (stratified by label, fixed seed);
- AUROC of each feature alone and of the model; abstention recall on unanswerable questions and the share of
  answerable ones abstained on, at `--floor`;
- today's rule (best cosine >= retrieval.min_similarity or a BM25 hit holding every content word) for comparison.
Finally the coefficients fitted on all questions. The shipped COEFFICIENTS now come from
bench/abstention_loco.py (three corpora, leave-one-corpus-out, class-balanced); this script is the earlier
two-corpus fit with far-off questions, kept to compare.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from abstention import IN_SCOPE, OUT_OF_SCOPE
from data import dataset

SHIPPED = ("cosine", "coverage", "agreement")  # the set abstention.py's COEFFICIENTS use; --features picks others of ALL_FEATURES
FEATURES = SHIPPED
ALL_FEATURES = ("cosine", "coverage", "agreement", "coverage_top", "missing_idf", "focus_coverage", "cosine_margin",
                "bm25_top")
L2 = 0.01


def collect(corpus: Path, questions: list[tuple[str, str, bool]], extra=None) -> list[dict]:
    """[{id, kind, answerable, cosine, coverage, agreement, today}] for (id, text, answerable) questions;
    `extra(ws, hits, text)` -> dict adds a probe's own columns to each row (bench/abstention_specificity.py)."""
    from ragls.retrieval.relevance import abstained
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([corpus], [{"retrieval": {"abstention_probability": 0.0}}])
    try:
        ws.index()
        rows = []
        for qid, kind, text, answerable in questions:
            hits = ws.retrieve(text)
            ev = hits.evidence
            today = abstained(hits, ws.settings.retrieval.abstention_floor)
            rows.append({"id": qid, "kind": kind, "answerable": answerable,
                         **{f: getattr(ev, f) for f in ALL_FEATURES}, "today_abstained": today,
                         "corpus": corpus.name, **(extra(ws, hits, text) if extra else {})})
        return rows
    finally:
        ws.close()


def load_set(name: str) -> list[tuple[str, str, str, bool]]:
    out = []
    for line in (HERE / "questions" / f"{name}.jsonl").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("//"):  # `//` lines are comments (docs/evaluation.md)
            q = json.loads(line)
            out.append((q["id"], q["kind"], q["question"], bool(q["gold"])))
    return out


def fit(x: np.ndarray, y: np.ndarray, sw: np.ndarray | None = None) -> np.ndarray:
    """Logistic regression weights [b0, b...] by Newton's method (L2 on the non-intercept weights); `sw`, one
    weight per sample (default 1)."""
    sw = np.ones(len(y)) if sw is None else sw
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    pen = np.full(xb.shape[1], L2)
    pen[0] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-xb @ w))
        grad = xb.T @ (sw * (p - y)) + pen * w
        hess = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(pen) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def predict(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(w[0] + x @ w[1:])))


def auroc(scores: np.ndarray, y: np.ndarray) -> float:
    """P(score of a random positive > score of a random negative), ties counted half (Mann-Whitney U)."""
    pos, neg = scores[y == 1], scores[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def rates(abstain: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Abstention recall on unanswerable (y=0), false-abstention rate on answerable, precision of abstained."""
    tp = int((abstain & (y == 0)).sum())
    return {"recall_unanswerable": tp / max(1, int((y == 0).sum())),
            "abstained_answerable": int((abstain & (y == 1)).sum()) / max(1, int((y == 1).sum())),
            "precision": tp / int(abstain.sum()) if abstain.sum() else float("nan")}


def matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([[r[f] for f in FEATURES] for r in rows], dtype=float),
            np.array([1.0 if r["answerable"] else 0.0 for r in rows]))


def main() -> int:
    global FEATURES
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rust-book", type=Path)
    ap.add_argument("--flask-docs", type=Path)
    ap.add_argument("--floor", type=float, default=0.5, help="abstain below this probability")
    ap.add_argument("--json", type=Path, help="write the per-question evidence and figures here")
    ap.add_argument("--corpora", default="rust-book,flask-docs", help="comma list of the dev sets to use")
    ap.add_argument("--features", default=",".join(SHIPPED),
                    help="comma list of the evidence the model uses, of: " + ", ".join(ALL_FEATURES))
    ap.add_argument("--rows", type=Path, help="reuse the per-question evidence of an earlier --json (no indexing)")
    args = ap.parse_args()
    FEATURES = tuple(args.features.split(","))
    unknown = set(FEATURES) - set(ALL_FEATURES)
    if unknown:
        ap.error(f"unknown features: {sorted(unknown)}")

    # bench/abstention.py's far-off questions are out of scope for both corpora, except one the Flask docs cover
    far = [(f"out-{i}", "out-of-scope", q, False) for i, q in enumerate(OUT_OF_SCOPE) if "pip" not in q]
    rows = json.loads(args.rows.read_text())["rows"] if args.rows else []
    for name in ([] if args.rows else args.corpora.split(",")):
        extra = list(far)
        if name == "rust-book":
            extra += [(f"in-{i}", "in-scope", q, True) for i, q in enumerate(IN_SCOPE)]
        rows += collect(dataset(name, getattr(args, name.replace("-", "_"))), load_set(name) + extra)
    x, y = matrix(rows)
    groups = np.array([r["corpus"] for r in rows])
    print(f"{len(rows)} questions: {int(y.sum())} answerable, {int((1 - y).sum())} unanswerable")
    print(f"features: {', '.join(FEATURES)}")
    for f, col in zip(FEATURES, x.T, strict=True):
        print(f"  AUROC of {f:9s} alone: {auroc(col, y):.3f}   (answerable median {np.median(col[y == 1]):.3f}, "
              f"unanswerable median {np.median(col[y == 0]):.3f})")
    today = np.array([r["today_abstained"] for r in rows])
    print(f"today's rule: {rates(today, y)}")
    near = np.array([r["kind"] != "out-of-scope" for r in rows])  # the dev sets' own questions

    if len(set(groups)) > 1:
        held = np.zeros(len(rows))
        for g in sorted(set(groups)):
            test = groups == g
            w = fit(x[~test], y[~test])
            held[test] = predict(w, x[test])
            r = rates(held[test] < args.floor, y[test])
            print(f"leave-one-corpus-out, test {g}: AUROC {auroc(held[test], y[test]):.3f}; at floor {args.floor}: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in r.items()))
            dev = test & near
            print(f"  test {g}, dev-set questions only: AUROC {auroc(held[dev], y[dev]):.3f}")
            for floor in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
                print(f"    floor {floor:.1f}: " + ", ".join(f"{k} {v:.3f}" for k, v in
                                                        rates(held[dev] < floor, y[dev]).items()))
        print(f"leave-one-corpus-out, pooled: AUROC {auroc(held, y):.3f}; "
              + ", ".join(f"{k} {v:.3f}" for k, v in rates(held < args.floor, y).items()))

    rng = np.random.default_rng(0)
    folds = np.zeros(len(rows), dtype=int)
    for label in (0.0, 1.0):
        idx = np.flatnonzero(y == label)
        rng.shuffle(idx)
        folds[idx] = np.arange(len(idx)) % 5
    cv = np.zeros(len(rows))
    for k in range(5):
        w = fit(x[folds != k], y[folds != k])
        cv[folds == k] = predict(w, x[folds == k])
    print(f"5-fold CV: AUROC {auroc(cv, y):.3f}; at floor {args.floor}: "
          + ", ".join(f"{k} {v:.3f}" for k, v in rates(cv < args.floor, y).items()))
    print(f"5-fold CV, dev-set questions only (near misses, no far-off ones): AUROC {auroc(cv[near], y[near]):.3f}; "
          + ", ".join(f"{k} {v:.3f}" for k, v in rates(cv[near] < args.floor, y[near]).items()))
    print(f"today's rule, dev-set questions only: {rates(today[near], y[near])}")
    for floor in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        print(f"  CV floor {floor:.1f}, dev-set questions: "
              + ", ".join(f"{k} {v:.3f}" for k, v in rates(cv[near] < floor, y[near]).items()))

    w = fit(x, y)
    coef = {"intercept": round(float(w[0]), 3), **{f: round(float(v), 3) for f, v in zip(FEATURES, w[1:], strict=True)}}
    print(f"coefficients fitted on all {len(rows)} questions: {coef}")
    full = predict(w, x)
    print("misclassified by the full fit at the floor:")
    for r, p in zip(rows, full, strict=True):
        if (p < args.floor) == r["answerable"]:
            print(f"  {r['id']:12s} {r['kind']:12s} p={p:.2f} " + " ".join(f"{f}={r[f]:.2f}" for f in FEATURES))
    if args.json:
        args.json.write_text(json.dumps({"coefficients": coef, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
