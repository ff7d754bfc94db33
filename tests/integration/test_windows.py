"""Multi-window vectors, focus lines, typo tolerance and near-duplicate removal on real stores: tantivy, LanceDB, the
SQLite manifest and the offline all-MiniLM-L6-v2 (256 wordpieces, so a 2,000-character chunk needs windows).

What must hold: a detail in the second half of a 2,000-character chunk is found by the vector signal alone (its
best window, not the truncated first window); `focus` lies inside the chunk and covers the answering line; a
typo'd identifier still finds its chunk through fuzzy BM25; a near-copy is removed by `dedup_cosine`; a kill -9
during the window pass (a real SIGKILL of a `ragls index` process) ends, after restart, in the index a clean
rebuild gives.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from bench_datasets import dataset_or_skip
from ragls.config.settings import build_settings
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import OFFLINE_MODEL_NAME, Embedder, offline_model_dir
from ragls.index.indexer import FolderIndex
from ragls.retrieval.search import search

MODEL_DIR = offline_model_dir()
pytestmark = pytest.mark.skipif(MODEL_DIR is None, reason="needs ragls[offline]")

# One ~2,000-character section: greenhouse prose first, the answering detail (the lens cleaning) near the end.
LIGHTHOUSE = """# Keeping the station

The station's greenhouse grows tomatoes, peppers and basil through the long winter months.
Seedlings are started in March under grow lights and moved to the raised beds in early May.
The beds are watered from the rain barrels on the north wall; the barrels hold enough for three dry weeks.
Compost from the kitchen is turned every Sunday and spread on the beds in autumn.
Aphids are kept down with ladybirds ordered from the mainland nursery each spring.
Tomato plants are pruned to a single stem and tied to bamboo canes as they grow.
Basil is pinched back weekly so that it branches instead of flowering.
Peppers need the warm corner by the stove pipe, where the temperature stays above eighteen degrees.
The greenhouse door is latched at night because the wind off the sea can tear it from its hinges.
Seed packets are stored in a tin box in the pantry, labelled with the year they were bought.
Harvested tomatoes are ripened on the kitchen windowsill and the surplus is made into sauce.
The sauce jars are boiled for twenty minutes and stored in the cellar beside the potatoes.
Each October the beds are covered with seaweed gathered from the cove at low tide.
Strawberries grow in hanging baskets along the south glass, out of reach of the slugs.
The potting bench holds clay pots of every size, stacked by diameter, and a sack of sharp sand.
Cucumbers climb a net of twine strung between the rafters and are picked while still small.
Lettuce is sown every fortnight in shallow trays so that there is always a fresh crop.

The keeper cleans the great Fresnel lens of the lamp every Thursday with diluted vinegar and a chamois cloth.
Fingerprints on the prisms scatter the beam, so cotton gloves are worn for the whole job.
"""

OTHER_DOCS = {
    "radio.md": "# Radio\n\nThe radio schedule: the coast guard is called at six every morning on channel sixteen.\n",
    "boat.md": "# Boat\n\nThe supply boat arrives on the first Monday of each month with diesel and mail.\n",
    "weather.md": "# Weather\n\nBarometer readings are written in the log book every three hours.\n",
    "config.md": "# Configuration\n\nSet `retryMaxAttempts` to limit how often a failed upload is tried again.\n"
                 "The delay between tries doubles each time.\n",
}


def settings(tmp_path: Path, name: str = "index", **retrieval):
    emb = {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)}
    return build_settings({"embedding": emb, "index": {"path": str(tmp_path / name)}, "retrieval": retrieval})[0]


def write_docs(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "station.md").write_text(LIGHTHOUSE)
    for name, text in OTHER_DOCS.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture
def indexed(tmp_path):
    folder = write_docs(tmp_path / "docs")
    s = settings(tmp_path)
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    idx.sync()
    yield idx, s
    idx.close()


def test_deep_detail_found_by_vector_signal_alone(indexed):
    idx, s = indexed
    [station] = idx.manifest.chunks_of("station.md")
    assert len(station.text) > 1500
    answer_line = next(i for i, line in enumerate(LIGHTHOUSE.splitlines()) if "Fresnel lens" in line)
    assert LIGHTHOUSE.index("Fresnel lens") > 1200  # the detail sits in the chunk's second half
    question = "How often is the lamp's lens cleaned, and with what?"
    hits = search([idx], idx.embedder, question, settings=s.retrieval, top_k=3, signals=("vector",))
    assert hits[0].chunk.path == "station.md"
    assert hits[0].signals == {"vector": 1.0}
    # The chunk scored by its best window: better than its first (truncated) window alone.
    qvec = idx.embedder.embed_query(question)
    rows = idx.vectors.table.to_arrow().to_pylist()
    mine = [r for r in rows if r["id"] == station.id]
    assert len(mine) == mine[0]["windows"] >= 2
    sims = {r["window"]: float(np.dot(qvec, r["vector"])) for r in mine}
    assert hits[0].similarity == pytest.approx(max(sims.values()), abs=1e-4)
    assert max(sims.values()) > sims[0] + 0.05
    # The focus is the best window: inside the chunk, covering the answering line, narrower than the chunk.
    focus, span = hits[0].focus, station.span
    assert focus is not None
    assert span.start_line <= focus.start_line <= answer_line <= focus.end_line <= span.end_line
    assert focus.start_line > span.start_line


def test_window_margin_pools_best_window_with_window_zero(indexed):
    """The vector signal ranks a multi-window chunk by max(window 0, best window - retrieval.window_margin); the
    window-0 cosines come from LanceDB; the hit's similarity stays the best window's cosine."""
    idx, _ = indexed
    [station] = idx.manifest.chunks_of("station.md")
    question = "How often is the lamp's lens cleaned, and with what?"
    qvec = idx.embedder.embed_query(question)
    rows = [r for r in idx.vectors.table.to_arrow().to_pylist() if r["id"] == station.id]
    sims = {r["window"]: float(np.dot(qvec, r["vector"])) for r in rows}
    assert idx.vectors.first_window_similarities(qvec, [station.id, "no-such-chunk"]) == {
        station.id: pytest.approx(sims[0], abs=1e-4)}
    [m] = [m for m in idx.vectors.search_windows(qvec, 5) if m.chunk_id == station.id]
    assert m.index != 0 and m.first_similarity in (None, pytest.approx(sims[0], abs=1e-4))
    for margin in (0.03, 0.5):
        from ragls.retrieval.pooling import pooled_scores

        scores = {m.chunk_id: sc for m, sc in pooled_scores(idx.vectors, qvec, idx.vectors.search_windows(qvec, 5),
                                                             margin)}
        assert scores[station.id] == pytest.approx(max(sims[0], max(sims.values()) - margin), abs=1e-4)
    hits = search([idx], idx.embedder, question, settings=settings(idx.folder.parent, window_margin=0.5).retrieval,
                  top_k=5, signals=("vector",))
    [hit] = [h for h in hits if h.chunk.id == station.id]
    assert hit.similarity == pytest.approx(max(sims.values()), abs=1e-4)


def test_windows_cover_the_whole_chunk(indexed):
    idx, _ = indexed
    [station] = idx.manifest.chunks_of("station.md")
    rows = sorted((r for r in idx.vectors.table.to_arrow().to_pylist() if r["id"] == station.id),
                  key=lambda r: r["window"])
    assert rows[0]["start_line"] == station.span.start_line
    last_text_line = station.span.start_line + len(station.text.rstrip("\n").splitlines()) - 1
    assert rows[-1]["end_line"] == last_text_line
    for a, b in itertools.pairwise(rows):
        assert b["start_line"] <= a["end_line"] + 1  # no line falls between two windows
    status = idx.pending_windows_count()
    assert status == 0 and idx.pending_count() == 0


def test_bm25_only_hit_focuses_on_query_terms(indexed):
    idx, s = indexed
    hits = search([idx], idx.embedder, "seaweed cove low tide", settings=s.retrieval, top_k=1, signals=("bm25",))
    [station] = idx.manifest.chunks_of("station.md")
    line = next(i for i, text in enumerate(LIGHTHOUSE.splitlines()) if "seaweed" in text)
    assert hits[0].chunk.id == station.id
    assert (hits[0].focus.start_line, hits[0].focus.end_line) == (line, line)


def test_typo_in_identifier_still_finds_its_chunk(indexed):
    idx, s = indexed
    for typo in ("retryMaxAttemtps", "retrymaxatempts"):
        hits = idx.bm25.search(typo, 3)
        assert hits, typo
        assert idx.manifest.get_chunks([hits[0][0]])[hits[0][0]].path == "config.md"
    assert idx.bm25.search("retrymaxatempts", 3, fuzzy=False) == []  # only the fuzzy match finds it
    assert idx.bm25.search("uplaod", 3, fuzzy=False) == []
    assert [idx.manifest.get_chunks([c])[c].path for c, _ in idx.bm25.search("uplaod", 3)] == ["config.md"]
    ranked = search([idx], idx.embedder, "how do I set retryMaxAttemtps", settings=s.retrieval, top_k=3)
    assert ranked[0].chunk.path == "config.md"
    # A word the index holds is not fuzzed: "tried" does not also match "tired"-like neighbours.
    assert idx.bm25._fuzzy_terms(["tried", "upload"]) == []


def test_dedup_removes_a_near_copy(tmp_path):
    folder = write_docs(tmp_path / "docs")
    text = OTHER_DOCS["boat.md"]
    (folder / "boat-copy.md").write_text(text.replace("diesel", "petrol"))
    for dedup, expect_both in ((0.92, False), (1.0, True)):
        s = settings(tmp_path, name=f"index-{dedup}", dedup_cosine=dedup)
        idx = FolderIndex(folder, s, Embedder(s.embedding))
        try:
            idx.sync()
            hits = search([idx], idx.embedder, "when does the supply boat come", settings=s.retrieval, top_k=4)
            paths = [h.chunk.path for h in hits]
            assert ("boat.md" in paths and "boat-copy.md" in paths) == expect_both, (dedup, paths)
            assert {"boat.md", "boat-copy.md"} & set(paths)
        finally:
            idx.close()


def _rows(idx: FolderIndex) -> list[tuple]:
    """Every vector row as comparable values (vectors rounded: the same text gives the same vector)."""
    table = idx.vectors.table.to_arrow().to_pylist()
    return sorted((r["id"], r["window"], r["windows"], r["path"], r["text_hash"], r["start_line"], r["end_line"],
                   tuple(np.round(np.asarray(r["vector"]), 4))) for r in table)


def test_kill_9_during_the_window_pass_equals_a_clean_rebuild(tmp_path):
    book = dataset_or_skip("rust-book")
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("ch08-01-vectors.md", "ch08-02-strings.md"):
        shutil.copy(book / name, folder / name)
    (folder / "ragls.toml").write_text(
        f'[embedding]\nmodel = "{OFFLINE_MODEL_NAME}"\nmodel_path = "{MODEL_DIR}"\n'
        f'[index]\npath = "{tmp_path / "index"}"\n')
    trust_folder(folder)  # the user trusts this test's own folder (ragls/config/trust.py)
    marker = tmp_path / "paused"
    env = {**os.environ, "RAGLS_TEST_PAUSE_AT": f"window_pass:{marker}", "RAGLS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "ragls", "index", str(folder)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 600
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the window pass never started"
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)  # mid window pass: one window batch written, the rest not
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    s = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                        "index": {"path": str(tmp_path / "index")}})[0]
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    try:
        idx.open_vectors()
        chunks = idx.manifest.chunk_count()
        assert idx.pending_count() == 0  # every first window was written before the window pass
        assert 0 < idx.pending_windows_count() < chunks  # killed mid-pass: some chunks still miss windows
        idx.sync()
        assert idx.pending_windows_count() == 0
        recovered = _rows(idx)
    finally:
        idx.close()

    clean_settings = build_settings({"embedding": {"model": OFFLINE_MODEL_NAME, "model_path": str(MODEL_DIR)},
                                     "index": {"path": str(tmp_path / "clean")}})[0]
    clean = FolderIndex(folder, clean_settings, Embedder(clean_settings.embedding))
    try:
        clean.sync()
        assert len(recovered) > chunks
        assert recovered == _rows(clean)
    finally:
        clean.close()


def test_hybrid_false_uses_the_vector_signal_alone(tmp_path):
    folder = write_docs(tmp_path / "docs")
    s = settings(tmp_path, hybrid=False)
    idx = FolderIndex(folder, s, Embedder(s.embedding))
    try:
        idx.sync()
        hits = search([idx], idx.embedder, "retryMaxAttempts", settings=s.retrieval, top_k=5)
        assert hits and all(set(h.signals) == {"vector"} for h in hits)
    finally:
        idx.close()


def test_parent_document_returns_the_whole_section(tmp_path):
    folder = write_docs(tmp_path / "docs")
    winds = ["north", "east", "south", "west"]
    entries = [f"Entry {i}: the keeper noted wind from the {winds[i % 4]} at {10 + i} knots and a falling glass."
               for i in range(60)]
    entries[45] = "Entry 45: a seal with a tagged flipper slept on the slipway all afternoon."
    (folder / "log.md").write_text("# Log\n\n" + "\n".join(entries) + "\n")
    for parent in (False, True):
        s = settings(tmp_path, name=f"index-{parent}", parent_document=parent)
        idx = FolderIndex(folder, s, Embedder(s.embedding))
        try:
            idx.sync()
            chunks = idx.manifest.chunks_of("log.md")
            assert len(chunks) >= 3 and {c.title for c in chunks} == {"Log"}
            [hit] = search([idx], idx.embedder, "seal with a tagged flipper on the slipway", settings=s.retrieval,
                           top_k=1, max_context_chars=s.generation.max_context_chars)
            assert hit.chunk.path == "log.md" and "tagged flipper" in hit.chunk.text
            if parent:
                assert hit.chunk.text.count("Entry ") == 60  # every line of the section, overlaps merged once
                assert (hit.chunk.span.start_line, hit.chunk.span.end_line) == (chunks[0].span.start_line,
                                                                                chunks[-1].span.end_line)
                assert hit.focus.start_line <= 47 <= hit.focus.end_line  # still the answering lines
            else:
                assert hit.chunk.text.count("Entry ") < 60
        finally:
            idx.close()
