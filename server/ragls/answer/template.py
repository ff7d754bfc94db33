"""The `rag_template` prompt: `__INPUT__` (the question), `__CONTEXT__` (numbered chunks) and `__SOURCES__`
(one line per source). Template validation (required placeholders) lives in `config.py`.
"""

from __future__ import annotations

import re

from ragls.ir import Hit, LineSpan
from ragls.uris import display_path

PLACEHOLDERS = re.compile(r"__INPUT__|__CONTEXT__|__SOURCES__")
MIN_TRUNCATED_CHARS = 200  # a chunk cut shorter than this is dropped instead: a stub is no context
TRUNCATION_MARK = "\n[…]"


def human_lines(span: LineSpan) -> tuple[int, int]:
    """1-based, inclusive (first, last) line numbers of an LSP span (0-based lines, end exclusive). A span that
    ends at column 0 of a later line does not include that line."""
    first = span.start_line + 1
    last = span.end_line if (span.end_char == 0 and span.end_line > span.start_line) else span.end_line + 1
    return first, max(first, last)


def source_label(hit: Hit) -> str:
    """`path:first-last` (1-based lines), as shown to the model and to terminal users."""
    first, last = human_lines(hit.chunk.span)
    return f"{display_path(hit.chunk.path)}:{first}-{last}"


def _header(n: int, hit: Hit) -> str:
    title = f" — {hit.chunk.title}" if hit.chunk.title else ""
    return f"[{n}] {source_label(hit)}{title}\n"


def pack_context(hits: list[tuple[int, Hit]], max_context_chars: int) -> tuple[str, list[tuple[int, Hit]]]:
    """Format chunks best first as "[n] path:first-last — title\\ntext", separated by blank lines, within
    `max_context_chars` characters in total (headers and separators included).

    The first chunk that does not fit whole is cut (marked "[…]") when at least MIN_TRUNCATED_CHARS of its text
    fit, else dropped; packing stops there, so the used sources are a prefix of `hits` and numbering stays
    contiguous. Returns (context text, used (n, hit) pairs)."""
    parts: list[str] = []
    used: list[tuple[int, Hit]] = []
    total = 0
    for n, hit in hits:
        sep = "\n\n" if parts else ""
        header = _header(n, hit)
        text = hit.chunk.text.strip("\n")
        block = sep + header + text
        if total + len(block) <= max_context_chars:
            parts.append(block)
            used.append((n, hit))
            total += len(block)
            continue
        room = max_context_chars - total - len(sep) - len(header) - len(TRUNCATION_MARK)
        if room >= MIN_TRUNCATED_CHARS:
            cut = text[:room]
            space = cut.rfind(" ")
            if space > room * 0.8:  # end on a word boundary when it costs little
                cut = cut[:space]
            parts.append(sep + header + cut + TRUNCATION_MARK)
            used.append((n, hit))
        break
    return "".join(parts), used


def format_sources(hits: list[tuple[int, Hit]]) -> str:
    """One line per source: "[n] path:first-last" (1-based lines, for humans)."""
    return "\n".join(f"[{n}] {source_label(hit)}" for n, hit in hits)


def render_prompt(
    template: str, question: str, hits: list[tuple[int, Hit]], max_context_chars: int
) -> tuple[str, list[tuple[int, Hit]]]:
    """Fill the template. `hits` are (n, hit) pairs, best first; `max_context_chars` bounds `__CONTEXT__` (see
    `pack_context`). Placeholders are replaced in one pass, so a question or chunk that contains a placeholder
    name is inserted verbatim. `__SOURCES__` lists only the sources that made it into the context.
    Returns (prompt, used sources)."""
    context, used = pack_context(hits, max_context_chars)
    values = {"__INPUT__": question, "__CONTEXT__": context, "__SOURCES__": format_sources(used)}
    return PLACEHOLDERS.sub(lambda m: values[m.group(0)], template), used
