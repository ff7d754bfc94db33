"""`index.backend = "qdrant"`: the vectors (dense + BM25 sparse) in qdrant-client's embedded local mode, the real
manifest and tantivy, the real offline MiniLM model.

What must hold: indexing, edits and deletes leave exactly one point per manifest chunk, with the payload the issue
names; a kill -9 at any step of the write order ends, after restart, in the same collection as a clean rebuild;
two clones of one repository at different paths map to the same collection; `rag/status` names the backend.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from asuser import needs_nobody
from ragls.config.settings import build_settings
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.index.repo import collection_name, normalize_remote, repo_identity
from ragls.retrieval.search import search
from ragls.stores.qdrant import QdrantChunkStore, close_local

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")

FILES = {
    "guide/retries.md": "# Retries\n\nFailed uploads are retried five times with exponential backoff.\n",
    "guide/deploy.md": "# Deploy\n\n## Images\n\nThe container image is pushed to the registry on every release tag.\n",
    "notes.txt": "The gecko canary release goes to one percent of users first.\n",
}


def settings_for(tmp_path: Path, name: str = "index"):
    return build_settings({
        "embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
        "sources": {"include": ["**/*.md", "**/*.txt"]},
        "index": {"path": str(tmp_path / name), "backend": "qdrant", "repo_id": "example.com/acme/docs",
                  "qdrant_location": str(tmp_path / name / "qdrant")},
    })[0]


def make_folder(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def points(store: QdrantChunkStore) -> list[tuple]:
    """(chunk id, path, lines, content hash, text) of every chunk point."""
    out, offset = [], None
    while True:
        pts, offset = store.client.scroll(store.collection, limit=256, offset=offset, with_payload=True)
        out += [(p.payload["chunk_id"], p.payload["path"], p.payload["start_line"], p.payload["end_line"],
                 p.payload["content_hash"], p.payload["page_content"]) for p in pts
                if "chunk_id" in p.payload and p.payload["window"] == 0]
        if offset is None:
            return sorted(out)


def manifest_chunks(idx: FolderIndex) -> list[tuple]:
    return sorted((c.id, c.path, c.span.start_line, c.span.end_line, c.text_hash, c.text)
                  for batch in idx.manifest.iter_chunks() for c in batch)


def open_index(folder: Path, s) -> FolderIndex:
    emb = Embedder(s.embedding)
    return FolderIndex(folder, s, emb)


def test_index_edit_delete_keeps_one_point_per_chunk(tmp_path):
    folder = make_folder(tmp_path / "docs")
    s = settings_for(tmp_path)
    idx = open_index(folder, s)
    try:
        idx.sync()
        store = idx.vectors
        assert isinstance(store, QdrantChunkStore)
        assert points(store) == manifest_chunks(idx) and len(points(store)) == 3
        assert idx.store_name.startswith(f"qdrant:{store.collection}@") and store.collection.startswith("ragls-docs-")
        pt = store.client.scroll(store.collection, limit=10, with_payload=True, with_vectors=True)[0]
        deploy = next(p for p in pt if p.payload.get("path") == "guide/deploy.md")
        assert deploy.payload["title"] == "Deploy" and deploy.payload["metadata"] == {"source": "guide/deploy.md"}
        assert deploy.payload["model"] == idx.vectors_fp and deploy.payload["content_hash"]
        assert len(deploy.vector[""]) == idx.embedder.dim and len(deploy.vector["bm25"].indices) > 5
        hits = search([idx], idx.embedder, "how often are uploads retried", settings=s.retrieval)
        assert hits[0].chunk.path == "guide/retries.md" and hits[0].signals == {"vector": 1, "bm25": 1}
        sparse = store.sparse_points("gecko canary", 5)
        assert [p.payload["path"] for p, _ in sparse] == ["notes.txt"]
        qvec = idx.embedder.embed_query("gecko canary release")
        dense, sparse = store.hybrid_points(qvec, "gecko canary", 5)  # the team mode's one-request search
        assert dense[0][1]["path"] == "notes.txt" and [p.payload["path"] for p, _ in sparse] == ["notes.txt"]
        dense, sparse = store.hybrid_points(qvec, "gecko canary", 5, exclude_paths=["notes.txt"])
        assert sparse == [] and "notes.txt" not in {payload["path"] for _, payload in dense} and len(dense) == 2

        (folder / "guide/retries.md").write_text("# Retries\n\nFailed uploads are retried twice, then dropped.\n")
        (folder / "notes.txt").unlink()
        report = idx.sync()
        assert report.indexed == ["guide/retries.md"] and report.deleted == ["notes.txt"]
        assert points(store) == manifest_chunks(idx) and len(points(store)) == 2
        assert not any("five times" in p[-1] for p in points(store))
        assert store.sparse_points("gecko canary", 5) == []
        top = search([idx], idx.embedder, "how often are uploads retried", settings=s.retrieval)[0]
        assert "retried twice" in top.chunk.text
    finally:
        idx.close()


CRASH_SCRIPT = textwrap.dedent("""
    import sys
    from ragls.config.settings import build_settings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex
    import json
    s = build_settings(json.loads(sys.argv[2]))[0]
    idx = FolderIndex(sys.argv[1], s, Embedder(s.embedding))
    idx.sync()
""")


@pytest.mark.parametrize("point", ["after_journal", "after_bm25", "after_manifest", "after_embed_cache"])
def test_kill_9_mid_update_then_restart_equals_clean_rebuild(tmp_path, point):
    import json

    folder = make_folder(tmp_path / "docs")
    s = settings_for(tmp_path)
    idx = open_index(folder, s)
    idx.sync()
    idx.close()
    close_local(s.index.qdrant_location)
    (folder / "guide/retries.md").write_text("# Retries\n\nUploads are retried three times, with jitter.\n")
    (folder / "guide/deploy.md").unlink()
    (folder / "faq.md").write_text("# FAQ\n\nThe cache lives in XDG_CACHE_HOME.\n\n## Proxy\n\nSet HTTPS_PROXY.\n")
    env = {**os.environ, "RAGLS_TEST_CRASH_AT": point}
    raw = json.dumps({"embedding": s.embedding.model_dump(), "sources": s.sources.model_dump(),
                      "index": s.index.model_dump()})
    proc = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, str(folder), raw], check=False, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 137, proc.stderr[-2000:]

    idx = open_index(folder, s)  # restart: reconcile + sync
    try:
        idx.sync()
        got = points(idx.vectors)
        assert got == manifest_chunks(idx)
    finally:
        idx.close()
    clean_settings = settings_for(tmp_path, "clean")
    clean = open_index(folder, clean_settings)
    try:
        clean.rebuild()
        assert got == points(clean.vectors) and {p[1] for p in got} == {"guide/retries.md", "faq.md", "notes.txt"}
    finally:
        clean.close()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_two_clones_of_one_repository_share_a_collection(tmp_path):
    origin = make_folder(tmp_path / "origin")
    git(origin, "init", "-q", "-b", "main")
    git(origin, "-c", "user.email=a@b", "-c", "user.name=a", "add", "-A")
    git(origin, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "docs")
    a, b = tmp_path / "laptop/work/docs", tmp_path / "ci/build/checkout"
    a.parent.mkdir(parents=True)
    b.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", str(origin), str(a))
    git(tmp_path, "clone", "-q", str(origin), str(b))
    # without a hosted remote (local origin path differs per machine in real life): the root commit
    git(a, "remote", "remove", "origin")
    git(b, "remote", "remove", "origin")
    assert repo_identity(a) == repo_identity(b) == "root:" + git(origin, "rev-parse", "HEAD")
    assert repo_identity(a / "guide") == repo_identity(b / "guide") == repo_identity(a) + "//guide"
    # with a hosted remote, every spelling of it
    git(a, "remote", "add", "origin", "git@github.com:Acme/Docs.git")
    git(b, "remote", "add", "origin", "https://ci-bot:tok3n@github.com/acme/docs/")
    assert repo_identity(a) == repo_identity(b) == "github.com/acme/docs"
    assert normalize_remote("ssh://git@github.com:22/acme/docs.git") == "github.com/acme/docs"

    s = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                        "index": {"backend": "qdrant", "qdrant_location": ":memory:"}})[0]
    names = []
    for clone in (a, b):
        store = QdrantChunkStore.for_folder(clone, s, tmp_path / "ix", 384, "model-fp", "chunker-fp")
        names.append(store.collection)
        assert str(tmp_path) not in store.collection
    assert names[0] == names[1] == collection_name("github.com/acme/docs", "model-fp", "chunker-fp")
    assert names[0] != collection_name("github.com/acme/docs", "other-model", "chunker-fp")
    assert names[0] != collection_name("github.com/acme/docs", "model-fp", "other-chunker")


def _cut_meta(qdrant_dir: Path) -> None:
    (qdrant_dir / "meta.json").write_text("")  # qdrant-client writes it in place: a crash or full disk mid-write


def _cut_storage(qdrant_dir: Path) -> None:
    [storage] = qdrant_dir.glob("collection/*/storage.sqlite")
    os.truncate(storage, storage.stat().st_size // 2)


@pytest.mark.parametrize("damage", [_cut_meta, _cut_storage])
def test_a_damaged_embedded_qdrant_of_ragls_own_is_moved_aside_and_filled_again(tmp_path, damage):
    """The default embedded location (`<index dir>/qdrant`, ragls's own) with files qdrant-client cannot load: the
    index opens (it was a traceback of qdrant-client's, at every command), the directory is kept beside as
    `qdrant.damaged`, and the next sync puts one point per manifest chunk in a new one. A directory the user
    configured is not moved: a clear RequestFailed says what is wrong."""
    from ragls.core.errors import RequestFailed
    from ragls.stores.qdrant import connect

    folder = make_folder(tmp_path / "docs")
    s = settings_for(tmp_path)
    own = s.model_copy(update={"index": s.index.model_copy(update={"qdrant_location": None})})
    qdrant_dir = tmp_path / "index" / "qdrant"
    idx = open_index(folder, own)
    idx.sync()
    want = manifest_chunks(idx)
    assert len(points(idx.vectors)) == 3
    idx.close()
    close_local(str(qdrant_dir))
    damage(qdrant_dir)

    with pytest.raises(RequestFailed, match=r"embedded Qdrant at .* cannot be read .* damaged.*set "
                                            r"index.qdrant_location to another"):
        connect(str(qdrant_dir))  # a configured location: not moved
    assert not (tmp_path / "index" / "qdrant.damaged").exists()

    idx = open_index(folder, own)
    try:
        idx.sync()
        assert points(idx.vectors) == want == manifest_chunks(idx)
        hits = search([idx], idx.embedder, "how often are uploads retried", settings=own.retrieval)
        assert hits[0].chunk.path == "guide/retries.md" and hits[0].signals.get("vector") == 1
    finally:
        idx.close()
        close_local(str(qdrant_dir))
    assert (tmp_path / "index" / "qdrant.damaged" / "meta.json").exists()


def test_a_server_whose_qdrant_cannot_open_says_why_once_and_serves_keywords(tmp_path, monkeypatch, caplog):
    """The served workspace (the real LiveWorkspace and its indexer thread) on a Qdrant directory the user
    configured that cannot be read: one warning naming the damage, rag/status says it and stops saying "loading",
    BM25 answers. On main the indexer thread asked again in a loop (hundreds of "vector search is off ...: None" a
    second in serve.log) and rag/status said the model was still loading, for good."""
    import time

    from ragls.lsp.wire import to_wire_status
    from ragls.workspace.live import LiveWorkspace

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    folder = make_folder(tmp_path / "docs")
    qdrant_dir = tmp_path / "qdrant"
    qdrant_dir.mkdir()
    (qdrant_dir / "meta.json").write_text('{"collections": {')  # cut mid-write
    overrides = {"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                 "index": {"backend": "qdrant", "qdrant_location": str(qdrant_dir)}}
    live = LiveWorkspace([folder], [overrides], socket_server=None)
    caplog.set_level("WARNING", logger="ragls.workspace.live")
    live.start()
    try:
        ws = live.get_indexed()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (ws.indexes[0].vectors_error and not live.worker.busy()):
            time.sleep(0.1)
        status = to_wire_status(ws.status())
        time.sleep(1.0)  # a loop would add warnings meanwhile
        vector_warnings = [r.getMessage() for r in caplog.records if "vector search is off" in r.getMessage()]
        assert len(vector_warnings) == 1, vector_warnings[:3]
        assert "embedded Qdrant at" in vector_warnings[0] and "cannot be read" in vector_warnings[0]
        assert any("cannot be read" in e["message"] for e in status["errors"]), status["errors"]
        assert not status["folders"][0].get("embeddingLoading"), status["folders"][0]
        hits = ws.query("how often are uploads retried", 3).hits
        assert hits[0].chunk.path == "guide/retries.md" and hits[0].signals == {"bm25": 1}
    finally:
        live.close()
    assert (qdrant_dir / "meta.json").read_text() == '{"collections": {'  # a configured directory is not moved


@pytest.mark.parametrize(("vectors", "has"), [("named", "named vectors (dense)"), ("plain", "no sparse vector 'bm25'")])
def test_index_qdrant_collection_naming_another_tools_collection_is_refused_with_a_reason(tmp_path, vectors, has):
    """`index.qdrant_collection` set to a collection another tool made (LangChain's: one unnamed vector and no
    sparse one; or named vectors): the first file indexed failed with qdrant-client's "Not existing vector name
    error: bm25" traceback (named: "holds None-dimensional vectors"). Now the store does not open, with a reason,
    and keyword search answers; the collection is left as it was."""
    from qdrant_client import models
    from ragls.stores.qdrant import connect

    folder = make_folder(tmp_path / "docs")
    s = settings_for(tmp_path)
    s = s.model_copy(update={"index": s.index.model_copy(update={"qdrant_collection": "theirs"})})
    client = connect(s.index.qdrant_location)
    dense = models.VectorParams(size=384, distance=models.Distance.COSINE)
    client.create_collection("theirs", vectors_config={"dense": dense} if vectors == "named" else dense)
    idx = open_index(folder, s)
    try:
        report = idx.sync()
        assert report.vectors_error and f"Qdrant collection 'theirs' at {s.index.qdrant_location} was not made by " \
                                         f"ragls: it has {has}" in report.vectors_error, report.vectors_error
        hits = search([idx], idx.embedder, "how often are uploads retried", settings=s.retrieval)
        assert hits[0].chunk.path == "guide/retries.md" and hits[0].signals == {"bm25": 1}
        assert client.count("theirs").count == 0
    finally:
        idx.close()
        close_local(s.index.qdrant_location)


QDRANT_UNREADABLE = r"""
import os, sys
from pathlib import Path
print("started", flush=True)
from qdrant_client import QdrantClient, models
from ragls.stores import qdrant
path = Path(sys.argv[1]) / "index" / "qdrant"
path.mkdir(parents=True)
client = QdrantClient(path=str(path))
client.create_collection("c", vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE))
client.close()
os.chmod(path / "meta.json", 0)
try:
    qdrant.connect(str(path), own_directory=True)
    print("connected")
except Exception as exc:
    print("raised", type(exc).__name__, exc)
print("moved aside:", Path(f"{path}.damaged").exists(), "collection kept:", (path / "collection" / "c").is_dir())
"""


@needs_nobody
def test_an_embedded_qdrant_this_user_may_not_read_is_not_taken_for_damaged():
    """ragls's own `<index dir>/qdrant` whose meta.json this user may not read (a permission, a read-only mount) is
    left where it is with an error saying so: it counted as damaged, and was moved to `qdrant.damaged` (an older
    copy there deleted) and its vectors embedded again. Real qdrant-client files, read as uid 65534 (real EACCES)."""
    from asuser import nobody_root, remove, run_as_nobody

    root = nobody_root()
    try:
        out = run_as_nobody(QDRANT_UNREADABLE, root)
        path = root / "index" / "qdrant"
        assert (f"raised RequestFailed the embedded Qdrant at {path} cannot be opened (Permission denied: "
                f"{path}/meta.json); its files were left as they are") in out, out
        assert "moved aside: False collection kept: True" in out, out
    finally:
        remove(root)


def test_a_server_opens_the_embedded_qdrant_once_another_process_lets_it_go(tmp_path, monkeypatch):
    """Another process holds the embedded Qdrant directory (local mode allows one: a `ragls index` with the same
    settings, a script): the served workspace (the real LiveWorkspace) says so in rag/status and answers by keywords,
    then opens the store once that process exits (retried after a back-off) — where it went without vectors until
    restarted. The holder is a real process with qdrant-client's own lock."""
    import time

    from ragls.lsp.wire import to_wire_status
    from ragls.workspace.live import LiveWorkspace

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    folder = make_folder(tmp_path / "docs")
    qdrant_dir = tmp_path / "qdrant"
    hold = ("import sys; from qdrant_client import QdrantClient; c = QdrantClient(path=sys.argv[1]); "
            "print('held', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", hold, str(qdrant_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    overrides = {"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                 "index": {"backend": "qdrant", "qdrant_location": str(qdrant_dir)}}
    live = LiveWorkspace([folder], [overrides], socket_server=None)
    live.start()
    try:
        ws = live.get_indexed()
        [idx] = ws.indexes
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any("open in another process" in e["message"]
                                                      for e in to_wire_status(ws.status())["errors"]):
            time.sleep(0.1)
        assert any("open in another process" in e["message"] for e in to_wire_status(ws.status())["errors"])
        assert not idx.vectors_ready
        assert ws.query("how often are uploads retried", 3).hits[0].signals == {"bm25": 1}
        holder.stdin.close()
        assert holder.wait(timeout=60) == 0
        while time.monotonic() < deadline and not (idx.vectors_ready and idx.pending_count() == 0):
            time.sleep(0.1)
        assert idx.vectors_ready and idx.pending_count() == 0
        assert len(points(idx.vectors)) == 3
        hits = ws.query("how often are uploads retried", 3).hits
        assert hits[0].chunk.path == "guide/retries.md" and hits[0].signals.get("vector") == 1
        assert not any("open in another process" in e["message"] for e in to_wire_status(ws.status())["errors"])
    finally:
        live.close()
        close_local(str(qdrant_dir))
        if holder.poll() is None:
            holder.kill()
