"""`generation.persona` and `generation.personal_kb`: who is asking, appended to the prompt as a delimited
user-context block. Both off (the default) → no block, and the prompt is byte-identical to one without this module.

The block comes after the sources and says it is not a source: grounding and citation rules still bind (answer from
the numbered sources, cite them as [n]); the context only shapes tone, depth and examples.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)

MAX_KB_CHARS = 4000  # a personal knowledge file is cut to this: it must not crowd out the sources


def read_personal_kb(value: str | None) -> str:
    """`personal_kb` as text: the content of the file it names (`~` expanded) when it is a path to a readable
    file, else the string itself; "" when unset. Cut to MAX_KB_CHARS. Never raises (an unreadable file is logged
    and its path is not used as text)."""
    if not value or not value.strip():
        return ""
    text = value.strip()
    if "\n" not in text and len(text) < 1024:
        path = Path(text).expanduser()
        try:
            if path.is_file():
                return path.read_text(encoding="utf-8", errors="replace").strip()[:MAX_KB_CHARS]
        except OSError as exc:
            log.warning("generation.personal_kb: cannot read %s: %s", path, exc)
            return ""
    return text[:MAX_KB_CHARS]


def user_context_block(persona: str | None, personal_kb: str | None) -> str:
    """The block to append to the prompt ("" when both settings are off):

        <user_context>
        Answer as: <persona>
        About the user: <personal_kb text, secret values masked (sources/redact.py)>
        </user_context>
        <one line: this is not a source; answer from the sources and cite them as [n]>
    """
    from ragls.sources.redact import mask_secrets

    persona = (persona or "").strip()
    kb = mask_secrets(read_personal_kb(personal_kb))[0]  # a notes file with a key in it: masked as the sources are
    if not persona and not kb:
        return ""
    lines = ["<user_context>"]
    if persona:
        lines.append(f"Answer as: {persona}")
    if kb:
        lines.append(f"About the user: {kb}")
    lines.append("</user_context>")
    lines.append("The user context above only shapes tone, depth and examples; it is not a source. Answer from "
                 "the numbered sources only and cite every source you use as [n].")
    return "\n".join(lines)


def with_user_context(prompt: str, persona: str | None, personal_kb: str | None) -> str:
    """`prompt` followed by a blank line and the user-context block; `prompt` itself when both are off."""
    block = user_context_block(persona, personal_kb)
    return f"{prompt}\n\n{block}" if block else prompt
