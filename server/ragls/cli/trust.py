"""`ragls trust [PATH]`, `ragls trust --list`, `ragls trust --revoke [PATH]`, `ragls trust --show [PATH]`: the user's
folder trust store (config/trust.py), what trusting a folder would let its ragls.toml set, and the question the CLI asks on a terminal before it uses an untrusted folder whose ragls.toml wants more than
retrieval tuning (config/trust_filter.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from ragls.cli.folder import require_folder
from ragls.core.errors import ConfigError


def add_parser(sub) -> None:
    t = sub.add_parser("trust", help="trust a folder's ragls.toml (loaders, endpoints, outside sources); "
                                     "--list, --revoke, --show")
    t.add_argument("path", nargs="?", default=".", help="the folder (default: the current one)")
    group = t.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="list the trusted folders")
    group.add_argument("--revoke", action="store_true", help="stop trusting the folder")
    group.add_argument("--show", action="store_true",
                       help="print what trusting the folder would let its ragls.toml set, without trusting it")
    t.add_argument("--json", action="store_true", help="with --list: print [{folder, configHash, trustedAt, state}]; "
                                                       "with --show: {folder, file, state, settings}")


def cmd_trust(args) -> int:
    from ragls.config import trust

    if args.list:
        return _list(args.json)
    folder = Path(args.path).expanduser().resolve()
    if args.show:
        return _show(folder, args.json)
    if args.revoke:
        if trust.revoke(folder):
            print(f"ragls: {folder} is no longer trusted")
        else:
            print(f"ragls: {folder} was not trusted")
        return 0
    require_folder(folder)
    layer = _untrusted_layer(folder)
    entry = trust.trust(folder, layer.raw)
    if layer.raw is None:
        print(f"ragls: trusted {folder} (it has no ragls.toml; one added later asks again)")
    elif layer.ignored:
        print(f"ragls: trusted {folder}; its ragls.toml now also applies:")
        for line in ignored_values(layer):
            print(f"  {line}")
    else:
        print(f"ragls: trusted {folder} (its ragls.toml only tunes retrieval; nothing more applies)")
    if entry.config_hash == trust.NO_FILE:
        print(f"ragls: recorded in {trust.store_path()} that it has no ragls.toml", file=sys.stderr)
    else:
        print(f"ragls: recorded its ragls.toml (hash {entry.config_hash}) in {trust.store_path()}; editing "
              f"ragls.toml asks again", file=sys.stderr)
    return 0


# The items of a list value `ignored_values` shows; the file holds the rest (`ragls trust` prints what it applies).
SHOWN_ITEMS = 20
# The characters of one value's JSON `ignored_values` shows: its first SHOWN_HEAD and last SHOWN_TAIL (the end of a
# command or URL matters as much as its start), the count of those between them said. 1,000 hold the default
# `generation.template` whole (525 as JSON) and a screen of terminal lines; a loader command or an endpoint is far
# shorter.
SHOWN_HEAD = 800
SHOWN_TAIL = 200


def ignored_values(layer) -> list[str]:
    """One line per setting an untrusted folder's ragls.toml (`layer`, `_untrusted_layer`) asks for beyond
    retrieval tuning, with the value the file gives it (`FolderLayer.ignored`): `generation.base_url =
    "http://..."`, `document_loaders.md = "sh -c ..."`, `rags.loot.sources = ["/home/..."]` (a table's entries one
    by one) — what trusting lets the file do, not only its names. Values are JSON (control and non-ASCII characters
    escaped: a hostile file cannot drive the terminal) with secret values masked (`redact.mask_secrets`). A list of
    more than SHOWN_ITEMS items shows its first SHOWN_ITEMS and how many more the file holds (50,000 globs printed
    889 KB); a value whose JSON is longer than SHOWN_HEAD + SHOWN_TAIL characters (a 1 MB prompt template or loader
    command) shows its first SHOWN_HEAD and last SHOWN_TAIL with the count hidden between them (`_cut_value`): the
    line says the value goes on, so a cut command cannot pass for a whole one."""
    from ragls.sources.redact import mask_secrets

    lines = []
    for setting in layer.ignored:
        value = setting.value
        items = value.items() if isinstance(value, dict) and value else [(None, value)]
        for sub, v in items:
            shown = setting.name if sub is None else f"{setting.name}.{sub}"
            more = ""
            if isinstance(v, list) and len(v) > SHOWN_ITEMS:
                v, more = v[:SHOWN_ITEMS], f" ... and {len(v) - SHOWN_ITEMS:,} more ({len(v):,} in all: read the file)"
            lines.append(f"{shown} = {_cut_value(mask_secrets(json.dumps(v, default=str))[0])}{more}")
    return lines


def _cut_value(text: str) -> str:
    """`text` (a value's JSON, secrets already masked, so a cut never shows part of an unmasked key) when it has at
    most SHOWN_HEAD + SHOWN_TAIL characters; else its first SHOWN_HEAD, " ... [N characters hidden: read the file]
    ... " and its last SHOWN_TAIL. The JSON is ASCII (`json.dumps` escapes the rest), so a cut inside an escape
    such as "\\u202e" shows only ASCII characters."""
    hidden = len(text) - SHOWN_HEAD - SHOWN_TAIL
    if hidden <= 0:
        return text
    return f"{text[:SHOWN_HEAD]} ... [{hidden:,} characters hidden: read the file] ... {text[-SHOWN_TAIL:]}"


def _untrusted_layer(folder: Path):
    """The folder's ragls.toml as an untrusted folder sees it (what trusting adds: `ignored`), and its bytes."""
    from ragls.config.trust_filter import EDITOR_TRUST_KEY, folder_layer

    return folder_layer(folder, [{EDITOR_TRUST_KEY: False}])


def _show(folder: Path, as_json: bool) -> int:
    """`ragls trust --show [--json] PATH`: what trusting `folder` would let its ragls.toml set (`ignored_values`: one
    "name = value" line per setting, secrets masked) and its trust state, trusting nothing. Neovim's plugin asks it
    before its `vim.secure.read` question, which names only the file. JSON: {folder, file (null: no ragls.toml),
    state ("trusted" / "changed" since trusted / "untrusted"), settings: [line]}, the lines cut as on the terminal
    (its readers show them to a person, and Neovim's waits for them). Exit 0; 1 (a message on stderr)
    when the folder does not exist or the file cannot be read as TOML."""
    from ragls.config import trust

    require_folder(folder)
    try:
        layer = _untrusted_layer(folder)
    except ConfigError as exc:
        print(f"ragls: {exc}", file=sys.stderr)
        return 1
    state = trust.state(folder, layer.raw)
    settings = ignored_values(layer)
    if as_json:
        print(json.dumps({"folder": str(folder), "file": str(layer.path) if layer.raw is not None else None,
                          "state": state, "settings": settings}, indent=2))
    elif layer.raw is None:
        print(f"ragls: {folder} has no ragls.toml: trusting it changes nothing")
    elif not settings:
        print(f"ragls: {layer.path} only tunes retrieval: trusting it changes nothing ({state})")
    else:
        print(f"ragls: trusting {folder} ({state}) would let its ragls.toml also set:")
        for line in settings:
            print(f"  {line}")
    return 0


def _list(as_json: bool) -> int:
    from ragls.config import trust

    rows = []
    for e in trust.trusted_folders():
        folder = Path(e.folder)
        try:
            state = trust.state(folder, trust.read_config_bytes(folder)) if folder.is_dir() else "missing"
        except OSError:
            state = "unreadable"
        rows.append({"folder": e.folder, "configHash": e.config_hash, "trustedAt": e.trusted_at,
                     "state": "changed since trusted" if state == "changed" else state})
    if as_json:
        print(json.dumps(rows, indent=2))
    elif not rows:
        print(f"no trusted folders ({trust.store_path()})")
    for r in rows if not as_json else []:
        when = datetime.fromtimestamp(r["trustedAt"], timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        print(f"{r['folder']}  ({r['state']}, since {when})")
    return 0


def offer_trust(folders: Sequence[Path]) -> None:
    """On a terminal (stdin and stderr both TTYs), ask once per untrusted folder whose ragls.toml asks for more
    than retrieval tuning whether to trust it; "y" records the very bytes that were described. Elsewhere (editors,
    agents, pipes) nothing is asked: the settings load says what was ignored."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return
    from ragls.config import trust

    for folder in folders:
        try:
            layer = _untrusted_layer(folder)
            if not layer.ignored or trust.state(folder, layer.raw) == "trusted":
                continue
        except ConfigError:
            continue  # the settings load reports it
        shown = "".join(f"\n         {line}" for line in ignored_values(layer))
        print(f"ragls: {layer.path} asks for settings an untrusted folder cannot use:{shown}\n"
              f"       They can run programs, send your API keys or read files outside the folder.",
              file=sys.stderr)
        print("       Trust this folder (only if you know who wrote it)? [y/N] ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()  # stdout may carry --json output: the question goes to stderr
        if answer.strip().lower() in ("y", "yes"):
            trust.trust(folder, layer.raw)
            print(f"ragls: trusted {folder}", file=sys.stderr)
