"""A file re-indexed after a save (an atomic save: a temp file renamed over it) stays in the results at every step
of the update (issue 29: 5 of ~1,900 probes found it missing): old chunks are served until the new ones are in.
Real tantivy + SQLite; BM25 alone (the signal whose ids switch at the commit), no embedding model needed."""

from __future__ import annotations

import os

from ragls.config.trust import trust as trust_folder
from ragls.index import indexer as indexer_mod
from ragls.retrieval.search import search
from ragls.workspace.rag_workspace import RagWorkspace

STEPS = ("after_journal", "after_stage", "after_bm25", "after_manifest")


def test_reindexed_file_is_never_missing_from_results(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ragls.toml").write_text(f'[index]\npath = "{(tmp_path / "index").as_posix()}"\n')
    trust_folder(folder)
    (folder / "gecko.md").write_text("# Geckos\n\nThe gecko climbs glass walls with its sticky toe pads.\n")
    (folder / "other.md").write_text("# Otters\n\nOtters hold hands while they sleep on the water.\n")
    ws = RagWorkspace([folder])
    try:
        idx = ws.indexes[0]
        idx.sync(embed=False)

        def paths() -> list[str]:
            result = search(ws.indexes, ws.embedder, "gecko toe pads", settings=ws.settings.retrieval,
                            signals=("bm25",))
            return [h.chunk.path for h in result.hits]

        assert paths() == ["gecko.md"]
        seen: dict[str, list[str]] = {}

        def probe(name: str) -> None:
            if name in STEPS:
                seen[name] = paths()

        monkeypatch.setattr(indexer_mod, "_crash_point", probe)
        tmp = folder / ".gecko.md.tmp"  # an editor's atomic save: new text in a temp file, renamed over the old
        tmp.write_text("# Geckos\n\nThe gecko climbs glass walls with its sticky toe pads and licks its eyes.\n")
        os.replace(tmp, folder / "gecko.md")
        report = idx.sync(["gecko.md"], embed=False)
        assert report.indexed == ["gecko.md"]
        assert set(seen) == set(STEPS), seen  # every step of the update was probed
        assert all(found == ["gecko.md"] for found in seen.values()), seen
        chunks = idx.manifest.chunks_of("gecko.md")
        assert [c.text.count("licks its eyes") for c in chunks] == [1]  # only the new chunk is left
    finally:
        ws.close()
