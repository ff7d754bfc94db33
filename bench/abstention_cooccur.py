"""Abstention probe: do the question's words occur TOGETHER in the corpus? (issue 27, "abstention that generalises")

    python bench/abstention_cooccur.py --urllib3-docs urllib3-2.8.0/docs --json cooccur.json   # evidence, ~5 min
    python bench/abstention_cooccur.py --rows cooccur.json --features coverage,bm25_top,absent_name,span_present_16

A near miss is often made of words the corpus does contain, in a combination it never discusses ("gzip" +
"request body", "maximum" + "body size", "request rate" + "host"): every word is found somewhere, so word
coverage and BM25 call it answered. An answerable question's key words stand together in the answering sentence.
Evidence computed here (not in the product), per question, from the top `top_k` hits of the shipped retrieval:

- `span_cov_W` (W = 8, 16, 32 tokens): the largest IDF-weighted share of the question's BM25 terms inside W
  consecutive tokens of one top hit's text (its heading path counted in every span: it titles every sentence);
- `span_present_W`: the same share, but of the terms the corpus holds at all (df > 0): a new combination of
  present words, separated from absent words (which coverage already weighs);
- `pair_S` (S = 0, 3): over the whole corpus (tantivy phrase queries on `body`, built from analysed terms, never
  parsed), the share of the question's adjacent content-word pairs (stop words dropped, question order; both
  terms present in the corpus) found within S words of each other, either order; 1.0 without such a pair;
- `pair_idf_S`: the same share, each pair weighted by the smaller IDF of its two terms;
- `value_q` / `num_best`: the question asks for a value (how many / long / much, which port, what is the default /
  maximum ...) / the focus window of the top hit with the best focus_coverage holds a number (answer typing:
  "Which port does blackd listen on by default?" asked of docs that never give the port). Printed, not modelled.

Then the leave-one-corpus-out table of bench/abstention_loco.py over the shipped evidence plus these.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import abstention_loco as loco  # noqa: E402
from data import dataset  # noqa: E402

WIDTHS = (8, 16, 32)
SLOPS = (0, 3)
NEW = tuple(f"span_cov_{w}" for w in WIDTHS) + tuple(f"span_present_{w}" for w in WIDTHS) \
    + tuple(f"pair_{s}" for s in SLOPS) + tuple(f"pair_idf_{s}" for s in SLOPS) + ("head_window", "head_near")


def best_span(weights: dict[str, float], tokens: list[str], title: set[str], width: int) -> float:
    """Largest sum of `weights` of the distinct terms within `width` consecutive `tokens` plus the `title` terms."""
    base = {t for t in weights if t in title}
    hits = [(i, t) for i, t in enumerate(tokens) if t in weights and t not in base]
    best = sum(weights[t] for t in base)
    lo = 0
    counts: dict[str, int] = {}
    for hi in range(len(hits)):
        counts[hits[hi][1]] = counts.get(hits[hi][1], 0) + 1
        while hits[hi][0] - hits[lo][0] >= width:
            t = hits[lo][1]
            counts[t] -= 1
            if not counts[t]:
                del counts[t]
            lo += 1
        best = max(best, sum(weights[t] for t in base) + sum(weights[t] for t in counts))
    return best


def pair_share(bm25, terms: list[str], dfs: dict[str, int], weights: dict[str, float], slop: int) -> tuple[float, float]:
    """(share, IDF-weighted share) of adjacent present term pairs found within `slop` words, either order."""
    import tantivy

    schema = bm25.index.schema
    searcher = bm25.index.searcher()
    pairs = [(a, b) for a, b in itertools.pairwise(terms) if a != b and dfs.get(a) and dfs.get(b)]
    if not pairs:
        return 1.0, 1.0
    found, wsum, wfound = 0, 0.0, 0.0
    for a, b in pairs:
        w = min(weights.get(a, 0.0), weights.get(b, 0.0))
        ok = False
        for seq in ((a, b), (b, a)):
            q = tantivy.Query.phrase_query(schema, "body", list(seq), slop=slop)
            if searcher.search(q, limit=1, count=True).count:
                ok = True
                break
        found += ok
        wsum += w
        wfound += w if ok else 0.0
    return found / len(pairs), (wfound / wsum if wsum > 0 else 1.0)


VALUE_Q = re.compile(r"\b(how (many|much|long|large|big|often|old)|which port|what port|what (is|'s) the "
                     r"(default|maximum|minimum|largest|smallest|max|min)\b|(maximum|minimum|largest|smallest|default) "
                     r"(number|value|size|length|port|timeout|limit))", re.IGNORECASE)
NUMBER = re.compile(r"\b\d+(\.\d+)?\b")


def window_text(hit) -> str:
    """The text of the hit's context window (its best embedding window, else its focus lines, else the chunk)."""
    span = hit.window or hit.focus
    if span is None:
        return hit.chunk.text
    lines = hit.chunk.text.splitlines()
    a = max(0, span.start_line - hit.chunk.span.start_line)
    return "\n".join(lines[a:max(a, span.end_line - hit.chunk.span.start_line) + 1])


def head_phrase(text: str) -> list[str]:
    """The question's head noun phrase, roughly: the terms of its last run of two or more consecutive content
    words (no stop word, no punctuation between them) in the sentence that asks; [] without such a run."""
    from ragls.core.analysis import STOPWORDS, stems
    from ragls.retrieval.abstention import asked_sentences

    runs, run = [], []
    for token in re.findall(r"[\w'-]+|[^\w\s]", asked_sentences(text)):
        word = token.lower()
        if re.fullmatch(r"[\w'-]+", token) and word not in STOPWORDS and not word.isdigit():
            run.append(word)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = []
    if len(run) >= 2:
        runs.append(run)
    return [t for w in runs[-1] for t in stems(w)] if runs else []


def extra(ws, result, text: str) -> dict:
    from ragls.core.analysis import EN_STEM_NO_STOP, stems
    from ragls.retrieval.abstention import term_weights

    q = result.query
    stats = result.term_stats
    weights, _ = term_weights(stats, q)
    dfs = {t: sum(d.get(t, 0) for _, d in stats) for t in weights}
    present = {t: w for t, w in weights.items() if dfs[t] > 0}
    total, total_present = sum(weights.values()), sum(present.values())
    hits = list(result)[:ws.settings.retrieval.top_k]
    row = {}
    parsed = [(stems(h.chunk.text), set(stems(h.chunk.title))) for h in hits]
    for w in WIDTHS:
        cov = max((best_span(weights, tok, title, w) for tok, title in parsed), default=0.0)
        pres = max((best_span(present, tok, title, w) for tok, title in parsed), default=0.0)
        row[f"span_cov_{w}"] = cov / total if total > 0 else 1.0
        row[f"span_present_{w}"] = pres / total_present if total_present > 0 else 1.0
    order = EN_STEM_NO_STOP.analyze(text)
    bm25 = ws.indexes[0].bm25
    for s in SLOPS:
        row[f"pair_{s}"], row[f"pair_idf_{s}"] = pair_share(bm25, order, dfs, weights, s)
    from ragls.retrieval.abstention import _coverages, _focus_stems, asked_query

    asked, _ = term_weights(stats, asked_query(q))
    shares = [_coverages(asked, [_focus_stems(h)])[1] for h in hits]
    best = max(range(len(hits)), key=shares.__getitem__) if hits else None
    head = head_phrase(text)
    row["head_len"] = len(head)
    row["head_window"] = (sum(t in _focus_stems(hits[best]) for t in set(head)) / len(set(head))
                          if head and best is not None else 1.0)
    row["head_near"] = float(not head or any(best_span({t: 1.0 for t in head}, tok, set(), len(head) + 3)
                                             >= len(set(head)) for tok, _ in parsed))
    row["value_q"] = bool(VALUE_Q.search(text))
    row["num_best"] = bool(best is not None and NUMBER.search(window_text(hits[best])))
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rust-book", type=Path)
    ap.add_argument("--flask-docs", type=Path)
    ap.add_argument("--urllib3-docs", type=Path)
    ap.add_argument("--extra-set", action="append", default=[], metavar="NAME=FOLDER",
                    help="another dev set bench/questions/NAME.jsonl over FOLDER")
    ap.add_argument("--corpora", default=",".join(loco.CORPORA))
    ap.add_argument("--features", action="append", help="comma list (repeatable); default: a fixed list")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rows", type=Path)
    ap.add_argument("--floor", type=float, default=0.2)
    ap.add_argument("--robust", type=Path, action="append", default=[],
                    help="rows of an --append run: the in-sample coefficients' decisions on them too")
    ap.add_argument("--append", help="a context sentence appended to every question (robustness check)")
    ap.add_argument("--add-rows", type=Path, action="append", default=[], help="rows of another --json to add")
    args = ap.parse_args()
    extra_sets = dict(s.split("=", 1) for s in args.extra_set)
    if args.append:  # robustness: every question asked again with an incidental context sentence appended
        plain = loco.load_set
        loco.load_set = lambda name: [{**q, "question": f"{q['question']} {args.append}"} for q in plain(name)]
    rows = json.loads(args.rows.read_text())["rows"] if args.rows else []
    if not args.rows:
        for name in args.corpora.split(","):
            if name in extra_sets:
                corpus = Path(extra_sets[name])
            elif name == "urllib3-docs":
                corpus = args.urllib3_docs
            else:
                corpus = dataset(name, getattr(args, name.replace("-", "_")))
            print(f"{name}: {corpus}", flush=True)
            rows += loco.collect(name, corpus, extra=extra)
        if args.json:
            args.json.write_text(json.dumps({"rows": rows}, indent=1))
    for extra_rows in args.add_rows:
        rows += json.loads(extra_rows.read_text())["rows"]
    rows = [r for r in rows if r["kind"] not in ("far-off", "out-of-scope")]  # near misses vs answerable only
    corpora = list(dict.fromkeys(r["corpus"] for r in rows))
    loco.CORPORA = tuple(corpora)
    y = np.array([1.0 if r["answerable"] else 0.0 for r in rows])
    print(f"{len(rows)} questions: {int(y.sum())} answerable, {int((1 - y).sum())} near misses")
    from abstention_fit import auroc
    for f in loco.FEATURES + NEW:
        cells = []
        for g in corpora:
            m = np.array([r["corpus"] == g for r in rows])
            cells.append(f"{g} {auroc(np.array([r[f] for r in rows])[m], y[m]):.3f}")
        print(f"  {f:16s} " + ", ".join(cells))
    sets = [tuple(f.split(",")) for f in args.features] if args.features else [
        loco.SHIPPED] + [loco.SHIPPED + (f,) for f in NEW] + [("coverage", "absent_name", f) for f in NEW]
    print("| features | " + " | ".join(f"{g}: AUROC, near misses abstained, answerable refused (floor)"
                                      for g in corpora) + " |")
    print("|---|" + "---|" * len(corpora))
    for fs in sets:
        res = loco.report(rows, fs)
        cells = [f"{r['auroc']:.3f}, {r['near']}/{r['n_near']}, {r['refused']}/{r['n_ans']} ({r['floor']:.2f})"
                 if (r := res.get(g)) else "–" for g in corpora]
        print(f"| {', '.join(fs)} | " + " | ".join(cells) + " |", flush=True)
    for fs in sets:  # the coefficients fitted on every corpus (operating point at the default floor), in sample
        coef = loco.shipped(rows, fs, args.floor)
        print(f"{', '.join(fs)}: {coef}")
        for label, rs in [("as written", rows)] + [(f"with {p.name}", [r for r in json.loads(p.read_text())["rows"]
                                                                       if r["kind"] not in ("far-off", "out-of-scope")])
                                                   for p in args.robust]:
            print(f"  {label}: " + ", ".join(f"{g} {n}/{nn} near misses, {a}/{na} answerable abstained"
                                             for g, (n, nn, a, na) in decisions(rs, coef, args.floor).items()))
    return 0


def decisions(rows: list[dict], coef: dict[str, float], floor: float) -> dict[str, tuple[int, int, int, int]]:
    """{corpus: (near misses abstained, near misses, answerable abstained, answerable)} with the product's decision
    (probability below `floor`, or rule 2) under `coef`."""
    import math

    out: dict[str, list[int]] = {}
    for r in rows:
        z = coef["intercept"] + sum(v * r[k] for k, v in coef.items() if k != "intercept")
        abstain = 1.0 / (1.0 + math.exp(-z)) < floor or bool(r["rule2"])
        c = out.setdefault(r["corpus"], [0, 0, 0, 0])
        c[0 if not r["answerable"] else 2] += abstain
        c[1 if not r["answerable"] else 3] += 1
    return {g: tuple(v) for g, v in out.items()}


if __name__ == "__main__":
    sys.exit(main())
