"""A workspace folder whose name holds control characters (a tab, a newline, DEL) indexes and answers: real
tantivy, LanceDB and the offline MiniLM, the index in the default cache directory. LanceDB parses its table paths
as object-store paths, which refuse ASCII control characters, so every command on such a folder stopped with
"Failed to parse path '…/indexes/notes%09v2…/vectors/'" (red team, session 62)."""

from __future__ import annotations

import pytest
from ragls.core.hashing import text_hash
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")


def test_folder_named_with_control_characters_indexes_and_answers(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(cache))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")  # the bundled model, no download attempt
    folder = tmp_path / "notes\tv2\nfinal\x7f"
    folder.mkdir()
    (folder / "dome.md").write_text("# Observatory\n\nThe observatory dome opens at dusk and closes at dawn.\n")
    digest = text_hash(str(folder.resolve()))[:12]
    stale = cache / "indexes" / f"{folder.name}-{digest}"  # what a failed run of an older ragls left behind
    (stale / "bm25").mkdir(parents=True)
    ws = RagWorkspace([folder])
    try:
        ws.index()
        assert ws.indexes[0].index_dir == cache / "indexes" / f"notes_v2_final_-{digest}"
        hits = ws.query("When does the observatory dome open?").hits
        assert hits and hits[0].chunk.path == "dome.md"
        assert ws.status().folders[0].chunks == 1
    finally:
        ws.close()
    assert not (stale / "vectors").exists()  # the name LanceDB refused is not reused
