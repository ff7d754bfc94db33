"""The CLI's first answer on a fresh index: answer as soon as BM25 and the first vectors that matter exist, then
finish the embeddings (issue 29: README command 1 answered after 145 s of embedding windows it did not need).

`index_for_answer` runs the text phase of every folder (BM25 answers from here on), loads the embedding model,
embeds first the first vector of the chunks BM25 ranks highest for the question (`CANDIDATES` per folder), then
the other first vectors until every chunk has one or `budget_s` seconds of embedding have passed (counted from when
the model is loaded, so a slow start-up on a busy machine does not leave a small folder half embedded). The answer
then fuses BM25 with the vectors that exist (chunks without one are found by BM25 alone, as in a server's
progressive start). `finish_embedding` embeds what is left — remaining first vectors, then the windows of long
chunks — and compacts, exactly as `RagWorkspace.index` would have; an interrupted finish loses nothing (every
batch is written; the next run, or a server, resumes from the vector store).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ragls.index.vector_phase import EMBED_BATCH

#: BM25 candidates per folder whose first vector is embedded before the answer (the fusion's usual depth).
CANDIDATES = 50
#: Seconds of embedding, counted from when the model is loaded, before answering with what exists (a small folder
#: is done well before; README's docs/: ~a third of its first vectors on a quiet 2-core machine).
FIRST_ANSWER_BUDGET_S = 15.0
#: Chunks per batch while the budget runs (the deadline is checked between batches; 8 take ~2 s on 2 cores).
BUDGET_BATCH = 8


@dataclass
class Readiness:
    """What the first answer was computed from: `vectors` of `chunks` chunks had their first vector; `windows`
    chunks still miss other windows; `error` why there are no vectors at all (no embedding model), else None."""

    chunks: int
    vectors: int
    windows: int
    error: str | None = None

    @property
    def complete(self) -> bool:
        return self.vectors == self.chunks and not self.windows

    def line(self) -> str | None:
        """The one line saying what the answer used, or None when the index was complete."""
        if self.error or self.complete:
            return None
        if self.vectors == self.chunks:
            return (f"answering now: every section can be found by meaning; {self.windows} long sections are "
                    f"indexed for meaning search in full after the answer")
        return (f"answering now from word search, and meaning search over {self.vectors} of {self.chunks} sections "
                f"(those with the question's words first); the rest is indexed for meaning search after the answer")


def index_for_answer(ws, question: str, budget_s: float | None = None):
    """Text phase of every folder of `ws` (a RagWorkspace), then the first vectors described in the module
    docstring; `budget_s` defaults to FIRST_ANSWER_BUDGET_S. Returns (SyncReports, Readiness)."""
    reports = [idx.sync(embed=False) for idx in ws.indexes]
    errors = []
    deadline = None
    for idx, report in zip(ws.indexes, reports):
        if not idx.writer:
            continue
        if not idx.try_open_vectors():
            report.vectors_error = idx.vectors_error
            errors.append(idx.vectors_error)
            continue
        if deadline is None:  # the model is loaded
            deadline = time.monotonic() + (FIRST_ANSWER_BUDGET_S if budget_s is None else budget_s)
        if question.strip():
            idx.prioritize(cid for cid, _ in idx.bm25.search(question, CANDIDATES))
        while idx.urgent_count() and idx.embed_pending_batch(min(EMBED_BATCH, idx.urgent_count())):
            pass  # the candidates alone: a full batch would add other chunks before the answer
    for idx in ws.indexes:
        ready = deadline is not None and idx.writer and idx.vectors_ready
        while ready and idx.pending_count() and time.monotonic() < deadline:
            if not idx.embed_pending_batch(BUDGET_BATCH):
                break
    # Only the folders this process writes: another process (an editor's `ragls serve`, `ragls mcp`) embeds the
    # others, and a reader's pending counts are not its to finish (it said "0 of N chunks" of a complete index).
    writers = [idx for idx in ws.indexes if idx.writer]
    chunks = sum(idx.manifest.chunk_count() for idx in writers)
    pending = sum(idx.pending_count() for idx in writers)
    windows = sum(idx.pending_windows_count() or 0 for idx in writers) - pending
    return reports, Readiness(chunks, chunks - pending, max(0, windows), errors[0] if errors else None)


def reader_lines(ws) -> list[str]:
    """The lines a query or ask answered in this process says about each folder another process is still building
    (this process only reads its index: `ragls index` or a server without a local socket writes it), as an answer
    through a running server does (`common._server_building`): until the writer's first text phase ends, files it
    has not read are not found; until its vectors are stored, those chunks are found by keywords alone. Empty when
    every folder read is complete. The counts are the index's as committed now (the writer's recorded progress)."""
    lines = []
    for idx in ws.indexes:
        if idx.writer:
            continue
        if not idx.manifest.get_meta("last_indexed_at"):
            lines.append(f"another process is still building the index of {idx.folder} (reading its files): the "
                         "files it has not read yet are not found; results may be incomplete (`ragls status` shows "
                         "the progress)")
            continue
        pending = idx.stored_pending_count() or 0
        windows = (idx.pending_windows_count() or 0) - pending
        if pending:
            lines.append(f"another process is still building the index of {idx.folder}: {pending} of "
                         f"{idx.manifest.chunk_count()} sections are not embedded yet and are found by keywords "
                         "(BM25) only; results may be incomplete (`ragls status` shows the progress)")
        elif windows > 0:
            lines.append(f"another process is still building the index of {idx.folder}: {windows} long sections "
                         "are found by meaning from their beginning only until they are embedded in full; results "
                         "may be incomplete (`ragls status` shows the progress)")
    return lines


def finish_embedding(ws) -> None:
    """Embed every pending first vector and window of `ws`'s folders, then compact as `RagWorkspace.index` does.
    Raises KeyboardInterrupt through (the caller says the next run resumes)."""
    ws.index()  # nothing changed on disk since index_for_answer: a stat-only scan, then the vector phase
