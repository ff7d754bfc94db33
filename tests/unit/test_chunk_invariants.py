"""chunking: every invariant (exact spans, nothing lost, sizes, ordinals, whole fences) on a real corpus
(the Rust book, LF and CRLF) and on random documents of every kind."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from bench_datasets import dataset_or_skip
from chunkkit import assert_covers, assert_exact, doc, fence_ranges, naive_line_starts, naive_offset
from ragls.core.ir import Document
from ragls.index.chunking import chunk_document
from ragls.sources.load import load_file

# -- property check on a real corpus --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rust_book(tmp_path_factory) -> Path:
    book = dataset_or_skip("rust-book")
    dest = tmp_path_factory.mktemp("rust-book")
    for p in sorted(book.iterdir()):
        if p.is_file():
            shutil.copyfile(p, dest / p.name)
            crlf = p.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
            (dest / f"crlf-{p.name}").write_bytes(crlf)
    return dest


@pytest.mark.parametrize("chunk_size,overlap", [(2000, 100), (500, 50)])
def test_rust_book_chunks_are_exact(rust_book, chunk_size, overlap):
    files = sorted(p.name for p in rust_book.iterdir())
    assert len(files) > 200
    total = 0
    for name in files:
        d = load_file(rust_book, name, 2_000_000)
        assert isinstance(d, Document), d
        chunks = chunk_document(d, chunk_size, overlap)
        assert chunks, name
        total += len(chunks)
        assert_exact(d.text, chunks, markdown=d.kind == "markdown")
        assert_covers(d.text, chunks, markdown=d.kind == "markdown")
        assert all(0 < len(c.text) <= chunk_size for c in chunks), name
        assert [c.ordinal for c in chunks] == list(range(len(chunks)))
        if d.kind == "markdown" and not name.startswith("crlf-"):
            starts = naive_line_starts(d.text)  # each chunk's span (its text may hold HTML blocks read as Markdown)
            spans = [(naive_offset(d.text, starts, c.span.start_line, c.span.start_char),
                      naive_offset(d.text, starts, c.span.end_line, c.span.end_char)) for c in chunks]
            # markdown with code blocks is packed smaller by the room its balancing fence lines may need
            reserve = max((2 * len(m.group(0).strip()) + 2 for m in re.finditer(
                r"^ {0,3}(?:`{3,}|~{3,})[^\r\n]*", d.text, re.MULTILINE)), default=0)
            for fs, fe in fence_ranges(d.text):
                if fe - fs <= chunk_size - overlap - reserve:
                    assert any(s <= fs and fe <= e for s, e in spans), (name, fs)
    assert total > len(files)


def random_text(rng) -> str:
    pieces = []
    for _ in range(rng.randint(5, 120)):
        r = rng.random()
        if r < 0.1:
            pieces.append("")  # blank line
        elif r < 0.15:
            pieces.append("```\n" + "\n".join("code " * rng.randint(0, 9) for _ in range(rng.randint(1, 40))) + "\n```")
        elif r < 0.2:
            pieces.append("#" * rng.randint(1, 4) + " Heading " + str(rng.randint(0, 99)))
        elif r < 0.25:
            pieces.append("x" * rng.randint(100, 1500))  # long line
        elif r < 0.3:
            pieces.append("😀é " * rng.randint(1, 200))
        elif r < 0.33:
            pieces.append(" \t " * rng.randint(1, 100))  # whitespace-only line
        else:
            pieces.append(" ".join(rng.choice(["word", "retry", "ä", "z"]) for _ in range(rng.randint(1, 30))))
    eol = rng.choice(["\n", "\r\n", "\r"])
    return eol.join(pieces) + rng.choice(["", eol, eol * 3])


@pytest.mark.parametrize("kind,path", [("markdown", "r.md"), ("text", "r.txt"), ("code", "r.py")])
def test_random_documents_keep_all_invariants(kind, path):
    import random

    rng = random.Random(20240611)
    for _ in range(60):
        text = random_text(rng)
        size = rng.choice([100, 250, 700, 2000])
        overlap = rng.choice([0, 10, size // 20, size // 2])
        chunks = chunk_document(doc(text, path, kind), chunk_size=size, overlap=overlap)
        assert_exact(text, chunks)
        assert_covers(text, chunks)
        assert all(0 < len(c.text) <= size and c.text.strip() for c in chunks)
        assert [c.ordinal for c in chunks] == list(range(len(chunks)))
