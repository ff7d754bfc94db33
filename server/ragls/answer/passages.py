"""Passages of a chunk text for answers and citations: its blocks, and the sentences and list items in them, each
with the lines it spans.

The text is read as blocks (`answer/blocks.py`): paragraphs (split into sentences), list items, definition list
items (MyST's `term` / `: definition`, each definition one unit led by its term, `_definitions`), fenced and indented
code blocks (Markdown's 4-space blocks, reST's literal blocks after "::"), pipe tables (each data row one unit,
whole), headings and reST directive lines (skipped); in a fenced configuration block (```` ```toml ````, YAML, INI:
`code_passages.CONFIG_LANGUAGES`) each comment with the setting under it is a passage (`_commented`), as in a code
file.
A sentence ends at its punctuation, not at a line break: a paragraph or list item hard-wrapped over several source
lines is read whole, and each sentence knows the lines it spans (`Unit.line`..`Unit.end`), which is what
`focusRange` cites (retrieval/focus.py). A list item is one unit, all of its lines (its sentences are not split:
"The **pool** timeout ... acquiring / a connection ... `PoolTimeout` is raised" answers whole). A sentence ending in
":" keeps the list or code block that follows it (`Unit.attached`, through line `Unit.block_end`), verbatim and
indented under its bullet (answer/attached.py), so a "run these steps:" answers with the steps (found past HTML tag
lines and reST directive lines between them; one whose block is not in the chunk is dropped or ends in ".", `_dangling`); lists
and code are never flattened into one line; a sentence ending in "..." introduces its block as ":" does (`program_output.introduces`),
the code block after a paragraph can come with any of its sentences (`Unit.code_after`), and a block that shows a
program's output is shown, not scored (`program_output.is_output`). Markup that is not text is removed first (`clean_markup`,
answer/markup.py): heading ids `{ #anchor }`, mkdocstrings `::: module.path` lines, include directives
`{* file *}` / `{! file !}`, HTML comments, reST roles (`:meth:`~a.b`` reads as `b`) and reST section
titles with their underlines; admonitions (reST `.. note::`, mkdocs `!!! note`, MyST ```` ```{note} ```` and
`:::{note}`) are read as the prose they hold, MyST code directives (```` ```{code-block} python ````) as code; reST
tables, field lists, Sphinx object descriptions, roles and literal blocks are rewritten first by `answer/rest.py`;
each passage's inline markup (links, images, footnote marks, inline HTML tags, reST hyperlink references) is read by
`answer/inline.py`. A passage right under a heading that names an identifier ("#### `--check`", "## timeout=",
"### NO_PROXY") is led by it (`heading_label`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragls.answer import includes, program_output, rest, rest_tables, table_columns
from ragls.answer.attached import attached_block, nested_items
from ragls.answer.blocks import (
    DEFINITION,
    LIST_ITEM,
    TABLE_SEPARATOR,
    Block,
    between,
    block_end,
    chunk_markdown,
    code_body,
    continuation,
    is_markdown,
    parsed,
    section_title,
    split_row,
)
from ragls.answer.code_passages import code_passages, config_comments
from ragls.answer.help_text import help_passages
from ragls.answer.includes import FileFilters, included_block
from ragls.answer.inline import plain
from ragls.answer.labels import bare_heading_label, heading_label, item_label, labelled, paragraph_label
from ragls.answer.markup import clean_markup
from ragls.answer.openings import opening_lines
from ragls.answer.ref_titles import section_refs
from ragls.answer.sentences import item_sentences, join_next, joined_lines, sentence_spans
from ragls.sources.convert import CONVERTED_EXTENSIONS, extension
from ragls.sources.load import kind_for

if TYPE_CHECKING:
    from ragls.core.ir import Chunk
    from ragls.sources.walk import FileFilter

# clean_markup is re-exported: answer/extractive.py reads it from here
__all__ = ["EXTRACTIVE_MAX_SENTENCE_CHARS", "Unit", "chunk_markdown", "chunk_units", "clean_markup", "is_markdown", "units"]

EXTRACTIVE_MAX_SENTENCE_CHARS = 400
LEAD_IN_MAX_WORDS = 8  # a paragraph's last sentence this short that ends in ":" joins the sentence before it
LABELLED_BLOCKS = 3  # paragraphs and lists right under an identifier heading that are led by it (heading_label)
MIN_WORDS = 4  # a passage has at least this many words; a shorter sentence joins the one after it in its paragraph

# A paragraph that is one emphasised phrase: an inline HTML element ("<i>Experimental</i>") or Markdown emphasis.
_STATUS = re.compile(r"^\s*(?:<(\w+)[^<>]*>[^<>]+</\1>|\*{1,2}[^*]+\*{1,2}|_{1,2}[^_]+_{1,2})\s*$")
_DEFAULT = rest.DEFAULT_VALUE  # "Default is ``300``.", "Defaults to None.", "**default**: `gh-pages`"
# A version note: "Added in lefthook `2.0.17`", "New in version 3.2.", "Deprecated since 2.0" (what the page's title
# names is not what it says)
_VERSION_NOTE = re.compile(r"^(?:Added|Introduced|New|Changed|Deprecated|Removed)\b[^.]{0,40}?\d")
def _cap(sentence: str) -> str:
    if len(sentence) > EXTRACTIVE_MAX_SENTENCE_CHARS:
        return sentence[:EXTRACTIVE_MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
    return sentence


@dataclass
class Unit:
    """A candidate of the answer: a sentence (or a whole list item), possibly with the block it introduces.
    `line`..`end` are the 0-based chunk-text lines the sentence spans (inclusive); `block_end` is the last line of
    the block it introduces (`attached`), else `end`. `code_after` is the code block right after a paragraph's last
    sentence that does not end in ":" ("... to increase this number." then `PoolManager(num_pools=50)`), as
    `attached` would show it, through line `code_end`: an answer shows it when it names what the question asks
    (`neighbours.with_code_after`). Every sentence of that paragraph carries it, not only the last: "Requests will
    be retried the given number of times on a ConnectError. If you need other forms of retry, use a library." then
    `Transport(retries=1)` answers a question about retries with its first sentence, and the option is in the code.
    Only the last sentence is scored with it (`code_scored`, `scored_text`): the block's words are evidence for the
    sentence right before it; for the others the code is shown, not scored, so a paragraph above a block does not
    rank all of its sentences by the block's words. `item` marks a list item, a table row or a reST field (which
    `rest.fields` makes a list item): a whole unit of its own, never read with the passage before or after it
    (`neighbours.read_with_neighbours`). `titled` marks a section title standing in as the lead-in of the code block
    right under it ("Uninstall all:" / `$ pipx uninstall-all`): scored on the title's words alone, as the block's
    words are the section's, not evidence that this step is what a question asks (a "# Settings" title over a
    TOML example would otherwise answer for every key in it). `shown`, when set, is what an answer shows instead of
    `sentence` (a table row with its columns' names, `table_columns`), which is what is scored and embedded. `lead`,
    when set, is the name an answer shows the passage led by (`labels.labelled`) and nothing scores: the bare name
    its section's heading is (`labels.bare_heading_label`: "languages" over "A list of locale names to search for
    preferred aliases.")."""

    sentence: str
    attached: str = ""
    line: int = 0
    end: int = -1
    block_end: int = -1
    code_after: str = ""
    code_end: int = -1
    code_scored: bool = True
    output: bool = False
    item: bool = False
    titled: bool = False
    shown: str = ""
    lead: str = ""

    def __post_init__(self) -> None:
        self.end = max(self.end, self.line)
        self.block_end = max(self.block_end, self.end)

    @property
    def text(self) -> str:
        return f"{self.sentence}\n{self.attached}" if self.attached else self.sentence

    @property
    def scored_text(self) -> str:
        """What the unit is scored on: the sentence with the code block or paragraph it introduces (code holds the
        names a question asks for), without a list or table it introduces (each item or row is a unit of its own,
        scored on its own), and without a block that is a program's output (`output`, `program_output.is_output`): a log printout
        or transcript repeats the question's words ("DEBUG ... debug logging") without saying how to get it, and
        outranked the `logging.basicConfig(level=logging.DEBUG)` that produces it; a `titled` unit on its title."""
        if self.output or self.titled:  # a program's output is evidence of the topic, not the answer (`program_output.is_output`)
            return self.sentence
        carried = self.attached and not LIST_ITEM.match(self.attached) and not self.attached.startswith("|")
        text = self.text if carried else self.sentence
        return f"{text}\n{self.code_after}" if self.code_after and self.code_scored else text


def units(text: str, lines: tuple[int, int] | None = None, markdown: bool = True, source: str = "",
          folder: str = "", files: FileFilter | None = None, table_header: str = "") -> list[Unit]:
    """Answer candidates of a chunk text (after `clean_markup`), restricted to blocks overlapping the 0-based
    chunk-text `lines` (inclusive) when given. Sentences and list items have at least MIN_WORDS words (a shorter
    sentence is read with the one after it; a paragraph "Default: ``False``", or a short lead-in paragraph "For
    example:" with the block it introduces, with the paragraph before it). Memoised per
    (text, lines): a chunk's windows come back on many queries; callers do not modify the units. `markdown`: whether
    the text is Markdown (`blocks.chunk_markdown`: True), else reST (False) or plain text (None), read line by line (`blocks.parsed`). `source`
    (the chunk's path, relative to the indexed `folder`): a ":" sentence over a `.. literalinclude::` (MyST:
    ```` ```{literalinclude} ````) carries
    the included file's code (`includes.included_block`, as `files` allows: the FileFilter of the folder's open
    index), and a fence of pymdownx.snippets lines (`--8<-- "docs/examples/app.py"`) the code of the files they
    name (`includes.snippets`); the memo is keyed by the included files' modification times, so an edited example shows as it is
    now. `table_header`: the header row of the pipe table the text opens inside (`table_columns.header_above`)."""
    key = (source, folder, files, includes.stamps(text, source, folder, files)) if source else ("", "", None, ())
    return list(_units(text, None if lines is None else (lines[0], lines[1]), markdown, *key, table_header))


def chunk_units(chunk: Chunk, lines: tuple[int, int] | None = None, files: FileFilters | None = None
                ) -> list[Unit]:
    """`units` of a chunk's text: read as its markup (`blocks.chunk_markdown`), its literalinclude lines with
    the code they include (as the FileFilter of the chunk's folder in `files` allows: {folder: the filter of its
    open index}, handed down by the workspace; a folder without one: the default sources settings); a code file's (`sources.load.kind_for`) are its docstrings and comments with the code
    they document (`code_passages.code_passages`, each of at least MIN_WORDS words); not an HTML page's, converted to
    Markdown text when indexed. A reST chunk that opens at its section title's underline is read with the title's
    line (`openings.opening_lines`, from the file; its passages on the chunk's lines). A Markdown chunk that opens inside a pipe table reads its rows under the table's
    header from the file (`table_columns.header_above`)."""
    if kind_for(chunk.path) == "code" and extension(chunk.path) not in CONVERTED_EXTENSIONS and "://" not in chunk.path:
        return [Unit(_cap(p.sentence), p.attached, p.line, p.end, p.end)
                for p in code_passages(chunk.text, lines) if len(p.sentence.split()) >= MIN_WORDS]
    markdown = chunk_markdown(chunk)
    header = table_columns.header_above(chunk) if markdown and extension(chunk.path) not in CONVERTED_EXTENSIONS \
        else ""
    before = opening_lines(chunk)
    text = chunk.text if markdown else section_refs(chunk.text, chunk.document,
                                                    files.get(chunk.folder) if files else None)
    if not before:
        return units(text, lines, markdown, chunk.path, chunk.folder, files.get(chunk.folder) if files else None,
                     header)
    # a reST chunk opening at its section title's underline: read with the title line above it
    k = len(before)
    found = units("\n".join([*before, text]), None if lines is None else (lines[0] + k, lines[1] + k), markdown,
                  chunk.path, chunk.folder, files.get(chunk.folder) if files else None, header)
    return [replace(u, line=max(0, u.line - k), end=u.end - k, block_end=u.block_end - k,
                    code_end=u.code_end - k if u.code_end >= 0 else -1) for u in found if u.end >= k]


@functools.lru_cache(maxsize=2048)
def _units(text: str, lines: tuple[int, int] | None, markdown: bool = True, source: str = "", folder: str = "",
           files: FileFilter | None = None, _stamps: tuple[tuple[str, int], ...] = (), table_header: str = ""
           ) -> tuple[Unit, ...]:
    blocks = parsed(text, markdown)
    if _stamps and markdown:  # a fence of pymdownx.snippets lines: the code of the files they name
        blocks = includes.snippets(blocks, source, folder, files)
    out: list[Unit] = []
    heading = ""  # the identifier the section's heading names ("`--check`"), else ""
    title = False  # that heading is the page's title ("# `MaskErrors`")
    below: list[str] = []  # the kinds of the blocks since that heading
    named = ""  # the bare name the section's heading is ("languages", `bare_heading_label`), shown, not scored
    mark, shown_by = 0, ""  # where the current block's passages start in `out`, and the name they are shown led by
    for k, b in enumerate(blocks):
        _lead(out[mark:], shown_by)
        mark, shown_by = len(out), ""
        if b.kind == "skip" and (b.lines[0].lstrip().startswith("#") or len(b.lines) == 2):
            # a page's title ("# `@scope/widget`", the package) is not what each of its sentences documents, only
            # what the first sentence of its first paragraph does: "This extension hides ..." under "# `MaskErrors`"
            # (Strawberry), "Whether hide spinner and other interactive things." under "# `no_tty`" (Lefthook, a
            # page per option; not a "**Default:** ..." line or a version note)
            title = b.lines[0].lstrip().startswith("# ")
            heading = heading_label(b.lines[0])
            named = "" if heading else bare_heading_label(b.lines[0])
            below = []
        elif b.kind != "skip" and not _status_line(b):
            below.append(b.kind)
        # labelled: the prose right under the heading, up to LABELLED_BLOCKS paragraphs and lists before any code or
        # table ("### NO_PROXY" / "Valid values: a list of hostnames" / "Disables the proxy for specific urls."); a
        # code block first under the heading is its synopsis, not an example that ends the prose ("### `caddy
        # validate`" / `caddy validate [-c, --config <path>]` / "Validates a configuration file, then exits.")
        prose = below[1:] if below[:1] == ["code"] and len(below) > 1 else below
        fits = len(prose) <= LABELLED_BLOCKS and set(prose) <= {"para", "list", "deflist"}
        label = heading if fits else ""
        title_label, label = (label, "") if title else ("", label)
        shown_by = named if fits and not title and b.kind in ("para", "list", "deflist") else ""
        if lines is not None and (b.start + len(b.lines) - 1 < lines[0] or b.start > lines[1]):
            continue
        # the block a ":" sentence introduces; a reST directive line (".. code-block:: python") or an HTML tag line
        # (mdBook's `<Listing ...>`, `<span class="filename">Filename: src/main.rs</span>`) in between is skipped
        nxt = next((x for x in blocks[k + 1:k + 4] if not between(x)), None)
        if _stamps:  # a literalinclude, maybe inside a dropdown or a tab (their directive lines): its file's code
            nxt = _included(text, blocks[k + 1:k + 4], source, folder, files) or nxt
        if nxt is not None and nxt.kind == "code" and not code_body(nxt):
            nxt = None  # a code block that only included a file (its include line removed): nothing to show
        introduces = nxt is not None and nxt.kind in ("list", "code", "table")
        if b.kind == "skip" and nxt is not None and nxt.kind == "code" and (name := section_title(b)):
            # a step that is only a code block under its title ("Uninstall all" / `$ pipx uninstall-all`): the
            # title introduces it as a ":" sentence would (no other passage shows that block)
            name = plain(name, markdown).rstrip(":")
            out.append(Unit(_cap(f"{name}:"), attached_block(nxt, markdown), b.start, b.start, block_end(nxt), titled=True))
            continue
        if b.kind == "para":
            sentences = sentence_spans(*joined_lines(b.lines, b.start), markdown)
            if sentences and _lead_in(sentences[-1][0]) and not introduces:  # what it introduces is not here
                s, first, last = sentences.pop()
                sentences += [(d, first, last)] if (d := _dangling(s)) else []
            if len(sentences) > 1 and len(sentences[-1][0].split()) <= LEAD_IN_MAX_WORDS \
                    and sentences[-1][0].endswith(":"):
                # "So how do you register it? Like this::" + code, "... to the test binary. Take a look at the
                # following example:" + code: a short lead-in joins the sentence that says what the block shows
                join_next(sentences, len(sentences) - 2)
            if sentences and sentences[0][0][:1].islower() and (b.start == 0 or _resumes(out, blocks, k)):
                # the chunk opens mid-sentence (its overlap with the one before), or the paragraph ends a sentence
                # its code block broke off ("..., you can set" / `$X = True` / "in your xonsh RC.")
                sentences = sentences[1:]
            for pos in range(len(sentences) - 1, 0, -1):
                if _DEFAULT.match(sentences[pos][0]) and len(sentences[pos][0].split()) <= LEAD_IN_MAX_WORDS:
                    # "A delay for the graceful shutdown in seconds. Default is ``60.0``.": the value stays
                    join_next(sentences, pos - 1)
            for pos in range(len(sentences) - 2, -1, -1):
                if sentences[pos][0].endswith("?") and not sentences[pos + 1][0].endswith("?"):
                    # "Q: Why do my jobs run twice? A: A job that exceeds its timeout is retried.": a question in
                    # the docs is read with the sentence that answers it, never quoted alone as an answer
                    join_next(sentences, pos)
            for pos in range(len(sentences) - 2, -1, -1):
                if len(sentences[pos][0].split()) < MIN_WORDS and not _lead_in(sentences[pos][0]):
                    # "It's impossible. Choosing what to compress ... is a tricky matter.": the short answer stays
                    join_next(sentences, pos)
            if len(sentences) == 1 and _DEFAULT.match(sentences[0][0]) and _continues(out, blocks, k):
                # "Default: ``False``" as a paragraph of its own under the paragraph it completes (Flask's config
                # values): read with that paragraph's last sentence, which no longer ends its passage
                z, _, last = sentences[0]
                out[-1] = replace(out[-1], sentence=_cap(f"{out[-1].sentence} {z}"), end=last, block_end=last)
                continue
            if len(sentences) == 1 and introduces and _lead_in(z := sentences[0][0]) \
                    and len(z.split()) <= LEAD_IN_MAX_WORDS and _continues(out, blocks, k):
                # "... more specific routes are listed before general cases." / "For example:" / the code: a short
                # lead-in paragraph of its own introduces its block for the paragraph before it, as within one
                # paragraph (above); alone it is under MIN_WORDS and its block was shown by no passage
                z = z[:-2].rstrip() + ":" if z.endswith("::") else z
                # reST's expanded form, a paragraph of "::" alone, is not text (the sentence before keeps its end)
                joined = f"{out[-1].sentence} {z}" if z != ":" else out[-1].sentence
                out[-1] = replace(out[-1], sentence=_cap(joined), attached=attached_block(nxt, markdown), end=sentences[0][2],
                                  block_end=block_end(nxt), output=nxt.kind == "code" and program_output.is_output(joined, nxt))
                continue
            # the heading's name counts as a word of a passage it labels: "### NO_PROXY" / "Disables the proxy."
            sentences = [s for s in sentences if len(s[0].split()) + bool(label) >= MIN_WORDS]
            code_next = nxt is not None and nxt.kind == "code" and not _closed(text, b, blocks[k + 1], markdown)
            opener = paragraph_label(sentences[0][0]) if sentences and not label else ""
            for pos, (s, first, last) in enumerate(sentences):
                if s.endswith("::"):  # reST's literal-block marker reads as one ":" ("Example::", "Example ::")
                    s = s[:-2].rstrip() + ":"
                s = labelled(s, label or (opener if pos else "") or (title_label if pos == 0 and below == ["para"] and not _DEFAULT.match(s)
                                          and not _VERSION_NOTE.match(s) else ""))
                if pos == len(sentences) - 1 and introduces and (program_output.introduces(s) or (
                        nxt.kind == "code" and program_output.broken_off(s))):
                    out.append(Unit(_cap(s), attached_block(nxt, markdown), first, last, block_end(nxt),
                                    output=nxt.kind == "code" and program_output.is_output(s, nxt)))
                elif code_next:
                    # any sentence of the paragraph; the last scored with it
                    out.append(Unit(_cap(s), "", first, last, code_after=attached_block(nxt, markdown), code_end=block_end(nxt),
                                    code_scored=pos == len(sentences) - 1, output=program_output.is_output(sentences[-1][0], nxt)))
                else:
                    out.append(Unit(_cap(s), "", first, last))
        elif b.kind == "list":
            for j, line in enumerate(b.lines):
                if not LIST_ITEM.match(line):
                    continue
                cont = continuation(b.lines, j)
                item = joined_lines(b.lines[j:j + 1 + cont], b.start + j)[0]
                item = plain(item, markdown)
                if len(item.split()) + bool(label) < MIN_WORDS:
                    continue
                if item.endswith("::"):  # reST's literal-block marker, as in a paragraph
                    item = item[:-2].rstrip() + ":"
                item = labelled(item, label)
                nested, n_nested = nested_items(b.lines, j, cont, markdown)
                last = b.start + j + cont
                if item.endswith(":") and nested:
                    out.append(Unit(_cap(item), nested, b.start + j, last, last + n_nested, item=True))
                elif program_output.introduces(item) and last == block_end(b) and nxt is not None and nxt.kind == "code":
                    out.append(Unit(_cap(item), attached_block(nxt, markdown), b.start + j, last, block_end(nxt),
                                    output=program_output.is_output(item, nxt), item=True))
                elif item.endswith(":") and last == block_end(b) and _item_body(line, blocks[k + 1:k + 2]):
                    # "2. Disable the check entirely:", a blank line, then "   ``await resp.json(content_type=None)``."
                    body = blocks[k + 1]
                    out.append(Unit(_cap(item), attached_block(body, markdown), b.start + j, last, block_end(body), item=True))
                elif len(item) > EXTRACTIVE_MAX_SENTENCE_CHARS and not _lead_in(item) \
                        and len(pieces := item_sentences(b.lines[j:j + 1 + cont], b.start + j, MIN_WORDS, markdown)) > 1:
                    # an item as long as a paragraph, which whole would be cut: its sentences, as a paragraph's, the
                    # later ones led by the name it opens with ("**stream_close_delay** is ... Enabling this ...")
                    lead = item_label(b.lines[j])
                    out += [Unit(_cap(labelled(x, lead if n else label)), "", first, end)
                            for n, (x, first, end) in enumerate(pieces)]
                elif (item := _dangling(item) if _lead_in(item) else item):  # no sub-list: it introduces nothing
                    out.append(Unit(_cap(item), "", b.start + j, last, item=True))
        elif b.kind == "deflist":
            out += _definitions(b, label, nxt, markdown)
        elif b.kind == "table":
            out += _table_rows(b, markdown, table_header if k == 0 else "")
        elif b.kind == "code":
            out += _commented(b, blocks[k - 1] if k else None) + _help(b, opened=k == 0 and not markdown)
    _lead(out[mark:], shown_by)
    return tuple(out)


def _lead(passages: list[Unit], name: str) -> None:
    """Set `Unit.lead` of `passages` (the passages of one block, being built) to `name` where none is set."""
    if not name:
        return
    for u in passages:
        if not u.lead:
            u.lead = name


def _commented(block: Block, before: Block | None) -> list[Unit]:
    """The comment passages of a configuration code block (`code_passages.config_comments`; `before`: the block
    before it, a reST code directive's line), of at least MIN_WORDS words, as chunk-text lines."""
    directive = before.lines[-1] if before is not None and before.kind == "skip" else ""
    return [Unit(_cap(p.sentence), p.attached, block.start + p.line, block.start + p.end, block.start + p.end)
            for p in config_comments(block.lines, directive) if len(p.sentence.split()) >= MIN_WORDS]


def _help(block: Block, opened: bool = False) -> list[Unit]:
    """The passages of a program's help output in code `block` (`help_text.help_passages`; `opened`: the block a
    reST chunk opens with, maybe inside one), each a whole item, as chunk-text lines."""
    return [Unit(_cap(p.sentence), "", block.start + p.line, block.start + p.end, item=True)
            for p in help_passages(block.lines, opened)]


def _definitions(block: Block, label: str, nxt: Block | None, markdown: bool = True) -> list[Unit]:
    """The definitions of a definition list item (`blocks.DEFINITION`), each one unit, whole, led by its term as a
    list item is by its text: "{func}`~structlog.stdlib.add_log_level`:" / "" / ": Adds the log level to the event
    dictionary under the key `level`." reads "`add_log_level`: Adds the log level to the event dictionary under
    the key `level`.", spanning the term's line through the definition's last. The term is what the definition
    documents (a processor, an option): without it the definition says what it does, never what it is. A definition
    whose term is not in the chunk is read alone, led by the section's `label`; one ending in ":" comes with the
    code block, list or table right after it ("Compare:" + the code; Cargo's "`--color` when: Control when colored
    output is used. Valid values:" + its list), as a paragraph's last sentence does."""
    lines = block.lines
    first = next((k for k, x in enumerate(lines) if DEFINITION.match(x)), len(lines))
    term = plain(" ".join(x.strip() for x in lines[:first] if x.strip()), markdown).rstrip(":").rstrip()
    starts = [k for k in range(first, len(lines)) if DEFINITION.match(lines[k])]
    out: list[Unit] = []
    for n, k in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = [x.strip() for x in lines[k:stop] if x.strip()]
        text = plain(" ".join([body[0][1:].strip(), *body[1:]]), markdown)
        if not text:
            continue
        last = block.start + k + len(body) - 1
        sentence = f"{term}: {text}" if term else labelled(text, label)
        if len(sentence.split()) < MIN_WORDS:
            continue
        if program_output.introduces(sentence) and n == len(starts) - 1 and nxt is not None and nxt.kind in ("code", "list", "table"):
            out.append(Unit(_cap(sentence), attached_block(nxt, markdown), block.start, last, block_end(nxt),
                            output=nxt.kind == "code" and program_output.is_output(sentence, nxt), item=True))
        elif (sentence := _dangling(sentence) if _lead_in(sentence) else sentence):
            out.append(Unit(_cap(sentence), "", block.start, last, item=True))
    return out


def _status_line(block: Block) -> bool:
    """Whether `block` is a paragraph that is one emphasised phrase of fewer than MIN_WORDS words, a status note
    under a heading rather than prose (`_STATUS`: Caddy's "<i>⚠️ Experimental</i>" over a command's synopsis,
    "*Introduced in 2.4.0*"): it neither counts among the blocks a heading labels nor ends them."""
    return block.kind == "para" and len(block.lines) == 1 and len(block.lines[0].split()) < MIN_WORDS \
        and bool(_STATUS.match(block.lines[0]))


def _continues(out: list[Unit], blocks: tuple[Block, ...], k: int) -> bool:
    """Whether the last passage in `out` is the last sentence of a paragraph right before block `k` (only blank
    lines between), carrying no block: a short default statement or a short lead-in ("For example:") in block `k`
    completes it."""
    if not out or k == 0 or blocks[k - 1].kind != "para":
        return False
    u = out[-1]
    return u.end == block_end(blocks[k - 1]) and u.block_end == u.end and not u.code_after \
        and blocks[k].start - u.end <= 2


def _item_body(item_line: str, after: tuple[Block, ...]) -> bool:
    """Whether the block `after` (the one right after a list item's block) is a paragraph of that item: indented
    to at least the item's text column (`rest.content_indent`; CommonMark 5.2 and reST read such a paragraph, after
    a blank line, as the item's own). A list item ending in ":" introduces it, as a sentence introduces the list
    or code block after it."""
    if not after or after[0].kind != "para":
        return False
    column = rest.content_indent(item_line)
    return all(len(x) - len(x.lstrip()) >= column for x in after[0].lines if x.strip())


def _included(text: str, after: tuple[Block, ...], source: str, folder: str, files: FileFilter | None
              ) -> Block | None:
    """The code of the first `.. literalinclude::` among the directive lines right after a block (`between`: a
    `.. dropdown::` or `.. tab-item::` line may stand before it, as in Litestar's "Click to see the code"), as
    `includes.included_block` reads it (a MyST ```` ```{literalinclude} ```` fence is a code block of its own); None
    when a block that is no directive line comes first."""
    for x in after:
        if (code := included_block(text, x.start, source, folder, files)) is not None:
            return code
        if x.kind != "skip" or not between(x):
            return None
    return None


def _closed(text: str, block: Block, after: Block, markdown: bool) -> bool:
    """Whether reST `block` (a paragraph) is the end of a body that `after`, the block right after it, is outside
    of: its last line is indented deeper in `text` (the chunk text as written) than `after`'s first line. A
    `.. note::` body is dedented to read as prose (`rest.admonitions`), and the `.. code-block::` after the note
    then followed the note's last paragraph ("For a more high level approach ..., see /usage/websockets" carried
    the `@websocket` example of the sentence before the note)."""
    if markdown:
        return False
    lines = text.split("\n")
    last, first = block_end(block), after.start
    return last < len(lines) and first < len(lines) and rest.indent_of(lines[last]) > rest.indent_of(lines[first])


def _resumes(out: list[Unit], blocks: list[Block], k: int) -> bool:
    """Whether paragraph `blocks[k]` comes right after the code block that the last passage `out[-1]`, a sentence
    broken off by it (`program_output.broken_off`), carries: its first words end that sentence."""
    return bool(out) and k > 0 and blocks[k - 1].kind == "code" and bool(out[-1].attached) \
        and out[-1].block_end == block_end(blocks[k - 1]) and program_output.broken_off(out[-1].sentence)


def _lead_in(sentence: str) -> bool:
    """Whether `sentence` ends in ":" (or reST's "::"): it introduces what follows it."""
    return sentence.rstrip().endswith(":")


def _dangling(sentence: str) -> str:
    """A ":" sentence whose list or code block is not in the chunk (the chunk ends, a heading follows, an mdBook
    `{{#include}}` was the block): "" for a bare lead-in of at most LEAD_IN_MAX_WORDS words ("The detailed
    procedure is:", "Here are some examples:"), which says nothing without its block; a longer one keeps what it
    says, ending in "." ("... adds the newly created package to the `members` key ..., like this."), so no answer
    bullet ends in ":" with nothing under it."""
    if len(sentence.split()) <= LEAD_IN_MAX_WORDS:
        return ""
    return sentence.rstrip().rstrip(":").rstrip() + "."


def _table_rows(block: Block, markdown: bool = True, header: str = "") -> list[Unit]:
    """The data rows of a pipe table, each one unit, whole: its cells (markup reduced, `inline.plain`) joined by " | "
    ("`timeout` | `5.0` | The default timeout, in seconds"), spanning the source lines a reST row was wrapped over
    (`rest_tables.ROW_CONTINUED`); a row of fewer than 3 words (cells are terse) and the header row (the row above the
    |---| separator) are left out. As an answer shows a row (`Unit.shown`; it is scored and embedded as written),
    the cells of a column of values but the first (the row's key) are led by the column's name (`table_columns`:
    "`--config.file` | Prometheus configuration file path. | Default: `prometheus.yml`"), from the table's header
    row or, for a chunk that opens inside a table, `header` (the header row above the chunk,
    `table_columns.header_above`)."""
    out: list[Unit] = []
    has_header = len(block.lines) > 1 and bool(TABLE_SEPARATOR.match(block.lines[1]))
    if has_header:
        header = block.lines[0]
    # Markdown's own pipe tables only: a reST table rewritten into rows (`rest_tables`) has border lines where a header
    # would be, and leads its rows with the header's identifier itself
    names = table_columns.value_columns(header, block.lines[2 if has_header else 0:], markdown) \
        if header and markdown and not TABLE_SEPARATOR.match(header) else []
    for k, line in enumerate(block.lines):
        if line.strip() == rest_tables.ROW_CONTINUED:  # a reST row wrapped over several lines: the row spans them all
            if out and out[-1].end == block.start + k - 1:
                out[-1].end = out[-1].block_end = block.start + k
            continue
        if (has_header and k < 2) or TABLE_SEPARATOR.match(line):
            continue
        cells = [plain(c, markdown) for c in split_row(line)]
        row = " | ".join(c for c in cells if c)
        if len(row.split()) - row.count(" | ") >= 3:
            shown = " | ".join(table_columns.under(c, names[j] if j < len(names) else "")
                               for j, c in enumerate(cells) if c)
            out.append(Unit(_cap(row), "", block.start + k, block.start + k, item=True,
                            shown=_cap(shown) if shown != row else ""))
    return out
