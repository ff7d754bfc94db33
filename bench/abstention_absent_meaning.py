"""Do the top passages speak to the question's words the documents lack? A probe for near misses (issue 27).

    python bench/abstention_absent_meaning.py --json delta.json werkzeug-docs=DIR mkdocs-docs=DIR structlog-docs=DIR ...
    python bench/abstention_absent_meaning.py --rows delta.json --check attrs-docs,marshmallow-docs   # figures again

A near miss made of a corpus' words plus one it lacks ("How do I export my MkDocs site as a single PDF file?": no
chunk says export or PDF) finds passages about the rest ("site", "file"); a paraphrase's missing words ("blows up",
"hundredth entry") are said by its passage in other words. MiniLM can tell the two: drop the words whose stems no
chunk holds (of the asking clause, `abstention.asked_query`, the user's own material left out) and compare the best
cosine of the top 3 hits' focus texts with the shortened question against the whole one. delta = cos(shortened) -
cos(whole): above 0 when the dropped words only pulled the question away from the passages (they speak of something
else), below when the passages meant them.

Each `<set>=<folder>` is indexed with default settings (`RagWorkspace`; the index in the cache dir is reused) and
every question of bench/questions/<set>.jsonl and value-probe-<set>.jsonl retrieved as `rag/query` does; delta is
computed for the questions the product answers that have such a word (the others are abstained already or have
nothing to drop). Printed: leave-one-corpus-out over the non-`--check` corpora — the veto "delta >= threshold", the
threshold the largest answerable delta of the other corpora plus 0.01 — near misses abstained and answerable refused
before and after per corpus, then the `--check` corpora (counts only) at the thresholds the folds chose.
bench/history/sessions-40-41.md, "Abstention: the whole question weighed too; prefixed English words": measured, not shipped.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from abstention_audit import near_miss, questions  # noqa: E402

TOP = 3  # the focus texts of this many top hits (abstention.SENTENCE_HITS)


def collect(name: str, folder: Path) -> list[dict]:
    from ragls.retrieval.absent_meaning import absent_meaning
    from ragls.retrieval.relevance import abstained
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder])
    try:
        ws.index()
        r = ws.settings.retrieval
        rows = []
        for q in [q for q in questions(name) if q["set"] != "far-off"]:
            res = ws.retrieve(q["question"])
            if res.evidence is not None:  # the decision without the veto this measures (shipped as meaning_absent)
                res = res.with_(evidence=replace(res.evidence, meaning_absent=0.0, absent_words=()))
            decided = abstained(res, r.abstention_floor, min_probability=r.abstention_probability)
            row = {"id": q["id"], "set": q["set"], "kind": q["kind"], "answerable": bool(q["gold"]), "corpus": name,
                   "abstained": decided, "delta": None}
            if not decided and res.query is not None and res.term_stats:
                found = absent_meaning(res.term_stats, res.query, list(res)[:TOP], ws.embedder.embed_query,
                                       ws.embedder.embed_documents)  # the product's own computation
                row["delta"] = None if found is None else found[0]
            rows.append(row)
        return rows
    finally:
        ws.close()


def figures(rows: list[dict], threshold: float) -> tuple[int, int, int, int]:
    """(near misses abstained, near misses, answerable refused, answerable) with the veto delta >= threshold."""
    def out(r: dict) -> bool:
        return r["abstained"] or (r["delta"] is not None and r["delta"] >= threshold)

    nm = [r for r in rows if near_miss(r)]
    ans = [r for r in rows if r["answerable"]]
    return sum(map(out, nm)), len(nm), sum(map(out, ans)), len(ans)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", help="<set>=<docs folder>")
    ap.add_argument("--json", type=Path, help="write (and merge into) the rows here")
    ap.add_argument("--rows", type=Path, help="reuse the rows of an earlier --json")
    ap.add_argument("--check", default="", help="comma list of corpora counted only, never used to set a threshold")
    args = ap.parse_args()
    rows = json.loads(args.rows.read_text())["rows"] if args.rows else []
    for spec in args.sets:
        name, folder = spec.split("=", 1)
        rows = [r for r in rows if r["corpus"] != name] + collect(name, Path(folder))
        print(f"{name}: done", flush=True)
        if args.json:
            args.json.write_text(json.dumps({"rows": rows}))
    check = set(filter(None, args.check.split(",")))
    dev = sorted({r["corpus"] for r in rows} - check)
    chosen = []
    print("| held-out corpus | threshold | near misses abstained | answerable refused |\n|---|---|---|---|")
    for c in dev:
        train = [r["delta"] for r in rows if r["corpus"] in dev and r["corpus"] != c and r["answerable"]
                 and r["delta"] is not None]
        threshold = math.ceil(max(train, default=0.0) * 100) / 100 + 0.01
        chosen.append(threshold)
        b, a = figures([r for r in rows if r["corpus"] == c], math.inf), figures([r for r in rows if r["corpus"] == c],
                                                                                   threshold)
        print(f"| {c} | {threshold:.2f} | {b[0]}/{b[1]} -> {a[0]}/{a[1]} | {b[2]}/{b[3]} -> {a[2]}/{a[3]} |")
    for c in sorted(check):
        mine = [r for r in rows if r["corpus"] == c]
        cells = ", ".join(f"at {t:.2f}: {f[0]}/{f[1]}, {f[2]}/{f[3]}" for t in sorted(set(chosen))
                          for f in [figures(mine, t)])
        b = figures(mine, math.inf)
        print(f"check {c}: before {b[0]}/{b[1]} near misses, {b[2]}/{b[3]} refused; {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
