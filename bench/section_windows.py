"""Section windows and dense feedback replayed offline (issue 27, meaning gaps): the product's retrieval with only its
vector list recomputed in numpy over the index's window rows, under a rule, to measure doc-side and query-side
methods on a folder before anything is re-embedded.

    python bench/section_windows.py bench/questions/caddy-docs.jsonl <folder> --rules 'base;section:20:0;rocchio:3:0.5'

The folder's index in the user cache is reused, read only (`RagWorkspace.retrieve`, top 10: fusion, priors, page
support and dedup as shipped). `FolderSource.candidates` is wrapped so that the vector list (the chunks and their
pooled score, `Candidates.lists["vector"]`; `similarity` and the window lines stay each chunk's best ordinary window's)
comes from an exact numpy search over every window row (window margin 0: the best window) under one rule:

- `base`: that search alone — it reproduces the product's vector list (check: the same file ranks as `product`);
- `product`: the product's own list, untouched;
- `section:W:M`: every section a chunk holds also gets a short window, its heading path and its first W words
  (`section_leads` below: markup lines skipped), embedded with the index's model (vectors kept in `--cache`, by set);
  a chunk scores max(best ordinary window, best section window - M); `section:W:gG` scores best + G x max(0, best
  section window - best) instead;
- `third:W:S`: the best section window's cosine as a third list of the convex fusion (its own top `candidates`
  chunks, normalised from `min_similarity` as the vector list is), weighted S x `convex_alpha`, the vector list
  (1 - S) x `convex_alpha` (the fusion wrapper `search._fuse` replaced for the run; the vector list itself as `base`);
- `rocchio:K:B`: the query vector plus B x the mean of the best windows of the first K chunks (Rocchio 1971; dense
  pseudo-relevance feedback), searched again;
- `ask:B` / `asks:B`: the query vector plus B x the embedding of the question's asking part (`asking.asked_clause`
  with its turns / `asked_sentences`: a question written situation first, "I host 30 sites on one server. Can one
  process watch a folder of config files ...?", is embedded with its ask weighted up), both unit vectors; a question
  that is all ask keeps its vector; `askmax:M`: a chunk scores max(its best window's cosine with the question, its
  best window's cosine with the asking part - M).
- `hub:K:B`: hubness (Radovanovic et al., JMLR 2010; the CSLS correction of Conneau et al., ICLR 2018): each window's
  cosine minus B x (its hubness - the corpus mean), its hubness the mean of its K highest cosines with the windows of
  other files (`hubness` below): a window near everything (an overview's opening, a short generic page) scores less
  for every question alike; `cent:B` the same with the window's cosine to the corpus's mean window as its hubness
  (centring, Suzuki et al., EMNLP 2013: the query less B x the corpus's mean direction; B < 0 favours the centre),
  `pcent:B` to the mean of the pages' mean windows (every page weighing the same);
- `drop:F`: the question embedded without its words that a share F or more of the corpus's chunks hold (every stem
  of the word; stop words kept): the product's name and its core nouns, a query-side dense analogue of IDF;
- `ens:R1+R2+...`: the mean of the rules' chunk scores (a rule's ":" written "/"; query-variant fusion, Belkin et
  al. 1995), each chunk's window and similarity the first rule's.

`--centrality` prints, per set, how far the gold file's best window (by cosine, over every window row) stands from
the corpus's mean direction compared with the best window of another file (`cent`'s hubness of the one minus the
other's), for the questions whose gold window is ahead by cosine and for those behind.

Prints, per rule, file Hit@1 and file MRR@10 over the answerable questions and the questions whose first gold-file
rank changed against the first rule; `--json` writes {rule: {question id: rank or null}}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

SECTION_WORDS = 20  # words of a section's text after its heading path

_UNDERLINE = re.compile(r"([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
_ROLE = re.compile(r":[\w.+-]+(?::[\w.+-]+)*:`([^`<]*?)(?:\s*<[^>]*>)?`")
_TAG = re.compile(r"<[^>\n]+>")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_FIELD = re.compile(r":[\w-]+:(\s|$)")


def lead_words(lines: list[str], limit: int = SECTION_WORDS) -> tuple[str, int]:
    """The first `limit` words of a section's `lines` (those after its heading line) and how many lines they take
    (0 when none): markup lines are skipped (reST underlines and directive / option lines, Markdown headings and code
    fences, HTML tags, a link's target, a role's target), and the words end at the first blank line once half of
    `limit` is reached (a lead paragraph of 10-20 words is whole; a one-line caption takes in the example below it)."""
    words: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            if len(words) >= limit // 2:
                break
            continue
        if _UNDERLINE.match(s) or s.startswith((".. ", "#", "```", "~~~")) or _FIELD.match(s):
            if words and s.startswith("#"):
                break  # the next heading
            continue
        words += _LINK.sub(r"\1", _TAG.sub(" ", _ROLE.sub(r"\1", s))).split()
        used = i + 1
        if len(words) >= limit:
            break
    return " ".join(words[:limit]), used


def section_leads(chunk, limit: int = SECTION_WORDS) -> list[tuple[int, int, str]]:
    """(first file line, last file line, text) of each section window of `chunk` (0-based, inclusive): one per
    heading the chunk holds (Markdown: markdown-it's, a front matter block being none; other text:
    `index.headings.text_headings`), its text the heading path (`titles.focus_title`), a blank line and its
    `lead_words`; a chunk opening its file without a heading at its top (a page titled by its front matter) gets one
    for its opening, titled by the chunk. Sections without words of their own (a heading followed by a subheading),
    code files and chunks without headings get none; heading ids `{ #x }` are left out."""
    from ragls.index.chunking import LineIndex, leading_front_matter, strip_heading_ids
    from ragls.index.headings import text_headings
    from ragls.index.titles import _markdown_headings, focus_title
    from ragls.sources.load import kind_for

    kind = kind_for(chunk.path)
    if kind == "code" or not chunk.text:
        return []
    text = chunk.text
    opens = chunk.span.start_line == 0
    front = leading_front_matter(text) if opens and kind == "markdown" else 0
    if kind == "markdown":
        heads = [line for line, _, name in _markdown_headings(text, opens) if name]
    else:
        index = LineIndex(text)
        heads = [index.line_of(offset) for offset, _ in text_headings(text, index.starts, chunk.path)]
    lines = text.split("\n")
    marks = [(line, True) for line in heads]
    if opens and chunk.title and (not heads or heads[0] > front):
        marks.insert(0, (front, False))
    out = []
    for k, (line, heading) in enumerate(marks):
        end = marks[k + 1][0] if k + 1 < len(marks) else len(lines)
        skip = line + 1 if heading else line
        if heading and end - skip > 1 and _UNDERLINE.match(lines[skip + 1].strip()):
            skip += 2  # an overlined title: its line is the overline's, its name and underline follow
        words, used = lead_words(lines[skip:end], limit)
        if not words:
            continue
        title = focus_title(chunk, chunk.span.start_line + line) if heading else chunk.title
        parts = [p for p in strip_heading_ids(title).split(" > ") if p.strip()]
        path = " > ".join(p for i, p in enumerate(parts) if i == 0 or p != parts[i - 1])
        last = skip + used - 1
        out.append((chunk.span.start_line + line, min(chunk.span.end_line, chunk.span.start_line + last),
                    f"{path}\n\n{words}" if path else words))
    return out


def hubness(vecs: np.ndarray, doc: np.ndarray, k: int, block: int = 512) -> np.ndarray:
    """(n,) the mean of each row's `k` highest cosines with the rows of other documents (`vecs`: (n, d) unit rows;
    `doc`: (n,) document ids); 0 for a row with fewer than `k` rows elsewhere."""
    out = np.zeros(len(vecs), dtype=np.float32)
    for a in range(0, len(vecs), block):
        s = vecs[a:a + block] @ vecs.T
        s[doc[a:a + block, None] == doc[None, :]] = -2.0
        if s.shape[1] > k:
            top = np.partition(s, s.shape[1] - k, axis=1)[:, -k:]
            out[a:a + block] = np.where(top > -2.0, top, 0.0).mean(axis=1)
    return out


def main() -> int:
    from ragls.evaluation import evaluate
    from ragls.retrieval import search as search_mod
    from ragls.retrieval import source as source_mod
    from ragls.retrieval.fuse import convex_fusion
    from ragls.stores.vectors import WindowMatch
    from ragls.workspace.rag_workspace import RagWorkspace

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--rules", default="base;section:20:0")
    ap.add_argument("--cache", type=Path, default=Path("bench/results/section_windows"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--centrality", action="store_true", help="the gold window's centrality against the rival's")
    ap.add_argument("--misses", action="store_true", help="for each question the first rule misses: the gold file's "
                    "rank by the best ordinary window alone and by the best section window alone, and the top section")
    args = ap.parse_args()
    rules = [r for r in args.rules.split(";") if r]
    args.cache.mkdir(parents=True, exist_ok=True)

    ws = RagWorkspace([args.folder], [{}], read_only=True)
    idx = ws.indexes[0]
    t = idx.vectors.table.to_arrow()
    ids = t.column("id").to_pylist()
    win = np.array(t.column("window").to_pylist())
    l0 = np.array(t.column("start_line").to_pylist())
    l1 = np.array(t.column("end_line").to_pylist())
    vecs = np.asarray(t.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False),
                      dtype=np.float32).reshape(t.num_rows, -1).copy()
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    uid = sorted(set(ids))
    pos = {c: i for i, c in enumerate(uid)}
    owner = np.array([pos[c] for c in ids])
    rows_of = [np.where(owner == i)[0] for i in range(len(uid))]
    chunks = idx.manifest.get_chunks(uid)
    sections: dict[int, tuple] = {}

    def section_vectors(words: int):
        if words not in sections:
            units = [(pos[c], a, b, text) for c in uid if c in chunks for a, b, text in section_leads(chunks[c], words)]
            texts = [u[3] for u in units]
            f = args.cache / f"{args.questions.stem}.{words}.npz"
            got = np.load(f, allow_pickle=True) if f.exists() else None
            if got is not None and list(got["texts"]) == texts:
                sv = got["vecs"]
            else:
                t0 = time.time()
                sv = ws.embedder.embed_documents(texts)
                sv /= np.linalg.norm(sv, axis=1, keepdims=True)
                np.savez(f, texts=np.array(texts, dtype=object), vecs=sv)
                print(f"  {len(texts)} section windows embedded in {time.time() - t0:.0f} s", file=sys.stderr)
            sections[words] = (np.array([u[0] for u in units], dtype=int), sv)
        return sections[words]

    hubs: dict[str, np.ndarray] = {}

    def hub_of(kind: str, k: int) -> np.ndarray:
        key = f"{kind}:{k}"
        if key not in hubs:
            paths = {c: chunks[c].path if c in chunks else c for c in uid}
            names = sorted(set(paths.values()))
            doc_id = {p: i for i, p in enumerate(names)}
            doc = np.array([doc_id[paths[uid[o]]] for o in owner])
            if kind in ("cent", "pcent"):
                if kind == "pcent":  # every page weighs the same: the mean of the pages' mean windows
                    sums = np.zeros((len(names), vecs.shape[1]), dtype=np.float64)
                    np.add.at(sums, doc, vecs)
                    c = (sums / np.bincount(doc, minlength=len(names))[:, None]).mean(axis=0)
                else:
                    c = vecs.mean(axis=0)
                h = vecs @ (c / np.linalg.norm(c)).astype(np.float32)
            else:
                t0 = time.time()
                h = hubness(vecs, doc, k)
                print(f"  hubness of {len(vecs)} windows in {time.time() - t0:.1f} s", file=sys.stderr)
            hubs[key] = (h - h.mean()).astype(np.float32)
        return hubs[key]

    def best_of(sims):
        best = np.full(len(uid), -2.0, dtype=np.float32)
        np.maximum.at(best, owner, sims)
        return best

    asked_vectors: dict[str, np.ndarray | None] = {}

    def asked_vector(text: str, kind: str = "") -> np.ndarray | None:
        """The embedding of the question's asking part (`asking.asked_clause` with its turns, or
        `asked_sentences` for `asks`), None when that is the whole question."""
        from ragls.retrieval.asking import asked_clause, asked_sentences

        key = (kind or state["rule"].split(":")[0]) + "|" + text
        if key not in asked_vectors:
            asked = asked_sentences(text) if key.startswith("asks|") else asked_clause(text, turns=True)
            asked_vectors[key] = None if asked.strip() == text.strip() else ws.embedder.embed_query(asked)
        return asked_vectors[key]

    dropped: dict[str, np.ndarray | None] = {}

    def common_dropped(text: str, share: float) -> np.ndarray | None:
        """The question's embedding with its words that most of the corpus's chunks hold (each stem of the word in
        at least `share` of them: the product's name, its core nouns) left out; None when it holds none."""
        from ragls.core.analysis import EN_STEM, STOPWORDS

        key = f"{share}|{text}"
        if key not in dropped:
            bm25 = idx.bm25
            total = max(1, bm25.num_docs())
            out, gone = [], []
            for token in re.split(r"(\s+)", text):
                word = re.sub(r"^\W+|\W+$", "", token)
                stems_ = EN_STEM.analyze(word) if word else []
                if stems_ and word.lower() not in STOPWORDS and all(bm25.doc_freq(t) / total >= share for t in stems_):
                    gone.append(word)
                    continue
                out.append(token)
            rest = re.sub(r"\s+", " ", "".join(out)).strip()
            dropped[key] = ws.embedder.embed_query(rest) if gone and rest else None
        return dropped[key]

    def vector_list(rule: str, qv: np.ndarray, n: int, text: str = ""):
        if rule.startswith("ens:"):  # the mean of the rules' chunk scores; the window and similarity the first's
            parts = [rule_scores(r.replace("/", ":"), qv, n, text) for r in rule[4:].split("+")]
            sims, score = parts[0][0], np.mean([p[1] for p in parts], axis=0)
        else:
            sims, score = rule_scores(rule, qv, n, text)
        out = []
        for c in np.argsort(-score, kind="stable")[:n]:
            rows = rows_of[c]
            r = rows[np.argmax(sims[rows])]
            first = rows[win[rows] == 0]
            out.append((WindowMatch(uid[c], float(sims[r]), int(win[r]), int(l0[r]), int(l1[r]), vecs[r],
                                    float(sims[first[0]]) if len(first) else None), float(score[c])))
        return out

    def rule_scores(rule: str, qv: np.ndarray, n: int, text: str = ""):
        """(each window's cosine, each chunk's score) under one rule."""
        qv = qv / np.linalg.norm(qv)
        kind, *params = rule.split(":")
        if kind == "drop":  # the question embedded without the words most chunks hold
            dv = common_dropped(text, float(params[0]))
            if dv is not None:
                qv = dv / np.linalg.norm(dv)
        av = asked_vector(text, kind) if kind in ("ask", "asks", "askmax") else None
        if av is not None and kind != "askmax":  # the question's vector plus B x its asking part's
            qv = qv + float(params[0]) * av / np.linalg.norm(av)
            qv = qv / np.linalg.norm(qv)
        sims = vecs @ qv
        best = best_of(sims)
        score = best
        if kind in ("hub", "cent", "pcent"):  # each window's cosine less B x its hubness (above the corpus mean)
            h = hub_of(kind, int(params[0]) if kind == "hub" else 0)
            score = best = best_of(sims - float(params[-1]) * h)
        if av is not None and kind == "askmax":  # max(the question's best window, the asking part's best - M)
            score = np.maximum(best, best_of(vecs @ (av / np.linalg.norm(av))) - float(params[0]))
        if kind == "rocchio":
            k, beta = int(params[0]), float(params[1])
            top = np.argsort(-best)[:k]
            q2 = qv + beta * np.mean([vecs[rows_of[c][np.argmax(sims[rows_of[c]])]] for c in top], axis=0)
            sims = vecs @ (q2 / np.linalg.norm(q2))
            score = best = best_of(sims)
        elif kind == "section":
            owners, sv = section_vectors(int(params[0]))
            sbest = np.full(len(uid), -2.0, dtype=np.float32)
            np.maximum.at(sbest, owners, sv @ qv)
            if params[1].startswith("g"):
                score = best + float(params[1][1:]) * np.maximum(0.0, sbest - best)
            else:
                score = np.maximum(best, sbest - float(params[1]))
        elif kind == "third":
            owners, sv = section_vectors(int(params[0]))
            sbest = np.full(len(uid), -2.0, dtype=np.float32)
            np.maximum.at(sbest, owners, sv @ qv)
            state["third"] = [((0, uid[c]), float(sbest[c])) for c in np.argsort(-sbest, kind="stable")[:n]]
        return sims, score

    state = {"rule": "product"}
    original = source_mod.FolderSource.candidates

    def candidates(self, q, n, settings, signals, *, plain=False):
        out = original(self, q, n, settings, signals, plain=plain)
        if "vector" in out.lists and state["rule"] != "product":
            lst = out.lists["vector"] = []
            out.similarity.clear()
            out.matches.clear()
            for m, s in vector_list(state["rule"], np.asarray(q.vector, dtype=np.float32), n, q.text):
                lst.append((m.chunk_id, s))
                out.similarity[m.chunk_id] = m.similarity
                out.matches[m.chunk_id] = m
        return out

    original_fuse = search_mod._fuse

    def fuse(scored, rankings, weights, bonus, settings, depth):
        if not state["rule"].startswith("third:") or "third" not in state:
            return original_fuse(scored, rankings, weights, bonus, settings, depth)
        share = float(state["rule"].split(":")[2])
        alpha = settings.convex_alpha
        lists = {name: sorted(lst, key=lambda kv: -kv[1])[:len(rankings[name])] for name, lst in scored.items()}
        lists["section"] = state.pop("third")
        return convex_fusion(lists, {"vector": alpha * (1 - share), "bm25": 1.0 - alpha, "section": alpha * share},
                             {"vector": settings.min_similarity, "bm25": 0.0, "section": settings.min_similarity},
                             search_mod._convex_bonus(bonus, lists.get("bm25", []), settings), depth=depth)

    source_mod.FolderSource.candidates = candidates
    search_mod._fuse = fuse
    questions = [q for q in evaluate.load_questions(args.questions) if q.answerable]
    result: dict[str, dict] = {}
    try:
        for rule in rules:
            state["rule"] = rule
            ranks = {}
            for q in questions:
                gold = {g.path for g in q.gold}
                paths = [evaluate._norm_path(h.chunk.path) for h in ws.retrieve(q.question, 10)]
                ranks[q.id] = next((i for i, p in enumerate(paths, 1) if p in gold), None)
            result[rule] = ranks
            first = result[rules[0]]
            moved = {k: (first[k], r) for k, r in ranks.items() if r != first[k]}
            print(f"{args.questions.stem:24} {rule:18} file Hit@1 {sum(r == 1 for r in ranks.values()):3}/{len(ranks)}"
                  f"  MRR@10 {sum(1 / r for r in ranks.values() if r) / len(ranks):.3f}  {moved or ''}")
        if args.centrality:
            h = hub_of("cent", 0)
            path_of = np.array([evaluate._norm_path(chunks[uid[o]].path) if uid[o] in chunks else "" for o in owner])
            ahead, behind = [], []
            for q in questions:
                qv = ws.embedder.embed_query(q.question)
                sims = vecs @ (qv / np.linalg.norm(qv))
                order = np.argsort(-sims)
                gold = {g.path for g in q.gold}
                g = next((r for r in order if path_of[r] in gold), None)
                o = next((r for r in order if path_of[r] not in gold), None)
                if g is not None and o is not None:
                    (ahead if sims[g] >= sims[o] else behind).append(float(h[g] - h[o]))
            print(f"{args.questions.stem:24} centrality, gold window minus the best other file's: ahead by cosine "
                  f"{np.mean(ahead) if ahead else float('nan'):+.3f} (n {len(ahead)}), behind "
                  f"{np.mean(behind) if behind else float('nan'):+.3f} (n {len(behind)}); sd over windows {h.std():.3f}")
        if args.misses:
            owners, sv = section_vectors(SECTION_WORDS)
            texts = [text for c in uid if c in chunks for _, _, text in section_leads(chunks[c], SECTION_WORDS)]
            path = [evaluate._norm_path(chunks[c].path) if c in chunks else "" for c in uid]

            def file_rank(score, gold):
                seen: list[str] = []
                for c in np.argsort(-score):
                    if path[c] not in seen:
                        seen.append(path[c])
                        if path[c] in gold:
                            return len(seen)
                return None

            for q in questions:
                if result[rules[0]][q.id] == 1:
                    continue
                qv = ws.embedder.embed_query(q.question)
                qv = qv / np.linalg.norm(qv)
                sb = np.full(len(uid), -2.0, dtype=np.float32)
                ss = sv @ qv
                np.maximum.at(sb, owners, ss)
                gold = {g.path for g in q.gold}
                print(f"  {q.id:14} {rules[0]} {result[rules[0]][q.id]}  window alone {file_rank(best_of(vecs @ qv), gold)}"
                      f"  section alone {file_rank(sb, gold)}  top section {texts[int(np.argmax(ss))][:80]!r}")
    finally:
        source_mod.FolderSource.candidates = original
        search_mod._fuse = original_fuse
        ws.close()
    if args.json:
        args.json.write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
