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


def test_the_selection_quoted_in_the_question_is_not_its_answer(embedder):
    """Ask About Selection puts the selected text into the question (both clients); echoing it back answers
    nothing — the sentence beside it does (the VS Code wire test's "Who owns the rename?")."""
    notes = ("The team agreed to rename the gizmo service to Quasar. Priya owns the rename and will announce it on "
             "the mailing list before the spring release.")
    question = ("Who owns the rename?\n\nSelected text (meeting-notes.md:5-6):\n```\n"
                "The team agreed to rename the gizmo service to Quasar.\n```")
    for embed in (embedder.embed_documents, None):
        bullets = [line for line in extractive_answer(question, [(1, _hit(notes))], embed=embed).splitlines()
                   if line.startswith("- ")]
        assert bullets and bullets[0].startswith("- Priya owns the rename"), bullets
        assert not any("agreed to rename" in b for b in bullets), bullets
