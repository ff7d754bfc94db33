"""chunking: fenced code blocks kept whole, or split within the size with fence lines balancing every
part, on the file's own lines."""

from __future__ import annotations

from chunkkit import FENCE_RE, assert_covers, assert_exact, doc, fence_ranges, naive_line_starts, without_added_fences
from ragls.index.chunking import chunk_document


def test_fence_kept_whole():
    fence = "```rust\n" + "".join(f"let x{i} = {i};\n" for i in range(40)) + "\n// after blank\n```\n"
    assert 300 < len(fence) < 1000
    text = "# Code\n\n" + "Intro sentence here.\n" * 20 + "\n" + fence + "\nAfter the fence.\n"
    chunks = chunk_document(doc(text, "c.md"), chunk_size=1000, overlap=100)
    assert len(chunks) >= 2
    (fs, fe), = fence_ranges(text)
    holders = [c for c in chunks if text.find(c.text) <= fs and fe <= text.find(c.text) + len(c.text)]
    assert holders, "fence split across chunks"
    for c in chunks:
        assert c.text.count("```") in (0, 2), c.text
    assert_exact(text, chunks)
    assert_covers(text, chunks)


def test_oversized_fence_is_split_within_size():
    fence = "```\n" + "".join(f"line {i:04d} of a very long listing\n" for i in range(200)) + "```\n"
    text = "# Big\n\nBefore.\n\n" + fence + "\nAfter.\n"
    chunks = chunk_document(doc(text, "big.md"), chunk_size=500, overlap=50)
    assert len(chunks) > len(fence) // 500
    assert all(len(c.text) <= 500 for c in chunks)
    assert all(c.title == "Big" for c in chunks)
    assert_exact(text, chunks)
    assert_covers(text, chunks)
    # Split at line starts only.
    starts = set(naive_line_starts(text))
    assert all(c.span.start_char == 0 for c in chunks)
    assert all(text.find(without_added_fences(c.text, c.text.partition("\n")[2].rpartition("\n")[0])) in starts
               for c in chunks)


def test_split_fenced_block_is_balanced_in_every_chunk():
    code = "\n".join(f"let value_{n} = compute({n});" for n in range(60))
    text = f"# Build\n\nIntro text before the code.\n\n```rust\n{code}\n```\n\nAfter the fence: the manatee.\n"
    chunks = chunk_document(doc(text, "b.md"), chunk_size=400, overlap=0)
    assert len(chunks) >= 3
    for c in chunks:
        fences = [ln for ln in c.text.splitlines() if FENCE_RE.match(ln)]
        assert len(fences) % 2 == 0, c.text  # every opened fence is closed in the chunk
        assert c.text.strip() not in ("```", "```rust")
    inner = next(c for c in chunks if "compute(30)" in c.text)
    assert inner.text.startswith("```rust\n") and inner.text.endswith("\n```")
    assert any("manatee" in c.text for c in chunks)


def test_a_chunk_starting_inside_a_code_block_keeps_its_lines_on_the_file_lines():
    """Line k of a chunk's text is line k of its span (how windows and the focus cite a chunk's lines), also for
    a chunk that starts inside a code block: its prepended opening line stands in for the file line before its
    first line of code. The opener was prepended before a span starting on that code line, so every line of the
    chunk, and every focus on it, was cited one line early."""
    code = "\n".join(f"let value_{n} = compute({n});" for n in range(60))
    text = f"# Build\n\nIntro text before the code.\n\n```rust\n{code}\n```\n\nAfter the fence: the manatee.\n"
    lines = text.split("\n")
    chunks = chunk_document(doc(text, "b.md"), chunk_size=400, overlap=0)
    inner = [c for c in chunks if c.text.startswith("```rust\n") and "Intro" not in c.text]
    assert len(inner) >= 2
    for c in chunks:
        own = c.text.split("\n")
        for k, line in enumerate(own):
            if FENCE_RE.match(line) and k in (0, len(own) - 1):
                continue  # an added fence line
            assert lines[c.span.start_line + k] == line, (c.ordinal, k, line)
    second = next(c for c in chunks if "compute(30)" in c.text)
    at = second.text.split("\n").index("let value_30 = compute(30);")
    assert lines[second.span.start_line + at] == "let value_30 = compute(30);"


def test_text_after_an_unterminated_fence_is_still_quoted():
    body = "\n".join(f"echo step {n} of the install script" for n in range(40))
    text = f"# Install\n\nRun this:\n\n~~~~bash\n{body}\n"
    chunks = chunk_document(doc(text, "i.md"), chunk_size=300, overlap=0)
    assert len(chunks) >= 3
    assert chunks[0].text.endswith("Run this:")  # the dangling opener goes to the next chunk
    for c in chunks[1:]:
        assert c.text.startswith("~~~~bash\n") and c.text.endswith("\n~~~~"), c.text
        assert len(c.text) <= 300
    assert_exact(text, chunks)
