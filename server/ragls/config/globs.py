"""Brace sets in globs, expanded the one way every reader of a glob expands them: the include/exclude rules
(sources/walk.py), named-RAG sources (sources/resolve.py) and the trust check of a folder's RAG sources
(config/trust_filter.py, which must see `{..,docs}/x.md` as `../x.md` exactly as the resolver will). A leaf module, so
the settings layer can use it without importing the sources layer. `outside_glob_warnings` names the include/exclude
globs that point outside the folder."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

# More expansions than this is a mistake or an attack ("{a,b}{c,d}…" grows as a product), not a real glob.
MAX_BRACE_EXPANSIONS = 1024


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
