"""Documents built by tests: a multi-page PDF written by hand (no PDF library needed) and a .docx (python-docx)."""

from __future__ import annotations

from pathlib import Path


def pdf_bytes(pages: list[list[str]]) -> bytes:
    """A PDF with one page per entry of `pages`, each line of text set in Helvetica: objects, then an xref table
    with byte offsets. pypdf extracts the lines back, one per line."""
    n_pages = len(pages)
    page_ids = [3 + 2 * i for i in range(n_pages)]
    font_id = 3 + 2 * n_pages
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {n_pages} >>"]
    for i, lines in enumerate(pages):
        text = " ".join(f"({line}) '" for line in lines)
        content = f"BT /F1 12 Tf 72 720 Td 14 TL {text} ET"
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {page_ids[i] + 1} 0 R "
                       f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>")
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return _pdf_file([body.encode("latin-1") for body in objects])


def _pdf_file(objects: list[bytes]) -> bytes:
    """A PDF file of `objects` (object 1 the catalog): the objects, then an xref table with byte offsets."""
    out = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


def write_pdf(path: Path, pages: list[list[str]]) -> Path:
    path.write_bytes(pdf_bytes(pages))
    return path


def write_docx(path: Path, blocks: list[tuple[str, str]]) -> Path:
    """A .docx of (style, text) blocks, style "h1".."h3" for headings or "p" for a paragraph (python-docx)."""
    import docx

    document = docx.Document()
    for style, text in blocks:
        if style.startswith("h"):
            document.add_heading(text, level=int(style[1:]))
        else:
            document.add_paragraph(text)
    document.save(str(path))
    return path


def stalling_pdf_bytes(n_pages: int, operators: int) -> bytes:
    """A small PDF whose `n_pages` pages all draw one shared, compressed content stream of about `operators`
    text operators: a few kilobytes that pypdf parses once per page."""
    import zlib

    content = zlib.compress(b"BT /F1 12 Tf 10 10 Td (a) Tj ET\n" * (operators // 5), 9)
    page_ids = [5 + i for i in range(n_pages)]
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % p for p in page_ids), n_pages),
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(content), content),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    page = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
            b"/Resources << /Font << /F1 4 0 R >> >> >>")
    return _pdf_file(objects + [page] * n_pages)
