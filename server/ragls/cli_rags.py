"""`ragls rag list|add|remove|rebuild`: named RAGs from the terminal (see rags.py).

`add`, `attach` (cli_rag.py) and `remove` edit the user's ragls.toml (`rags.user_config_file()`), or the
workspace's with `--workspace PATH`, through tomlkit so comments and layout survive, and print the path.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import time
from pathlib import Path

from ragls.errors import InvalidParams


def rag_positionals(parser, args) -> None:
    """`--rag NAME` needs no folder: `ragls index --rag NAME`, `ragls query --rag NAME "text"` and `ragls ask --rag
    NAME "question"` read the one positional as the text and the folder as "." (whose ragls.toml may declare the
    RAG), as `ragls query PATH "text"` still does with both. Without --rag the folder stays required: exits through
    `parser.error` (status 2) when it is missing."""
    sub = {a.dest: a for a in parser._subparsers._group_actions}["cmd"].choices.get(args.cmd)
    if args.cmd == "index" and args.path is None:
        if not args.rag:
            sub.error("the following arguments are required: path (or --rag NAME)")
        args.path = "."
    elif args.cmd == "query" and args.text is None:
        if not args.rag:
            sub.error("the following arguments are required: text")
        args.path, args.text = ".", args.path
    elif args.cmd == "ask" and args.rag and not args.question and not Path(args.path).is_dir():
        args.path, args.question = ".", args.path


def add_parser(sub) -> None:
    r = sub.add_parser("rag", help="named RAGs: list, add, remove, rebuild")
    rs = r.add_subparsers(dest="rag_cmd", required=True)
    ls = rs.add_parser("list", help="the workspace and each named RAG with its counts and errors")
    ls.add_argument("path", nargs="?", default=".", help="workspace folder (its ragls.toml may declare RAGs)")
    ls.add_argument("--json", action="store_true", help="print the rag/list result")
    add = rs.add_parser("add", help="create a RAG or add sources to it")
    add.add_argument("name")
    add.add_argument("sources", nargs="+", help="file, a;b, directory, glob, URL, https://…/** crawl, loader:…")
    add.add_argument("--workspace", metavar="PATH", help="write to PATH/ragls.toml instead of the user config")
    rm = rs.add_parser("remove", help="remove a RAG from the config and delete its index")
    rm.add_argument("name")
    rm.add_argument("--workspace", metavar="PATH", help="edit PATH/ragls.toml instead of the user config")
    from ragls.cli_rag import add_attach_parser

    add_attach_parser(rs)
    rb = rs.add_parser("rebuild", help="drop a RAG's index and index its sources again")
    rb.add_argument("name")
    rb.add_argument("path", nargs="?", default=".", help="workspace folder")
    rb.add_argument("--json", action="store_true")


def config_path(args) -> Path:
    """The config file `rag add`, `rag attach` and `rag remove` edit: `--workspace PATH`'s ragls.toml, else the
    user config (`rags.user_config_file()`). Raises InvalidParams when PATH is not a folder."""
    from ragls.config import CONFIG_FILE
    from ragls.rags import user_config_file

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
    import os
    import tempfile

    import tomlkit

    from ragls import trust

    path.parent.mkdir(parents=True, exist_ok=True)
    before = trust.read_config_bytes(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(tomlkit.dumps(doc))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    trust.carry_over(path.parent, before)  # the user's own edit through ragls keeps a trusted folder trusted


def _check_name(name: str) -> None:
    import re

    from ragls.rags import RESERVED

    if name in RESERVED or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise InvalidParams(f"invalid RAG name {name!r}: use letters, digits, '.', '-', '_' (not 'workspace')")


def _open_workspace(path: str):
    from ragls.workspace import RagWorkspace

    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise InvalidParams(f"not a folder: {folder}")
    ws = RagWorkspace([folder], on_status=lambda msg: print(f"ragls: {msg}", file=sys.stderr))
    for warning in ws.warnings:
        print(f"ragls: warning: {warning}", file=sys.stderr)
    return ws


def cmd_rag(args) -> int:
    from ragls.cli_rag import cmd_attach

    return {"list": _list, "add": _add, "remove": _remove, "rebuild": _rebuild,
            "attach": cmd_attach}[args.rag_cmd](args)


def _list(args) -> int:
    import json

    from ragls.lsp.wire import to_wire_rag

    ws = _open_workspace(args.path)
    try:
        entries = [to_wire_rag(info) for info in ws.rag_list()]
    finally:
        ws.close()
    if args.json:
        print(json.dumps(entries, indent=2, ensure_ascii=False))
        return 0
    for e in entries:
        when = e["lastIndexedAt"] or "never indexed"
        print(f"{e['name']}: {e['files']} files, {e['chunks']} chunks, {e['pendingVectors']} without vectors "
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
    from ragls.rags import RagRegistry

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
    print(f"{wire['rag']}: {wire['files']} files, {wire['chunks']} chunks ({wire['elapsedMs'] / 1000:.1f} s)")
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
              f"{len(report.skipped)} skipped; {info.files} files, {info.chunks} chunks "
              f"({time.perf_counter() - t0:.1f} s)")
        for sk in report.skipped:
            print(f"  skipped {sk.path}: {sk.reason}")
    return 0
