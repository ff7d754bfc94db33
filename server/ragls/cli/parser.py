"""The `ragls` command line's arguments: the parser of every command and option (`build_parser`), options that may
come anywhere among the positionals (`IntermixedParser`), and the errors argparse leaves too terse (`unrecognized`).
`cli/app.py` runs what was parsed.
"""

from __future__ import annotations

import argparse
import shlex

from ragls import __version__
from ragls.core.ir import MAX_TOP_K
from ragls.workspace.status import SKIPPED_LISTED


class IntermixedParser(argparse.ArgumentParser):
    """An ArgumentParser whose options may come anywhere among the positionals (`ragls query PATH --rag NAME
    "question"`): `parse_known_intermixed_args` for every parser without sub-commands (argparse refuses those);
    a parser with sub-commands parses as usual and hands the rest to the chosen sub-command, an IntermixedParser
    too (`add_subparsers` passes its class on).

    `free_text`: the parser's last positional is plain words that may start with "-" (`ragls query F "-heron"`,
    which argparse reads as `-h` with the value "eron"): see `dash_text_last`."""

    _intermixing = False
    free_text = False

    def parse_known_args(self, args=None, namespace=None):
        if self._intermixing or any(a.nargs in (argparse.PARSER, argparse.REMAINDER) for a in self._actions):
            return super().parse_known_args(args, namespace)
        if self.free_text and args is not None:
            args = self.dash_text_last(list(args))
        self._intermixing = True  # parse_known_intermixed_args calls parse_known_args itself (Python < 3.12.7)
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def dash_text_last(self, args: list[str]) -> list[str]:
        """`args` with each word that starts with one "-", is longer than a short option ("-x") and is none of
        this parser's options moved after a `--` at the end, where argparse reads it as the text positional: the
        question "-heron" or "-5 degrees?" is text, not options. A long option's value that starts with "-" and is
        none of the options (`--file -notes.md`, which argparse refuses: "expected one argument") is joined to it
        (`--file=-notes.md`), also before an explicit `--`; with a `--` nothing else moves."""
        options = {o for a in self._actions for o in a.option_strings}
        takes_value = {o for a in self._actions if a.nargs != 0 for o in a.option_strings}
        explicit = "--" in args
        end = args.index("--") if explicit else len(args)
        kept: list[str] = []
        text: list[str] = []
        for arg in args[:end]:
            if kept and kept[-1] in takes_value:
                if kept[-1].startswith("--") and arg.startswith("-") and arg not in options:
                    kept[-1] = f"{kept[-1]}={arg}"
                else:
                    kept.append(arg)
            elif explicit or not (arg.startswith("-") and not arg.startswith("--") and len(arg) > 2
                                  and arg not in options):
                kept.append(arg)
            else:
                text.append(arg)
        return kept + args[end:] if explicit else kept + ["--", *text] if text else kept




def top_k_arg(text: str) -> int:
    """argparse type of `--top-k`: an integer 1..MAX_TOP_K, so the error names the option the user typed
    ("argument --top-k: ...") instead of the protocol's field (topK)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of chunks is needed, got {text!r}") from None
    if not 1 <= value <= MAX_TOP_K:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_TOP_K}, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = IntermixedParser(prog="ragls", description="Ask your workspace documents; LSP server for editors.")
    p.add_argument("--version", action="version", version=f"ragls {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("serve", help="run the language server on stdio")
    s.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead (debugging)")
    s.add_argument("--stdio", action="store_true", help="stdio (the default; accepted for editor configs)")
    s.add_argument("path", nargs="?", help="with --background / --stop: the folder (default: the project around "
                                           "the current directory)")
    s.add_argument("--background", action="store_true",
                   help="start a warm server for the command line in the background: `ragls query/ask/status` "
                        "answer through it")
    from ragls.cli.background import IDLE_EXIT_MIN

    s.add_argument("--idle-exit", type=float, default=IDLE_EXIT_MIN, metavar="MIN",
                   help=f"with --background: exit after MIN minutes without a request (default {IDLE_EXIT_MIN:g})")
    s.add_argument("--stop", action="store_true", help="stop the server serving the folder")
    s.add_argument("--headless", action="store_true", help=argparse.SUPPRESS)  # the background process itself

    def with_path(sp, optional=False, default="."):
        sp.add_argument("path", nargs="?" if optional else None, default=default if optional else None,
                        help="workspace folder")
        sp.add_argument("--json", action="store_true", help="print the protocol result object")
        sp.add_argument("--index-path", help="where the index lives (default: the user cache dir)")
        sp.add_argument("--backend", choices=["lancedb", "qdrant"], help="vector store (index.backend)")
        sp.add_argument("--url", help="Qdrant URL, local directory or :memory: (index.qdrant_location; implies "
                                      "--backend qdrant)")
        sp.add_argument("--collection", help="Qdrant collection (default: derived from the repository identity)")
        sp.add_argument("--api-key-env", help="environment variable holding the Qdrant API key")
        sp.add_argument("--repo-id", help="repository identity naming the shared collection (default: git remote)")
        sp.add_argument("--team", action="store_true", default=None,
                        help="query the shared Qdrant index with this clone's local changes overlaid (index.team)")
        sp.add_argument("--no-server", action="store_true",
                        help="answer in-process even when a running `ragls serve` holds the index")
        return sp

    h = sub.add_parser("http", help="serve the index over HTTP (/healthz, /status, /retrieve, /ask)")
    h.add_argument("paths", nargs="*", help="folders to serve (default: the current project root)")
    h.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    h.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0: a free port, printed on stderr)")
    h.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host (needs a token)")
    h.add_argument("--token-env", default="RAGLS_HTTP_TOKEN",
                   help="environment variable holding the bearer token (default RAGLS_HTTP_TOKEN)")
    m = sub.add_parser("mcp", help="run the Model Context Protocol server on stdio (for coding agents)")
    m.add_argument("paths", nargs="*", metavar="PATH",
                   help="folders to serve (default: the project around the current directory: the nearest "
                        "ragls.toml, else .git)")

    ix = with_path(sub.add_parser("index", help="index (incrementally) a folder, or named RAGs with --rag"),
                   optional=True, default=None)  # default: the project here (rags.rag_positionals)
    ix.add_argument("--rag", action="append", metavar="NAME", help="index this named RAG instead; repeatable")
    ix.add_argument("-y", "--yes", action="store_true", help="do not ask before many contextual-retrieval LLM calls")
    rb = with_path(sub.add_parser("rebuild", help="drop and rebuild a folder's index"))
    rb.add_argument("-y", "--yes", action="store_true", help="do not ask before many contextual-retrieval LLM calls")
    st = with_path(sub.add_parser("status", help="show a folder's index status"), optional=True,
                   default=None)  # default: the project around the current directory (rags.rag_positionals)
    st.add_argument("--all", action="store_true",
                    help=f"list every skipped file with its reason (without it: the first {SKIPPED_LISTED})")
    # `search`: the word qmd, VectorCode and the editors' "Search Docs" / MCP `search_docs` use for the same thing
    q = with_path(sub.add_parser("query", aliases=["search"], help="search a folder: ranked chunks with file:line"))
    q.free_text = True
    q.add_argument("text", nargs="?",  # `ragls query --rag NAME "text"`: see rags.rag_positionals
                   help="what to search for, in plain words (no query syntax)")
    q.add_argument("--top-k", type=top_k_arg, help="how many chunks to return (default: retrieval.top_k, 5)")
    q.add_argument("--explain", action="store_true",
                   help="show each signal's rank, the query transforms behind each hit and the LLM's texts")
    q.add_argument("--expand", action="store_true", help="multi-query expansion (retrieval.expand_n paraphrases)")
    q.add_argument("--rag", action="append", metavar="NAME",
                   help="search this named RAG ('workspace' = the folder); repeatable; default the folder")
    a = with_path(sub.add_parser("ask", help="answer a question from a folder's documents, with sources"))
    a.free_text = True
    a.add_argument("question", nargs="?", default="", help="the question, in plain words")
    a.add_argument("--top-k", type=top_k_arg,
                   help="how many passages the answer draws on (default: retrieval.top_k, 5)")
    a.add_argument("--rag", action="append", metavar="NAME",
                   help="answer from this named RAG ('workspace' = the folder); repeatable")
    a.add_argument("--expand", action="store_true", help="multi-query expansion (retrieval.expand_n paraphrases)")
    a.add_argument("--file", action="append", help="ephemeral document (a path here or in the folder, glob, URL, %%%%, `cmd`, "
                                                 "pdf:PATH); repeatable")
    e = sub.add_parser("eval", help="retrieval metrics and abstention against a gold file of questions (JSONL)")
    e.add_argument("gold", help="JSON Lines file: one {question, gold, kind} per line (docs/evaluation.md)")
    with_path(e, optional=True)
    e.add_argument("--k", type=int, default=5, help="cut-off for Hit@k, SpanHit@k and Recall@k (default 5)")
    e.add_argument("--compare", nargs=2, metavar="SETTINGS",
                   help="evaluate two settings side by side: each a .toml file or name=value[,name=value...] "
                        "(e.g. --compare retrieval.top_k=5 retrieval.top_k=10)")
    g = with_path(sub.add_parser("graph", help="print an entity's neighbourhood in the knowledge graph"))
    g.add_argument("--entity", required=True, help="entity name (any case)")
    g.add_argument("--hops", type=int, help="rings to show (default: retrieval.graph_hops)")
    e = sub.add_parser("estimate", help="files, chunks and time a first index of a folder would take (no indexing)")
    e.add_argument("path", nargs="?", default=".", help="the folder (default: the current one)")
    e.add_argument("--json", action="store_true", help="print the estimate as a JSON object")
    e.add_argument("--settings", metavar="JSON", help="editor settings applied over the folder's ragls.toml")
    d = sub.add_parser("doctor", help="check model, index path and stores")
    d.add_argument("path", nargs="?", default=".", help="the folder (default: the current one)")
    d.add_argument("--json", action="store_true", help="print {ok, checks: [{name, status, message}]}")
    m = sub.add_parser("models", help="find local LLM runtimes (Ollama, LM Studio, llama.cpp, vLLM, Jan, KoboldCpp)")
    m.add_argument("--json", action="store_true", help="print [{runtime, name, baseUrl, backend, models}]")
    m.add_argument("--timeout", type=float, default=0.5, help="seconds per probe (default 0.5)")
    pr = sub.add_parser("prune", help="list (or --remove) indexes whose folder no longer exists")
    pr.add_argument("--remove", action="store_true", help="delete the orphaned indexes (default: dry run)")
    pr.add_argument("--unknown", action="store_true",
                    help="also the indexes that record no folder (an older ragls's, or a crash's), unless a process "
                         "holds them or they changed in the last 10 minutes")
    pr.add_argument("--dry-run", action="store_true", help="only list (the default)")
    pr.add_argument("--json", action="store_true", help="print {indexes, removed}")
    c = sub.add_parser("commit-msg", help="commit message for the staged diff")
    c.add_argument("path", nargs="?", default=".", help="a folder in the git repository (default: the current one)")
    c.add_argument("--all", action="store_true", help="use the working-tree diff instead of the staged one")
    c.add_argument("--style", choices=["conventional", "plain"],
                   help="'type(scope): subject' or a plain subject (default: commit.style, conventional)")
    c.add_argument("--json", action="store_true", help="print {message, truncated, files}")
    from ragls.cli.rags import add_parser as add_rag_parser
    from ragls.cli.trust import add_parser as add_trust_parser

    add_rag_parser(sub)
    add_trust_parser(sub)
    return p


def unrecognized(parser: argparse.ArgumentParser, cmd: str, unknown: list[str]) -> None:
    """Exit 2 (argparse's `error`) with the usage of sub-command `cmd`, not the top-level one, naming the
    `unknown` arguments and, for a mistyped option, the closest options `cmd` takes (`--top-kk` -> `--top-k`); for an
    unknown short word in a command of free text (`ragls query F -x`), that text goes after `--`."""
    import difflib

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[cmd]
    options = [o for a in sub._actions for o in a.option_strings]
    close = [m for u in unknown if u.startswith("-")
             for m in difflib.get_close_matches(u.split("=", 1)[0], options, n=1)]
    hint = f"; did you mean {', '.join(dict.fromkeys(close))}?" if close else ""
    dashed = [u for u in unknown if u.startswith("-") and not u.startswith("--")]
    if getattr(sub, "free_text", False) and dashed and not close:  # `ragls query F -x`: a question, or a typo
        hint = f"; a text that starts with '-' goes after '--' (ragls {cmd} FOLDER -- {shlex.quote(dashed[0])})"
    sub.error(f"unrecognized arguments: {' '.join(unknown)}{hint}")
