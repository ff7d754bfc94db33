"""Documentation formats that are not plain text → `Document`s of clean text, for the workspace, named RAGs, web
pages and the ephemeral `documents` of `rag/ask` alike.

- HTML (`.html`, `.htm`, `.xhtml`, web pages): trafilatura extracts the main content (navigation, scripts and
  footers dropped) as Markdown, so headings become `#` lines and give chunk titles; each heading that carries an
  id in the page (on itself, an `<a id|name>` inside it, or its enclosing `<section>`) marks the text below it
  with that id, which citations turn into `URL#fragment`. The page `<title>` heads the text when the content has
  no heading of its own.
- PDF (pypdf): the text of each page, pages separated by a form-feed line; each page start marks its 1-based
  page number (`Source.page`).
- DOCX (python-docx): paragraphs in order, "Heading N" styles as Markdown headings, table rows as `a | b` lines.

Line ranges of converted documents refer to the extracted text, not to the bytes on disk: every citation of one
says so (`extracted_text`).
A document loader configured for the extension (`[document_loaders]`, `sources/loaders.py`) replaces the
built-in converter.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import re
import time
from pathlib import Path, PurePosixPath

from ragls.core.errors import Skipped
from ragls.core.hashing import content_hash
from ragls.core.ir import Document, normalize_line_ends
from ragls.core.uris import key_path
from ragls.sources.html_depth import shallow
from ragls.sources.load import decode_bytes, is_binary, load_file, read_bytes

HTML_EXTENSIONS = frozenset({"html", "htm", "xhtml"})
CONVERTED_EXTENSIONS = HTML_EXTENSIONS | {"pdf", "docx"}
PAGE_SEPARATOR = "\n\f\n"
# A .docx is a zip: its declared unzipped size (zipfile enforces it when it inflates) is bounded before python-docx
# reads it, so a zip bomb named .docx (2 MB unzipping to 2 GB of XML) cannot claim the machine's memory.
MAX_DOCX_UNZIPPED_BYTES = 100_000_000

_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*$", re.MULTILINE)
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Permalink glyphs that documentation generators append to headings (Sphinx ¶, mdBook/Docusaurus #, §). A match starts
# only after a character that is neither (the leftmost match anyway): tried from every space of a long run of them, a
# heading of 20,000 spaces took 22 s under load, quadratic.
_PERMALINK = re.compile(r"(?<![\s#¶§🔗])(?:\s*[#¶§🔗])+$")


EXTRACTED = "extracted text"  # what a converted document's line numbers count: said beside them (`extracted_text`)


def extracted_text(path: str) -> bool:
    """True when the line numbers of the document at `path` (an index key, a display path or a URL) count lines of
    the text ragls extracted from it — an HTML, PDF or DOCX file (`CONVERTED_EXTENSIONS`) or a web page — not lines
    of the file the user opens: every citation of it says "(extracted text)" beside them (`rag/query`'s
    `extractedText`, the CLI's and the answers' labels, MCP's `extracted_text`). A file a `[document_loaders]`
    command converts is not known here (its settings are not), and is cited as its own."""
    return path.startswith(("http://", "https://")) or extension(path) in CONVERTED_EXTENSIONS


def extension(path: str) -> str:
    """Lower-case extension of a path or URL path, without the dot ("" when none)."""
    name = PurePosixPath(path.split("?", 1)[0].split("#", 1)[0]).name.lower()
    return name.rpartition(".")[2] if "." in name else ""


def _norm_heading(text: str) -> str:
    return " ".join(_PERMALINK.sub("", text).split()).lower()


def _heading_ids(html: str) -> dict[str, str]:
    """{normalised heading text: id} for the headings of `html` that carry an id (first occurrence wins)."""
    import lxml.html

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return {}
    ids: dict[str, str] = {}
    for el in root.iter(*_HEADING_TAGS):
        anchor = el.get("id")
        if not anchor:
            inner = next((a for a in el.iter("a") if a.get("id") or a.get("name")), None)
            if inner is not None:
                anchor = inner.get("id") or inner.get("name")
        if not anchor:
            parent = el.getparent()
            if parent is not None and parent.tag in ("section", "div", "article") and parent.get("id"):
                first = next((c for c in parent if isinstance(c.tag, str)), None)
                if first is el:
                    anchor = parent.get("id")
        key = _norm_heading(el.text_content())
        if anchor and key and key not in ids:
            ids[key] = anchor
    return ids


@functools.lru_cache(maxsize=1)
def _trafilatura_config():
    """trafilatura's defaults, except that a short page is not "too short" (MIN_EXTRACTED_SIZE 250 → 1): below it
    trafilatura falls back to a baseline extraction that drops the headings."""
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "1")
    return config


def _with_main(html: str) -> str:
    """`html` with the body's content wrapped in `<main>` when the page marks no main content (`<main>`,
    `<article>`, `role="main"`): without one, trafilatura's fallback extraction loses the headings. In-page links
    whose whole text is a permalink glyph (¶ # § 🔗) are dropped."""
    import lxml.html

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return html
    # In-page permalinks whose text is only a glyph (Sphinx `headerlink` ¶, texinfo `copiable-link` ¶ after every
    # function signature, mdBook #): not text, and outside headings `_PERMALINK` never saw them.
    glyphs = [a for a in root.xpath("//a[starts-with(@href, '#')]") if len(a) == 0
              and (a.text or "").strip() and not _PERMALINK.sub("", (a.text or "").strip())]
    for a in glyphs:
        a.drop_tree()
    wrapped = _bare_text_paragraphs(root)
    if root.xpath("//main|//article|//*[@role='main']"):
        return lxml.html.tostring(root, encoding="unicode") if glyphs or wrapped else html
    body = root.find("body")
    if body is None:
        return lxml.html.tostring(root, encoding="unicode") if glyphs or wrapped else html
    main = lxml.html.Element("main")
    main.text, body.text = body.text, None
    for child in list(body):
        main.append(child)
    body.append(main)
    _bare_text_paragraphs(main, deep=False)  # the body's own bare text, now main's
    return lxml.html.tostring(root, encoding="unicode")


# Layout containers whose own text (not in a <p>) trafilatura drops when paragraphs are near: `<p>Above.</p><div>A
# sentence.</div><p>Below.</p>` gave "Above. Below." (Node.js's "Stability: 3 - Legacy. Use X instead." lost its
# first words; a DocBook page its sentences around an inline <code>).
_TEXT_CONTAINERS = ("div", "section", "article", "main", "center")
# Elements that end a run of inline content (the text between two of them is one paragraph).
_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li",
    "main", "menu", "nav", "noscript", "ol", "p", "pre", "script", "section", "style", "summary", "table", "tbody",
    "td", "template", "th", "thead", "tr", "ul"})
_WORD = re.compile(r"\w")


def _bare_text_paragraphs(root, deep: bool = True) -> bool:
    """Wrap each run of inline content of a layout container (`_TEXT_CONTAINERS`: its text, or a block child's tail,
    with the inline elements that follow up to the next block child) in a `<p>` when the run's own text (not only
    its inline elements': a bare `<a>Home</a> | <a>Next</a>` menu stays as it is) holds a word. The container keeps
    its attributes, so trafilatura's boilerplate rules (by class and id) still see it. `deep`: every container in
    `root`, else `root` alone. Whether any run was wrapped."""
    import lxml.html

    wrapped = False
    for container in list(root.iter(*_TEXT_CONTAINERS)) if deep else [root]:
        runs: list[tuple[object, list]] = [(None, [])]  # (the block child whose tail starts the run, inline children)
        for child in container:
            if isinstance(child.tag, str) and child.tag.lower() in _BLOCK_TAGS:
                runs.append((child, []))
            else:
                runs[-1][1].append(child)
        for owner, inline in runs:
            lead = (container.text if owner is None else owner.tail) or ""
            if not _WORD.search(lead + "".join(child.tail or "" for child in inline)):
                continue
            paragraph = lxml.html.Element("p")
            paragraph.text = lead
            if owner is None:
                container.text = None
                container.insert(0, paragraph)
            else:
                owner.tail = None
                owner.addnext(paragraph)  # (not insert at index(owner) + 1: two walks of the children per run)
            for child in inline:
                paragraph.append(child)  # with its tail
            wrapped = True
    return wrapped


def html_to_markdown(html: str) -> tuple[str, tuple[tuple[int, int | None, str], ...]]:
    """Main content of an HTML page as Markdown (trafilatura; headings kept, permalink glyphs dropped) and the
    marks of its headings that have an id in the page: ((offset in the text, None, id), ...). ("", ()) when the
    page has no extractable text."""
    import trafilatura

    html = shallow(html)  # lxml stops at 256 nested elements: the rest of a deeper page was lost
    text = trafilatura.extract(_with_main(html), output_format="markdown", include_formatting=True,
                               include_links=False, include_images=False, include_comments=False,
                               include_tables=True, favor_recall=True, deduplicate=False,
                               config=_trafilatura_config()) or ""
    text = _HEADING_LINE.sub(lambda m: f"{m.group(1)} {_PERMALINK.sub('', m.group(2))}", text).strip()
    if not text.startswith("# "):  # the page's title heads a text without one (metadata: half the page's time)
        meta = trafilatura.extract_metadata(html)
        title = " ".join((meta.title or "").split()) if meta is not None else ""
        if title:
            text = f"# {title}\n\n{text}" if text else f"# {title}"
    ids = _heading_ids(html)
    marks = []
    for m in _HEADING_LINE.finditer(text):
        anchor = ids.get(_norm_heading(m.group(2)))
        if anchor:
            marks.append((m.start(), None, anchor))
    return text, tuple(marks)


class _TooSlow(Exception):
    """Raised from the text extraction's operator callback when the PDF's time is up (`pdf_pages`)."""


def pdf_pages(data: bytes, timeout_s: float | None = None) -> list[str]:
    """The text of each page of a PDF (pypdf). Raises ValueError for an unreadable or encrypted PDF, or when
    reading its text takes more than `timeout_s` seconds (`sources.loader_timeout_s`; None: no bound): a PDF is the
    folder's input, and a few kilobytes can make pypdf parse for hours — pages sharing one content stream that
    inflates to a million operators, a form drawn thousands of times per page (measured: 20 pages of one 15 KB
    file, 36 s each). The time is checked before each page and at each operator, so it overruns by at most one
    stream's parse (pypdf bounds that: `stream_parsing_work_maximum_count`)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError, PyPdfError

    deadline = None if timeout_s is None else time.monotonic() + timeout_s

    def on_operator(*_args) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise _TooSlow

    pages: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ValueError("encrypted PDF")
        total = len(reader.pages)
        for page in reader.pages:
            on_operator()
            pages.append(page.extract_text(visitor_operand_before=on_operator) or "")
    except _TooSlow:
        raise ValueError(f"not read: reading its text took more than {timeout_s:g} s (sources.loader_timeout_s; "
                         f"page {len(pages) + 1} of {total}): raise it, then `ragls rebuild`") from None
    except (PdfReadError, PyPdfError, OSError, KeyError, TypeError) as exc:
        raise ValueError(f"not a readable PDF: {exc}") from None
    return pages


def pdf_text(data: bytes, timeout_s: float | None = None) -> tuple[str, tuple[tuple[int, int | None, str], ...]]:
    """A PDF's text, pages joined by a form-feed line, and one mark per page start ((offset, page, None));
    `timeout_s` as in `pdf_pages`."""
    parts, marks, offset = [], [], 0
    for n, page in enumerate(pdf_pages(data, timeout_s), 1):
        if n > 1:
            parts.append(PAGE_SEPARATOR)
            offset += len(PAGE_SEPARATOR)
        marks.append((offset, n, None))
        parts.append(page)
        offset += len(page)
    return "".join(parts), tuple(marks)


def docx_text(data: bytes) -> str:
    """A Word document's text as Markdown: "Heading N" paragraphs as `#` headings, tables as `a | b` rows.
    Raises ValueError when the bytes are not a readable .docx, or unzip to more than MAX_DOCX_UNZIPPED_BYTES."""
    import zipfile

    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:  # python-docx holds every part in memory, and its XML tree takes about twice that
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unzipped = sum(item.file_size for item in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ValueError(f"not a readable .docx: {exc}") from None
    if unzipped > MAX_DOCX_UNZIPPED_BYTES:
        raise ValueError(f"not read: it unzips to {unzipped} bytes, more than {MAX_DOCX_UNZIPPED_BYTES} "
                         "(a zip bomb, or no document to index)")
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - python-docx raises zipfile/KeyError/ValueError/PackageNotFoundError variants
        raise ValueError(f"not a readable .docx: {exc}") from None
    lines: list[str] = []
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            text = block.text.strip()
            style = (block.style.name if block.style is not None else "") or ""
            m = re.match(r"(?i)heading (\d)", style)
            if text and (m or style.lower() == "title"):
                level = min(int(m.group(1)), 6) if m else 1
                lines += ["", "#" * level + " " + text, ""]
            else:
                lines.append(text)
        elif isinstance(block, Table):
            for row in block.rows:
                lines.append(" | ".join(cell.text.strip() for cell in row.cells))
            lines.append("")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


#: The version of each built-in converter's text, bumped when it gives other text for the same bytes. A converted
#: document's `content_hash` carries it after a "~" (`converted_hash`; version 1 adds nothing, as every index made
#: before versions records it), so an index that holds the text of an older version reads the file again at the next
#: full scan though its size and mtime are the same (`conversion_outdated`); `ragls rebuild` is not needed.
#: html 2: bare text beside paragraphs kept, metadata read only for a title (session 67).
CONVERTER_VERSIONS = {"html": 2, "pdf": 1, "docx": 1}


def converter(ext: str) -> str | None:
    """The built-in converter of extension `ext` ("html" for html, htm and xhtml; "pdf", "docx"), else None."""
    return "html" if ext in HTML_EXTENSIONS else ext if ext in CONVERTER_VERSIONS else None


def chosen_loader(ext: str, loaders: dict[str, str], loader: str | None = None) -> str | None:
    """The loader that reads a file of extension `ext`: `loader` (a `name:` source prefix), else the extension
    when `loaders` (`[document_loaders]`) configures a program for it; None: its extension decides (a built-in
    converter, or text). `load_source` reads the file so, `conversion_outdated` judges its record so."""
    return loader or (ext if ext in loaders else None)


def converted_hash(data: bytes, name: str) -> str:
    """The `content_hash` of bytes converted by the built-in converter `name` ("html", "pdf", "docx"): the bytes'
    sha256 hex, then "~" and the converter's version when above 1 (`CONVERTER_VERSIONS`)."""
    version = CONVERTER_VERSIONS[name]
    return content_hash(data) + (f"~{version}" if version > 1 else "")


def conversion_outdated(rel_path: str, recorded_hash: str, loaders: dict[str, str] | None = None,
                        loader: str | None = None) -> bool:
    """Whether the index's `recorded_hash` of the file `rel_path` (read by `loader`, a `name:` source prefix, or by
    its extension) is of an older version of its built-in converter's text than `CONVERTER_VERSIONS` (no "~":
    version 1), so the file must be converted again though unchanged. False for a file no built-in converter reads
    (plain text, a `[document_loaders]` program)."""
    ext = extension(rel_path)
    chosen = chosen_loader(ext, loaders or {}, loader)
    name = None if chosen in (loaders or {}) else converter(chosen or ext)
    if name is None:
        return False
    _, tilde, version = recorded_hash.partition("~")
    return (int(version) if tilde and version.isdigit() else 1) != CONVERTER_VERSIONS[name]


def convert_bytes(label: str, data: bytes, ext: str, *, content_type: str = "",
                  timeout_s: float | None = None) -> Document:
    """Bytes of a PDF, DOCX or HTML document (by `ext`, or an HTML `content_type`) → a `Document` labelled
    `label` (folder "", `content_hash` of the bytes and the converter's version: `converted_hash`). Raises
    ValueError when the bytes cannot be converted, or a PDF's text takes more than `timeout_s` seconds to read
    (`pdf_pages`)."""
    marks: tuple = ()
    if ext == "pdf":
        text, marks = pdf_text(data, timeout_s)
        kind = "text"
    elif ext == "docx":
        text, kind = docx_text(data), "markdown"
    elif ext in HTML_EXTENSIONS or "html" in content_type:
        if is_binary(data):
            raise ValueError("binary content in an HTML document")
        text, marks = html_to_markdown(decode_bytes(data))
        kind = "markdown"
    else:
        raise ValueError(f"no converter for .{ext}")
    text = normalize_line_ends(text)  # a lone CR in a PDF's or a paragraph's text: same length, so `marks` hold
    name = converter(ext) or "html"  # (else an HTML `content_type`)
    return Document(folder="", path=label, text=text, content_hash=converted_hash(data, name), kind=kind,
                    size=len(data), mtime_ns=0, marks=marks)


# Bump when a built-in converter or `index.chunking.no_text_reason` decides differently: every skipped file is read
# again on the next scan (`read_stamp`). 2: HTML's bare text in layout containers (session 67) gives text to pages
# that had none.
SKIP_VERSION = 2
# Skip reasons that can change while a file's size and mtime do not (its permissions, a race): never stamped.
UNSTAMPED = ("unreadable", "vanished", "not a regular file")


def read_stamp(path: Path, rel_path: str, max_file_bytes: int, loaders: dict[str, str] | None = None) -> str | None:
    """What `load_source` decides a skip on when ragls reads the file itself: "size:mtime_ns:max_file_bytes:
    SKIP_VERSION". The indexer records it with a skip reason (not one starting with `UNSTAMPED`) and does not read
    a file with the same stamp again on the next full scan: a folder of scanned PDFs or script-only HTML pages is not
    converted on every start. None when a configured `[document_loaders]` program reads the file (the program may
    change, the file not) or it cannot be stat'ed."""
    if extension(rel_path) in (loaders or {}):
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}:{max_file_bytes}:{SKIP_VERSION}"


def load_source(folder: Path, rel_path: str, max_file_bytes: int, loaders: dict[str, str] | None = None,
                loader: str | None = None, timeout_s: float = 120, confined: bool = False) -> Document | Skipped:
    """`load.load_file` for every documentation type: `folder / rel_path` → `Document` or `Skipped` (never
    raises for file problems). A loader named `loader` (a `name:` prefix) or configured for the extension in
    `loaders` (`[document_loaders]`) runs first; then the built-in converters (PDF, DOCX, HTML; a PDF within
    `timeout_s` too); anything else is read as text. Sizes are checked against `max_file_bytes` (`sources.max_file_bytes`) before converting.
    `confined`: the file read must lie inside `folder` as it is opened (`load.read_bytes`: a name swapped for a link
    out of the folder after the walk listed it is skipped with `OUTSIDE_LINK`). Every converter, built in or
    configured, converts the bytes `read_bytes` checked, never the name again (`loaders.load_with`)."""
    ext = extension(rel_path)
    loaders = loaders or {}
    name = chosen_loader(ext, loaders, loader)
    if name is not None and name in loaders:
        from ragls.sources.loaders import load_with

        return load_with(name, loaders[name], folder, rel_path, max_file_bytes, timeout_s, confined)
    if name is not None and name not in ("pdf", "docx", "html"):
        return Skipped(rel_path, f"unknown document loader {name!r} (configure it in [document_loaders])")
    if ext not in CONVERTED_EXTENSIONS and name is None:
        return load_file(folder, rel_path, max_file_bytes, confined)
    raw = read_bytes(Path(folder) / key_path(rel_path), rel_path, max_file_bytes, folder if confined else None)
    if isinstance(raw, Skipped):
        return raw
    data, mtime_ns = raw
    try:
        doc = convert_bytes(rel_path, data, name or ext, timeout_s=timeout_s)
    except ValueError as exc:
        return Skipped(rel_path, str(exc))
    except Exception as exc:  # noqa: BLE001 - a converter bug on one odd file must not stop the rest
        return Skipped(rel_path, f"cannot convert: {type(exc).__name__}: {exc}")
    if not doc.text.strip():
        kind = "scanned PDF?" if (name or ext) == "pdf" else "no text"
        return Skipped(rel_path, f"no extractable text ({kind})")
    return dataclasses.replace(doc, folder=str(folder), mtime_ns=mtime_ns)
