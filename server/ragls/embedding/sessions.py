"""ONNX Runtime sessions of the embedding model: their options, one session shared per model file, threads and
batches side by side, execution providers, and an arena that can be given back between bursts of work (`ReleasableSession`).

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
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

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


def session_options(threads: int | None):
    """ONNX Runtime session options: fastembed's (graph optimisation ORT_ENABLE_ALL, `threads` intra- and inter-op
    threads when given) plus `enable_mem_pattern=False`. A memory pattern pre-plans one block per input shape;
    with variable-length text batches it kept 33 MB more resident after 96 Rust-book chunks at the same CPU time
    (bench/history/early-speed-and-operations.md, "Memory levers"). Results do not change: only where tensors are allocated does. The embedder's own session
    gets the intra-op threads of `thread_split` (one on up to 3 CPUs): it runs two batches side by side."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads is not None:
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = threads
    so.enable_mem_pattern = False
    return so


_SESSIONS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # shared_session's, by (file, providers, threads)
_SESSIONS_LOCK = threading.Lock()
_LAST_SESSION: list = []  # the session shared_session handed out last, kept when its embedders are gone


def shared_session(path: Path, providers: list[str], intra_op: int | None):
    """The ONNX Runtime `InferenceSession` of the model file `path` with `providers` and `session_options(intra_op)`,
    wrapped in a `ReleasableSession` (its arena can be given back, `Embedder.release_memory`),
    one per process while an embedder holds it or it is the last one handed out: a second `Embedder` of the same
    model file, providers and threads (another folder of a multi-root server, a named RAG, a workspace opened
    again, the tests' in-process workspaces) gets the session the first built instead of building its own — graph
    optimisation was ~0.1 CPU-s of a 0.14 CPU-s load and each session holds the model's weights. ONNX Runtime's
    `run` is thread-safe, and concurrent calls of one session run in parallel (as `embed_documents`' side-by-side
    batches already do), so the vectors are the same bit for bit. The file's size and mtime are in the key: a
    rewritten file gets a new session. Raises what `InferenceSession` raises."""
    import onnxruntime as ort

    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, tuple(providers), intra_op)
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(key)
        if session is None:
            session = ReleasableSession(ort.InferenceSession(str(path), sess_options=session_options(intra_op),
                                                             providers=providers))
            _SESSIONS[key] = session
        _LAST_SESSION[:] = [session]
        return session


SIDE_BY_SIDE = 2  # the most batches `Embedder.embed_documents` runs at once (each holds its activations in memory)


def thread_split(threads: int | None) -> tuple[int, int]:
    """(batches run at once, ONNX Runtime intra-op threads of the session) for `embedding.threads` (when None, the
    CPUs this process may run on: `os.sched_getaffinity`, else `os.cpu_count()`): min(SIDE_BY_SIDE, threads)
    batches side by side, each on threads // that many intra-op threads — on 2 CPUs two batches of one thread
    each. Side by side, two small batches (sentences of ~35 tokens, the extractive answer's candidates) keep two
    cores busy with no synchronisation between them; ONNX Runtime's intra-op threads split each operator of such
    a batch and spin between operators, which cost ~90 % more process CPU for the same vectors, bit for bit
    (bench/history/session-50.md, "Sentence batches side by side"). Two at most: each batch running holds its activations
    in ONNX Runtime's memory arena (+44 MB peak when indexing 256-token windows on 2 CPUs), so more cores go to
    intra-op threads, not to more batches."""
    if threads is None:
        try:
            threads = len(os.sched_getaffinity(0))
        except AttributeError:  # macOS and Windows have no sched_getaffinity
            threads = os.cpu_count() or 1
    workers = max(1, min(SIDE_BY_SIDE, threads))
    return workers, max(1, threads // workers)


# embedding.provider -> the ONNX Runtime execution provider it asks for (each chain ends on CPU).
PROVIDERS = {"cuda": "CUDAExecutionProvider", "rocm": "ROCMExecutionProvider", "directml": "DmlExecutionProvider"}


def execution_providers(setting: str, available: Sequence[str], warn: Callable[[str], None],
                        name_of_setting: str = "embedding provider") -> list[str]:
    """ONNX Runtime providers for `embedding.provider` (also `retrieval.rerank_provider`): "cpu" → CPU; "cuda" /
    "rocm" / "directml" → that provider then CPU, or CPU alone with a warning when it is not installed; "auto" →
    CUDA when available, else CPU; anything else → CPU with a warning."""
    name = (setting or "auto").lower()
    if name == "auto":
        return (["CUDAExecutionProvider"] if "CUDAExecutionProvider" in available else []) + ["CPUExecutionProvider"]
    if name == "cpu":
        return ["CPUExecutionProvider"]
    wanted = PROVIDERS.get(name)
    if wanted is None:
        warn(f"unknown {name_of_setting} {setting!r} (known: auto, cpu, {', '.join(PROVIDERS)}); using the CPU")
        return ["CPUExecutionProvider"]
    if wanted not in available:
        warn(f"{name_of_setting} {setting!r} needs {wanted}, which this onnxruntime does not have; using the CPU")
        return ["CPUExecutionProvider"]
    return [wanted, "CPUExecutionProvider"]
