"""Brace sets in globs, expanded the one way every reader of a glob expands them: the include/exclude rules
(sources/walk.py), named-RAG sources (sources/resolve.py) and the trust check of a folder's RAG sources
(config/trust_filter.py, which must see `{..,docs}/x.md` as `../x.md` exactly as the resolver will). A leaf module, so
the settings layer can use it without importing the sources layer. `outside_glob_warnings` names the include/exclude
globs that point outside the folder; `globbed` is a path as every matcher reads it (the walk's include/exclude and
secret globs, the ignore files')."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

# More expansions than this is a mistake or an attack ("{a,b}{c,d}…" grows as a product), not a real glob.
MAX_BRACE_EXPANSIONS = 1024
# Wildcards a glob may hold (a run of `*` counts once): pathspec matches a glob with a backtracking regular
# expression, whose time grows as a path's length to the power of the wildcards of one name (`*a*a*a*b` against a
# 250-character name: 3 s; `a*a*a*a*a*b/**`: 141 s, per file, under load) and of the `**` of a path (120 folders
# deep). A folder writes both the glob (its ragls.toml, its .gitignore) and the names. Real globs hold one or two
# (`**/*.md`, `**/*_test*.py`; the most in 886 .gitignore lines on a developer machine: 2, session 58).
MAX_WILDCARDS = 3
MAX_NAME_WILDCARDS = 2  # in one `/`-separated part
_STARS = re.compile(r"\*+")


def expand_braces(pattern: str) -> list[str]:
    """Expand brace sets in a glob (the `bracex` library, bash rules): "**/*.{md,txt}" -> ["**/*.md",
    "**/*.txt"]; nested sets work ("{a,{b,c}d}" -> a, bd, cd) and so do ranges ("ch{1..3}.md"). A brace pair
    without a top-level comma, an unbalanced brace and a backslash-escaped brace stay literal (the backslash is
    kept for pathspec). Raises ValueError beyond `MAX_BRACE_EXPANSIONS` results."""
    import bracex

    try:
        return bracex.expand(pattern, keep_escapes=True, limit=MAX_BRACE_EXPANSIONS)
    except bracex.ExpansionLimitException:
        raise ValueError(f"glob {pattern!r} expands to more than {MAX_BRACE_EXPANSIONS} patterns") from None


def pattern_count(globs: Iterable[str], limit: int) -> int:
    """How many patterns `globs` (glob strings; a RAG source's `;`-separated parts each count) compile to once
    their brace sets are expanded (`expand_braces`; a glob past MAX_BRACE_EXPANSIONS counts 1: it is rejected,
    never compiled), counted only until the total passes `limit`: a result above `limit` means "more than `limit`",
    and the work stays within `limit` + MAX_BRACE_EXPANSIONS expansions however long the list. Anything but a
    string counts 0 (the settings schema rejects it)."""
    total = 0
    for glob in globs:
        for part in glob.split(";") if isinstance(glob, str) else ():
            try:
                total += len(expand_braces(part.strip())) if "{" in part else 1
            except ValueError:
                total += 1
            if total > limit:
                return total
    return total


def glob_problem(glob: str) -> str | None:
    """Why `glob` (one include/exclude/.gitignore line, a leading `!` allowed) is ignored, or None: it expands to
    more than MAX_BRACE_EXPANSIONS patterns, or one expansion holds more than MAX_WILDCARDS wildcards or more than
    MAX_NAME_WILDCARDS in one name (matching it could take minutes per file)."""
    pattern = glob.strip().removeprefix("!")
    try:
        expansions = expand_braces(pattern) if "{" in pattern else [pattern]  # a .gitignore line has no braces
    except ValueError:
        return f"expands to more than {MAX_BRACE_EXPANSIONS} patterns"
    for pattern in expansions:
        parts = pattern.split("/")
        if len(_STARS.findall(pattern)) > MAX_WILDCARDS or \
                any(len(_STARS.findall(part)) > MAX_NAME_WILDCARDS for part in parts):
            return (f"has more than {MAX_WILDCARDS} wildcards, or more than {MAX_NAME_WILDCARDS} in one name "
                    "(matching it could take minutes per file)")
    return None


def widened(pattern: str, braces: bool = True) -> str:
    """A glob `glob_problem` accepts that matches every path `pattern` (one gitignore-style glob, without a leading
    "!") matches, and maybe more: what an exclude or .gitignore line too costly to match keeps out is kept out by
    it (fail closed). A name with more than MAX_NAME_WILDCARDS `*` runs keeps its text before the first run, after
    the last and its longest text between two (`*a*b*c*key*` -> `*key*`, `a*b*cd*e` -> `a*cd*e`; a name holding a
    backslash escape becomes `*`); a trailing `/**` becomes `/` (the folder, so all inside it); then, still over
    MAX_WILDCARDS, the names between the leading literal folders and the last name become one `**`
    (`**/secrets/**/*key*` -> `**/*key*`, `docs/*/**/x*y*z` -> `docs/**/x*y*z`). With `braces` (include/exclude
    globs; .gitignore lines have none), each brace set becomes `*`, or, when one holds a "/", the result is
    everything below the leading literal folders (`docs/**`) — also the last resort, for a result `glob_problem`
    would still reject (never seen). Linear in the pattern."""
    if braces and "{" in pattern:
        while (inner := re.search(r"(?<!\\)\{[^{}]*\}", pattern)) is not None and "/" not in inner.group():
            pattern = pattern[:inner.start()] + "*" + pattern[inner.end():]
        if "{" in pattern.replace("\\{", ""):
            return _below_literal_folders(pattern)
    names = pattern.split("/")
    if len(names) > 1 and names[-1] == "**" and names[-2] not in ("", "**"):
        names[-1] = ""  # "x/**" (all inside x) -> "x/" (x, so all inside it)
    for i, name in enumerate(names):
        if len(_STARS.findall(name)) > MAX_NAME_WILDCARDS:
            texts = _STARS.split(name)  # a match holds them in this order: its first, longest middle and last
            middle = max(reversed(texts[1:-1]), key=len)
            names[i] = "*" if "\\" in name else "*".join([texts[0], *([middle] if middle else []), texts[-1]])
    if sum(len(_STARS.findall(name)) for name in names) > MAX_WILDCARDS:
        last = len(names) - 2 if names[-1] == "" else len(names) - 1  # the last name ("x/" ends with "")
        first = next(i for i, name in enumerate(names) if _STARS.search(name) or "?" in name or "[" in name)
        if first < last:
            names = [*names[:first], "**", *names[last:]]
    out = "/".join(names)
    return out if glob_problem(out) is None else _below_literal_folders(pattern)


def _below_literal_folders(pattern: str) -> str:
    """Everything below the leading folders of `pattern` that hold no glob character ("docs/a{b/c,d}" -> "docs/**";
    none: "*", every path)."""
    literal = re.match(r"[^*?\[{\\]*", pattern).group()
    folders = literal[:literal.rfind("/") + 1]
    return folders + "**" if folders.strip("/") else "*"


def kept_out(globs: Iterable[str], excluding: bool, braces: bool = True) -> tuple[list[str], list[str]]:
    """The lines to compile for `globs` (gitignore-style lines; with `excluding`, of a list that keeps files out:
    sources.exclude, a .gitignore; else of one that lets files in: sources.include), and one message per line
    `glob_problem` rejects. Such a line that keeps files out (an exclude line; an include's "!" line) is compiled
    `widened`: it still keeps out every file it matched (and maybe more); one that lets files in (an include line;
    an exclude's "!" line) is left out: those files stay out. Fail closed either way. Messages:
    "'*a*a*a*b' has more than 3 wildcards, …; it is ignored" / "…; the files it matches are kept out by the wider
    glob '*b'"."""
    lines: list[str] = []
    messages: list[str] = []
    for glob in globs:
        line = glob.strip()
        problem = glob_problem(line if braces else line.replace("{", "[{]"))
        if problem is None or line.startswith("#"):
            lines.append(glob)
            continue
        negated = line.startswith("!")
        if negated == excluding:
            messages.append(f"{line!r} {problem}; it is ignored")
            continue
        wide = ("!" if negated else "") + widened(line.removeprefix("!"), braces)
        lines.append(wide)
        messages.append(f"{line!r} {problem}; the files it matches are kept out by the wider glob {wide!r}")
    return lines, messages


def glob_warnings(include: list[str], exclude: list[str], folder: Path) -> list[str]:
    """`outside_glob_warnings`, and one warning per glob `glob_problem` rejects, saying what the walk does with it
    (`kept_out`: "sources.include glob '*a*a*a*b' has more than 3 wildcards, …; it is ignored", "sources.exclude
    glob '**/secrets/**/*key*' …; the files it matches are kept out by the wider glob '**/*key*'")."""
    warnings = [f"sources.{kind} glob {message}" for kind, globs in (("include", include), ("exclude", exclude))
                for message in kept_out(globs, excluding=kind == "exclude")[1]]
    return warnings + outside_glob_warnings(include, exclude, folder)


def outside_glob_warnings(include: list[str], exclude: list[str], folder: Path) -> list[str]:
    """One warning per `sources.include` / `sources.exclude` glob that names something outside `folder` and so
    matches nothing (the walk matches paths relative to the folder and never reads outside it): a `..` part (in
    any brace expansion, a leading `!` aside), a `~`, a drive (`C:\\`), or a leading `/` followed by the folder's
    own absolute path (a leading `/` anchors a glob at the folder's root; the warning names the glob to write
    instead). Only the glob strings are looked at, no file. E.g. "sources.include glob '../shared/**/*.md' climbs
    out of the folder with '..', which matches nothing; globs are relative to the folder and never match outside
    it"."""
    folder_parts = PurePosixPath(Path(folder).resolve().as_posix()).parts[1:]
    warnings: list[str] = []
    for kind, globs in (("include", include), ("exclude", exclude)):
        for glob in globs:
            pattern = glob.strip().removeprefix("!")
            try:
                expansions = expand_braces(pattern)
            except ValueError:
                continue  # the walk reports the expansion error itself
            name = f"sources.{kind} glob {glob.strip()!r}"
            if any(".." in re.split(r"[\\/]", p) for p in expansions):
                why = "climbs out of the folder with '..', which matches nothing"
            elif pattern.startswith("~") or re.match(r"[A-Za-z]:[\\/]", pattern):
                why = "is a path outside the folder and matches nothing"
            elif pattern.startswith("/") and folder_parts and \
                    PurePosixPath(pattern).parts[1:len(folder_parts) + 1] == folder_parts:
                rest = "/".join(PurePosixPath(pattern).parts[len(folder_parts) + 1:]) or "**"
                why = (f"starts with the folder's own absolute path and matches nothing (a leading '/' anchors a "
                       f"glob at the folder's root): write {rest!r}")
            else:
                continue
            warnings.append(f"{name} {why}; globs are relative to the folder and never match outside it")
    return warnings


def globbed(rel_path: str) -> str:
    """`rel_path` as the glob matchers read it: a newline in a name as NUL (never in a path). pathspec writes `**`
    as `.*`, which stops at a newline: a file under a folder named "notes\nold" matched no include glob, and
    `x\ny/.env` no secret glob (`*` reads the newline as any other character)."""
    return rel_path.replace("\n", "\0")


_GLOB_CHARS = re.compile(r"[*?\[\\]")


def literal_folders(include: Iterable[str]) -> list[tuple[str, ...]] | None:
    """The leading literal names of each line of `include` (gitignore-style globs that let files in, as
    `sources.include`; braces expanded, "!" lines skipped: they only keep files out), or None when one line can
    match at any depth: a line without a "/" before its end (`*.md`, `docs/`: gitignore matches it in every
    folder), one starting with `**`, or one holding an escape (`\\#x`). `docs/**/*.md` -> ("docs",),
    `/site/en/*.html` -> ("site", "en"), `docs/a.md` -> ("docs", "a.md"), `*/x.md` -> () (every folder: its first
    name is a wildcard). A folder can hold a match of a line only when its names and the line's literal names agree
    as far as both go (`include_reaches`). Lines `kept_out` drops are left out as the walk does; a brace set past
    MAX_BRACE_EXPANSIONS gives None (the walk's glob warning says it)."""
    found: list[tuple[str, ...]] = []
    for glob in kept_out(include, excluding=False)[0]:
        line = glob.strip()
        if not line or line.startswith(("#", "!")):
            continue
        try:
            expansions = expand_braces(line)
        except ValueError:
            return None
        for pattern in expansions:
            if "\\" in pattern or "/" not in pattern.rstrip("/") or pattern.lstrip("/").startswith("**"):
                return None
            names = pattern.lstrip("/").rstrip("/").split("/")
            literal = []
            for name in names:
                if _GLOB_CHARS.search(name):
                    break
                literal.append(name)
            found.append(tuple(literal))
    return found


def include_reaches(folders: list[tuple[str, ...]] | None, rel_dir: str) -> bool:
    """Whether a file below folder `rel_dir` ("/"-separated, relative to the workspace folder, "" for itself) can
    match an include line whose leading literal names are one of `folders` (`literal_folders`; None: any folder):
    the folder's names and a line's agree as far as both go (`docs`, `docs/api` for `docs/**/*.md`; not `src`)."""
    if folders is None or not rel_dir:
        return True
    names = tuple(rel_dir.split("/"))
    return any(names[:len(lead)] == lead[:len(names)] for lead in folders)


GLOBS_NAMED = 8  # globs a message names (`named_globs`); a ragls.toml may list thousands


def named_globs(globs: list[str], limit: int = GLOBS_NAMED) -> str:
    """The globs of a message, each a code span (a warning also goes into an abstained answer, which is Markdown,
    where a bare `**/*.{md,...}` lost its stars to emphasis): the first `limit`, then how many more —
    "`docs/**/*.md`, `*.txt`" or "`d0/**/*.md`, …, `d7/**/*.md` and 49,993 more". A folder's ragls.toml of 50,000
    include globs put all of them in one 860 KB warning line (terminal, rag/status, the log)."""
    shown = ", ".join(f"`{g}`" for g in globs[:limit])
    return shown + (f" and {len(globs) - limit:,} more" if len(globs) > limit else "")
