"""Document loaders: `[document_loaders]` maps a name to a command that turns a document into text, as aichat
writes them:

    [document_loaders]
    pdf = "pdftotext $1 -"              # $1: the input file (or URL)
    docx = "pandoc --to plain $1"
    epub = "ebook-convert $1 $2"        # $2: an output file ragls creates and reads back (else stdout is read)

A loader named after an extension handles the files of that extension (workspace, named RAGs, `documents`);
any loader can be picked explicitly with a `name:` prefix on a RAG source or a `documents` entry.

The command is split into an argv list with `shlex` first, and `$1` / `$2` are then replaced inside the argv
items, so a file name is always one argument and is never seen by a shell: `;`, spaces, `$(…)` and backticks in
a path cannot run anything. A workspace file reaches the command as a private copy of the bytes ragls read and
checked (`load.read_bytes`: a regular file, inside the folder as opened, within `sources.max_file_bytes`), under
the file's own name, never as the folder's path: a name swapped for a link out of the folder after the check is not
what the command reads. The command runs with a timeout and its output is capped; a missing tool, a non-zero
exit, a timeout or an oversized output is a `Skipped` entry naming the loader and the tool.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from ragls.core.errors import Skipped
from ragls.core.hashing import content_hash
from ragls.core.ir import Document
from ragls.core.uris import key_path
from ragls.sources.load import decode_bytes, read_bytes

DEFAULT_TIMEOUT_S = 120.0


class LoaderError(Exception):
    """A loader could not produce text; the message names the loader and the tool."""


def loader_argv(command: str, source: str, output: str | None = None) -> list[str]:
    """The argv of a loader `command` for `source`: shlex-split, then `$1` → `source` and `$2` → `output` inside
    each item (so `--in=$1` works too). Raises LoaderError for an empty or unparsable command."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise LoaderError(f"cannot parse the command {command!r}: {exc}") from None
    if not argv:
        raise LoaderError("empty command")
    return [a.replace("$1", source).replace("$2", output or "") for a in argv]


def run_loader(name: str, command: str, source: str, *, data: bytes | None = None, cwd: Path | None = None,
               timeout_s: float = DEFAULT_TIMEOUT_S, max_output_bytes: int = 2_000_000) -> str:
    """Run loader `name` (`command`, see `loader_argv`) on `source` (a URL, or with `data` a file's name) without a
    shell; return its text (the `$2` file when the command names one, else stdout; decoded as in
    `load.decode_bytes`).

    `data`: the file's bytes as ragls read and checked them; they are written to a private temporary file named
    like `source` (its extension tells tools such as pandoc the format) and `$1` is that file, so the command never
    opens the name `source` itself.

    Output goes to a temporary file, so memory stays bounded; more than `max_output_bytes` is an error. Raises
    LoaderError naming the loader and its tool for: a missing or non-executable tool, a non-zero exit (with the
    first line of stderr), a timeout after `timeout_s` seconds, an oversized or binary output."""
    uses_output = "$2" in command
    with tempfile.TemporaryDirectory(prefix="ragls-loader-") as tmp:
        out_path = os.path.join(tmp, "output.txt") if uses_output else None
        if data is not None:
            os.mkdir(os.path.join(tmp, "input"))
            source = os.path.join(tmp, "input", os.path.basename(source) or "input")
            with open(source, "wb") as fh:
                fh.write(data)
        argv = loader_argv(command, source, out_path)
        tool = argv[0]
        label = f"document loader {name!r} ({tool})"
        stdout_path = os.path.join(tmp, "stdout")
        with open(stdout_path, "wb") as out, open(os.path.join(tmp, "stderr"), "wb+") as err:
            try:
                proc = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                      timeout=timeout_s, check=False)
            except FileNotFoundError:
                raise LoaderError(f"{label}: command not found: {tool}") from None
            except PermissionError:
                raise LoaderError(f"{label}: command not executable: {tool}") from None
            except subprocess.TimeoutExpired:
                raise LoaderError(f"{label}: no result within {timeout_s:g} s") from None
            if proc.returncode != 0:
                err.seek(0)
                lines = decode_bytes(err.read(4096)).strip().splitlines()
                detail = f": {lines[0][:200]}" if lines else ""
                raise LoaderError(f"{label} exited with status {proc.returncode}{detail}")
        result_path = out_path if uses_output else stdout_path
        try:
            size = os.path.getsize(result_path)
        except OSError:
            raise LoaderError(f"{label}: wrote no output file ($2)") from None
        if size > max_output_bytes:
            raise LoaderError(f"{label}: output too large ({size} bytes > {max_output_bytes})")
        with open(result_path, "rb") as fh:
            data = fh.read()
    if b"\0" in data[:8192]:
        raise LoaderError(f"{label}: output is binary, not text")
    return decode_bytes(data)


def load_with(name: str, command: str, folder: Path, rel_path: str, max_file_bytes: int,
              timeout_s: float = DEFAULT_TIMEOUT_S, confined: bool = False) -> Document | Skipped:
    """A file (`folder / rel_path`, within `max_file_bytes`) through loader `name` → Document (kind "text"),
    or Skipped with the reason (`load.read_bytes`'s, or the loader's error). The command reads the bytes
    `read_bytes` checked (`run_loader`'s `data`); with `confined`, a file that lies outside `folder` as it is
    opened is skipped with `OUTSIDE_LINK`, as `load.load_file` skips it. `content_hash` covers the input bytes and
    the command, so changing either re-indexes the file."""
    raw = read_bytes(Path(folder) / key_path(rel_path), rel_path, max_file_bytes, folder if confined else None)
    if isinstance(raw, Skipped):
        return raw
    data, mtime_ns = raw
    try:
        text = run_loader(name, command, key_path(rel_path), data=data, cwd=Path(folder), timeout_s=timeout_s,
                          max_output_bytes=max_file_bytes)
    except LoaderError as exc:
        return Skipped(rel_path, str(exc))
    if not text.strip():
        return Skipped(rel_path, f"document loader {name!r} produced no text")
    digest = content_hash(data + b"\0" + command.encode("utf-8"))
    return Document(folder=str(folder), path=rel_path, text=text, content_hash=digest, kind="text", size=len(data),
                    mtime_ns=mtime_ns)


def load_source_with(name: str, command: str, source: str, max_bytes: int,
                     timeout_s: float = DEFAULT_TIMEOUT_S) -> Document:
    """A URL (or other non-file source) through loader `name` → Document labelled with the source. Raises
    LoaderError."""
    text = run_loader(name, command, source, timeout_s=timeout_s, max_output_bytes=max_bytes)
    data = text.encode("utf-8", "surrogatepass")
    return Document(folder="", path=source, text=text, content_hash=content_hash(data + command.encode()),
                    kind="text", size=len(data))
