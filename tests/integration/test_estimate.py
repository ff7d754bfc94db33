"""`ragls estimate` (workspace/estimate.py): the chunk count comes from chunking a sample of the files with the indexer's own
chunker, not from bytes / chunk_size — heading-dense READMEs make much shorter chunks. Real chunker and index."""

from __future__ import annotations

import json
import os
import re

import pytest
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.estimate import SAMPLE_FILES, estimate_first_index
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")


def readme(n: int) -> str:
    """A README of short sections (about 300 characters each), as most package READMEs are."""
    sections = [f"## Option {k} of package {n}\n\nThe option {k} turns the feature number {k} on or off; it "
                f"defaults to off and is read once at start-up from the configuration file of package {n}.\n\n"
                f"```js\nconfigure({{ option{k}: true }})\n```\n" for k in range(12)]
    return f"# Package {n}\n\n" + "\n".join(sections)


def indexed_chunk_count(folder, index_path) -> int:
    """The chunks a real index of `folder` (no embedding) holds: what the estimate is checked against."""
    ws = RagWorkspace([folder], [{"index": {"path": str(index_path)}}])
    try:
        ws.index(embed=False)
        return ws.indexes[0].manifest.chunk_count()
    finally:
        ws.close()


def test_chunks_are_counted_by_the_real_chunker(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(20):
        (folder / f"readme{n}.md").write_text(readme(n))
    est = estimate_first_index(folder, {"index": {"path": str(tmp_path / "index")}})
    size = sum(p.stat().st_size for p in folder.iterdir())
    assert est.files == 20 and est.bytes == size and 20 <= SAMPLE_FILES
    real = indexed_chunk_count(folder, tmp_path / "index")
    assert est.chunks == real  # every file sampled: exact
    assert real > -(-size // 2000) * 1.3  # what bytes / chunk_size would have said is far off
    assert not est.indexed  # estimated before any index existed


def test_sampling_spreads_over_many_files(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(3 * SAMPLE_FILES):
        (folder / f"f{n:03}.md").write_text(readme(n) if n % 2 else "# Short\n\nOne short paragraph of text.\n")
    est = estimate_first_index(folder, {"index": {"path": str(tmp_path / "index")}})
    # half the files are one-chunk notes, half 12-section READMEs: the estimate lands between both guesses
    assert 3 * SAMPLE_FILES <= est.chunks <= 3 * SAMPLE_FILES * 8
    assert est.files == 3 * SAMPLE_FILES


def test_files_the_indexer_skips_as_too_large_are_not_estimated(tmp_path):
    """A large log matching the include globs (issue 29: 21.6 days estimated for a folder indexed in 4 s)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "notes.md").write_text(readme(1))
    with open(folder / "server.log.txt", "wb") as fh:
        fh.truncate(50_000_000)  # sparse: 50 MB of NULs, far over sources.max_file_bytes (2 MB)
    est = estimate_first_index(folder, {"index": {"path": str(tmp_path / "index")}})
    assert est.files == 1 and est.bytes == (folder / "notes.md").stat().st_size
    assert est.seconds < 60


def test_degenerate_text_the_indexer_skips_has_no_chunks_in_the_estimate(tmp_path):
    """A 1.9 MB line of one letter (`chunking.no_text_reason`: degenerate text) was estimated at ~950 chunks; the
    indexer skips it, so the estimate counts the other files' chunks alone (every file sampled: exact)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        (folder / f"readme{n}.md").write_text(readme(n))
    (folder / "letters.txt").write_text("a" * 1_900_000)
    est = estimate_first_index(folder, {"index": {"path": str(tmp_path / "index")}})
    real = indexed_chunk_count(folder, tmp_path / "index")
    assert est.files == 4 and 0 < real == est.chunks < 100


def test_the_embedding_time_counts_every_window_of_a_chunk(tmp_path):
    """Every window of a chunk is embedded (index/windows.py): a 2,000-character chunk (~450 wordpieces) is 3
    windows of 256 for all-MiniLM-L6-v2, one text of 512 for a model reading 512. Counting chunks alone said
    0.4 min for a folder whose cold index took 1.3 min (313 chunks, quiet 2-core machine)."""
    from ragls.index.windows import windows_per_chunk
    from ragls.workspace.estimate import WINDOWS_PER_SECOND, estimate_embed_seconds

    assert (windows_per_chunk(2000, 256), windows_per_chunk(2000, 512), windows_per_chunk(400, 256)) == (3, 1, 1)
    assert estimate_embed_seconds(313, 256) == pytest.approx(313 * 3 / WINDOWS_PER_SECOND[256])
    assert estimate_embed_seconds(313, 512) == pytest.approx(313 / WINDOWS_PER_SECOND[512])
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(readme(1))
    est = estimate_first_index(folder, {"index": {"path": str(tmp_path / "index")}})
    assert est.seconds == pytest.approx(est.chunks * 3 / WINDOWS_PER_SECOND[256], abs=0.1)


def test_the_wall_time_counts_start_up_and_the_machine_load(tmp_path, monkeypatch):
    """The embedding estimate is a quiet-machine figure (urllib3's docs: 0.2 min estimated, 104-135 s wall at load
    averages 9-12 on 2 cores). `ragls estimate` says so, and adds the wall time at the current load: start-up plus
    embedding, times (load + 1) / cores."""
    from clikit import ragls
    from ragls.workspace import estimate

    monkeypatch.setattr(estimate.os, "getloadavg", lambda: (9.0, 8.0, 7.0))
    monkeypatch.setattr(estimate.os, "cpu_count", lambda: 2)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text(readme(1))
    est = estimate_first_index(folder, {"index": {"path": str(tmp_path / "index")}})
    assert (est.load_average, est.cores) == (9.0, 2)
    assert est.wall_seconds == pytest.approx((estimate.START_SECONDS + est.seconds) * 5.0, abs=0.5)  # seconds: rounded
    assert estimate.load_factor(0.3, 2) == 1.0 and estimate.load_factor(None, 2) == 1.0
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1"}
    out = ragls(env, "estimate", folder).stdout
    assert "to embed on a quiet 2-core machine (12 windows of 256 wordpieces per second)" in out, out  # MiniLM
    assert "min wall for a first index now, with start-up, at the current load (load average 9.0 on 2 cores: " \
           "5.0x the quiet time; longer if the load rises)" in out, out
    data = json.loads(ragls(env, "estimate", "--json", folder).stdout)
    assert data["wallSeconds"] == est.wall_seconds and data["loadAverage"] == 9.0 and data["seconds"] == est.seconds


def test_the_printed_rate_is_the_rate_the_minutes_are_computed_with(tmp_path):
    """`ragls estimate` printed "36 windows of 256 wordpieces per second" beside minutes computed at 12 windows/s
    (a rate in windows multiplied by 3 windows per chunk a second time), and printed that 256 rate even where the
    minutes used the 512 one. The printed rate must give the printed minutes: minutes = chunks x windows per chunk
    (3 at 256, 1 at 512) / rate / 60. 100 READMEs (~200 chunks): 0.8 min at 12/s vs 0.3 at the printed 36/s."""
    from clikit import ragls
    from ragls.workspace import estimate

    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(100):
        (folder / f"readme{n}.md").write_text(readme(n))
    env = {**os.environ, "RAGLS_CACHE_DIR": str(tmp_path / "cache")}
    model = tmp_path / "model"  # a local model folder reading 512 (the estimate loads no model: its config is enough)
    model.mkdir()
    (model / "sentence_bert_config.json").write_text('{"max_seq_length": 512}')
    for max_length, windows in ((256, 3), (512, 1)):
        settings = json.dumps({"embedding": {"max_length": max_length, "model_path": str(model)}})
        out = ragls(env, "estimate", "--settings", settings, folder).stdout
        chunks = int(re.search(r"~([0-9]+) sections", out)[1])
        said = re.search(r"~([0-9.]+) min to embed on a quiet 2-core machine \(([0-9.]+) windows of ([0-9]+) "
                         r"wordpieces per second\)", out)
        assert said and chunks > 150, out
        minutes, rate, length = float(said[1]), float(said[2]), int(said[3])
        assert minutes == pytest.approx(chunks * windows / rate / 60, abs=0.05), (minutes, chunks, rate, out)
        assert (length, rate) == (max_length, estimate.WINDOWS_PER_SECOND[max_length]), out  # one source
        data = json.loads(ragls(env, "estimate", "--json", "--settings", settings, folder).stdout)
        assert data["maxLength"] == max_length
        assert data["seconds"] == pytest.approx(data["chunks"] * windows / rate, abs=0.1)


def test_the_window_is_the_one_of_the_model_the_index_loads(tmp_path, monkeypatch):
    """The estimate assumed bge-small's 512-wordpiece window whenever no `embedding.model_path` was set, while an
    offline machine indexes with the bundled all-MiniLM-L6-v2, which reads 256: 3 windows per 2,000-character chunk
    at 12/s, not 1 at 4.5/s. The window is the one of the model the index then loads (`Embedder.max_length`);
    with bge-small in fastembed's cache it is 512."""
    from ragls.workspace.estimate import WINDOWS_PER_SECOND

    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")  # bge-small is neither cached nor downloadable: the offline fallback
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(40):
        (folder / f"readme{n}.md").write_text(readme(n) * 2)
    overrides = {"index": {"path": str(tmp_path / "index")}}
    est = estimate_first_index(folder, overrides)
    assert est.max_length == 256 and est.chunks > 100
    assert est.seconds == pytest.approx(est.chunks * 3 / WINDOWS_PER_SECOND[256], abs=0.1)  # 512: chunks / 4.5
    ws = RagWorkspace([folder], [overrides])
    try:
        ws.embedder.ensure_loaded()
        assert (ws.embedder.source, ws.embedder.max_length) == ("offline-fallback", est.max_length)
    finally:
        ws.close()
    snapshot = tmp_path / "cache" / "fastembed" / "models--Qdrant--bge-small-en-v1.5-onnx-Q" / "snapshots" / "0"
    snapshot.mkdir(parents=True)  # bge-small cached (fastembed's layout): the index would load it, at 512
    assert estimate_first_index(folder, overrides).max_length == 512


def test_status_says_the_time_left_at_the_current_load(monkeypatch):
    """`ragls status` printed "embedding: ~0.2 min for a cold index of 44 sections on 2 cores" (a quiet machine's
    figure, read as the time left) while nox's first index took 2.5 min wall at load 12. It now says the time left
    for the sections not fully embedded (no vector, or long sections' later windows) at the current load, beside the
    quiet figure; with none left, what a
    cold index would take, quiet and at the load with start-up (`ragls estimate`'s two figures)."""
    from ragls.workspace import estimate

    monkeypatch.setattr(estimate.os, "getloadavg", lambda: (11.0, 8.0, 7.0))
    monkeypatch.setattr(estimate.os, "cpu_count", lambda: 2)
    quiet = estimate.estimate_embed_seconds(44, 256)  # 44 x 3 windows / 12 per second = 11 s
    assert estimate.embedding_time_text(200, 44, 256) == (
        f"~{quiet * 6 / 60:.1f} min left at the current load (load average 11.0 on 2 cores) for 44 sections not "
        f"fully embedded yet (~{quiet / 60:.1f} min on a quiet 2-core machine)") == (
        "~1.1 min left at the current load (load average 11.0 on 2 cores) for 44 sections not fully embedded yet "
        "(~0.2 min on a quiet 2-core machine)")
    assert estimate.embedding_time_text(44, 0, 256) == (
        "a cold index of 44 sections: ~0.2 min on a quiet 2-core machine, ~1.6 min with start-up at the current load "
        "(load average 11.0 on 2 cores)")
