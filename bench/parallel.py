"""embedding.parallel: wall time to embed the same texts with N worker processes vs in-process ONNX threads.

    python bench/parallel.py [--texts 192] [--workers 0,2]

Texts: Rust book paragraphs (bench/data.py), about 1,000-2,000 characters each (256-wordpiece windows after
truncation), embedded with the offline all-MiniLM-L6-v2. The first call of each setting (model load, worker start)
is not timed; the timed call embeds all the texts once.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    from data import dataset
    from ragls.config.settings import build_settings
    from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--texts", type=int, default=192)
    ap.add_argument("--workers", default="0,2")
    ap.add_argument("--corpus", type=Path, default=None)
    args = ap.parse_args()
    paras = [b[:2000] for md in sorted(dataset("rust-book", args.corpus).rglob("*.md"))
             for b in md.read_text(encoding="utf-8").split("\n\n") if len(b) > 1000]
    texts = (paras * (1 + args.texts // max(1, len(paras))))[:args.texts]
    import os

    print(f"{len(texts)} texts, load average {os.getloadavg()[0]:.1f}")
    for n in (int(w) for w in args.workers.split(",")):
        emb = Embedder(build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(offline_model_dir()),
                                                     "parallel": n}})[0].embedding)
        emb.embed_documents(texts[:max(8, 4 * n)])  # load the model / start the workers
        t0 = time.perf_counter()
        emb.embed_documents(texts)
        wall = time.perf_counter() - t0
        print(f"parallel={n}: {wall:.1f} s, {len(texts) / wall:.1f} texts/s")
        emb.close()


if __name__ == "__main__":
    main()
