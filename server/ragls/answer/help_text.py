"""A program's `--help` output quoted in a page (argparse, optparse, click, cobra), read as passages: each option
with its description, and the program's description under its usage line.

Pages document a command line by pasting its help: a reST literal block after "::" (devpi's command reference,
coverage.py's `cmd_*.rst`, Kinto's `commandline.rst`), a fenced `console` block. Read as code, none of it was a
passage, so no answer could quote "--host HOST  domain/ip address to listen on. Use --host=0.0.0.0 if you want to
accept connections from anywhere." although retrieval found its chunk first. Here each option entry (`OPTION_ENTRY`:
its names and metavars, then two or more spaces and its description, or its description on the lines below)
is one passage with every line its description is wrapped over, led by the option as code ("`--host HOST`:
domain/ip address ..."); a word the help formatter broke at its hyphen is read whole ("devpi-" / "web" reads
"devpi-web"); so is a positional argument's entry ("url" over its description). The paragraph of prose under a
`usage:` line is the program's description, led by the program's
name ("`devpi-passwd`: Change password for a user directly in devpi-server database."). A long help output is
cut by the chunker: a chunk that opens inside one has no "::" above it; a reST chunk opening with an indented run of
option and argument entries, their descriptions and section titles ("web serving options:") is read as one
(`opening_help`, held literal by answer/markup.py; `help_passages` with `opened`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ragls.answer.rest import indent_of

__all__ = ["OPTION_ENTRY", "HelpPassage", "continues_entry", "help_passages", "joined", "opening_help"]

MIN_ENTRIES = 2  # option entries with a description that make a code block a program's help
MAX_TITLE_WORDS = 5  # a section title of a help output ("web serving options:") has at most this many words
MIN_WORDS = 4  # a description paragraph or a cut description's end this short is no passage (passages.MIN_WORDS)

# One option form: "-c", "--configfile", "--fail-under=MIN", "--role {a,b}", "-o OUTFILE", "--secretfile path",
# "--debug=OPTS", "--exclude-if-present filename[:header]"; then the forms of the same option after "," or " / " ("-c CONFIGFILE, --configfile CONFIGFILE",
# click's "--color / --no-color").
_FORM = (r"(?:--[A-Za-z0-9][\w.-]*|-[A-Za-z0-9?])"
         r"(?:[ =](?:<[^<>\s]+>|\{[^{}\s]+\}|\[[^\[\]\s]+\]|[A-Za-z_][\w.,:/\[\]-]*))?")
# A description on an entry's line, up to its last character that is no space or tab: written so, not as a lazy
# `\S.*?` before `[ \t]*$`, which retried the line's end at each character (a line of 32,000 spaces: 8 s)
_TEXT = r"\S(?:.*[^ \t])?"
# An option entry: its forms, then two or more spaces and its description, or nothing (the description below)
OPTION_ENTRY = re.compile(rf"^[ \t]*(?P<names>{_FORM}(?:(?:,[ ]?| / ){_FORM})*)(?:[ \t]{{2,}}(?P<text>{_TEXT}))?[ \t]*$")
# A positional argument's entry in a help output: an indented name, then two or more spaces and its description, or
# its description on the lines below ("  url     set current API endpoints to the ones obtained from the given url")
_POSITIONAL = re.compile(r"^[ \t]+(?P<names>[A-Za-z_][\w.-]*)(?:[ \t]{2,}(?P<text>" + _TEXT + r"))?[ \t]*$")
_USAGE = re.compile(r"^[ \t]*usage:[ \t]+(?P<prog>.*)$", re.IGNORECASE)
# "$ devpi-passwd -h": the words before the first -h / --help / help
_HELP_COMMAND = re.compile(r"^[ \t]*[$>%][ \t]+(?P<prog>[^ \t]+(?:[ \t]+(?!(?:-h|--help|help)\b)[^ \t]+)*?)[ \t]+(?:-h|--help|help)\b")
_PROG_WORD = re.compile(r"^[a-z][\w.-]*$")  # a word of a program's name or subcommand: "coverage", "json"
_HYPHEN_BREAK = re.compile(r"[A-Za-z]-$")  # a line a help formatter broke after a word's hyphen ("devpi-")
_WORD = re.compile(r"[A-Za-z]{2,}")  # a word of a description (an option's value in a command, "--keep-daily  7  \\", has none)


class HelpPassage(NamedTuple):
    """A passage of a help output: its text on one line, and the 0-based lines `line`..`end` of the block it
    spans. `passages.units` reads it as a `Unit` (a whole item)."""

    sentence: str
    line: int
    end: int


def help_passages(lines: list[str], opened: bool = False) -> list[HelpPassage]:
    """The passages of the code block `lines` when it is a program's help output, else []: each option and
    positional argument entry with its description (`_entries`), and each paragraph of the program's description (a block with a usage line). A
    block is help when MIN_ENTRIES of its option entries have a description. With `opened` (the block a chunk
    opens with, inside a help output: `opening_help`) one entry is enough, and the lines before its first entry,
    indented past it — the end of a description whose option the chunk before holds — are a passage of their
    own from their first whole sentence on (`_tail`)."""
    if sum(bool(text) for _, _, text in _entries(lines)) < (1 if opened else MIN_ENTRIES):
        return []
    entries = _entries(lines, positional=True)
    taken = {k for first, last, _ in entries for k in range(first, last + 1)}
    out = _described(lines, taken) + [HelpPassage(text, first, last) for first, last, text in entries if text]
    head = entries[0][0] if entries else len(lines)
    if opened and entries and all(indent_of(x) > indent_of(lines[head]) for x in lines[:head] if x.strip()):
        out += _tail(lines[:head])
    return sorted(out, key=lambda p: p.line)


def opening_help(lines: list[str]) -> int:
    """How many of a reST chunk's `lines` are the help output it opens inside (0 when it does not): the chunk's
    first line is indented and the run through the line before the first one at column 0 (the end of any reST
    body) holds a usage or "--help" prompt line and MIN_ENTRIES option entries with a description, or is made
    only of option and positional argument entries with their descriptions (an option at least with a description on its line,
    `OPTION_ENTRY`), section titles ("web serving options:") and, before the first entry, lines indented past it
    (the end of a description the chunk cut). The literal block's "::" (or the `.. code::` line) is in an earlier
    chunk, and the reST rules
    of answer/markup.py read its entries as a definition list ("--unix-socket UNIX_SOCKET:" over "path to unix
    socket ...") or its cut description as a paragraph ("[False] --hard-links use hard links ..."); such a run
    is held as literal and read by `help_passages`."""
    first = next((k for k, x in enumerate(lines) if x.strip()), None)
    if first is None or not indent_of(lines[first]):
        return 0
    end = first
    while end < len(lines) and (not lines[end].strip() or indent_of(lines[end])):
        end += 1
    entries = [e for e in _entries(lines[:end]) if e[2]]
    if not entries or not any(OPTION_ENTRY.match(lines[e[0]]).group("text") for e in entries):
        return 0
    if len(entries) >= MIN_ENTRIES and any(_USAGE.match(x) or _HELP_COMMAND.match(x) for x in lines[:end]):
        return end  # a whole help output: its usage line, its options (a code directive's body, cut from its line)
    entries = [e for e in _entries(lines[:end], positional=True) if e[2]]
    taken = {k for first_line, last, _ in entries for k in range(first_line, last + 1)}
    head = entries[0][0]
    fits = all(k in taken or _title(x) or (k < head and indent_of(x) > indent_of(lines[head]))
               for k, x in enumerate(lines[:end]) if x.strip())
    return end if fits else 0


def _entries(lines: list[str], positional: bool = False) -> list[tuple[int, int, str]]:
    """(first line, last line, description) of each option entry of `lines` (`OPTION_ENTRY`; not a line ending in
    a shell's "\\" nor one whose description on its line has fewer than two words: a command's options written one
    per line, "--keep-daily    7    \\"), and with `positional` (a block known to be help) each positional
    argument's (`_POSITIONAL`: "url" over "set current API endpoints ... If you have a web server with basic auth in
    front of devpi-server, then use a url like this: https://username:password@example.com/USER/INDEXNAME"): its
    description on its line and every line right below it that continues it (`continues_entry`; blank lines end it),
    joined (`joined`); "" when it has none (a positional argument's name alone, an entry of a usage line)."""
    out = []
    k = 0
    while k < len(lines):
        m = OPTION_ENTRY.match(lines[k]) or (_POSITIONAL.match(lines[k]) if positional else None)
        if not m or _USAGE.match(lines[k]) or lines[k].rstrip().endswith("\\") \
                or (m.group("text") and len(_WORD.findall(m.group("text"))) < 2):
            k += 1  # not an entry: a command's arguments continued on the next line ("--list  \\", "--keep  7  \\")
            continue
        indent = indent_of(lines[k])
        column = m.start("text") if m.group("text") else None  # where its description starts
        last = k
        while last + 1 < len(lines) and continues_entry(lines[last + 1], indent, column):
            last += 1
            column = indent_of(lines[last]) if column is None else column
        parts = ([m.group("text")] if m.group("text") else []) + [x.strip() for x in lines[k + 1:last + 1]]
        if m.re is _POSITIONAL and not parts:
            k += 1  # a name alone: a line of prose, not an argument
            continue
        out.append((k, last, f"`{m.group('names')}`: {joined(parts)}" if parts else ""))
        k = last + 1
    return out


def continues_entry(line: str, indent: int, column: int | None) -> bool:
    """Whether `line` continues the description of an option entry indented by `indent` whose description starts
    at `column` (None: not known yet, the entry's line holds none): it is indented past the entry and is no option
    entry of its own, unless it is indented to the description's column (a description line may open with an
    option: "--replica-file-search-path instead of ..."). cobra indents a long option without a short one past the
    short ones ("  -h, --help   help for generate" over "      --man directory   write man pages ..."), which
    is the next entry, not the description going on. (Also the rule of a description read on past its chunk's end:
    `across_chunks.option_continued`.)"""
    if not line.strip() or indent_of(line) <= indent:
        return False
    entry = OPTION_ENTRY.match(line)
    return entry is None or (column is not None and indent_of(line) >= column)


def joined(parts: list[str]) -> str:
    """Lines of a description joined by a space, but a word a help formatter broke after its hyphen ("devpi-" /
    "web is used") read whole ("devpi-web")."""
    text = ""
    for part in parts:
        if text and _HYPHEN_BREAK.search(text) and part[:1].islower():
            text += part
        else:
            text = f"{text} {part}" if text else part
    return text


def _program(lines: list[str]) -> str:
    """The name of the program whose help `lines` show, as code: the words after "usage:" up to its first
    option or argument ("usage: coverage json [options]" -> "`coverage json`"), else those before "-h" / "--help"
    on a prompt line ("$ devpi-passwd -h"); "" when neither names one."""
    for line in lines:
        m = _USAGE.match(line) or _HELP_COMMAND.match(line)
        if m:
            words = []
            for word in m.group("prog").split():
                if not _PROG_WORD.match(word):
                    break
                words.append(word)
            if words:
                return f"`{' '.join(words)}`"
    return ""


def _described(lines: list[str], taken: set[int]) -> list[HelpPassage]:
    """The paragraphs of prose of a help output `lines` (with a usage line) that no option entry takes (`taken`):
    each paragraph after the usage line (and the lines it wraps over, indented past it) that is neither a section
    title nor a prompt line, led by the program's name (`_program`)."""
    usage = next((k for k, x in enumerate(lines) if _USAGE.match(x)), None)
    if usage is None:
        return []
    prog = _program(lines)
    out = []
    k = usage + 1
    while k < len(lines) and lines[k].strip() and indent_of(lines[k]) > indent_of(lines[usage]):
        k += 1  # the usage line's own continuation
    while k < len(lines):
        if not lines[k].strip() or k in taken or _title(lines[k]) or _HELP_COMMAND.match(lines[k]):
            k += 1
            continue
        first = k
        while k < len(lines) and lines[k].strip() and k not in taken and not _title(lines[k]):
            k += 1
        text = joined([x.strip() for x in lines[first:k]])
        if text[:1].isupper() and len(text.split()) >= MIN_WORDS:
            out.append(HelpPassage(f"{prog}: {text}" if prog else text, first, k - 1))
    return out


def _title(line: str) -> bool:
    """Whether `line` is a section title of a help output ("options:", "web serving options:", "Options:")."""
    text = line.strip()
    return text.endswith(":") and len(text.split()) <= MAX_TITLE_WORDS and not OPTION_ENTRY.match(line)


def _tail(lines: list[str]) -> list[HelpPassage]:
    """The end of a description the chunk cut (`lines`, 0-based from the chunk's block), from its first whole
    sentence on (a sentence starting before the chunk is not whole: "postponed to run on server start. This allows
    much faster start ..." reads "This allows much faster start ..."), as a passage of at least MIN_WORDS words;
    else []."""
    text = joined([x.strip() for x in lines if x.strip()])
    if text[:1].islower():
        cut = re.search(r"[.!?]\s+(?=[A-Z])", text)
        text = text[cut.end():] if cut else ""
    if len(text.split()) < MIN_WORDS:
        return []
    return [HelpPassage(text, next(k for k, x in enumerate(lines) if x.strip()), len(lines) - 1)]
