"""Probe (issue 27): sentence-level and hit-level evidence on the rows of `bench/abstention_audit.py --hits`.

    python bench/abstention_audit.py --hits --no-far-off --json audit.json <set>=<folder> ...   # rows with top hits
    python bench/abstention_hit_absent.py audit.json [more.json ...] --json probe.json           # add the columns

Adds to each row (answerable questions and near misses), from the top hits the audit recorded, with the index's
model (MiniLM, offline):

- `hit_gain`: the meaning veto (`absent_meaning.absent_meaning`) with "absent" read from the top SENTENCE_HITS hits instead
  of the whole corpus: the content words of the asking clause (`asking.asked_clause`, the user's own material
  left out) none of whose stems is in those hits' titles and focus texts are dropped, and the gain is the best cosine
  of the focus texts with the question without them minus the best with it (0 when no such word, or nothing left);
  `hit_words` the words dropped. A near miss in the corpus' own words ("Does cargo have a watch mode ...?") finds
  passages about the rest of it; a paraphrase's words the hits lack are meant by them in other words.
- `meaning_delta` (with `--folders`): the meaning veto's own delta (`absent_meaning.absent_meaning`, None when it does
  not apply), computed over the corpus' document frequencies and the recorded focus texts, whatever the decision;
- `pair_gain` (with `--pairs`): as `hit_gain`, the words dropped being those of the asking clause's adjacent
  content-word pairs no chunk holds as a phrase (each word in some chunk);
- `sent_best`: the best cosine of the question with one answer unit (`answer.passages.units`: a sentence or a whole
  list item) of the top SENTENCE_HITS hits' focus texts (MiniLM was trained on sentence pairs);
  `sent_asked`: the same for the asking clause alone.

With `--relation` (and `--folders`; no embedding, the indexes opened as they stand) only the columns of
`relations` instead — the question's rare terms in one sentence of a top hit (`rel_*`), the capability shape, the
words no chunk holds and the names no top hit mentions — from the rows' recorded hits, or with `--eval` from the
top hits of `ragls eval --json` outputs (`eval_hits`):

    python bench/abstention_hit_absent.py rows.json --relation --eval <outputs> --folders <set>=<folder> ... --json rel.json

Then `bench/abstention_loco.py --rows probe.json --table --features ...` reads them like any Evidence field
(bench/history/session-55.md, "Abstention: the passage's side and the user's side").
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


def corpus_indexes(rows: list[dict], folders: dict[str, str], sync: bool = True):
    """Yield (corpus, its BM25 index, its rows) for each corpus in `folders`, its index opened as `RagWorkspace`
    does (the index in the cache dir is reused; synced first unless `sync` is False: the index as it stands) and
    closed after its rows are read."""
    from ragls.workspace.rag_workspace import RagWorkspace

    for corpus, folder in folders.items():
        ws = RagWorkspace([Path(folder)])
        try:
            if sync:
                ws.index()
            yield corpus, ws.indexes[0].bm25, [r for r in rows if r["corpus"] == corpus]
        finally:
            ws.close()


def phrase_pairs(rows: list[dict], folders: dict[str, str]) -> dict[tuple[str, str], list[str]]:
    """{(corpus, id): the words of the asking clause's adjacent content-word pairs that no chunk holds as a phrase
    ("rate limiting", "watch mode"), each word in some chunk, nor closed up ("ratelimit")} for the rows of the
    corpora in `folders` (their indexes opened read as `RagWorkspace` does; user material left out)."""
    from ragls.core.analysis import STOPWORDS, stems
    from ragls.retrieval.asking import asked_clause
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
    """{(corpus, id): `absent_meaning.absent_meaning`'s delta} for the rows of the corpora in `folders` that have one:
    the product's own computation over the corpus' document frequencies (its index opened as `RagWorkspace` does)
    and the top hits' focus texts the audit recorded."""
    from dataclasses import replace
    from types import SimpleNamespace

    from ragls.retrieval import absent_meaning
    from ragls.retrieval.query import analyse

    out = {}
    plain = absent_meaning.focus_text  # abstention's, as the meaning veto reads it
    absent_meaning.focus_text = lambda h: h.focus_text if isinstance(h, SimpleNamespace) else plain(h)
    try:
        for corpus, bm25, mine in corpus_indexes(rows, folders):
            for r in mine:
                if not r.get("hits"):
                    continue
                q = analyse(r["question"])
                q = replace(q, vector=embed_query(r["question"]))
                stats = [(bm25.num_docs(), {t: bm25.doc_freq(t) for t in q.terms})]
                hits = [SimpleNamespace(focus_text=h["focus"]) for h in r["hits"]]
                found = absent_meaning.absent_meaning(stats, q, hits, embed_query, embed)
                if found is not None:
                    out[(corpus, r["id"])] = found[0]
            print(f"{corpus}: deltas", flush=True)
    finally:
        absent_meaning.focus_text = plain
    return out


# A capability question: "Can I ...?", "Does lefthook ...?", "Is it possible / there a way to ...?", "Is X
# supported?" — its answerable kind needs a sentence relating the thing to the action; its near miss (a neighbouring
# option's page) names every word apart.
CAPABILITY = re.compile(r"^\W*(?:(?:can|could|does|do|is|are|will|would|may)\b|how (?:can|do) i\b)", re.IGNORECASE)


def eval_hits(corpus: str, folder: str, results: Path) -> dict[str, list[dict]]:
    """{question id: its top 5 hits} read from `ragls eval --json`'s per-question `hits` and `focus`
    ("path:start-end", 1-based lines) in `results` (a file, or a folder holding `<corpus>.base.json`) and the
    corpus files under `folder`: each hit's text its chunk's lines, its focus the focus lines (the whole chunk
    when the eval gives none), no title (the eval does not record it) — for rows recorded without `--hits`."""
    path = results / f"{corpus}.base.json" if results.is_dir() else results
    files: dict[str, list[str]] = {}

    def lines(span: str) -> tuple[str, str]:
        name, rng = span.rsplit(":", 1)
        a, b = (int(x) for x in rng.split("-"))
        if name not in files:
            files[name] = (Path(folder) / name).read_text(errors="replace").splitlines()
        return name, "\n".join(files[name][a - 1:b])

    out = {}
    for res in json.loads(path.read_text())["results"]:
        hits = []
        focus = res.get("focus") or []
        for k, span in enumerate(res.get("hits", [])[:5]):
            name, text = lines(span)
            f = focus[k] if k < len(focus) and focus[k].rsplit(":", 1)[0] == name else span
            hits.append({"path": name, "title": "", "text": text, "focus": lines(f)[1]})
        out[res["id"]] = hits
    return out


def relations(rows: list[dict], folders: dict[str, str], results: Path | None = None) -> dict[tuple[str, str], dict]:
    """{(corpus, id): columns} for the rows of the corpora in `folders` with recorded top hits (`--relation`;
    with `results`, the hits of `ragls eval --json` instead: `eval_hits`):

    - `rel_pair_focus` / `rel_pair_chunk`: 1.0 when the asking clause's two rarest terms the corpus holds
      (`asked_query(clause=True, turns)`, the user's own material left out; IDF over the corpus) stand in ONE answer
      unit (`answer.passages.units`: a sentence or a whole list item; the hit's title terms count in each) of the
      focus text / the whole chunk text of one of the top SENTENCE_HITS hits; 0.0 when they do not; 1.0 with
      fewer than two such terms (nothing to relate);
    - `rel_share_focus` / `rel_share_chunk`: the best IDF share of those held terms in one such unit;
    - `rel_all_focus`: the same share over all the asking clause's terms (a term no chunk holds weighs the largest
      IDF): focus_coverage at the sentence level;
    - `capability`: the asking clause opens as a capability question (`CAPABILITY`);
    - `lack_words`: `absent_meaning.lacking_words` (words whose every term no chunk holds; the meaning veto's);
    - `hit_names`: the question's names (`names.question_names`) none of whose terms the top 5 hits' titles and
      texts hold; `lack_names` those of them no chunk holds at all.
    """
    from ragls.answer.passages import units
    from ragls.core.analysis import stem_set
    from ragls.retrieval.absent_meaning import lacking_words
    from ragls.retrieval.abstention import SENTENCE_HITS, asked_query, asked_weights
    from ragls.retrieval.asking import asked_clause
    from ragls.retrieval.names import name_terms, user_material
    from ragls.retrieval.query import analyse

    out = {}
    for corpus, bm25, mine in corpus_indexes(rows, folders, sync=False):
        n_docs = bm25.num_docs()
        recorded = eval_hits(corpus, folders[corpus], results) if results else {}
        for r in mine:
            hits = recorded.get(r["id"], []) if results else r.get("hits") or []
            q = analyse(r["question"])
            names = name_terms(r["question"])
            terms = set(q.terms) | {t for ts in names.values() for t in ts}
            stats = [(n_docs, {t: bm25.doc_freq(t) for t in terms})]
            weights, max_idf = asked_weights(stats, asked_query(asked_query(q, clause=True), clause=True),
                                              user_material(q.text))
            clause = asked_clause(r["question"], True)
            cw = stem_set(clause)
            weights = {t: w for t, w in weights.items() if t in cw} or weights
            held = {t: w for t, w in weights.items() if w < max_idf}
            rare2 = sorted(held, key=held.get, reverse=True)[:2]
            row = {"capability": bool(CAPABILITY.match(clause)), "lack_words": [
                w.strip(".,;:!?()\"'`") for w in lacking_words(stats, q)]}
            seen = set().union(*(stem_set(h["title"] + "\n" + h["text"]) for h in hits[:5])) if hits else set()
            row["hit_names"] = [n for n, ts in names.items() if not set(ts) & seen]
            row["lack_names"] = [n for n in row["hit_names"] if all(stats[0][1].get(t, 0) == 0 for t in names[n])]
            for where in ("focus", "chunk"):
                best_pair, best_share, best_all = 0.0, 0.0, 0.0
                for h in hits[:SENTENCE_HITS]:
                    title = stem_set(h["title"])
                    text = h["focus"] if where == "focus" else h["text"]
                    md = not h["path"].endswith((".rst", ".txt"))
                    for u in units(text, markdown=md) or []:
                        have = stem_set(u.scored_text) | title
                        if len(rare2) < 2 or set(rare2) <= have:
                            best_pair = 1.0
                        if held:
                            best_share = max(best_share, sum(w for t, w in held.items() if t in have) / sum(held.values()))
                        if weights:
                            best_all = max(best_all, sum(w for t, w in weights.items() if t in have)
                                           / sum(weights.values()))
                row[f"rel_pair_{where}"] = best_pair if hits else 0.0
                row[f"rel_share_{where}"] = best_share if held else 1.0
                if where == "focus":
                    row["rel_all_focus"] = best_all
            out[(corpus, r["id"])] = row
        print(f"{corpus}: relations", flush=True)
    return out


def main() -> int:
    from ragls.answer.passages import units
    from ragls.config.settings import build_settings
    from ragls.core.analysis import STOPWORDS, stem_set, stems
    from ragls.embedding.embed import Embedder
    from ragls.retrieval.abstention import SENTENCE_HITS
    from ragls.retrieval.asking import asked_clause
    from ragls.retrieval.names import user_material

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+", type=Path)
    ap.add_argument("--json", type=Path, required=True)
    ap.add_argument("--folders", nargs="*", default=[], help="<set>=<docs folder>: also `meaning_delta` (below)")
    ap.add_argument("--pairs", action="store_true", help="also `pair_gain` (below; with --folders)")
    ap.add_argument("--relation", action="store_true", help="only the columns of `relations` (with --folders; no "
                    "embedding): the question's rare terms in one sentence of a top hit, the hedge's words")
    ap.add_argument("--eval", type=Path, help="with --relation: the top hits from `ragls eval --json` output (a "
                    "file, or a folder of <set>.base.json), not from the rows")
    args = ap.parse_args()
    rows = [r for p in args.rows for r in json.loads(p.read_text())["rows"] if r["kind"] != "far-off"]
    if args.relation:
        found = relations(rows, dict(f.split("=", 1) for f in args.folders), args.eval)
        rows = [{**r, **found[(r["corpus"], r["id"])]} for r in rows if (r["corpus"], r["id"]) in found]
        for r in rows:
            r.pop("hits", None)
        args.json.write_text(json.dumps({"rows": rows}, indent=0))
        return 0
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
