"""`ragls rag attach NAME --url … [--collection …]`: attach an existing Qdrant collection as a named RAG.

Without `--collection` it lists the server's collections. With it, it runs every attach check
(`retrieval/qdrant_attach.py`) with the embedding model of the `--path` folder and, when they pass, adds

    [rags.NAME]
    qdrant = { url = "…", collection = "…", api_key_env = "…" }

to the same file `ragls rag add` writes — the user config (`rags.user_config_file()`), or `--workspace PATH`'s
`ragls.toml` — and prints its path (the API key itself is never written: only the name of its environment
variable).
Exit codes: 0 done, 1 a check failed or the server could not be reached, 2 bad arguments / NAME already defined.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_attach_parser(rsub) -> None:
    """Register `attach` on the `ragls rag` subcommands (cli_rags.py)."""
    at = rsub.add_parser("attach", help="attach a Qdrant collection read-only (lists collections without "
                                        "--collection)")
    at.add_argument("name", help="the RAG's name (rag = NAME in requests)")
    at.add_argument("--url", required=True, help="Qdrant URL (http://host:6333), a local directory or :memory:")
    at.add_argument("--collection", help="the collection; omitted: list the server's collections")
    at.add_argument("--api-key-env", help="environment variable holding the API key (never the key itself)")
    at.add_argument("--payload-text-field", default="page_content", help="payload field with the chunk text")
    at.add_argument("--path", default=".", help="workspace folder whose embedding model checks the collection")
    at.add_argument("--workspace", metavar="PATH", help="write to PATH/ragls.toml instead of the user config")
    at.add_argument("--json", action="store_true")


def cmd_attach(args) -> int:
    """`ragls rag attach`. Raises ConfigError / InvalidParams (the CLI prints them)."""
    import tomlkit

    from ragls.cli_rags import config_path, read_config, write_config
    from ragls.config import load_settings
    from ragls.embed import Embedder
    from ragls.errors import InvalidParams
    from ragls.retrieval.qdrant_attach import (
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
        names = list_collections(client)
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
    att = AttachedCollection.open(cfg, Embedder(settings.embedding), client=client)
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
