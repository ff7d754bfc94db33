"""Short ":" lead-ins read with the code block they introduce (`lead_in_text`): what `extractive.extractive_picks`
embeds beside such a sentence, and the index's sentence pass ahead (`extractive.answer_sentences`)."""

from __future__ import annotations

import re

from ragls.answer.blocks import LIST_ITEM
from ragls.answer.cite import content_words
from ragls.answer.passages import Unit
from ragls.answer.sentences import last_sentence

__all__ = ["LEAD_IN_LINES", "LEAD_IN_WORDS", "lead_in_text"]

LEAD_IN_WORDS = 6  # a ":" sentence of at most this many content words is embedded with its block (`lead_in_text`)
LEAD_IN_LINES = 10  # ... when that block has at most this many lines
_FENCE_LINE = re.compile(r"^\s*(`{3,}|~{3,})")


def lead_in_text(unit: Unit) -> str:
    """The text a short lead-in is embedded with besides its sentence: a sentence ending in ":" (or a section title
    standing in as one, `Unit.titled`) whose last sentence (`sentences.last_sentence`: the short lead-in "For example:"
    that answer/passages.py reads with the sentence before it) has at most LEAD_IN_WORDS content words, carrying a code
    block (not a list, a table or a program's output) of at most LEAD_IN_LINES non-fence lines, with those lines (the
    whole sentence first); "" for any other unit
    (a longer block, a configuration reference, holds passages of its own: its commented settings).
    Alone, such a sentence reads like nothing ("Example:", "By setting your config file to:", cosine 0.01-0.36)
    and the option the question asks for is in its block."""
    if not unit.attached or unit.output or not unit.sentence.rstrip().endswith(":") \
            or LIST_ITEM.match(unit.attached) or unit.attached.startswith("|") \
            or len(content_words(last_sentence(unit.sentence))) > LEAD_IN_WORDS:
        return ""
    code = [x for x in unit.attached.split("\n") if x.strip() and not _FENCE_LINE.match(x)]
    if not code or len(code) > LEAD_IN_LINES:  # a longer block is a reference whose entries are passages of their own
        return ""
    return f"{unit.sentence}\n" + "\n".join(code)
