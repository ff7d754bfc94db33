"""Extractive answers ranked by meaning with the real offline embedding model (answer/ask.extractive_answer)."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.config import EmbeddingSettings
from ragls.embed import Embedder, offline_model_dir
from ragls.ir import Chunk, Hit, LineSpan


@pytest.fixture(scope="module")
def embedder():
    path = offline_model_dir()
    if path is None:
        pytest.skip("needs ragls[offline]")
    return Embedder(EmbeddingSettings(model="sentence-transformers/all-MiniLM-L6-v2", model_path=str(path)))


def _hit(text: str, path: str = "notes.md") -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, 3, 0), text_hash=path), score=1.0)


TEXT = ("The office cat sleeps on the windowsill. Production deployments go out every Tuesday at noon. "
        "Our logo uses a dark blue.")


def test_sentence_sharing_no_word_with_the_question_is_found_by_meaning(embedder):
    answer = extractive_answer("When do we ship releases to customers?", [(1, _hit(TEXT))],
                               embed=embedder.embed_documents)
    bullets = [line for line in answer.splitlines() if line.startswith("- ")]
    assert bullets[0] == "- Production deployments go out every Tuesday at noon [1]."
    assert all("cat" not in b and "logo" not in b for b in bullets)


def test_without_embedder_no_overlap_falls_back_to_first_sentences():
    answer = extractive_answer("When do we ship releases to customers?", [(1, _hit(TEXT))])
    assert "- The office cat sleeps on the windowsill [1]." in answer


def test_same_sentence_from_two_sources_is_listed_once(embedder):
    answer = extractive_answer("When do deployments go out?", [(1, _hit(TEXT, "a.md")), (2, _hit(TEXT, "b.md"))],
                               embed=embedder.embed_documents)
    assert answer.count("Production deployments go out every Tuesday at noon") == 1
