"""`Document` -> `Chunk`s with exact line spans.

Every chunk's `text` is exactly `doc.text[start:end]` for two offsets — except that a Markdown chunk that starts
or ends inside a fenced code block gets the block's opening line prepended / its closing fence appended (so split
code blocks stay balanced, and text after a fence that is never closed is still quoted as code), and that a
Markdown document is chunked with its HTML blocks read as the Markdown they render as, line for line
(`index.html_blocks.read_html_blocks`: no tag or attribute reaches a chunk) — and its `span`
gives those offsets as LSP positions in the file on disk: 0-based lines, columns in UTF-16 code units, end exclusive; a line ends only at
"\\n", "\\r\\n" or "\\r" (on a line whose HTML was read, a column other than 0 is the file line's end). Chunks are at most `chunk_size` characters (Python code points) long, fence lines
included (Markdown with code blocks is packed that much smaller).

- Markdown is split at headings first (the title is the heading path, "Installation > Retries"); small
  consecutive sections are merged up to `chunk_size` (not across a higher-level heading; the title is their common
  parent heading path, or the first one when the others are its subsections); a larger section is split at blank lines / block starts,
  then at line starts, never inside a fenced code block (or HTML / indented code block) unless that block alone
  exceeds `chunk_size`. Front matter (YAML or TOML) is not a heading; on a page without a "# " heading its
  `title` heads every heading path ("Section > Pagination"), as static site generators show it as the page's title.
- Code and plain text are split at line starts, preferring the line after a blank line. The title is the nearest
  symbol (def/class/fn/func/...) for code and the nearest heading-like line for text (inline markup stripped:
  `index.headings`).
- A line longer than `chunk_size` (minified files) is split by characters, at whitespace when there is some.
- Consecutive chunks of one section overlap: the next chunk starts at the first allowed line start within the
  last `overlap` characters of the previous one (no overlap when that would not make progress).
- Leading blank lines and trailing whitespace are trimmed off each chunk; chunks of nothing but whitespace and ASCII
  punctuation (markup only: "#", "---", "* * *", a lone fence) are dropped, and so are a reST page's chunks of
  nothing but hidden markup (comments, targets, substitution definitions: `index.rest_hidden`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from ragls.core.hashing import chunk_id, text_hash
from ragls.core.ir import Chunk, Document, LineSpan, heading_path, title_headings
from ragls.index.front_matter import front_matter_lines, front_matter_title
from ragls.index.headings import code_titles, heading_text, markdown_parser, text_titles, title_at
from ragls.index.html_blocks import read_html_blocks
from ragls.index.lines import LineIndex
from ragls.index.rest_hidden import first_shown, hidden_only
from ragls.sources.load import degenerate_reason
from ragls.sources.rest_include import is_rest

DEFAULT_CHUNK_SIZE = 2000
DEFAULT_OVERLAP = 100

_NON_SPACE = re.compile(r"\S")
# Anything but whitespace, ASCII punctuation (markup), control characters and invisible format characters (zero-width
# space/joiners, direction marks, word joiner, BOM, soft hyphen): a file of those alone has no text to index.
_CONTENT = re.compile("[^\\s!-/:-@\\[-`{-~\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]")


def is_markup_only(text: str) -> bool:
    """True when `text` holds nothing but whitespace, ASCII punctuation ("#", "---", "* * *", a lone "```"), control
    characters and invisible format characters (zero-width space, BOM)."""
    return _CONTENT.search(text) is None


def no_text_reason(text: str) -> str | None:
    """Why a decoded file yields no chunk worth indexing: "empty file", "whitespace only", "markup only (no text)"
    ("# ", "---", control or zero-width characters), "front matter only (no text)" (a YAML/TOML block and nothing
    after it) or "degenerate text (…)" (`sources.load.degenerate_reason`: one letter repeated, one line repeated,
    minified or encoded data); None when it has text to index."""
    if not text:
        return "empty file"
    if not text.strip():
        return "whitespace only"
    if is_markup_only(text):
        return "markup only (no text)"
    index = LineIndex(text)
    fm_lines = front_matter_lines(text, index)
    if fm_lines and (fm_lines >= len(index.starts) or is_markup_only(text[index.starts[fm_lines]:])):
        return "front matter only (no text)"
    return degenerate_reason(text)


def chunk_document(doc: Document, chunk_size: int = DEFAULT_CHUNK_SIZE, overlap: int = DEFAULT_OVERLAP) -> list[Chunk]:
    """Split `doc` into chunks of at most `chunk_size` characters, overlapping by about `overlap` characters
    (defaults from `config.ChunkingSettings`: 2000 and 5 %). `doc.kind` picks the splitter ("markdown", "code",
    anything else is text). Returns chunks in document order with ordinals 0..n-1; [] for blank documents.
    Raises ValueError when chunk_size < 1 or overlap < 0."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    if overlap < 0:
        raise ValueError("overlap must be >= 0")
    overlap = min(overlap, chunk_size // 2)
    text = doc.text
    if not text.strip():
        return []
    index = LineIndex(text)
    # a Markdown page's HTML blocks read as Markdown (index/html_blocks.py): chunks are cut from the file's text as
    # ever, and then hold their lines' reading
    reading = _reading(text) if doc.kind == "markdown" else None
    lines = _Lines(text, index)
    fences: list[_Fence] = []
    if doc.kind == "markdown":
        # Room for the fence lines a split code block gets (see _balance_fences), so chunks stay <= chunk_size.
        reserve = max((2 * len(m.group(0).strip()) + 2 for m in _FENCE_LINE.finditer(text)), default=0)
        size = chunk_size - reserve if chunk_size > 4 * reserve else chunk_size
        pieces = _markdown_pieces(text, lines, size, min(overlap, size // 2), fences)
        if doc.origins:  # a page with its MkDocs includes resolved: each chunk cites one file
            pieces = _split_at(pieces, sorted(o.start for o in doc.origins if 0 < o.start < len(text)))
    else:
        titles = code_titles(text, index) if doc.kind == "code" else text_titles(text, index, doc.path)
        if doc.origins:  # a literal include's underlined lines are no headings
            titles = [t for t in titles if not doc.origin_at(t[0]).literal]
        # A paged document (PDF) is packed page by page, so each chunk cites exactly one page; a page with its
        # includes resolved stretch by stretch, so each chunk cites one file.
        bounds = sorted({at for at, page, _ in doc.marks if page is not None and 0 < at < len(text)}
                        | {o.start for o in doc.origins if 0 < o.start < len(text)})
        regions = list(zip([0, *bounds], [*bounds, len(text)]))
        spans = [s for a, b in regions for s in _pack(lines, a, b, chunk_size, overlap, lines.pref, None)]
        pieces = [(s, e, "") for s, e in spans]  # titled once trimmed (below)
    chunks: list[Chunk] = []
    last_end = -1
    rest = is_rest(doc.path)
    for start, end, title in pieces:
        start, end = _trim(text, index, start, end)
        if start >= end:
            continue
        if doc.kind != "markdown":  # titled where its text starts: a piece whose blank lines (or, in reST, a
            # section's label) run up to a heading is that heading's section, not the one before them
            title = title_at(titles, start + first_shown(text[start:end]) if rest else start, end)
        piece = text[start:end]
        if is_markup_only(piece) or (rest and hidden_only(piece)):
            continue  # markup only ("#", "---", "* * *", a lone fence; reST comments, targets, substitution
            # definitions): nothing to find or cite
        cited = start  # where the stretch it cites starts, before `_balance_fences` puts an opener's line first
        if fences:
            start, end, piece = _balance_fences(text, index, fences, start, end)
            if start >= end or is_markup_only(piece) or end <= last_end:
                continue  # nothing left, or nothing the previous chunk does not hold already
        last_end = end
        line0, col0 = index.position(start)
        line1, col1 = index.position(end)
        if reading is not None:
            piece, line0, col0, line1, col1 = _read_piece(piece, index, reading, line0, col0, line1, col1)
            if is_markup_only(piece):
                continue  # HTML tags only: nothing to find or cite
        path, included_in = doc.path, ""
        if doc.origins:  # lines of the file the stretch lives in
            origin = doc.origin_at(cited)  # (an included stretch opening a page's code block: never the page's line
            shift = origin.line - index.line_of(origin.start)  # before it, its fence opener stands in for no line)
            line0, line1 = max(line0 + shift, origin.line), line1 + shift
            if origin.path != doc.path:
                path, included_in = origin.path, doc.path
        digest = text_hash(piece)
        ordinal = len(chunks)
        page, anchor = _mark_at(doc.marks, start)
        chunks.append(Chunk(
            id=chunk_id(doc.path, ordinal, digest), path=path, text=piece,
            span=LineSpan(line0, col0, line1, col1), text_hash=digest, ordinal=ordinal, title=title,
            folder=doc.folder, page=page, anchor=anchor, included_in=included_in,
        ))
    return chunks


def _split_at(pieces: list[tuple[int, int, str]], bounds: list[int]) -> list[tuple[int, int, str]]:
    """`pieces` ((start, end, title), in order) cut at `bounds` (sorted offsets), parts inside earlier ones left out."""
    out: list[tuple[int, int, str]] = []
    for start, end, title in pieces:
        cuts = bounds[bisect_right(bounds, start):bisect_left(bounds, end)]
        for a, b in zip([start, *cuts], [*cuts, end]):
            if not any(x <= a and b <= y for x, y, _ in out):
                out.append((a, b, title))
    return out


def _reading(text: str) -> list[str] | None:
    """The lines of a Markdown `text` with its HTML blocks read as Markdown (`read_html_blocks`), without their
    line breaks; None when it has none."""
    read = read_html_blocks(text)
    return None if read is text or read == text else _LINE_BREAK.split(read)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _read_piece(piece: str, index: LineIndex, reading: list[str], line0: int, col0: int, line1: int,
                col1: int) -> tuple[str, int, int, int, int]:
    """A Markdown chunk's text `piece` (file lines `line0`..`line1`, columns `col0`, `col1`) with each whole file
    line of it replaced by its reading (`_reading`: an HTML block's line read as Markdown), blank lines at either
    end dropped, and its span narrowed to the lines left (a trailing line's end column is the file line's end).
    A piece line that is not its file line as a whole (a prepended fence line, a character split) stays as it is."""
    lines = piece.split("\n")
    changed = False
    for k, line in enumerate(lines):
        n = line0 + k
        if n >= len(reading) or n > line1:
            break
        own = _line_text(index, n)
        if reading[n] != own and line.rstrip("\r").rstrip() == own.rstrip() and (k or col0 == 0):
            lines[k] = reading[n] + ("\r" if line.endswith("\r") else "")
            changed = True
    if not changed:
        return piece, line0, col0, line1, col1
    first = next((k for k, x in enumerate(lines) if x.strip()), len(lines))
    last = next((k for k in range(len(lines) - 1, -1, -1) if lines[k].strip()), -1)
    if first > last:
        return "", line0, col0, line0, col0
    if last < len(lines) - 1 or lines[last] != piece.split("\n")[last]:
        line1 = line0 + last
        col1 = index.position(_line_end(index, line1))[1]
    if first:
        line0, col0 = line0 + first, 0
    return "\n".join(lines[first:last + 1]).rstrip(), line0, col0, line1, col1


def _line_text(index: LineIndex, line: int) -> str:
    """Line `line` of `index`'s text, without its line break."""
    return index.text[index.starts[line]:_line_end(index, line)]


def _line_end(index: LineIndex, line: int) -> int:
    """The offset where line `line` of `index`'s text ends, its line break excluded."""
    end = index.starts[line + 1] if line + 1 < len(index.starts) else len(index.text)
    while end > index.starts[line] and index.text[end - 1] in "\r\n":
        end -= 1
    return end


def _mark_at(marks, offset: int) -> tuple[int | None, str]:
    """(page, anchor) of a converted document at character `offset`: from the last mark at or before it that
    sets each (`Document.marks`); (None, "") for plain documents."""
    page, anchor = None, ""
    for at, mark_page, mark_anchor in marks:
        if at > offset:
            break
        if mark_page is not None:
            page = mark_page
        if mark_anchor is not None:
            anchor = mark_anchor
    return page, anchor


# -- packing -------------------------------------------------------------------------------------------------

# A reST grid table's border line without its line break ("+-----+----+", "+=====+"): a break before it ends a chunk
# after a whole row (`_Lines.rows`); the answer layer reads grid tables by it too (answer/rest.py).
GRID_BORDER = re.compile(r"^[ \t]*\+(?:[-=]+\+)+[ \t]*$")


class _Lines:
    """Line starts of a text, the starts of lines that follow a blank line (preferred breaks), and the starts of a
    grid table's row borders (`rows`, `GRID_BORDER`: the next best break, so a long table is split between rows,
    never inside a row's wrapped cells, whose halves read as no row — Pelican's tips.rst, a 5-column table of 60
    lines with no blank line)."""

    def __init__(self, text: str, index: LineIndex) -> None:
        self.text = text
        self.index = index
        self.starts = index.starts
        starts = self.starts
        self.pref = [starts[i] for i in range(1, len(starts))
                     if starts[i] < len(text) and not text[starts[i - 1]:starts[i]].strip()]
        self.rows = [starts[i] for i in range(1, len(starts))
                     if starts[i] < len(text) and text[starts[i]] in " \t+"
                     and GRID_BORDER.match(text[starts[i]:_end(starts, i, text)].rstrip("\r\n"))]


def _end(starts: list[int], i: int, text: str) -> int:
    """The offset where line `i` (of line starts `starts`) ends, its line break included."""
    return starts[i + 1] if i + 1 < len(starts) else len(text)


def _last_in(sorted_list: list[int], lo: int, hi: int) -> int | None:
    """Largest element x with lo < x <= hi, or None."""
    i = bisect_right(sorted_list, hi) - 1
    if i >= 0 and sorted_list[i] > lo:
        return sorted_list[i]
    return None


def _first_in(sorted_list: list[int], lo: int, hi: int) -> int | None:
    """Smallest element x with lo <= x < hi, or None."""
    i = bisect_left(sorted_list, lo)
    if i < len(sorted_list) and sorted_list[i] < hi:
        return sorted_list[i]
    return None


def _pack(lines: _Lines, region_start: int, region_end: int, size: int, overlap: int,
          pref: list[int], allowed: list[int] | None) -> list[tuple[int, int]]:
    """Split text[region_start:region_end] into (start, end) pieces of at most `size` characters.

    Each break lies past the first non-whitespace character after the previous break, so every piece adds new
    text (never only its overlap). Breaks are tried in order: the last preferred break (`pref`, sorted offsets)
    that fits; the last grid table row border (`lines.rows`) that fits; the last allowed line start (`allowed`, or
    every line start when None) that fits; the last line
    start of any kind (only reached inside a block that alone exceeds `size`); a character split, at whitespace if
    possible. Each next piece starts at the first allowed line start within `overlap` characters before the
    break, when that still fits; a long run of whitespace after a break is skipped.
    """
    text = lines.text
    allowed_starts = lines.starts if allowed is None else allowed
    pieces: list[tuple[int, int]] = []
    start = region_start
    floor = region_start
    while start < region_end:
        if region_end - start <= size:
            pieces.append((start, region_end))
            break
        limit = start + size
        brk = _last_in(pref, floor, limit)
        if brk is None:
            brk = _last_in(lines.rows, floor, limit)
        if brk is None:
            brk = _last_in(allowed_starts, floor, limit)
        if brk is None and allowed is not None:
            brk = _last_in(lines.starts, floor, limit)
        char_split = brk is None
        if char_split:
            brk = _char_break(text, start, limit)
        pieces.append((start, brk))
        more = _NON_SPACE.search(text, brk, region_end)
        if more is None:
            break  # only whitespace is left
        resume = more.start()
        nxt = brk
        if overlap and not char_split:
            candidate = _first_in(allowed_starts, brk - overlap, brk)
            if candidate is not None and candidate > start:
                # Only overlap when the unit that starts at the break still fits after the overlap.
                unit_end = _first_in(allowed_starts, brk + 1, region_end + 1)
                unit_end = region_end if unit_end is None else unit_end
                if unit_end - candidate <= size or unit_end - brk > size:
                    nxt = candidate
        if resume - nxt > size // 2:  # a long run of whitespace: skip it, without overlap
            nxt = max(brk, lines.starts[lines.index.line_of(resume)])
            if resume - nxt > size // 2:
                nxt = resume
        floor = resume  # the next piece must reach past the next non-whitespace character
        start = nxt
    return pieces


def _balance_fences(text: str, index: LineIndex, fences: list[_Fence], start: int,
                    end: int) -> tuple[int, int, str]:
    """(start, end, chunk text) for text[start:end] with its fenced code blocks balanced. A chunk that ends with
    an opening fence line (nothing of the block after it) ends before that line, and one that starts with a
    closing fence line starts after it; then a chunk starting inside a block gets the block's opening line
    ("```python") prepended, and one ending inside it — or inside a block never closed — gets the closing fence
    appended, so every chunk renders its code as code. The prepended opener stands in for the file line before the
    chunk's first line (the block's own opening line, or a code line of it the chunk before holds): the returned
    start is that line's start, so line k of the chunk text is line k of its span, as every reader of a chunk's
    lines counts them (windows, focus, titles). Prepended before a span starting on the chunk's first line, it
    put every focus and window of the chunk one line early. start == end: nothing is left."""
    for f in fences:
        if f.open_start <= end <= f.content_start or not text[f.content_start:end].strip() and f.open_start < end:
            if start < f.open_start:
                start, end = _trim(text, index, start, f.open_start)  # a dangling opener: the next chunk has it
            elif end <= f.content_start or not text[f.content_start:end].strip():
                return start, start, ""  # the opening line alone
        if f.close_start < len(text) and start == f.close_start:
            close_end = index.starts[index.line_of(f.close_start) + 1] \
                if index.line_of(f.close_start) + 1 < len(index.starts) else len(text)
            start, end = _trim(text, index, close_end, end) if close_end < end else (end, end)
    if start >= end:
        return start, start, ""
    piece = text[start:end]
    first = start
    for f in fences:
        if f.content_start <= start < f.close_start:
            piece = f.opener + "\n" + piece
            first = index.starts[index.line_of(start) - 1]  # after the opening line: never line 0
        if max(start, f.open_start) < end <= f.close_start:
            piece = piece + "\n" + f.closer
    return first, end, piece


def _char_break(text: str, start: int, limit: int) -> int:
    """A break inside one long line: after the last whitespace in the second half of the window, else at `limit`.
    Never between "\\r" and "\\n" (Python strings index code points, so never inside a character)."""
    lo = start + (limit - start) // 2
    for sep in (" ", "\t"):
        at = text.rfind(sep, lo, limit)
        if at != -1:
            return at + 1
    if text[limit - 1] == "\r" and limit < len(text) and text[limit] == "\n" and limit - 1 > start:
        return limit - 1
    return limit


def _trim(text: str, index: LineIndex, start: int, end: int) -> tuple[int, int]:
    """Drop leading blank lines and trailing whitespace; (start, start) when nothing is left."""
    piece = text[start:end]
    stripped = piece.rstrip()
    if not stripped:
        return start, start
    end = start + len(stripped)
    first = start + (len(stripped) - len(stripped.lstrip()))
    line_start = index.starts[index.line_of(first)]
    return max(start, line_start), end


# -- markdown ------------------------------------------------------------------------------------------------

_FENCE_LINE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[^\r\n]*", re.MULTILINE)
_ATOMIC_BLOCKS = frozenset({"fence", "code_block", "html_block"})


@dataclass
class _Section:
    start: int  # offsets into the text
    end: int
    level: int  # heading level, 0 for the text before the first heading
    title: str


@dataclass
class _Fence:
    """A fenced code block: offsets of its opening line, of its content, of its closing line (len(text) when it
    is never closed), the opening line's text and the closing fence to add."""

    open_start: int
    content_start: int
    close_start: int
    opener: str
    closer: str


def _markdown_pieces(text: str, lines: _Lines, size: int, overlap: int,
                     fences: list[_Fence] | None = None) -> list[tuple[int, int, str]]:
    index = lines.index
    starts = index.starts
    n_lines = len(starts)

    def line_offset(line: int) -> int:
        return starts[line] if line < n_lines else len(text)

    fm_lines = front_matter_lines(text, index)
    source = text
    if fm_lines:
        # Blank the front matter out for the parser, keeping its line count so token maps stay right.
        source = "\n" * fm_lines + text[line_offset(fm_lines):]
    tokens = markdown_parser().parse(source)
    # A page titled only by its front matter (Hugo, Zola, Jekyll, Docusaurus render that title as the page's
    # heading): its title heads every heading path, as a "# " title does on a page that has one.
    root = front_matter_title(text) if fm_lines else ""
    if root and any(tok.type == "heading_open" and tok.tag == "h1" and tok.level == 0 for tok in tokens):
        root = ""

    forbidden = [(0, fm_lines)] if fm_lines else []
    block_starts: set[int] = set()
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        if tok.map is None:
            continue
        first, last = tok.map
        if tok.type in _ATOMIC_BLOCKS:
            forbidden.append((first, last))
        if tok.type == "fence" and fences is not None and tok.level == 0:
            open_start = line_offset(first)
            content_start = line_offset(first + 1)
            opener = text[open_start:content_start].rstrip("\r\n")
            marker = opener.lstrip(" ")[:1] * max(3, len(tok.markup))
            closing = last - 1 if last - 1 > first else None
            closed = closing is not None and text[line_offset(closing):line_offset(closing + 1)].strip().startswith(
                marker) and not text[line_offset(closing):line_offset(closing + 1)].strip().strip(marker[0])
            fences.append(_Fence(open_start, content_start, line_offset(closing) if closed else len(text),
                                 opener.strip(), marker))
        if tok.level == 0 and tok.nesting in (0, 1):
            block_starts.add(first)
        if tok.type == "heading_open" and tok.level == 0:
            level = int(tok.tag[1:])
            name = heading_text(tokens[i + 1]) if i + 1 < len(tokens) else ""
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, name))
            path = heading_path(n for _, n in stack if n)
            sections.append(_Section(line_offset(first), 0, level, path))

    # Allowed breaks: line starts not strictly inside an atomic block.
    inside = bytearray(n_lines + 1)
    for first, last in forbidden:
        for line in range(first + 1, min(last, n_lines)):
            inside[line] = 1
    allowed = [starts[line] for line in range(1, n_lines) if not inside[line]]
    pref_set = set(lines.pref) | {line_offset(b) for b in block_starts if b < n_lines}
    pref = sorted(p for p in pref_set if 0 < p < len(text) and not inside[index.line_of(p)])

    if not sections or sections[0].start > 0:
        sections.insert(0, _Section(0, 0, 0, ""))
    for k, sec in enumerate(sections):
        sec.end = sections[k + 1].start if k + 1 < len(sections) else len(text)

    pieces: list[tuple[int, int, str]] = []
    group: list[_Section] = []

    def flush() -> None:
        if group:
            pieces.append((group[0].start, group[-1].end, _group_title([s.title for s in group])))
            group.clear()

    for sec in sections:
        if group and sec.end - group[0].start <= size and sec.level >= group[0].level:
            group.append(sec)
            continue
        flush()
        if sec.end - sec.start <= size:
            group.append(sec)
        else:
            for s, e in _pack(lines, sec.start, sec.end, size, overlap, pref, allowed):
                pieces.append((s, e, sec.title))
    flush()
    if root:  # after `_group_title`, which titles merged sections by their own headings
        pieces = [(s, e, f"{root} > {title}" if title else root) for s, e, title in pieces]
    return pieces


def _group_title(titles: list[str]) -> str:
    """Title of merged sections: the first heading path when the others are its subsections, else the common
    parent path of all of them (merging "A > x" and "A > y" gives "A"), else the first heading path."""
    paths = [title_headings(t) for t in titles if t]
    if not paths:
        return ""
    common = paths[0]
    for p in paths[1:]:
        n = 0
        while n < min(len(common), len(p)) and common[n] == p[n]:
            n += 1
        common = common[:n]
    return heading_path(common) if common else heading_path(paths[0])
