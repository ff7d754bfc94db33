"""How much of a page is about the question (issue 27): page-level features from every embedding window of the
folder's index, added to a recorded fused list's side file for `bench/file_rank_loco.py`.

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json   # once per set
    python bench/page_aboutness.py rec/<set>.json <folder>                                     # writes rec/<set>.about

A page that is about the question's subject (a reference page titled by it, a how-to for it) should have much of
its text close to the question; a page that mentions the subject in passing (a tutorial walking through ten
features, a changelog) has one close window among many far ones. For each answerable question and each fused entry's
page, over every window row of the index (the vectors the vector signal searches; cosine with the question's query
vector, the product's model):

  page_centroid  cosine of the question with the page's centroid (the normalised mean of its windows), minus the
                 list's best such cosine (first 10 entries' pages)
  page_mean      mean window cosine of the page, minus the list's best
  page_top3      mean of the page's best 3 window cosines, minus the list's best
  page_near      share of the page's windows within 0.1 of the list's best window cosine (0-1)

Read only: the folder's index in the user cache is reused, not built.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def main() -> int:
    from ragls.evaluation import evaluate
    from ragls.workspace.rag_workspace import RagWorkspace

    rec, folder = Path(sys.argv[1]), Path(sys.argv[2])
    ws = RagWorkspace([folder], [{}], read_only=True)
    try:
        idx = ws.indexes[0]
        t = idx.vectors.table.to_arrow()
        ids = t.column("id").to_pylist()
        vecs = np.asarray(t.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False),
                          dtype=np.float32).reshape(t.num_rows, -1).copy()
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        chunks = idx.manifest.get_chunks(sorted(set(ids)))
        page_of = np.array([evaluate._norm_path(chunks[c].path) if c in chunks else "" for c in ids])
        pages = sorted(set(page_of) - {""})
        rows = {p: np.where(page_of == p)[0] for p in pages}
        centroid = {}
        for p, r in rows.items():
            m = vecs[r].mean(axis=0)
            centroid[p] = m / np.linalg.norm(m)
        feat_path = rec.with_suffix(".about")
        feat: dict = {}
        for q in json.loads(rec.read_text()):
            if not (q["answerable"] and q["fused"]):
                continue
            qv = np.asarray(ws.embedder.embed_query(q["question"]), dtype=np.float32)
            sims = vecs @ qv
            best = float(sims.max())
            per: dict[str, tuple[float, float, float, float]] = {}
            for r in q["fused"]:
                p = r["path"]
                if p in per or p not in rows:
                    continue
                s = np.sort(sims[rows[p]])[::-1]
                per[p] = (float(centroid[p] @ qv), float(s.mean()), float(s[:3].mean()), float((s >= best - 0.1).mean()))
            head = {r["path"] for r in q["fused"][:10] if r["path"] in per}
            tops = [max((per[p][k] for p in head), default=0.0) for k in range(3)]
            out = {"page_centroid": [], "page_mean": [], "page_top3": [], "page_near": []}
            for r in q["fused"]:
                v = per.get(r["path"])
                out["page_centroid"].append(v[0] - tops[0] if v else -1.0)
                out["page_mean"].append(v[1] - tops[1] if v else -1.0)
                out["page_top3"].append(v[2] - tops[2] if v else -1.0)
                out["page_near"].append(v[3] if v else 0.0)
            feat.setdefault(q["id"], {}).update(out)
        feat_path.write_text(json.dumps(feat))
    finally:
        ws.close()
    print(f"{rec.stem}: page aboutness", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
