"""An index built with other chunking settings is rebuilt by its writer at open with one log line saying why; the
reason (`core.hashing.rebuild_reason`) is worked out once, when the index reads the manifest's fingerprint. Real
SQLite and tantivy, no embedding model (text phase only)."""

from __future__ import annotations

import logging

from ragls.config.settings import build_settings
from ragls.embedding.embed import Embedder
from ragls.index import indexer
from ragls.index.indexer import FolderIndex


def test_the_rebuild_reason_is_worked_out_once(tmp_path, monkeypatch, caplog):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\n" + "Quokkas are small marsupials. " * 40 + "\n")
    s = build_settings({"index": {"path": str(tmp_path / "index")}})[0]
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    idx.sync(embed=False)
    idx.close()
    calls = []

    def counted(*args):
        calls.append(args)
        return indexer.rebuild_reason.__wrapped__(*args)

    counted.__wrapped__ = indexer.rebuild_reason
    monkeypatch.setattr(indexer, "rebuild_reason", counted)
    s = build_settings({"index": {"path": str(tmp_path / "index")}, "chunking": {"chunk_size": 500}})[0]
    with caplog.at_level(logging.WARNING, logger="ragls.index.indexer"):
        idx = FolderIndex(folder, s, Embedder(s.embedding))  # the writer rebuilds at open
    try:
        why = "index settings changed: chunking.overlap 100 -> 25, chunking.chunk_size 2000 -> 500"
        assert f"{why}: rebuilding" in caplog.text and idx.rebuild_reason == why, caplog.text
        assert len(calls) == 1
    finally:
        idx.close()
