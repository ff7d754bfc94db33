"""BM25 pseudo-relevance feedback (`retrieval.bm25_feedback`) on the Rust book: keyword queries, abstention, latency.

    python bench/feedback_rustbook.py [--workdir bench/results/rustbook] [--corpus PATH]   (default: the Rust book, found by bench/data.py)

The book is indexed by `RagWorkspace` with the offline all-MiniLM-L6-v2 into `<workdir>/index` (reused between
runs; ~100 s the first time). Then, with feedback off and on (same workspace, the setting toggled):

1. Short keyword / code-identifier queries (KEYWORDS): the top 3 of `rag/query` (hybrid, shipped defaults) and of
   BM25 alone, and whether the top hit is in the file(s) that document the identifier.
2. Abstention through ragls' own test (`workspace.query(...).abstained`, floor `retrieval.min_similarity`, which
   also answers a query whose content words a BM25 hit contains literally) on bench/abstention.py's 40 in-scope
   and 40 out-of-scope questions.
3. Warm `RagWorkspace.query` wall time (ms) over all those queries, median and p95, after one warm-up pass.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from abstention import IN_SCOPE, OUT_OF_SCOPE
from data import dataset
from llm_retrieval import open_workspace

DEFAULT_WORKDIR = Path(__file__).resolve().parent / "results" / "rustbook"

# query -> files where the identifier is introduced / documented (the right first hit is in one of them).
KEYWORDS: dict[str, set[str]] = {
    "rustup": {"ch01-01-installation.md"},
    "Cargo.toml": {"ch01-03-hello-cargo.md"},
    "HashMap::new": {"ch08-03-hash-maps.md"},
    "Vec::new": {"ch08-01-vectors.md"},
    "Rc::clone": {"ch15-04-rc.md"},
    "RefCell<T>": {"ch15-05-interior-mutability.md"},
    "Box<T>": {"ch15-01-box.md"},
    "macro_rules!": {"ch20-05-macros.md"},
    "cargo publish": {"ch14-02-publishing-to-crates-io.md"},
    "thread::spawn": {"ch16-01-threads.md"},
    "mpsc::channel": {"ch16-02-message-passing.md"},
    "Mutex<T>": {"ch16-03-shared-state.md"},
    "Arc<T>": {"ch16-03-shared-state.md"},
    "dyn Trait": {"ch18-02-trait-objects.md"},
    "#[derive(Debug)]": {"ch05-02-example-structs.md", "appendix-03-derivable-traits.md"},
    "RUST_BACKTRACE": {"ch09-01-unrecoverable-errors-with-panic.md"},
    "rustfmt": {"appendix-04-useful-development-tools.md"},
    "clippy": {"appendix-04-useful-development-tools.md"},
    "Deref trait": {"ch15-02-deref.md"},
    "Drop trait": {"ch15-03-drop.md"},
    "unwrap_or_else": {"ch09-02-recoverable-errors-with-result.md",
                       "ch12-03-improving-error-handling-and-modularity.md"},
    "--test-threads": {"ch11-02-running-tests.md"},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    ap.add_argument("--corpus", type=Path, help="the Rust book folder (default: bench/data.py's lookup)")
    args = ap.parse_args(argv)
    args.corpus = dataset("rust-book", args.corpus)
    t0 = time.perf_counter()
    ws = open_workspace(args.workdir, args.corpus)
    report = ws.index()[0]
    print(f"index: {len(report.indexed)} files indexed, {report.chunks_added} chunks added "
          f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    r = ws.settings.retrieval
    results: dict[bool, dict] = {}
    for fb in (False, True):
        r.bm25_feedback = fb
        questions = list(KEYWORDS) + IN_SCOPE + OUT_OF_SCOPE
        for q in questions:  # warm-up
            ws.query(q)
        times = []
        top: dict[str, list[str]] = {}
        bm25_top: dict[str, list[str]] = {}
        absent: dict[str, bool] = {}
        for q in questions:
            res = ws.query(q)
            times.append(res.elapsed_ms)
            top[q] = [h.chunk.path for h in res.hits[:3]]
            absent[q] = res.abstained
            if q in KEYWORDS:
                bm25_top[q] = [h.chunk.path for h in ws.retrieve(q, 3, signals=("bm25",))]
        results[fb] = {"top": top, "bm25": bm25_top, "abstained": absent, "times": times}

    print(f"\nRust book, {len(KEYWORDS)} keyword queries, rag/query defaults (top 3 files; * = right file)")
    print("| query | hybrid, feedback off | hybrid, feedback on | BM25 top 1 off / on |")
    print("|---|---|---|---|")
    for q, right in KEYWORDS.items():
        cells = []
        for fb in (False, True):
            cells.append(", ".join(("*" if p in right else "") + p.removesuffix(".md") for p in results[fb]["top"][q]))
        b = " / ".join(("*" if (results[fb]["bm25"][q][:1] or [""])[0] in right else "")
                       + (results[fb]["bm25"][q][:1] or ["—"])[0].removesuffix(".md") for fb in (False, True))
        print(f"| `{q}` | {cells[0]} | {cells[1]} | {b} |")
    for fb in (False, True):
        first = sum(bool(results[fb]["top"][q]) and results[fb]["top"][q][0] in right
                    for q, right in KEYWORDS.items())
        top3 = sum(bool(set(results[fb]["top"][q]) & right) for q, right in KEYWORDS.items())
        bfirst = sum(bool(results[fb]["bm25"][q]) and results[fb]["bm25"][q][0] in right
                     for q, right in KEYWORDS.items())
        ins = sum(not results[fb]["abstained"][q] for q in IN_SCOPE)
        outs = sum(results[fb]["abstained"][q] for q in OUT_OF_SCOPE)
        kw = sum(not results[fb]["abstained"][q] for q in KEYWORDS)
        t = sorted(results[fb]["times"])
        print(f"feedback {'on ' if fb else 'off'}: right file first {first}/{len(KEYWORDS)} (BM25 alone {bfirst}), "
              f"in top 3 {top3}/{len(KEYWORDS)}; answered {ins}/{len(IN_SCOPE)} in-scope, abstained on "
              f"{outs}/{len(OUT_OF_SCOPE)} out-of-scope, answered {kw}/{len(KEYWORDS)} keyword queries; "
              f"rag/query ms median {statistics.median(t):.1f}, p95 {t[int(0.95 * (len(t) - 1))]:.1f}")
    changed = [q for q in IN_SCOPE + OUT_OF_SCOPE if results[False]["abstained"][q] != results[True]["abstained"][q]]
    for q in changed:
        off, on = results[False]["abstained"][q], results[True]["abstained"][q]
        print(f"  abstention changed: {q!r}: off {off} -> on {on}")
    ws.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
