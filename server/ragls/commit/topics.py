"""What a file's change is about, read from its diff hunks and its new text: the names an offline commit message
(`message.deterministic_message`) puts in its subject instead of the file's name alone, as commit-message tools and
Conventional Commits subjects name the change ("add parse_range() to gitdiff.py", "update Debug Mode section of
cli.rst", "remove --reload option from cli.rst").

- `definition_name(line)`: the name a function, method, class or type definition line defines.
- `topics(f, text)`: a `Topics` of one text file's change — definitions added / removed, `--options` added /
  removed, and the definitions (code) or sections (documents) the changed lines fall in, most changed first.

No model, no network: the same diff and text always give the same topics. `text` is the file's new version (None
when it could not be read: only what the hunks show is used).
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragls.commit.gitdiff import FileDiff, decode, regular_file_bytes, run_git
from ragls.index.titles import document_headings
from ragls.sources.load import inside_folder

# A definition line of the common languages (`message._DEFINITION`'s keywords) with the name it defines: Python/Ruby
# `def`/`class`, JS/TS/Lua/PHP/shell `function`, Go `func` (a method's receiver skipped), Rust `fn`/`struct`/
# `enum`/`trait`, Java/Kotlin/Swift `interface`/`record`/`object`/`fun`; Lua's `function M.name` keeps `name`.
_NAMED_DEFINITION = re.compile(
    r"^\s*(?:(?:export|default|pub(?:\([\w:]+\))?|async|public|private|protected|internal|static|abstract|"
    r"final|sealed|open|data|local|unsafe|const)\s+)*"
    r"(?P<kind>def|class|function|func|fn|fun|struct|enum|trait|interface|record|object|module)\s+"
    r"(?:\([^)]*\)\s*)?(?:[\w$]+[.:])*(?P<name>[A-Za-z_$][\w$]*)")
_CALLABLE = {"def", "function", "func", "fn", "fun"}
# A long command-line option as documents and code name it: "--reload", "--max-count" (not "---" rules, not "--" alone).
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*\b")
MAX_TEXT_BYTES = 2_000_000  # a longer new version is not read: its change is named by the hunks alone
SHORT_TITLE = 30  # a section title longer than this is named by its part before a ":" (`_short_title`)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_CODE_EXTS = (".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".lua", ".go", ".rs", ".rb",
              ".java", ".kt", ".kts", ".swift", ".php", ".sh", ".bash", ".zsh", ".ex", ".exs", ".scala", ".cs")


def definition_name(line: str) -> str | None:
    """"parse_range()" for "def parse_range(text):", "Config" for "class Config:" / "pub struct Config {",
    "render()" for "function M.render()": the name a definition line defines (callables with "()"); None for any
    other line."""
    m = _NAMED_DEFINITION.match(line)
    if m is None:
        return None
    return m["name"] + "()" if m["kind"] in _CALLABLE else m["name"]


@dataclass(frozen=True)
class Topics:
    """What one file's change is about. Each tuple in first-seen order without repeats.

    `added` / `removed`: definitions only on added / only on removed lines (a definition on both sides — a
    changed signature — is in neither); `options_added` / `options_removed` likewise for `--options`;
    `touched`: the definitions (code) or section titles (documents) holding the changed lines, the one with the
    most changed lines first."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    options_added: tuple[str, ...] = ()
    options_removed: tuple[str, ...] = ()
    touched: tuple[str, ...] = ()


def _unique(items) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _changed_lines(f: FileDiff) -> tuple[list[str], list[str], list[tuple[int, str]]]:
    """(added lines, removed lines, (0-based line of the new text just above the change, the changed line) of each
    change: an added line's line above, a removed line's line above its place)."""
    added: list[str] = []
    removed: list[str] = []
    where: list[tuple[int, str]] = []
    for hunk in f.hunks:
        lines = hunk.split("\n")
        m = _HUNK.match(lines[0])
        if m is None:
            continue
        new = int(m[3]) - 1 if m[4] != "0" else int(m[3])  # an empty new side: git names the line before
        for line in lines[1:]:
            if line.startswith("+"):
                added.append(line[1:])
                where.append((new - 1, line[1:]))
                new += 1
            elif line.startswith("-"):
                removed.append(line[1:])
                where.append((new - 1, line[1:]))
            elif line.startswith(" "):
                new += 1
    return added, removed, where


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _enclosing_definition(lines: list[str], above: int, own: str) -> str | None:
    """The innermost definition holding the changed line `own` (added or removed, not blank) whose line above is
    `above` in `lines` (a code file's new text): `own` itself when it is a definition line, else the nearest
    definition line above indented less than `own` (None when a line at the margin comes first)."""
    if (name := definition_name(own)) is not None:
        return name
    depth = _indent(own)
    if depth == 0:
        return None
    for i in range(min(above, len(lines) - 1), -1, -1):
        line = lines[i]
        if not line.strip() or _indent(line) >= depth:
            continue
        if (name := definition_name(line)) is not None:
            return name
        depth = _indent(line)
        if depth == 0:
            return None
    return None


def _short_title(title: str) -> str:
    """A long section title (over SHORT_TITLE characters) up to its first ": ", " — " or " (" — "Clients" for
    "Clients: a demanding user's pass through both editors ..." — when that leaves a word or more."""
    if len(title) <= SHORT_TITLE:
        return title
    cut = min((i for sep in (": ", " — ", " - ", " (") if (i := title.find(sep)) >= 3), default=None)
    return title[:cut] if cut is not None else title


def _touched(f: FileDiff, text: str | None, where: list[tuple[int, str]]) -> tuple[str, ...]:
    """Definitions (code) or sections (documents) holding the changed lines of `where`, most changed lines first
    (ties: first in the file)."""
    if text is None or not where:
        return ()
    counts: dict[str, int] = {}
    if f.path.lower().endswith(_CODE_EXTS):
        lines = text.split("\n")
        for above, own in where:
            if own.strip() and (name := _enclosing_definition(lines, above, own)) is not None:
                counts[name] = counts.get(name, 0) + 1
    else:
        headings = document_headings(text, f.path)
        starts = [line for line, _ in headings]
        for above, _ in where:  # a heading line changed is in its own section
            # not the first heading: the page's title names the page
            if (i := bisect_right(starts, above + 1) - 1) > 0:
                title = _short_title(headings[i][1])
                counts[title] = counts.get(title, 0) + 1
    order = {name: i for i, name in enumerate(counts)}
    return tuple(sorted(counts, key=lambda name: (-counts[name], order[name])))


def topics(f: FileDiff, text: str | None = None) -> Topics:
    """The `Topics` of text file `f`'s change; `text` is its new version (None: no `touched`). Empty Topics for
    binary, lockfile, generated or secret files and for files with no hunks."""
    if f.kind != "text" or not f.hunks:
        return Topics()
    added, removed, where = _changed_lines(f)
    new_defs = _unique(n for line in added if (n := definition_name(line)) and not n.startswith("__"))
    old_defs = _unique(n for line in removed if (n := definition_name(line)) and not n.startswith("__"))
    new_opts = _unique(o for line in added for o in _OPTION.findall(line))
    old_opts = _unique(o for line in removed for o in _OPTION.findall(line))
    return Topics(added=tuple(n for n in new_defs if n not in old_defs),
                  removed=tuple(n for n in old_defs if n not in new_defs),
                  options_added=tuple(o for o in new_opts if o not in old_opts),
                  options_removed=tuple(o for o in old_opts if o not in new_opts),
                  touched=_touched(f, text, where) if f.status != "deleted" else ())


def _names(items: tuple[str, ...], limit: int) -> str:
    shown = list(items[:limit])
    more = len(items) - len(shown)
    if more:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def topic_phrases(f: FileDiff, t: Topics, name: str, others: int) -> list[str]:
    """Subject phrases naming what the change of file `f` (shown as `name`) does, the most telling first, each with
    two names, then one. Code: definitions added, removed or replaced, then the definitions changed. Documents: the
    sections changed (two at most: more is a revision of the page), then `--options` added, removed or renamed (two
    at most: more is a page that lists options, not a change to them); a definition in a document is an example,
    not the change. `others` more files of the change are counted after it ("and 2 more files"; a name list then
    gives no count of its own). [] when `t` names nothing or `f` was not modified in place (an added, deleted or
    renamed file is named by its verb and name already)."""
    if f.status != "modified":
        return []
    tail = f" and {others} more file{'s' if others > 1 else ''}" if others else ""

    def names(items: tuple[str, ...], limit: int) -> str:
        return _names(items[:limit] if others else items, limit)

    phrases: list[str] = []
    if f.path.lower().endswith(_CODE_EXTS):
        for limit in (2, 1):
            if t.added and not t.removed:
                phrases.append(f"add {names(t.added, limit)} to {name}")
            elif t.removed and not t.added:
                phrases.append(f"remove {names(t.removed, limit)} from {name}")
            elif len(t.added) == len(t.removed) == 1:
                phrases.append(f"replace {t.removed[0]} with {t.added[0]} in {name}")
        phrases += [f"update {names(t.touched, limit)} in {name}" for limit in (2, 1) if t.touched]
        return [p + tail for p in dict.fromkeys(phrases)]
    if 0 < len(t.touched) <= 2:
        for limit in (2, 1):
            section = "sections" if len(t.touched[:limit] if others else t.touched) > 1 else "section"
            phrases.append(f"update {names(t.touched, limit)} {section} of {name}")
    if len(t.options_added) == len(t.options_removed) == 1:
        phrases.append(f"rename option {t.options_removed[0]} to {t.options_added[0]} in {name}")
    elif 0 < len(t.options_added) <= 2 and not t.options_removed:
        phrases.append(f"document {_names(t.options_added, 2)} in {name}")
    elif 0 < len(t.options_removed) <= 2 and not t.options_added:
        phrases.append(f"remove {_names(t.options_removed, 2)} from {name}")
    return [p + tail for p in dict.fromkeys(phrases)]


def new_text_reader(root: Path, staged: bool) -> Callable[[str], str | None]:
    """`read(path) -> text | None`: the new version of `path` (relative to the repository `root`) as the commit
    would record it — the staged blob (`git cat-file blob :path`) when `staged`, else the working tree's file, read
    only when it is a regular file inside `root` (`sources.load.inside_folder`; `gitdiff.regular_file_bytes`: a link
    is not followed). None for a
    file over MAX_TEXT_BYTES, one git cannot show, or any other failure."""
    top = os.path.realpath(root)

    def read(path: str) -> str | None:
        if staged:
            proc = run_git(root, ["cat-file", "blob", f":{path}"])
            data = proc.stdout if proc.returncode == 0 else None
        else:
            inside = inside_folder(Path(top), Path(path)) is not None  # the path rule of every surface
            data = regular_file_bytes(os.path.join(top, path), MAX_TEXT_BYTES + 1) if inside else None
        if data is None or len(data) > MAX_TEXT_BYTES:
            return None
        return decode(data)

    return read
