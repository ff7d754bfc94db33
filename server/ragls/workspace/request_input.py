"""A request's input as the workspace searches it, checked the same for every front (LSP, HTTP, MCP, CLI): the
question or query text (`check_text`, and `user_text` for a conversation's history) and `topK` (`check_top_k`).
A user's text is well-formed (no lone surrogate), read with the index's line model (a lone CR ends a line),
masked for secrets when the folder masks its documents, and bounded in length (MAX_QUERY_CHARS); a bad value is
an InvalidParams (-32602) naming the field.
"""

from __future__ import annotations

from typing import Any

from ragls.core.analysis import well_formed
from ragls.core.errors import InvalidParams
from ragls.core.ir import MAX_QUERY_CHARS, MAX_TOP_K, normalize_line_ends


def check_top_k(top_k: Any) -> int | None:
    """Validate an optional topK: an integer 1..MAX_TOP_K. Raises InvalidParams naming the field."""
    if top_k is None:
        return None
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InvalidParams(f"topK must be an integer between 1 and {MAX_TOP_K}, got {top_k!r}")
    return top_k


def user_text(text: Any, mask: bool) -> Any:
    """`text` from a user (a question, a query, a history message) with lone surrogates replaced
    (`analysis.well_formed`), a lone CR read as a line end (`ir.normalize_line_ends`: the one place where an editor
    buffer's text, the quote of "Ask About Selection", is brought to the index's line model) and, with `mask`
    (`sources.exclude_secrets`), its secret values masked as the index masks documents' (`redact.mask_secrets`:
    same length): a key pasted into a question reaches no LLM prompt, retrieval LLM step or answer text. A
    non-string is returned as it is."""
    text = well_formed(text)
    if not isinstance(text, str):
        return text
    text = normalize_line_ends(text)
    if mask:
        from ragls.sources.redact import mask_secrets

        text = mask_secrets(text)[0]
    return text


def check_text(text: Any, field: str, mask: bool = False) -> Any:
    """A user's question or query as searched (`user_text`); a non-string is returned as it is for the caller's
    own check. Raises InvalidParams naming `field` ("query", "question") when it is longer than MAX_QUERY_CHARS
    characters — every front (LSP, HTTP, MCP, CLI) reaches the index through here."""
    text = user_text(text, mask)
    if isinstance(text, str) and len(text) > MAX_QUERY_CHARS:
        raise InvalidParams(f"{field} is {len(text):,} characters long; the limit is {MAX_QUERY_CHARS:,}: ask about "
                            "a shorter passage (the part of a log or a file the question is about)")
    return text
