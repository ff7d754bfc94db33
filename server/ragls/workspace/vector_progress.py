"""The progress of the vector phase as the indexer thread reports it (`watch.IndexWorker`): the step a folder is in,
in words that say what the user gets, and the percentage of the estimated embedding work done over every folder.

The steps (`index/vector_phase.py`): 1 first vectors (until then a chunk is found by its words alone), 2 the other
windows of long chunks, 3 the answer sentences, only where a folder's sentence pass runs.
"""

from __future__ import annotations

import time

from ragls.workspace.rag_workspace import RagWorkspace

ESTIMATE_SHARE = 0.05  # at most this share of the vector phase's time goes to estimating its percentage


def _vector_steps(idx) -> int:
    """Steps of a folder's vector phase (VectorProgress.report): first vectors, the other windows, and the
    answer sentences only where the folder's sentence pass runs (`idx.answer_sentences` set)."""
    return 3 if idx.answer_sentences is not None else 2


class VectorProgress:
    """The vector phase's progress over the folders of `ws`; keeps the last percentage estimate (not thread-safe:
    the indexer thread alone calls it)."""

    def __init__(self, ws: RagWorkspace):
        self.ws = ws
        # (monotonic time it was made, seconds it took, its step, percentage) of the last vector-phase estimate
        self._estimate: tuple[float, float, tuple[str, int], int | None] = (0.0, 0.0, ("", 0), None)

    def report(self, idx) -> tuple[str, int | None]:
        """(message, percentage 0-100 or None without chunks) of the vector phase while `idx` has work.

        The message names the step of the folder `idx` and says what the user gets, not the step's name
        (docs/protocol.md: the client shows it after its title, "ragls: indexing for meaning search 340/1200
        sections, step 1 of 3 (9%)"). The percentage covers every step of every folder with its vector store
        open, so a first index counts from 0 to 100 % once, not once per step: each folder's work is weighed by
        the wordpieces its steps embed (`FolderIndex.vector_work_estimate`: first vectors, long chunks' other
        windows, answer sentences where its sentence pass runs), a stand-in for time known before steps 2 and 3
        run, so the bar moves at a steadier rate than counting each chunk once per step did (session 67: 35 % in
        60 s, then 31 % in 140 s on flask-docs). Work only falls while no file changes; `IndexWorker._set_busy`
        keeps the percentage from going back when new chunks arrive. The estimate sums over every pending chunk
        (~0.1 s at 100,000 chunks, beside step 3's batches of 4 chunks), so within a step it is made again only
        once the time since the last one is 1 / ESTIMATE_SHARE times what that one took: every batch on a small
        folder, every few seconds on a large one; a new step is estimated at once."""
        steps = _vector_steps(idx)
        total = idx.manifest.chunk_count()
        pending = idx.pending_count()
        windows = idx.pending_windows_count() or 0
        if pending:  # first vectors: until then a chunk is found by its words alone
            stage, message = 1, f"for meaning search {total - pending}/{total} sections, step 1 of {steps}"
        elif windows or steps == 2:  # the rest of each long chunk's windows
            stage, message = 2, f"for meaning search in long sections {total - windows}/{total}, step 2 of {steps}"
        else:  # the sentence pass (vector_phase.py): the answer sentences of the chunks
            stage = 3
            message = f"for faster answers {max(0, total - idx.pending_sentences_count())}/{total} sections, step 3 of 3"
        step = (str(idx.folder), stage)
        made, took, last_step, percentage = self._estimate
        now = time.monotonic()
        if step != last_step or now - made >= took / ESTIMATE_SHARE:
            percentage = self._vector_percentage()
            self._estimate = (now, time.monotonic() - now, step, percentage)
        return message, percentage

    def _vector_percentage(self) -> int | None:
        """Percentage 0-100 of the estimated vector-phase work done over every folder with its vector store open
        (`FolderIndex.vector_work_estimate`), None when no folder has any."""
        left_all = total_all = 0.0
        for i in self.ws.indexes:
            estimate = i.vector_work_estimate()
            if estimate is None:  # vector store not open: its chunks are not counted yet
                continue
            left_all += estimate[0]
            total_all += estimate[1]
        return int(100 * max(0.0, total_all - left_all) / total_all) if total_all else None
