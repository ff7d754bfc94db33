"""`ragls` command line: serve, mcp, http, index, query, ask, rebuild, status, doctor, models, estimate, commit-msg,
graph, eval, prune, rag, trust.

Human output by default; `--json` prints the docs/protocol.md result object (the same converters as the LSP server).
Progress goes to stderr: a tqdm bar on a terminal (files, chunks, rate, ETA), plain log lines otherwise.
Exit codes: 0 ok, 1 request failed, 2 invalid arguments.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from ragls.cli.common import (  # noqa: F401 - shared with cli/ops.py; re-exported for callers of ragls.cli.app
    PHASE_LABELS,
    Progress,
    _chunk_lines,
    _indexed_workspace,
    _line,
    _print_json,
    _via_server,
    _warn_no_vectors,
    _workspace,
    lines_text,
    location_text,
    one_line,
    preview_text,
    skipped_lines,
    terminal_streams,
    terminal_text,
    where_note,
)
from ragls.cli.parser import build_parser, unrecognized
from ragls.core.errors import InvalidParams, RaglsError, error_kind, full_disk_error
from ragls.core.uris import uri_to_path


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    # pygls logs every JSON-RPC payload (document text included) at INFO: keep only its warnings and errors.
    # markdown-it logs each block rule it tries on each line at DEBUG (~180 lines for a 13-line page): -v is for
    # ragls's own lines.
    for noisy in ("httpx", "httpx2", "httpcore", "openai", "anthropic", "lancedb", "filelock", "pygls", "markdown_it"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # trafilatura warns about every page it cannot extract ("readability_lxml failed", "discarding data: None": a
    # Sphinx project's _templates/*.html on every `ragls ask`) and logs an ERROR for a page with no HTML tree
    # ("parsed tree length: 1, wrong data type or not valid HTML", "empty HTML tree": a theme's script-only partial,
    # mkdocs-material's analytics integration in uv's docs); ragls lists such a page as skipped with its reason, so
    # none of it reaches the terminal.
    logging.getLogger("trafilatura").setLevel(logging.CRITICAL)
    # fastembed logs through loguru; its "model not in cache" errors are expected on the fallback path. loguru reads
    # its default stderr level from LOGURU_LEVEL when first imported: importing it here would cost ~0.1 s on every
    # command, also those that never load a model (issue 18: `ragls query` through a running server).
    if "loguru" in sys.modules:
        from loguru import logger

        logger.remove()
        logger.add(sys.stderr, level="WARNING" if verbose else "CRITICAL")
    else:
        os.environ.setdefault("LOGURU_LEVEL", "WARNING" if verbose else "CRITICAL")


def _print_sync(ws, reports, elapsed_s: float) -> None:
    from ragls.index.autodoc import notice as autodoc_notice
    from ragls.workspace.estimate import LONG_EMBED_WARNING_S, estimate_embed_seconds
    from ragls.workspace.status import empty_folder_notice

    for idx, rep in zip(ws.indexes, reports):
        print(f"{idx.folder}: {len(rep.indexed)} indexed, {len(rep.deleted)} deleted, {rep.unchanged} unchanged, "
              f"{len(rep.skipped)} skipped; {idx.manifest.file_count()} files, {idx.manifest.chunk_count()} sections "
              f"({elapsed_s:.1f} s)")
        for line in skipped_lines(rep.skipped):
            print(line)
        if not idx.writer:
            print(f"  {idx.writer_holder()} is indexing this folder; showing its index read-only")
        for path, why in idx.ignore_warnings:
            print(f"  warning: {path}: {why}")
        if idx.include_warning:
            print(f"  warning: {idx.include_warning}")
        elif idx.writer and not rep.skipped and (empty := empty_folder_notice(idx)):
            print(f"  warning: {empty}")
        if (api := autodoc_notice(idx.manifest)) is not None:
            print(f"  note: {api}")
        pending = idx.pending_count()
        est = estimate_embed_seconds(pending, ws.embedder.max_length)
        if pending and est > LONG_EMBED_WARNING_S:
            print(f"  warning: {pending} sections still need embeddings (~{est / 60:.0f} min)")


# -- commands ------------------------------------------------------------------------------------------------
def cmd_serve(args) -> int:
    """`ragls serve`: the language server on stdio (or --tcp); with --background / --stop / --headless the warm
    server of the command line (cli/background.py)."""
    if args.background or args.stop or args.headless:
        from ragls.cli import background

        if args.stop:
            return background.stop(args.path)
        if args.headless:
            return background.run_headless(args.path or ".", args.idle_exit)
        return background.start(args.path, args.idle_exit)
    if args.path:
        raise InvalidParams("a folder is only taken with --background or --stop (an editor sends its folders)")
    from ragls.lsp.server import serve

    serve(args.tcp)
    return 0


def _start_live(args, hold_vectors: bool = False):
    """(LiveWorkspace started on `args.paths` — default: the current project root —, its folders) for the
    long-running front ends (mcp, http). Raises InvalidParams for a folder they must not index (home, /)."""
    from ragls.core import heap
    from ragls.lsp.local_socket import LocalSocketServer
    from ragls.workspace.live import LiveWorkspace
    from ragls.workspace.roots import serve_folders

    try:
        folders = serve_folders(args.paths, Path.cwd())
    except ValueError as exc:
        raise InvalidParams(str(exc)) from None
    if args.cmd != "mcp":  # stdin is the MCP protocol
        from ragls.cli.trust import offer_trust

        offer_trust(folders)
    heap.limit_arenas()
    return LiveWorkspace(folders, hold_vectors=hold_vectors, socket_server=LocalSocketServer).start(), folders


def cmd_mcp(args) -> int:
    """`ragls mcp [PATH...]`: the Model Context Protocol server on stdio (ragls.mcp.server). The MCP SDK is imported
    (about a second of CPU) before the index starts opening on its thread: imported at the same time, the two threads
    once deadlocked on CPython's module locks (`_DeadlockError` on `html.entities`, which the SDK's starlette and the
    document loaders both import) and the server died at start-up. The embedding model loads after the first answer
    (BM25), so it does not compete with it. No cyclic GC until the server serves (mcp_server.build_server's
    lifespan): start-up only allocates long-lived objects (the SDK's models)."""
    import gc

    gc.disable()
    from ragls.mcp.server import run

    live, _ = _start_live(args, hold_vectors=True)

    run(live)
    return 0


def cmd_http(args) -> int:
    """`ragls http [PATH...]`: the HTTP API (ragls.http.api) over a live index of the folders (default: the current
    project root). Loopback only unless --allow-remote with a bearer token from the --token-env variable."""
    from ragls.http.api import is_loopback, listening_socket, serve

    token = os.environ.get(args.token_env) or None
    if not is_loopback(args.host) and not (args.allow_remote and token):
        serve(None, args.host, args.port, args.allow_remote, token)  # raises InvalidParams saying what is missing
    sock = listening_socket(args.host, args.port)  # a port in use is said at once, before the index is opened
    try:
        live, folders = _start_live(args)
    except BaseException:
        sock.close()
        raise

    def listening(port: int) -> None:  # the bound port: --port 0 takes a free one
        print(f"ragls: HTTP API on http://{args.host}:{port} for {', '.join(map(str, folders))}"
              f"{' (bearer token required)' if token else ''}", file=sys.stderr, flush=True)

    try:
        serve(live, args.host, args.port, args.allow_remote, token, on_listening=listening, sock=sock)
    finally:
        live.close()
    return 0


def cmd_index(args, rebuild: bool = False) -> int:
    from ragls.lsp.wire import to_wire_rebuild

    progress = Progress()
    t0 = time.perf_counter()
    ws = _workspace(args, progress, pin_model=not rebuild)  # a rebuild switches to the configured model
    try:
        if getattr(args, "rag", None):
            from ragls.cli.rags import index_rags

            return index_rags(ws, args, progress, t0)
        from ragls.index.contextual import confirm_calls

        if not confirm_calls(ws.indexes, rebuild, getattr(args, "yes", False)):
            print("ragls: nothing indexed", file=sys.stderr)
            return 1
        reports = ws.rebuild() if rebuild else ws.index()
        progress.close()
        if args.json:
            _print_json(to_wire_rebuild(reports, ws.folders, (time.perf_counter() - t0) * 1000, ws))
        else:
            _print_sync(ws, reports, time.perf_counter() - t0)
        _warn_no_vectors(ws)
        if not all(idx.writer for idx in ws.indexes):
            held = next(idx for idx in ws.indexes if not idx.writer)
            holder = held.writer_holder()
            if "--background" in holder:  # it watches the folder: its index follows every saved file already
                advice = (f"stop it (`ragls serve --stop {held.folder}`), then run again" if rebuild else
                          "it indexes every change by itself (`ragls status` shows its progress)")
            elif "editor" in holder:
                advice = "use the editor's rebuild command, or stop it first"
            else:
                advice = "wait for it to finish, then run again"
            print(f"ragls: {holder} holds this index; nothing was {'rebuilt' if rebuild else 'indexed'} — {advice}",
                  file=sys.stderr)
            return 1
    finally:
        ws.close()
    return 0


def cmd_query(args) -> int:
    expand = {"expand": True} if args.expand else {}
    wire = None if args.rag else _via_server(args, "rag/query", {"query": args.text, "topK": args.top_k,
                                                                  "explain": args.explain, **expand})
    hits = None
    if wire is None:
        from ragls.lsp.wire import to_wire_query
        from ragls.workspace.status import empty_folder_notices

        with _indexed_workspace(args, args.text or "") as ws:  # prints before the rest is embedded
            result = ws.query(args.text, args.top_k, rag=args.rag, expand=expand.get("expand"))
            why = empty_folder_notices(ws.indexes) if not result.hits and not args.rag else []
            return _print_query(args, to_wire_query(result, args.explain), result.hits, why)
    return _print_query(args, wire, hits, _server_empty_notices(args) if not wire["chunks"] else [])


def _server_empty_notices(args) -> list[str]:
    """The running server's rag/status notices about the queried folder ("<folder>: no file here matches ...",
    workspace/status.empty_folder_notices): why its index found nothing. Empty when it has none or cannot say."""
    status = _via_server(args, "rag/status", {}) or {}
    folder = f"{Path(args.path).expanduser().resolve()}: "
    return [n for n in status.get("notices", []) if n.startswith(folder)]


def _print_query(args, wire: dict, hits, why_empty: list[str] | None = None) -> int:
    """Print a rag/query result (`--json`: as is); `hits` (in-process only) add cosine similarities to --explain;
    `why_empty`: the notices of folders whose index holds no file, printed under "(nothing found)"."""
    if args.json:
        _print_json(wire)
        return 0
    if wire.get("truncated"):
        print("(the query is longer than the embedding model reads: its end was embedded, keyword search used "
              "all of it)")
    from ragls.retrieval.rerankers import describe_report

    if (line := describe_report(wire.get("rerank"), args.explain)) is not None:
        print(line)
    if not wire["chunks"]:
        print("(nothing found)")
        for line in why_empty or []:
            print(f"note: {line}")
    elif wire["abstained"]:
        print("(nothing relevant enough was found; best matches below)")
    for n, chunk in enumerate(wire["chunks"], 1):
        title = f"  {one_line(chunk['source']['title'])}" if chunk["source"].get("title") else ""
        extra = ""
        if args.explain:
            hit = hits[n - 1] if hits else None
            sims = f" cos={hit.similarity:.3f}" if hit is not None and hit.similarity is not None else ""
            via = f" via {'+'.join(chunk['transforms'])}" if chunk.get("transforms") else ""
            extra = f"  signals={chunk.get('signals')}{sims}{via}"
        relevance = _relevance(chunk, args.explain, wire["abstained"])
        print(f"{n}. {_line(chunk['source'])}{title}{_chunk_lines(chunk['source'])}{relevance}{extra}")
        print(f"   {one_line(preview_text(chunk))}")
    from ragls.cli.llm_lines import query_lines

    for line in query_lines(wire.get("llmCalls"), args.explain):
        print(line)
    return 0


def _relevance(chunk: dict, explain: bool, abstained: bool = False) -> str:
    """The "  (relevance 64%)" of a query hit: its score as a share of the best one (`Chunk.relevance`), as the editors show it;
    the raw score only with --explain (its scale depends on the fusion and the reranker) or when no share is given,
    nothing for the weak matches of an abstained result (a server gives them no share: the best was "100%")."""
    parts = [f"relevance {round(chunk['relevance'] * 100)}%"] if chunk.get("relevance") is not None else []
    if abstained and not explain:
        return ""
    if explain or not parts:
        parts.append(f"score {chunk['score']:.4f}")
    return f"  ({', '.join(parts)})"


def shell_files(specs: list[str] | None, folder: str | Path) -> list[str] | None:
    """`ragls ask --file` entries as the shell means them: an entry that names an existing file relative to the
    current directory (what tab completion writes: `--file docs/notes.md` in the folder's parent) and none relative
    to `folder` is passed as its absolute path; every other entry as written (a path relative to the folder, as
    `rag/ask`'s `documents` are, a glob, a URL, `%%`, a `` `command` ``, `NAME:path`). None when there are none."""
    if not specs:
        return None
    out = []
    for spec in specs:
        here = Path(spec).expanduser()
        if here.is_file() and not (Path(folder).expanduser() / spec).is_file():
            spec = str(here.resolve())
        out.append(spec)
    return out


def cmd_ask(args) -> int:
    streamed = []

    def on_delta(piece: str) -> None:
        streamed.append(piece)
        if not args.json:
            sys.stdout.write(terminal_text(piece))
            sys.stdout.flush()

    wire = None
    if not args.file and not args.rag:  # ephemeral documents are paths relative to this shell: answered in-process
        wire = _via_server(args, "rag/ask", {"question": args.question or "", "topK": args.top_k, "stream": True,
                                             **({"expand": True} if args.expand else {})}, on_delta)
    if wire is None:
        from ragls.lsp.wire import to_wire_answer

        with _indexed_workspace(args, args.question or "") as ws:  # prints before the rest is embedded
            answer = ws.ask(args.question or "", top_k=args.top_k, rag=args.rag,
                            documents=shell_files(args.file, args.path or "."),
                            on_delta=on_delta, expand=True if args.expand else None)
            return _print_answer(args, to_wire_answer(answer), streamed)
    return _print_answer(args, wire, streamed)


def _print_answer(args, wire: dict, streamed: list[str]) -> int:
    """Print the end of a rag/ask result (`streamed`: the pieces already written) or all of it with `--json`;
    returns the exit code (1 when the LLM failed and the answer is extractive)."""

    if args.json:
        _print_json(wire)
        return 0
    if not streamed:
        print(terminal_text(wire["answer"]))
    else:
        print()
    if wire["sources"]:  # an abstained answer's sources are the closest passages, none of them cited
        print("\nClosest matches:" if wire.get("abstained") else "\nSources:")
        supported = {c["n"]: c["supported"] for c in wire["citations"]}
        for src in wire["sources"]:
            mark = "" if supported.get(src["n"], True) else "  (citation not supported by this text)"
            title = f"  {one_line(src['title'])}" if src.get("title") else ""
            where = one_line(uri_to_path(src["uri"]) if src["uri"].startswith("file:") else src["uri"])
            lines = ", ".join(location_text(r) for r in src.get("focusRanges") or [src.get("focusRange") or src["range"]])
            print(f"[{src['n']}] {where}:{lines}{where_note(src)}{title}{mark}")
    writer = "no answer, no LLM call" if wire.get("abstained") else wire["model"]  # as the clients' footers say
    print(f"\n({writer}, {wire['elapsedMs'] / 1000:.1f} s)", file=sys.stderr)
    if wire.get("llmCalls"):
        from ragls.cli.llm_lines import calls_text

        print(f"(retrieval LLM calls: {calls_text(wire['llmCalls']['steps'])})", file=sys.stderr)
    if wire.get("error"):  # the LLM failed: the answer above is extractive; say why, and fail the command
        print(f"ragls: the LLM failed, so this is an extractive answer: {wire['error']['message']}", file=sys.stderr)
        return 1
    return 0


def cmd_rag(args) -> int:
    from ragls.cli.rags import cmd_rag as run

    return run(args)


def _cli_trust(args) -> int:
    from ragls.cli.trust import cmd_trust

    return cmd_trust(args)


def _ops(name: str):
    """A command of cli/ops.py, imported when it runs (keeps `ragls query` through a server light)."""

    def run(args) -> int:
        from ragls.cli import ops

        return getattr(ops, name)(args)

    return run


COMMANDS = {
    "serve": cmd_serve, "index": cmd_index, "rebuild": lambda a: cmd_index(a, rebuild=True), "query": cmd_query,
    "ask": cmd_ask, "rag": cmd_rag, "mcp": cmd_mcp, "http": cmd_http, "trust": _cli_trust,
    **{name: _ops(f"cmd_{name.replace('-', '_')}")
       for name in ("status", "doctor", "models", "commit-msg", "graph", "prune", "eval", "estimate")},
}

ALIASES = {"search": "query"}  # argparse sets `cmd` to the name typed; everything after main() sees the command


def _stdout_gone() -> bool:
    """True when stdout is a pipe whose reader has closed it (POLLERR on its write end), as in
    `ragls query ... | head -1`; False for anything else, including a stdout without a file descriptor."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    args.cmd = ALIASES.get(args.cmd, args.cmd)
    if unknown:
        unrecognized(parser, args.cmd, unknown)
    from ragls.cli.rags import rag_positionals

    rag_positionals(parser, args)
    with terminal_streams(stdout=args.cmd not in ("serve", "mcp")):  # their stdout is the protocol's
        return _run(args)


def _first_line(exc: BaseException) -> str:
    """`exc`'s message's first line, without a store library's source location ("…, <cargo home>/registry/…/writer.rs:191:9")."""
    text = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).strip().splitlines()[0]
    return text.split(", /", 1)[0] if ".rs:" in text else text


def _run(args) -> int:
    """`main` after parsing: logging set up, the command run, its errors as messages and exit codes."""
    _setup_logging(args.verbose)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from ragls.index import ownership

    ownership.set_role(f"ragls {args.cmd}")  # who holds an index lock, as rag/status reports it
    try:
        return COMMANDS[args.cmd](args)
    except RaglsError as exc:
        print(f"ragls: {exc}", file=sys.stderr)
        return error_kind(exc).exit  # 2 for bad input (InvalidParams), else 1
    except BrokenPipeError as exc:
        if not _stdout_gone():  # a broken socket or pipe of our own (a server that died): say so
            print(f"ragls: {exc.strerror or exc}", file=sys.stderr)
            return 1
        # `ragls query ... | head -1`: the reader has what it wanted. Quiet, like git or grep, with the shell's
        # code for a SIGPIPE death (128 + 13); stdout goes to /dev/null so the flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:
        if (full := full_disk_error(exc)) is not None:  # LanceDB's, tantivy's and SQLite's errors too: no traceback
            print(f"ragls: disk full: the index cannot be written ({_first_line(full)}); free some space, or move the "
                  "index (--index-path, index.path or RAGLS_CACHE_DIR), then run the command again: what was "
                  "written is kept and the next run resumes from it", file=sys.stderr)
            return 1
        if not isinstance(exc, OSError):
            raise
        where = f": {exc.filename}" if exc.filename else ""  # e.g. an index.path that cannot be created
        print(f"ragls: {exc.strerror or exc}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if args.cmd in ("index", "rebuild", "query", "ask"):
            # Every batch is journaled and embeddings are cached by content (index/indexer.py): nothing is lost.
            print("\nragls: interrupted; the index is consistent and the next `ragls index` resumes where this one "
                  "stopped (embeddings already computed are kept)", file=sys.stderr)
        else:
            print("\nragls: interrupted", file=sys.stderr)
        return 130
