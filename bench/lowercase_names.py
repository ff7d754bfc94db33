"""Which lower-case words of a question set `names.question_names` calls names (`lowercase_name`: in no English
dictionary; or the means asked about, after "with"/"using"/"via"/"use"), and which of those no file of
the corpus holds (the `absent_name` test, without building an index): a fast check of the rule on every question.

    python bench/lowercase_names.py bench/questions/rust-book.jsonl ../shared/corpora/rust-book
    python bench/lowercase_names.py bench/questions/names-probe.jsonl --corpora aiohttp-docs=DIR rust-book=DIR ...

A line with a "corpus" field is asked of that corpus (`--corpora NAME=DIR`); the others of the positional corpus.
A name is absent when one of its BM25 terms (`analysis.stems`) is in no .md/.rst/.txt file of the corpus (a chunk
holds a word only when its file does). Prints one line per question with a lower-case name: id, kind, the
names, and which are absent ("ABSENT"), then per kind how many questions have an absent lower-case name.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from ragls.core.analysis import stems  # noqa: E402
from ragls.retrieval.names import _LOWER_WORDS, question_names  # noqa: E402

SUFFIXES = {".md", ".rst", ".txt", ".markdown"}


def corpus_terms(root: Path) -> set[str]:
    """Every BM25 term of the corpus' text files."""
    out: set[str] = set()
    for path in root.rglob("*"):
        if path.suffix in SUFFIXES and path.is_file():
            out.update(stems(path.read_text(encoding="utf-8", errors="replace")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("questions")
    ap.add_argument("corpus", nargs="?")
    ap.add_argument("--corpora", nargs="*", default=[], help="NAME=DIR for lines with a 'corpus' field")
    args = ap.parse_args()
    roots = dict(c.split("=", 1) for c in args.corpora)
    terms: dict[str, set[str]] = {}
    per_kind: Counter = Counter()
    flagged: Counter = Counter()
    for line in Path(args.questions).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        q = json.loads(line)
        root = roots.get(q.get("corpus", ""), args.corpus)
        have = terms.get(root) or terms.setdefault(root, corpus_terms(Path(root)))
        per_kind[q["kind"]] += 1
        names = [n for n in question_names(q["question"]) if _LOWER_WORDS.fullmatch(n)]  # in no dictionary, or the means
        if not names:
            continue
        absent = [n for n in names if any(t not in have for t in stems(n))]
        flagged[q["kind"]] += bool(absent)
        print(q["id"], q["kind"], " ".join(n + (" ABSENT" if n in absent else "") for n in names), sep="\t")
    for kind, n in sorted(per_kind.items()):
        print(f"{kind:16s} {flagged[kind]}/{n} with an absent lower-case name")


if __name__ == "__main__":
    main()
