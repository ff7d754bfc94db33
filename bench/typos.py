"""Typo tolerance of BM25 (fuzzy terms for words the index does not hold) on the Rust book.

    python bench/typos.py

Text phase only (no model): the book is indexed into a temp dir; for each of the 66 QUERIES of bench/speed.py the
longest word (>= 5 letters) gets two adjacent inner letters swapped ("ownership" -> "ownesrhip"), a typical
typo. A typo'd query "finds" when the chunk BM25 ranks first for the clean query is in its top 5. Printed: that
rate with fuzzy matching off and on, and the typo'd queries' mean reciprocal rank of that chunk (top 10).
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import dataset
from speed import QUERIES

BOOK = dataset("rust-book")


def typo(query: str) -> str:
    """Swap the two middle letters of the query's longest word (>= 5 letters); the query unchanged otherwise."""
    words = re.findall(r"[A-Za-z]{5,}", query)
    if not words:
        return query
    w = max(words, key=len)
    i = len(w) // 2 - 1
    return query.replace(w, w[:i] + w[i + 1] + w[i] + w[i + 2:], 1)


def main() -> int:
    from ragls.config.settings import build_settings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex

    tmp = Path(tempfile.mkdtemp(prefix="ragls-typos-"))
    s = build_settings({"index": {"path": str(tmp / "index")}})[0]
    idx = FolderIndex(BOOK, s, Embedder(s.embedding))
    try:
        idx.sync(embed=False)
        rows = {False: [0, 0.0], True: [0, 0.0]}
        n = 0
        for q in QUERIES:
            t = typo(q)
            clean = idx.bm25.search(q, 1)
            if t == q or not clean:
                continue
            n += 1
            for fuzzy in (False, True):
                ids = [cid for cid, _ in idx.bm25.search(t, 10, fuzzy=fuzzy)]
                if clean[0][0] in ids[:5]:
                    rows[fuzzy][0] += 1
                if clean[0][0] in ids:
                    rows[fuzzy][1] += 1 / (ids.index(clean[0][0]) + 1)
        print(f"{n} typo'd queries (e.g. {typo(QUERIES[11])!r})")
        print("| BM25 | clean top-1 chunk in typo'd top 5 | MRR@10 |")
        print("|---|---:|---:|")
        for fuzzy in (False, True):
            print(f"| fuzzy {'on' if fuzzy else 'off'} | {rows[fuzzy][0] / n:.3f} | {rows[fuzzy][1] / n:.3f} |")
    finally:
        idx.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
