"""Probe (issue 27): sentence-level and hit-level evidence on the rows of `bench/abstention_audit.py --hits`.

    python bench/abstention_audit.py --hits --no-far-off --json audit.json <set>=<folder> ...   # rows with top hits
    python bench/abstention_hit_absent.py audit.json [more.json ...] --json probe.json           # add the columns

Adds to each row (answerable questions and near misses), from the top hits the audit recorded, with the index's
model (MiniLM, offline):

- `hit_gain`: the meaning veto (`abstention.absent_meaning`) with "absent" read from the top SENTENCE_HITS hits instead
  of the whole corpus: the content words of the asking clause (`asked_value.asked_clause`, the user's own material
  left out) none of whose stems is in those hits' titles and focus texts are dropped, and the gain is the best cosine
  of the focus texts with the question without them minus the best with it (0 when no such word, or nothing left);
  `hit_words` the words dropped. A near miss in the corpus' own words ("Does cargo have a watch mode ...?") finds
  passages about the rest of it; a paraphrase's words the hits lack are meant by them in other words.
- `meaning_delta` (with `--folders`): the meaning veto's own delta (`abstention.absent_meaning`, None when it does
  not apply), computed over the corpus' document frequencies and the recorded focus texts, whatever the decision;
- `pair_gain` (with `--pairs`): as `hit_gain`, the words dropped being those of the asking clause's adjacent
  content-word pairs no chunk holds as a phrase (each word in some chunk);
- `sent_best`: the best cosine of the question with one answer unit (`answer.passages.units`: a sentence or a whole
  list item) of the top SENTENCE_HITS hits' focus texts (MiniLM was trained on sentence pairs);
  `sent_asked`: the same for the asking clause alone.

Then `bench/abstention_loco.py --rows probe.json --table --features ...` reads them like any Evidence field.
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


def corpus_indexes(rows: list[dict], folders: dict[str, str]):
    """Yield (corpus, its BM25 index, its rows) for each corpus in `folders`, its index opened as `RagWorkspace`
    does (the index in the cache dir is reused) and closed after its rows are read."""
    from ragls.workspace.rag_workspace import RagWorkspace

    for corpus, folder in folders.items():
        ws = RagWorkspace([Path(folder)])
        try:
            ws.index()
            yield corpus, ws.indexes[0].bm25, [r for r in rows if r["corpus"] == corpus]
        finally:
            ws.close()


def phrase_pairs(rows: list[dict], folders: dict[str, str]) -> dict[tuple[str, str], list[str]]:
    """{(corpus, id): the words of the asking clause's adjacent content-word pairs that no chunk holds as a phrase
    ("rate limiting", "watch mode"), each word in some chunk, nor closed up ("ratelimit")} for the rows of the
    corpora in `folders` (their indexes opened read as `RagWorkspace` does; user material left out)."""
    from ragls.core.analysis import STOPWORDS, stems
    from ragls.retrieval.asked_value import asked_clause
    from ragls.retrieval.names import user_material

    out = {}
    for corpus, bm25, mine in corpus_indexes(rows, folders):
        for r in mine:
            own = user_material(r["question"])
            words = []
            for run in re.split(r"[^\w\s'-]+", asked_clause(r["question"], True)):
                ws_ = [w.lower().strip("'-") for w in run.split()]
                words.append([w for w in ws_ if w])
            dropped = []
            for run in words:
                for a, b in itertools.pairwise(run):
                    if a in STOPWORDS or b in STOPWORDS:
                        continue
                    ta, tb = stems(a), stems(b)
                    if not ta or not tb or set(ta + tb) & own:
                        continue
                    if not all(bm25.phrase_count([t]) for t in ta + tb):
                        continue  # a word no chunk holds: the meaning veto's
                    if bm25.phrase_count(ta + tb) or bm25.phrase_count(stems(a + b)):
                        continue
                    dropped += [a, b]
            out[(corpus, r["id"])] = list(dict.fromkeys(dropped))
        print(f"{corpus}: pairs", flush=True)
    return out


def meaning_deltas(rows: list[dict], folders: dict[str, str], embed_query, embed) -> dict[tuple[str, str], float]:
    """{(corpus, id): `abstention.absent_meaning`'s delta} for the rows of the corpora in `folders` that have one:
    the product's own computation over the corpus' document frequencies (its index opened as `RagWorkspace` does)
    and the top hits' focus texts the audit recorded."""
    from dataclasses import replace
    from types import SimpleNamespace

    from ragls.retrieval import abstention
    from ragls.retrieval.query import analyse

    out = {}
    plain = abstention.focus_text
    abstention.focus_text = lambda h: h.focus_text if isinstance(h, SimpleNamespace) else plain(h)
    try:
        for corpus, bm25, mine in corpus_indexes(rows, folders):
            for r in mine:
                if not r.get("hits"):
                    continue
                q = analyse(r["question"])
                q = replace(q, vector=embed_query(r["question"]))
                stats = [(bm25.num_docs(), {t: bm25.doc_freq(t) for t in q.terms})]
                hits = [SimpleNamespace(focus_text=h["focus"]) for h in r["hits"]]
                found = abstention.absent_meaning(stats, q, hits, embed_query, embed)
                if found is not None:
                    out[(corpus, r["id"])] = found[0]
            print(f"{corpus}: deltas", flush=True)
    finally:
        abstention.focus_text = plain
    return out


def main() -> int:
    from ragls.answer.passages import units
    from ragls.config.settings import build_settings
    from ragls.core.analysis import STOPWORDS, stem_set, stems
    from ragls.embedding.embed import Embedder
    from ragls.retrieval.abstention import SENTENCE_HITS
    from ragls.retrieval.asked_value import asked_clause
    from ragls.retrieval.names import user_material

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+", type=Path)
    ap.add_argument("--json", type=Path, required=True)
    ap.add_argument("--folders", nargs="*", default=[], help="<set>=<docs folder>: also `meaning_delta` (below)")
    ap.add_argument("--pairs", action="store_true", help="also `pair_gain` (below; with --folders)")
    args = ap.parse_args()
    rows = [r for p in args.rows for r in json.loads(p.read_text())["rows"] if r["kind"] != "far-off"]
    emb = Embedder(build_settings()[0].embedding)
    cache: dict[str, np.ndarray] = {}

    def vec(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in cache]
        if new:
            for t, v in zip(new, emb.embed_documents(new), strict=True):
                cache[t] = v
        return np.array([cache[t] for t in texts])

    def qvec(text: str) -> np.ndarray:
        return emb.embed_query(text)

    folders = dict(f.split("=", 1) for f in args.folders)
    pairs = phrase_pairs(rows, folders) if args.pairs else {}
    deltas = meaning_deltas(rows, folders, emb.embed_query, vec)

    for n, r in enumerate(rows):
        hits = r.get("hits") or []
        top = hits[:SENTENCE_HITS]
        focus = [h["focus"] for h in top if h["focus"].strip()]
        r.update(hit_gain=0.0, hit_words=[], sent_best=0.0, sent_asked=0.0,
                 meaning_delta=deltas.get((r["corpus"], r["id"])))
        if not focus:
            continue
        fv = vec(focus)
        q = qvec(r["question"])
        base = float(max(fv @ q))
        seen = set().union(*(stem_set(h["title"] + "\n" + h["focus"]) for h in top))
        own = user_material(r["question"])
        asked = asked_clause(r["question"], True)
        asked_words = {w.lower() for w in re.findall(r"[\w-]+", asked)}
        words = re.findall(r"\S+", r["question"])
        dropped = []
        for w in words:
            bare = re.sub(r"[^\w-]", " ", w).strip().lower()
            ts = set(stems(bare))
            if not ts or bare in STOPWORDS or not (set(bare.split()) & asked_words) or ts & own:
                continue
            if not ts & seen:
                dropped.append(w)
        kept = " ".join(w for w in words if w not in dropped)
        if dropped and kept.strip():
            r["hit_gain"] = float(max(fv @ qvec(kept))) - base
            r["hit_words"] = [w.strip(".,;:!?()\"'`") for w in dropped]
        r["pair_words"] = pairs.get((r["corpus"], r["id"]), [])
        r["pair_gain"] = 0.0
        kept = " ".join(w for w in words if re.sub(r"[^\w-]", "", w).lower() not in r["pair_words"])
        if r["pair_words"] and kept.strip():
            r["pair_gain"] = float(max(fv @ qvec(kept))) - base
        sents = [u.sentence for h in top for u in units(h["focus"])][:40]
        if sents:
            sv = vec(sents)
            r["sent_best"] = float(max(sv @ q))
            r["sent_asked"] = float(max(sv @ qvec(asked))) if asked.strip() else r["sent_best"]
        if n % 500 == 0:
            print(f"{n}/{len(rows)}", flush=True)
    for r in rows:
        r.pop("hits", None)
    args.json.write_text(json.dumps({"rows": rows}, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
