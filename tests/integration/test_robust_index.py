"""Messy real folders on a real index (tantivy + SQLite + LanceDB + the offline MiniLM): CJK keyword matching,
a stray byte in a UTF-8 file, upper-case extensions, empty / whitespace-only / markup-only files and a file that
vanishes between the walk and the read — every skip listed with its reason."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from offline_index import offline_toml
from ragls.config.trust import trust as trust_folder
from ragls.core.errors import RequestFailed, error_kind
from ragls.embedding.embed import offline_model_dir
from ragls.index import scan as scan_mod  # the text phase's scan: what it walks and reads
from ragls.index.chunking import is_markup_only
from ragls.sources.walk import OUTSIDE_LINK
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

CJK_FILES = {
    "zh/db.md": "# 配置说明\n\n本系统使用的数据库连接池默认大小为十个连接，超时时间为三十秒。\n",
    "zh/park.md": "# 周末\n\n今天天气很好，我们去公园散步吧，顺便买一些水果。\n",
    "ja/setup.md": "# セットアップ\n\nデータベースの接続文字列を環境変数に設定してください。\n",
    "ko/guide.md": "# 안내\n\n서울에서 부산까지 기차로 약 세 시간이 걸립니다.\n",
    "en/db.md": "# Database\n\nThe connection pool holds ten connections and times out after thirty seconds.\n",
}


def write(folder: Path, rel: str, data: str | bytes) -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def make_ws(folder: Path, index: Path) -> RagWorkspace:
    (folder / "ragls.toml").write_text(offline_toml(index, sentence_pass=True))
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    return RagWorkspace([folder])


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    folder = tmp_path_factory.mktemp("messy") / "docs"
    for rel, text in CJK_FILES.items():
        write(folder, rel, text)
    # UTF-8 with one cp1252 byte (0x92, a curly apostrophe) on the first line only
    write(folder, "stray.md", "# Straße notes\n\nIt\x92s fine.\n".encode().replace(b"\xc2\x92", b"\x92")
          + "Die Größe der Überweisung wird in Zürich geprüft.\nCrème brûlée für Jürgen.\n".encode())
    write(folder, "NOTES.MD", "# Notes\n\nThe quokka enclosure reopens in spring.\n")
    write(folder, "docs/README.TXT", "Readme\n\nThe narwhal tusk is a tooth.\n")
    write(folder, "empty.md", "")
    write(folder, "blank.txt", "  \n\n\t\n")
    write(folder, "rule.md", "# \n\n---\n\n* * *\n")
    write(folder, "mixed.md", "# Mixed\n\nThe pangolin rolls into a ball.\n\n---\n\n#\n")
    w = make_ws(folder, tmp_path_factory.mktemp("index"))
    w.index()
    yield w
    w.close()


def bm25_paths(ws, query: str, k: int = 5) -> list[str]:
    return [h.chunk.path for h in ws.retrieve(query, top_k=k, signals=("bm25",))]


@pytest.mark.parametrize(("query", "path"), [
    ("数据库连接", "zh/db.md"),  # a substring of a clause: no spaces anywhere
    ("连接池默认大小", "zh/db.md"),
    ("公园散步", "zh/park.md"),
    ("接続文字列", "ja/setup.md"),
    ("부산까지", "ko/guide.md"),
    ("서울", "ko/guide.md"),  # a Korean word carrying a particle (서울에서) in the text
    ("本系统使用的数据库连接池默认大小为十个连接，超时时间为三十秒。", "zh/db.md"),  # a whole line
])
def test_cjk_substring_query_finds_its_file_first_by_bm25(ws, query, path):
    assert bm25_paths(ws, query)[0] == path
    hits = ws.retrieve(query, top_k=3)
    assert hits[0].chunk.path == path
    assert hits[0].signals.get("bm25") == 1


@pytest.mark.parametrize("query", ["brulee", "Uberweisung Zurich", "Crème brûlée", "grosse", "geprüft"])
def test_accents_are_folded_both_ways_by_bm25(ws, query):
    # "Crème brûlée für Jürgen" is found typed without accents (two accents, or ß: past what fuzzy matching reaches),
    # and an accented query finds it too
    assert bm25_paths(ws, query)[:1] == ["stray.md"]


def test_cjk_query_is_not_abstained(ws):
    result = ws.query("数据库连接池")
    assert result.hits[0].chunk.path == "zh/db.md" and not result.abstained


def test_stray_byte_keeps_the_rest_utf8_and_searchable(ws):
    chunk = ws.indexes[0].manifest.chunks_of("stray.md")[0]
    assert "Größe der Überweisung wird in Zürich geprüft" in chunk.text
    assert "Crème brûlée für Jürgen" in chunk.text
    assert "Straße" in chunk.text
    assert "Ã" not in chunk.text  # no mojibake
    assert bm25_paths(ws, "Überweisung Zürich")[0] == "stray.md"
    assert bm25_paths(ws, "brûlée")[0] == "stray.md"


def test_upper_case_extensions_are_indexed(ws):
    assert bm25_paths(ws, "quokka enclosure")[0] == "NOTES.MD"
    assert bm25_paths(ws, "narwhal tusk")[0] == "docs/README.TXT"


def test_empty_whitespace_and_markup_only_files_are_listed(ws):
    skipped = dict(ws.status().folders[0].skipped)
    assert skipped["empty.md"] == "empty file"
    assert skipped["blank.txt"] == "whitespace only"
    assert skipped["rule.md"] == "markup only (no text)"
    files = ws.indexes[0].manifest.files()
    assert not {"empty.md", "blank.txt", "rule.md"} & set(files)


def test_no_chunk_is_markup_only(ws):
    chunks = [c for batch in ws.indexes[0].manifest.iter_chunks() for c in batch]
    assert chunks and not any(is_markup_only(c.text) for c in chunks)
    assert [c.text for c in ws.indexes[0].manifest.chunks_of("mixed.md")] == [
        "# Mixed\n\nThe pangolin rolls into a ball.\n\n---\n\n#"]


def test_file_vanishing_between_walk_and_read_is_listed(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    write(folder, "keep.md", "# Keep\n\nThe heron waits by the weir.\n")
    write(folder, "gone.md", "# Gone\n\nThe ferry leaves at noon.\n")
    write(folder, "gone2.md", "# Gone too\n\nThe tram is late.\n")
    real_walk = scan_mod.walk_with

    def walk_then_delete(*args, **kwargs):
        listed = real_walk(*args, **kwargs)
        os.unlink(folder / "gone.md")  # deleted after it was listed
        return listed

    monkeypatch.setattr(scan_mod, "walk_with", walk_then_delete)
    real_load = scan_mod.load_source

    def load_after_delete(folder_, rel, *args, **kwargs):
        if rel == "gone2.md":
            os.unlink(folder / rel)  # deleted between the stat and the read
        return real_load(folder_, rel, *args, **kwargs)

    monkeypatch.setattr(scan_mod, "load_source", load_after_delete)
    w = make_ws(folder, tmp_path / "index")
    try:
        report = w.index(embed=False)[0]
        reasons = {s.path: s.reason for s in report.skipped}
        assert reasons["gone.md"].startswith("vanished") and reasons["gone2.md"].startswith("vanished")
        assert dict(w.status().folders[0].skipped).keys() == {"gone.md", "gone2.md"}
        assert report.indexed == ["keep.md"]
        monkeypatch.setattr(scan_mod, "walk_with", real_walk)
        w.index(embed=False)  # the next full scan no longer lists them: the entries go
        assert w.status().folders[0].skipped == []
    finally:
        w.close()



def test_a_name_swapped_for_a_link_out_or_a_fifo_after_the_walk_is_not_read(tmp_path, monkeypatch):
    # The walk lists regular files; each is read later. A name replaced in between by a link out of the folder
    # must not bring the outside file into the index, and one replaced by a FIFO must not block the indexer.
    folder = tmp_path / "docs"
    outside = tmp_path / "outside"
    write(outside, "id_rsa.md", "# Key\n\nThe xylophonequark passphrase.\n")
    write(folder, "keep.md", "# Keep\n\nThe heron waits by the weir.\n")
    write(folder, "notes.md", "# Notes\n\nThe ferry leaves at noon.\n")
    write(folder, "pipe.md", "# Pipe\n\nThe tram is late.\n")
    real_walk = scan_mod.walk_with

    def walk_then_swap(*args, **kwargs):
        listed = real_walk(*args, **kwargs)
        (folder / "notes.md").unlink()
        (folder / "notes.md").symlink_to(outside / "id_rsa.md")
        return listed

    monkeypatch.setattr(scan_mod, "walk_with", walk_then_swap)
    real_load = scan_mod.load_source

    def swap_then_load(folder_, rel, *args, **kwargs):
        if rel == "pipe.md":  # swapped between the scan's check that it is a file and its read
            (folder / rel).unlink()
            os.mkfifo(folder / rel)
        return real_load(folder_, rel, *args, **kwargs)

    monkeypatch.setattr(scan_mod, "load_source", swap_then_load)
    rescued = threading.Event()

    def unblock_a_stuck_read():  # a read blocked on the FIFO for a minute is let go (and the test fails)
        if not done.wait(60):
            rescued.set()
            with open(folder / "pipe.md", "wb"):
                pass

    done = threading.Event()
    threading.Thread(target=unblock_a_stuck_read, daemon=True).start()
    w = make_ws(folder, tmp_path / "index")
    try:
        report = w.index(embed=False)[0]
        done.set()
        assert not rescued.is_set(), "the read of a name swapped for a FIFO blocked"
        reasons = {s.path: s.reason for s in report.skipped}
        assert reasons == {"notes.md": OUTSIDE_LINK, "pipe.md": "not a regular file"}
        assert report.indexed == ["keep.md"]
        assert bm25_paths(w, "xylophonequark") == []
        manifest = w.indexes[0].manifest
        assert not any("xylophonequark" in c.text for batch in manifest.iter_chunks() for c in batch)
    finally:
        done.set()
        w.close()


def test_bm25_index_without_the_cjk_field_is_rebuilt_from_the_manifest(tmp_path):
    import tantivy

    folder = tmp_path / "docs"
    write(folder, "zh.md", "# 说明\n\n数据库连接池默认大小为十个连接。\n")
    w = make_ws(folder, tmp_path / "index")
    w.index(embed=False)
    w.close()
    bm25_dir = tmp_path / "index" / "bm25"
    for child in bm25_dir.iterdir():  # replace it by an index of the schema before the `cjk` field
        child.unlink()
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    sb.add_text_field("path", stored=False, tokenizer_name="raw")
    sb.add_text_field("title", stored=False, tokenizer_name="en_stem")
    sb.add_text_field("body", stored=False, tokenizer_name="en_stem")
    tantivy.Index(sb.build(), path=str(bm25_dir), reuse=True)
    w = make_ws(folder, tmp_path / "index")
    try:
        assert bm25_paths(w, "连接池") == ["zh.md"]
    finally:
        w.close()


def test_fifo_and_links_to_devices_are_listed_not_opened(tmp_path):
    # a FIFO would block open() until a writer comes and /dev/zero never ends: neither is read, both are said
    folder = tmp_path / "docs"
    write(folder, "keep.md", "# Keep\n\nThe heron waits by the weir.\n")
    os.mkfifo(folder / "pipe.md")
    (folder / "zero.md").symlink_to("/dev/zero")
    (folder / "pipe-link.md").symlink_to(folder / "pipe.md")
    w = make_ws(folder, tmp_path / "index")
    try:
        report = w.index(embed=False)[0]
        assert report.indexed == ["keep.md"]
        assert dict(w.status().folders[0].skipped) == {
            "pipe.md": "not a regular file (a FIFO)", "pipe-link.md": "not a regular file (a FIFO)",
            "zero.md": "not a regular file (a character device)"}
        (folder / "pipe.md").unlink()
        (folder / "pipe-link.md").unlink()
        w.index(embed=False)  # gone from the folder: gone from the list
        assert dict(w.status().folders[0].skipped) == {"zero.md": "not a regular file (a character device)"}
    finally:
        w.close()


def test_an_unchanged_skipped_file_is_not_read_again(tmp_path, monkeypatch):
    # A folder of script-only HTML partials or scanned PDFs was converted again on every start (trafilatura or pypdf
    # per file, per `ragls ask`) to find, again, that it holds no text: its reason is kept with the file's size and
    # mtime and it is read again only when those change (convert.read_stamp)
    folder = tmp_path / "docs"
    write(folder, "keep.md", "# Keep\n\nThe heron waits by the weir.\n")
    write(folder, "partial.html", '<script src="https://example.org/a.js" defer></script>\n')
    write(folder, "rule.md", "---\n")
    read: list[str] = []
    real_load = scan_mod.load_source

    def counting_load(folder_, rel, *args, **kwargs):
        read.append(rel)
        return real_load(folder_, rel, *args, **kwargs)

    monkeypatch.setattr(scan_mod, "load_source", counting_load)
    w = make_ws(folder, tmp_path / "index")
    try:
        w.index(embed=False)
        first = dict(w.status().folders[0].skipped)
        assert set(first) == {"partial.html", "rule.md"} and sorted(read) == ["keep.md", "partial.html", "rule.md"]
        read.clear()
        report = w.index(embed=False)[0]
        assert read == []  # nothing changed: nothing read
        assert {s.path: s.reason for s in report.skipped} == first and dict(w.status().folders[0].skipped) == first
        write(folder, "partial.html", "<html><body><p>The ferry leaves at noon from the north pier.</p></body></html>\n")
        report = w.index(embed=False)[0]
        assert read == ["partial.html"] and report.indexed == ["partial.html"]
        assert dict(w.status().folders[0].skipped) == {"rule.md": first["rule.md"]}
    finally:
        w.close()


def test_degenerate_text_is_skipped_with_its_reason(tmp_path):
    # A 1.9 MB line of one letter was ~950 chunks to embed; one log line repeated, a base64 blob under a heading
    # and minified CSS cost as much and hold nothing to search (sources.load.degenerate_reason). A real page with
    # as many characters is indexed as before.
    import base64
    import random

    folder = tmp_path / "docs"
    write(folder, "letters.txt", "a" * 1_900_000)
    write(folder, "repeated.txt", "2026-01-01 12:00:00 INFO worker started processing queue item 7\n" * 30_000)
    blob = base64.b64encode(random.Random(5).randbytes(150_000)).decode()
    write(folder, "logo.md", f"# Logo\n\n![logo](data:image/png;base64,{blob})\n")
    minified = "".join(f'.icon-{i}:before{{content:"\\e{i:03x}";color:#{i * 4099 % 4096:03x}}}' for i in range(3_000))
    write(folder, "bundle.txt", minified)  # minified CSS (a JavaScript bundle keeps spaces: `function e(t)`)
    security = Path(__file__).resolve().parents[2] / "docs" / "security.md"
    write(folder, "security.md", security.read_bytes())
    w = make_ws(folder, tmp_path / "index")
    try:
        report = w.index(embed=False)[0]
        skipped = dict(w.status().folders[0].skipped)  # what rag/status `skipped` and MCP index_status list
        assert skipped == {
            "letters.txt": "degenerate text (too few distinct characters: 0.0 bits per character)",
            "repeated.txt": skipped["repeated.txt"], "logo.md": skipped["logo.md"], "bundle.txt": skipped["bundle.txt"]}
        assert skipped["repeated.txt"].startswith("degenerate text (repetitive: compresses ")
        no_breaks = "runs of 256+ characters without a space, such as minified code or encoded data)"
        assert skipped["logo.md"].startswith("degenerate text (no word breaks: 100% in ")
        assert skipped["logo.md"].endswith(no_breaks) and skipped["bundle.txt"].endswith(no_breaks)
        assert report.indexed == ["security.md"]
        assert list(w.indexes[0].manifest.files()) == ["security.md"]
        assert len(w.indexes[0].manifest.chunks_of("security.md")) > 10
    finally:
        w.close()


def test_globs_that_could_take_minutes_per_file_are_ignored_with_a_warning(tmp_path):
    # pathspec matches globs with backtracking regular expressions: a folder's `a*a*a*a*a*b/**` took 141 s per
    # 250-character name under load, and an include glob of eleven brace sets stopped `ragls index` with a
    # ValueError traceback. Both come from the folder (its ragls.toml and .gitignore, and its file names): such a
    # glob is ignored and named in the workspace's errors; the other globs apply (config/globs.glob_problem).
    folder = tmp_path / "docs"
    long_name = "a" * 240 + ".md"
    write(folder, long_name, "# Long\n\nThe heron waits by the weir.\n")
    write(folder, "keep.md", "# Keep\n\nThe ferry leaves at noon.\n")
    write(folder, "drop.md", "# Drop\n\nExcluded by the .gitignore.\n")
    write(folder, ".gitignore", "a*a*a*a*a*b\ndrop.md\n")
    w = make_ws(folder, tmp_path / "index")  # writes ragls.toml with the index path and the offline model
    toml = (folder / "ragls.toml").read_text()
    (folder / "ragls.toml").write_text(toml + '[sources]\ninclude = ["**/*.md", "*a*a*a*a*a*b/**", "'
                                       + "{a,b}" * 11 + 'x"]\n')
    w.close()
    trust_folder(folder)
    w = RagWorkspace([folder])
    try:
        report = w.index(embed=False)[0]
        assert sorted(report.indexed) == sorted([long_name, "keep.md"])
        messages = [e["message"] for e in w.errors]
        assert any("sources.include glob '*a*a*a*a*a*b/**' has more than 3 wildcards" in m for m in messages), messages
        assert any("expands to more than 1024 patterns; it is ignored" in m for m in messages), messages
    finally:
        w.close()


def test_html_nested_deeper_than_lxml_reads_is_indexed_whole(tmp_path):
    # libxml2 (lxml, trafilatura) stops building the tree at 256 nested elements: a paragraph in a nest of 300
    # div/span pairs and every paragraph after the nest were dropped, silently (only "Above" was indexed). The
    # layout wrappers deep in the nest are dropped now (sources/html_depth.py); a page lxml reads whole is unchanged.
    nest = 300
    page = ("<html><head><title>Nest</title></head><body><h1>Nest</h1><p>Above the nest waits the walrus.</p>"
            + "<div><span>" * nest + "<p>Inside the nest lives the narwhal parser.</p>" + "</span></div>" * nest
            + "<p>Below the nest sits the puffin &amp; its crossing.</p></body></html>")
    folder = tmp_path / "docs"
    write(folder, "deep.html", page)
    plain = ("<html><body><h1>Plain</h1>" + "<div>" * 120 + "<p>A shallow page about the ferry &amp; timetable.</p>"
             + "</div>" * 120 + "</body></html>")
    write(folder, "plain.html", plain)
    w = make_ws(folder, tmp_path / "index")
    try:
        w.index(embed=False)
        assert bm25_paths(w, "walrus") == ["deep.html"]
        assert bm25_paths(w, "narwhal parser") == ["deep.html"]
        assert bm25_paths(w, "puffin crossing") == ["deep.html"]
        assert bm25_paths(w, "ferry timetable") == ["plain.html"]
        assert w.status().folders[0].skipped == []
    finally:
        w.close()
    from ragls.sources.html_depth import shallow

    assert shallow(plain) is plain  # lxml reads it whole: given to the converter as it is


def test_a_folder_moved_away_while_open_is_said_and_not_searched(tmp_path):
    # The index answered on from the files the folder held (a walk that cannot list it keeps them), passages whose
    # sources cannot be opened and may be anywhere now (session 66-68's lead): rag/status says the folder is gone,
    # and a query says it too instead of serving them; moved back, it is searched again, nothing indexed anew.
    folder = tmp_path / "docs"
    write(folder, "retries.md", "# Retries\n\nRequests are retried five times with jitter.\n")
    w = make_ws(folder, tmp_path / "index")
    try:
        w.index(embed=False)
        assert [e for e in w.status().errors if "no longer exists" in e["message"]] == []
        folder.rename(tmp_path / "moved")
        w.index(embed=False)  # a scan meanwhile keeps what the folder held
        gone = (f"{w.indexes[0].folder}: the folder no longer exists (moved or deleted): its index is not searched "
                "until it is back; open the folder where it is now")
        assert [e["message"] for e in w.status().errors if "no longer exists" in e["message"]] == [gone]
        for request in (lambda: w.query("retried jitter"), lambda: w.ask("How often are requests retried?")):
            with pytest.raises(RequestFailed) as err:
                request()
            assert str(err.value) == gone and error_kind(err.value).code == -32803
        assert w.status().folders[0].files == 1  # kept
        (tmp_path / "moved").rename(folder)
        assert [e for e in w.status().errors if "no longer exists" in e["message"]] == []
        assert [h.chunk.path for h in w.query("retried jitter").hits] == ["retries.md"]
    finally:
        w.close()


def test_a_folder_moved_away_beside_one_still_there_leaves_only_the_other_searched(tmp_path):
    kept, moved = tmp_path / "kept", tmp_path / "docs"
    write(kept, "backoff.md", "# Backoff\n\nThe client waits with exponential backoff between retried requests.\n")
    write(moved, "retries.md", "# Retries\n\nRequests are retried five times with jitter.\n")
    for folder in (kept, moved):
        (folder / "ragls.toml").write_text(offline_toml(tmp_path / f"index-{folder.name}", sentence_pass=True))
        trust_folder(folder)
    w = RagWorkspace([kept, moved])
    try:
        w.index(embed=False)
        assert sorted(bm25_paths(w, "retried requests jitter backoff")) == ["backoff.md", "retries.md"]
        moved.rename(tmp_path / "elsewhere")
        assert bm25_paths(w, "retried requests jitter backoff") == ["backoff.md"]
        assert [h.chunk.folder for h in w.query("retried requests").hits] == [str(w.indexes[0].folder)]
        with pytest.raises(RequestFailed, match="docs: the folder no longer exists"):
            w.query("retried requests", rag="docs")  # the gone folder asked for by name
    finally:
        w.close()
