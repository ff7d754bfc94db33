"""Whether the block after a sentence is what the sentence introduces, and whether it is a program's output (split
from answer/passages.py, which reads a chunk's passages): a sentence ending in ":", "..." or "e.g." comes with its block
whatever the block's words (`introduces`); a block that shows what a program prints is shown with its sentence but
not scored (`is_output`: `passages.Unit.output`).
"""

from __future__ import annotations

import re

from ragls.answer.blocks import FENCE_OPEN, Block, code_body
from ragls.answer.code_passages import config_language, fence_info
from ragls.answer.labels import CODE_SPAN
from ragls.answer.sentences import EXAMPLE_ABBREVIATION

# A sentence ending in the words that announce an example: "e.g.", "i.e." (`sentences.EXAMPLE_ABBREVIATIONS`), "for
# example.", "for instance."
EXAMPLE_END = re.compile(rf"(?:{EXAMPLE_ABBREVIATION}|\b[Ff]or (?:example|instance)\.)$")


def introduces(sentence: str) -> bool:
    """Whether `sentence`, the last of its paragraph, introduces the block right after it and so comes with it,
    whatever that block's words: it ends in ":" ("Install it with:"), in an ellipsis ("You can do so by first
    making sure to install the optional dependencies..." before `pip install pkg[http2]`) or in the words that
    announce an example (`EXAMPLE_END`: "You can use that in your configuration to conditionally setup only the
    compilation needed for Jest, e.g." before the `babel.config.js` it means; 33 paragraphs of the 62 dev corpora
    end so before a code block): the sentence says what to do and the block is how. Only the block's own words can
    tell whether a plain sentence before a block is about it (`passages.Unit.code_after`); an introducing one says
    so itself."""
    return sentence.endswith((":", "...", "…")) or EXAMPLE_END.search(sentence) is not None


def broken_off(sentence: str) -> bool:
    """Whether `sentence`, the last of its paragraph right before a code block, is broken off by that block: it ends
    in a lower-case word, no punctuation ("If you would prefer to not automatically execute the line, you can set"
    / `$COMPLETIONS_CONFIRM = True` / "in your xonsh RC."; "You can view the available styles by typing" / `xonfig
    styles`): the block is the object of its verb, as after a ":" (`introduces`), and comes with it."""
    return sentence[-1:].islower()


# Words saying the block after a sentence is what a program prints: anywhere in it ("you'll see output like
# this."), or in a sentence introducing the block (":", "This code will print the following:", "Running it gives:").
_OUTPUT_SAID = re.compile(r"\b(?:output (?:like|similar to|such as|(?:should|will|would|might) look)|(?:the )?"
                          r"following output|(?:will|should|would) print|prints? (?:out|the following|something)|"
                          r"(?:you|we)(?:'ll| will| should)? see (?:this|the following|something|output|an? \w+ like))",
                          re.IGNORECASE)
_OUTPUT_LEAD = re.compile(r"\b(?:(?:you|we|will|should|would|'ll) see|(?:will|should|would) (?:print|display|produce)|"
                          r"(?:it|this|which|that|and) (?:prints|displays|produces|outputs))\b", re.IGNORECASE)
# A line of a log: a level or a timestamp first ("DEBUG [2024-01-01 ...]", "2024-01-01 12:00:01,123 INFO ...").
_LOG_LINE = re.compile(r"^\s*(?:\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL)\b|\[?\d{4}-\d\d-\d\d|\[?\d\d:\d\d:\d\d)")
# A shell or REPL prompt opening a transcript ("$ cargo run", "(.venv)$ pip install", ">>> import x"): its command
# is what to run, so the block is not output only.
_PROMPT = re.compile(r"^\s*(?:\([^)]*\)\s*)?(?:\$|%|>>>|>|[A-Z]:\\[^>]*>)\s")


def is_output(sentence: str, block: Block) -> bool:
    """Whether code `block` after `sentence` (the last sentence of the paragraph before it) shows a program's
    output rather than code to write or run: every line reads as a log line (a level or a timestamp first), or the
    sentence says it is output (`_OUTPUT_SAID`, or `_OUTPUT_LEAD` in a sentence introducing the block: "If you
    run this code, you will see this output:", "This code will print the following:") and the block does not open
    with a prompt (a transcript's command is what to run). Such a block comes with its sentence but is not scored
    (`passages.Unit.scored_text`) nor offered as the code after a sentence (`neighbours.with_code_after`): a printout
    repeats the question's words without saying how to get it. Never a fenced block in a configuration language
    (`code_passages.CONFIG_LANGUAGES`: ```` ```toml ````, YAML, INI), which is settings to write: "By default, mdBook
    will include an icon ... that will print the book as a single page." over the `[output.html.print]` table
    (`page-break = true`) reads as announcing output (bench/history/session-65.md, "Key misses classified")."""
    body = code_body(block)
    if not body or _PROMPT.match(body[0]) or _configuration(block):
        return False
    if all(_LOG_LINE.match(x) for x in body):
        return True
    words = CODE_SPAN.sub("", sentence)  # "implement both `Display` and `Summary`:" names code, says no output
    return bool(_OUTPUT_SAID.search(words) or (introduces(words) and _OUTPUT_LEAD.search(words)))


def _configuration(block: Block) -> bool:
    """Whether `block` is a fenced code block whose language (the info string's first word) is one of
    `code_passages.CONFIG_LANGUAGES`."""
    return bool(block.lines) and FENCE_OPEN.match(block.lines[0]) is not None \
        and config_language(fence_info(block.lines[0]))
