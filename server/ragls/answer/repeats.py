"""An extractive answer quotes each block and each sentence once, whichever source it comes from (`quoted_once`).

Two pages often hold the same example: Flask's quickstart and its deployment tutorial both show `python -c 'import
secrets; print(secrets.token_hex())'`, one with a blank line before the output, each under a sentence of its own, and
an answer quoting both sentences showed the command twice. Blocks are compared by their code lines (`block_key`: the
fences, blank lines and whitespace runs aside), sentences by their words (`sentence_key`: case, whitespace and the
final punctuation aside).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragls.answer.blocks import FENCE_OPEN
from ragls.answer.identifiers import IDENTIFIER
from ragls.answer.passages import Unit

__all__ = ["block_key", "quoted_once", "sentence_key"]

_END = re.compile(r"[\s.:;!?]+$")


def block_key(block: str) -> tuple[str, ...]:
    """What two blocks (`Unit.attached`) are compared by: their non-blank lines that open no code fence, each
    with its whitespace runs as single spaces (a closing fence is one "```" line in either); () for ""."""
    return tuple(" ".join(x.split()) for x in block.split("\n") if x.strip() and not FENCE_OPEN.match(x))


def sentence_key(sentence: str) -> str:
    """What two sentences are compared by: lower-cased, whitespace runs as single spaces, final punctuation
    (".", ":", ";", "!", "?") dropped."""
    return _END.sub("", " ".join(sentence.split()).lower())


def _holds(text: str, key: str) -> bool:
    """Whether `sentence_key` `key` is in `text` (another one) as whole words: "run it" in "then run it. done"."""
    return re.search(rf"(?<!\S){re.escape(key)}(?![^\s.:;!?,])", text) is not None


def quoted_once(picked: list[tuple[int, Unit]]) -> list[tuple[int, Unit]]:
    """`picked` (`(n, unit)` passages in answer order) with each block and each sentence shown once, under the first
    passage showing it:

    - a block shown already (the same lines of the same chunk — two sentences of one paragraph can both carry the
      code block after it, `Unit.code_after` — or the same code, `block_key`, from any source): a later passage
      keeps its sentence without it, a ":" at its end becoming "."; but a ":" sentence naming no identifier
      (`identifiers.IDENTIFIER`: "You can use the following command to output a random secret key:") only points at
      the block and is left out;
    - a sentence an earlier passage's sentence holds (`sentence_key`; a sentence read with its neighbours holds
      them), with no block or a block shown already: left out. With a block not shown yet it stays, as the caption
      of that block (a page's tabs repeat "Sets the maximum request body to 2MB:" over its YAML and its TOML).

    Each left-out passage's source keeps its place among the sources; it is cited where it adds something."""
    shown: set[tuple[int, int]] = set()
    blocks: set[tuple[str, ...]] = set()
    said: list[str] = []
    out = []
    for n, unit in picked:
        key = sentence_key(unit.sentence)
        repeated = bool(key) and any(_holds(earlier, key) for earlier in said)
        if unit.attached:
            code = block_key(unit.attached)
            below = unit.block_end > unit.end  # a block under the sentence (not a tab's title over its own block)
            if (below and (n, unit.block_end) in shown) or (code and code in blocks):
                if repeated or (unit.sentence.rstrip().endswith(":") and not IDENTIFIER.search(unit.sentence)):
                    continue
                sentence = unit.sentence[:-1].rstrip() + "." if unit.sentence.endswith(":") else unit.sentence
                unit = replace(unit, sentence=sentence, attached="", block_end=unit.end)
            else:
                if below:
                    shown.add((n, unit.block_end))
                blocks.add(code)
        elif repeated:
            continue
        said.append(key)
        out.append((n, unit))
    return out
