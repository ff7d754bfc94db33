"""Answer type for abstention (issue 27): does `value_missing` (retrieval/asked_value.py) catch near misses that ask
for a value the docs never state, without refusing value questions the docs answer? Leave-one-corpus-out.

    python bench/abstention_value.py --aiohttp-docs aiohttp-3.14.5/docs --urllib3-docs urllib3-2.8.0/docs \
        --black-docs black-26.10.1/docs --json value.json       # collect (indexes reused), then the tables
    python bench/abstention_value.py --rows value.json          # the tables again from the rows

Questions: per corpus, its dev set (bench/questions/<corpus>.jsonl; answerable vs near misses, far-off left out)
and its value probe set (bench/questions/value-probe-<corpus>.jsonl: answerable questions whose value the docs
state, near-miss-known ones whose value they never state — written before any rule scored them). Rows:
bench/abstention_loco.py's (every Evidence field, `rule2`) plus the shipped P and the asked value type.

Printed: (1) per corpus, the questions asking for a value (`asked_value`) and where `value_missing` fires;
(2) the product's decision (P < floor or rule 2) without and with `value_missing`'s weight (a veto like
`absent_name`),
per corpus and set; (3) leave-one-corpus-out over the five corpora (dev + probe rows): the shipped features
against the same + value_missing, each fitted on the other four, floor = their operating point (at most 3 % of
each one's answerable refused).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import abstention_loco as loco  # noqa: E402
from data import dataset  # noqa: E402

CORPORA = ("rust-book", "flask-docs", "urllib3-docs", "black-docs", "aiohttp-docs")
FLOOR = 0.2  # retrieval.abstention_probability's default


def extra(ws, result, text: str) -> dict:
    from ragls.retrieval.asked_value import asked_value

    return {"question": text, "asked_value": asked_value(text)}


def collect(args) -> list[dict]:
    rows = []
    for name in CORPORA:
        path = getattr(args, name.replace("-", "_"))
        corpus = dataset(name, path) if name in ("rust-book", "flask-docs") else path
        if corpus is None:
            raise SystemExit(f"--{name} PATH is needed")
        for qset in (name, f"value-probe-{name}"):
            print(f"{qset}: {corpus}", flush=True)
            for r in loco.collect(qset, corpus, extra=extra):
                r["corpus"], r["set"] = name, "probe" if qset != name else "dev"
                rows.append(r)
    return rows


def decide(rows: list[dict], veto: bool) -> np.ndarray:
    """The product's decision per row: P < FLOOR (shipped COEFFICIENTS, value_missing's weight only with `veto`)
    or rule 2."""
    from ragls.retrieval.abstention import COEFFICIENTS

    coef = {f: v for f, v in COEFFICIENTS.items() if veto or f != "value_missing"}
    z = np.array([coef["intercept"] + sum(v * r[f] for f, v in coef.items() if f != "intercept") for r in rows])
    return (1.0 / (1.0 + np.exp(-z)) < FLOOR) | np.array([bool(r["rule2"]) for r in rows])


def cell(decided: np.ndarray, m: np.ndarray, y: np.ndarray) -> str:
    """"near misses abstained/near misses, answerable refused/answerable" over the rows `m`."""
    return f"{int((decided & m & ~y).sum())}/{int((m & ~y).sum())}, {int((decided & m & y).sum())}/{int((m & y).sum())}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name in CORPORA:
        ap.add_argument(f"--{name}", type=Path)
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--rows", type=Path, help="reuse the rows of an earlier --json (no indexing)")
    args = ap.parse_args()
    rows = json.loads(args.rows.read_text())["rows"] if args.rows else collect(args)
    if args.json and not args.rows:
        args.json.write_text(json.dumps({"rows": rows}, indent=1))
    rows = [r for r in rows if r["kind"] not in ("far-off", "out-of-scope")]

    print("\n1. Questions asking for a value (asked_value), and where value_missing fires (A answerable, N near miss)")
    for g in CORPORA:
        asked = [r for r in rows if r["corpus"] == g and r["asked_value"]]
        fires = [f"{r['id']} ({'A' if r['answerable'] else 'N'})" for r in asked if r["value_missing"]]
        quiet = [f"{r['id']} ({'A' if r['answerable'] else 'N'})" for r in asked if not r["value_missing"]]
        print(f"  {g}: {len(asked)} value questions; fires on {', '.join(fires) or '-'}; not on {', '.join(quiet)}")

    print("\n2. The product's decision (P < 0.2 or rule 2) before | with value_missing as a veto: near misses "
          "abstained, answerable refused")
    print("| corpus | set | before | with the veto |")
    print("|---|---|---|---|")
    before, after = decide(rows, False), decide(rows, True)
    y = np.array([r["answerable"] for r in rows])
    for g in CORPORA:
        for s in ("dev", "probe"):
            m = np.array([r["corpus"] == g and r["set"] == s for r in rows])
            print(f"| {g} | {s} | {cell(before, m, y)} | {cell(after, m, y)} |")
    moved = [(r["id"], a) for r, a, b in zip(rows, after, before, strict=True) if a != b]
    print("refused with the veto:", [i for i, _ in moved if i in {r["id"] for r in rows if r["answerable"]}])
    print("abstained only with the veto:", [i for i, _ in moved])

    print("\n3. Leave-one-corpus-out over the five corpora (dev + probe rows): AUROC, near misses abstained, answerable "
          "refused (floor)")
    loco.CORPORA = CORPORA
    print("| features | " + " | ".join(CORPORA) + " |")
    print("|---|" + "---|" * len(CORPORA))
    for fs in (loco.SHIPPED, loco.SHIPPED + ("value_missing",)):
        res = loco.report(rows, fs)
        print(f"| {', '.join(fs)} | " + " | ".join(
            f"{r['auroc']:.3f}, {r['near']}/{r['n_near']}, {r['refused']}/{r['n_ans']} ({r['floor']:.2f})"
            for r in (res[g] for g in CORPORA)) + " |")
    print("coefficients, all five:", loco.shipped(rows, loco.SHIPPED + ("value_missing",), FLOOR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
