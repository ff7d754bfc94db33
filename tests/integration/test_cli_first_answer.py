"""The first `ragls ask` / `ragls query` on a fresh index answers once BM25 and the first vectors of the question's
keyword matches exist (one stderr line says so), prints, and only then embeds the rest — which is not lost: after
the command every chunk has all its windows. Runs `ragls.cli.app.main` in this process on real stores and the offline
model; no timing is asserted (the budget is set to 0 s so the early answer is certain)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from ragls.cli import app as cli
from ragls.cli import first_answer

ANIMALS = ["walrus", "narwhal", "albatross", "pelican", "heron", "ibex", "okapi", "tapir", "quokka", "dugong",
           "gecko", "lemur"]
FILLER = ("It lives far from any city and its habits were described by travelling naturalists in long letters "
          "home, which are quoted here at length so that the note is long enough for several embedding windows. ")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    monkeypatch.setenv("RAGLS_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(first_answer, "FIRST_ANSWER_BUDGET_S", 0.0)
    monkeypatch.setattr(first_answer, "CANDIDATES", 2)
    ws = tmp_path / "ws"
    ws.mkdir()
    for n, animal in enumerate(ANIMALS):
        (ws / f"{animal}.md").write_text(f"# The {animal}\n\nThe {animal} eats food number {n}. " + FILLER * 6)
    return ws


def run(argv: list[str]) -> tuple[int, str]:
    """Exit code and stdout+stderr interleaved in the order written."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(argv)
    return code, out.getvalue()


def status(folder) -> dict:
    code, out = run(["status", str(folder), "--json"])
    assert code == 0
    return json.loads(out[out.index("{"):])


@pytest.mark.parametrize("command", ["ask", "query"])
def test_first_answer_before_the_rest_is_embedded(folder, command):
    code, out = run([command, str(folder), "what does the okapi eat", "--no-server"])
    assert code == 0, out
    early = next(line for line in out.splitlines() if line.startswith("ragls: answering now"))
    # in the words of the server's progress ("sections", "meaning search"), not the indexer's ("BM25", "vector")
    assert "from word search, and meaning search over " in early and "BM25" not in early and "vector" not in early
    done, total = (int(w) for w in early.split("meaning search over ")[1].split(" sections")[0].split(" of "))
    assert 2 <= done < total == len(ANIMALS) * status(folder)["folders"][0]["chunks"] // len(ANIMALS)
    answer_at = out.index("okapi.md")
    rest_at = out.index("ragls: indexing the rest")
    assert early and out.index(early) < answer_at < rest_at  # said, answered, then the rest
    after = status(folder)["folders"][0]
    assert after["pendingVectors"] == 0 and after["pendingWindows"] == 0  # nothing lost


def test_first_answer_with_every_first_vector_names_the_long_sections_left(folder, monkeypatch):
    # the budget is enough for every first vector: the line said "the other windows of N long chunks are embedded
    # after the answer", the indexer's words, where the progress says "meaning search" and "sections"
    monkeypatch.setattr(first_answer, "FIRST_ANSWER_BUDGET_S", 600.0)
    code, out = run(["query", str(folder), "what does the okapi eat", "--no-server"])
    assert code == 0, out
    early = next(line for line in out.splitlines() if line.startswith("ragls: answering now"))
    assert early.startswith("ragls: answering now: every section can be found by meaning; ")
    assert early.endswith(" long sections are indexed for meaning search in full after the answer")
    left = int(early.split("; ")[1].split(" long sections")[0])
    assert 0 < left <= status(folder)["folders"][0]["chunks"]
    assert "window" not in early and "chunk" not in early
    assert status(folder)["folders"][0]["pendingWindows"] == 0  # then indexed, after the answer


def test_complete_index_answers_without_the_line(folder):
    assert run(["index", str(folder)])[0] == 0
    code, out = run(["query", str(folder), "what does the okapi eat", "--no-server"])
    assert code == 0 and "okapi.md" in out
    assert "answering now" not in out and "indexing the rest" not in out


def test_a_reader_does_not_claim_to_embed_what_another_process_writes(folder):
    # the index is complete and another process (here a workspace of this one, as an editor's server would) holds
    # its lock: `ragls ask --no-server` reads it, and said "first vector of 0 of N chunks" and "embedding the rest"
    from ragls.workspace.rag_workspace import RagWorkspace

    assert run(["index", str(folder)])[0] == 0
    writer = RagWorkspace([folder])
    try:
        assert writer.indexes[0].writer
        code, out = run(["ask", str(folder), "what does the okapi eat", "--no-server"])
    finally:
        writer.close()
    assert code == 0 and "okapi.md" in out
    assert "answering now" not in out and "indexing the rest" not in out


def sentences_pending(folder) -> int:
    """Chunks whose answer sentences the index's sentence pass has not embedded (the manifest's marks)."""
    from pathlib import Path

    from ragls.stores.manifest import Manifest

    m = Manifest(Path(status(folder)["folders"][0]["indexPath"]) / "manifest.sqlite", folder=str(folder))
    try:
        return len(m.sentence_pending_ids())
    finally:
        m.close()


@pytest.mark.parametrize("command", ["ask", "query"])
def test_a_one_shot_command_leaves_the_sentence_pass_to_ragls_index(folder, command):
    # README command 1 ran the sentence pass after printing its answer (37 s more before it exited): a one-shot
    # command embeds what search needs (every first vector and window) and leaves the answer sentences to the next
    # `ragls index` or server start
    code, out = run([command, str(folder), "what does the okapi eat", "--no-server"])
    assert code == 0 and "okapi.md" in out
    after = status(folder)["folders"][0]
    assert after["pendingVectors"] == 0 and after["pendingWindows"] == 0
    assert sentences_pending(folder) == after["chunks"] > 0
    assert run(["index", str(folder)])[0] == 0
    assert sentences_pending(folder) == 0


def test_a_query_read_while_another_process_builds_the_index_says_so(folder):
    """`ragls query` beside a `ragls index` still embedding (the index lock held by the writer: this process only
    reads) answered from keywords and a part of the vectors without a word, where a running server's answer says
    "still building". The writer is a real RagWorkspace in this process, stopped between its batches."""
    from ragls.workspace.rag_workspace import RagWorkspace

    writer = RagWorkspace([folder])
    try:
        [idx] = writer.indexes
        assert idx.writer
        idx.sync(embed=False)  # the text phase: BM25 answers
        assert idx.try_open_vectors() and idx.embed_pending_batch(2) == 2
        code, out = run(["query", str(folder), "what does the okapi eat", "--top-k", "1"])
        assert code == 0, out
        assert (f"another process is still building the index of {folder}: 10 of 12 sections are not embedded yet "
                "and are found by keywords (BM25) only; results may be incomplete") in out, out
        while idx.pending_count():
            idx.embed_pending_batch()
        left = idx.pending_windows_count()
        assert 0 < left <= 12
        code, out = run(["query", str(folder), "what does the okapi eat", "--top-k", "1"])
        assert (f"still building the index of {folder}: {left} long sections are found by meaning from their beginning "
                "only until they are embedded in full") in out, out
        while idx.pending_windows_count():
            idx.embed_pending_batch()
        code, out = run(["query", str(folder), "what does the okapi eat", "--top-k", "1"])
        assert code == 0 and "okapi.md" in out and "still building" not in out, out
    finally:
        writer.close()
