"""Abstention that generalises: leave-one-corpus-out over three corpora (issue 27).

    pip download --no-deps --no-binary :all: urllib3==2.8.0 && tar xzf urllib3-2.8.0.tar.gz     # once
    pip download --no-deps --no-binary :all: black==26.10.1 && tar xzf black-26.10.1.tar.gz     # once
    python bench/abstention_loco.py --urllib3-docs urllib3-2.8.0/docs --black-docs black-26.10.1/docs --json loco.json
    python bench/abstention_loco.py --rows loco.json --features cosine,coverage,rare_focus       # figures again
    python bench/abstention_loco.py --rows audit.json --corpora click-docs,httpx-docs,...        # audit rows
    python bench/abstention_loco.py --rows auditA.json auditB.json --table     # per corpus: shipped and LOCO refit

`--table` (rows of `bench/abstention_audit.py --no-far-off` over every dev set; without `--corpora`, every corpus
of the rows with near misses) prints one row per corpus: the AUROC of the shipped probability and the product's own
decisions (near misses abstained, answerable refused), then `--features` (default the shipped ones) refitted on the
other corpora: AUROC, the floor their operating point gives, and the decisions at it.

Questions: each corpus' own dev set — bench/questions/rust-book.jsonl, flask-docs.jsonl, urllib3-docs.jsonl,
black-docs.jsonl (the fourth: first run once as a pure held-out check of the rule fitted on the other three,
bench/history/early-retrieval-quality.md "Abstention on a fourth corpus", then added to the fits) — its
answerable questions (gold non-empty) against its near misses (no gold: the corpus' own topic, but something it
does not cover). No far-off questions: they are easy and would flatter every figure (the far-off floor
has its own fit and test set: bench/abstention_faroff.py). Each corpus is indexed by
`RagWorkspace` with default settings (the index in the user cache dir is reused) and each question retrieved as
`rag/query` does with the probability rule off, recording every `Evidence` field (retrieval/abstention.py) —
`sentence_cosine` included, computed here with the index's model when the product does not gather it — and
today's rule-2 decision (cosine floor / keyword match).

For each feature set: fit the logistic model (L2 0.01, each corpus and each class weighted alike) on two corpora,
take as floor their operating point (the largest floor refusing at most 3 % of each one's answerable questions),
test on the third. Printed per held-out corpus: AUROC, near misses abstained / answerable refused with the
product's decision (probability below the floor, or rule 2), and the floor. Then the coefficients fitted on all
corpora, the intercept moved so their operating point is the product's default floor (`--floor`, 0.2).
`--features` picks one set; without it a fixed list of sets is run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from abstention_fit import auroc, fit, predict
from data import dataset

CORPORA = ["rust-book", "flask-docs", "urllib3-docs", "black-docs"]  # --rows --corpora replaces them
FEATURES = ("cosine", "coverage", "agreement", "coverage_top", "missing_idf", "focus_coverage", "cosine_margin",
            "bm25_top", "rare_focus", "rare_top", "sentence_cosine", "absent_name", "value_missing", "meaning_absent",
            "meaning_delta", "hit_gain", "sent_best", "sent_asked")  # the last four: bench/abstention_hit_absent.py
SHIPPED = ("focus_coverage", "absent_name", "value_missing", "meaning_absent")  # abstention.COEFFICIENTS' features
REFUSED = 0.03  # the operating point: the largest floor that refuses at most this share of answerable questions
SETS = (
    SHIPPED,
    ("coverage", "bm25_top", "absent_name"),  # shipped before the fourth corpus
    ("cosine", "coverage", "bm25_top", "absent_name"),
    ("cosine", "coverage", "absent_name"),
    ("focus_coverage", "absent_name"),
    ("cosine", "coverage", "agreement", "absent_name"),
    ("sentence_cosine", "coverage", "bm25_top", "absent_name"),
    ("cosine", "coverage", "agreement"),  # shipped before issue 27
    ("cosine", "coverage"),
    ("cosine", "coverage", "bm25_top"),
    ("sentence_cosine", "coverage"),
    ("sentence_cosine", "rare_focus"),
    ("sentence_cosine", "coverage", "rare_focus"),
    ("cosine", "sentence_cosine", "coverage", "rare_focus"),
    ("sentence_cosine", "rare_top"),
    ("sentence_cosine", "coverage", "rare_top"),
    ("sentence_cosine", "rare_focus", "agreement"),
    ("sentence_cosine", "coverage", "rare_focus", "bm25_top"),
)


def load_set(name: str) -> list[dict]:
    """The dev set's answerable questions and near misses (far-off questions left out: they are easy)."""
    out = []
    for line in (HERE / "questions" / f"{name}.jsonl").read_text().splitlines():
        if line.strip() and not line.startswith("//"):
            q = json.loads(line)
            if q["kind"] not in ("far-off", "out-of-scope"):
                out.append(q)
    return out


def collect(name: str, corpus: Path, extra=None) -> list[dict]:
    """One row per question of `name`'s dev set: id, kind, answerable, every Evidence field, `rule2` (today's
    cosine-floor / keyword decision); `extra(ws, result, question)` -> dict adds a probe's own columns
    (bench/abstention_cooccur.py)."""
    from ragls.retrieval.abstention import sentence_cosine
    from ragls.retrieval.relevance import abstained
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([corpus], [{"retrieval": {"abstention_probability": 0.0}}])
    try:
        ws.index()
        rows = []
        for q in load_set(name):
            result = ws.retrieve(q["question"])
            ev = result.evidence
            row = {"id": q["id"], "kind": q["kind"], "answerable": bool(q["gold"]), "corpus": name,
                   **{f: getattr(ev, f, 0.0) for f in FEATURES},
                   "rule2": abstained(result, ws.settings.retrieval.abstention_floor)}
            if not row["sentence_cosine"]:
                row["sentence_cosine"] = sentence_cosine(result.query.vector, list(result)[:ws.settings.retrieval.top_k],
                                                         ws.embedder.embed_documents)
            row["cosine"] = row["cosine"] if row["cosine"] is not None else 0.0
            if extra is not None:
                row.update(extra(ws, result, q["question"]))
            rows.append(row)
            print(f"  {q['id']:12s} {'A' if row['answerable'] else 'N'} "
                  + " ".join(f"{f}={row[f]:.2f}" for f in ("cosine", "sentence_cosine", "coverage", "rare_focus")),
                  flush=True)
        return rows
    finally:
        ws.close()


def balanced_weights(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Sample weights under which every corpus, and within it each class, counts alike: how many near misses a
    new folder's questions hold is unknown, so no training mix may set the intercept."""
    w = np.zeros(len(y))
    for g in set(groups):
        for label in (0.0, 1.0):
            m = (groups == g) & (y == label)
            if m.any():
                w[m] = 1.0 / m.sum()
    return w * len(y) / w.sum()


def operating_floor(p: np.ndarray, y: np.ndarray, groups: np.ndarray, rule2: np.ndarray) -> float:
    """The largest floor (0.01 steps) at which the product's decision refuses at most REFUSED of the answerable
    questions of EVERY corpus in `groups`."""
    def ok(floor: float) -> bool:
        refused = ((p < floor) | rule2) & (y == 1)
        return all(refused[groups == g].sum() <= REFUSED * (y[groups == g] == 1).sum() + 1e-9 for g in set(groups))

    return max([f for f in np.arange(0.01, 0.95, 0.01) if ok(f)] + [0.01])


def matrix(rows: list[dict], features: tuple[str, ...]):
    return (np.array([[r[f] for f in features] for r in rows], dtype=float),
            np.array([1.0 if r["answerable"] else 0.0 for r in rows]), np.array([r["corpus"] for r in rows]),
            np.array([bool(r["rule2"]) for r in rows]))


def report(rows: list[dict], features: tuple[str, ...]) -> dict:
    """{held-out corpus: figures}: fitted (balanced) on the other corpora, the floor their operating point, tested
    on this one."""
    x, y, groups, rule2 = matrix(rows, features)
    out = {}
    for g in [c for c in CORPORA if c in set(groups)]:
        test = groups == g
        w = fit(x[~test], y[~test], balanced_weights(y[~test], groups[~test]))
        floor = operating_floor(predict(w, x[~test]), y[~test], groups[~test], rule2[~test])
        p = predict(w, x[test])
        decide = (p < floor) | rule2[test]
        yt = y[test]
        out[g] = {"auroc": auroc(p, yt), "near": int((decide & (yt == 0)).sum()), "n_near": int((yt == 0).sum()),
                  "refused": int((decide & (yt == 1)).sum()), "n_ans": int((yt == 1).sum()), "floor": floor}
    return out


def table(rows: list[dict], features: tuple[str, ...]) -> None:
    """One row per corpus: the product's own decisions in the rows (`abstained`: the shipped COEFFICIENTS at the
    default floor, the vetoes and rule 2, as `bench/abstention_audit.py` recorded them) with the AUROC of its
    probability `p`; then `features` refitted leave-one-corpus-out (`report`): AUROC, the floor the other corpora's
    operating point gives, near misses abstained and answerable refused at it. Totals and the mean AUROC last."""
    held = report(rows, features)
    print(f"| corpus | answerable | near misses | shipped: AUROC of P | shipped: near misses abstained | "
          f"shipped: answerable refused | LOCO ({', '.join(features)}): AUROC | floor | near misses abstained | "
          "answerable refused |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    tot = np.zeros(6, dtype=int)
    aucs, loco_aucs = [], []
    for g in CORPORA:
        if g not in held:
            continue
        mine = [r for r in rows if r["corpus"] == g]
        yt = np.array([1.0 if r["answerable"] else 0.0 for r in mine])
        p = np.array([0.0 if r.get("p") is None else r["p"] for r in mine])
        decided = np.array([bool(r.get("abstained", False)) for r in mine])
        a = auroc(p, yt)
        h = held[g]
        near, refused = int((decided & (yt == 0)).sum()), int((decided & (yt == 1)).sum())
        tot += [near, int((yt == 0).sum()), refused, int((yt == 1).sum()), h["near"], h["refused"]]
        aucs.append(a)
        loco_aucs.append(h["auroc"])
        print(f"| {g} | {h['n_ans']} | {h['n_near']} | {a:.3f} | {near}/{h['n_near']} | {refused}/{h['n_ans']} | "
              f"{h['auroc']:.3f} | {h['floor']:.2f} | {h['near']}/{h['n_near']} | {h['refused']}/{h['n_ans']} |")
    print(f"| all {len(aucs)} corpora | {tot[3]} | {tot[1]} | mean {np.nanmean(aucs):.3f} | {tot[0]}/{tot[1]} | "
          f"{tot[2]}/{tot[3]} | mean {np.nanmean(loco_aucs):.3f} | | {tot[4]}/{tot[1]} | {tot[5]}/{tot[3]} |")


def shipped(rows: list[dict], features: tuple[str, ...], floor: float) -> dict[str, float]:
    """Coefficients fitted (balanced) on every corpus, the intercept moved so that the operating point falls at
    the product's default floor `floor` (retrieval.abstention_probability): same decisions, same setting."""
    x, y, groups, rule2 = matrix(rows, features)
    w = fit(x, y, balanced_weights(y, groups))
    at = operating_floor(predict(w, x), y, groups, rule2)
    logit = lambda q: float(np.log(q / (1 - q)))  # noqa: E731
    w[0] += logit(floor) - logit(at)
    print(f"fitted on all {len(rows)}: operating point {at:.2f} in-sample, moved to {floor}")
    return {"intercept": round(float(w[0]), 3), **{f: round(float(v), 3) for f, v in zip(features, w[1:], strict=True)}}


def main() -> int:
    global REFUSED
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rust-book", type=Path)
    ap.add_argument("--flask-docs", type=Path)
    ap.add_argument("--urllib3-docs", type=Path, help="the docs/ folder of the urllib3 2.8.0 sdist")
    ap.add_argument("--black-docs", type=Path, help="the docs/ folder of the black 26.10.1 sdist")
    ap.add_argument("--corpora", default=",".join(CORPORA))
    ap.add_argument("--floor", type=float, default=0.2)
    ap.add_argument("--refused", type=float, default=REFUSED, help="the operating point's largest share of each "
                    "training corpus' answerable questions refused (default 0.03: none of 30; 0.034 allows 1 of 30)")
    ap.add_argument("--features", help="comma list of Evidence fields (default: a fixed list of sets)")
    ap.add_argument("--json", type=Path, help="write (and merge into) the per-question rows here")
    ap.add_argument("--rows", type=Path, nargs="+", help="reuse the rows of earlier --json runs, or of "
                    "bench/abstention_audit.py (no indexing)")
    ap.add_argument("--table", action="store_true", help="one row per corpus for --features (default the shipped "
                    "ones): the product's decisions in the rows and the leave-one-corpus-out refit")
    args = ap.parse_args()

    REFUSED = args.refused
    rows = [r for p in args.rows for r in json.loads(p.read_text())["rows"]] if args.rows else []
    if not args.rows:
        old = json.loads(args.json.read_text())["rows"] if args.json and args.json.exists() else []
        for name in args.corpora.split(","):
            if name in ("urllib3-docs", "black-docs"):
                corpus = getattr(args, name.replace("-", "_"))
                if corpus is None:
                    ap.error(f"--{name} PATH is needed (pip download, see the module docstring)")
            else:
                corpus = dataset(name, getattr(args, name.replace("-", "_")))
            print(f"{name}: {corpus}", flush=True)
            old = [r for r in old if r["corpus"] != name]
            rows += collect(name, corpus)
        rows = old + rows
        if args.json:
            args.json.write_text(json.dumps({"rows": rows}, indent=1))
    if args.rows:  # the rows of bench/abstention_audit.py too: each corpus' own set, an unmeasured feature 0
        chosen = args.corpora.split(",") if args.corpora != ",".join(CORPORA) else list(dict.fromkeys(
            r["corpus"] for r in rows if any(not q["answerable"] and q["corpus"] == r["corpus"] for q in rows)))
        CORPORA[:] = chosen
        rows = [{**{f: 0.0 for f in FEATURES}, **r} for r in rows
                if r["corpus"] in chosen and r.get("set", r["corpus"]) == r["corpus"]]
    rows = [r for r in rows if r["kind"] not in ("far-off", "out-of-scope")]
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    if args.table:
        print(f"{len(rows)} questions: {int(y.sum())} answerable, {int((1 - y).sum())} near misses, "
              f"{len(CORPORA)} corpora")
        table(rows, tuple(args.features.split(",")) if args.features else SHIPPED)
        return 0
    print(f"{len(rows)} questions: {int(y.sum())} answerable, {int((1 - y).sum())} near misses")
    print("AUROC of each piece of evidence alone, per corpus:")
    for f in FEATURES:
        cells = []
        for g in CORPORA:
            m = np.array([r["corpus"] == g for r in rows])
            if m.any():
                cells.append(f"{g} {auroc(np.array([r[f] for r in rows])[m], y[m]):.3f}")
        print(f"  {f:16s} " + ", ".join(cells))
    sets = [tuple(args.features.split(","))] if args.features else SETS
    print("\nleave-one-corpus-out: fitted on the other corpora (each corpus and class weighted alike), the floor their"
          f" operating point (at most {REFUSED:.0%} of each one's answerable questions refused), tested on this one:")
    print("| features | " + " | ".join(f"{g}: AUROC, near misses abstained, answerable refused (floor)"
                                      for g in CORPORA) + " |")
    print("|---|" + "---|" * len(CORPORA))
    for fs in sets:
        res = report(rows, fs)
        cells = [f"{r['auroc']:.3f}, {r['near']}/{r['n_near']}, {r['refused']}/{r['n_ans']} ({r['floor']:.2f})"
                 if (r := res.get(g)) else "–" for g in CORPORA]
        print(f"| {', '.join(fs)} | " + " | ".join(cells) + " |")
    fs = tuple(args.features.split(",")) if args.features else SHIPPED
    print(f"coefficients for abstention.py ({', '.join(fs)}): {shipped(rows, fs, args.floor)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
