"""How far a glob may search before it runs: a glob a request or a named RAG names (`rag/ask` `documents`,
`sources/ephemeral.py`; a `[rags.NAME]` source, `sources/resolve.py`) is matched by Python's `glob`, which lists
every folder its wildcards reach with no bound. "/**/*.nomatch" walked the whole file system, a planted link loop
(`a -> .`) made a `**` walk endless, and a glob without `**` ("/*/*/*/*.nomatch") lists every folder at each of
its depths. `glob_search_problem` counts, with the same bound for both kinds, the entries the glob's walk would
list, and stops counting at the bound."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

#: Most directory entries (files and folders) one source's globs may list: a `**` part counts everything below its
#: folder (hidden folders not entered, as `**` does not enter them, links to folders followed as `glob` follows
#: them); a part with a wildcard counts the entries of each folder it is matched in (the folders reached by the
#: parts before it). Literal parts list nothing.
MAX_GLOB_ENTRIES = 100_000
GLOB_CHARS = re.compile(r"[*?\[]")  # what makes a path part a glob, as `glob.has_magic` says


def glob_base(pattern: str) -> Path:
    """The literal folder a glob starts from: its path parts before the first one with a glob character
    ("/notes/**/*.md": /notes; "/notes/a.md", no glob character: the path itself)."""
    parts = Path(os.path.normpath(pattern)).parts
    cut = next((i for i, part in enumerate(parts) if GLOB_CHARS.search(part)), len(parts))
    return Path(*parts[:cut])


def glob_search_problem(patterns: Iterable[str]) -> str | None:
    """Why the globs `patterns` (absolute paths, one source's brace expansions together) are not searched, or None:
    their walks would list more than MAX_GLOB_ENTRIES directory entries, counted part by part as `glob` lists them
    (every folder a wildcard part is matched in, and everything below a `**`; a literal part only enters its
    folder). The count stops at the bound, so a link loop ends too. "searches too many folders (more than 100000
    entries); name a narrower folder"."""
    seen = 0
    for pattern in patterns:
        base = glob_base(pattern)
        rest = Path(os.path.normpath(pattern)).parts[len(base.parts):]
        folders = [base]
        for i, part in enumerate(rest):
            last = i == len(rest) - 1
            if part == "**":
                for folder in folders:
                    for _root, dirs, files in os.walk(folder, followlinks=True):
                        dirs[:] = [d for d in dirs if not d.startswith(".")]
                        seen += len(dirs) + len(files)
                        if seen > MAX_GLOB_ENTRIES:
                            return _too_many()
                break  # the parts after a `**` are matched among the entries counted
            if not GLOB_CHARS.search(part):
                folders = [folder / part for folder in folders if not last and (folder / part).is_dir()]
                continue
            reached = []
            for folder in folders:
                try:
                    with os.scandir(folder) as entries:
                        for entry in entries:
                            seen += 1
                            if seen > MAX_GLOB_ENTRIES:
                                return _too_many()
                            # `*` matches no hidden name, `.*` does; `glob` ignores a folder it cannot read
                            if not last and (part.startswith(".") or not entry.name.startswith(".")) and \
                                    entry.is_dir():
                                reached.append(Path(entry.path))
                except OSError:
                    continue
            folders = reached
    return None


def _too_many() -> str:
    return f"searches too many folders (more than {MAX_GLOB_ENTRIES} entries); name a narrower folder"
