"""The knowledge bases a request selects with its `rag` parameter (rag/query, rag/ask, rag/rebuild; docs/protocol.md),
and the settings that apply to it: every workspace folder by default or as "workspace", a named RAG of `[rags.*]`
by its name, a workspace folder by its name, path or file:// URI (older clients), or a list of these
(`selected`, `folder_position`); a request over one named RAG alone takes that RAG's own retrieval and template
settings (`request_settings`). An unknown name or a bad value is an InvalidParams (-32602) listing the known ones.
A selected folder moved or deleted while open is not searched (`present`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragls.config.settings import Settings
from ragls.core.errors import InvalidParams, RequestFailed
from ragls.core.uris import folder_uri_path
from ragls.kb.rags import WORKSPACE, RagRegistry
from ragls.workspace.status import GONE_ADVICE, folder_gone


def present(folders: list, rags: Sequence[Any]) -> list:
    """The folder indexes of `folders` (`selected`'s) whose folder is still a directory (`status.folder_gone`). One
    moved or deleted while open is not searched: its index still holds what the folder held (a scan that cannot list it keeps it, so
    nothing is indexed again when it comes back), but those passages' files cannot be opened and may be anywhere
    now; rag/status names it. Raises RequestFailed (-32803) when every folder selected is gone and no named RAG is
    (`rags`): "<folder>: the folder no longer exists (moved or deleted): its index is not searched until it
    is back; open the folder where it is now" — an answer of nothing would read as "no document says so". One
    that cannot be reached (`status.folder_gone`: a folder above it made unreadable, a network mount gone) is said
    so, "the folder cannot be reached (Permission denied)", and left out alike."""
    why = {id(idx): folder_gone(idx.folder) for idx in folders}
    here = [idx for idx in folders if why[id(idx)] is None]
    if folders and not here and not rags:
        by_reason: dict[str, list[str]] = {}
        for idx in folders:
            by_reason.setdefault(why[id(idx)], []).append(str(idx.folder))
        said = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in by_reason.items())
        raise RequestFailed(f"{said}: {GONE_ADVICE}")
    return here


def folder_position(folders: Sequence[Path], uri_or_path: str) -> int:
    """Position in `folders` (resolved paths) of the workspace folder given as file:// URI, path or folder name.
    Raises InvalidParams naming the known folders."""
    text = uri_or_path.strip()
    target = None
    if text.startswith("file:"):
        try:
            target = folder_uri_path(text)
        except ValueError as exc:  # a NUL in it failed the path resolution with a -32603 "embedded null byte"
            raise InvalidParams(f"workspaceFolder {uri_or_path!r}: {exc}") from None
    for i, f in enumerate(folders):
        if (target is not None and Path(target).resolve() == f) or text in (f.name, str(f)):
            return i
    raise InvalidParams(f"unknown workspace folder or rag: {uri_or_path!r}; known: "
                        + ", ".join(f.name for f in folders))


def selected(rag: Any, folders: Sequence[Path], indexes: list, rags: RagRegistry) -> tuple[list, list[Any]]:
    """(workspace folder indexes, named RAGs) that `rag` selects among the workspace's `folders` (resolved paths)
    and their `indexes` (`FolderIndex`, same order) and the named RAGs of `rags`: None/""/"workspace" → every
    folder; a name of `[rags.*]`; a workspace folder's name, path or URI (older clients); or a list of these, each
    selected once. Raises InvalidParams for another type or an unknown name, listing the known ones."""
    if rag is None or rag == "" or rag == []:
        return indexes, []
    names = [rag] if isinstance(rag, str) else rag
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise InvalidParams("rag must be a name or a list of names")
    if any(n.strip() != WORKSPACE for n in names):
        rags.reload()  # the user config is not watched: an edited [rags.*] table applies at once
    chosen: list = []
    named: list[Any] = []
    for name in dict.fromkeys(n.strip() for n in names):
        if name == WORKSPACE:
            chosen += [i for i in indexes if i not in chosen]
        elif name in rags.specs:
            named.append(rags.get(name))
        else:
            try:
                idx = indexes[folder_position(folders, name)]
            except InvalidParams:
                known = [WORKSPACE, *rags.names()]
                raise InvalidParams(f"unknown rag {name!r}; known: {', '.join(known)} (or a workspace folder: "
                                    f"{', '.join(f.name for f in folders)})") from None
            if idx not in chosen:
                chosen.append(idx)
    return chosen, named


def request_settings(settings: Settings, folders: Sequence[Any], rags: Sequence[Any]) -> Settings:
    """Retrieval/template settings of a request that selected `folders` and `rags` (`selected`): the workspace's
    `settings`, or a single named RAG's own (its overrides of top_k, min_similarity, template...), with the
    workspace's generation backend."""
    if folders or len(rags) != 1:
        return settings
    own = rags[0].spec.settings
    template = own.generation.template
    if "template" not in rags[0].spec.table and "rag_template" not in rags[0].spec.table and \
            "generation" not in rags[0].spec.table:
        template = settings.generation.template
    generation = settings.generation.model_copy(update={"template": template})
    return settings.model_copy(update={"retrieval": own.retrieval, "chunking": own.chunking,
                                       "generation": generation})
