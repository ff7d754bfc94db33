"""Reading back an indexed passage: exact lines of a file the index holds, by the rules every surface shares
(MCP `read_passage` and `resources/read`, LSP `rag/readPassage`): only files the index holds, inside its
folders (no `..`, absolute or symlink escapes), decoded or converted as the indexer does it so line numbers match
the index, secret values masked as in the index, at most `MAX_PASSAGE_LINES` lines per read.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ragls.core.errors import InvalidParams, RequestFailed, Skipped
from ragls.core.ir import Document
from ragls.core.uris import KEY_MARK, display_path, key_path, path_key, path_to_uri, uri_to_path
from ragls.sources.convert import load_source
from ragls.sources.redact import mask_secrets
from ragls.sources.walk import SECRET_FILE, inside_folder, secret_file

MAX_PASSAGE_LINES = 400  # a read returns at most this many lines
# ... and at most this many characters (~5k tokens): 400 lines of prose are ~30k characters, but one line of minified
# JSON, a log or a generated file can be megabytes, and an agent's read must not flood its context window
MAX_PASSAGE_CHARS = 20_000


@dataclass(frozen=True)
class Passage:
    """Lines `start_line`..`end_line` (1-based, inclusive; `end_line` = `start_line` - 1 for an empty read) of the
    indexed file `path` (folder-relative, "/" separators; `uri` its file:// URI): `text` (the lines joined by
    "\\n"), the file's `total_lines`, and `truncated` when fewer lines than asked were returned, or the last line
    only in part: `cut_chars` characters of line `end_line` are left out (a line longer than MAX_PASSAGE_CHARS)."""

    path: str
    uri: str
    start_line: int
    end_line: int
    total_lines: int
    text: str
    truncated: bool
    cut_chars: int = 0


def read_passage(indexes, path: str, start_line: int = 1, end_line: int | None = None) -> Passage:
    """The passage of an indexed file (`resolve_indexed`), `start_line`..`end_line` (default: `MAX_PASSAGE_LINES`
    lines from `start_line`, at most that many in any case), cut after the last whole line within
    `MAX_PASSAGE_CHARS` characters (newlines included); a first line longer than that is returned in part, its first
    MAX_PASSAGE_CHARS characters (`cut_chars` says how many more it has). Raises InvalidParams for a path outside the indexed
    folders or not indexed, a `start_line` past the end or an `end_line` before `start_line`; RequestFailed when
    the file can no longer be read."""
    idx, rel = resolve_indexed(indexes, path)
    lines = split_lines(read_indexed_text(idx, rel))
    total = len(lines)
    if start_line > max(total, 1):
        raise InvalidParams(f"start_line {start_line} is past the end of {rel} ({total} lines)")
    last = min(total, end_line or start_line + MAX_PASSAGE_LINES - 1, start_line + MAX_PASSAGE_LINES - 1)
    if last < start_line and total:
        raise InvalidParams(f"end_line {end_line} is before start_line {start_line}")
    wanted = last
    kept, size, cut = [], 0, 0
    for line in lines[start_line - 1:last]:
        if kept and size + 1 + len(line) > MAX_PASSAGE_CHARS:
            break
        if len(line) > MAX_PASSAGE_CHARS:  # the first line alone is over the budget: its start
            cut, line = len(line) - MAX_PASSAGE_CHARS, line[:MAX_PASSAGE_CHARS]
        size += len(line) + (1 if kept else 0)
        kept.append(line)
    if total:
        last = start_line + len(kept) - 1
    return Passage(path=display_path(rel), uri=path_to_uri(idx.folder / key_path(rel)), start_line=start_line,
                   end_line=max(last, start_line - 1) if total else 0, total_lines=total,
                   text="\n".join(kept), truncated=(end_line or 0) > last or last < wanted or cut > 0,
                   cut_chars=cut)


def split_lines(text: str) -> list[str]:
    """Lines as the chunker counts them: a line ends only at \\n, \\r\\n or \\r (ragls.core.ir)."""
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the newline ending the last line does not start another one
    return lines


def resolve_indexed(indexes, path: str):
    """(FolderIndex of `indexes`, relative path) of an indexed file given as a folder-relative path, an absolute path or a
    file:// URI. Raises InvalidParams for a path outside every indexed folder (`..`, absolute, symlink escapes)
    or a file the index does not hold (ignored, excluded, secret, binary, missing; a file the index lists as skipped
    is refused with its skip reason, e.g. "'big.md' is not indexed: too large (…)")."""
    raw = path.strip()
    if raw.startswith("file:"):
        raw = uri_to_path(raw)
    p = Path(raw).expanduser()
    candidates = [p] if p.is_absolute() else [idx.folder / p for idx in indexes]
    outside = True
    looked: list[tuple[object, str]] = []  # (index, key) of each name tried, for the skip reason below
    for cand in candidates:
        for idx in indexes:
            # the file's real path must lie inside the folder (the path rule of every surface, walk.inside_folder);
            # it is then looked up under the path asked for (a symlink indexed under its own name) or its real one
            if inside_folder(idx.folder, cand) is None:
                continue
            outside = False
            if not idx.writer:
                idx.refresh()
            lexical = os.path.normpath(os.path.relpath(os.path.abspath(cand), os.path.abspath(idx.folder)))
            # as index keys: a name that is not valid UTF-8 is stored percent-encoded (uris.path_key)
            asked = [path_key(r) for r in (Path(lexical).as_posix(), inside_folder(idx.folder, cand)) if r]
            if "\ufffd" in raw:  # the readable form rag/query shows for such a name (uris.display_path)
                asked += [k for k in idx.manifest.files() if k.startswith(KEY_MARK) and display_path(k) in
                          (Path(lexical).as_posix(), Path(raw).as_posix())]
            looked += [(idx, rel) for rel in asked]
            for rel in dict.fromkeys(asked):
                if (not rel.startswith("../") and rel in idx.manifest.file_records([rel])
                        and idx.filter.included(rel)):
                    return idx, rel
    if outside:
        raise InvalidParams(f"refused: {path!r} is outside the indexed folders ("
                            + ", ".join(str(idx.folder) for idx in indexes) + ")")
    for idx, rel in looked:  # a file the index skipped (empty, too large, a symlink loop…): say why, as status does
        reason = dict(idx.manifest.skipped()).get(rel)
        if reason:
            raise InvalidParams(f"{path!r} is not indexed: {reason}")
    raise InvalidParams(f"{path!r} is not an indexed file (not present, or left out of the index: not a type "
                        "sources.include takes — documentation and text files by default, code is opt-in — or "
                        "ignored, excluded, secret or binary); index_status lists skipped files")


def read_indexed_text(idx, rel: str) -> str:
    """The current text of an indexed file, decoded (or converted: PDF, DOCX, HTML, configured loaders) as the
    indexer does it, so line numbers match the index, with secret values masked as in the index
    (`sources.redact.mask_secrets`, when `sources.exclude_secrets`): `read_back` with the folder's settings. Used by
    `read_passage` (MCP `read_passage`, `rag/readPassage`) and MCP `resources/read`. Raises RequestFailed when it
    can no longer be read."""
    s = idx.settings
    loaded = read_back(idx.folder, rel, s.sources.max_file_bytes, s.document_loaders,
                       timeout_s=s.sources.loader_timeout_s, mask=s.sources.exclude_secrets)
    if isinstance(loaded, Skipped):
        raise RequestFailed(f"{rel} cannot be read now: {loaded.reason}")
    return loaded.text


#: The most bytes an extractive answer reads back of an indexed file at answer time (`answer.neighbours`: the rest of
#: a code block its chunk cut; `answer.table_columns`: a table's header above its chunk). Bytes.
ANSWER_READ_BACK_MAX_BYTES = 1_000_000


def read_back(folder: Path | str, rel: str, max_file_bytes: int, loaders: dict[str, str] | None = None,
              timeout_s: float = 120, mask: bool = True) -> Document | Skipped:
    """The one read-back path of an indexed file after indexing: `folder / rel` (`rel` an index key,
    `uris.path_key`) read now as the indexer reads it (`convert.load_source`: `load.read_bytes` opens regular files
    only — a FIFO would block open(), a device never ends — and reads at most `max_file_bytes` bytes; converted
    and loader-read types as indexed), with secret values masked when `mask` (`redact.mask_secrets`, same length
    and lines). Its real path must lie inside `folder` (`walk.inside_folder`: no symlink or `..` escape; a folder is
    untrusted input) and, when `mask`, not be a secret file (`walk.secret_file`: `.env`, `*.pem`, ...). Returns the
    `Document`, or Skipped(rel, reason): "outside the folder", `walk.SECRET_FILE` or a reason of `load_source`.
    Never raises for file problems. Users: `read_indexed_text`, and a source's heading path
    (`index.titles.focus_title`, read at display time)."""
    real = inside_folder(Path(folder), Path(key_path(rel)))
    if real is None:
        return Skipped(rel, "outside the folder")
    if mask and secret_file(real):  # an indexed name now linking to `.env`: never read, as the indexer
        return Skipped(rel, SECRET_FILE)
    loaded = load_source(Path(folder), rel, max_file_bytes, loaders, timeout_s=timeout_s, confined=True)
    if isinstance(loaded, Skipped) or not mask:
        return loaded
    return dataclasses.replace(loaded, text=mask_secrets(loaded.text)[0])
