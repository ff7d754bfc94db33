"""Time of the secret masker (`sources/redact.py`, `mask_secrets`) on whole files, as indexing calls it.

    python bench/redact.py FILE_OR_DIR... [--one-line] [--repeat 3]

Each file (a folder: its .md/.rst/.txt/.html/.js/.json/.css files, concatenated) is masked `--repeat` times; prints
its size, lines, masked values and the fastest run. `--one-line` first turns every line break into a space: the
shape of a minified bundle or a one-line JSON document, where rules bounded by the line end see one endless line.
The masker should stay near-linear in the size whatever the shape (issue: 3.6 s on a 1.6 MB single line).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ragls.sources.redact import mask_secrets

_TYPES = {".md", ".rst", ".txt", ".html", ".js", ".json", ".css", ".map"}


def _text(path: Path) -> str:
    if path.is_dir():
        return "\n".join(p.read_text("utf-8", "replace") for p in sorted(path.rglob("*"))
                         if p.is_file() and p.suffix.lower() in _TYPES)
    return path.read_text("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--one-line", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    for path in args.paths:
        text = _text(path)
        if args.one_line:
            text = text.replace("\r", " ").replace("\n", " ")
        best, masked = float("inf"), 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            masked = mask_secrets(text)[1]
            best = min(best, time.perf_counter() - t0)
        print(f"{path.name}: {len(text) / 1e6:.2f} M chars, {text.count(chr(10)) + 1} lines, {masked} masked, "
              f"{best:.2f} s ({best / max(len(text), 1) * 1e6:.2f} s per M chars)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
