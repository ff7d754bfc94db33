"""`rag/status`: what a workspace reports about its folders (files, chunks, what is left to embed, the writer),
its embedding model and store, the index fingerprint, the generation backend, errors and notices.

`workspace_status` reads a `RagWorkspace` (`RagWorkspace.status` calls it); the LSP, CLI, MCP and HTTP fronts turn
the `Status` into their output (lsp/wire.to_wire_status).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ragls.config.globs import named_globs
from ragls.core.hashing import fingerprint

# What rag/status and a request (`rag_selection.present`) say of a workspace folder that is no longer a directory,
# and what follows the reason (`folder_gone`) in both.
FOLDER_GONE = "the folder no longer exists (moved or deleted)"
GONE_ADVICE = "its index is not searched until it is back; open the folder where it is now"


def folder_gone(folder: Path) -> str | None:
    """Why the workspace folder `folder` cannot be searched now, or None while it is a directory: FOLDER_GONE when
    nothing or no directory is there; "the folder cannot be reached (<the OS's reason>)" when asking fails otherwise
    (a folder above it made unreadable: EACCES; a network mount gone: ESTALE, EIO), which `Path.is_dir` raised
    (Python < 3.14): rag/status and every query failed with that PermissionError."""
    try:
        if stat.S_ISDIR(os.stat(folder).st_mode):
            return None
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        return f"the folder cannot be reached ({exc.strerror or exc})"
    return FOLDER_GONE


# Files left out that rag/status (and MCP index_status) lists per folder, the rest counted (`skippedMore`): a folder
# of 20,000 unreadable files made a 1.8 MB status reply that every client listed whole.
SKIPPED_LISTED = 50


@dataclass
class FolderStatus:
    """rag/status entry of one folder."""

    folder: Path
    files: int
    chunks: int
    pending: int
    pending_vectors: int
    last_indexed_at: float | None
    index_path: Path
    writer: bool
    skipped: list[tuple[str, str]]  # the first SKIPPED_LISTED files left out (path, reason), by path
    writer_process: dict | None = None  # {pid, role} of the process holding the index lock (None: nobody)
    # Chunks whose embedding windows are not all embedded yet (first vector included); None when unknown.
    pending_windows: int | None = None
    # True while this process's embedding model is still loading (a server before its indexer thread opened the
    # vectors): pending_vectors then counts every chunk, stored_pending_vectors is what is really left to embed.
    embedding_loading: bool = False
    stored_pending_vectors: int | None = None  # None: not known (nothing recorded yet)
    skipped_more: int = 0  # files left out beyond those `skipped` lists (wire `skippedMore`)


@dataclass
class Status:
    """rag/status of a workspace: one `FolderStatus` per folder, then what the workspace shares."""

    folders: list[FolderStatus]
    embedding_model: str
    store: str
    fingerprint: str
    generation: dict[str, str | None]
    errors: list[dict[str, str]] = field(default_factory=list)
    llm_calls: dict[str, dict[str, int]] = field(default_factory=dict)  # this process's retrieval LLM calls
    notices: list[str] = field(default_factory=list)  # informational lines (RagWorkspace.notices), not errors
    # One per notice, in order: "warning" when the user must act (a folder whose index holds no file), else "info"
    # (the model an index keeps, an old setting name, a folder's autodoc pages); wire `noticeLevels`.
    notice_levels: list[str] = field(default_factory=list)
    max_length: int | None = None  # tokens the embedding model reads per text (for the cold-embedding estimate)
    embedding_source: str = ""  # Embedder.source: "path", "cache", "download", "offline-fallback"; "" until loaded
    embedding_requested: str = ""  # the configured embedding.model


def empty_folder_notice(idx) -> str | None:
    """What to do about a folder whose index holds no file (`idx`, a FolderIndex): its last full scan listed none,
    skipped none and kept no older index (`include_warning` says that case) — most often a code-only repository, as
    ragls indexes documentation files unless `sources.include` says more. None when the folder has files, a skipped
    file, an include warning, has never been indexed (a first scan may still be running), or another process writes
    it. `ragls index` prints it as a warning; rag/status lists it among `notices`."""
    if (idx.other_writer or idx.include_warning or idx.ignore_warnings or idx.manifest.file_count() or idx.manifest.skipped(1)
            or not idx.manifest.get_meta("last_indexed_at")):
        return None
    # each glob as a code span (`named_globs`): this text also goes into an abstained answer, which is markdown,
    # where a bare `**/*.{md,...}` lost its stars to emphasis (Neovim's float showed "/.{md,...")
    globs = named_globs(idx.settings.sources.include)
    return (f"no file here matches sources.include {globs}: ragls indexes documentation "
            f"files by default; to index others, e.g. code, add their globs to sources.include in "
            f"{idx.folder / 'ragls.toml'} (docs/configuration.md)")


def empty_folder_notices(indexes) -> list[str]:
    """`empty_folder_notice` of each FolderIndex in `indexes` that has one, led by its folder ("<folder>: no file
    here matches sources.include [...]: ..."): the lines rag/status adds to `notices`, and what `ragls query` prints
    under "(nothing found)". Empty when every folder holds a file (or may still)."""
    return [f"{idx.folder}: {n}" for idx in indexes if (n := empty_folder_notice(idx))]


def autodoc_notices(indexes) -> list[str]:
    """`index.autodoc.notice` of each FolderIndex in `indexes` that has one, led by its folder ("<folder>: 116
    pages (...) document Python APIs ... with autodoc directives ..."): lines rag/status adds to `notices` and
    `ragls index` prints."""
    from ragls.index.autodoc import notice

    return [f"{idx.folder}: {n}" for idx in indexes if (n := notice(idx.manifest))]


def workspace_status(ws) -> Status:
    """rag/status of the RagWorkspace `ws`. The server (`progressive`) reports every chunk as pending until its
    indexer thread has opened the vector stores. `read_only` (`ragls status`) loads neither the model nor LanceDB:
    vector counts, model and fingerprint are the ones the writer last recorded in the manifest. Otherwise (CLI
    after indexing) the vector stores are opened first, so the counts are exact."""
    from ragls.llm.costs import COUNTER as LLM_COUNTER
    from ragls.retrieval.llm_steps import wire_counts

    folders = []
    queued = ws.files_queued()
    for i, idx in enumerate(ws.indexes):
        if not ws.progressive and not ws.read_only:
            idx.try_open_vectors()  # a failure is in idx.vectors_error, reported below
        if not idx.writer:
            idx.refresh()
        last = idx.manifest.get_meta("last_indexed_at")
        folders.append(FolderStatus(
            folder=idx.folder, files=idx.manifest.file_count(), chunks=idx.manifest.chunk_count(),
            pending=queued.get(i, 0), pending_vectors=idx.pending_count(),
            pending_windows=idx.pending_windows_count(),
            embedding_loading=idx.embedding_loading, stored_pending_vectors=idx.stored_pending_count(),
            last_indexed_at=float(last) if last else None, index_path=idx.index_dir,
            writer=not idx.other_writer,
            skipped=(skipped := idx.manifest.skipped(SKIPPED_LISTED)),  # counted only when the list is full
            skipped_more=idx.manifest.skipped_count() - len(skipped) if len(skipped) == SKIPPED_LISTED else 0,
            writer_process=idx.writer_process()))
    gen = ws.settings.generation
    backend = gen.resolved_backend()
    model = None
    if backend != "none":
        from ragls.llm.chat import default_model

        model = gen.model or default_model(backend)
    # Why an untrusted folder's own LLM is not used (FolderLayer.ignored_llm), the reason rag/ask's label gives.
    ignored = next((why for why in ws.ignored_llm if why), None)
    first = ws.indexes[0]
    fp = first.fingerprint
    # The vector rows' identity (model + windows): the open store's, else the one the writer last recorded, so a
    # server, `ragls status` and the CLI after indexing print the same fingerprint for the same index.
    vectors_fp = first.vectors_fp or first.manifest.get_meta("vectors_fp")
    if vectors_fp:
        fp = fingerprint({"text": first.fingerprint, "embedding": vectors_fp})
    model_errors = {f"embedding model: {idx.vectors_error}" for idx in ws.indexes if idx.vectors_error}
    model_errors |= {idx.include_warning for idx in ws.indexes if idx.include_warning}
    model_errors |= {f"{idx.folder}: {idx.rebuild_reason} since it was built; the next index run rebuilds it"
                     for idx in ws.indexes if idx.settings_changed and not idx.writer}
    # A folder moved or deleted while open: its index keeps the files it held (a walk that cannot list the folder
    # keeps them: `FileFilter.unentered`) and is not searched until it is back (`rag_selection.present`).
    model_errors |= {f"{idx.folder}: {why}: {GONE_ADVICE}" for idx in ws.indexes if (why := folder_gone(idx.folder))}
    model_name, max_length = ws.embedder.model_name, ws.embedder.max_length
    if ws.embedder._model is None and ws.embedder.pinned_model:  # loading: the model it will load
        model_name = ws.embedder.pinned_model
    if ws.read_only and ws.embedder._model is None:  # `ragls status` loads no model: the index's record
        model_name = ws.indexes[0].manifest.get_meta("vectors_model") or model_name
        max_length = int(ws.indexes[0].manifest.get_meta("vectors_max_length") or max_length)
    store = ws.teams[0].store_name() if ws.teams[0] is not None else first.store_name
    notes, warnings, autodoc = list(ws.notices), empty_folder_notices(ws.indexes), autodoc_notices(ws.indexes)
    return Status(folders=folders, embedding_model=model_name, store=store,
                  fingerprint=fp, generation={"backend": backend, "model": model,
                                              **({"ignored": ignored} if ignored else {})},
                  errors=[{"message": m} for m in sorted(model_errors)] + list(ws.errors)
                  + [e for g in ws.graphs if g is not None for e in g.errors()]
                  + [e for i in ws.indexes if getattr(i, "contextualizer", None) for e in i.contextualizer.errors()]
                  + [{"path": path, "message": f"{path}: {why}", "severity": "warning"}
                     for idx in ws.indexes for path, why in idx.ignore_warnings],
                  llm_calls=wire_counts(LLM_COUNTER),
                  notices=notes + warnings + autodoc,
                  notice_levels=["info"] * len(notes) + ["warning"] * len(warnings) + ["info"] * len(autodoc),
                  max_length=max_length,
                  embedding_source=ws.embedder.source, embedding_requested=ws.settings.embedding.model)
