"""The kind of thing a question asks for ("Which command ...", "What's the command?", "Is there a hook ...") and
whether a passage names one of that kind: the expected answer type of question answering, read from the question's
words and from how a passage presents an identifier ("the `runworker` command", "the `PIP_INDEX_URL` environment
variable", a shell block under a lead-in). `extractive.passage_scores` gives such a passage TYPE_BONUS: the question names
what it wants, the passage names it as that.
"""

from __future__ import annotations

import re

from ragls.answer.passages import Unit

__all__ = ["ANSWER_TYPES", "SHELL_BLOCK_LINES", "asked_type", "names_asked_type"]

SHELL_BLOCK_LINES = 12  # a shell block this short under a passage names commands; a longer one is a session or a log

# The kinds a question asks for, each with the words a question and a passage call it by (singular, lower case).
# Not options, flags, settings, keys or fields: documentation names nearly everything it describes so ("the `--check`
# option", "the `name` field"), so naming one does not tell the asked one from its neighbours; measured on 68 dev
# sets, the bonus for them reordered 61 answers for one key more and split reference entries from their fields
# (bench/history/session-69.md, "The kind of thing asked for").
ANSWER_TYPES: dict[str, tuple[str, ...]] = {
    "command": ("command", "subcommand"),
    "variable": ("variable", "environment variable", "env var"),
    "function": ("function", "method", "decorator", "callback", "hook"),
    "endpoint": ("endpoint", "route"),
    "header": ("header",),
}

# "Which command ...", "What's the command?", "What pip command", "Is there a hook ...", "Any variable ...": the
# asking words; the kind is one of the (at most three) words right after them ("Which environment variable").
_ASKS = (re.compile(r"\b(?:which|what(?:'s|’s| is| are)?(?: the)?|is there (?:a|an|any)|are there (?:any )?)\s+",
                    re.IGNORECASE), re.compile(r"\bany\s+", re.IGNORECASE))  # "any" only when no other asks
_WORD = re.compile(r"[A-Za-z][\w.-]*")
_KINDS = {name: kind for kind, names in ANSWER_TYPES.items() for name in names if " " not in name} | {"var": "variable"}
_SHELL = re.compile(r"^(?:`{3,}|~{3,})\s*(?:sh|shell|bash|zsh|fish|console|shell-session|sh-session|bash-session|"
                    r"powershell|ps1?|pwsh|cmd|bat)\b", re.IGNORECASE)
_PROMPT = re.compile(r"^\s*\$ \S", re.MULTILINE)  # a shell prompt line in a code block
_SPAN = r"`[^`\n]+`"


def asked_type(question: str) -> str | None:
    """The kind (a key of ANSWER_TYPES) `question` asks for — its word right after "which", "what (is/'s the)",
    "is there a(n)" (else "any"), at most two words between ("Which environment variable ...", "What pip command
    builds ...", "Is there a command that tidies it up?") — or None: a kind the question only mentions ("From a management
    command I want to push a message ...") is not asked for."""
    for m in (m for asks in _ASKS for m in asks.finditer(question)):
        for word in _WORD.findall(question[m.end():])[:3]:
            word = word.lower().rstrip(".")
            kind = _KINDS.get(word) or _KINDS.get(word[:-1] if word.endswith("s") else "")
            if kind is not None:
                return kind
    return None


def names_asked_type(unit: Unit, kind: str | None) -> bool:
    """Whether passage `unit` names an identifier as a thing of `kind` (`asked_type`): a code span right before
    or after one of the kind's words ("the `runworker` command", "command `X`"); for a command a shell block of at
    most SHELL_BLOCK_LINES lines it carries (a fence in a shell language, `$ ` prompt lines); for a function a span
    ending in "()"; for a variable an all-capitals span (`NO_COLOR`); for an endpoint a span that is a path
    (`/__metrics__`). False for no kind."""
    if kind is None:
        return False
    text = unit.sentence
    words = "|".join(re.escape(w) for w in ANSWER_TYPES[kind])
    if re.search(rf"{_SPAN}\s+(?:{words})s?\b|\b(?:{words})s?\s+{_SPAN}", text, re.IGNORECASE):
        return True
    spans = [s.strip("`") for s in re.findall(_SPAN, text)]
    if kind == "command":
        block = unit.attached or ""
        return block.count("\n") <= SHELL_BLOCK_LINES + 1 and bool(_SHELL.match(block) or _PROMPT.search(block))
    if kind == "function":
        return any(s.endswith(")") and "(" in s for s in spans)
    if kind == "variable":
        return any(re.fullmatch(r"\$?[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=\S*)?", s) for s in spans)
    if kind == "endpoint":
        return any(s.startswith("/") for s in spans)
    return False
