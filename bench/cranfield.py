"""Cranfield-1400 retrieval quality through ragls' own index and retrieval code (issue 2, "Benchmark").

    python bench/cranfield.py                  # BM25-only, vector-only, hybrid; prints a table
    python bench/cranfield.py --json out.json  # also write the figures

Collection: the `cranfield` data set (found by bench/data.py: --data, $RAGLS_BENCH_DATA, ../shared beside the
repository, or `python bench/fetch_data.py cranfield`; see its README). Each document is written as `<id>.txt` holding the
title, a blank line and the abstract (whose first sentence, a repeat of the title, is dropped so the title appears
once). Queries are mapped to qrels ids BY ORDER (the k-th query in cran.qry is qrels id k; the `.I` numbers have
gaps). Grades: 1-4 relevant with gain 5 - grade, -1 not relevant.

The documents are indexed by `RagWorkspace` with the offline all-MiniLM-L6-v2 (int8) into `<workdir>/index`;
the index is reused between runs (only changed files are re-processed, embeddings are cached by text). Each
signal set runs the 225 queries through `RagWorkspace.retrieve`. Chunk hits are reduced to documents (best rank
of any chunk of the document; 94 abstracts are longer than one 2000-char chunk).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import dataset
from ir_metrics import METRICS, evaluate
from speed import model_overrides

DATA: Path | None = None  # set by main() (bench/data.py); the loaders take explicit paths too


def data_dir() -> Path:
    """The Cranfield folder: DATA when main() set it, else bench/data.py's lookup (raises DataNotFound)."""
    return DATA or dataset("cranfield")
DEFAULT_WORKDIR = Path(__file__).resolve().parent / "results" / "cranfield"
SIGNAL_SETS = {"bm25": ("bm25",), "vector": ("vector",), "hybrid": ("vector", "bm25")}
DEPTH = 100  # documents per query (MAP@100, R@100)


# -- collection ------------------------------------------------------------------------------------------------
def _fields(record: str) -> dict[str, str]:
    """SMART record body -> {".T": text, ".W": text, ...} (markers on lines of their own)."""
    out: dict[str, list[str]] = {}
    cur = None
    for line in record.splitlines():
        if re.fullmatch(r"\.[TABW]\s*", line):
            cur = line.strip()
            out.setdefault(cur, [])
        elif cur is not None:
            out[cur].append(line)
    return {k: "\n".join(v).strip() for k, v in out.items()}


def load_docs(path: Path | None = None) -> dict[str, tuple[str, str]]:
    """doc id -> (title, abstract); the abstract's leading repeat of the title is removed."""
    path = path or data_dir() / "cran.all.1400"
    text = path.read_text()
    docs = {}
    for rec in re.split(r"(?m)^\.I ", text)[1:]:
        head, _, body = rec.partition("\n")
        f = _fields(body)
        title = " ".join(f.get(".T", "").split())
        abstract = f.get(".W", "")
        flat = " ".join(abstract.split())
        if title and flat.startswith(title):
            # Drop the repeated title: cut the abstract after as many words as the title has.
            words = abstract.split()
            n = len(title.split())
            rest = abstract
            for w in words[:n]:
                rest = rest[rest.index(w) + len(w):]
            abstract = rest.strip()
        docs[head.strip()] = (title, abstract)
    return docs


def load_queries(path: Path | None = None) -> dict[str, str]:
    """qrels query id ("1".."225", BY ORDER in the file) -> query text."""
    path = path or data_dir() / "cran.qry"
    text = path.read_text().replace("\r\n", "\n")
    out = {}
    for k, rec in enumerate(re.split(r"(?m)^\.I ", text)[1:], 1):
        body = rec.partition("\n")[2]
        out[str(k)] = " ".join(_fields(body).get(".W", "").split())
    return out


def load_qrels(path: Path | None = None, strict: bool = False) -> dict[str, dict[str, float]]:
    """query id -> {doc id: gain}; gain = 5 - grade for grades 1-4 (1-3 when `strict`), -1 is not relevant."""
    path = path or data_dir() / "cranqrel"
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        q, d, g = parts[0], parts[1], int(parts[2])
        ok = 1 <= g <= (3 if strict else 4)
        out.setdefault(q, {})[d] = float(5 - g) if ok else 0.0
    return out


def write_docs(docs: dict[str, tuple[str, str]], folder: Path) -> int:
    """Write `<id>.txt` files (only when the content differs, so the index sees no change). Returns files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for did, (title, abstract) in docs.items():
        content = f"{title}\n\n{abstract}\n" if abstract else f"{title}\n"
        p = folder / f"{did}.txt"
        if not p.exists() or p.read_text() != content:
            p.write_text(content)
            written += 1
    return written


# -- runs ------------------------------------------------------------------------------------------------------
def open_workspace(workdir: Path, candidates: int | None, extra: dict | None = None):
    from ragls.workspace.rag_workspace import RagWorkspace

    overrides = {
        **model_overrides(),
        "index": {"path": str(workdir / "index")},
        "retrieval": {"candidates": candidates} if candidates else {},
        # The default work dir is under bench/results/, which the repo's .gitignore excludes.
        "sources": {"respect_gitignore": False},
    }
    layers = [overrides] + ([extra] if extra else [])
    return RagWorkspace([workdir / "docs"], layers)


def doc_run(ws, query: str, signals, depth: int = DEPTH) -> list[str]:
    """Top `depth` distinct document ids for `query` (a document ranks where its best chunk ranks)."""
    top_k = depth
    while True:
        hits = ws.retrieve(query, top_k, signals=signals)
        ids = list(dict.fromkeys(Path(h.chunk.path).stem for h in hits))
        if len(ids) >= depth or len(hits) < top_k:
            return ids[:depth]
        top_k += depth // 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="docs + index (reused between runs)")
    ap.add_argument("--candidates", type=int, default=DEPTH,
                    help="retrieval.candidates for the runs (>= 100 so MAP@100/R@100 see 100 documents)")
    ap.add_argument("--signals", default="bm25,vector,hybrid", help="comma list of: " + ", ".join(SIGNAL_SETS))
    ap.add_argument("--depth", type=int, default=DEPTH,
                    help="documents per query (100; with 10, --candidates below 100 takes effect for @10 metrics)")
    ap.add_argument("--strict", action="store_true", help="only grades 1-3 are relevant")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=JSON",
                    help="extra setting override, e.g. retrieval.rrf_k=30 (repeatable)")
    ap.add_argument("--no-default-row", dest="default_row", action="store_false",
                    help="skip the extra hybrid run with ragls' default candidates at top 10")
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument("--data", type=Path, help="the Cranfield folder (default: bench/data.py's lookup)")
    args = ap.parse_args(argv)
    global DATA
    DATA = dataset("cranfield", args.data)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    docs, queries, qrels = load_docs(), load_queries(), load_qrels(strict=args.strict)
    assert len(docs) == 1400 and len(queries) == 225 and len(qrels) == 225, (len(docs), len(queries), len(qrels))
    written = write_docs(docs, args.workdir / "docs")
    extra: dict = {}
    for item in args.set:
        key, _, val = item.partition("=")
        section, _, name = key.partition(".")
        extra.setdefault(section, {})[name] = json.loads(val)

    t0 = time.perf_counter()
    ws = open_workspace(args.workdir, args.candidates, extra)
    reports = ws.index()
    print(f"index: {args.workdir / 'index'} ({written} files written, {reports[0].chunks_added} chunks added, "
          f"{ws.indexes[0].embedded_chunks} embedded, {time.perf_counter() - t0:.1f} s)", file=sys.stderr)

    results: dict[str, dict[str, float]] = {}
    timings: dict[str, float] = {}
    for name in args.signals.split(","):
        signals = SIGNAL_SETS[name]
        t1 = time.perf_counter()
        runs = {qid: doc_run(ws, text, signals, args.depth) for qid, text in queries.items()}
        timings[name] = (time.perf_counter() - t1) / len(queries) * 1000
        m = evaluate(runs, qrels)
        results[name] = {k: (v if args.depth >= int(k.split("@")[1]) else None) for k, v in m.items()}
    s = ws.settings
    max_length = ws.embedder.max_length if hasattr(ws.embedder, "max_length") else s.embedding.max_length
    ws.close()
    if args.default_row:
        # The shipped retrieval defaults (candidates 30) at top_k 10: only the @10 metrics are meaningful.
        ws = open_workspace(args.workdir, None, extra)
        t1 = time.perf_counter()
        runs = {qid: doc_run(ws, text, SIGNAL_SETS["hybrid"], depth=10) for qid, text in queries.items()}
        timings["hybrid, defaults"] = (time.perf_counter() - t1) / len(queries) * 1000
        m = evaluate(runs, qrels)
        results[f"hybrid, defaults (candidates {ws.settings.retrieval.candidates}, top 10)"] = {
            k: (v if k.endswith("@10") else None) for k, v in m.items()}
        timings[f"hybrid, defaults (candidates {ws.settings.retrieval.candidates}, top 10)"] = \
            timings.pop("hybrid, defaults")
        ws.close()

    print(f"\nCranfield-1400, 225 queries, model {s.embedding.model} (int8, truncation {max_length} tokens), "
          f"candidates {s.retrieval.candidates} (top {args.depth} documents), RRF k {s.retrieval.rrf_k:g}, weights vector "
          f"{s.retrieval.vector_weight:g} / bm25 {s.retrieval.bm25_weight:g}" + (", strict" if args.strict else ""))
    cols = list(METRICS)
    print("| run | " + " | ".join(cols) + " | ms/query |")
    print("|---|" + "---:|" * (len(cols) + 1))
    for name, m in results.items():
        print(f"| {name} | " + " | ".join("—" if m[c] is None else f"{m[c]:.3f}" for c in cols) + f" | {timings[name]:.1f} |")
    if args.json:
        args.json.write_text(json.dumps({"settings": {"candidates": s.retrieval.candidates, "rrf_k": s.retrieval.rrf_k,
                                                      "extra": extra, "strict": args.strict},
                                         "results": results, "ms_per_query": timings}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
