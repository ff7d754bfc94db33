"""`documents` of a `rag/ask` request: extra text used for that request only, never written to the index.

Each spec is one of:
  - a file path or glob ("notes.md", "docs/**/*.md"), relative to the workspace folder (absolute paths work too);
  - an http(s) URL, fetched with httpx; HTML is reduced to its text (script/style dropped, block tags → lines);
  - `%%`: the last assistant message in `history` (the previous answer);
  - `` `cmd args` ``: the stdout of that command, run in the workspace folder from an argv list (`shlex.split`,
    never a shell, so nothing in it is expanded or interpolated), with a timeout;
  - `pdf:PATH` (path relative to the folder, or absolute): the PDF's text, extracted page by page with pypdf,
    pages separated by a form feed line so a chunk's lines map to the extracted text. Other loader prefixes →
    InvalidParams "unsupported loader".
"""

from __future__ import annotations

import dataclasses
import glob
import re
import shlex
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import httpx

from ragls.errors import InvalidParams, RequestFailed, Skipped
from ragls.ir import Document
from ragls.sources.load import decode_bytes, is_binary, load_file, load_text

MAX_FETCH_BYTES = 5_000_000
MAX_COMMAND_OUTPUT_BYTES = 5_000_000
_PREFIX = re.compile(r"^([a-z][a-z0-9_-]+):(?!//)(.+)$", re.IGNORECASE)
_GLOB_CHARS = re.compile(r"[*?\[]")
_BLOCK_TAGS = frozenset({"p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header",
                         "footer", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "hr", "dt", "dd"})


class _HTMLText(HTMLParser):
    """Collects the visible text of an HTML page; script/style/noscript/template contents are skipped."""

    SKIP = frozenset({"script", "style", "noscript", "template", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self.SKIP:
            self._skip += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self.SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """Visible text of an HTML document: one line per block element, runs of spaces collapsed, blank lines
    squeezed to one; the <title> (if any) becomes a first "# title" line."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    title = " ".join(parser.title.split())
    return f"# {title}\n\n{text}" if title else text


def fetch_url(url: str, timeout_s: float = 30) -> Document:
    """GET `url` (redirects followed) → Document labelled with the URL. HTML is converted with `html_to_text`.
    Raises RequestFailed naming the URL on a network error, a non-2xx status, a binary or oversized body."""
    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=True) as client:
            resp = client.get(url, headers={"user-agent": "ragls"})
    except httpx.TimeoutException:
        raise RequestFailed(f"documents: fetching {url} timed out after {timeout_s:g} s") from None
    except httpx.HTTPError as exc:
        raise RequestFailed(f"documents: cannot fetch {url}: {exc}") from None
    if not resp.is_success:
        raise RequestFailed(f"documents: fetching {url} failed with HTTP {resp.status_code}")
    data = resp.content
    if len(data) > MAX_FETCH_BYTES:
        raise RequestFailed(f"documents: {url} is too large ({len(data)} bytes > {MAX_FETCH_BYTES})")
    ctype = resp.headers.get("content-type", "").lower()
    if is_binary(data):
        raise RequestFailed(f"documents: {url} is not text ({ctype or 'binary content'})")
    text = resp.text if resp.charset_encoding else decode_bytes(data)
    if "html" in ctype or (not ctype and text.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))):
        text = html_to_text(text)
    return load_text(url, text)


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


def _load_path(path: Path, folder: Path, max_file_bytes: int) -> Document:
    try:
        rel = path.resolve().relative_to(folder.resolve()).as_posix()
        result = load_file(folder, rel, max_file_bytes)
    except ValueError:  # outside the workspace folder: label it with its absolute path
        result = load_file(path.parent, path.name, max_file_bytes)
        if isinstance(result, Document):
            result = dataclasses.replace(result, folder="", path=path.resolve().as_posix())
    if isinstance(result, Skipped):
        raise InvalidParams(f"documents: cannot use {path}: {result.reason}")
    return result


def load_files(spec: str, folder: Path, max_file_bytes: int = 2_000_000) -> list[Document]:
    """A path or glob (`**` recursive) relative to `folder` → Documents, sorted by path. InvalidParams when nothing
    matches, for a directory, or for a binary/too large file."""
    pattern = spec if Path(spec).is_absolute() else str(folder / spec)
    if _GLOB_CHARS.search(spec):
        paths = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
        if not paths:
            raise InvalidParams(f"documents: no file matches {spec!r} in {folder}")
        return [_load_path(p, folder, max_file_bytes) for p in paths]
    path = Path(pattern)
    if path.is_dir():
        raise InvalidParams(f"documents: {spec!r} is a directory; use a glob such as '{spec.rstrip('/')}/**/*.md'")
    if not path.is_file():
        raise InvalidParams(f"documents: file not found: {spec!r} (paths are relative to {folder})")
    return [_load_path(path, folder, max_file_bytes)]


def load_documents(
    specs: list[str],
    folder: Path,
    history: list[dict] | None = None,
    timeout_s: float = 30,
    max_file_bytes: int = 2_000_000,
) -> list[Document]:
    """Load the `documents` of a `rag/ask` request (see the module docstring), in the order given; a file matched
    twice is loaded once. `timeout_s` bounds each URL fetch and each command; `max_file_bytes` comes from
    `sources.max_file_bytes`. Raises InvalidParams (bad spec, missing file, %% without history, unknown command,
    unsupported loader) or RequestFailed (fetch failed, command failed or timed out), naming the spec."""
    folder = Path(folder)
    docs: list[Document] = []
    seen: set[tuple[str, str]] = set()
    for raw in specs:
        spec = raw.strip() if isinstance(raw, str) else ""
        if not spec:
            raise InvalidParams("documents: empty entry")
        if spec == "%%":
            found = [previous_answer(history)]
        elif len(spec) >= 2 and spec.startswith("`") and spec.endswith("`"):
            found = [run_command(spec[1:-1].strip(), folder, timeout_s)]
        elif spec.lower().startswith(("http://", "https://")):
            found = [fetch_url(spec, timeout_s)]
        elif spec.lower().startswith("pdf:"):
            found = [load_pdf(spec[4:], folder)]
        elif (m := _PREFIX.match(spec)) and not Path(spec).exists():
            raise InvalidParams(f"documents: unsupported loader {m.group(1)!r} in {spec!r} "
                                "(supported: files, globs, http(s) URLs, %%, `command`, pdf:PATH)")
        else:
            found = load_files(spec, folder, max_file_bytes)
        for doc in found:
            key = (doc.folder, doc.path)
            if key not in seen:
                seen.add(key)
                docs.append(doc)
    return docs


def load_pdf(spec: str, folder: Path) -> Document:
    """`pdf:PATH` → a Document of the PDF's extracted text (pypdf), labelled with the path as given.
    InvalidParams when the file is missing or is not a readable PDF."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    path = Path(spec) if Path(spec).is_absolute() else folder / spec
    if not path.is_file():
        raise InvalidParams(f"documents: PDF not found: {spec!r} (paths are relative to {folder})")
    try:
        pages = [page.extract_text() or "" for page in PdfReader(path).pages]
    except (PdfReadError, OSError, ValueError) as exc:
        raise InvalidParams(f"documents: cannot read {spec!r} as a PDF: {exc}") from None
    return load_text(f"pdf:{spec}", "\n\f\n".join(pages))


def documents_only_prompt(docs: list[Document]) -> str:
    """The prompt for a request that has documents but no question: the documents' text, in order, separated by
    a blank line. InvalidParams when they are all empty."""
    texts = [d.text.strip("\n") for d in docs if d.text.strip()]
    if not texts:
        raise InvalidParams("question is empty and the documents have no text")
    return "\n\n".join(texts)
