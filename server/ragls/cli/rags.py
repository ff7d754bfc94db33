"""`ragls rag list|add|remove|rebuild|attach`: named RAGs from the terminal (see kb/rags.py).

`add`, `attach` and `remove` edit the user's ragls.toml (`rags.user_config_file()`), or the
workspace's with `--workspace PATH`, through tomlkit so comments and layout survive, and print the path.

`ragls rag attach NAME --url … [--collection …]`: attach an existing Qdrant collection as a named RAG.

Without `--collection` it lists the server's collections. With it, it runs every attach check
(`kb/qdrant_attach.py`) with the embedding model of the `--path` folder and, when they pass, adds

    [rags.NAME]
    qdrant = { url = "…", collection = "…", api_key_env = "…" }

to the same file `ragls rag add` writes — the user config (`rags.user_config_file()`), or `--workspace PATH`'s
`ragls.toml` — and prints its path (the API key itself is never written: only the name of its environment
variable).
Exit codes: 0 done, 1 a check failed or the server could not be reached, 2 bad arguments / NAME already defined.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from ragls.core.atomic import atomic_target
from ragls.core.errors import InvalidParams, RaglsError, RequestFailed


def rag_positionals(parser, args) -> None:
    """The folder of `ragls query` / `ragls ask` when the user gives the text alone, as qmd, aichat and VectorCode
    users type it: `ragls ask "how do we configure retries?"` in a project reads the one positional that is not a
    folder as the text and asks the project around the current directory (`roots.project_root`: the nearest
    ragls.toml, else .git, else the current directory); `ragls ask "question" .` (the text, then an existing folder)
    reads them the other way round; a lone word that looks like a path (`_path_like`) stays the folder. `--rag NAME`
    needs no folder: `ragls index --rag NAME`, `ragls query --rag NAME "text"` and `ragls ask --rag NAME "question"`
    read the folder as "." (whose ragls.toml may declare the RAG), as `ragls query PATH "text"` still does with
    both. `ragls index` and `ragls status` without a folder (or --rag) take the project around the current
    directory too. `ragls query PATH` / `ragls ask PATH` without text exit through `parser.error` (status 2) with
    the usage; so does a command without a folder in the home directory or the filesystem root (no project)."""
    sub = {a.dest: a for a in parser._subparsers._group_actions}["cmd"].choices.get(args.cmd)
    if args.cmd in ("index", "status") and args.path is None:  # the project here, or "." holding --rag's table
        args.path = "." if getattr(args, "rag", None) else _project(sub)
    elif args.cmd in ("query", "search", "ask"):
        field = "question" if args.cmd == "ask" else "text"
        text = getattr(args, field)
        if not text and not Path(args.path).is_dir() and (args.rag or not _path_like(args.path)):
            text, args.path = args.path, "." if args.rag else _project(sub)  # the text alone
        elif text and not Path(args.path).is_dir() and Path(text).is_dir():  # `ragls ask "question" FOLDER`
            args.path, text = text, args.path
        if not text:  # `ragls ask PATH`: the usage
            sub.error(f"the following arguments are required: {field}")
        setattr(args, field, text)


def _path_like(word: str) -> bool:
    """Whether a lone positional is a mistyped folder rather than a text: one word starting with ".", "~" or "/", or
    holding a "/" (`docs/`, `../handbook`); `ragls ask ./no-such-docs` keeps saying what is missing."""
    return not any(c.isspace() for c in word) and (word.startswith((".", "~", "/")) or "/" in word)


def _project(sub) -> str:
    """The project around the current directory (`roots.project_root`) for a text given without a folder; exits
    through `sub.error` when that is the home directory or the filesystem root."""
    from ragls.workspace.roots import project_root

    try:
        return str(project_root(Path.cwd()))
    except ValueError as e:
        cmd = sub.prog.split()[-1]
        what = {"ask": " QUESTION", "query": " TEXT", "search": " TEXT"}.get(cmd, "")  # index, status: the folder alone
        sub.error(f"{e} (or give the folder: ragls {cmd} FOLDER{what})")


def add_parser(sub) -> None:
    r = sub.add_parser("rag", help="named RAGs: list, add, remove, attach, rebuild")
    rs = r.add_subparsers(dest="rag_cmd", required=True)
    ls = rs.add_parser("list", help="the workspace and each named RAG with its counts and errors")
    ls.add_argument("path", nargs="?", default=".", help="workspace folder (its ragls.toml may declare RAGs)")
    ls.add_argument("--json", action="store_true", help="print the rag/list result")
    add = rs.add_parser("add", help="create a RAG or add sources to it")
    add.add_argument("name", help="the RAG's name (rag = NAME in requests)")
    add.add_argument("sources", nargs="+", help="file, a;b, directory, glob, URL, https://…/** crawl, loader:…")
    add.add_argument("--workspace", metavar="PATH", help="write to PATH/ragls.toml instead of the user config")
    rm = rs.add_parser("remove", help="remove a RAG from the config and delete its index")
    rm.add_argument("name", help="the RAG to remove")
    rm.add_argument("--workspace", metavar="PATH", help="edit PATH/ragls.toml instead of the user config")
    add_attach_parser(rs)
    rb = rs.add_parser("rebuild", help="drop a RAG's index and index its sources again")
    rb.add_argument("name", help="the RAG to rebuild ('workspace' = the folder)")
    rb.add_argument("path", nargs="?", default=".", help="workspace folder")
    rb.add_argument("--json", action="store_true", help="print the rag/rebuild result")


def config_path(args) -> Path:
    """The config file `rag add`, `rag attach` and `rag remove` edit: `--workspace PATH`'s ragls.toml, else the
    user config (`rags.user_config_file()`). Raises InvalidParams when PATH is not a folder."""
    from ragls.config.settings import CONFIG_FILE
    from ragls.kb.rags import user_config_file

    if getattr(args, "workspace", None):
        folder = Path(args.workspace).expanduser()
        if not folder.is_dir():
            raise InvalidParams(f"not a folder: {folder}")
        return folder / CONFIG_FILE
    return user_config_file()


def read_config(path: Path):
    """The tomlkit document of `path` (comments and layout kept), empty when the file does not exist."""
    import tomlkit

    return tomlkit.parse(path.read_text(encoding="utf-8")) if path.is_file() else tomlkit.document()


def write_config(path: Path, doc) -> None:
    """Write the tomlkit document `doc` to `path` (its folder created), replacing the file in one rename. A folder
    trusted with the file as it was stays trusted (trust.carry_over): the edit is the user's own command."""
    import tomlkit

    from ragls.config import trust

    path.parent.mkdir(parents=True, exist_ok=True)
    before = trust.read_config_bytes(path.parent)
    with atomic_target(path) as tmp:
        tmp.write_text(tomlkit.dumps(doc), encoding="utf-8")
    trust.carry_over(path.parent, before)  # the user's own edit through ragls keeps a trusted folder trusted


def _check_name(name: str) -> None:
    import re

    from ragls.kb.rags import RESERVED

    if name in RESERVED or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise InvalidParams(f"invalid RAG name {name!r}: use letters, digits, '.', '-', '_' (not 'workspace')")


def _open_workspace(path: str, read_only: bool = False):
    """The RagWorkspace of the folder `path` (config warnings to stderr). `read_only` (`ragls rag list`) opens the
    indexes as `ragls status` does: config and manifests only, neither the embedding model nor LanceDB (about 2.7
    CPU-s of imports), vector counts as the writer last recorded them. InvalidParams when `path` is no folder."""
    from ragls.workspace.rag_workspace import RagWorkspace

    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise InvalidParams(f"not a folder: {folder}")
    ws = RagWorkspace([folder], on_status=lambda msg: print(f"ragls: {msg}", file=sys.stderr), read_only=read_only)
    for warning in ws.warnings:
        print(f"ragls: warning: {warning}", file=sys.stderr)
    return ws


def cmd_rag(args) -> int:
    return {"list": _list, "add": _add, "remove": _remove, "rebuild": _rebuild,
            "attach": cmd_attach}[args.rag_cmd](args)


def _list(args) -> int:
    import json

    from ragls.lsp.wire import to_wire_rag

    ws = _open_workspace(args.path, read_only=True)  # listing reads config and manifests only
    try:
        entries = [to_wire_rag(info) for info in ws.rag_list()]
    finally:
        ws.close()
    if args.json:
        print(json.dumps(entries, indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        when = e["lastIndexedAt"] or "never indexed"
        print(f"{e['name']}: {e['files']} files, {e['chunks']} sections, {e['pendingVectors']} without vectors "
              f"({when})")
        for s in e["sources"]:
            print(f"  source {s}")
        for s in e["skipped"][:20]:
            print(f"  skipped {s['path']}: {s['reason']}")
        for err in e["errors"]:
            print(f"  error: {err['message']}")
    return 0


def _add(args) -> int:
    import tomlkit

    _check_name(args.name)
    path = config_path(args)
    doc = read_config(path)
    rags = doc.setdefault("rags", tomlkit.table(is_super_table=True))
    table = rags.get(args.name)
    if table is None:
        table = tomlkit.table()
        table["sources"] = tomlkit.array()
        rags[args.name] = table
    sources = table.setdefault("sources", tomlkit.array())
    added = [s for s in args.sources if s not in list(sources)]
    for s in added:
        sources.append(s)
    write_config(path, doc)
    print(f"{args.name}: {len(added)} source(s) added in {path}; it is indexed on first use, or now with "
          f"`ragls rag rebuild {args.name}`")
    return 0


def _remove(args) -> int:
    from ragls.kb.rags import RagRegistry

    path = config_path(args)
    doc = read_config(path)
    rags = doc.get("rags")
    if rags is None or args.name not in rags:
        raise InvalidParams(f"no RAG named {args.name!r} in {path}")
    registry = RagRegistry(path.parent if getattr(args, "workspace", None) else None, read_only=True)
    spec = registry.specs.get(args.name)
    index_dir = registry.index_dir(spec) if spec is not None and spec.origin == path else None
    del rags[args.name]
    write_config(path, doc)
    msg = f"{args.name}: removed from {path}"
    if index_dir is not None and index_dir.is_dir():
        shutil.rmtree(index_dir, ignore_errors=True)
        msg += f"; its index {index_dir} deleted"
    print(msg)
    return 0


def _rebuild(args) -> int:
    import json

    from ragls.lsp.wire import to_wire_rag_rebuild

    ws = _open_workspace(args.path)
    try:
        t0 = time.perf_counter()
        report, info = ws.rebuild_rag(args.name)
        wire = to_wire_rag_rebuild(report, info, (time.perf_counter() - t0) * 1000)
    finally:
        ws.close()
    if args.json:
        print(json.dumps(wire, indent=2, ensure_ascii=False))
        return 0
    print(f"{wire['rag']}: {wire['files']} files, {wire['chunks']} sections ({wire['elapsedMs'] / 1000:.1f} s)")
    for s in wire["skipped"]:
        print(f"  skipped {s['path']}: {s['reason']}")
    return 0


def index_rags(ws, args, progress, t0: float) -> int:
    """`ragls index --rag NAME`: incremental sync of named RAGs (a crawl re-fetches with conditional requests)."""
    import json

    from ragls.lsp.wire import to_wire_rag

    for name in args.rag:
        report = ws.index_rag(name)
        progress.close()
        [info] = [i for i in ws.rag_list() if i.name == name]
        if args.json:
            print(json.dumps(to_wire_rag(info), indent=2, ensure_ascii=False))
            continue
        print(f"{name}: {len(report.indexed)} indexed, {len(report.deleted)} deleted, {report.unchanged} unchanged, "
              f"{len(report.skipped)} skipped; {info.files} files, {info.chunks} sections "
              f"({time.perf_counter() - t0:.1f} s)")
        for sk in report.skipped:
            print(f"  skipped {sk.path}: {sk.reason}")
    return 0


# -- ragls rag attach --------------------------------------------------------------------------------------
def add_attach_parser(rsub) -> None:
    """Register `attach` on the `ragls rag` subcommands."""
    at = rsub.add_parser("attach", help="attach a Qdrant collection read-only (lists collections without "
                                        "--collection)")
    at.add_argument("name", help="the RAG's name (rag = NAME in requests)")
    at.add_argument("--url", required=True, help="Qdrant URL (http://host:6333), a local directory or :memory:")
    at.add_argument("--collection", help="the collection; omitted: list the server's collections")
    at.add_argument("--api-key-env", help="environment variable holding the API key (never the key itself)")
    at.add_argument("--payload-text-field", default="page_content", help="payload field with the chunk text")
    at.add_argument("--path", default=".", help="workspace folder whose embedding model checks the collection")
    at.add_argument("--workspace", metavar="PATH", help="write to PATH/ragls.toml instead of the user config")
    at.add_argument("--json", action="store_true", help="print the result as JSON")


def _reach_qdrant(url: str, call):
    """`call()`, with a Qdrant server that cannot be reached (connection refused, DNS, TLS, HTTP errors) raised as
    RequestFailed naming the URL (never a key) instead of qdrant-client's traceback; ragls' own errors pass."""
    from ragls.stores.qdrant import display_location

    try:
        return call()
    except RaglsError:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever httpx / qdrant-client raise for an unreachable server
        raise RequestFailed(f"cannot reach Qdrant at {display_location(url)}: {type(exc).__name__}: {exc}") from None


def cmd_attach(args) -> int:
    """`ragls rag attach`. Raises ConfigError / InvalidParams / RequestFailed (unreachable server; the CLI prints
    them)."""
    import tomlkit

    from ragls.config.trust_filter import load_settings
    from ragls.embedding.embed import Embedder
    from ragls.kb.qdrant_attach import (
        AttachedCollection,
        QdrantAttach,
        list_collections,
    )
    from ragls.stores.qdrant import connect, display_location

    folder = Path(args.path).expanduser()
    if not folder.is_dir():
        raise InvalidParams(f"not a folder: {folder}")
    client = connect(args.url, args.api_key_env)
    if not args.collection:
        names = _reach_qdrant(args.url, lambda: list_collections(client))
        if args.json:
            print(json.dumps({"url": display_location(args.url), "collections": names}))
        else:
            print(f"collections at {display_location(args.url)}:" if names else
                  f"no collections at {display_location(args.url)}")
            for n in names:
                print(f"  {n}")
            if names:
                print(f"attach one with: ragls rag attach {args.name} --url {display_location(args.url)} "
                      f"--collection NAME")
        return 0
    path = config_path(args)
    doc = read_config(path)
    if args.name in doc.get("rags", {}):
        raise InvalidParams(f"rags.{args.name} is already defined in {path}")
    cfg = QdrantAttach(url=args.url, collection=args.collection, api_key_env=args.api_key_env,
                       payload_text_field=args.payload_text_field)
    settings, _ = load_settings(folder)
    att = _reach_qdrant(args.url, lambda: AttachedCollection.open(cfg, Embedder(settings.embedding), client=client))
    qdrant = tomlkit.inline_table()
    qdrant.update({"url": args.url, "collection": args.collection})
    if args.api_key_env:
        qdrant["api_key_env"] = args.api_key_env
    if args.payload_text_field != "page_content":
        qdrant["payload_text_field"] = args.payload_text_field
    table = tomlkit.table()
    table["qdrant"] = qdrant
    doc.setdefault("rags", tomlkit.table(is_super_table=True))[args.name] = table
    write_config(path, doc)
    if args.json:
        print(json.dumps({"rag": args.name, "configPath": str(path), **att.status()}))
    else:
        print(f"attached {args.collection} ({att.points} points) as rag {args.name!r} in {path}")
        for w in att.warnings:
            print(f"  warning: {w}", file=sys.stderr)
    return 0
