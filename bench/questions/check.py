"""Check the dev question sets: every gold span holds its stated answer text, and each kind keeps its promise.

    python bench/questions/check.py                      # check rust-book.jsonl and flask-docs.jsonl
    python bench/questions/check.py --fill FILE.jsonl    # write each gold item's "lines" from its "text" (grep)
    python bench/questions/check.py bench/questions/black-docs.jsonl --corpus black-26.10.1/docs   # a held-out set

A gold item is {"path", "lines": [first, last] (1-based, inclusive), "text"}; "text" is copied from the file
(whitespace runs may differ: line wraps). Checks, per question:
- the text occurs inside lines first..last of the file (the span is where grep finds it, not a guess);
- kind "deep": in every default chunk (2000 characters, 5 % overlap, ragls' own chunker) that holds the answer,
  it starts at least 1,200 characters into the chunk — past what a 256-wordpiece embedding of the chunk sees;
- kind "two-part": at least two gold items; the kinds without an answer ("unanswerable", "near-miss",
  "near-miss-known", "far-off"): no gold item, and no other kind has none.
Lines starting with `//` are comments (as for `ragls eval`); --fill keeps them where they are. A comment
`// kind kept: <id> <reason>` records a question that no longer keeps its kind's promise (the chunker moved its
answer) but keeps its kind because published per-kind figures (bench/history/early-retrieval-quality.md, "Dev sets:
hard developer questions") were measured with it: its failure is printed as a NOTE, not counted; a note on a
question that keeps the promise again is a problem.
The corpus is found by bench/data.py (rust-book / flask-docs; --corpus to override). Exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from data import dataset  # noqa: E402

SETS = {"rust-book.jsonl": "rust-book", "flask-docs.jsonl": "flask-docs"}
KINDS = ("deep", "paraphrase", "identifier", "keyword", "two-part", "unanswerable", "near-miss", "near-miss-known", "far-off")
NO_ANSWER = ("unanswerable", "near-miss", "near-miss-known", "far-off")
DEEP_OFFSET = 1200
_KIND_KEPT = re.compile(r"^\s*//\s*kind kept:\s*(\S+)")


def _normalized(text: str) -> tuple[str, list[int]]:
    """(text with whitespace runs collapsed to one space, original offset of each normalized character)."""
    out, where = [], []
    for m in re.finditer(r"\s+|\S", text):
        out.append(" " if m.group().isspace() else m.group())
        where.append(m.start())
    return "".join(out), where


def locate(text: str, needle: str) -> list[tuple[int, int]]:
    """[(start, end) character offsets in `text`] of every whitespace-insensitive occurrence of `needle`."""
    hay, where = _normalized(text)
    pin = " ".join(needle.split())
    found, pos = [], hay.find(pin)
    while pos >= 0:
        found.append((where[pos], where[pos + len(pin) - 1] + 1))
        pos = hay.find(pin, pos + 1)
    return found


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def chunk_offsets(root: Path, rel: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the file's default ragls chunks: where its text is found in the file's,
    else (a chunk whose text is not the file's word for word: HTML blocks read as Markdown) from its span."""
    from ragls.index.chunking import chunk_document
    from ragls.sources.load import load_file

    doc = load_file(root, rel, 5_000_000)
    line_starts = [0] + [i + 1 for i, ch in enumerate(doc.text) if ch == "\n"]

    def at(line: int, char: int) -> int:  # a span position as an offset into the text (columns read as code points)
        return line_starts[line] + char if line < len(line_starts) else len(doc.text)

    out, cursor = [], 0
    for c in chunk_document(doc):
        start = doc.text.find(c.text, max(0, cursor - len(c.text)))
        if start < 0:
            start = doc.text.find(c.text)
        if start >= 0:
            end = start + len(c.text)
        else:  # its text is not the file's word for word (a Markdown HTML block read as Markdown): its span says where
            start, end = at(c.span.start_line, c.span.start_char), at(c.span.end_line, c.span.end_char)
        out.append((start, end))
        cursor = end
    return out


def check_file(path: Path, root: Path, fill: bool) -> list[str]:
    """Problems found in one question file (with `fill`, missing or wrong "lines" are rewritten first)."""
    problems, rows, kinds, lines_out = [], [], {}, []
    texts: dict[str, str] = {}
    kept: dict[str, bool] = {}  # question id of a `// kind kept:` note -> whether its kind's check failed
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("//"):
            if m := _KIND_KEPT.match(raw):
                kept[m.group(1)] = False
            lines_out.append(raw)
            continue
        q = json.loads(raw)
        rows.append(q)
        lines_out.append(q)
        where = f"{path.name}:{n} {q.get('id')}"
        kind = q.get("kind")
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind not in KINDS:
            problems.append(f"{where}: unknown kind {kind!r}")
        gold = q.get("gold", [])
        if (kind in NO_ANSWER) != (not gold):
            problems.append(f"{where}: questions without an answer ({'/'.join(NO_ANSWER)}), and only they, have no gold")
        if kind == "two-part" and len(gold) < 2:
            problems.append(f"{where}: a two-part question needs two gold items")
        for item in gold:
            if isinstance(item, str):  # "path" or "path:first-last" (docs/evaluation.md): no text to locate
                rel, _, span = item.partition(":")
                if not (root / rel).is_file():
                    problems.append(f"{where}: gold file not found: {rel}")
                elif span and int(span.split("-")[-1]) > len((root / rel).read_text(encoding="utf-8").splitlines()):
                    problems.append(f"{where}: lines {span} past the end of {rel}")
                continue
            rel = item["path"]
            if rel not in texts:
                texts[rel] = (root / rel).read_text(encoding="utf-8")
            text = texts[rel]
            spots = locate(text, item["text"])
            if not spots:
                problems.append(f"{where}: text not found in {rel}: {item['text'][:60]!r}")
                continue
            if fill:
                start, end = spots[0]
                item["lines"] = [line_of(text, start), line_of(text, end - 1)]
                if len(spots) > 1:
                    print(f"note: {where}: text occurs {len(spots)} times in {rel}; took the first", file=sys.stderr)
            first, last = item.get("lines") or (0, -1)
            inside = [(s, e) for s, e in spots if first <= line_of(text, s) and line_of(text, e - 1) <= last]
            if not inside:
                problems.append(f"{where}: lines {first}-{last} of {rel} do not hold the text")
                continue
            if kind == "deep":
                s, e = inside[0]
                depths = [s - cs for cs, ce in chunk_offsets(root, rel) if cs <= s and e <= ce]
                if not depths or min(depths) < DEEP_OFFSET:
                    found = f"{where}: deep answer only {min(depths, default=-1)} characters into its chunk"
                    if q.get("id") in kept:
                        kept[q["id"]] = True
                        print(f"NOTE {found} (kind kept, see the file's header)")
                    else:
                        problems.append(found)
    problems += [f"{path.name}: '// kind kept: {qid}' but {qid} keeps its kind's promise (or does not exist): drop "
                 "the note" for qid, failed in kept.items() if not failed]
    if fill:
        path.write_text(
            "".join((q if isinstance(q, str) else json.dumps(q, ensure_ascii=False)) + "\n" for q in lines_out),
            encoding="utf-8",
        )
    print(f"{path.name}: {len(rows)} questions, " + ", ".join(f"{k} {kinds.get(k, 0)}" for k in KINDS))
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="question files (default: the sets in bench/questions)")
    ap.add_argument("--fill", action="store_true", help="write each gold item's lines from its text first")
    ap.add_argument("--corpus", type=Path, help="the corpus folder (default: bench/data.py by file name)")
    args = ap.parse_args()
    files = args.files or [HERE / name for name in SETS]
    problems = []
    for f in files:
        root = dataset(SETS.get(f.name, "rust-book"), args.corpus)
        problems += check_file(f, root, args.fill)
    for p in problems:
        print("FAIL", p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
