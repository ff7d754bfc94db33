"""PDF, HTML and DOCX files in a workspace: converted (pypdf, trafilatura, python-docx), indexed by default,
chunk titles from headings, PDF citations with their page. Real stores and the offline MiniLM model."""

from __future__ import annotations

import pytest
from docgen import write_docx, write_pdf
from ragls.answer.agent_tools import hit_record
from ragls.answer.template import human_lines, quote_passage, source_label
from ragls.cli.common import _line
from ragls.core.errors import Skipped
from ragls.lsp.wire import to_wire_source
from ragls.workspace.rag_workspace import RagWorkspace

HTML = """<!doctype html><html><head><title>Proxy guide</title><script>var tracking = "zzscript";</script>
</head><body><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<main><h1 id="proxy">Proxy guide</h1><p>The proxy forwards every request to the upstream pool.</p>
<h2 id="timeouts">Timeouts <a class="headerlink" href="#timeouts">¶</a></h2>
<p>The idle timeout of the proxy is ninety seconds; slow clients are disconnected after that.</p></main>
<footer>Copyright the proxy people</footer></body></html>"""


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "ws"
    folder.mkdir()
    write_pdf(folder / "manual.pdf", [
        ["Flux capacitor manual", "Chapter one explains how to unpack the device."],
        ["Maintenance", "Calibrate the flux capacitor every month.", "The torque limit of the bolts is 42 Nm."],
        ["Warranty", "The warranty lasts two years from the date of purchase."],
    ])
    (folder / "proxy.html").write_text(HTML)
    write_docx(folder / "notes.docx", [("h1", "Meeting notes"), ("p", "We agreed to ship the beta in March."),
                                       ("h2", "Budget"), ("p", "The budget for the pilot is twelve thousand euros.")])
    (folder / "big.pdf").write_bytes(b"%PDF-1.4\n" + b"0" * 70000)
    (folder / "ragls.toml").write_text("[sources]\ninclude = ['**/*.{md,pdf,html,docx}']\nmax_file_bytes = 60000\n"
                                       "[chunking]\nchunk_size = 100\n")
    ws = RagWorkspace([folder])
    yield ws
    ws.close()


def test_pdf_html_docx_are_converted_and_cited(workspace):
    [report] = workspace.index()
    assert sorted(report.indexed) == ["manual.pdf", "notes.docx", "proxy.html"]
    assert [(s.path, s.reason) for s in report.skipped] == [("big.pdf", "too large (70009 bytes > max_file_bytes 60000)")]

    hit = workspace.query("what is the torque limit of the bolts", top_k=1).hits[0]
    assert hit.chunk.path == "manual.pdf" and "42 Nm" in hit.chunk.text
    src = to_wire_source(hit.chunk)
    assert src["page"] == 2 and src["uri"].endswith("/manual.pdf")
    warranty = workspace.query("how long is the warranty", top_k=1).hits[0]
    assert to_wire_source(warranty.chunk)["page"] == 3

    proxy = workspace.query("idle timeout of the proxy", top_k=1).hits[0]
    assert proxy.chunk.path == "proxy.html"
    assert proxy.chunk.title == "Proxy guide > Timeouts"  # heading path from the HTML, permalink glyph dropped
    assert proxy.chunk.anchor == "timeouts"
    assert "#" not in to_wire_source(proxy.chunk)["uri"]  # a local file opens at its range, not a fragment
    # the lines of a converted document count the extracted text, not the HTML the user opens: every citation says so
    first, last = human_lines(proxy.chunk.span)
    assert source_label(proxy) == f"proxy.html:{first}-{last} (extracted text)"
    assert to_wire_source(proxy.chunk)["extractedText"] is True and hit_record(proxy)["extracted_text"] is True
    lines = f"{first}-{last}" if last > first else f"{first}"  # the CLI prints one line as "path:7"
    assert _line(to_wire_source(proxy.chunk)) == f"proxy.html:{lines} (extracted text)"
    assert _line(to_wire_source(hit.chunk)).endswith(" (page 2, extracted text)")
    assert quote_passage("x", "proxy.html", (1, 2), n=1).startswith("[1] proxy.html:1-2 (extracted text)\n")
    (workspace.folders[0] / "plain.md").write_text("# Plain\n\nThe plain page names the walrus.\n")
    workspace.index()
    md = workspace.query("plain page walrus", top_k=1).hits[0]
    assert md.chunk.path == "plain.md" and "extractedText" not in to_wire_source(md.chunk)
    assert "extracted" not in source_label(md) and "extracted_text" not in hit_record(md)
    all_text = " ".join(c.text for batch in workspace.indexes[0].manifest.iter_chunks() for c in batch)
    assert "zzscript" not in all_text and "Copyright" not in all_text and "Blog" not in all_text

    budget = workspace.query("pilot budget in euros", top_k=1).hits[0]
    assert budget.chunk.path == "notes.docx" and budget.chunk.title == "Meeting notes > Budget"


def test_default_include_covers_pdf_and_html(tmp_path, monkeypatch):
    from ragls.config.settings import Settings
    from ragls.sources.walk import walk

    for name in ("a.pdf", "b.html", "c.htm", "d.md", "e.docx", "f.py"):
        (tmp_path / name).write_text("x")
    assert walk(tmp_path, Settings().sources) == ["a.pdf", "b.html", "c.htm", "d.md"]


def test_permalink_glyphs_outside_headings_are_dropped():
    """texinfo (GNU manuals in /usr/share/doc) puts a `copiable-link` ¶ after every function signature, Sphinx a
    `headerlink` ¶ after headings and captions: extractive answers quoted them. Real trafilatura + lxml."""
    from ragls.sources.convert import html_to_markdown

    page = ('<html><head><title>Calls</title></head><body><h1>Calling<a class="headerlink" href="#calling">¶</a></h1>'
            '<dl><dt id="f"><span>Function: <strong>int</strong> <code>ffi_call</code> (void *fn)'
            '<a class="copiable-link" href="#f"> ¶</a></span></dt>'
            '<dd><p>Calls the function <code>fn</code> with the prepared arguments; see '
            '<a href="#prep">preparing a call</a>.</p></dd></dl></body></html>')
    text, _ = html_to_markdown(page)
    assert "¶" not in text
    assert "ffi_call" in text and "see preparing a call." in text  # other in-page links keep their text
    assert text.startswith("# Calling")


def test_a_docx_that_unzips_to_more_than_its_bound_is_skipped_unread(tmp_path):
    """A zip bomb named .docx (red team, session 47): 195 kB that unzip to 200 MB of XML took python-docx 420 MB of
    memory, so a 2 MB one (the default max_file_bytes) would take ~4 GB and a 20 MB one (the most an untrusted
    ragls.toml may set) the machine. Its declared sizes are read first (zipfile enforces them when it inflates)."""
    import zipfile

    from ragls.sources.convert import MAX_DOCX_UNZIPPED_BYTES, load_source

    write_docx(tmp_path / "fine.docx", [("h1", "Notes"), ("p", "A normal document.")])
    with zipfile.ZipFile(tmp_path / "fine.docx") as src, zipfile.ZipFile(tmp_path / "bomb.docx", "w",
                                                                          zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            if item.filename != "word/document.xml":
                out.writestr(item, src.read(item))
                continue
            xml = src.read(item)
            cut = xml.index(b"A normal document.")
            with out.open("word/document.xml", "w", force_zip64=True) as part:
                part.write(xml[:cut])
                pad = b" " * 1_000_000
                for _ in range(MAX_DOCX_UNZIPPED_BYTES // len(pad) + 1):
                    part.write(pad)
                part.write(xml[cut:])
    assert (tmp_path / "bomb.docx").stat().st_size < 2_000_000
    bomb = load_source(tmp_path, "bomb.docx", 2_000_000)
    assert isinstance(bomb, Skipped) and "unzips to" in bomb.reason
    fine = load_source(tmp_path, "fine.docx", 2_000_000)
    assert not isinstance(fine, Skipped) and "A normal document." in fine.text


def test_a_pdf_whose_text_takes_longer_than_the_loader_timeout_is_skipped(tmp_path):
    """A PDF is the folder's input: 60 pages sharing one compressed content stream of 150,000 operators (a few
    kilobytes; red team, session 48: 20 pages of a 15 kB file took pypdf 36 s each, so a thousand would stall
    indexing for hours) is read within `sources.loader_timeout_s` or skipped with the reason; a normal PDF is read."""
    from docgen import stalling_pdf_bytes
    from ragls.sources.convert import load_source

    (tmp_path / "stall.pdf").write_bytes(stalling_pdf_bytes(60, 150_000))
    assert (tmp_path / "stall.pdf").stat().st_size < 50_000
    stalled = load_source(tmp_path, "stall.pdf", 2_000_000, timeout_s=2)
    assert isinstance(stalled, Skipped), stalled
    assert stalled.reason.startswith("not read: reading its text took more than 2 s (sources.loader_timeout_s; page ")
    write_pdf(tmp_path / "manual.pdf", [["Torque settings"], ["Tighten the bolts to 42 Nm."]])
    manual = load_source(tmp_path, "manual.pdf", 2_000_000, timeout_s=2)
    assert not isinstance(manual, Skipped) and "42 Nm" in manual.text
