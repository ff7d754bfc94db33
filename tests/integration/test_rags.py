"""Named RAGs outside the workspace: sources resolved from strings, their own index, incremental when the source
list or the files change, unknown names rejected, an emptied vector store detected. Real stores, offline model."""

from __future__ import annotations

import shutil

import pytest
from ragls.config.trust import trust as trust_folder
from ragls.core.errors import InvalidParams, RequestFailed
from ragls.workspace.rag_workspace import RagWorkspace


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "config"))
    (tmp_path / "config").mkdir()
    ws = tmp_path / "project"
    ws.mkdir()
    (ws / "readme.md").write_text("# Project\n\nThe project readme talks about deployment pipelines.\n")
    notes = tmp_path / "notes"
    (notes / "a" / "deep").mkdir(parents=True)
    (notes / "a" / "garden.md").write_text("# Garden\n\nTomatoes need six hours of sun every day.\n")
    (notes / "a" / "deep" / "bees.txt").write_text("Bees visit the lavender in the morning.\n")
    (notes / "a" / "skip.py").write_text("print('not a note')\n")
    (notes / "b.md").write_text("# Bread\n\nSourdough rises overnight in a cool kitchen.\n")
    return tmp_path, ws, notes


def write_user_rags(tmp_path, body: str) -> None:
    (tmp_path / "config" / "ragls.toml").write_text(body)


def indexed(ws: RagWorkspace, name: str) -> list[str]:
    return sorted(ws.rags.get(name).index.manifest.files())


def test_sources_edits_add_and_remove_exactly_the_right_files(env):
    tmp_path, project, notes = env
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/a/**/*.{{md,txt}}"]\nchunk_size = 300\n')
    ws = RagWorkspace([project])
    try:
        ws.index()
        report = ws.index_rag("notes")
        assert sorted(report.indexed) == [f"{notes}/a/deep/bees.txt", f"{notes}/a/garden.md"]
        hit = ws.query("how many hours of sun do tomatoes need", rag="notes").hits[0]
        assert hit.chunk.path == f"{notes}/a/garden.md" and hit.chunk.folder == ""
        # the workspace does not see the RAG's files, the RAG does not see the workspace's
        assert all(h.chunk.path == "readme.md" for h in ws.query("tomatoes sun", rag="workspace").hits)

        # edit the source list: a ';' list of one old and one new file, then the directory form
        write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/a/garden.md;{notes}/b.md"]\n'
                                  'chunk_size = 300\n')
        ws.rags.reload()
        report = ws.index_rag("notes")
        assert report.indexed == [f"{notes}/b.md"] and report.deleted == [f"{notes}/a/deep/bees.txt"]
        assert report.unchanged == 1
        assert indexed(ws, "notes") == [f"{notes}/a/garden.md", f"{notes}/b.md"]

        write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}", "~/no-such-dir-ragls/*.md"]\n'
                                  'chunk_size = 300\n')
        ws.rags.reload()
        report = ws.index_rag("notes")
        assert report.indexed == [f"{notes}/a/deep/bees.txt"] and report.deleted == []
        assert [(s.path, s.reason) for s in report.skipped] == [
            ("~/no-such-dir-ragls/*.md", "no file matches '~/no-such-dir-ragls/*.md'")]
        assert f"{notes}/a/skip.py" not in indexed(ws, "notes")  # a directory is walked with sources.include

        # a list of names merges both indexes
        paths = {h.chunk.path for h in ws.query("sourdough bread and tomatoes", rag=["notes", "workspace"],
                                                 top_k=10).hits}
        assert f"{notes}/b.md" in paths and "readme.md" in paths
    finally:
        ws.close()


def test_unknown_rag_lists_known_names(env):
    tmp_path, project, notes = env
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/b.md"]\n')
    (project / "ragls.toml").write_text(f'[rags.local]\nsources = ["{notes}/a/garden.md"]\n')
    trust_folder(project)  # the user trusts this test's own folder (ragls/config/trust.py)
    ws = RagWorkspace([project])
    try:
        with pytest.raises(InvalidParams, match=r"unknown rag 'nope'; known: workspace, local, notes"):
            ws.query("bread", rag="nope")
        names = [r.name for r in ws.rag_list()]
        assert names == ["workspace", "local", "notes"]
    finally:
        ws.close()


def test_missing_vector_store_is_explained(env):
    tmp_path, project, notes = env
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/b.md"]\n')
    ws = RagWorkspace([project])
    ws.index_rag("notes")
    index_dir = ws.rags.get("notes").index_dir
    ws.close()
    shutil.rmtree(index_dir / "vectors")
    ws = RagWorkspace([project])
    try:
        [info] = [r for r in ws.rag_list() if r.name == "notes"]
        [error] = [e["message"] for e in info.errors]
        assert f"lists 1 indexed file(s) but the vector store {index_dir / 'vectors'} is missing" in error
        assert "ragls rag rebuild notes" in error
        assert info.files == 1
    finally:
        ws.close()


def test_a_rag_in_use_is_not_closed_by_a_reload(env):
    """`rags.reload()` while a request is searching a named RAG (`rags.request_scope`, entered by every front through
    `live.LiveWorkspace.request`): the request keeps an open RAG; the next request gets the new one; the old one is
    closed when the request ends, and its successor reopens as the index's writer. A request that reloads before
    it first uses the RAG gets the new one at once (the common case: an edited table applies to that request). An
    unchanged config file is not read again."""
    from ragls.kb.rags import request_scope

    tmp_path, project, notes = env
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/b.md"]\n')
    ws = RagWorkspace([project])
    try:
        ws.index_rag("notes")
        with request_scope():  # a request searching the RAG...
            rag = ws.rags.get("notes")
            assert ws.rags.reload() == set() and ws.rags.get("notes") is rag  # nothing changed: nothing re-read
            write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/b.md"]\nchunk_size = 400\n')
            assert ws.rags.reload() == {"notes"}  # ...while another request's reload replaces it
            hits = rag.retrieve("sourdough overnight", 3).hits  # the first request still searches its RAG
            assert [h.chunk.path for h in hits] == [f"{notes}/b.md"]
            fresh = ws.rags.get("notes")
            assert fresh is not rag and fresh.spec.settings.chunking.chunk_size == 400
            assert rag.index.writer and not fresh.index.writer  # the index lock is still the first request's
        assert not rag.index.writer  # the request ended: the replaced RAG is closed, its lock released
        with request_scope():
            assert [h.chunk.path for h in ws.query("sourdough overnight", rag="notes").hits] == [f"{notes}/b.md"]
            assert ws.rags.get("notes").index.writer  # reopened as the writer
        with request_scope():
            write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/a/garden.md"]\n')
            hits = ws.query("tomatoes sun", rag="notes").hits  # reloaded before this request used the RAG
            assert [h.chunk.path for h in hits] == [f"{notes}/a/garden.md"]
    finally:
        ws.close()


class Request:
    """One request of a front (`LiveWorkspace.request`) on a workspace: its own context (`contextvars.Context`), so
    requests are entered and left in any order, as a loaded server interleaves them; gets the RAG once, then
    searches it as `RagWorkspace.retrieve` does."""

    def __init__(self, ws: RagWorkspace, name: str, requests: list):
        import contextvars

        from ragls.kb.rags import request_scope

        self.ctx, self.scope, self.requests = contextvars.copy_context(), request_scope(), requests
        self.ctx.run(self.scope.__enter__)
        requests.append(self)
        self.rag = self.ctx.run(ws.rags.get, name)

    def search(self, text: str = "sourdough overnight") -> list[str]:
        def run():
            self.rag.ensure_indexed()
            return [h.chunk.path for h in self.rag.retrieve(text, 3).hits]

        return self.ctx.run(run)

    def end(self) -> None:
        self.requests.remove(self)
        self.ctx.run(self.scope.__exit__, None, None, None)

    def state(self) -> dict:
        """What the RAG's index holds now, for an assertion message: a search that comes back empty says whether
        the RAG was the writer, whether its sync recorded the file as skipped (and why), and what each store holds."""
        idx = self.rag.index
        m = idx.manifest
        return {"writer": idx.writer, "deferred": self.rag.deferred, "last_indexed_at": m.get_meta("last_indexed_at"),
                "fingerprint_current": m.get_meta("fingerprint") == idx.fingerprint, "files": m.file_count(),
                "chunks": m.chunk_count(), "bm25_docs": idx.bm25.count(), "skipped": m.skipped(),
                "vector_rows": idx.vectors.count() if idx.vectors_ready else None, "vectors_error": idx.vectors_error}


def test_a_rag_replaced_twice_while_in_use_is_never_read_half_rebuilt(env):
    """Two edits of a RAG's table while requests search it, the first one changing what its index is built with
    (chunk_size): a RAG a request holds keeps answering from the index it opened — the RAG that rebuilds the index
    with the new chunking (its writer) opens only once no other RAG is open on that index — and a request then
    waits for the rebuild instead of reading the emptied index."""
    tmp_path, project, notes = env
    body = f'[rags.notes]\nsources = ["{notes}/b.md"]\nchunk_size = 300\n'
    write_user_rags(tmp_path, body)
    ws = RagWorkspace([project])
    expected, requests = [f"{notes}/b.md"], []
    try:
        ws.index_rag("notes")
        first = Request(ws, "notes", requests)
        assert first.search() == expected and first.rag.index.writer
        write_user_rags(tmp_path, body.replace("300", "200"))  # the chunking changes: the index must be rebuilt
        ws.rags.reload()
        second = Request(ws, "notes", requests)  # the successor, on the same index, while `first` holds the writer
        assert second.search() == expected and not second.rag.index.writer
        write_user_rags(tmp_path, body.replace("300", "200") + "top_k = 3\n")  # replaced again while in use
        ws.rags.reload()
        third = Request(ws, "notes", requests)
        assert third.search() == expected
        first.end()  # the index lock is free; `second` still searches its RAG
        third.end()
        fourth = Request(ws, "notes", requests)  # opens while `second` searches: must not empty the index under it
        assert second.search("kitchen sourdough") == expected
        assert fourth.search() == expected
        second.end()
        assert fourth.search() == expected
        fourth.end()
        last = Request(ws, "notes", requests)  # no other RAG on the index: rebuilt with chunk_size 200, searched
        assert last.search() == expected, last.state()
        index = last.rag.index
        assert index.writer and index.manifest.get_meta("fingerprint") == index.fingerprint
        assert last.rag.spec.settings.chunking.chunk_size == 200 and last.rag.spec.settings.retrieval.top_k == 3
    finally:
        while requests:  # a failed step leaves requests open
            requests[-1].end()
        ws.close()


def test_a_reopened_workspace_never_empties_a_rag_index_the_previous_one_searches(env):
    """A `[rags.*]` edit reopens the served workspace (`LiveWorkspace.reopen`): the previous workspace, still
    searched by its requests, and the new one each have a registry with a RAG on the same index. The new one's
    waits (read-only) while the previous workspace's RAG is open — whichever of them its requests reload — and
    rebuilds the index with the new chunking once the previous workspace is closed."""
    tmp_path, project, notes = env
    body = f'[rags.notes]\nsources = ["{notes}/b.md"]\nchunk_size = 300\n'
    write_user_rags(tmp_path, body)
    old = RagWorkspace([project])
    new = None
    expected, requests = [f"{notes}/b.md"], []
    try:
        old.index_rag("notes")
        first = Request(old, "notes", requests)
        assert first.search() == expected
        write_user_rags(tmp_path, body.replace("300", "200"))
        new = RagWorkspace([project])  # the reopen
        searching = Request(new, "notes", requests)
        assert searching.search() == expected and not searching.rag.index.writer
        old.rags.reload()  # a request of the previous workspace sees the edit too
        first.end()
        late = Request(old, "notes", requests)  # the previous workspace's own successor: must not rebuild...
        assert searching.search("kitchen sourdough") == expected  # ...the index `searching` reads
        assert late.search() == expected
        late.end()
        old.close()
        old = None
        assert searching.search("kitchen sourdough") == expected  # still held: still the RAG it opened
        searching.end()
        rebuilt = Request(new, "notes", requests)
        assert rebuilt.search() == expected and rebuilt.rag.index.writer, rebuilt.state()
        assert rebuilt.rag.index.manifest.get_meta("fingerprint") == rebuilt.rag.index.fingerprint
    finally:
        while requests:
            requests[-1].end()
        for ws in (old, new):
            if ws is not None:
                ws.close()


def test_rebuild_of_a_deferred_rag_says_another_workspace_writes_it(env):
    """Two workspaces of one process on the same RAG (a reopen while the previous one is still open): the second
    one's RAG is deferred (read-only). Its rebuild raises RequestFailed saying so and wipes nothing; once the
    first workspace closes, the same rebuild reopens it as the writer and rebuilds."""
    tmp_path, project, notes = env
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/b.md", "{notes}/a/garden.md"]\n')
    old = RagWorkspace([project])
    new = None
    try:
        old.index_rag("notes")
        new = RagWorkspace([project])
        assert new.rags.get("notes").deferred
        with pytest.raises(RequestFailed) as err:
            new.rebuild_rag("notes")
        assert str(err.value).startswith("rag 'notes': its index (")
        assert str(err.value).endswith(
            ") is being written by another open workspace of this server (a request there is still using it); "
            "nothing was rebuilt. Rebuild 'notes' again once that request has finished: this workspace then "
            "becomes the index's writer")
        assert indexed(old, "notes") == [f"{notes}/a/garden.md", f"{notes}/b.md"]  # nothing wiped
        old.close()
        old = None
        report, info = new.rebuild_rag("notes")
        assert sorted(report.indexed) == [f"{notes}/a/garden.md", f"{notes}/b.md"] and info.chunks == 2
        assert not new.rags.get("notes").deferred
    finally:
        for ws in (old, new):
            if ws is not None:
                ws.close()


HOLD_RAG = """
import sys
from ragls.kb.rags import RagRegistry
rag = RagRegistry(None).get("notes")  # the user config's RAG, opened as its index's writer
print(rag.index.writer, flush=True)
sys.stdin.readline()  # killed here, before any sync
"""


def test_a_rag_another_process_left_emptied_is_rebuilt_once_that_process_is_gone(env):
    """Another ragls process (a `ragls index --rag` run, a second editor) opens a RAG after its chunking changed —
    taking the writer lock and emptying the index for the rebuild — and is killed before it syncs. This server's
    RAG, opened meanwhile, is read-only: it searches the empty index while that process lives, and once the lock
    is free its next request takes the index over and rebuilds it (before the fix it stayed read-only and empty
    until the server restarted)."""
    import os
    import subprocess
    import sys

    tmp_path, project, notes = env
    body = f'[rags.notes]\nsources = ["{notes}/b.md"]\nchunk_size = 300\n'
    write_user_rags(tmp_path, body)
    ws = RagWorkspace([project])
    expected, requests = [f"{notes}/b.md"], []
    other = None
    try:
        ws.index_rag("notes")
        write_user_rags(tmp_path, body.replace("300", "200"))
        ws.rags.reload()
        other = subprocess.Popen([sys.executable, "-c", HOLD_RAG], env=dict(os.environ), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        assert other.stdout.readline().strip() == "True"  # it writes the index now, emptied for the rebuild
        waiting = Request(ws, "notes", requests)
        assert waiting.search() == [] and not waiting.rag.index.writer and not waiting.rag.deferred
        waiting.end()
        other.kill()  # as a Ctrl-C'd run or a crashed editor: the OS frees the lock
        other.wait()
        after = Request(ws, "notes", requests)
        assert after.search() == expected, after.state()
        assert after.rag.index.writer and after.rag.index.manifest.get_meta("fingerprint") == after.rag.index.fingerprint
    finally:
        while requests:
            requests[-1].end()
        if other is not None and other.poll() is None:
            other.kill()
            other.wait()
        ws.close()


def test_a_rag_name_cannot_move_its_index_out_of_the_cache(env):
    """A RAG's index lives at <cache>/rags/<name>-<hash>: a cloned folder's `[rags."../../x"]` or `[rags."/abs/x"]`
    (untrusted: its sources are inside the folder, so the table is kept) made `ragls index --rag`, and the server's
    start-up sync, create and write an index directory there (red team, session 49). Such a name is refused, with
    the reason in the registry's errors; a plain name next to it works as before."""
    tmp_path, project, _ = env
    (project / "docs").mkdir()
    (project / "docs" / "a.md").write_text("# Widgets\n\nWidgets are sprockets with a handle.\n")
    escaped, absolute = tmp_path / "escaped", tmp_path / "absolute"
    (project / "ragls.toml").write_text(
        f'[rags."../../../../../../../../..{escaped}"]\nsources = ["docs/*.md"]\n'
        f'[rags."{absolute}"]\nsources = ["docs/*.md"]\n'
        '[rags."a\\u0000b"]\nsources = ["docs/*.md"]\n'
        '[rags.plain]\nsources = ["docs/*.md"]\n')
    ws = RagWorkspace([project])
    try:
        assert ws.rags.names() == ["plain"]
        assert sum("invalid RAG name" in e["message"] for e in ws.rags.errors) == 3
        assert ws.index_rag("plain").indexed
        assert ws.rags.index_dir(ws.rags.specs["plain"]).parent == tmp_path / "cache" / "rags"
    finally:
        ws.close()
    assert not list(tmp_path.glob("escaped*")) and not list(tmp_path.glob("absolute*"))


def test_a_rag_skips_degenerate_text_and_a_file_it_cannot_stat_with_their_reasons(env, monkeypatch):
    """A RAG's scan reads as the workspace's does (`index.scan.load_indexable`): a page of one line repeated is
    skipped as degenerate text, not embedded chunk by chunk; a file listed but gone before its stat is skipped
    (and leaves the index) with its reason, not dropped silently while its old chunks stay searchable."""
    from ragls.sources import resolve

    tmp_path, project, notes = env
    (notes / "a" / "log.md").write_text("The same line repeated, again and again.\n" * 1000)
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/a/**/*.{{md,txt}}"]\n')
    ws = RagWorkspace([project])
    try:
        report = ws.index_rag("notes")
        assert sorted(report.indexed) == [f"{notes}/a/deep/bees.txt", f"{notes}/a/garden.md"]
        [(path, reason)] = [(s.path, s.reason) for s in report.skipped]
        assert path == f"{notes}/a/log.md" and reason.startswith("degenerate text (repetitive: compresses")
        assert ws.rags.get("notes").index.manifest.skipped() == [(path, reason)]

        real = resolve.resolve_sources

        def resolve_then_delete(*args, **kwargs):  # the file goes between the listing and its stat
            resolved = real(*args, **kwargs)
            (notes / "a" / "garden.md").unlink()
            return resolved

        monkeypatch.setattr(resolve, "resolve_sources", resolve_then_delete)
        (notes / "a" / "deep" / "bees.txt").write_text("Bees visit the thyme at noon.\n")  # a change: a sync runs
        report = ws.rags.get("notes").sync()
        assert report.deleted == [f"{notes}/a/garden.md"]
        assert (f"{notes}/a/garden.md", "vanished while indexing (deleted after it was listed)") in [
            (s.path, s.reason) for s in report.skipped]
        assert indexed(ws, "notes") == [f"{notes}/a/deep/bees.txt"]
    finally:
        ws.close()


def test_a_directory_source_lists_what_its_walk_left_out(env):
    """A RAG's directory source says what its walk left out, as a workspace folder's scan does: a dangling link
    the include globs take, a link out of the directory, an ignore file too long to apply (all below it left
    out). Before, the walk's findings were dropped and the RAG just indexed fewer files."""
    from ragls.sources import walk as walk_mod

    tmp_path, project, notes = env
    (notes / "a" / "gone.md").symlink_to(notes / "nowhere.md")
    (tmp_path / "outside.md").write_text("# Outside\n\nNot in the notes.\n")
    (notes / "a" / "out.md").symlink_to(tmp_path / "outside.md")
    (notes / "gen").mkdir()
    (notes / "gen" / ".gitignore").write_text("".join(f"b{i}/\n" for i in range(walk_mod.MAX_IGNORE_PATTERNS + 1)))
    (notes / "gen" / "c.md").write_text("# C\n\nLeft out with its folder.\n")
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}"]\n')
    ws = RagWorkspace([project])
    try:
        report = ws.index_rag("notes")
        assert sorted(report.indexed) == [f"{notes}/a/deep/bees.txt", f"{notes}/a/garden.md", f"{notes}/b.md"]
        skipped = {s.path: s.reason for s in report.skipped}
        assert skipped[f"{notes}/a/gone.md"] == walk_mod.BROKEN_LINK
        assert skipped[f"{notes}/a/out.md"] == walk_mod.OUTSIDE_LINK
        assert skipped[f"{notes}/gen/.gitignore"].startswith(
            f"ignore file of {walk_mod.MAX_IGNORE_PATTERNS + 1:,} patterns")
        assert dict(ws.rags.get("notes").index.manifest.skipped()) == skipped
    finally:
        ws.close()


def test_a_url_source_holding_a_credential_is_not_fetched_and_reaches_no_store(env):
    """A page's URL is its key (index, rag/status, hits, prompts): a URL source with a password or a token is
    skipped with the value masked, and the manifest records a digest of the source list, not the list. Before,
    `http://deploy:<password>@host/page.html` was fetched and its password stored in the manifest, the vectors'
    rows and every hit's path. Refused before any request: no network needed."""
    from ragls.lsp.wire import to_wire_rag
    from ragls.sources.redact import URL_CREDENTIAL

    tmp_path, project, notes = env
    secret, token = "Zr8wq3Lp9x", "a8F3kQ9zLm2Xw7Rt"
    write_user_rags(tmp_path, f'[rags.notes]\nsources = ["{notes}/b.md", "https://deploy:{secret}@docs.invalid/a/**",'
                              f' "https://docs.invalid/b.html?token={token}"]\n')
    ws = RagWorkspace([project])
    try:
        report = ws.index_rag("notes")
        assert report.indexed == [f"{notes}/b.md"]
        assert [(s.path, s.reason) for s in report.skipped] == [
            (f"https://deploy:{'*' * len(secret)}@docs.invalid/a/**", URL_CREDENTIAL),
            (f"https://docs.invalid/b.html?token={'*' * len(token)}", URL_CREDENTIAL)]
        rag = ws.rags.get("notes")
        assert not rag.needs_sync()  # the digest of the list matches: no sync on every open
        index_dir = rag.index.index_dir
        # rag/list (an editor's RAG picker, `ragls rag list`) named the sources as written, credentials and all
        [listed] = [to_wire_rag(info) for info in ws.rag_list() if info.name == "notes"]
        assert listed["sources"] == [f"{notes}/b.md", f"https://deploy:{'*' * len(secret)}@docs.invalid/a/**",
                                     f"https://docs.invalid/b.html?token={'*' * len(token)}"]
    finally:
        ws.close()
    for path in [p for p in index_dir.rglob("*") if p.is_file()]:
        data = path.read_bytes()
        assert secret.encode() not in data and token.encode() not in data, path
