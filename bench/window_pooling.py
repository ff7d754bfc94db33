"""Window pooling rules on Cranfield-1400: how a chunk's window cosines become its vector score (issue 12).

    python bench/window_pooling.py --workdir bench/results/cranfield \
        --variants '{"name": "max"};{"name": "first"};{"name": "blend", "lam": 0.5};{"name": "margin", "d": 0.03}'

Re-scores the index that `python bench/cranfield.py --workdir DIR` built (run it first) under several pooling
rules, through the real retrieval path (BM25, RRF, exact-match bonus, dedup): only
`VectorStore.search_windows` is replaced by an exact numpy search over every window row that pools each chunk's
window cosines by the rule. Rules: "max" (best window: MaxP, the rule before `retrieval.window_margin`), "first"
(window 0 only: FirstP), "blend" ((1 - lam) max + lam first), "mean" (mean over windows), "margin"
(max(first, max - d): what `retrieval.window_margin` = d ships, retrieval/pooling.py). Prints nDCG@10 per rule for
the vector signal (candidates 100), hybrid (candidates 100) and hybrid at the shipped defaults (candidates 30),
all over the top 10 documents. Query embeddings are computed once and reused across rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cranfield as C  # noqa: E402
from ir_metrics import evaluate  # noqa: E402

RULE: dict = {"name": "max"}
_QUERY_VECTORS: dict[str, np.ndarray] = {}
_ROWS: dict[int, tuple] = {}


def pool(s: np.ndarray, name: str, ov: np.ndarray | None = None, **kw) -> float:
    """One chunk's score from its window cosines `s` (ordered by window index) under rule `name`; `ov[i]` is the
    share of window i's lines that window 0 also holds."""
    if name == "max" or len(s) == 1:
        return float(s.max())
    if name == "first":
        return float(s[0])
    if name == "blend":
        return float((1 - kw["lam"]) * s.max() + kw["lam"] * s[0])
    if name == "mean":
        return float(s.mean())
    if name == "margin":
        return float(max(s[0], s[1:].max() - kw["d"]))
    if name == "overlap":  # the margin scaled by how much of the window repeats window 0
        return float(max(s[0], (s[1:] - kw["d"] * ov[1:]).max()))
    raise ValueError(f"unknown rule {name!r}")


def _rows(store):
    if id(store) not in _ROWS:
        n = store.table.count_rows()
        t = store.table.search().select(["id", "window", "start_line", "end_line", "vector"]).limit(n).to_arrow()
        ids = t.column("id").to_pylist()
        win = t.column("window").to_pylist()
        vec = np.stack([np.asarray(v, dtype=np.float32) for v in t.column("vector").to_pylist()])
        groups: dict[str, list[int]] = {}
        for j in sorted(range(len(ids)), key=lambda j: (ids[j], win[j])):
            groups.setdefault(ids[j], []).append(j)
        l0, l1 = t.column("start_line").to_pylist(), t.column("end_line").to_pylist()
        ovs = {}
        for cid, rows in groups.items():
            a0, b0 = l0[rows[0]], l1[rows[0]]
            ovs[cid] = np.array([max(0, min(b0, l1[j]) - max(a0, l0[j]) + 1) / (l1[j] - l0[j] + 1) for j in rows])
        _ROWS[id(store)] = (win, vec, l0, l1, groups, ovs)
    return _ROWS[id(store)]


def search_windows(self, vector, limit):
    from ragls.stores.vectors import WindowMatch

    win, vec, l0, l1, groups, ovs = _rows(self)
    sims = vec @ np.asarray(vector, dtype=np.float32)
    scored = []
    for cid, rows in groups.items():
        s = sims[rows]
        scored.append((pool(s, ov=ovs[cid], **RULE), cid, rows[int(np.argmax(s))]))
    scored.sort(key=lambda x: -x[0])
    # The pooled score is returned as the similarity so the vector signal ranks by it (pooling off in search).
    return [WindowMatch(cid, sc, int(win[b]), l0[b], l1[b], vec[b]) for sc, cid, b in scored[:limit]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=C.DEFAULT_WORKDIR, help="bench/cranfield.py's --workdir")
    ap.add_argument("--variants", default='{"name": "max"};{"name": "margin", "d": 0.03}',
                    help="';'-separated JSON rules")
    ap.add_argument("--data", type=Path, help="the Cranfield folder (default: bench/data.py's lookup)")
    ap.add_argument("--gold", type=Path, help="instead of Cranfield: a `ragls eval` gold file ...")
    ap.add_argument("--corpus", type=Path, help="... and its folder (index in the user cache dir, as ragls eval)")
    args = ap.parse_args(argv)
    from ragls.stores import vectors

    vectors.VectorStore.search_windows = search_windows
    if args.gold:
        return dev_set(args)
    C.DATA = C.dataset("cranfield", args.data)
    queries, qrels = C.load_queries(), C.load_qrels()
    print("| rule | vector nDCG@10 | hybrid nDCG@10 | hybrid, defaults (candidates 30) |")
    print("|---|---:|---:|---:|")
    for spec in args.variants.split(";"):
        RULE.clear()
        RULE.update(json.loads(spec))
        row = []
        for signals, candidates in (("vector", 100), ("hybrid", 100), ("hybrid", None)):
            # window_margin 0: the rule above does all the pooling
            ws = C.open_workspace(args.workdir, candidates, {"retrieval": {"window_margin": 0.0}})
            try:
                ws.index()
                embed = ws.embedder.embed_query

                def cached(text, embed=embed):
                    if text not in _QUERY_VECTORS:
                        _QUERY_VECTORS[text] = embed(text)
                    return _QUERY_VECTORS[text]

                ws.embedder.embed_query = cached
                runs = {qid: C.doc_run(ws, text, C.SIGNAL_SETS[signals], 10) for qid, text in queries.items()}
                row.append(evaluate(runs, qrels)["nDCG@10"])
            finally:
                ws.close()
        print(f"| {spec} | " + " | ".join(f"{v:.4f}" for v in row) + " |", flush=True)
    return 0


def dev_set(args) -> int:
    """MRR@10, SpanHit@5 and deep-detail MRR@10 of `ragls eval` (k 5, default settings) per rule."""
    from ragls.evaluation import evaluate as E
    from ragls.workspace.rag_workspace import RagWorkspace

    questions = E.load_questions(args.gold)
    print("| rule | MRR@10 | SpanHit@5 | deep MRR@10 |")
    print("|---|---:|---:|---:|")
    for spec in args.variants.split(";"):
        RULE.clear()
        RULE.update(json.loads(spec))
        ws = RagWorkspace([args.corpus], [{"retrieval": {"window_margin": 0.0}}])
        try:
            ws.index()
            s = E.summarize(E.run(questions, ws.retrieve, ws.abstains, 5), 5)
        finally:
            ws.close()
        deep = s["kinds"].get("deep", {}).get("MRR@10")
        print(f"| {spec} | {s['all']['MRR@10']:.3f} | {s['all']['SpanHit@5']:.3f} | "
              f"{'-' if deep is None else f'{deep:.3f}'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
