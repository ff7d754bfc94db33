"""Folder trust: the user's list of folders whose `ragls.toml` may do more than tune retrieval inside the folder.

A folder someone else wrote (a cloned repository, a downloaded docs bundle) is untrusted input. Until the user
trusts it, its `ragls.toml` may only tune retrieval inside the folder (`config/trust_filter.py` decides which settings);
settings that run programs, reach the network, name environment variables or read/write outside the folder are
ignored. This follows VS Code's Workspace Trust, Neovim's `vim.secure.read` (exrc) and direnv's `allow`: the
store keeps, per folder, the SHA-256 of the `ragls.toml` the user trusted, so a changed file is untrusted again
until the user says so once more.

The store is one JSON file in the user's data dir (platformdirs; `~/.local/share/ragls/trusted-folders.json` on
Linux; `$RAGLS_DATA_DIR` overrides the directory). It is never read from or written into a workspace folder.
This module imports nothing heavy: the CLI's fast paths use it, and the language server reads the editor's
word on trust (`editor_trust`, `editor_trusted_configs`) with it before it answers `initialize`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomllib

from ragls.core.errors import ConfigError

CONFIG_FILE = "ragls.toml"  # a folder's settings file (config.settings re-exports it)
# An editor's word on folder trust, in initializationOptions / didChangeConfiguration (not a setting): true = the
# user trusted the workspace in the editor (VS Code Workspace Trust, Neovim's vim.secure), false = restricted.
EDITOR_TRUST_KEY = "workspaceTrusted"
# With it, the versions of the folders' ragls.toml the user approved in the editor ({folder path: "sha256:<hex>"}, as
# Neovim's vim.secure.read approves one version of a file): a folder whose file changed since, or that is not listed,
# is not trusted by the editor's word (the user's trust store decides), so an edit between the approval and the
# server's start is not, nor a folder added to the workspace without being asked about.
EDITOR_TRUST_CONFIGS_KEY = "workspaceTrustedConfigs"
STORE_FILE = "trusted-folders.json"
NO_FILE = "absent"  # the recorded hash of a folder trusted while it had no ragls.toml
MAX_CONFIG_BYTES = 1_000_000  # a ragls.toml larger than this is not read (read_config_bytes)


def data_dir() -> Path:
    """The user's ragls data dir: `$RAGLS_DATA_DIR`, else platformdirs' user data dir (~/.local/share/ragls on
    Linux, honouring XDG_DATA_HOME)."""
    env = os.environ.get("RAGLS_DATA_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("ragls", appauthor=False))


def user_config_file() -> Path:
    """The user-level config file: $RAGLS_CONFIG_DIR/ragls.toml, else platformdirs' user config dir
    (~/.config/ragls/ragls.toml on Linux, honouring XDG_CONFIG_HOME). Its `[rags.*]` tables declare named RAGs
    (kb/rags.py); its settings are the lowest layer of every folder's (`trust_filter.user_layer`)."""
    env = os.environ.get("RAGLS_CONFIG_DIR")
    if env:
        return Path(env).expanduser() / CONFIG_FILE
    import platformdirs

    return Path(platformdirs.user_config_dir("ragls", appauthor=False)) / CONFIG_FILE


def store_path() -> Path:
    """The trust store file (`data_dir() / "trusted-folders.json"`)."""
    return data_dir() / STORE_FILE


def folder_key(folder: str | os.PathLike) -> str:
    """The store's key of `folder`: its absolute path with symlinks resolved."""
    return str(Path(folder).expanduser().resolve())


def config_hash(data: bytes | None) -> str:
    """"sha256:<hex>" of a ragls.toml's bytes; `NO_FILE` for a folder without one (None)."""
    return NO_FILE if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def read_config_bytes(folder: str | os.PathLike) -> bytes | None:
    """The bytes of `folder`/ragls.toml, None when there is none (or it is no regular file: a FIFO, a device).
    Raises OSError when it exists but cannot be read, or holds more than MAX_CONFIG_BYTES: a folder's file is read
    and parsed by every command and server start (tomllib: ~10 s and gigabytes for 100 MB), so a clone cannot claim
    the machine with it (red team, session 53). A folder that cannot be entered (mode 000, or 644 after `chmod -R
    644`) has none to read, as it has no file to index: the walk says so ("./: unreadable folder"), and every
    command says that rather than "ragls.toml: Permission denied" about a file that may not exist."""
    path = Path(folder) / CONFIG_FILE
    try:
        if not path.is_file():
            return None
    except PermissionError:  # no search permission on the folder: its names cannot even be looked up
        return None
    with path.open("rb") as f:
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise OSError(errno.EFBIG, f"larger than {MAX_CONFIG_BYTES:,} bytes, not read (a settings file is a few kB)")
    return data


def config_outside(folder: str | os.PathLike) -> Path | None:
    """The real path of `folder`/ragls.toml when it is a link to a file outside the folder (both resolved) and the
    user's trust store does not have the folder (with any version of the file: `state` compares the version), else
    None (no file, a plain file, a link within the folder, a folder the user trusted). Such a file is not read (by
    `trust_filter.folder_layer`, `index.paths.configured_index_dir`) until the user trusts the folder: before, a
    folder reads nothing outside it."""
    path = Path(folder) / CONFIG_FILE
    try:
        if not path.is_symlink():
            return None
        real, root = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    except OSError:
        return None
    return None if root in real.parents or folder_key(folder) in _load() else real


def parse_toml(path: Path, data: bytes) -> dict[str, Any]:
    """`data` (the bytes of the ragls.toml at `path`) as a dict; a leading BOM (a Windows editor's) is skipped.
    Raises ConfigError naming the file: a syntax error, no UTF-8, and arrays or tables nested past Python's
    recursion limit (tomllib recurses per level: a folder's `a = [[[[…]]]]` ended every command in a traceback)."""
    try:
        return tomllib.loads(data.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply (arrays or tables within each other), not read") from None


@dataclass(frozen=True)
class TrustEntry:
    """One trusted folder: its key (resolved path), the hash of the ragls.toml trusted, when (Unix seconds)."""

    folder: str
    config_hash: str
    trusted_at: float


def _load() -> dict[str, TrustEntry]:
    """The store's entries by folder key; {} when the file is absent. A file that is not the store's JSON shape
    counts as empty (nothing is trusted) — never as "everything is trusted"."""
    try:
        raw = json.loads(store_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}
    folders = raw.get("folders") if isinstance(raw, dict) else None
    if not isinstance(folders, dict):
        return {}
    out = {}
    for key, entry in folders.items():
        if isinstance(entry, dict) and isinstance(entry.get("configHash"), str):
            out[key] = TrustEntry(key, entry["configHash"], float(entry.get("trustedAt") or 0))
    return out


def _save(entries: dict[str, TrustEntry]) -> None:
    """Write the store atomically (a temporary file renamed over it), readable by the user only."""
    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"version": 1, "folders": {e.folder: {"configHash": e.config_hash, "trustedAt": e.trusted_at}
                                      for e in sorted(entries.values(), key=lambda e: e.folder)}}
    fd, tmp = tempfile.mkstemp(prefix=".trusted-folders-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(body, f, indent=2)
            f.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _locked():
    """An exclusive lock on the store (filelock), held while reading-modifying-writing it."""
    from filelock import FileLock

    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return FileLock(str(path) + ".lock", timeout=10)


def trust(folder: str | os.PathLike, data: bytes | None = None) -> TrustEntry:
    """Trust `folder` with its current ragls.toml (or `data`, the bytes the caller showed the user). Returns the
    entry. Raises OSError when the store cannot be written."""
    if data is None:
        data = read_config_bytes(folder)
    entry = TrustEntry(folder_key(folder), config_hash(data), time.time())
    with _locked():
        entries = _load()
        entries[entry.folder] = entry
        _save(entries)
    return entry


def revoke(folder: str | os.PathLike) -> bool:
    """Forget `folder`. Returns whether it was in the store."""
    key = folder_key(folder)
    with _locked():
        entries = _load()
        if key not in entries:
            return False
        del entries[key]
        _save(entries)
    return True


def trusted_folders() -> list[TrustEntry]:
    """Every entry of the store, by folder path."""
    return sorted(_load().values(), key=lambda e: e.folder)


def state(folder: str | os.PathLike, data: bytes | None) -> str:
    """"trusted" when the store has `folder` with the hash of `data` (its ragls.toml bytes, None = no file),
    "changed" when it has the folder with another hash (the file was edited since), else "untrusted"."""
    entry = _load().get(folder_key(folder))
    if entry is None:
        return "untrusted"
    return "trusted" if entry.config_hash == config_hash(data) else "changed"


def carry_over(folder: str | os.PathLike, before: bytes | None) -> bool:
    """After ragls itself edited `folder`'s ragls.toml on the user's command (`ragls rag add --workspace`, `ragls rag
    attach`): when the folder was trusted with the file as it was (`before`), trust the edited file too. Returns
    whether it did; an untrusted folder stays untrusted."""
    if state(folder, before) != "trusted":
        return False
    trust(folder)
    return True


def editor_trust(layers: Sequence[dict[str, Any] | None]) -> bool | None:
    """The editor's word on workspace trust (`workspaceTrusted` in the last layer that has it, as a boolean, also
    under a "ragls" wrapper), None when no layer says."""
    verdict = None
    for layer in map(_unwrapped, layers):
        if isinstance(layer, dict) and isinstance(layer.get(EDITOR_TRUST_KEY), bool):
            verdict = layer[EDITOR_TRUST_KEY]
    return verdict


def _unwrapped(layer: dict[str, Any] | None) -> dict[str, Any] | None:
    """An editor's settings layer without its "ragls" wrapper ({"ragls": {...}} alone, as VS Code sends a section)."""
    if isinstance(layer, dict) and isinstance(layer.get("ragls"), dict) and len(layer) == 1:
        return layer["ragls"]
    return layer


def editor_trusted_configs(layers: Sequence[dict[str, Any] | None]) -> dict[str, str] | None:
    """The ragls.toml versions the editor's user approved (`workspaceTrustedConfigs` in the last layer that has it,
    also under a "ragls" wrapper): {trust.folder_key(folder): "sha256:<hex>"}; a bare hex digest gets the prefix.
    None when no layer says (then `workspaceTrusted: true` trusts every folder's file, as VS Code's Workspace Trust
    does); when one does, a folder it does not list is not trusted on the editor's word (Neovim asks about one
    folder's file: a folder added to the workspace later was never approved). Entries that are not a path and a
    string are dropped."""

    found = None
    for layer in map(_unwrapped, layers):
        if isinstance(layer, dict) and isinstance(layer.get(EDITOR_TRUST_CONFIGS_KEY), dict):
            found = {}
            for folder, digest in layer[EDITOR_TRUST_CONFIGS_KEY].items():
                if isinstance(folder, str) and folder.strip() and isinstance(digest, str) and digest.strip():
                    digest = digest.strip().lower()
                    found[folder_key(folder)] = digest if ":" in digest else "sha256:" + digest
    return found
