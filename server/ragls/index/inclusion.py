"""Which documents a sync writes once reST `.. include::` lines and MkDocs includes are resolved
(`sources.rest_include`): a page holds
the text of the files it includes, so

- a page is read again when a file it includes (or names but could not read) changes, appears or goes away;
- a file some page includes is no document of its own: its file record is kept (so a change to it is seen), its
  own chunks are dropped — it is found, and cited at its own lines, as part of the page (`Chunk.included_in`);
- a file no page includes any more is indexed on its own again.

The manifest keeps which page includes which file (`Manifest.replace_files`' `includes`, `Manifest.includers`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ragls.config.settings import Settings
from ragls.core.errors import Skipped
from ragls.core.ir import Document
from ragls.core.uris import key_path
from ragls.index.chunking import no_text_reason
from ragls.index.rest_labels import document_labels
from ragls.sources.convert import extension, load_source
from ragls.sources.load import markup_extension
from ragls.sources.redact import mask_document
from ragls.sources.rest_include import expand, resolves_includes
from ragls.sources.walk import FileFilter
from ragls.stores.manifest import Manifest

# {page: {file it names: whether the file's text was read into the page}}
Includes = dict[str, dict[str, bool]]


@dataclass
class Folder:
    """What `resolve` reads of a folder's index: its folder (resolved), settings, file filter (what it reads),
    manifest, and a team overlay's allowed paths (None: all)."""

    folder: Path
    settings: Settings
    filter: FileFilter
    manifest: Manifest
    allowed: set[str] | None = None


def resolve(index: Folder, docs: list[Document], deleted: list[str], skipped: Iterable[str]
            ) -> tuple[list[Document], Includes, dict[str, dict[str, str]]]:
    """The documents a sync writes for the changed `docs` (read by `FolderIndex._scan`), `deleted` and `skipped`
    paths, with the includes of every reST page among them resolved, what each page includes (for the
    manifest), and the section labels of the files pages include ({file: {label: title}}, `rest_labels.
    document_labels` of the file's own text, its secrets masked when `sources.exclude_secrets` is on: Sphinx builds
    an included `.rst` file as a page of its own too, so a `:ref:` to its label reads as its title). Adds the pages
    whose included files changed, the files no page includes any more, and, as empty documents (file record only,
    no chunks), the files a page now includes."""
    by_path = {d.path: d for d in docs}
    skipped = set(skipped)
    changed = set(by_path) | set(deleted) | skipped
    if not changed:
        return docs, {}, {}
    old = index.manifest.includers(read=True)
    # pages that include (or named and could not read) a file that changed: read again
    for page in sorted(set().union(*index.manifest.includers(changed).values()) - changed):
        if (loaded := _load(index, page)) is not None:
            by_path[page] = loaded
    includes: Includes = {}
    for path, doc in list(by_path.items()):
        by_path[path] = _expanded(index, doc, includes)
    rewritten = set(by_path) | set(deleted) | skipped  # documents whose include rows are replaced
    included = _included({key for key, pages in old.items() if pages - rewritten}, set(by_path), includes)
    # a file no page includes any more is a document of its own again (its file record said "unchanged")
    for key in sorted(set(old) - included - set(by_path) - set(deleted) - skipped):
        if (loaded := _load(index, key)) is not None:
            by_path[key] = _expanded(index, loaded, includes)
    # a file a page now includes loses the chunks it had as a document of its own
    for key in sorted(included - set(by_path) - set(old)):
        if index.manifest.chunk_ids_of([key]) and (loaded := _load(index, key)) is not None:
            by_path[key] = loaded
    out = []
    labels: dict[str, dict[str, str]] = {}
    for path, doc in by_path.items():
        if path in included:
            includes.pop(path, None)
            masked = mask_document(doc) if index.settings.sources.exclude_secrets else doc
            if found := document_labels(masked):
                labels[path] = found
            doc = dataclasses.replace(doc, text="", origins=())  # file record only: the page holds its text
        out.append(doc)
    return out, includes, labels


def _included(included: set[str], docs: set[str], includes: Includes) -> set[str]:
    """The files pages include: `included` (by the pages this sync leaves alone) and what the pages among `docs`
    include. A document is a page when no page includes it: first those no document includes, then, for documents
    that only include each other (a cycle), one of them (not a fragment, `name.rst.inc`, when one is not; else the
    first by name), until each is a page or included."""
    reads = {d: {k for k, read in includes.get(d, {}).items() if read} for d in docs}
    included, pages, pending = set(included), set(), set(docs)
    while pending := pending - included - pages:
        targets = set().union(*(reads[d] for d in pending))
        roots = {d for d in pending if d not in targets} \
            or {min(pending, key=lambda d: (markup_extension(d) != extension(d), d))}
        pages |= roots
        for root in roots:
            included |= reads[root]
    return included


def _expanded(index: Folder, doc: Document, includes: Includes) -> Document:
    """`doc` with its includes resolved when it is a reST or Markdown page read as text (not by a
    `[document_loaders]` loader; `rest_include.resolves_includes`), recording what it includes in `includes`."""
    if not resolves_includes(doc.path) or doc.marks or extension(doc.path) in index.settings.document_loaders:
        return doc
    exp = expand(doc, index.filter, index.settings.sources.max_file_bytes)
    if exp.included or exp.wanted:
        includes[doc.path] = {**dict.fromkeys(exp.wanted, False), **dict.fromkeys(exp.included, True)}
    return exp.doc


def _load(index: Folder, path: str) -> Document | None:
    """The document at index key `path` as the scan reads it, when the index takes it (its filter, a team
    overlay's restriction) and it has text; else None."""
    allowed = index.allowed
    if (allowed is not None and path not in allowed) or not index.filter.included(path) \
            or not os.path.isfile(index.folder / key_path(path)):
        return None
    settings = index.settings
    loaded = load_source(index.folder, path, settings.sources.max_file_bytes, settings.document_loaders,
                         timeout_s=settings.sources.loader_timeout_s)
    if isinstance(loaded, Skipped):
        return None
    return loaded if no_text_reason(loaded.text) is None else None
