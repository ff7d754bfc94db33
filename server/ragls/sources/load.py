"""One workspace file (or in-memory text) -> `Document`, or `Skipped` with the reason.

Text is decoded as UTF-8 (a BOM is stripped). A UTF-8 file with a stray invalid byte is decoded line by line (the
byte becomes U+FFFD, the rest of the file stays UTF-8); a file with no UTF-8 at all falls back to a single-byte
decoding that never fails (cp1252, with latin-1 for the five bytes cp1252 leaves undefined). Line breaks stay where
they were, so line numbers always match the file on disk; a lone CR (an old Mac line end) arrives as "\\n" at the same
offset (`core.ir.normalize_line_ends`: the one line model every reader of the text shares).
"""

from __future__ import annotations

import codecs
import math
import os
import re
import stat
import string
import zlib
from collections import Counter
from pathlib import Path, PurePosixPath

from ragls.core.errors import Skipped
from ragls.core.hashing import content_hash
from ragls.core.ir import Document, normalize_line_ends
from ragls.core.uris import key_path

BINARY_PROBE_BYTES = 8192

MARKDOWN_EXTENSIONS = frozenset({"md", "markdown", "mdx", "mkd", "mdown"})
CODE_EXTENSIONS = frozenset({
    "py", "pyi", "js", "mjs", "cjs", "ts", "mts", "cts", "tsx", "jsx", "go", "rs", "java", "kt", "kts", "scala",
    "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "cs", "fs", "rb", "php", "lua", "sh", "bash", "zsh", "fish",
    "ps1", "pl", "pm", "r", "jl", "swift", "m", "mm", "dart", "ex", "exs", "erl", "hs", "ml", "mli", "clj", "el",
    "vim", "sql", "toml", "yaml", "yml", "json", "jsonc", "xml", "html", "htm", "css", "scss", "sass", "less",
    "vue", "svelte", "zig", "nim", "proto", "graphql", "gradle", "cmake", "mk", "ini", "cfg", "conf", "tf",
})
CODE_FILENAMES = frozenset({"makefile", "dockerfile", "justfile", "rakefile", "gemfile", "cmakelists.txt"})

# cp1252 with the bytes it leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) decoded as latin-1: never fails.
_CP1252_TABLE = "".join(
    bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in range(256)
)
_BOMS_UTF16 = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# A well-formed multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
                             rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}"
                             rb"|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}")


# A fragment's last extension: `name.rst.inc` is reST that a page includes (`.. include::`), read as its own
# extension says (`markup_extension`).
FRAGMENT_EXTENSIONS = frozenset({"inc"})


def markup_extension(path: str) -> str:
    """The lower-case extension that says how the file at `path` (a path or key) is read, without the dot ("" when
    none): its last one ("md", "rst"), but the one before it for an include fragment (`usage/init.rst.inc` -> "rst",
    FRAGMENT_EXTENSIONS), which is the markup the including page is written in."""
    name = PurePosixPath(key_path(path).replace("\\", "/")).name.lower()
    stem, dot, ext = name.rpartition(".")
    if dot and ext in FRAGMENT_EXTENSIONS and "." in stem:
        return stem.rpartition(".")[2]
    return ext if dot else ""


def kind_for(path: str) -> str:
    """The chunker kind of a path by its extension (`markup_extension`): "markdown", "code", or "text" (rst, txt,
    adoc, org, unknown)."""
    name = PurePosixPath(key_path(path).replace("\\", "/")).name.lower()
    ext = markup_extension(path)
    if ext in MARKDOWN_EXTENSIONS:
        return "markdown"
    if ext in CODE_EXTENSIONS or name in CODE_FILENAMES:
        return "code"
    return "text"


def decode_bytes(data: bytes, keep_lone_cr: bool = False) -> str:
    """Decode file bytes: UTF-8 (BOM stripped), UTF-16 when it starts with a UTF-16 BOM. Bytes that are not valid
    UTF-8 are decoded line by line when the file holds UTF-8 elsewhere: a line with UTF-8 sequences keeps them and
    gets U+FFFD for its stray bytes, a line without any is read as cp1252/latin-1; a file without any UTF-8
    sequence is read wholly as cp1252/latin-1 (a legacy code page). Never raises; the result has the same line
    breaks as the bytes, a lone CR as "\\n" (`normalize_line_ends`: same length, same lines) unless
    `keep_lone_cr` (git's diff text and file names, where a CR is a character of the line or name)."""
    text = _decode(data)
    return text if keep_lone_cr else normalize_line_ends(text)


def _decode(data: bytes) -> str:
    """`decode_bytes` without the line model: the characters the bytes hold."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    elif data.startswith(_BOMS_UTF16):
        try:
            return data.decode("utf-16").lstrip("\ufeff")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    lines = data.splitlines(keepends=True)
    if not any(_UTF8_MULTIBYTE.search(line) for line in lines):
        return _single_byte(data)  # a legacy code-page file: no UTF-8 sequence anywhere
    # UTF-8 with stray bytes (a pasted cp1252 line, a truncated character): decide line by line, so one bad byte
    # never turns the rest of the file into mojibake.
    out = []
    for line in lines:
        try:
            out.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            if _UTF8_MULTIBYTE.search(line):
                out.append(line.decode("utf-8", errors="replace"))  # UTF-8 words kept, the stray byte -> U+FFFD
            else:
                out.append(_single_byte(line))  # a whole line in cp1252 ("café" pasted from an old file)
    return "".join(out)


def _single_byte(data: bytes) -> str:
    return codecs.charmap_decode(data, "strict", _CP1252_TABLE)[0]


# Bytes that no text file holds, in any code page: C0 controls but tab, newline, form feed, carriage return, backspace
# and escape (ANSI colours), and DEL. Random or compressed bytes hold about 10 % of them (26 of 256 values).
_CONTROL_BYTES = frozenset(range(0x20)) - {0x08, 0x09, 0x0A, 0x0C, 0x0D, 0x1B} | {0x7F}
CONTROL_SHARE = 0.05  # half of random bytes' share; text in UTF-8, cp1252, cp1251 or any other code page holds ~0


def binary_reason(data: bytes) -> str | None:
    """Why `data` (a file's bytes) is binary, or None for text. Looks at the first BINARY_PROBE_BYTES (8 KB): a NUL
    byte (git's heuristic), except in UTF-16 text with a BOM; or, when those bytes are not UTF-8, more than
    CONTROL_SHARE (5 %) of them control bytes (`_CONTROL_BYTES`, the "odd characters" of Perl's -B heuristic without
    its high bytes, which a Greek or Cyrillic code page is made of): random or compressed bytes without a NUL, which
    the cp1252 fallback of `decode_bytes` would otherwise read as text."""
    if data.startswith(_BOMS_UTF16):
        return None
    head = data[:BINARY_PROBE_BYTES]
    if b"\0" in head:
        return "binary (NUL byte in first 8 KB)"
    try:
        head.decode("utf-8")
        return None
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3 and len(data) > len(head):  # a character cut by the 8 KB probe
            return None
    if sum(1 for b in head if b in _CONTROL_BYTES) > CONTROL_SHARE * len(head):
        return "binary (not UTF-8, control bytes in first 8 KB)"
    return None


def is_binary(data: bytes) -> bool:
    """True when `binary_reason(data)` names a reason (a NUL byte, or control bytes in text that is not UTF-8)."""
    return binary_reason(data) is not None


# Degenerate text (`degenerate_reason`): judged only in a text this long (about five chunks; a shorter one costs
# little to embed, and a few characters' statistics say nothing).
DEGENERATE_MIN_CHARS = 10_000
# Bits per character (Shannon, over characters) below which a text is too uniform to be prose or code: the dev
# corpora's 4,123 documentation files measure 2.8 (a CLI reference of option tables) to 5 (session 58); one letter
# repeated is 0, two letters at random 1.
MIN_BITS_PER_CHAR = 1.5
ENTROPY_SAMPLE_CHARS = 65_536  # characters the entropy is measured over: four slices spread over the text
# zlib (level 1) compression ratio above which a text is one thing repeated: the same files compress 2x to 12x (an
# SVG, a colour table), a table of 5,000 numbered rows 18x; a line or table row repeated 5,000 times 135x to 230x.
MAX_COMPRESSION_RATIO = 50
# A run of this many printable ASCII characters without a space, at least half of them letters or digits, is no
# prose (base64, hex, minified code, a data: URI); a text that is mostly (BLOB_SHARE) such runs has no words to
# search. Real pages hold long runs too (a line of links, a base64 certificate in a YAML example: up to 41 % of a
# 40 kB page of the dev corpora), so only a text nearly all made of them is judged degenerate.
BLOB_RUN_CHARS = 256
BLOB_SHARE = 0.9
_BLOB_RUN = re.compile(rf"[!-~]{{{BLOB_RUN_CHARS},}}")
_DROP_ALNUM = str.maketrans("", "", string.ascii_letters + string.digits)


def degenerate_reason(text: str) -> str | None:
    """Why `text` (a decoded document of at least DEGENERATE_MIN_CHARS characters) is not worth embedding, or None:
    "degenerate text (…)" for too few distinct characters (under MIN_BITS_PER_CHAR bits per character: one letter
    repeated over a 2 MB line was ~950 chunks to embed), one thing repeated (compresses over MAX_COMPRESSION_RATIO
    times), or no word breaks (over BLOB_SHARE of it in runs of BLOB_RUN_CHARS characters without a space: minified
    or encoded data). Linear time; a few tens of milliseconds for 2 MB."""
    n = len(text)
    if n < DEGENERATE_MIN_CHARS:
        return None
    step = max(1, n // 4)
    sample = "".join(text[i:i + ENTROPY_SAMPLE_CHARS // 4] for i in range(0, n, step)[:4])
    counts = Counter(sample)
    bits = -sum(c / len(sample) * math.log2(c / len(sample)) for c in counts.values())
    if bits < MIN_BITS_PER_CHAR:
        return f"degenerate text (too few distinct characters: {abs(bits):.1f} bits per character)"
    data = text.encode("utf-8", "surrogatepass")
    ratio = len(data) / len(zlib.compress(data, 1))
    if ratio > MAX_COMPRESSION_RATIO:
        return f"degenerate text (repetitive: compresses {ratio:.0f} times)"
    spaces = sum(text.count(c) for c in " \n\t\r")
    if spaces <= n * (1 - BLOB_SHARE) + n / BLOB_RUN_CHARS:  # else the runs cannot make up BLOB_SHARE of it
        runs = (m.group() for m in _BLOB_RUN.finditer(text))
        blob = sum(len(r) for r in runs if len(r.translate(_DROP_ALNUM)) * 2 <= len(r))
        if blob >= BLOB_SHARE * n:
            return (f"degenerate text (no word breaks: {blob / n:.0%} in runs of {BLOB_RUN_CHARS}+ characters "
                    f"without a space, such as minified code or encoded data)")
    return None


OUTSIDE_LINK = "symlink to a file outside the indexed folder (sources.follow_outside_links)"


def inside_folder(folder: Path, path: Path) -> str | None:
    """The path rule of every surface (indexing, rag/query hits, read_passage, MCP resources, HTTP): the real path
    of `path` (symlinks and `..` resolved) relative to the real path of `folder`, "/"-separated, when it lies
    inside the folder; None when it lies outside (or is the folder itself, or cannot be resolved). A relative
    `path` is taken relative to `folder`."""
    try:
        real = Path(os.path.realpath(Path(folder) / path))
        rel = real.relative_to(os.path.realpath(folder)).as_posix()
    except (ValueError, OSError, RuntimeError):
        return None
    return None if rel in ("", ".") else rel


def os_error_skip(rel_path: str, exc: OSError, vanished: str = "vanished while reading") -> Skipped:
    """Why a listed file that raised `exc` when it was stat'ed or read is skipped: `vanished` for a file deleted since
    it was listed (FileNotFoundError), else "unreadable: <OS error>" (permission denied, I/O error, ...). The one
    mapping of file errors to skip reasons (readers, loaders, a sources RAG's scan); both reasons start with a
    `convert.UNSTAMPED` prefix, so the file is read again at the next scan."""
    if isinstance(exc, FileNotFoundError):
        return Skipped(rel_path, vanished)
    return Skipped(rel_path, f"unreadable: {exc.strerror or exc}")


def read_bytes(path: Path, rel_path: str, max_file_bytes: int,
               inside: Path | None = None) -> tuple[bytes, int] | Skipped:
    """(bytes, mtime_ns) of the regular file `path` within `max_file_bytes`, or Skipped(rel_path, reason): "too
    large (...)", "vanished while reading", "not a regular file" (a FIFO would block open(), a device never ends),
    "unreadable: <OS error>", and with `inside` (a folder) `OUTSIDE_LINK` when the file opened lies outside it.
    Never raises for file problems.

    What is judged is the file as opened, not its name looked up before: the walk lists a name and its file is read
    later, and a name swapped in between for a link out of the folder (`notes.md -> ~/.ssh/id_rsa`) or for a FIFO
    (whose open() would block the indexer for good) is refused, not read. The open never blocks (O_NONBLOCK) and
    the type and place are checked on the open descriptor (`opened_path`)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return Skipped(rel_path, "not a regular file")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as fh:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):  # swapped for a FIFO or a device since the stat
                return Skipped(rel_path, "not a regular file")
            if inside is not None:
                real = opened_path(fd, path)
                if real is None:
                    return Skipped(rel_path, "vanished while reading")
                if inside_folder(inside, Path(real)) is None:
                    return Skipped(rel_path, OUTSIDE_LINK)
            if st.st_size > max_file_bytes:
                return Skipped(rel_path, f"too large ({st.st_size} bytes > max_file_bytes {max_file_bytes})")
            data = fh.read(max_file_bytes + 1)
    except OSError as exc:
        return os_error_skip(rel_path, exc)
    if len(data) > max_file_bytes:  # it grew while we read it
        return Skipped(rel_path, f"too large ({len(data)} bytes > max_file_bytes {max_file_bytes})")
    return data, st.st_mtime_ns


def opened_path(fd: int, path: Path) -> str | None:
    """The real path of the file open as `fd` (opened by the name `path`): the kernel's (/proc/self/fd on Linux),
    else `path`'s real path when it still names the same file; None when the file was deleted or replaced since
    it was opened."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # no /proc (macOS, BSD)
        real = os.path.realpath(path)
        try:
            return real if os.path.samestat(os.stat(real), os.fstat(fd)) else None
        except OSError:
            return None
    return None if real.endswith(" (deleted)") else real


def load_file(folder: Path, rel_path: str, max_file_bytes: int, confined: bool = False) -> Document | Skipped:
    """Read `folder / rel_path` ("/"-separated; an index key from `walk`, see `uris.path_key`) into a `Document`
    (whose `path` is that key), or say why not.

    `max_file_bytes` comes from `sources.max_file_bytes` (default 2 MB). Returns `Skipped(rel_path, reason)` with
    reason "binary (NUL byte in first 8 KB)" or "binary (not UTF-8, control bytes in first 8 KB)", "too large (N bytes > max_file_bytes M)", "vanished while reading"
    (the file was deleted after it was listed), "not a regular file" (FIFO, socket, device) or
    "unreadable: <OS error>"; when `confined`, `OUTSIDE_LINK` for a file that lies outside `folder` as it is opened
    (`read_bytes`). Never raises for file problems.
    """
    raw = read_bytes(Path(folder) / key_path(rel_path), rel_path, max_file_bytes, folder if confined else None)
    if isinstance(raw, Skipped):
        return raw
    data, mtime_ns = raw
    reason = binary_reason(data)
    if reason is not None:
        return Skipped(rel_path, reason)
    return Document(
        folder=str(folder),
        path=rel_path,
        text=decode_bytes(data),
        content_hash=content_hash(data),
        kind=kind_for(rel_path),
        size=len(data),
        mtime_ns=mtime_ns,
    )


def load_text(path_label: str, text: str, folder: str = "", kind: str | None = None) -> Document:
    """A `Document` for text that is not a workspace file (ephemeral `rag/ask` documents: URLs, command output).
    `path_label` names it in sources and picks the kind by extension unless `kind` is given (a URL served as
    `text/markdown`); a leading BOM character is dropped; `content_hash` is over the UTF-8 encoding; `mtime_ns`
    is 0; a lone CR becomes "\\n" (`normalize_line_ends`), as in a file's text."""
    text = normalize_line_ends(text.removeprefix("\ufeff"))
    data = text.encode("utf-8", "surrogatepass")
    return Document(folder=folder, path=path_label, text=text, content_hash=content_hash(data),
                    kind=kind or kind_for(path_label), size=len(data), mtime_ns=0)
