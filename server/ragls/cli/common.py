"""What the `ragls` commands share (cli/app.py and cli/ops.py import it; neither imports the other's helpers): the
indexing progress display, opening the folder's workspace from the command line's options, JSON output, result
lines, and asking a running `ragls serve` over its local socket before answering in-process.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import re
import sys
import time
from pathlib import Path

from ragls.cli.folder import require_folder
from ragls.core.errors import InvalidParams, RaglsError, from_wire_error
from ragls.core.uris import display_path
from ragls.sources.convert import EXTRACTED

#: What each indexing phase gives the user, as the terminal shows it, in the words the server's work-done progress
#: uses (workspace/watch.py, docs/protocol.md: "sections", "meaning search"), not the step's name ("embed windows"
#: was jargon, and so was "chunks" as a bar's unit): the first vector of every chunk makes the index searchable by
#: meaning; the later windows (index/windows.py) make the rest of each long chunk reach the vector signal; the answer
#: sentences (index/vector_phase.py, the sentence pass) spare a first answer the model's time.
PHASE_LABELS = {"scan": "files checked for changes",
                "embed": "indexing for meaning search (search by words works already)",
                "windows": "indexing for meaning search in long sections (search works already)",
                "sentences": "indexing for faster answers (search and answers work already)"}


#: A bar shows a rate (and the time left) only once it has run this long (seconds): tqdm divides the work done by the
#: time since the bar appeared, and a phase that reports its first batch (or all of its files) within microseconds of
#: its start printed "27/27 [00:00<00:00, 1272429.30files/s]" and "32/368 [00:00<00:00, 2982616.18chunks/s]".
RATE_AFTER_S = 1.0


@functools.cache
def _bar_class():
    """tqdm's bar class without a rate before RATE_AFTER_S (tqdm is imported on a terminal's first report only)."""
    from tqdm import tqdm

    class Bar(tqdm):
        @property
        def format_dict(self):
            shown = super().format_dict
            if shown["rate"] is None and shown["elapsed"] < RATE_AFTER_S:
                shown["elapsed"] = 0  # tqdm derives no rate from 0 s: "?chunks/s", and "<?" for the time left
            return shown

    return Bar


class Progress:
    """Progress callback for the indexer: tqdm bars on a terminal; otherwise (a log, CI, a coding agent reading the
    output) a line when a phase starts or ends and at most one per LOG_EVERY_S seconds between; the check for
    changed files ("scan") only when that check itself has run for LOG_EVERY_S, timed from its 0/N report (every
    `ask` on an unchanged folder of 200+ files printed "ragls: files 200/204", which read as 4 files missing; a check
    at the end of a long first `ask` printed "files checked for changes 9/9" after the answer)."""

    LOG_EVERY_S = 10.0  # was 2: a slow machine printed a line per batch, ~100 lines for one corpus into an agent's context

    def __init__(self):
        self.tty = sys.stderr.isatty()
        self.bars: dict[str, object] = {}
        self.last_log = 0.0
        self.scan_started = time.monotonic()  # when the current check for changed files began (its 0/N report)
        self.last_phase = ""
        self.embed_done = 0
        self.windows_done = 0
        self.sentences_done = 0

    def __call__(self, phase: str, done: int, total: int, message: str) -> None:
        if phase == "embed":  # done = chunks embedded in this batch, total = still pending
            self.embed_done += done
            done, total = self.embed_done, self.embed_done + total
        elif phase == "windows":  # done = chunks whose windows completed in this batch, total = still pending
            self.windows_done += done
            done, total = self.windows_done, self.windows_done + total
        elif phase == "sentences":  # done = chunks whose answer sentences were embedded in this batch, total = pending
            self.sentences_done += done
            done, total = self.sentences_done, self.sentences_done + total
        if self.tty:
            unit = "sections" if phase in ("embed", "windows", "sentences") else "files"
            bar = self.bars.get(phase)
            if bar is None:
                bar = self.bars[phase] = _bar_class()(total=total, unit=unit, desc=PHASE_LABELS.get(phase, phase),
                                              file=getattr(sys.stderr, "raw", sys.stderr), leave=False)
            bar.total = total
            bar.n = done
            bar.refresh()
        elif phase == "scan" and done == 0:
            self.scan_started = time.monotonic()
        elif phase == "scan" and time.monotonic() - self.scan_started <= self.LOG_EVERY_S:
            return
        elif phase != self.last_phase or time.monotonic() - self.last_log > self.LOG_EVERY_S or done == total:
            self.last_log, self.last_phase = time.monotonic(), phase
            print(f"ragls: {PHASE_LABELS.get(phase, phase)} {done}/{total}", file=sys.stderr, flush=True)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()
        self.bars.clear()


def _workspace(args, progress=None, read_only: bool = False, pin_model: bool = True, warn: bool = True):
    """The RagWorkspace of `args.path` for one command, with the CLI's overrides (`--index-path`, the Qdrant
    options); its config warnings (an untrusted or mistyped ragls.toml) go to stderr unless `warn` is False (`ragls
    status` prints them among its own lines). Raises InvalidParams for a path that is not a folder, and unless
    `read_only` for the filesystem root or the home directory without a ragls.toml (`roots.is_too_broad`), which
    `ragls mcp`, `ragls http` and the editors refuse too: `ragls index /` walked and embedded the whole disk."""
    from ragls.workspace.rag_workspace import RagWorkspace
    from ragls.workspace.roots import is_too_broad

    folder = require_folder(args.path, getattr(args, "cmd", None))
    if not read_only and is_too_broad(folder):
        raise InvalidParams(f"not indexing {folder.resolve()} (the filesystem root or your home directory): pass a "
                            "project folder, or add a ragls.toml there to index it anyway")
    overrides = dict(getattr(args, "overrides", None) or {})
    if getattr(args, "index_path", None):
        overrides["index"] = {**overrides.get("index", {}), "path": args.index_path}
    qdrant = {key: getattr(args, attr, None) for key, attr in (
        ("backend", "backend"), ("qdrant_location", "url"), ("qdrant_collection", "collection"),
        ("qdrant_api_key_env", "api_key_env"), ("repo_id", "repo_id"), ("team", "team"))}
    if qdrant["qdrant_location"] and not qdrant["backend"]:
        qdrant["backend"] = "qdrant"
    if any(qdrant.values()):
        overrides["index"] = {**overrides.get("index", {}), **{k: v for k, v in qdrant.items() if v}}
    from ragls.cli.trust import offer_trust

    offer_trust([folder])
    ws = RagWorkspace([folder], [overrides], on_progress=progress,
                      on_status=lambda msg: print(f"ragls: {msg}", file=sys.stderr), read_only=read_only,
                      pin_model=pin_model)
    for warning in ws.warnings if warn else ():  # e.g. a typo in ragls.toml
        print(f"ragls: warning: {warning}", file=sys.stderr)
    return ws


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def location_text(r: dict) -> str:
    """`lines_text`, plus ":column" (1-based) when the range is one line and starts inside it — a chunk of a line
    longer than a chunk (minified text, a one-line paragraph), so two such chunks are told apart ("huge.md:3:1997"
    and "huge.md:3:299996") and the terminal's path:line:col link lands on the passage, as grep and compilers
    print it."""
    text = lines_text(r)
    col = r["start"].get("character", 0)
    return f"{text}:{col + 1}" if col > 0 and "-" not in text else text


def lines_text(r: dict) -> str:
    """The 1-based lines of a wire range as the editors print them: "19" for one line, "19-21" for several; an end
    at character 0 of a later line does not include that line (`answer.template.human_lines`)."""
    from ragls.answer.template import human_lines
    from ragls.core.ir import LineSpan

    first, last = human_lines(LineSpan(r["start"]["line"], r["start"].get("character", 0), r["end"]["line"],
                                       r["end"]["character"]))
    return f"{first}-{last}" if last > first else f"{first}"


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


#: Unicode's bidirectional embeddings, overrides and isolates (LRE..RLO, LRI..PDI): a terminal that lays out
#: bidirectional text shows what follows one reversed, so a file "report\u202egnp.md" read "reportdm.png" and a line
#: of a document could show other text than it holds (Trojan Source, CVE-2021-42574). Escaped like a control.
_BIDI = "\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_CONTROL_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")


def _escape(m: re.Match) -> str:
    c = m.group()
    return _ESCAPES.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


class TerminalStream:
    """A text stream (stdout or stderr) that writes every control character but line breaks and tabs (C0, DEL, C1)
    as a `\\u001b` escape: the CLI's warnings, notes, errors and log lines name what a folder wrote — a ragls.toml's
    keys, globs and RAG names, file names —, and an ESC in them set the window title, wrote the clipboard (OSC 52)
    or erased the warning itself (red team, session 53). `\\uXXXX` keeps JSON output valid (json.dumps writes DEL
    and C1 as they are) and decodes to the same character. `raw` is the stream wrapped (tqdm's own bars)."""

    def __init__(self, raw):
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(_CONTROL_BUT_LINES.sub(lambda m: f"\\u{ord(m.group()):04x}", text))
        return len(text)

    def __getattr__(self, name: str):  # flush, fileno, isatty, encoding, buffer: the wrapped stream's
        return getattr(self.raw, name)


@contextlib.contextmanager
def terminal_streams(stdout: bool = True):
    """Within: sys.stderr (and sys.stdout unless `stdout` is False: a protocol's channel, `ragls serve` / `ragls
    mcp`) are `TerminalStream`s; restored after."""
    saved = sys.stdout, sys.stderr
    sys.stderr = TerminalStream(sys.stderr)
    if stdout:
        sys.stdout = TerminalStream(sys.stdout)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def one_line(text: str) -> str:
    """`text` with control characters (C0, DEL, C1, bidi overrides: `_BIDI`) written as escapes ("\\n", "\\x1b",
    "\\u202e"), as git quotes such a path:
    a file named "odd\\nname.md" or a multi-line reason stays on its one output line (and an ESC in a name cannot
    drive the terminal)."""
    return _CONTROL.sub(_escape, text)


def terminal_text(text: str) -> str:
    """`text` to print on the user's terminal: line breaks and tabs kept, every other control character (C0, DEL,
    C1, bidi overrides: `_BIDI`) written as an escape ("\\x1b", "\\u202e"). A document's text and an answer built
    from it are the folder's input: an ESC in them would start a sequence that sets the window title, writes the
    clipboard (OSC 52: a command for the next paste) or clears the screen."""
    return _CONTROL_BUT_LINES.sub(_escape, text)


def _line(src: dict) -> str:
    """`path:first-last` (1-based; `path:first` for one line, `lines_text`) of the focus lines when the source has
    them, else of the chunk; a web source shows its URL (with #fragment), a PDF its page, a converted document that
    its lines are the extracted text's (`where_note`)."""
    r = src.get("focusRange") or src["range"]
    where = src["uri"] if src["uri"].startswith(("http://", "https://")) else src["path"]
    return f"{one_line(where)}:{location_text(r)}{where_note(src)}"


def where_note(src: dict) -> str:
    """What a rag/query or rag/ask source's line numbers need beside them: " (page 3)" for a PDF's, " (extracted
    text)" when they count the text ragls extracted from an HTML, PDF or DOCX file (`extractedText`), both as
    " (page 3, extracted text)"; else ""."""
    notes = ([f"page {src['page']}"] if src.get("page") else []) + ([EXTRACTED] if src.get("extractedText") else [])
    return f" ({', '.join(notes)})" if notes else ""


def _chunk_lines(src: dict) -> str:
    """"  (chunk first-last)" when the focus is narrower than the chunk, else ""."""
    r, f = src["range"], src.get("focusRange")
    if f is None or lines_text(f) == lines_text(r):
        return ""
    return f"  (chunk {lines_text(r)})"


def preview_text(chunk: dict, limit: int = 200) -> str:
    """One line of a rag/query chunk to show under its `path:lines`: the text of its focus lines (`focusRange`, the
    lines the location names) when they lie within the chunk's text, else the chunk's start; whitespace collapsed,
    at most `limit` characters. The chunk's `text` holds the file's lines `range.start.line`..`range.end.line`."""
    if chunk.get("preview") is not None:  # the server's reading of those lines (`answer/preview.chunk_preview`)
        return chunk["preview"][:limit]
    src, lines = chunk["source"], chunk["text"].split("\n")
    focus, first = src.get("focusRange"), src["range"]["start"]["line"]
    if focus is not None:
        a, b = focus["start"]["line"] - first, focus["end"]["line"] - first
        if 0 <= a <= b < len(lines) and any(line.strip() for line in lines[a:b + 1]):
            lines = lines[a:b + 1]
    return " ".join(" ".join(lines).split())[:limit]


def without_sentence_pass(args) -> None:
    """Turn the index's sentence pass (`index.sentence_vectors`, index/vector_phase.py) off for this command unless
    its own overrides set it: a one-shot command (`ragls query`, `ragls ask`) prints its result and exits, and the
    pass only saves a later first answer the model time of its sentences and lets a later focus weigh their meaning
    (`Embedder.known_vectors`; the vectors are the same bit for bit), so the user would wait for work done for
    someone else: README command 1 took 237 s instead of
    200 s with it (bench/history/session-52.md "What a newcomer and an editor wait for"). It runs on the next `ragls index`
    or server start; what an index holds already is still read (`Embedder.stored`)."""
    layer = dict(getattr(args, "overrides", None) or {})
    args.overrides = {**layer, "index": {"sentence_vectors": False, **layer.get("index", {})}}


@contextlib.contextmanager
def _indexed_workspace(args, question: str | None = None):
    """The folder's workspace, brought up to date first (progress on stderr); closed afterwards.

    With `question` (query, ask) a fresh index answers early (cli/first_answer.py): the body runs once BM25 and the
    first vectors that matter exist (one stderr line says so), and the rest is embedded after it returns — its
    output flushed first; Ctrl-C there stops safely and the next run resumes. With `question` the sentence pass
    does not run (`without_sentence_pass`)."""
    from ragls.cli.first_answer import finish_embedding, index_for_answer, reader_lines

    if question is not None:
        without_sentence_pass(args)
    progress = Progress()
    ws = _workspace(args, progress)
    try:
        rags = getattr(args, "rag", None) or []
        readiness = None
        if not rags or any(r == "workspace" or r not in ws.rags.specs for r in rags):
            if question is None:  # named RAGs alone: the workspace folder is not indexed
                ws.index()
            else:
                _, readiness = index_for_answer(ws, question)
        progress.close()
        _warn_no_vectors(ws)
        if readiness is not None and (line := readiness.line()):
            print(f"ragls: {line}", file=sys.stderr, flush=True)
        for line in reader_lines(ws) if question is not None else ():
            print(f"ragls: {line}", file=sys.stderr, flush=True)
        yield ws
        if readiness is not None and not readiness.complete and readiness.error is None:
            sys.stdout.flush()
            print("ragls: indexing the rest for meaning search, for the next answers (Ctrl-C stops safely; the next "
                  "run resumes)", file=sys.stderr, flush=True)
            try:
                finish_embedding(ws)
            except KeyboardInterrupt:
                print("\nragls: stopped; the indexing done so far is kept and the next run resumes",
                      file=sys.stderr)
            finally:
                progress.close()
    finally:
        ws.close()


def _warn_no_vectors(ws) -> None:
    """One stderr line per folder whose vector store could not open (no embedding model)."""
    for idx in ws.indexes:
        if idx.vectors_error:
            print(f"ragls: vector search is off for {idx.folder}; keyword (BM25) search still works: "
                  f"{idx.vectors_error}", file=sys.stderr)


def _via_server(args, method: str, params: dict, on_delta=None) -> dict | None:
    """The result of `method` from a running `ragls serve` that holds the folder's index (over its local socket,
    lsp/local_socket.py), or None to run in-process: no server, `--no-server`, or its socket is unusable.
    Raises RaglsError for the server's own error answers (bad params, LLM failures)."""
    from ragls.lsp.local_socket import SocketRefused, find_server, request

    if getattr(args, "no_server", False):
        return None
    folder = Path(args.path).expanduser().resolve()
    try:
        from ragls.index.paths import configured_index_dir

        found = find_server(configured_index_dir(folder, getattr(args, "index_path", None)))
    except SocketRefused as exc:
        print(f"ragls: {exc}", file=sys.stderr)
        return None
    except (RaglsError, OSError):
        return None
    if found is None:
        logging.getLogger("ragls.cli.app").debug("no running server for %s: answering in-process", folder)
        return None
    pid, sock = found
    try:
        for msg in request(sock, method, {**params, "rag": str(folder)}):
            if "delta" in msg and on_delta is not None:
                on_delta(msg["delta"])
            elif "error" in msg:
                raise from_wire_error(msg["error"])
            elif "result" in msg:
                logging.getLogger("ragls.cli.app").debug("answered by the running server (pid %d, %s)", pid, sock)
                if method != "rag/status" and (line := _server_building(sock, pid, folder)) is not None:
                    print(f"ragls: {line}", file=sys.stderr, flush=True)
                return msg["result"]
    except OSError as exc:
        logging.getLogger("ragls.cli.app").debug("server socket %s failed (%s): answering in-process", sock, exc)
    return None


def _server_building(sock: Path, pid: int, folder: Path) -> str | None:
    """The line a query or ask answered by a running server gets while that server is still building `folder`'s
    index (from its rag/status), as the in-process first answer says what it used (cli/first_answer.py): a server
    started on a fresh folder (`ragls serve --background` returns after the text phase) answers searches from
    keywords until its model loads and from the chunks embedded so far. None when the index is complete or the
    status cannot be read."""
    from ragls.core.uris import uri_to_path
    from ragls.lsp.local_socket import request

    try:
        status = next((m["result"] for m in request(sock, "rag/status", {}, timeout=10) if "result" in m), None)
    except (OSError, ValueError):
        return None
    mine = [f for f in (status or {}).get("folders", []) if Path(uri_to_path(f["uri"])) == folder]
    if not mine:
        return None
    f = mine[0]
    if f.get("embeddingLoading") and not f.get("pending") and f.get("storedPendingVectors") == 0:
        # a server started on a complete index: nothing is being built, only the model loads
        return (f"the server (pid {pid}) is still loading its embedding model (the index of {folder} is complete): "
                f"search uses keywords (BM25) alone until it is ready; results may be incomplete")
    parts = [f"{f['pending']} file(s) still queued for indexing"] if f.get("pending") else []
    if f.get("embeddingLoading"):
        parts.append("its embedding model is still loading, so search uses keywords (BM25) alone until it is ready")
    elif f.get("pendingVectors"):
        parts.append(f"{f['pendingVectors']} of {f['chunks']} sections are not embedded yet and are found by keywords "
                     f"(BM25) only")
    if not parts:
        return None
    return (f"the server (pid {pid}) is still building the index of {folder}: " + "; ".join(parts) +
            "; results may be incomplete (`ragls status` shows the progress)")


SKIPPED_GROUP = 5  # more files than this skipped for one reason are one line in `ragls index`'s report


def skipped_lines(skipped) -> list[str]:
    """`ragls index`'s lines for the files a sync skipped (`SyncReport.skipped`: path and reason), in their order:
    one line per file, but the files of a reason more than SKIPPED_GROUP share on one line, naming the first three
    ("  skipped 53 files (rules/args.md, rules/avoid-implicit.md, ...): symlink to a file outside the indexed folder
    ..."; ansible-lint's docs/ printed 53 lines of it). `ragls status --all` lists each."""
    by_reason: dict[str, list[str]] = {}
    for s in skipped:
        by_reason.setdefault(one_line(s.reason), []).append(one_line(display_path(s.path)))
    out = []
    for reason, paths in by_reason.items():
        if len(paths) > SKIPPED_GROUP:
            out.append(f"  skipped {len(paths)} files ({', '.join(paths[:3])}, ...): {reason}; `ragls status "
                       "--all` lists them")
        else:
            out += [f"  skipped {path}: {reason}" for path in paths]
    return out
