"""Which evidence decided each abstention: every near miss answered and every answerable question refused.

    python bench/abstention_audit.py --json audit.json click-docs=PATH/click-8.5.1/docs structlog-docs=PATH ...
    python bench/abstention_audit.py --rows audit.json [--compare before.json]      # the table again / both ways

Each `<set>=<folder>` indexes the folder with default settings (`RagWorkspace`; the index in the cache dir is reused)
and asks every question of bench/questions/<set>.jsonl, of value-probe-<set>.jsonl when there is one, and of
far-off.jsonl, as `rag/query` does. A row holds every `Evidence` field (retrieval/abstention.py), the absent names,
the probability, the cosine the far-off floor needs (`needed_cosine`) and the product's decision
(`relevance.abstained` at the default settings). Printed: per set, near misses abstained, answerable refused and
far-off abstained; then every near miss answered and every answerable refused with its evidence, so the deciding
piece can be read off (absent_name / value_missing: the vetoes; p: the focus_coverage model; need: the far-off
floor). With `--compare`, the questions whose decision changed. Issue 27: near misses abstained >= 4/6 with at most
1/30 answerable refused on a new set.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FEATURES = ("cosine", "coverage", "agreement", "coverage_top", "missing_idf", "focus_coverage", "cosine_margin",
            "bm25_top", "rare_focus", "rare_top", "absent_name", "value_missing", "meaning_absent")


def questions(name: str, far_off: bool = True) -> list[dict]:
    out = []
    for s in (name, f"value-probe-{name}", *(["far-off"] if far_off else [])):
        path = HERE / "questions" / f"{s}.jsonl"
        if path.exists():
            out += [{**json.loads(line), "set": s} for line in path.read_text().splitlines()
                    if line.strip() and not line.startswith("//")]
    return out


def hit_rows(res) -> list[dict]:
    """The top hits as the evidence read them (`--hits`): chunk id, path, title, focus text, window lines, cosine, ranks."""
    from ragls.retrieval.abstention import focus_text

    out = []
    for h in list(res)[:5]:
        win = h.window or h.focus
        out.append({"chunk": h.chunk.id, "path": h.chunk.path, "span": [h.chunk.span.start_line, h.chunk.span.end_line],
                    "title": h.chunk.title, "focus": focus_text(h)[:1000], "text": h.chunk.text[:3000],
                    "window": [win.start_line - h.chunk.span.start_line, win.end_line - h.chunk.span.start_line]
                    if win else None, "similarity": h.similarity, "signals": h.signals})
    return out


def collect(name: str, folder: Path, with_hits: bool = False, far_off: bool = True) -> list[dict]:
    from ragls.retrieval.relevance import abstained
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder])
    try:
        ws.index()
        r = ws.settings.retrieval
        rows = []
        for q in questions(name, far_off):
            res = ws.retrieve(q["question"])
            ev = res.evidence
            rows.append({"id": q["id"], "set": q["set"], "kind": q["kind"], "answerable": bool(q["gold"]),
                         "corpus": name, "question": q["question"], **{f: getattr(ev, f) for f in FEATURES},
                         "absent_names": list(ev.absent_names), "absent_words": list(ev.absent_words), "p": ev.probability(),
                         "needed": ev.needed_cosine(r.abstention_floor), "rule2": abstained(res, r.abstention_floor),
                         "abstained": abstained(res, r.abstention_floor, min_probability=r.abstention_probability),
                         **({"hits": hit_rows(res)} if with_hits else {})})
        return rows
    finally:
        ws.close()


def near_miss(row: dict) -> bool:
    """A near miss: no gold, and not far off (a set's own far-off questions are counted with far-off.jsonl's)."""
    return not row["answerable"] and row["kind"] != "far-off"


def summary(rows: list[dict]) -> None:
    print("| set | near misses abstained | answerable refused | far-off abstained |\n|---|---|---|---|")
    for corpus in dict.fromkeys(r["corpus"] for r in rows):
        for s in dict.fromkeys(r["set"] for r in rows if r["corpus"] == corpus):
            mine = [r for r in rows if r["corpus"] == corpus and r["set"] == s]
            nm = [r for r in mine if near_miss(r)]
            ans = [r for r in mine if r["answerable"]]
            far = [r for r in mine if r["kind"] == "far-off"]
            label = s if s != "far-off" else f"far-off@{corpus}"
            print(f"| {label} | {sum(r['abstained'] for r in nm)}/{len(nm)} | {sum(r['abstained'] for r in ans)}/"
                  f"{len(ans)} | {sum(r['abstained'] for r in far)}/{len(far)} |")


def line(r: dict) -> str:
    p = "-" if r["p"] is None else f"{r['p']:.2f}"
    return (f"{r['id']:11s} {r['kind'][:16]:16s} {'ABSTAINED' if r['abstained'] else 'answered '} p={p} "
            f"cos={r['cosine'] or 0:.2f} need={r['needed']:.2f} focus_cov={r['focus_coverage']:.2f} "
            f"rare_focus={r['rare_focus']:.2f} names={r['absent_names']} value_missing={r['value_missing']:.0f} "
            f"meaning_absent={r.get('meaning_absent', 0):.0f}{r.get('absent_words', [])} | "
            f"{r['question'][:100]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", help="<set>=<docs folder>")
    ap.add_argument("--json", type=Path, help="write (and merge into) the rows here")
    ap.add_argument("--rows", type=Path, help="reuse the rows of an earlier --json")
    ap.add_argument("--hits", action="store_true", help="also record the top 5 hits' titles, focus and texts")
    ap.add_argument("--no-far-off", action="store_true", help="leave far-off.jsonl out (near misses and answerable only)")
    ap.add_argument("--compare", type=Path, help="rows of another run: list the decisions that changed")
    args = ap.parse_args()
    rows = json.loads(args.rows.read_text())["rows"] if args.rows else []
    for spec in args.sets:
        name, folder = spec.split("=", 1)
        rows = [r for r in rows if r["corpus"] != name] + collect(name, Path(folder), args.hits, not args.no_far_off)
        print(f"{name}: done", flush=True)
        if args.json:
            old = json.loads(args.json.read_text())["rows"] if args.json.exists() else []
            args.json.write_text(json.dumps({"rows": [r for r in old if r["corpus"] != name]
                                             + [r for r in rows if r["corpus"] == name]}, indent=0))
    summary(rows)
    print("\nnear misses answered and answerable questions refused:")
    for r in rows:
        if ((near_miss(r) and not r["abstained"]) or (r["answerable"] and r["abstained"])):
            print(f"  {r['corpus'][:14]:14s} " + line(r))
    if args.compare:
        before = {(r["corpus"], r["set"], r["id"]): r for r in json.loads(args.compare.read_text())["rows"]}
        print("\ndecisions changed (before -> now):")
        for r in rows:
            b = before.get((r["corpus"], r["set"], r["id"]))
            if b is not None and b["abstained"] != r["abstained"]:
                kind = "near miss" if near_miss(r) else "answerable" if r["answerable"] else "far-off"
                print(f"  {r['corpus'][:14]:14s} {kind:10s} {'answered -> ABSTAINED' if r['abstained'] else 'ABSTAINED -> answered'}"
                      f"  {line(r)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
