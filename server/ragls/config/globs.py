"""Brace sets in globs, expanded the one way every reader of a glob expands them: the include/exclude rules
(sources/walk.py), named-RAG sources (sources/resolve.py) and the trust check of a folder's RAG sources
(config/trust_filter.py, which must see `{..,docs}/x.md` as `../x.md` exactly as the resolver will). A leaf module, so
the settings layer can use it without importing the sources layer."""

from __future__ import annotations

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
