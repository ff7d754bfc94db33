"""Extractive answers (no LLM): the passages of the top hits that best answer the question, cited as `[n]`.

Built from each hit's focus lines (its best embedding window, `Hit.focus`) when known, else the whole chunk. The
text is read as blocks: paragraphs (split into sentences), list items, fenced and indented code blocks (Markdown's
4-space blocks, reST's literal blocks after "::"), headings, tables and reST directive lines (skipped). A
sentence ending in ":" keeps the list or code block that follows it, verbatim and indented under its bullet, so
a "run these steps:" answers with the steps; lists and code are never flattened into one line. Markup that is
not text is removed first: heading ids `{ #anchor }`, mkdocstrings `::: module.path` lines, include
directives `{* file *}` / `{! file !}`, HTML comments, link targets (a link keeps its text), reST roles
(`:meth:`~a.b`` reads as `b`) and reST section titles with their underlines.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragls.answer.cite import content_words
from ragls.chunking import strip_heading_ids
from ragls.ir import Hit

EXTRACTIVE_LABEL = ("*Extractive answer (no LLM configured): the passages of your documents that best match "
                    "the question.*")
EXTRACTIVE_MAX_SENTENCES = 4
EXTRACTIVE_MAX_SENTENCE_CHARS = 400
MAX_ATTACHED_LINES = 25  # lines of a list or code block kept after a sentence ending in ":"

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_DIRECTIVE_LINE = re.compile(r"^[ \t]*(?::::+[ \t]*[\w.]+.*|\{[*!%].*[*!%]\})[ \t]*$", re.MULTILINE)
_FENCE_OPEN = re.compile(r"^\s*(```|~~~)")
_INDENTED = re.compile(r"^(?: {4}|\t)\s*\S")  # a line of an indented code block
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
# Images are not answer text: badges (`[![npm](shield.svg)](npmjs.com/...)`, a whole line of them atop most
# READMEs) went through _LINK as "![npm](npmjs.com/...)", raw markup in the answer.
_IMAGE = re.compile(r"!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])")
# A link reference definition (`[license-url]: https://...`, CommonMark 4.7): a target, not prose.
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$", re.MULTILINE)
# reST interpreted text (Sphinx roles): ":meth:`~flask.make_response`", ":ref:`Title <label>`", ":data:`DEBUG`".
_REST_ROLE = re.compile(r":(?:[\w-]+:)+`([^`]+)`")
_TEXT_ROLES = ("ref", "doc", "term", "abbr", "command", "program", "dfn", "guilabel", "menuselection")
# A reST section title's underline (or overline): one punctuation character repeated.
_REST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
_BARE_MARKER = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
_LINE_PREFIX = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[`*_]?[A-Z0-9])")


def clean_markup(text: str) -> str:
    """`text` without markup that is not prose: HTML comments, `::: module.path` and `{* include *}` lines and link
    reference definitions `[label]: url` (kept as empty lines, so line numbers do not move), heading ids
    `{ #anchor }`, and reST roles reduced to their text (`_rest_role`)."""
    text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = _DIRECTIVE_LINE.sub("", text)
    text = _LINK_DEFINITION.sub("", text)
    text = _REST_ROLE.sub(_rest_role, text)
    return strip_heading_ids(text)


def _rest_role(m: re.Match[str]) -> str:
    """A reST role as Markdown: `:ref:`Title <label>`` -> "Title" (cross-reference roles read as text; a bare
    label as itself), code roles `:meth:`~flask.make_response`` -> "`make_response`" (a leading "~" shows the last
    dotted part, "!" is dropped), as Sphinx renders them."""
    role = m.group(0)[1:].split(":", 1)[0]
    target = m.group(1).strip()
    if target.endswith(">") and "<" in target:
        target = target[:target.rindex("<")].strip() or target
    if role in _TEXT_ROLES:
        return target
    target = target.lstrip("!")
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


@dataclass
class _Block:
    kind: str  # "para", "list", "code", "skip"
    start: int  # 0-based line in the chunk text
    lines: list[str]


def _blocks(text: str) -> list[_Block]:
    """The chunk text as blocks (see module docstring), with their first line."""
    out: list[_Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        m = _FENCE_OPEN.match(line)
        if m:
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(m.group(1)):
                j += 1
            out.append(_Block("code", i, lines[i:j + 1]))
            i = j + 1
            continue
        if _INDENTED.match(line) and (i == 0 or not lines[i - 1].strip()) and not (out and out[-1].kind == "list"):
            # An indented code block (Markdown's 4-space blocks, reST's literal block after "::"): to the next
            # line that is neither blank nor indented. After a list it is the item's continuation instead.
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or _INDENTED.match(lines[j])):
                j += 1
            while not lines[j - 1].strip():
                j -= 1
            out.append(_Block("code", i, lines[i:j]))
            i = j
            continue
        if i + 1 < len(lines) and _REST_UNDERLINE.match(lines[i + 1]) and not _LIST_ITEM.match(line) \
                and len(lines[i + 1].strip()) >= len(stripped):
            out.append(_Block("skip", i, lines[i:i + 2]))  # a reST section title and its underline
            i += 2
            continue
        if stripped.startswith(("#", "<", "{{", "|", "---", "===", ".. ")):
            out.append(_Block("skip", i, [line]))
            i += 1
            continue
        kind = "list" if _LIST_ITEM.match(line) else "para"
        j = i + 1
        while j < len(lines) and lines[j].strip() and not _FENCE_OPEN.match(lines[j]) \
                and not lines[j].strip().startswith(("#", "|")):
            is_item = bool(_LIST_ITEM.match(lines[j]))
            if kind == "para" and is_item:
                break
            j += 1
        out.append(_Block(kind, i, lines[i:j]))
        i = j
    return _merge_lists(out)


def _merge_lists(blocks: list[_Block]) -> list[_Block]:
    """Consecutive list blocks (a loose list: items separated by blank lines) become one list block."""
    out: list[_Block] = []
    for b in blocks:
        if out and b.kind == "list" and out[-1].kind == "list":
            out[-1].lines += [""] + b.lines
        else:
            out.append(b)
    return out


def _link_text(text: str) -> str:
    """Markdown links reduced to their text, images dropped."""
    return _LINK.sub(r"\1", _IMAGE.sub("", text))


def _plain(text: str) -> str:
    return " ".join(_BARE_MARKER.sub("", _link_text(text)).split())


def _cap(sentence: str) -> str:
    if len(sentence) > EXTRACTIVE_MAX_SENTENCE_CHARS:
        return sentence[:EXTRACTIVE_MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
    return sentence


def _attached(block: _Block) -> str:
    """A list or code block as kept after a ":" sentence: verbatim lines (links reduced to their text outside
    code), common indentation removed, at most MAX_ATTACHED_LINES (a cut code block is closed)."""
    lines = list(block.lines)
    while lines and not lines[-1].strip():
        lines.pop()
    cut = len(lines) > MAX_ATTACHED_LINES
    lines = lines[:MAX_ATTACHED_LINES]
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    lines = [x[indent:] for x in lines]
    if block.kind == "code":
        fenced = _FENCE_OPEN.match(block.lines[0])
        if not fenced:  # an indented block: fenced in the answer, which is Markdown
            lines = ["```", *lines, *(["…"] if cut else []), "```"]
        elif cut:
            lines += ["…", fenced.group(1)]
    else:
        lines = [_link_text(x) for x in lines]
        if cut:
            lines.append("…")
    return "\n".join(lines)


@dataclass
class Unit:
    """A candidate of the answer: a sentence (or list item), possibly with the block it introduces."""

    sentence: str
    attached: str = ""
    line: int = 0  # 0-based line in the chunk text

    @property
    def text(self) -> str:
        return f"{self.sentence}\n{self.attached}" if self.attached else self.sentence


def units(text: str, lines: tuple[int, int] | None = None) -> list[Unit]:
    """Answer candidates of a chunk text (after `clean_markup`), restricted to blocks overlapping the 0-based
    chunk-text `lines` (inclusive) when given. Sentences have at least 4 words."""
    blocks = _blocks(clean_markup(text))
    out: list[Unit] = []
    for k, b in enumerate(blocks):
        if lines is not None and (b.start + len(b.lines) - 1 < lines[0] or b.start > lines[1]):
            continue
        # the block a ":" sentence introduces; a reST directive line (".. code-block:: python") in between is skipped
        nxt = next((x for x in blocks[k + 1:k + 3] if not x.lines[0].lstrip().startswith(".. ")), None)
        if b.kind == "para":
            joined = _plain(" ".join(_LINE_PREFIX.sub("", x.strip(), count=1) for x in b.lines))
            sentences = [s.strip() for s in _SENTENCE_SPLIT.split(joined)]
            if len(sentences) > 1 and len(sentences[-1].split()) < 4 and sentences[-1].endswith(":"):
                # "So how do you register it? Like this::" + code: the short lead-in joins its sentence
                sentences[-2:] = [f"{sentences[-2]} {sentences[-1]}"]
            if b.start == 0 and sentences and sentences[0][:1].islower():
                sentences = sentences[1:]  # the chunk opens mid-sentence (its overlap with the one before)
            sentences = [s for s in sentences if len(s.split()) >= 4]
            for pos, s in enumerate(sentences):
                last = pos == len(sentences) - 1
                if s.endswith("::"):  # reST's literal-block marker reads as one ":" ("Example::", "Example ::")
                    s = s[:-2].rstrip() + ":"
                if last and s.endswith(":") and nxt is not None and nxt.kind in ("list", "code"):
                    out.append(Unit(_cap(s), _attached(nxt), b.start))
                else:
                    out.append(Unit(_cap(s), "", b.start))
        elif b.kind == "list":
            for j, line in enumerate(b.lines):
                if _LIST_ITEM.match(line) and len(line.split()) >= 5:
                    item = _plain(_LINE_PREFIX.sub("", line.strip(), count=1))
                    nested = _nested_items(b.lines, j)
                    if item.endswith(":") and nested:
                        out.append(Unit(_cap(item), nested, b.start + j))
                    else:
                        out.append(Unit(_cap(item), "", b.start + j))
    return out


def _nested_items(lines: list[str], j: int) -> str:
    """The more-indented lines right after list item `j` (its sub-list), verbatim, dedented."""
    base = len(lines[j]) - len(lines[j].lstrip())
    sub = []
    for line in lines[j + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= base:
            break
        sub.append(line)
    return _attached(_Block("list", 0, sub)) if any(x.strip() for x in sub) else ""


def _focus_lines(hit: Hit) -> tuple[int, int] | None:
    """The hit's focus as 0-based lines of its chunk text, or None (whole chunk)."""
    f = hit.focus
    if f is None:
        return None
    base = hit.chunk.span.start_line
    return f.start_line - base, f.end_line - base


def extractive_answer(question: str, sources: list[tuple[int, Hit]],
                      max_sentences: int = EXTRACTIVE_MAX_SENTENCES,
                      embed: Callable[[list[str]], Any] | None = None, label: str = EXTRACTIVE_LABEL) -> str:
    """The `label` line (default EXTRACTIVE_LABEL), then up to `max_sentences` passages as a list, each followed by
    its `[n]`; a passage that introduces a list or code block (ends in ":") carries it, indented under its bullet.

    Candidates come from each source's focus lines (`Hit.focus`; the whole chunk without one; the whole chunk too
    when its focus yields nothing). Lexical score of a candidate: the question's content words
    (`cite.content_words`) it contains, each weighted by its inverse frequency among the candidates,
    idf(w) = ln(1 + N / df(w)) — a word found everywhere (the project's name) counts little. With `embed`
    (texts -> normalised vectors) candidates are ranked by the cosine similarity of their sentence (without the
    block it introduces) to the question instead, plus 0.05
    per shared content word; those sharing no word and below 0.3 cosine are left out. Either score is damped by
    the source's rank, 1 / (1 + 0.3 * rank). Ties go to the better-ranked source, then the earlier candidate.
    With no candidate at all, the first sentence of each of the two best sources is used."""
    from ragls.answer.template import source_label

    query = set(content_words(question))
    candidates = []
    firsts = []
    for rank, (n, hit) in enumerate(sources):
        found = units(hit.chunk.text, _focus_lines(hit)) or units(hit.chunk.text)
        for pos, unit in enumerate(found):
            if pos == 0 and len(firsts) < 2:
                firsts.append((n, unit))
            candidates.append((rank, pos, n, unit, set(content_words(unit.text))))
    df: dict[str, int] = {}
    for *_, words in candidates:
        for w in words & query:
            df[w] = df.get(w, 0) + 1
    total = max(1, len(candidates))
    cosines = None
    if embed is not None and candidates:
        # the sentence alone: a code block it introduces would pull its cosine away from the question it answers
        vecs = embed([question] + [c[3].sentence for c in candidates])
        cosines = [float(v) for v in (vecs[1:] @ vecs[0])]
    scored = []
    for i, (rank, pos, n, unit, words) in enumerate(candidates):
        overlap = words & query
        if cosines is not None:
            if not overlap and cosines[i] < 0.3:
                continue
            weight = cosines[i] + 0.05 * len(overlap)
        elif overlap:
            weight = sum(math.log(1 + total / df[w]) for w in overlap)
        else:
            continue
        scored.append((-weight / (1 + 0.3 * rank), rank, pos, n, unit))
    scored.sort(key=lambda t: t[:3])
    picked: list[tuple[int, Unit]] = []
    seen: set[str] = set()
    for *_, n, unit in scored:  # the same passage from two sources (a selection and its file) once
        key = " ".join(unit.text.split()).lower()
        if key not in seen:
            seen.add(key)
            picked.append((n, unit))
        if len(picked) == max_sentences:
            break
    picked = picked or firsts
    if not picked:  # chunks with no prose at all (code only): point at them
        picked = [(n, Unit(f"See {source_label(hit)}")) for n, hit in sources[:2]]
    lines = []
    for n, unit in picked:
        body = unit.sentence.rstrip()
        end = body[-1] if body[-1] in ".!?:" else ""
        lines.append(f"- {body[: len(body) - len(end)].rstrip()} [{n}]{end}")
        if unit.attached:
            lines += ["  " + x if x else "" for x in unit.attached.split("\n")]
    return label + "\n\n" + "\n".join(lines)


def split_sentences(text: str) -> list[str]:
    """The candidate sentences (and list items) of a chunk text, without the blocks they introduce."""
    return [u.sentence for u in units(text)]
