"""Probe: does sentence-level similarity help the abstention rule? (issue 12; measured, not shipped unless it helps)

    python bench/abstention_sentences.py [--json sentences.json] [--rows sentences.json] [--floor 0.2]

Same 223 questions as bench/abstention_fit.py (both dev sets, bench/abstention.py's in-scope / far-off questions),
retrieved with the shipped defaults. For each question, the focus lines of the top hits (their best embedding
window, or for a BM25-only hit its best lines) are split into sentences (prose split at sentence ends and list
items; a fenced or indented code block is one unit, cut to 400 characters; fragments under 3 words dropped; at
most `--per-hit` units per hit), embedded with the index's own model, and compared with the question vector:

- `sent_top3` / `sent_top5`: the largest cosine between the question and one sentence of the top 3 / 5 hits;
- `pair_top5`: the same over two consecutive sentences embedded together;
- `sent_gain`: sent_top5 minus the best-window cosine (does one sentence match better than its window?).

Printed: each feature's AUROC alone (all questions, and the dev-set questions only); leave-one-corpus-out
logistic fits (abstention_fit.py's `fit`) with and without each feature, their held-out AUROC on each corpus'
own questions, and the product's decision at `--floor` (probability below it, or the cosine/keyword rule); the
cost (sentences embedded per question, ms per question).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import abstention_fit as af
from abstention import IN_SCOPE, OUT_OF_SCOPE
from data import dataset

SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\[\"'0-9])")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)]|#+)\s+")
FENCE = re.compile(r"^\s*(```|~~~)")
NEW = ("sent_top3", "sent_top5", "pair_top5", "sent_gain")


def focus_lines(hit) -> list[str]:
    lines = hit.chunk.text.splitlines()
    f = hit.focus
    if f is None:
        return lines
    a = max(0, f.start_line - hit.chunk.span.start_line)
    b = max(a, f.end_line - hit.chunk.span.start_line)
    return lines[a:b + 1]


def units(lines: list[str]) -> list[str]:
    """Sentences of prose, code blocks as one unit each, in order."""
    out, para, code, fenced = [], [], [], False

    def flush_para():
        if para:
            out.extend(s.strip() for s in SENT_END.split(" ".join(p.strip() for p in para)))
            para.clear()

    def flush_code():
        if code:
            out.append("\n".join(code)[:400])
            code.clear()

    for line in lines:
        line = re.sub(r"^\s*>\s?", "", line) if not fenced else line  # Markdown block quotes
        if re.match(r"^\.\. [\w-]+::", line.strip()):  # reST directive lines (the block below still counts)
            flush_para()
            continue
        if FENCE.match(line):
            if fenced:
                fenced = False
                flush_code()
            else:
                flush_para()
                fenced = True
            continue
        if fenced:
            code.append(line)
            continue
        if not line.strip():
            flush_para()
            flush_code()
            continue
        if line.startswith(("    ", "\t")) and not para:
            code.append(line)
            continue
        flush_code()
        if LIST_ITEM.match(line) or line.lstrip().startswith(".."):
            flush_para()
        para.append(line)
    flush_para()
    flush_code()
    return [u for u in out if len(re.findall(r"\w+", u)) >= 3]


def collect(corpus: Path, questions, per_hit: int, cache: dict) -> list[dict]:
    from ragls.retrieval.relevance import abstained
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([corpus], [{"retrieval": {"abstention_probability": 0.0}}])
    try:
        ws.index()
        emb = ws.embedder
        rows = []
        for qid, kind, text, answerable in questions:
            hits = ws.retrieve(text)
            ev = hits.evidence
            today = abstained(hits, ws.settings.retrieval.abstention_floor)
            t0 = time.perf_counter()
            q = emb.embed_query(text)
            q = q / np.linalg.norm(q)
            per = [units(focus_lines(h))[:per_hit] for h in hits[:5]]
            pairs = [[f"{s[i]} {s[i + 1]}" for i in range(len(s) - 1)] for s in per]
            texts = [t for s in per + pairs for t in s]
            fresh = [t for t in dict.fromkeys(texts) if t not in cache]
            if fresh:
                vecs = emb.embed_documents(fresh)
                vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
                cache.update(zip(fresh, vecs, strict=True))
            ms = (time.perf_counter() - t0) * 1000

            def best(groups, q=q):
                return max((float(cache[t] @ q) for g in groups for t in g), default=0.0)

            s5 = best(per)
            rows.append({"id": qid, "kind": kind, "answerable": answerable, "corpus": corpus.name,
                         **{f: getattr(ev, f) for f in af.ALL_FEATURES}, "today_abstained": today,
                         "sent_top3": best(per[:3]), "sent_top5": s5, "pair_top5": best(pairs),
                         "sent_gain": s5 - (ev.cosine or 0.0),
                         "n_sent": sum(map(len, per)), "n_pair": sum(map(len, pairs)), "n_fresh": len(fresh),
                         "ms": ms})
        return rows
    finally:
        ws.close()


def loco(rows, features, floor):
    """Leave-one-corpus-out held-out probabilities for `features`; per corpus: (AUROC on its own questions,
    near misses abstained, answerable abstained) under the product's decision at `floor`."""
    x = np.array([[r[f] for f in features] for r in rows], dtype=float)
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    groups = np.array([r["corpus"] for r in rows])
    near = np.array([r["kind"] != "out-of-scope" for r in rows])
    own = np.array([r["kind"] not in ("out-of-scope", "in-scope") for r in rows])  # the dev-set files only
    today = np.array([r["today_abstained"] for r in rows])
    out = {}
    for g in sorted(set(groups)):
        test = groups == g
        w = af.fit(x[~test], y[~test])
        p = af.predict(w, x[test])
        d = near[test]
        res = {"auroc": af.auroc(p[d], y[test][d])}
        for fl in (floor, 0.3):
            dec = (p < fl) | today[test]
            o = own[test]
            yy = y[test]
            res[fl] = (int((dec & o & (yy == 0)).sum()), int((o & (yy == 0)).sum()),
                       int((dec & o & (yy == 1)).sum()), int((o & (yy == 1)).sum()))
        out[g] = (res, w)
    return out


def print_loco(rows, feature_sets, floor: float, width: int) -> None:
    """One line per feature set: leave-one-corpus-out AUROC and the abstained counts at `floor` and at 0.3."""
    for feats in feature_sets:
        line = f"{'+'.join(feats):{width}s}"
        for g, (r, _w) in loco(rows, feats, floor).items():
            a, b, c, d = r[floor]
            e, f_, g2, h = r[0.3]
            line += (f" | {g}: AUROC {r['auroc']:.3f}; at {floor}: near {a}/{b}, answerable {c}/{d};"
                     f" at 0.3: {e}/{f_}, {g2}/{h}")
        print(line)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rows", type=Path)
    ap.add_argument("--floor", type=float, default=0.2)
    ap.add_argument("--per-hit", type=int, default=16, help="sentences per hit at most")
    args = ap.parse_args()
    far = [(f"out-{i}", "out-of-scope", q, False) for i, q in enumerate(OUT_OF_SCOPE) if "pip" not in q]
    if args.rows:
        rows = json.loads(args.rows.read_text())
    else:
        rows, cache = [], {}
        for name in ("rust-book", "flask-docs"):
            extra = list(far)
            if name == "rust-book":
                extra += [(f"in-{i}", "in-scope", q, True) for i, q in enumerate(IN_SCOPE)]
            rows += collect(dataset(name), af.load_set(name) + extra, args.per_hit, cache)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    near = np.array([r["kind"] != "out-of-scope" for r in rows])
    print(f"{len(rows)} questions, {int(y.sum())} answerable")
    for f in ("cosine", "coverage", "agreement", "bm25_top") + NEW:
        col = np.array([r[f] for r in rows])
        print(f"  AUROC {f:10s} alone: all {af.auroc(col, y):.3f}; dev-set questions {af.auroc(col[near], y[near]):.3f}"
              f"  (answerable median {np.median(col[y == 1]):.3f}, unanswerable {np.median(col[y == 0]):.3f}, "
              f"near misses {np.median(col[near & (y == 0)]):.3f})")
    ms = np.array([r["ms"] for r in rows])
    n = np.array([r["n_sent"] for r in rows])
    npair = np.array([r["n_pair"] for r in rows])
    fresh = np.array([r["n_fresh"] for r in rows])
    print(f"cost: sentences per question median {np.median(n):.0f} (max {n.max()}), pairs {np.median(npair):.0f}; "
          f"embedded (not in the in-memory cache) median {np.median(fresh):.0f}; ms per question p50 "
          f"{np.median(ms):.0f}, p95 {np.percentile(ms, 95):.0f}")
    base = ("cosine", "coverage", "agreement")
    sets = [base, ("cosine", "coverage"), base + ("sent_top5",), base + ("sent_top3",), base + ("pair_top5",),
            base + ("sent_gain",), ("coverage", "agreement", "sent_top5"), ("cosine", "coverage", "sent_top5"),
            ("cosine", "coverage", "bm25_top", "sent_top5"), ("coverage", "sent_top5")]
    print_loco(rows, sets, args.floor, width=45)
    return 0


if __name__ == "__main__":
    sys.exit(main())
