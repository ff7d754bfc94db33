"""An ONNX Runtime session whose memory arena can be given back between bursts of work.

ONNX Runtime's CPU allocator is an arena: the activations of a run (for MiniLM on 256-token windows, two batches
side by side: attention scores of 12 x 256 x 256 float32 per text and layer, several such tensors at once)
come from chunks the arena keeps for the next run, never returning them. After a cold index the arena held ~95 MB (at `embedding.batch_size` 2; ~50 MB at 1)
that the short texts of later queries never need again (bench/history/session-62.md, "Server memory"). ONNX
Runtime's run option `memory.enable_memory_arena_shrinkage` frees, at the end of that run, every arena chunk not in
use (onnxruntime's `RunOptions` config keys; chunks another run is using stay). `Embedder.release_memory` runs one
short text under that option (`ReleasableSession.shrinking`); the indexer calls it when its work is done, not on
every run: shrinking on every run costs ~10 % more CPU (each run allocates and faults in its pages again).
"""

from __future__ import annotations

import contextlib
import threading

SHRINK_KEY = "memory.enable_memory_arena_shrinkage"  # onnxruntime/core/framework/run_options config key
CPU_ARENA = "cpu:0"  # the value naming the CPU device's arena


class ReleasableSession:
    """`session` (an `onnxruntime.InferenceSession`) as fastembed calls it — `run(output_names, input_feed)`, every
    other attribute passed through — whose runs on a thread inside `shrinking()` use run options that shrink the
    CPU memory arena at their end. Thread-safe like the session: other threads' runs are unaffected."""

    def __init__(self, session):
        self.session = session
        self._local = threading.local()
        self._shrink = None  # the RunOptions of a shrinking run, built on first use

    def __getattr__(self, name: str):
        return getattr(self.session, name)

    def run(self, output_names, input_feed, run_options=None):
        """`InferenceSession.run`; inside `shrinking()` on this thread (and no `run_options` given), with the
        shrinking run options."""
        if run_options is None and getattr(self._local, "shrinking", False):
            run_options = self._shrink_options()
        return self.session.run(output_names, input_feed, run_options)

    def _shrink_options(self):
        if self._shrink is None:
            import onnxruntime as ort

            options = ort.RunOptions()
            options.add_run_config_entry(SHRINK_KEY, CPU_ARENA)
            self._shrink = options
        return self._shrink

    @contextlib.contextmanager
    def shrinking(self):
        """Runs of this thread inside the block shrink the arena at their end."""
        self._local.shrinking = True
        try:
            yield
        finally:
            self._local.shrinking = False
