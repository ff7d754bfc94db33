"""Globs a request or a named RAG names (`rag/ask` `documents`, `sources/ephemeral.py`; a `[rags.NAME]` source,
`sources/resolve.py`), matched by one bounded walk. Python's `glob` lists every folder its wildcards reach with no
bound: "/**/*.nomatch" walked the whole file system, a planted link loop (`a -> .`) made a `**` walk endless, and a
glob without `**` ("/*/*/*/*.nomatch") lists every folder at each of its depths. `bounded_glob` matches as `glob`
does (`recursive=True`) and counts the entries it lists, stopping at MAX_GLOB_ENTRIES; each folder is listed once
(before, a counting walk ran first and `glob` then listed the same folders again)."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

#: Most directory entries (files and folders) one source's globs may list: a `**` part lists everything below its
#: folder (hidden folders not entered, as `**` does not enter them, links to folders followed as `glob` follows
#: them); a part with a wildcard lists each folder it is matched in (the folders reached by the parts before it).
#: Literal parts list nothing. A folder is listed (and counted) once, whatever parts reach it.
MAX_GLOB_ENTRIES = 100_000
GLOB_CHARS = re.compile(r"[*?\[]")  # what makes a path part a glob, as `glob.has_magic` says


class GlobTooWide(Exception):
    """Globs whose walk would list more than MAX_GLOB_ENTRIES entries; str() is the reason, "searches too many
    folders (more than 100000 entries); name a narrower folder"."""

    def __init__(self) -> None:
        super().__init__(f"searches too many folders (more than {MAX_GLOB_ENTRIES} entries); name a narrower folder")


def glob_base(pattern: str) -> Path:
    """The literal folder a glob starts from: its path parts before the first one with a glob character
    ("/notes/**/*.md": /notes; "/notes/a.md", no glob character: the path itself)."""
    parts = Path(os.path.normpath(pattern)).parts
    cut = next((i for i, part in enumerate(parts) if GLOB_CHARS.search(part)), len(parts))
    return Path(*parts[:cut])


def glob_folder(pattern: str) -> Path:
    """The folder whose real path a glob's matches must lie in (`load.inside_folder`), the one its walk starts
    from: `glob_base(pattern)`, or that path's parent when the normalised pattern has no glob character left (a
    brace expansion "/notes/a.md", "/notes/*/../a.md": the match is the path itself). `..` is resolved as the walk
    resolves it, on the written path: "/ws/docs/sub/../*.md" -> /ws/docs, even when `sub` is a link."""
    base = glob_base(pattern)
    return base if GLOB_CHARS.search(os.path.normpath(pattern)) else base.parent


def bounded_glob(patterns: Iterable[str]) -> dict[str, str]:
    """What the globs `patterns` (absolute paths, one source's brace expansions together) match, as
    `glob.glob(pattern, recursive=True)` matches (`*`, `?`, `[...]` within a path part, `**` for any folders
    below; a wildcard matches no hidden name unless the part starts with "."; `**` enters no hidden folder and
    follows links to folders; folders match too; a dangling link matches): match path (normalised, "/ws/docs/a.md")
    → the first pattern that matched it, in walk order. Raises GlobTooWide once the walk has listed more than
    MAX_GLOB_ENTRIES entries, all patterns counted together, so a link loop ends too. A folder that cannot be read
    is passed over, as `glob` does."""
    listings: dict[str, list[tuple[str, bool]]] = {}
    seen = 0

    def listing(folder: str) -> list[tuple[str, bool]]:
        """(name, is a folder, links followed) for each entry of `folder`, counted the first time it is listed."""
        nonlocal seen
        if folder not in listings:
            found = []
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > MAX_GLOB_ENTRIES:
                            raise GlobTooWide()
                        found.append((entry.name, _is_dir(entry)))
            except OSError:
                pass
            listings[folder] = found
        return listings[folder]

    matches: dict[str, str] = {}
    for pattern in patterns:
        for path in _match(pattern, listing):
            matches.setdefault(path, pattern)
    return matches


def _match(pattern: str, listing: Callable[[str], list[tuple[str, bool]]]) -> list[str]:
    """The paths one glob `pattern` matches, its folders listed with `listing`."""
    base = glob_base(pattern)
    parts = Path(os.path.normpath(pattern)).parts[len(base.parts):]
    rest = [part for i, part in enumerate(parts) if not (part == "**" and i and parts[i - 1] == "**")]  # "**/**"
    if not rest:
        return [str(base)] if os.path.lexists(base) else []
    paths = [str(base)] if os.path.isdir(base) else []
    for i, part in enumerate(rest):
        last = i == len(rest) - 1
        if part == "**":  # the folder itself and every folder below it (and, last, every file below it too)
            reached = []
            stack = list(paths)
            while stack:
                folder = stack.pop()
                reached.append(folder)
                for name, is_dir in listing(folder):
                    if not name.startswith("."):
                        if is_dir:
                            stack.append(os.path.join(folder, name))
                        elif last:
                            reached.append(os.path.join(folder, name))
            paths = reached
        elif not GLOB_CHARS.search(part):  # a literal part lists nothing
            paths = [p for p in (os.path.join(folder, part) for folder in paths)
                     if (os.path.lexists(p) if last else os.path.isdir(p))]
        else:  # `*` matches no hidden name, `.*` does
            paths = [os.path.join(folder, name) for folder in paths for name, is_dir in listing(folder)
                     if (last or is_dir) and (part.startswith(".") or not name.startswith("."))
                     and fnmatch.fnmatch(name, part)]
    if pattern.endswith(("/", os.sep)):  # "docs/*/": folders only
        paths = [p for p in paths if os.path.isdir(p)]
    return paths


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
