"""ragls.sources.ephemeral: `documents` of rag/ask — files, globs, %%, `command`, URLs (loopback server)."""

from __future__ import annotations

import shlex
import socket
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest
from llm_server import held_port
from ragls.core.errors import InvalidParams, RequestFailed
from ragls.sources.convert import html_to_markdown
from ragls.sources.ephemeral import documents_only_prompt, load_documents
from sitekit import serving

PAGE = b"""<!doctype html><html><head><title>Retry  guide</title><style>body { color: red }</style>
<script>var secret = "do not index";</script></head>
<body><h1>Retries</h1><p>The client retries <b>three</b> times &amp; then gives up.</p>
<ul><li>first</li><li>second</li></ul><noscript>enable js</noscript></body></html>"""


class _Pages(BaseHTTPRequestHandler):
    inside_hits = 0  # requests that reached /inside.html, a service of this machine
    paths: ClassVar[list[str]] = []  # every request's path


    def log_message(self, *args):
        pass

    def do_GET(self):
        _Pages.paths.append(self.path)
        if self.path.startswith("http://"):  # a proxy's request (absolute form): serve the path
            url = urlsplit(self.path)
            if url.path in ("/moved-by-name", "/moved-by-rebinding"):  # a public site moving the fetch to a name
                name = "inward.example.test" if url.path == "/moved-by-name" else "rebind.example.test"
                self.send_response(302)
                self.send_header("location", f"http://{name}:{self.server.server_address[1]}/inside.html")
                self.send_header("content-length", "0")
                self.end_headers()
                return
            self.path = url.path
        if self.path.startswith("/moved"):  # a page that moves the fetch to the cloud's metadata service
            self.send_response(302)
            self.send_header("location", "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
                             if self.path == "/moved" else "/page.html")
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if self.path == "/inside.html":  # a service of this machine: count the requests that reach it
            _Pages.inside_hits += 1
        routes = {"/page.html": ("text/html; charset=utf-8", PAGE), "/inside.html": ("text/html", PAGE), "/notes.txt": ("text/plain", b"plain notes\n"),
                  "/blob": ("application/octet-stream", b"\x00\x01\x02")}
        if self.path not in routes:
            self.send_error(404)
            return
        ctype, body = routes[self.path]
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def pages():
    with serving(_Pages) as url:
        yield url


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("# A\n\nalpha text\n")
    (tmp_path / "docs" / "sub" / "b.md").write_text("bravo text\n")
    (tmp_path / "docs" / "c.txt").write_text("charlie\n")
    (tmp_path / "bin.dat").write_bytes(b"\x00binary")
    return tmp_path


def test_file_and_glob(folder):
    docs = load_documents(["docs/c.txt", "docs/**/*.md", "docs/a.md"], folder)
    assert [(d.path, d.text, d.kind) for d in docs] == [
        ("docs/c.txt", "charlie\n", "text"), ("docs/a.md", "# A\n\nalpha text\n", "markdown"),
        ("docs/sub/b.md", "bravo text\n", "markdown")]  # a.md matched twice, loaded once
    assert all(d.folder == str(folder) for d in docs)


def test_absolute_path_outside_folder(folder, tmp_path_factory):
    other = tmp_path_factory.mktemp("other") / "x.md"
    other.write_text("outside\n")
    [doc] = load_documents([str(other)], folder)
    assert (doc.folder, doc.path, doc.text) == ("", other.resolve().as_posix(), "outside\n")


def test_a_glob_follows_no_link_out_of_the_folder_and_reads_no_secret_file(folder, tmp_path_factory):
    """A cloned folder's planted links (`docs/notes.md -> ~/.aws/...`, `docs/vendor -> ~/.ssh`) and secret files
    are no match of a glob the user sends (red team, session 47: `docs/**/*.md` read the linked file outside)."""
    outside = tmp_path_factory.mktemp("home")
    (outside / "creds.md").write_text("outside secret\n")
    (folder / "docs" / "notes.md").symlink_to(outside / "creds.md")
    (folder / "docs" / "vendor").symlink_to(outside, target_is_directory=True)
    (folder / "docs" / "deploy.pem").write_text("-----BEGIN CERTIFICATE-----\nMIIB\n")
    docs = load_documents(["docs/**/*.md", "docs/*"], folder)
    assert sorted(d.path for d in docs) == ["docs/a.md", "docs/c.txt", "docs/sub/b.md"]
    with pytest.raises(InvalidParams, match="outside the folder or secret"):
        load_documents(["docs/vendor/*.md"], folder)
    other = tmp_path_factory.mktemp("other")  # a glob the user writes outside the folder is read as written
    (other / "x.md").write_text("outside\n")
    assert [d.text for d in load_documents([str(other / "*.md")], folder)] == ["outside\n"]


def test_a_named_file_of_the_folder_that_links_out_of_it_is_refused(folder, tmp_path_factory):
    """A planted link named as a file of the folder (`pw.md -> ~/secret.md`) does not read its target into the
    prompt; the target named itself is read (break61b, session 61: the link was read)."""
    outside = tmp_path_factory.mktemp("home") / "secret.md"
    outside.write_text("outside secret\n")
    (folder / "pw.md").symlink_to(outside)
    for spec in ("pw.md", str(folder / "pw.md")):
        with pytest.raises(InvalidParams, match="is a link to a file outside"):
            load_documents([spec], folder)
    (folder / "docs" / "same.md").symlink_to(folder / "docs" / "a.md")  # a link within the folder is read
    assert [d.path for d in load_documents(["docs/same.md"], folder)] == ["docs/a.md"]
    assert [d.text for d in load_documents([str(outside)], folder)] == ["outside secret\n"]


def test_a_file_of_the_folder_swapped_for_a_link_out_after_the_check_is_not_read(folder, tmp_path_factory,
                                                                                   monkeypatch):
    """The file named is judged as it is opened (`load.read_bytes` with the folder), not only by its name looked up
    before: a local process swapping `notes.md` for a link to a secret between ragls's check and its read (here
    right after the check, as such a process would) got the secret into the prompt (break64's lead)."""
    from ragls.sources import ephemeral

    outside = tmp_path_factory.mktemp("home") / "id_rsa"
    outside.write_text("xylophonequark private key\n")
    (folder / "notes.md").write_text("# Notes\n\nplain notes\n")
    checked = ephemeral.inside_folder

    def check_then_swap(base, path):
        found = checked(base, path)
        if Path(path).name == "notes.md" and not Path(path).is_symlink():
            link = folder / "swap.tmp"
            link.symlink_to(outside)
            link.replace(folder / "notes.md")  # atomic, as `mv` does
        return found

    monkeypatch.setattr(ephemeral, "inside_folder", check_then_swap)
    with pytest.raises(InvalidParams, match="outside") as exc:
        load_documents(["notes.md"], folder)
    assert "xylophonequark" not in str(exc.value)


@pytest.mark.parametrize(("spec", "needle"), [
    ("missing.md", "file not found"), ("docs/**/*.rst", "no file matches"), ("docs", "is a directory"),
    ("bin.dat", "binary"), ("epub:manual.epub", "unsupported loader"), ("", "empty"),
])
def test_bad_specs_are_invalid_params(folder, spec, needle):
    with pytest.raises(InvalidParams, match=needle):
        load_documents([spec], folder)


def test_previous_answer(folder):
    history = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "first answer"},
               {"role": "user", "content": "q2"}, {"role": "assistant", "content": "second answer [1]"}]
    [doc] = load_documents(["%%"], folder, history)
    assert (doc.path, doc.text) == ("%%", "second answer [1]")
    with pytest.raises(InvalidParams, match="no assistant message"):
        load_documents(["%%"], folder, [{"role": "user", "content": "q"}])


def py(code: str) -> str:
    return f"`{shlex.quote(sys.executable)} -c {shlex.quote(code)}`"


def test_command_output_runs_in_folder_without_shell(folder):
    [doc] = load_documents([py("import os; print(os.getcwd())")], folder)
    assert Path(doc.text.strip()).resolve() == folder.resolve()
    assert doc.path.startswith("`") and doc.path.endswith("`")
    [echo] = load_documents(["`echo $HOME; ls *.md`"], folder)
    assert echo.text == "$HOME; ls *.md\n"  # no shell: nothing expanded or run


def test_a_file_named_like_a_command_is_a_file_not_a_command(folder):
    """A cloned folder is untrusted: a file whose name looks like a command, `%%` or a loader prefix (an editor's
    "Ask About Selection" sends the selection's file by its relative path) is read as that file; nothing runs."""
    marker = folder / "pwned"
    for name in ("`touch pwned`", "%%", "pdf:notes"):  # a command runs in the folder: it would make folder/pwned
        (folder / name).write_text(f"the text of the file named {name}\n")
        [doc] = load_documents([name], folder)
        assert (doc.path, doc.text) == (name, f"the text of the file named {name}\n")
    assert not marker.exists()
    [ran] = load_documents(["`touch pwned `"], folder)  # no file has this name: the command runs
    assert marker.exists() and ran.path.startswith("`")


def test_command_failures(folder):
    with pytest.raises(InvalidParams, match="command not found: no-such-cmd-xyz"):
        load_documents(["`no-such-cmd-xyz --flag`"], folder)
    with pytest.raises(RequestFailed, match="exited with status 3: boom"):
        load_documents([py("import sys; sys.stderr.write('boom\\n'); sys.exit(3)")], folder)
    with pytest.raises(RequestFailed, match="did not finish within 0.5 s"):
        load_documents([py("import time; time.sleep(5)")], folder, timeout_s=0.5)
    with pytest.raises(InvalidParams, match="cannot parse"):
        load_documents(["`echo 'unterminated`"], folder)


def test_url_html_is_reduced_to_text(folder, pages):
    [doc] = load_documents([pages + "/page.html"], folder)
    assert doc.path == pages + "/page.html"
    # trafilatura's Markdown: the heading kept (a chunk title), inline emphasis and list items as Markdown
    assert doc.text == "# Retries\n\nThe client retries **three** times & then gives up.\n\n- first\n- second"
    assert "secret" not in doc.text and "color" not in doc.text and "enable js" not in doc.text
    [txt] = load_documents([pages + "/notes.txt"], folder)
    assert txt.text == "plain notes\n"


def test_a_redirect_to_a_link_local_address_is_refused_before_it_is_followed(folder, pages):
    """A fetched site is untrusted input: its redirect to 169.254.169.254 (the cloud's instance metadata, with the
    machine's credentials) is refused before any connection to it (red team, session 47: httpx followed it, and a
    single URL source indexed what it returned); a redirect within the site is followed as before."""
    with pytest.raises(RequestFailed, match="redirected to 169.254.169.254, a link-local address"):
        load_documents([pages + "/moved"], folder, timeout_s=5)
    [doc] = load_documents([pages + "/moved-here"], folder)
    assert "three" in doc.text


def _answers(monkeypatch, answers: dict[str, list[str]]) -> dict[str, int]:
    """socket.getaddrinfo answering each name of `answers` with its next address in turn (the last one from then
    on; other names as before); returns how often each was asked."""
    real, asked = socket.getaddrinfo, dict.fromkeys(answers, 0)

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in answers:
            return real(host, port, *args, **kwargs)
        asked[host] += 1
        address = answers[host][min(asked[host], len(answers[host])) - 1]
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port or 0))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def test_a_redirect_to_a_name_of_this_machine_is_refused(folder, pages, monkeypatch):
    """Names are resolved before a redirect is followed: a public site's redirect to a host name that resolves to
    a loopback or private address (an attacker's DNS name answering 127.0.0.1 or 10.0.0.7) is refused like the
    address itself (red team, session 48: only literal addresses and `localhost` were). The public site is reached
    through a proxy (the loopback server), as a `.test` name never resolves."""
    monkeypatch.setenv("HTTP_PROXY", pages)
    monkeypatch.setenv("NO_PROXY", "inward.example.test")
    [doc] = load_documents(["http://docs.example.test/page.html"], folder, timeout_s=5)  # the proxy serves it
    assert "three" in doc.text
    for address, kind in (("127.0.0.1", "loopback"), ("10.0.0.7", "private")):
        asked = _answers(monkeypatch, {"inward.example.test": [address]})
        with pytest.raises(RequestFailed, match=f"redirected to inward.example.test, a {kind} address"):
            load_documents(["http://docs.example.test/moved-by-name"], folder, timeout_s=5)
        assert asked == {"inward.example.test": 1}
    assert _Pages.inside_hits == 0


def test_a_name_answering_another_address_to_the_connection_is_not_reached(folder, pages, monkeypatch):
    """DNS rebinding against the redirect check: a name answering a public address to the check and 127.0.0.1
    (or 169.254.169.254) a moment later is connected only at the address checked (`web.Resolver`; red team,
    session 49: httpx resolved the name again to connect, and the loopback service answered the page)."""
    monkeypatch.setenv("HTTP_PROXY", pages)
    monkeypatch.setenv("NO_PROXY", "rebind.example.test")  # the redirect's target is connected directly
    # a public address (example.com's; no documentation range: those count as private), then this machine's
    asked = _answers(monkeypatch, {"rebind.example.test": ["93.184.215.14", "127.0.0.1"]})
    with pytest.raises(RequestFailed, match="timed out|cannot fetch"):  # nothing listens there for the test
        load_documents(["http://docs.example.test/moved-by-rebinding"], folder, timeout_s=1)
    assert asked == {"rebind.example.test": 1}
    assert _Pages.inside_hits == 0


def test_url_failures(folder, pages):
    with pytest.raises(RequestFailed, match="HTTP 404"):
        load_documents([pages + "/nope"], folder)
    with pytest.raises(RequestFailed, match="not a document"):
        load_documents([pages + "/blob"], folder)
    with held_port() as port, pytest.raises(RequestFailed, match=f"cannot fetch http://127.0.0.1:{port}/x"):
        load_documents([f"http://127.0.0.1:{port}/x"], folder, timeout_s=2)  # refused: bound, not listening


def test_a_document_url_holding_a_credential_is_not_fetched_nor_quoted(folder, pages, caplog):
    """A rag/ask document URL is the document's label (prompt, sources, errors): `http://deploy:TOKEN@…/page.html`
    and `…/page.html?token=…` were fetched (the password sent as Basic auth) and labelled with the credential. Now,
    as a RAG source or a crawled link (`web.fetch_page`'s one check), nothing is requested and the error masks it."""
    token = "a8F3kQ9zLm2Xw7Rt"
    host = pages.removeprefix("http://")
    _Pages.paths = []
    caplog.set_level("DEBUG")
    for url, masked in ((f"http://deploy:{token}@{host}/page.html", f"http://deploy:{'*' * 16}@{host}/page.html"),
                        (f"{pages}/page.html?token={token}", f"{pages}/page.html?token={'*' * 16}")):
        with pytest.raises(RequestFailed) as info:
            load_documents([url], folder, timeout_s=5)
        assert str(info.value).startswith(f"documents: {masked}: a URL holding a credential is not fetched")
    assert _Pages.paths == [] and token not in caplog.text
    assert "three" in load_documents([pages + "/page.html"], folder, timeout_s=5)[0].text


def test_html_to_markdown_keeps_headings_and_ids():
    html = ("<html><head><title>Guide</title><script>var leak = 1</script></head><body><nav>Home | Blog</nav>"
            "<main><h1 id='top'>Guide</h1><p>An introduction that is long enough to count as content.</p>"
            "<h2 id='install'>Install <a class='headerlink' href='#install'>¶</a></h2>"
            "<p>Run the installer once and restart the editor afterwards.</p></main></body></html>")
    text, marks = html_to_markdown(html)
    assert text.splitlines()[0] == "# Guide" and "## Install" in text.splitlines()
    assert "leak" not in text and "¶" not in text
    assert [(text[at:].split("\n")[0], anchor) for at, _, anchor in marks] == [("# Guide", "top"),
                                                                                  ("## Install", "install")]


def test_html_to_markdown_reads_the_page_metadata_only_for_a_text_without_a_title(monkeypatch):
    """trafilatura's metadata (title, author, date, categories: about half of a Node.js API page's 3.4 s) is read
    only for the page's title, which heads a text that has no "# " title of its own."""
    import trafilatura

    calls = []
    real = trafilatura.extract_metadata
    monkeypatch.setattr(trafilatura, "extract_metadata", lambda *a, **k: calls.append(1) or real(*a, **k))
    body = "<p>An introduction that is long enough to count as content, with a second clause.</p>"
    titled = f"<html><head><title>Guide | Site</title></head><body><main><h1>Guide</h1>{body}</main></body></html>"
    assert html_to_markdown(titled)[0].splitlines()[0] == "# Guide" and calls == []
    untitled = f"<html><head><title>Release notes</title></head><body><main>{body}</main></body></html>"
    assert html_to_markdown(untitled)[0].splitlines()[0] == "# Release notes" and calls == [1]


def test_documents_only_prompt(folder):
    docs = load_documents(["docs/c.txt", "docs/sub/b.md"], folder)
    assert documents_only_prompt(docs) == "charlie\n\nbravo text"
    (folder / "empty.md").write_text("\n\n")
    with pytest.raises(InvalidParams, match="no text"):
        documents_only_prompt(load_documents(["empty.md"], folder))


def _write_pdf(path, lines):
    """A minimal one-page PDF (Helvetica text), built by hand: objects, then an xref table with byte offsets."""
    content = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
         "/Resources << /Font << /F1 5 0 R >> >> >>"),
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(out)


def test_pdf_loader_extracts_text(tmp_path):
    _write_pdf(tmp_path / "manual.pdf", ["Calibrate the flux capacitor monthly.", "Torque limit is 42 Nm."])
    [doc] = load_documents(["pdf:manual.pdf"], tmp_path)
    assert doc.path == "manual.pdf"  # the file itself: its URI opens the PDF
    assert "Calibrate the flux capacitor monthly." in doc.text and "Torque limit is 42 Nm." in doc.text


def test_pdf_loader_errors_name_the_file(tmp_path):
    (tmp_path / "fake.pdf").write_text("not a pdf")
    with pytest.raises(InvalidParams, match="fake.pdf"):
        load_documents(["pdf:fake.pdf"], tmp_path)
    with pytest.raises(InvalidParams, match="file not found"):
        load_documents(["pdf:missing.pdf"], tmp_path)


def test_documents_matching_more_files_than_the_limit_are_refused_naming_the_glob(folder):
    """`/**` walked the whole file system (rag/ask: no answer within a minute, the walk going on after the client
    gave up) and a glob over a large tree read and embedded every file for one request. More than
    MAX_DOCUMENT_FILES files is InvalidParams naming the glob, before any is read (the walk itself is bounded by
    `glob_walk.MAX_GLOB_ENTRIES`); an entry given many times is read once."""
    from ragls.sources.ephemeral import MAX_DOCUMENT_FILES

    for i in range(MAX_DOCUMENT_FILES - 1):  # and b.md
        (folder / "docs" / "sub" / f"n{i:03}.md").write_text(f"# Note {i}\n")
    assert len(load_documents(["docs/sub/*.md"], folder)) == MAX_DOCUMENT_FILES
    with pytest.raises(InvalidParams, match=r"documents: 'docs/\*\*/\*.md' matches more than 200 files; name fewer"):
        load_documents(["docs/**/*.md"], folder)  # a.md too
    with pytest.raises(InvalidParams, match=r"documents: more than 200 files; name fewer"):
        load_documents(["docs/sub/*.md", "docs/a.md"], folder)
    with pytest.raises(InvalidParams, match=r"documents: '/\*\*' (matches more than 200 files|searches too many)"):
        load_documents(["/**"], folder)
    [doc] = load_documents(["docs/a.md"] * 20_000, folder)
    assert doc.text == "# A\n\nalpha text\n"


def test_a_recursive_glob_matching_nothing_in_a_large_tree_is_refused_before_walking_it(tmp_path, monkeypatch):
    """"/**/*.nomatch" walked the whole file system before answering "no file matches" (the 201-file stop never
    comes when nothing matches), and a planted link loop (`a -> .`) makes a `**` walk endless. A `**` glob whose
    walk would visit more than MAX_GLOB_ENTRIES entries is refused, naming the glob, and so is a glob without `**`
    whose wildcards list as many ("big/*/*/…/*.nomatch"); a glob in a folder within the bound reads what it read
    before."""
    from ragls.sources import glob_walk

    monkeypatch.setattr(glob_walk, "MAX_GLOB_ENTRIES", 50)
    deep = tmp_path / "big"
    for i in range(12):
        level = deep / "/".join(f"d{j}" for j in range(i + 1))
        level.mkdir(parents=True)
        for k in range(4):
            (level / f"f{k}.txt").write_text("x")
    (tmp_path / "big" / "d0" / "note.md").write_text("# Deep note\n")
    with pytest.raises(InvalidParams, match=r"documents: '/\S*big/\*\*/\*\.nomatch' searches too many folders "
                                            r"\(more than 50 entries\); name a narrower folder"):
        load_documents([f"{deep}/**/*.nomatch"], tmp_path)
    with pytest.raises(InvalidParams, match=r"'big/\*\*/zzz' searches too many folders"):
        load_documents(["big/**/zzz"], tmp_path)
    for i in range(30):  # no `**`: a wildcard part lists each folder it reaches (30 + 30 entries here)
        (tmp_path / "wide" / f"w{i}").mkdir(parents=True)
        (tmp_path / "wide" / f"w{i}" / "x.txt").write_text("x")
    with pytest.raises(InvalidParams, match=r"'wide/\*/\*\.nomatch' searches too many folders"):
        load_documents(["wide/*/*.nomatch"], tmp_path)
    [doc] = load_documents(["big/d0/*.md"], tmp_path)  # 5 entries listed
    assert doc.path == "big/d0/note.md"
    (tmp_path / "small" / "sub").mkdir(parents=True)
    (tmp_path / "small" / "sub" / "a.md").write_text("# A\n")
    (tmp_path / "small" / "sub" / ".hidden").mkdir()
    for k in range(60):  # hidden folders are not entered by `**`, nor counted
        (tmp_path / "small" / "sub" / ".hidden" / f"h{k}.md").write_text("h")
    [doc] = load_documents(["small/**/*.md"], tmp_path)
    assert (doc.path, doc.text) == ("small/sub/a.md", "# A\n")
    with pytest.raises(InvalidParams, match=r"no file matches 'small/\*\*/\*\.nomatch'"):
        load_documents(["small/**/*.nomatch"], tmp_path)
    (tmp_path / "small" / "sub" / "loop").symlink_to(tmp_path / "small")  # a link loop: endless without the bound
    with pytest.raises(InvalidParams, match=r"'small/\*\*/\*\.nomatch' searches too many folders"):
        load_documents(["small/**/*.nomatch"], tmp_path)
