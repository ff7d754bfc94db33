"""sources.load: decoding (UTF-8, BOM, cp1252/latin-1, UTF-16), skips (binary, too large, vanished, unreadable)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from privileges import unprivileged
from ragls.core.errors import Skipped
from ragls.core.ir import Document
from ragls.index.chunking import chunk_document
from ragls.sources.load import OUTSIDE_LINK, decode_bytes, kind_for, load_file, load_text, read_bytes


def test_utf8_document_fields(tmp_path):
    raw = "# Títle\n\nSome text ✓\n".encode()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_bytes(raw)
    d = load_file(tmp_path, "docs/a.md", 1000)
    assert isinstance(d, Document)
    st = os.stat(tmp_path / "docs" / "a.md")
    assert d.text == "# Títle\n\nSome text ✓\n"
    assert d.path == "docs/a.md" and d.folder == str(tmp_path)
    assert d.kind == "markdown"
    assert d.content_hash == hashlib.sha256(raw).hexdigest()
    assert d.size == len(raw) == 24
    assert d.mtime_ns == st.st_mtime_ns


def test_bom_is_stripped_but_hashed(tmp_path):
    raw = b"\xef\xbb\xbfline one\r\nline two\r\n"
    (tmp_path / "b.txt").write_bytes(raw)
    d = load_file(tmp_path, "b.txt", 1000)
    assert d.text == "line one\r\nline two\r\n"
    assert d.content_hash == hashlib.sha256(raw).hexdigest()
    assert d.size == len(raw)
    (chunk,) = chunk_document(d)
    assert (chunk.span.start_line, chunk.span.start_char, chunk.span.end_line, chunk.span.end_char) == (0, 0, 1, 8)


def test_latin1_and_cp1252_fallback_keeps_lines(tmp_path):
    raw = "café\r\nnaïve – “quoted” €\rend\n".encode("cp1252") + b"\x81\x8d\x8f\x90\x9d\n"
    (tmp_path / "l.txt").write_bytes(raw)
    d = load_file(tmp_path, "l.txt", 1000)
    assert d.text == "café\r\nnaïve – “quoted” €\nend\n\x81\x8d\x8f\x90\x9d\n"  # the lone CR read as a line end
    assert d.content_hash == hashlib.sha256(raw).hexdigest()
    chunks = chunk_document(d)
    (chunk,) = chunks
    assert (chunk.span.end_line, chunk.span.end_char) == (3, 5)  # "\r\n" and lone "\r" both end a line


def test_decode_bytes_variants():
    assert decode_bytes(b"plain") == "plain"
    assert decode_bytes(b"\xef\xbb\xbfbom") == "bom"
    assert decode_bytes("utf-16 ✓\r\n".encode("utf-16")) == "utf-16 ✓\r\n"
    assert decode_bytes(b"\xe9t\xe9") == "été"
    assert decode_bytes(b"\x80") == "€"
    every = decode_bytes(bytes(range(256)))
    assert len(every) == 256
    # no byte turns into another line break; the CR (followed by 0x0E) is a lone one: a "\n" at its offset
    assert every.count("\n") == 2 and every.count("\r") == 0 and every[13] == "\n"
    assert "\x85" not in every and "\u2028" not in every
    assert decode_bytes(bytes(range(256)), keep_lone_cr=True)[13] == "\r"


@pytest.mark.parametrize("raw, text", [
    (b"a\rb\r\nc\rd\r", "a\nb\r\nc\nd\n"),  # a lone CR -> "\n", a CRLF kept
    (b"\xe9\rx", "é\nx"),  # the code-page fallback too
    ("a\rb".encode("utf-16"), "a\nb"),  # and UTF-16
    (b"\r\r\n\r", "\n\r\n\n"),
])
def test_decode_bytes_reads_a_lone_cr_as_a_line_end(raw, text):
    """One line model (`ir.normalize_line_ends`): the chunker, LineIndex and markdown-it count a lone CR as a line
    end, the readers of chunk text split at "\\n"; the text is the same length, so offsets and lines stay."""
    assert decode_bytes(raw) == text
    assert len(decode_bytes(raw)) == len(decode_bytes(raw, keep_lone_cr=True))


def test_text_given_as_a_string_and_a_users_question_read_a_lone_cr_as_a_line_end(tmp_path):
    """Text that is no file's bytes (a page fetched with its charset, a command's output: `load_text`) and a user's
    text (the question holding an editor's selection: `user_text`) arrive with the same line model as files."""
    from ragls.workspace.request_input import user_text

    assert load_text("page.md", "\ufeff# A\rb\r\n").text == "# A\nb\r\n"
    assert user_text("Why?\n```\nx = 1\ry = 2\n```", False) == "Why?\n```\nx = 1\ny = 2\n```"
    assert user_text(["not text"], True) == ["not text"]
    (tmp_path / "mac.md").write_bytes(b"# T\rone\rtwo\r")
    d = load_file(tmp_path, "mac.md", 1000)
    assert d.text == "# T\none\ntwo\n" and d.content_hash == hashlib.sha256(b"# T\rone\rtwo\r").hexdigest()
    assert [c.span.end_line for c in chunk_document(d)] == [2]


def test_utf16_file_with_bom_is_text(tmp_path):
    raw = "héllo\nwörld\n".encode("utf-16")
    (tmp_path / "u.txt").write_bytes(raw)
    d = load_file(tmp_path, "u.txt", 1000)
    assert isinstance(d, Document) and d.text == "héllo\nwörld\n"


def test_binary_is_skipped(tmp_path):
    (tmp_path / "img.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert load_file(tmp_path, "img.md", 1000) == Skipped("img.md", "binary (NUL byte in first 8 KB)")
    (tmp_path / "late.txt").write_bytes(b"a" * 8192 + b"\x00")
    late = load_file(tmp_path, "late.txt", 100_000)
    assert isinstance(late, Document) and late.text.endswith("\x00")


def test_random_bytes_without_nul_are_binary_and_legacy_text_is_not(tmp_path):
    import random

    noise = bytes(b for b in random.Random(7).randbytes(30_000) if b)[:20_000]  # no NUL: git's rule calls it text
    (tmp_path / "blob.txt").write_bytes(noise)
    assert load_file(tmp_path, "blob.txt", 100_000) == \
        Skipped("blob.txt", "binary (not UTF-8, control bytes in first 8 KB)")
    for name, text, codec in (("fr.txt", "Le café est très chaud.\n", "cp1252"),
                              ("ru.txt", "Привет, как дела? Всё хорошо.\n", "cp1251"),
                              ("el.txt", "Καλημέρα κόσμε.\n", "cp1253")):
        (tmp_path / name).write_bytes((text * 400).encode(codec))  # a legacy code page, most bytes >= 0x80
        assert isinstance(load_file(tmp_path, name, 100_000), Document), name
    cut = ("a" * 8191 + "é" + "b" * 100).encode()  # a UTF-8 character cut by the 8 KB probe
    (tmp_path / "cut.md").write_bytes(cut)
    assert isinstance(load_file(tmp_path, "cut.md", 100_000), Document)


def test_too_large_is_skipped(tmp_path):
    (tmp_path / "big.md").write_bytes(b"x" * 11)
    assert load_file(tmp_path, "big.md", 10) == Skipped("big.md", "too large (11 bytes > max_file_bytes 10)")
    assert isinstance(load_file(tmp_path, "big.md", 11), Document)


def test_vanished_file(tmp_path):
    assert load_file(tmp_path, "gone.md", 1000) == Skipped("gone.md", "vanished while reading")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    assert load_file(tmp_path, "dangling.md", 1000).reason == "vanished while reading"


def test_unreadable_and_not_regular(tmp_path):
    (tmp_path / "dir.md").mkdir()
    assert load_file(tmp_path, "dir.md", 1000) == Skipped("dir.md", "not a regular file")
    (tmp_path / "file.md").write_text("x")
    assert load_file(tmp_path, "file.md/x.md", 1000) == Skipped("file.md/x.md", "unreadable: Not a directory")
    (tmp_path / "loop.md").symlink_to(tmp_path / "loop.md")
    assert load_file(tmp_path, "loop.md", 1000) == Skipped("loop.md", "unreadable: Too many levels of symbolic links")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_skipped_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.md")
    assert load_file(tmp_path, "pipe.md", 1000) == Skipped("pipe.md", "not a regular file")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_unreadable_permission(tmp_path):
    """A mode 000 file, refused by the kernel (as root: in a process without CAP_DAC_*, tests/privileges.py)."""
    (tmp_path / "secret.md").write_text("x")
    (tmp_path / "secret.md").chmod(0)
    script = ("import sys; from pathlib import Path; from ragls.sources.load import load_file; "
              "print(load_file(Path(sys.argv[1]), 'secret.md', 1000))")
    proc = subprocess.run(unprivileged([sys.executable, "-c", script, str(tmp_path)]), capture_output=True,
                          text=True, check=True)
    assert proc.stdout.strip() == repr(Skipped("secret.md", "unreadable: Permission denied"))


@pytest.mark.parametrize("path,kind", [
    ("a.md", "markdown"), ("b/c.MARKDOWN", "markdown"), ("x.mdx", "markdown"), ("r.rst", "text"),
    ("n.txt", "text"), ("d.adoc", "text"), ("o.org", "text"), ("LICENSE", "text"), ("s.py", "code"),
    ("x.tsx", "code"), ("m.go", "code"), ("lib.rs", "code"), ("c.yaml", "code"), ("p.json", "code"),
    ("Makefile", "code"), ("h.hpp", "code"), ("w.weird", "text"),
])
def test_kind_for(path, kind):
    assert kind_for(path) == kind


def test_load_text():
    d = load_text("https://example.com/page.md", "\ufeff# Hi\n", folder="/ws")
    assert d.text == "# Hi\n"
    assert d.kind == "markdown" and d.folder == "/ws" and d.mtime_ns == 0
    assert d.content_hash == hashlib.sha256(b"# Hi\n").hexdigest() and d.size == 5
    assert load_text("`git log`", "abc").kind == "text"


def test_confined_read_judges_the_file_opened(tmp_path):
    # a link inside the folder is read; one out of it (or through a linked folder out of it) is not, when confined
    folder, outside = tmp_path / "docs", tmp_path / "outside"
    folder.mkdir(), outside.mkdir()
    (outside / "key.md").write_text("# Key\n\nxylophonequark\n")
    (folder / "real.md").write_text("# Real\n\nThe heron.\n")
    (folder / "in.md").symlink_to(folder / "real.md")
    (folder / "out.md").symlink_to(outside / "key.md")
    (folder / "sub").symlink_to(outside)
    assert load_file(folder, "in.md", 1000, confined=True).text == "# Real\n\nThe heron.\n"
    assert load_file(folder, "out.md", 1000, confined=True) == Skipped("out.md", OUTSIDE_LINK)
    assert load_file(folder, "sub/key.md", 1000, confined=True) == Skipped("sub/key.md", OUTSIDE_LINK)
    assert "xylophonequark" in load_file(folder, "out.md", 1000).text  # unconfined: a sources RAG's own choice
    assert read_bytes(folder / "out.md", "out.md", 1000, folder) == Skipped("out.md", OUTSIDE_LINK)
