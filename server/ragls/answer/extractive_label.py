"""The label line an extractive answer (`answer/extractive.py`) opens with, saying that no LLM wrote it and why, and
its readers: rag/ask's `label` (`plain_label`), `ragls eval`'s first passage (`is_extractive_label`), the status
lines (`no_llm_reason`). Imports nothing: the fronts and `ragls status` read it without the answer layer.
"""

from __future__ import annotations

EXTRACTIVE_LABEL = ("*Extractive answer (no LLM configured): the passages of your documents that best match "
                    "the question.*")
# over the extractive answer given when the configured LLM failed (answer/ask.py)
FALLBACK_LABEL = ("*Extractive answer (the LLM failed, see the error): the passages of your documents that best "
                  "match the question.*")
_WHY_LABEL = "*Extractive answer: the passages of your documents that best match the question. No LLM is used: "


def extractive_label(why_no_llm: str | None = None) -> str:
    """The label over an extractive answer: EXTRACTIVE_LABEL, or with `why_no_llm` (an untrusted folder's ignored
    LLM settings, `FolderLayer.ignored_llm`) the same label saying why no LLM is used instead of "no LLM
    configured"."""
    if not why_no_llm:
        return EXTRACTIVE_LABEL
    return f"{_WHY_LABEL}{why_no_llm}.*"


def is_extractive_label(line: str) -> bool:
    """True when `line` (surrounding whitespace ignored) is a label line an extractive answer opens with:
    EXTRACTIVE_LABEL, FALLBACK_LABEL or one `extractive_label` writes with a reason. What `ragls eval` leaves out
    of an answer's first passage (`evaluation.evaluate.first_passage`), so the two cannot drift apart; an LLM's
    answer opening with an italic line of its own keeps it."""
    line = line.strip()
    return line in (EXTRACTIVE_LABEL, FALLBACK_LABEL) or (line.startswith(_WHY_LABEL) and line.endswith(".*"))


def plain_label(text: str) -> str | None:
    """The label line an extractive answer's `text` opens with when it says no more than that the answer is
    extractive (EXTRACTIVE_LABEL, FALLBACK_LABEL: the client's footer and `error` say as much), else None: a label
    with a reason (`extractive_label(why_no_llm)`: the client knows nothing else of it), an abstention, an LLM's
    answer. rag/ask's `label` (docs/protocol.md): what a client may leave out of the answer it shows."""
    first = text.split("\n", 1)[0]
    return first if first.strip() in (EXTRACTIVE_LABEL, FALLBACK_LABEL) else None


def no_llm_reason(why_no_llm: str | None = None) -> str:
    """Why answers are extractive, for a status line: "no LLM configured", or with `why_no_llm` (as in
    `extractive_label`) "no LLM is used: <why>"."""
    return f"no LLM is used: {why_no_llm}" if why_no_llm else "no LLM configured"
