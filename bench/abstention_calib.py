"""Abstention, third round (issue 27): can a corpus-adaptive threshold, an answer-type test or the question's
constraint words beside its subject catch near misses made of the corpus' own words? Leave-one-corpus-out.

    pip download --no-deps --no-binary :all: urllib3==2.8.0 && tar xzf urllib3-2.8.0.tar.gz     # once
    pip download --no-deps --no-binary :all: black==26.10.1 && tar xzf black-26.10.1.tar.gz     # once
    python bench/abstention_calib.py --urllib3-docs urllib3-2.8.0/docs --black-docs black-26.10.1/docs \
        --json calib.json                                     # collect (indexes reused, ~2 min), then the tables
    python bench/abstention_calib.py --rows calib.json        # the tables again from the rows

Rows: bench/abstention_loco.py's (every `Evidence` field of the shipped retrieval, per question of the four dev
sets, answerable vs near misses) plus what this probe needs to compute new evidence offline: the asked terms with
their IDF and document frequency, and the top hits' titles, texts, focus and window lines.

1. **Calibration ceiling.** A threshold calibrated per corpus (against a null distribution from the same index:
   pseudo-questions from its headings, the question with its specific term replaced...) is a monotone map of the
   score within that corpus, so it can do no better than the best threshold chosen per corpus WITH the corpus'
   own labels. Printed: that oracle for the shipped model (P under `COEFFICIENTS`), and for a model fitted on
   that corpus alone (in sample: an upper bound on any per-corpus calibration of those features).
2. **Probes** (computed here, not in the product), each added to the shipped features and run held out:
   - `subj_sent`: the question's constraint words in the same sentence as its subject — of the top hits'
     sentences (`passages.units`, title's last heading counted) holding the question's most specific present term
     (highest IDF with df > 0), the largest IDF share of the asked terms; `subj_sent_present`: the same over the
     asked terms the corpus holds; `sent_cov`: the largest IDF share in any one sentence;
   - `value_missing`: the question asks for a value (a number, a default, a limit, a port: `VALUE_Q`) and no top
     hit sentence holding its subject has a number. Unlike last round's `value_q`/`num_best` (a number anywhere
     in the best focus window), the number must stand beside the subject;
   - `absent_any`: any asked term in no chunk at all (not only a name's);
   - `name_unseen`: a name of the question (`question_names`) present in the corpus but in none of the top hits;
   - `v_drop` / `q_self` (a per-question null, `vector_null`): how much the best window's cosine falls when the
     question's most specific word is replaced by a word in no chunk / how alike the two questions embed.
3. **Per kind.** near-miss = a near miss naming something the corpus lacks under the name test as it stood before
   this round (capitalised, acronym, identifier, "/"-joined); near-miss-known = every other near miss (made of
   the corpus' own words and everyday ones): the weak case.
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

import abstention_loco as loco  # noqa: E402
from abstention_fit import auroc, fit, predict  # noqa: E402
from data import dataset  # noqa: E402

NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
VALUE_Q = re.compile(r"\b(how (many|much|long|large|big|often|old)|which port|what port|what (is|'s) the "
                     r"(default|maximum|minimum|largest|smallest|max|min)\b|(maximum|minimum|largest|smallest|default) "
                     r"(number|value|size|length|port|timeout|limit))", re.IGNORECASE)
PROBES = ("subj_sent", "subj_sent_present", "sent_cov", "value_missing", "absent_any", "name_unseen", "v_drop",
          "q_self")


def raw(ws, result, text: str) -> dict:
    """What the probes need, per question (an `extra` for `abstention_loco.collect`)."""
    from ragls.retrieval.abstention import asked_query, term_weights

    stats = result.term_stats
    weights, _ = term_weights(stats, asked_query(result.query))
    dfs = {t: sum(d.get(t, 0) for _, d in stats) for t in weights}
    top = list(result)[:ws.settings.retrieval.top_k]
    hits = [{"title": h.chunk.title, "text": h.chunk.text} for h in top]
    return {"question": text, "weights": weights, "dfs": dfs, "hits": hits,
            "absent_names_list": list(result.evidence.absent_names), **vector_null(ws, text, weights, dfs, top)}


def vector_null(ws, text: str, weights: dict, dfs: dict, top) -> dict:
    """The per-question null: the question with its most specific word (the asked term of highest IDF the corpus
    holds) replaced by a word in no chunk, embedded again. `v_drop`: the best cosine of the question with a top
    hit's window minus that window's cosine with the null question; `q_self`: the cosine of the two questions."""
    from ragls.core.analysis import stems

    present = {t: v for t, v in weights.items() if dfs.get(t, 0) > 0}
    subject = max(present, key=present.get) if present else None
    null = " ".join("florbix" if subject in stems(w) else w for w in text.split()) if subject else text
    q, q0 = np.asarray(ws.embedder.embed_query(text)), np.asarray(ws.embedder.embed_query(null))
    if not top:
        return {"v_drop": 0.0, "q_self": float(q @ q0)}
    windows = []
    for h in top:
        span = h.window or h.focus
        lines = h.chunk.text.splitlines()
        a = max(0, span.start_line - h.chunk.span.start_line) if span else 0
        b = max(a, span.end_line - h.chunk.span.start_line) if span else len(lines)
        windows.append((h.chunk.title + "\n" + "\n".join(lines[a:b + 1]))[:1500])
    vecs = np.asarray(ws.embedder.embed_documents(windows))
    best = int(np.argmax(vecs @ q))
    return {"v_drop": float(vecs[best] @ q - vecs[best] @ q0), "q_self": float(q @ q0)}


def probes(r: dict) -> dict:
    """The probe features of one row (see the module docstring)."""
    from ragls.answer.passages import units
    from ragls.core.analysis import stems
    from ragls.retrieval.names import name_terms

    w, dfs = r["weights"], r["dfs"]
    present = {t: v for t, v in w.items() if dfs.get(t, 0) > 0}
    subject = max(present, key=present.get) if present else None

    def share(ws: dict, seen: set) -> float:
        total = sum(ws.values())
        return sum(v for t, v in ws.items() if t in seen) / total if total > 0 else 1.0

    sentences = [(set(stems(u.sentence)) | set(stems(h["title"].split(">")[-1])), u.sentence)
                 for h in r["hits"] for u in units(h["text"])]
    with_subject = [s for s in sentences if subject is None or subject in s[0]]
    seen = set().union(*(set(stems(h["title"] + "\n" + h["text"])) for h in r["hits"])) if r["hits"] else set()
    out = {"subj_sent": max((share(w, s) for s, _ in with_subject), default=0.0),
           "subj_sent_present": max((share(present, s) for s, _ in with_subject), default=0.0),
           "sent_cov": max((share(w, s) for s, _ in sentences), default=0.0),
           "value_q": bool(VALUE_Q.search(r["question"])),
           "absent_any": float(any(dfs.get(t, 1) == 0 for t in w)),
           "name_unseen": float(any(n not in r["absent_names_list"] and any(t not in seen for t in ts)
                                    for n, ts in name_terms(r["question"]).items()))}
    out["value_missing"] = float(out["value_q"] and not any(NUMBER.search(text) for _, text in with_subject))
    return out


def kind(r: dict) -> str:
    if r["answerable"]:
        return "answerable"
    before = [n for n in r["absent_names_list"] if not re.fullmatch(r"-*[a-z]+(?:-[a-z]+)+", n)]
    return "near-miss" if before else "near-miss-known"


def oracle(p: np.ndarray, y: np.ndarray, rule2: np.ndarray) -> tuple[int, int]:
    """(near misses abstained, answerable refused) at the best threshold refusing at most 3 % of the answerable."""
    allowed = int(loco.REFUSED * y.sum() + 1e-9)
    best = (0, 0)
    for floor in sorted(set(p.tolist())) + [1.01]:
        decide = (p < floor) | rule2
        if (decide & (y == 1)).sum() <= allowed:
            best = max(best, (int((decide & (y == 0)).sum()), -int((decide & (y == 1)).sum())))
    return best[0], -best[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rust-book", type=Path)
    ap.add_argument("--flask-docs", type=Path)
    ap.add_argument("--urllib3-docs", type=Path)
    ap.add_argument("--black-docs", type=Path)
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--rows", type=Path, help="reuse the rows of an earlier --json (no indexing)")
    args = ap.parse_args()
    if args.rows:
        rows = json.loads(args.rows.read_text())["rows"]
    else:
        rows = []
        for name in loco.CORPORA:
            corpus = getattr(args, name.replace("-", "_"))
            corpus = corpus if name in ("urllib3-docs", "black-docs") else dataset(name, corpus)
            if corpus is None:
                ap.error(f"--{name} PATH is needed (pip download, see the module docstring)")
            rows += loco.collect(name, corpus, extra=raw)
        if args.json:
            args.json.write_text(json.dumps({"rows": rows}))
    rows = [r for r in rows if r["kind"] not in ("far-off", "out-of-scope")]
    for r in rows:
        r.update(probes(r))
        r["kind3"] = kind(r)
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    groups = np.array([r["corpus"] for r in rows])
    rule2 = np.array([bool(r["rule2"]) for r in rows])
    print(f"{len(rows)} questions: {int(y.sum())} answerable, {int((1 - y).sum())} near misses "
          f"({sum(r['kind3'] == 'near-miss-known' for r in rows)} near-miss-known)")

    from ragls.retrieval.abstention import COEFFICIENTS
    print("\n1. Calibration ceiling: near misses abstained / answerable refused at the best per-corpus threshold")
    shipped = tuple(f for f in COEFFICIENTS if f != "intercept")
    z = np.array([COEFFICIENTS["intercept"] + sum(COEFFICIENTS[f] * r[f] for f in shipped) for r in rows])
    p_shipped = 1.0 / (1.0 + np.exp(-z))
    for fs in (shipped, shipped + ("coverage", "bm25_top", "cosine"), shipped + PROBES):
        x = np.array([[r[f] for f in fs] for r in rows], dtype=float)
        cells = []
        for g in loco.CORPORA:
            m = groups == g
            p = p_shipped[m] if fs == shipped else predict(fit(x[m], y[m], loco.balanced_weights(y[m], groups[m])), x[m])
            n, a = oracle(p, y[m], rule2[m])
            cells.append(f"{g} {n}/{int((y[m] == 0).sum())}, {a}/{int(y[m].sum())}")
        label = "shipped P, threshold per corpus" if fs == shipped else f"fitted per corpus on {', '.join(fs)}"
        print(f"  {label}: " + "; ".join(cells))

    print("\n2. AUROC of each probe alone (" + " / ".join(loco.CORPORA) + "; absent_* and value_missing: 1 - AUROC)")
    for f in ("focus_coverage", "absent_name") + PROBES:
        vals = np.array([float(r[f]) for r in rows])
        print(f"  {f:18s} " + " / ".join(f"{auroc(vals[groups == g], y[groups == g]):.3f}" for g in loco.CORPORA))
    print("  value questions:", ", ".join(f"{r['id']} ({'A' if r['answerable'] else 'N'}, no number beside the "
                                          f"subject: {bool(r['value_missing'])})" for r in rows if r["value_q"]))

    print("\nLeave-one-corpus-out (fitted on the other three, floor = their operating point; near misses abstained as"
          " near-miss + near-miss-known; answerable refused):")
    print("| features | " + " | ".join(loco.CORPORA) + " | all four |")
    print("|---|" + "---|" * (len(loco.CORPORA) + 1))
    for fs in [shipped] + [shipped + (f,) for f in PROBES]:
        res = loco.report(rows, fs)
        x, yy, gg, r2 = loco.matrix(rows, fs)
        cells, total = [], np.zeros(5, dtype=int)
        for g in loco.CORPORA:
            m = gg == g
            w = fit(x[~m], yy[~m], loco.balanced_weights(yy[~m], gg[~m]))
            floor = loco.operating_floor(predict(w, x[~m]), yy[~m], gg[~m], r2[~m])
            decide = (predict(w, x[m]) < floor) | r2[m]
            kinds = np.array([r["kind3"] for r in rows])[m]
            nm = int((decide & (kinds == "near-miss")).sum())
            nk = int((decide & (kinds == "near-miss-known")).sum())
            ref = int((decide & (kinds == "answerable")).sum())
            n_nm, n_nk = int((kinds == "near-miss").sum()), int((kinds == "near-miss-known").sum())
            total += (nm, n_nm, nk, n_nk, ref)
            cells.append(f"{res[g]['auroc']:.3f}, {nm}/{n_nm} + {nk}/{n_nk}, {ref}/{res[g]['n_ans']}")
        print(f"| {', '.join(fs)} | " + " | ".join(cells)
              + f" | {total[0]}/{total[1]} + {total[2]}/{total[3]}, {total[4]}/{int(y.sum())} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
