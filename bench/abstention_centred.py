"""Abstention evidence read per question on many dev sets: the corpus-centred cosine, each word's drop delta, the
meaning delta; their AUROC and a leave-one-corpus-out refit (issue 27; bench/history/session-65.md, "Abstention:
the value asked in a two-part question's second clause").

    python bench/abstention_centred.py collect <set> <docs folder> rows/<set>.json     # one set, default settings
    python bench/abstention_centred.py report rows/*.json [--refused 0.0]               # census, AUROC, LOCO

`collect` indexes the folder (`RagWorkspace`, the index in the cache dir reused), asks each question of
bench/questions/<set>.jsonl but far-off ones as `rag/query` does, and records every `Evidence` field, the product's
decision (`relevance.abstained` at the default settings) and:

- `ccos3`: the cosine of the question with each of the top 3 hits' focus texts (`abstention.focus_text`, 1,000
  characters, embedded by the index's model) after subtracting the corpus centroid (the mean of every window
  vector of the index) from both: the part of the match that is not "this is about the corpus' product";
  `focus_cos3` the same without centring;
- `words`: for each word of the asking clause with an asked term (`abstention.asked_weights` of `asked_query(...,
  clause=True)`, the user's own material left out), the best top-3 focus cosine of the question without that word
  minus the one with it (`delta`: above 0 when the word pulls the question away from the passages), its IDF share,
  document frequency and whether a top-3 hit holds it;
- `meaning`: `absent_meaning.absent_meaning`'s delta and dropped words for every question (the product computes it only
  where it can decide), `sentcos`: `abstention.sentence_cosine`.

`report` prints the near misses answered and answerable questions refused with what let them through / refused them,
pooled AUROC (near misses against answerable questions the product answers) of each signal, and a logistic refit
leave-one-corpus-out (bench/abstention_fit.py's `fit`, each corpus and class weighted alike; vetoes and the cosine
floor kept as the product's; the floor the largest refusing no more answerable questions of any training corpus than
the product does, or `--refused` of them) with focus_coverage alone and with each cosine added.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from abstention_audit import FEATURES  # noqa: E402
from abstention_fit import auroc, fit, predict  # noqa: E402
from abstention_loco import balanced_weights  # noqa: E402


def questions(name: str) -> list[dict]:
    path = HERE / "questions" / f"{name}.jsonl"
    return [q for q in (json.loads(line) for line in path.read_text().splitlines()
                        if line.strip() and not line.startswith("//")) if q.get("kind") != "far-off"]


def word_deltas(res, hits, P, base, embed_query) -> list[dict]:
    """One row per asked word of the question: the drop delta of its best top-3 focus cosine (module docstring)."""
    from ragls.core.analysis import stem_set, stems
    from ragls.retrieval import abstention as A
    from ragls.retrieval.names import user_material

    stats, query = res.term_stats, res.query
    weights, max_idf = A.asked_weights(stats, A.asked_query(query, clause=True), frozenset(user_material(query.text)))
    top3 = set().union(*(stem_set(h.chunk.title + "\n" + h.chunk.text) for h in hits[:3]))
    toks = re.findall(r"\S+", query.text)
    out = []
    for i, w in enumerate(toks):
        ts = set(stems(re.sub(r"[^\w-]", " ", w))) & set(weights)
        kept = " ".join(t for j, t in enumerate(toks) if j != i)
        if not ts or not kept.strip():
            continue
        d = float(max(P @ np.asarray(embed_query(kept)))) - base
        out.append({"w": w, "delta": d, "idf": max(weights[t] for t in ts) / max_idf if max_idf else 0.0,
                    "df": sum(sum(dd.get(t, 0) for _, dd in stats) for t in ts), "in_top3": bool(ts & top3)})
    return out


def evidence_row(name: str, q: dict, res, r) -> dict:
    """The question `q` of set `name`, the product's decision on `res` (`ws.retrieve`'s result) at the retrieval
    settings `r`, and every `Evidence` field with the absent names and words and the probability."""
    from ragls.retrieval.relevance import abstained

    ev = res.evidence
    row = {"id": q["id"], "set": name, "kind": q["kind"], "answerable": bool(q.get("gold")), "question": q["question"],
           "abstained": abstained(res, r.abstention_floor, min_probability=r.abstention_probability)}
    if ev is not None:
        row.update({f: getattr(ev, f) for f in FEATURES}, absent_names=list(ev.absent_names),
                   absent_words=list(ev.absent_words), p=ev.probability(), sentence_cosine=ev.sentence_cosine)
    return row


def collect(name: str, folder: Path) -> list[dict]:
    import lancedb
    from ragls.retrieval import abstention as A
    from ragls.retrieval.absent_meaning import absent_meaning
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder])
    try:
        ws.index()
        r, emb = ws.settings.retrieval, ws.embedder
        table = lancedb.connect(str(ws.indexes[0].index_dir / "vectors")).open_table("windows").to_arrow()
        centroid = np.asarray(table["vector"].to_pylist(), dtype=np.float32).mean(axis=0)
        rows = []
        for q in questions(name):
            res = ws.retrieve(q["question"])
            hits = list(res)[:5]
            row = evidence_row(name, q, res, r)
            qv = res.query.vector if res.query is not None else None
            if qv is not None and hits:
                P = np.asarray(emb.embed_memoised([A.focus_text(h)[:1000] for h in hits[:3]]))
                raw = P @ qv
                pc, qc = P - centroid, np.asarray(qv) - centroid
                m = absent_meaning(res.term_stats, res.query, hits, emb.embed_query, emb.embed_memoised)
                row.update(focus_cos3=[float(x) for x in raw],
                           ccos3=[float(x) for x in (pc @ qc) / (np.linalg.norm(pc, axis=1) * np.linalg.norm(qc))],
                           words=word_deltas(res, hits, P, float(raw.max()), emb.embed_query),
                           meaning=None if m is None else [m[0], list(m[1])],
                           sentcos=A.sentence_cosine(qv, hits, emb.embed_memoised))
            rows.append(row)
        return rows
    finally:
        ws.close()


def near_miss(r: dict) -> bool:
    return not r["answerable"] and r["kind"] != "far-off"


def why(r: dict) -> str:
    """What refused an answerable question, or what let a near miss through."""
    if r.get("p") is None:
        return "no vector evidence"
    if r["abstained"]:
        if r["absent_name"]:
            return "name veto " + ",".join(r["absent_names"])
        if r["value_missing"]:
            return "value veto"
        if r["meaning_absent"]:
            return "meaning veto " + ",".join(r["absent_words"])
        return f"P {r['p']:.2f} < floor" if r["p"] < 0.2 else f"cosine floor (P {r['p']:.2f})"
    lacking = [w["w"] for w in r.get("words", []) if w["df"] == 0]
    rescued = " rescued as a paraphrase" if r["p"] < 0.2 else ""
    meaning = r.get("meaning")
    return (f"P {r['p']:.2f}{rescued}; " + (f"lacking {lacking}, meaning delta {meaning[0]:.3f}" if lacking and meaning
                                           else "every asked word in the corpus"))


def operating_floor(p: np.ndarray, y: np.ndarray, g: np.ndarray, fixed: np.ndarray, refused: float) -> float:
    """The largest floor (0.01 steps) at which no corpus of `g` has more answerable questions refused (P below it,
    or `fixed`: a veto or the cosine floor) than the product refuses (`fixed`) or `refused` of them."""
    def ok(floor: float) -> bool:
        for c in set(g):
            m = (g == c) & (y == 1)
            if (((p < floor) | fixed) & m).sum() > max(refused * m.sum(), (fixed & m).sum()) + 1e-9:
                return False
        return True

    return max([f for f in np.arange(0.01, 0.95, 0.01) if ok(f)] + [0.01])


def loco(rows: list[dict], features: list[str], refused: float) -> tuple[int, int, list[str]]:
    """Near misses abstained and answerable questions refused, held out, by a refit of `features` (module docstring),
    and the questions decided otherwise than the product decides them ("+id": abstained now, "-id": answered now)."""
    x = np.array([[r[f] for f in features] for r in rows])
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    g = np.array([r["set"] for r in rows])
    fixed = np.array([r["veto"] or r["rule2"] for r in rows])
    near = ref = 0
    moved: list[str] = []
    for s in sorted(set(g)):
        tr = g != s
        w = fit(x[tr & ~fixed], y[tr & ~fixed], balanced_weights(y[tr & ~fixed], g[tr & ~fixed]))
        floor = operating_floor(predict(w, x[tr]), y[tr], g[tr], fixed[tr], refused)
        decide = (predict(w, x[~tr]) < floor) | fixed[~tr]
        near += int((decide & (y[~tr] == 0)).sum())
        ref += int((decide & (y[~tr] == 1)).sum())
        held = [r for r in rows if r["set"] == s]
        moved += [("+" if d else "-") + r["id"] for r, d in zip(held, decide) if bool(d) != bool(r["abstained"])]
    return near, ref, moved


def report(paths: list[Path], refused: float) -> None:
    rows = [r for p in paths for r in json.loads(p.read_text()) if "ccos3" in r and r.get("p") is not None]
    for r in rows:
        r["veto"] = bool(r["absent_name"] or r["value_missing"] or r["meaning_absent"])
        r["rule2"] = bool(r["abstained"] and not r["veto"] and r["p"] >= 0.2)
        r["ccos"], r["rawcos"] = max(r["ccos3"]), max(r["focus_cos3"])
    nm = [r for r in rows if near_miss(r)]
    ans = [r for r in rows if r["answerable"]]
    print(f"{len({r['set'] for r in rows})} sets: near misses abstained {sum(r['abstained'] for r in nm)}/{len(nm)}, "
          f"answerable refused {sum(r['abstained'] for r in ans)}/{len(ans)}")
    print("\nanswerable refused:")
    for r in ans:
        if r["abstained"]:
            print(f"  {r['id']:16} {why(r)} | {r['question'][:100]}")
    print("\nnear misses answered:")
    for r in nm:
        if not r["abstained"]:
            print(f"  {r['id']:16} {why(r)} | {r['question'][:100]}")
    answered = [r for r in rows if not r["abstained"] and (r["answerable"] or near_miss(r))]
    y = np.array([1.0 if r["answerable"] else 0.0 for r in answered])
    signals = {"P": lambda r: r["p"], "focus_coverage": lambda r: r["focus_coverage"],
               "best focus cosine": lambda r: r["rawcos"], "centred focus cosine": lambda r: r["ccos"],
               "sentence_cosine": lambda r: r.get("sentcos", 0.0),
               "- max word drop delta": lambda r: -max([w["delta"] for w in r.get("words", [])] or [0.0]),
               "- max drop delta, word in no top-3 hit": lambda r: -max(
                   [w["delta"] for w in r.get("words", []) if not w["in_top3"]] or [-1.0])}
    print(f"\nAUROC, answerable ({int(y.sum())}) against near misses ({int((1 - y).sum())}) the product answers:")
    for name, f in signals.items():
        print(f"  {name:42} {auroc(np.array([f(r) for r in answered]), y):.3f}")
    print(f"\nleave-one-corpus-out refit (answerable refused allowed per training corpus: the product's or {refused}):")
    for feats in (["focus_coverage"], ["focus_coverage", "ccos"], ["focus_coverage", "rawcos"],
                  ["focus_coverage", "sentcos"], ["ccos"]):
        for r in rows:
            r.setdefault("sentcos", 0.0)
        near, ref, moved = loco(rows, feats, refused)
        print(f"  {' + '.join(feats):34} near misses {near}/{len(nm)}, answerable refused {ref}/{len(ans)}; "
              f"against the product: {' '.join(moved)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("set")
    c.add_argument("folder", type=Path)
    c.add_argument("out", type=Path)
    r = sub.add_parser("report")
    r.add_argument("rows", nargs="+", type=Path)
    r.add_argument("--refused", type=float, default=0.0)
    a = ap.parse_args()
    if a.cmd == "collect":
        a.out.write_text(json.dumps(collect(a.set, a.folder)))
    else:
        report(a.rows, a.refused)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
