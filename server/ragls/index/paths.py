"""Where indexes live, importable without the heavy stores (the CLI's fast path and `ragls prune` use it).

`cache_root()` is the user cache dir; `default_index_dir(folder)` a folder's index under it; `resolve_index_dir`
applies `index.path`. Pure functions: nothing here creates a directory but `make_index_dir`.
"""

from __future__ import annotations

import errno
import os
import unicodedata
from pathlib import Path

from ragls.core.errors import ConfigError
from ragls.core.hashing import text_hash


def cache_root() -> Path:
    """The user's ragls cache dir (platformdirs), e.g. ~/.cache/ragls; `RAGLS_CACHE_DIR` overrides it."""
    env = os.environ.get("RAGLS_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("ragls", appauthor=False))


def models_root() -> Path:
    """Where the model files ragls derives live: the offline MiniLM copy and the memory-lean ONNX copies
    (`embedding/onnx_prep`). `RAGLS_MODELS_DIR` overrides it (several cache dirs can share one, e.g. the test suite's);
    default `<cache_root()>/models`. Their contents are keyed by the source model, so sharing is safe."""
    env = os.environ.get("RAGLS_MODELS_DIR")
    return Path(env) if env else cache_root() / "models"


def user_temp_dir(name: str, base: Path | None = None) -> Path | None:
    """`<base>/<name>`, the user's own folder in a shared temporary dir (`base` default `tempfile.gettempdir()`, which
    TMPDIR moves), made with mode 700 when missing; None when it cannot be made or may not be the user's alone: not a
    directory (a symbolic link), another owner, or group or others may use it (someone else made the name first in a
    shared /tmp, or planted a link to a folder of theirs or of the user's). What it holds is trusted — the embedding
    model loaded from it (`model_source._kept_root`), the local socket served in it (`local_socket._socket_path`) —
    and nothing is changed through it. Owner and mode are POSIX's; on Windows a directory is enough (the temporary
    dir is the user's already). Never raises."""
    import stat
    import tempfile

    path = Path(base if base is not None else tempfile.gettempdir()) / name
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = path.lstat()
    except OSError:
        return None
    posix = hasattr(os, "getuid")
    if not stat.S_ISDIR(st.st_mode) or (posix and (st.st_uid != os.getuid() or st.st_mode & 0o077)):
        return None
    return path if os.access(path, os.W_OK | os.X_OK) else None


INDEX_NAME_PREFIX_BYTES = 40  # readable part of an index directory's name; file names end at 255 bytes


def readable_prefix(name: str, max_bytes: int = INDEX_NAME_PREFIX_BYTES) -> str:
    """`name` cut to at most `max_bytes` UTF-8 bytes at a character boundary; undecodable bytes shown as U+FFFD,
    control characters as "_" (`_without_controls`). "数据" * 60 -> the first 13 characters (39 bytes)."""
    text = _without_controls(os.fsencode(name).decode("utf-8", errors="replace"))
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")


def _without_controls(name: str) -> str:
    """`name` with each control character (Unicode category Cc: tab, newline, DEL, …) replaced by "_". LanceDB
    parses its table paths as object-store paths, which refuse ASCII control characters: a folder named
    "notes", a tab and "v2" made every command stop with "Failed to parse path '…/indexes/notes%09v2-…/vectors/'"."""
    return "".join("_" if unicodedata.category(c) == "Cc" else c for c in name)


def default_index_dir(folder: Path) -> Path:
    """Per-workspace index folder in the user's cache dir: <cache>/indexes/<prefix>-<hash of the folder path>, the
    prefix being the folder's name cut to `INDEX_NAME_PREFIX_BYTES` bytes, so the name stays far below the
    255-byte file-name limit however long the folder's name is, its control characters "_". An index made before
    the cut (a longer name that still fits) keeps being used; one named with a control character never held an
    index LanceDB could open, and is not."""
    resolved = str(Path(folder).resolve())
    digest = text_hash(resolved)[:12]
    root = cache_root() / "indexes"
    name = _without_controls(Path(folder).name) or "root"
    legacy = f"{name}-{digest}"
    if len(os.fsencode(legacy)) <= 255 and (root / legacy).is_dir():
        return root / legacy
    return root / f"{readable_prefix(name)}-{digest}"


def resolve_index_dir(folder: Path, settings, index_dir: Path | None = None) -> Path:
    """Where the index of `folder` lives: `index_dir`, else `settings.index.path` (relative = inside the folder),
    else `default_index_dir(folder)`. Pure: creates nothing."""
    folder = Path(folder).resolve()
    path = Path(index_dir or settings.index.path or default_index_dir(folder)).expanduser()
    return path if path.is_absolute() else folder / path


def workspace_index_dirs(folders: list[Path], settings: list) -> list[Path]:
    """Each workspace folder's index directory (`resolve_index_dir`), kept apart: folders whose `index.path`
    resolves to one directory (a path set once for the whole workspace — VS Code's `ragls.index.path`, a Neovim
    `settings` table, the user's ragls.toml) each get their own subdirectory there, named as in the cache
    (`<index.path>/<folder name>-<hash of its path>`, `default_index_dir`). One index directory is one folder's
    index: a second folder sharing it would find the first one's writer lock and stay read-only. A folder alone at
    its path keeps the path itself (a single-folder workspace is unchanged). Pure: creates nothing."""
    dirs = [resolve_index_dir(f, s) for f, s in zip(folders, settings)]
    shared = {d for d in dirs if dirs.count(d) > 1}
    return [d / default_index_dir(f).name if d in shared else d for f, d in zip(folders, dirs)]


def make_index_dir(index_dir: Path) -> None:
    """Create `index_dir` (and its parents) if missing. Raises RequestFailed saying what to do when the user may not
    write there (permission denied, a read-only file system: a read-only cache dir); other OSErrors as they are."""
    from ragls.core.errors import RequestFailed

    try:
        index_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
        raise RequestFailed(f"cannot create the index folder {index_dir} ({exc.strerror}: {exc.filename}): make it "
                            "writable, or set index.path or RAGLS_CACHE_DIR to a folder you can write") from exc


def check_index_dir(index_dir: Path) -> None:
    """Refuse an index directory that holds a symbolic link anywhere below it (`manifest.sqlite -> ~/x`, `bm25 ->
    /elsewhere`): ragls creates every entry there itself, so a link was planted — e.g. shipped in a cloned folder
    whose `index.path` lies inside it — and writing through it would write outside the index (issue 25). The
    directory itself may be a link (the user's choice of disk). Raises ConfigError naming the link; a directory
    that does not exist passes."""

    for parent, dirs, files in os.walk(index_dir):
        for name in dirs + files:
            entry = Path(parent) / name
            if entry.is_symlink():
                raise ConfigError(f"index directory {index_dir} holds a symbolic link ({entry} -> "
                                  f"{os.readlink(entry)}); ragls writes only inside its index directory: remove "
                                  "the link or set another index.path")


def configured_index_dir(folder: Path, explicit: str | None = None) -> Path:
    """`resolve_index_dir` for the CLI's fast paths, without validating settings (no pydantic import): `explicit`
    (`--index-path`), else `index.path` from the folder's ragls.toml when the folder is trusted (config/trust.py; an
    untrusted folder's index.path is ignored, as the full settings load decides), else the default. An unreadable ragls.toml
    counts as absent here; the full settings load reports it."""
    from ragls.config import trust

    folder = Path(folder).resolve()
    configured = explicit
    if configured is None:
        try:
            # a ragls.toml linking out of an untrusted folder is not read (trust_filter.folder_layer)
            raw = None if trust.config_outside(folder) else trust.read_config_bytes(folder)
            index = trust.parse_toml(folder, raw).get("index") if raw is not None else None
            configured = index.get("path") if isinstance(index, dict) else None
            if configured is not None and trust.state(folder, raw) != "trusted":
                configured = None
        except (OSError, ConfigError):
            configured = None
    path = Path(configured or default_index_dir(folder)).expanduser()
    return path if path.is_absolute() else folder / path
