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
    out = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
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
