"""`documents` of a `rag/ask` request: extra text used for that request only, never written to the index.

Each spec is one of (an existing file's path first, whatever it looks like):
  - a file path or glob ("notes.md", "docs/**/*.md"), relative to the workspace folder (absolute paths work too);
  - an http(s) URL, fetched with httpx (`web.fetch_page`); HTML, PDF and DOCX are converted (`convert.py`);
  - `%%`: the last assistant message in `history` (the previous answer);
  - `` `cmd args` ``: the stdout of that command, run in the workspace folder from an argv list (`shlex.split`,
    never a shell, so nothing in it is expanded or interpolated), with a timeout;
  - `NAME:PATH` / `NAME:URL`: a `[document_loaders]` command (`loaders.py`), or a built-in converter (`pdf:`
    page by page with pypdf, pages separated by a form-feed line and cited with their page number; `docx:`,
    `html:`). Unknown loader names → InvalidParams "unsupported loader". Paths ending in .pdf/.docx/.html are
    converted without a prefix.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
from pathlib import Path

from ragls.core.errors import InvalidParams, RequestFailed, Skipped
from ragls.core.ir import Document
from ragls.sources.convert import load_source
from ragls.sources.glob_walk import GLOB_CHARS, GlobTooWide, bounded_glob, glob_folder
from ragls.sources.load import decode_bytes, load_text
from ragls.sources.walk import inside_folder, secret_file

MAX_FETCH_BYTES = 5_000_000
MAX_COMMAND_OUTPUT_BYTES = 5_000_000
_PREFIX = re.compile(r"^([a-z][a-z0-9_-]+):(?!//)(.+)$", re.IGNORECASE)
#: Most files one request's `documents` load (globs' matches together): each is read and embedded for that request
#: only. `/**` walked the whole file system (no answer within a minute; the walk went on after the client gave up).
MAX_DOCUMENT_FILES = 200
_TOO_MANY = f"more than {MAX_DOCUMENT_FILES} files; name fewer (a narrower glob)"


def fetch_url(url: str, timeout_s: float = 30, max_bytes: int = MAX_FETCH_BYTES,
              loaders: dict[str, str] | None = None) -> Document:
    """GET `url` (redirects followed; `web.fetch_page`) → Document labelled with the URL. HTML, PDF and DOCX are
    converted as files are (`convert.py`). Raises RequestFailed naming the URL on a network error, a non-2xx
    status, a binary or oversized body."""
    from ragls.sources.web import FetchError, fetch_page

    try:
        return fetch_page(url, timeout_s=timeout_s, max_bytes=max_bytes).document
    except FetchError as exc:
        raise RequestFailed(f"documents: {exc}") from None


def run_command(command: str, folder: Path, timeout_s: float = 30) -> Document:
    """Run `command` (split with shlex, no shell) in `folder`; its stdout → Document labelled "`command`".
    Raises InvalidParams for an empty or unparsable command or one that is not found, RequestFailed on a timeout
    or a non-zero exit (with the first line of stderr)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise InvalidParams(f"documents: cannot parse command `{command}`: {exc}") from None
    if not argv:
        raise InvalidParams("documents: empty command ``")
    try:
        proc = subprocess.run(argv, cwd=folder, capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL,
                              check=False)
    except FileNotFoundError:
        raise InvalidParams(f"documents: command not found: {argv[0]}") from None
    except PermissionError:
        raise InvalidParams(f"documents: command not executable: {argv[0]}") from None
    except subprocess.TimeoutExpired:
        raise RequestFailed(f"documents: command `{command}` did not finish within {timeout_s:g} s") from None
    if proc.returncode != 0:
        err = decode_bytes(proc.stderr).strip().splitlines()
        detail = f": {err[0][:200]}" if err else ""
        raise RequestFailed(f"documents: command `{command}` exited with status {proc.returncode}{detail}")
    if len(proc.stdout) > MAX_COMMAND_OUTPUT_BYTES:
        raise RequestFailed(f"documents: output of `{command}` is too large ({len(proc.stdout)} bytes)")
    return load_text(f"`{command}`", decode_bytes(proc.stdout))


def previous_answer(history: list[dict] | None) -> Document:
    """`%%`: the last assistant message of `history` → Document labelled "%%". InvalidParams when there is none."""
    for message in reversed(history or []):
        if message.get("role") == "assistant" and isinstance(message.get("content"), str):
            return load_text("%%", message["content"])
    raise InvalidParams("documents: %% stands for the previous answer, but history has no assistant message")


def _load_path(path: Path, folder: Path, max_file_bytes: int, loaders: dict[str, str] | None = None,
               loader: str | None = None) -> Document:
    """The file `path` (as the user wrote it, relative paths joined to `folder`) read as a Document, labelled by
    its path in `folder`, or by its absolute path when it lies outside. InvalidParams (or RequestFailed for a
    document loader's failure) when it cannot be used, and when it is written as a file of the folder but is a
    link out of it: a cloned folder's planted `pw.md -> /etc/passwd` named by the user is not its target (read
    when named itself). A file whose real path lies in `folder` is read confined to it (`load_source`'s
    `confined`): judged as it is opened, so a name swapped for a link out after this check is refused, not read."""
    rel = inside_folder(folder, path)
    if rel is None and _written_inside(str(path), folder):
        raise InvalidParams(f"documents: {path} is a link to a file outside {folder}; name that file itself to "
                            "read it")
    if rel is not None:
        result = load_source(folder, rel, max_file_bytes, loaders, loader, confined=True)
    else:  # outside the workspace folder: label it with its absolute path
        result = load_source(path.parent, path.name, max_file_bytes, loaders, loader)
        if isinstance(result, Document):
            result = dataclasses.replace(result, folder="", path=path.resolve().as_posix())
    if isinstance(result, Skipped):
        if result.reason.startswith("document loader"):
            raise RequestFailed(f"documents: cannot use {path}: {result.reason}")
        raise InvalidParams(f"documents: cannot use {path}: {result.reason}")
    return result


def _within_glob(path: Path, pattern: str, folder: Path) -> bool:
    """Whether glob match `path` is one to read: its real path inside `folder` when `pattern` lies in it, else
    inside the pattern's literal base folder ("/notes/**/*.md": /notes), and no secret file."""
    written = Path(os.path.normpath(pattern))
    base = folder
    if folder not in written.parents:  # as written, not resolved: "docs/vendor/*.md" is in the folder
        base = glob_folder(pattern)
    real = inside_folder(base, path)
    return real is not None and not secret_file(real) and not secret_file(path.name)


def load_files(spec: str, folder: Path, max_file_bytes: int = 2_000_000, loaders: dict[str, str] | None = None,
               loader: str | None = None) -> list[Document]:
    """A path or glob (`**` recursive) relative to `folder` → Documents, sorted by path. A glob names no file, so
    its matches are what the folder holds (a folder is untrusted input, docs/security.md): a match whose real path
    lies outside the folder (a planted link `notes.md -> ~/.aws/credentials`, a linked folder) or that is a secret
    file (`walk.secret_file`: `*.pem`, `.env*`, ...) is left out; a glob outside the folder is read within its own
    literal base folder. InvalidParams when nothing matches (or only such files), for a directory, or for a
    binary/too large file, for a glob matching more than MAX_DOCUMENT_FILES files, for a glob whose walk would list
    more than `glob_walk.MAX_GLOB_ENTRIES` entries (`glob_walk.bounded_glob`: the walk stops there, before any file
    is read), and for a path named in the folder that is a link out of it (its target is read when named itself)."""
    pattern = spec if Path(spec).is_absolute() else str(folder / spec)
    if GLOB_CHARS.search(spec):
        try:
            found = sorted(Path(match) for match in bounded_glob([pattern]) if os.path.isfile(match))
        except GlobTooWide as exc:
            raise InvalidParams(f"documents: {spec!r} {exc}") from None
        if len(found) > MAX_DOCUMENT_FILES:
            raise InvalidParams(f"documents: {spec!r} matches {_TOO_MANY}")
        if not found:
            raise InvalidParams(f"documents: no file matches {spec!r} in {folder}")
        paths = [p for p in found if _within_glob(p, pattern, folder)]
        if not paths:
            raise InvalidParams(f"documents: the files {spec!r} matches in {folder} are links outside the folder or "
                                "secret files; name a file to read it")
        return [_load_path(p, folder, max_file_bytes, loaders, loader) for p in paths]
    path = Path(pattern)
    if path.is_dir():
        raise InvalidParams(f"documents: {spec!r} is a directory; use a glob such as '{spec.rstrip('/')}/**/*.md'")
    if not path.is_file():
        raise InvalidParams(f"documents: file not found: {spec!r} (paths are relative to {folder})")
    return [_load_path(path, folder, max_file_bytes, loaders, loader)]


def _written_inside(pattern: str, folder: Path) -> bool:
    """Whether the path `pattern` lies in `folder` as written (normalised, no link resolved): "docs/a.md" and
    "<folder>/docs/a.md" do, "/etc/hosts" and "../other/x.md" do not."""
    return Path(folder) in Path(os.path.normpath(pattern)).parents


def load_documents(
    specs: list[str],
    folder: Path,
    history: list[dict] | None = None,
    timeout_s: float = 30,
    max_file_bytes: int = 2_000_000,
    loaders: dict[str, str] | None = None,
) -> list[Document]:
    """Load the `documents` of a `rag/ask` request (see the module docstring), in the order given; a file matched
    twice is loaded once. An entry that names an existing file (relative to `folder`, or absolute) is that file's
    text, before it is read as `%%`, a `` `command` ``, a URL or a `NAME:` loader: an editor sends "Ask About
    Selection"'s file by its path relative to the folder, and a cloned folder's file named "`touch pwned`" or
    "pdf:x" is data, never a command to run (a folder is untrusted input, docs/security.md). `timeout_s` bounds
    each URL fetch and each command; `max_file_bytes` comes from
    `sources.max_file_bytes`. Raises InvalidParams (bad spec, missing file, %% without history, unknown command,
    unsupported loader, more than MAX_DOCUMENT_FILES files) or RequestFailed (fetch failed, command failed or timed
    out), naming the spec. An entry given twice is read once."""
    folder = Path(folder)
    docs: list[Document] = []
    seen: set[tuple[str, str]] = set()
    given: set[str] = set()
    for raw in specs:
        spec = raw.strip() if isinstance(raw, str) else ""
        if not spec:
            raise InvalidParams("documents: empty entry")
        if spec in given:
            continue
        given.add(spec)
        if (folder / spec).is_file():  # a file's own name, whatever it looks like
            found = [_load_path(folder / spec, folder, max_file_bytes, loaders)]
        elif spec == "%%":
            found = [previous_answer(history)]
        elif len(spec) >= 2 and spec.startswith("`") and spec.endswith("`"):
            found = [run_command(spec[1:-1].strip(), folder, timeout_s)]
        elif spec.lower().startswith(("http://", "https://")):
            found = [fetch_url(spec, timeout_s, loaders=loaders)]
        elif m := _PREFIX.match(spec):  # an existing file of that name was read above
            found = _load_with_prefix(m.group(1), m.group(2), folder, max_file_bytes, loaders or {}, timeout_s)
        else:
            found = load_files(spec, folder, max_file_bytes, loaders)
        for doc in found:
            key = (doc.folder, doc.path)
            if key not in seen:
                seen.add(key)
                docs.append(doc)
        if len(docs) > MAX_DOCUMENT_FILES:
            raise InvalidParams(f"documents: {_TOO_MANY}")
    return docs


def _load_with_prefix(name: str, target: str, folder: Path, max_file_bytes: int, loaders: dict[str, str],
                      timeout_s: float) -> list[Document]:
    """`name:target`: a configured `[document_loaders]` loader, or a built-in converter (pdf, docx, html), on a
    file, glob or URL. Raises InvalidParams for an unknown loader or a missing file, RequestFailed when the loader
    fails (naming its tool)."""
    from ragls.sources.loaders import LoaderError, load_source_with

    builtin = ("pdf", "docx", "html")
    if name not in loaders and name not in builtin:
        known = ", ".join(sorted({*loaders, *builtin}))
        raise InvalidParams(f"documents: unsupported loader {name!r} in {name}:{target!r} (known loaders: {known}; "
                            "configure more in [document_loaders])")
    if target.lower().startswith(("http://", "https://")):
        if name not in loaders:
            return [fetch_url(target, timeout_s, max_file_bytes)]
        try:
            return [load_source_with(name, loaders[name], target, max_file_bytes, timeout_s)]
        except LoaderError as exc:
            raise RequestFailed(f"documents: {exc}") from None
    return load_files(target, folder, max_file_bytes, loaders, name)


def documents_only_prompt(docs: list[Document]) -> str:
    """The prompt for a request that has documents but no question: the documents' text, in order, separated by
    a blank line. InvalidParams when they are all empty."""
    texts = [d.text.strip("\n") for d in docs if d.text.strip()]
    if not texts:
        raise InvalidParams("question is empty and the documents have no text")
    return "\n\n".join(texts)
