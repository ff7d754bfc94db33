"""Content hashes, chunk ids and the index fingerprint.

All hashes are sha256 hex digests (truncated where noted) so they are stable across machines and Python versions.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from ragls.core.atomic import atomic_target


def content_hash(data: bytes) -> str:
    """sha256 hex of raw file bytes (64 chars)."""
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    """sha256 hex of UTF-8 text (64 chars); keys the embedding cache, so equal text shares one vector."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def chunk_id(path: str, ordinal: int, chunk_text_hash: str) -> str:
    """Stable id of a chunk: 32 hex chars of sha256(path, ordinal, text hash)."""
    raw = f"{path}\0{ordinal}\0{chunk_text_hash}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:32]


def fingerprint(parts: dict) -> str:
    """Index fingerprint: 16 hex chars of sha256 over the sorted JSON of `parts` (model, dim, chunking, tokenizer).
    When it changes the index is rebuilt."""
    raw = json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(raw).hexdigest()[:16]


# The fingerprint parts a user sets (`Indexer` records them in the manifest), by the setting that changes them.
_SETTING_PARTS = {"chunk_size": "chunking.chunk_size", "chunk_overlap": "chunking.overlap",
                  "contextual": "retrieval.contextual_model", "contextual_prompt": "retrieval.contextual_prompt"}


def rebuild_reason(old_parts: str | None, new_parts: dict) -> str:
    """Why an index whose fingerprint no longer matches is rebuilt, for a log line or a status error: the settings
    that changed ("index settings changed: chunking.chunk_size 2000 -> 500"), else ragls's own way of reading text
    (the tokenizer, the chunk layout or the secret masking of another ragls version: the user changed nothing).
    `old_parts`: the JSON the manifest recorded at the last build (None or unreadable: an index of a ragls that did
    not record it), `new_parts`: the parts `fingerprint` hashes now."""
    try:
        old = json.loads(old_parts) if old_parts else None
    except ValueError:
        old = None
    if not isinstance(old, dict):
        return "index built with other chunking settings or by another ragls version"
    changed = [k for k in sorted(old.keys() | new_parts.keys()) if old.get(k) != new_parts.get(k)]
    mine = [f"{_SETTING_PARTS[k]} {old.get(k)} -> {new_parts.get(k)}" for k in changed if k in _SETTING_PARTS]
    if "redact" in changed and ("redact" in old) != ("redact" in new_parts):
        mine.append(f"sources.exclude_secrets {str('redact' in old).lower()} -> {str('redact' in new_parts).lower()}")
    if mine:
        return "index settings changed: " + ", ".join(mine)
    return "index built by another ragls version (it splits or masks text differently; no setting changed)"


def _import_statements(tree):
    """The `import` and `from ... import` statements of a parsed module, at any depth: the statements of every
    statement list (bodies, `else`/`finally` blocks, `except` handlers, `match` cases), where Python allows them.
    The same statements as `ast.walk`, without visiting the expressions (nine nodes in ten), which were most of
    `source_digest`'s CPU."""
    import ast

    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt):
                        stack.append(item)
                    elif isinstance(item, (ast.excepthandler, ast.match_case)):
                        stack.extend(item.body)


def source_digest(module: str, kept_in: Path | None = None) -> str:
    """sha256 (16 hex chars) of the source of the ragls module `module` ("ragls.answer.passages") and of every ragls
    module it imports, directly or not, at module level or inside functions (read statically from the files under
    the package: nothing is imported), with ragls's version. What a stored result computed by that code keys on so
    that a change of the code recomputes it — the index's sentence marks (index/vector_phase.py): a later ragls that
    reads passages differently embeds its new sentences ahead. A module without a `.py` file (an install of bytecode
    only) adds nothing: then the version decides. ~0.2 CPU-s for the answer layer's passages (50 modules), most of
    it `ast.parse`.

    With `kept_in` (a folder), the digest is kept there (`source-digest-<module>-<location>.json`) under a key of
    the package's location, version and every `.py` file's path, size and modification time (the test Python's
    bytecode cache makes, here to the nanosecond): a process whose package is unchanged reads it back (~6 ms for
    ragls's ~170 files) instead of parsing; any edit or another install computes it again and keeps the new one. A
    folder that cannot be read or written only costs the computation."""
    if kept_in is None:
        return _digest_sources(module)
    import ragls

    root = Path(ragls.__file__).parent
    where = hashlib.sha256(os.fsencode(root)).hexdigest()[:8]  # installs side by side (worktrees) keep one each
    kept = Path(kept_in) / f"source-digest-{module}-{where}.json"
    key = None
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        key = _package_key(root, ragls.__version__)
        stored = json.loads(kept.read_text(encoding="utf-8"))
        if stored["key"] == key and isinstance(stored["digest"], str):
            return stored["digest"]
    digest = _digest_sources(module)
    with contextlib.suppress(OSError):
        if key is None:  # the package's files could not be listed: nothing to key a kept digest on
            return digest
        kept.parent.mkdir(parents=True, exist_ok=True)
        with atomic_target(kept) as tmp:
            tmp.write_text(json.dumps({"key": key, "digest": digest}), encoding="utf-8")
    return digest


def _package_key(root: Path, version: str) -> str:
    """sha256 hex of the package folder `root`, `version` and each `.py` file under it (relative path, size,
    modification time in ns), in a stable order; `__pycache__` folders left out."""
    key = hashlib.sha256(f"{root}\0{version}\0".encode("utf-8", "surrogatepass"))
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            st = os.stat(path)
            rel = os.path.relpath(path, root)
            key.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogatepass"))
    return key.hexdigest()


def _digest_sources(module: str) -> str:
    """`source_digest` computed: the sources of `module` and of the ragls modules it imports, parsed now."""
    import ast

    import ragls

    root = Path(ragls.__file__).parent

    def source_file(name: str) -> Path | None:
        parts = name.split(".")[1:]
        for path in (root.joinpath(*parts).with_suffix(".py") if parts else None, root.joinpath(*parts, "__init__.py")):
            if path is not None and path.is_file():
                return path
        return None

    sources: dict[str, bytes] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in sources or name.split(".")[0] != "ragls":
            continue
        path = source_file(name)
        sources[name] = path.read_bytes() if path is not None else b""
        if path is None:
            continue
        for node in _import_statements(ast.parse(sources[name])):
            if isinstance(node, ast.Import):
                todo += [a.name for a in node.names]
            elif node.level == 0 and node.module and node.module.split(".")[0] == "ragls":
                todo.append(node.module)
                # `from ragls.answer import includes`: a module, not a name the package defines
                todo += [f"{node.module}.{a.name}" for a in node.names if source_file(f"{node.module}.{a.name}")]
    digest = hashlib.sha256(ragls.__version__.encode())
    for name in sorted(sources):
        digest.update(f"\0{name}\0".encode() + sources[name])
    return digest.hexdigest()[:16]
