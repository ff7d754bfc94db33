"""Abstention probes: do the question's rarest words ever stand together in the corpus; does the best sentence hold
them; is its verb ever said of its object? (issue 27, session 66; bench/history/session-66.md, "Abstention: three
word probes")

    python bench/abstention_cowindow.py collect <set> <docs folder> rows/<set>.json   # one set, default settings
    python bench/abstention_cowindow.py report rows/*.json                            # census, probes, LOCO

`collect` indexes the folder (`RagWorkspace`, the index in the cache dir reused), asks each question of
bench/questions/<set>.jsonl but far-off ones as `rag/query` does, and records every `Evidence` field, the product's
decision (`relevance.abstained` at the default settings), the asked terms with their IDF (the weights the word
evidence reads: `abstention.asked_weights` of the asking clause, the user's own material left out), the top 5 hits'
titles, focus and window texts, the cosine of the question with the top 3 focus texts, and per corpus the terms of
every sentence of every chunk (`sentences`: a chunk's text cut at blank lines and sentence ends; the chunk title's
terms kept apart and counted with each of its sentences). `report` reads the probes below from those rows, per
question, offline, and compares near misses with answerable questions among those the product answers (where a new
refusal rule would act):

- `pair_sent`: in how many sentences of the corpus the asked clause's two rarest terms the corpus holds (IDF order)
  occur together ("NTLM" + "proxy": a near miss joins two real words the docs never join);
- `pair_chunk`: the same within one chunk;
- `corpus_sent_cov`: the largest IDF-weighted share of the asked terms held by one sentence of the whole corpus;
- `hit_sent_cov`: the same over the sentences of the top 5 hits' windows (the best sentence's own coverage of the
  question, not its chunk's);
- `focus_rare`: whether a top-3 focus text holds the rarest asked term the corpus holds;
- `vo_sent`: in how many sentences of the corpus the asked clause's verb and object stand together (the first two
  content words after "how do I / can I / is there a way to / can <name> / does <name>": "fold function",
  "cache responses");
- `yesno`: the asking sentence is a yes/no question ("Can ...", "Does ...", "Is there ...").

Then each probe as a second condition of a refusal rule "P < t and <probe>" (t 0.205-0.6): the best rule in sample
with no answerable question refused, the best with at most 3, and leave-one-corpus-out (each set judged by the rule
fitted on the others, the one abstaining on most of their near misses with none of their answerable questions).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from abstention_centred import evidence_row, near_miss, questions  # noqa: E402

_SENT = re.compile(r"\n\s*\n|(?<=[.!?])\s+(?=[A-Z`*\[(])")


def sentences(text: str) -> list[str]:
    """A chunk's text cut at blank lines and at a sentence end followed by a capital (or markup)."""
    return [s for s in _SENT.split(text) if s and s.strip()]




def collect(name: str, folder: Path) -> dict:
    from ragls.core.analysis import stem_set
    from ragls.retrieval import abstention as A
    from ragls.retrieval.names import user_material
    from ragls.workspace.rag_workspace import RagWorkspace

    ws = RagWorkspace([folder])
    try:
        ws.index()
        r, emb = ws.settings.retrieval, ws.embedder
        corpus = []
        for batch in ws.indexes[0].manifest.iter_chunks():
            for c in batch:
                corpus.append({"id": c.id, "path": c.path, "title": sorted(stem_set(c.title)),
                               "sents": [sorted(stem_set(s)) for s in sentences(c.text)]})
        rows = []
        for q in questions(name):
            res = ws.retrieve(q["question"])
            hits = list(res)[:5]
            row = evidence_row(name, q, res, r)
            if res.query is not None:
                w, mx = A.asked_weights(res.term_stats, A.asked_query(res.query, clause=True),
                                         frozenset(user_material(res.query.text)))
                row.update(weights=w, max_idf=mx)
                w2, _ = A.term_weights(res.term_stats, res.query)
                row.update(all_weights=w2)
            qv = res.query.vector if res.query is not None else None
            if qv is not None and hits:
                import numpy as np
                P = np.asarray(emb.embed_memoised([A.focus_text(h)[:1000] for h in hits[:3]]))
                row["focus_cos3"] = [float(x) for x in P @ qv]
            row["hits"] = [{"path": h.chunk.path, "chunk": h.chunk.id, "title": h.chunk.title,
                            "focus": A.focus_text(h)[:1500], "window": A.window_text(h)[:3000],
                            "text": h.chunk.text[:4000], "similarity": h.similarity} for h in hits]
            rows.append(row)
        return {"rows": rows, "corpus": corpus}
    finally:
        ws.close()


_OPENER = re.compile(r"^(?:how (?:do|can|should|would) (?:i|we|you)|can (?:i|we|you)|is (?:there|it possible)(?: a way)?"
                     r" to|(?:can|does|do|will|is|could) [\w.-]+(?: [\w.-]+)?)\s+(.*)$", re.IGNORECASE)
_YESNO = re.compile(r"^(?:is there|are there|can|does|do|will|is|could)\b", re.IGNORECASE)
_FILLER = frozenset(["a", "an", "the", "my", "our", "your", "its", "their", "his", "her", "this", "that", "these", "those", "some", "any", "all", "each", "every", "of", "to", "in", "on", "for", "with", "by", "from", "at", "as", "into", "about", "so", "and", "or", "but", "not", "no", "be", "is", "are", "was", "were", "been", "being", "do", "does", "did", "have", "has", "had", "i", "we", "you", "it", "they", "he", "she", "me", "us", "them", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "can", "could", "should", "would", "will", "shall", "may", "might", "must", "there", "here", "than", "then", "just", "only", "also", "very", "too", "more", "most", "such", "own", "same", "other", "another", "one", "two"])


def asking_sentence(question: str) -> str:
    """The last sentence ending in "?" (else the last sentence)."""
    parts = [p.strip() for p in re.split(r"(?<=[.;!?])\s+", question.strip()) if p.strip()]
    return ([p for p in parts if p.endswith("?")] or parts or [""])[-1]


def verb_object(question: str) -> list[str] | None:
    """The first two content words after the asking sentence's opener ("How do I fold a function ..." -> fold,
    function), None without an opener or two such words."""
    m = _OPENER.match(asking_sentence(question))
    if not m:
        return None
    words = [w for w in re.findall(r"[A-Za-z][\w'-]*", m.group(1))
             if w.lower() not in _FILLER and not w.lower().endswith("'s")]
    return words[:2] if len(words) >= 2 else None


def probes(rows: list[dict], corpus: list[dict]) -> None:
    """Adds `probe` (the module docstring's probes) to each row with evidence, in place."""
    from ragls.core.analysis import stem_set, stems

    sent: dict[str, set[int]] = {}
    chunk: dict[str, set[int]] = {}
    held: list[frozenset[str]] = []
    for ci, c in enumerate(corpus):
        title = set(c["title"])
        for s in c["sents"] or [[]]:
            for t in set(s) | title:
                sent.setdefault(t, set()).add(len(held))
                chunk.setdefault(t, set()).add(ci)
            held.append(frozenset(set(s) | title))
    for r in rows:
        if r.get("p") is None or "weights" not in r:
            continue
        w, mx = r["weights"], r["max_idf"]
        total = sum(w.values()) or 1.0
        present = sorted((t for t, v in w.items() if v < mx - 1e-9), key=lambda t: -w[t])
        f: dict = {"absent": len(w) - len(present)}
        two = present[:2]
        f["pair_sent"] = len(sent.get(two[0], set()) & sent.get(two[1], set())) if len(two) == 2 else None
        f["pair_chunk"] = len(chunk.get(two[0], set()) & chunk.get(two[1], set())) if len(two) == 2 else None
        near = set().union(*(sent.get(t, set()) for t in present)) if present else set()
        f["corpus_sent_cov"] = max((sum(v for t, v in w.items() if t in held[k]) for k in near), default=0.0) / total
        best = 0.0
        for h in r["hits"][:5]:
            title = stem_set(h["title"])
            for piece in re.split(r"\n\s*\n|(?<=[.!?])\s+", h["window"]):
                terms = stem_set(piece) | title
                best = max(best, sum(v for t, v in w.items() if t in terms) / total)
        f["hit_sent_cov"] = best
        f["focus_rare"] = bool(present) and any(present[0] in stem_set(h["focus"]) | stem_set(h["title"])
                                                for h in r["hits"][:3])
        f["yesno"] = bool(_YESNO.match(asking_sentence(r["question"])))
        vo = verb_object(r["question"])
        if vo:
            a = set().union(*(sent.get(t, set()) for t in stems(vo[0])))
            b = set().union(*(sent.get(t, set()) for t in stems(vo[1])))
            f["vo"], f["vo_sent"] = " ".join(vo), len(a & b)
        f["focus_cos"] = max(r.get("focus_cos3") or [0.0])
        r["probe"] = f


def auroc(pos: list[float], neg: list[float]) -> float:
    """P(a near miss scores below an answerable question): `pos` near misses' values, `neg` answerable ones'."""
    if not pos or not neg:
        return float("nan")
    return sum(1.0 if p < n else 0.5 if p == n else 0.0 for p in pos for n in neg) / (len(pos) * len(neg))


PROBE_RULES = {  # name: (grid, test(probe, k) -> the probe calls it a near miss)
    "pair_sent <= k": ([0, 1, 2], lambda f, k: (f["pair_sent"] or 0) <= k),
    "pair_chunk <= k": ([0, 1, 2], lambda f, k: (f["pair_chunk"] or 0) <= k),
    "corpus_sent_cov < k": ([0.3, 0.35, 0.4, 0.45, 0.5], lambda f, k: f["corpus_sent_cov"] < k),
    "hit_sent_cov < k": ([0.2, 0.25, 0.3, 0.35, 0.4], lambda f, k: f["hit_sent_cov"] < k),
    "not focus_rare": ([None], lambda f, k: not f["focus_rare"]),
    "vo_sent <= k": ([0, 1], lambda f, k: f.get("vo_sent") is not None and f["vo_sent"] <= k),
    "yesno": ([None], lambda f, k: f["yesno"]),
    "yesno and pair_sent 0": ([None], lambda f, k: f["yesno"] and (f["pair_sent"] or 0) == 0),
    "focus cosine < k": ([0.35, 0.4, 0.45, 0.5, 0.55], lambda f, k: f["focus_cos"] < k),
}
P_GRID = (1.01, 0.205, 0.21, 0.215, 0.22, 0.23, 0.24, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6)


def rule_table(answered: list[dict]) -> None:
    """Each probe as "P < t and probe": in sample (0 / at most 3 answerable refused) and leave-one-corpus-out."""
    sets = sorted({r["set"] for r in answered})

    def caught(rs, rule, test):
        t, k = rule
        return [r for r in rs if r["p"] < t and test(r["probe"], k)]

    def best(rs, rules, test, allowed):
        ok = [ru for ru in rules if sum(r["answerable"] for r in caught(rs, ru, test)) <= allowed]
        return max(ok, key=lambda ru: (sum(near_miss(r) for r in caught(rs, ru, test)), -ru[0]), default=None)

    def said(hit):
        return f"+{sum(map(near_miss, hit))} / +{sum(r['answerable'] for r in hit)} " + " ".join(
            ("+" if near_miss(r) else "-") + r["id"] for r in hit)

    print("\n| probe, with P < t | in sample, none refused: near misses / answerable added | in sample, at most 3 "
          "refused | held out (the rule fitted on the other sets) |\n|---|---|---|---|")
    for name, (grid, test) in PROBE_RULES.items():
        rules = [(t, k) for t in P_GRID for k in grid]
        b0, b3 = best(answered, rules, test, 0), best(answered, rules, test, 3)
        in0 = said(caught(answered, b0, test)) if b0 else "-"
        in3 = f"t {b3[0]}, k {b3[1]}: " + said(caught(answered, b3, test)) if b3 else "-"
        held = []
        for s in sets:
            rule = best([r for r in answered if r["set"] != s], rules, test, 0)
            if rule is not None:
                held += caught([r for r in answered if r["set"] == s], rule, test)
        print(f"| {name} | {in0} | {in3} | {said(held)} |")


def report(paths: list[Path]) -> None:
    rows = []
    for p in paths:
        data = json.loads(p.read_text())
        probes(data["rows"], data["corpus"])
        rows += data["rows"]
    nm = [r for r in rows if near_miss(r)]
    ans = [r for r in rows if r["answerable"]]
    print(f"{len(paths)} sets: near misses abstained {sum(r['abstained'] for r in nm)}/{len(nm)}, answerable refused "
          f"{sum(r['abstained'] for r in ans)}/{len(ans)}")
    answered = [r for r in nm + ans if not r["abstained"] and "probe" in r]
    A = [r for r in answered if r["answerable"]]
    N = [r for r in answered if near_miss(r)]
    print(f"answered: {len(N)} near misses, {len(A)} answerable questions\n")
    print("| probe | AUROC (near misses lower) | near misses it calls one | answerable it calls one |\n|---|---|---|---|")
    scores = {"P": lambda f, r: r["p"], "focus_coverage": lambda f, r: r["focus_coverage"],
              "pair_sent": lambda f, r: f["pair_sent"], "pair_chunk": lambda f, r: f["pair_chunk"],
              "corpus_sent_cov": lambda f, r: f["corpus_sent_cov"], "hit_sent_cov": lambda f, r: f["hit_sent_cov"],
              "focus_rare": lambda f, r: float(f["focus_rare"]), "vo_sent": lambda f, r: f.get("vo_sent"),
              "not yesno": lambda f, r: 0.0 if f["yesno"] else 1.0, "focus cosine": lambda f, r: f["focus_cos"]}
    flags = {"pair_sent": lambda f: f["pair_sent"] == 0, "pair_chunk": lambda f: f["pair_chunk"] == 0,
             "focus_rare": lambda f: not f["focus_rare"], "vo_sent": lambda f: f.get("vo_sent") == 0,
             "not yesno": lambda f: f["yesno"]}
    for name, fn in scores.items():
        pos = [v for r in N if (v := fn(r["probe"], r)) is not None]
        neg = [v for r in A if (v := fn(r["probe"], r)) is not None]
        flag = flags.get(name)
        cnt = (f"{sum(flag(r['probe']) for r in N)}/{len(N)}", f"{sum(flag(r['probe']) for r in A)}/{len(A)}") \
            if flag else ("", "")
        print(f"| {name} | {auroc(pos, neg):.3f} | {cnt[0]} | {cnt[1]} |")
    rule_table(answered)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("set")
    c.add_argument("folder", type=Path)
    c.add_argument("out", type=Path)
    rp = sub.add_parser("report")
    rp.add_argument("rows", nargs="+", type=Path)
    args = ap.parse_args()
    if args.cmd == "collect":
        args.out.write_text(json.dumps(collect(args.set, args.folder)))
        return 0
    report(args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
