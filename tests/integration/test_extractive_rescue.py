"""Extractive answers with the real offline model: the candidate whose sentence reads closest to the question of all
is quoted when the word pre-selection (`extractive._worth_embedding`) left it out (`extractive._rescued`): a top hit
whose sentences repeat the question's words fills every place that can be picked, and a lower hit that answers in
other words shares none of them."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


def _hit(text: str, path: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, 3, 0), text_hash=path), score=1.0)


DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March",
        "April", "May", "June", "July")
NOTICES = " ".join(f"On {d} the canteen light switch is repaired, a new version of the lunch menu goes up beside the "
                   "Python poster, and the environment team waters the plants." for d in DAYS)
OTHERS = ["Quokka reads its settings from a file in the project root.",
          "Plugins add commands of their own to the command line.",
          "The lock file records the exact version of every dependency."]
ANSWERING = "Run `quokka use 3.11` to make another installed interpreter the default one."
QUESTION = "How do I switch the Python version of my environment?"


def test_the_closest_sentence_the_words_left_out_is_quoted(embedder):
    """The first hit's fourteen notices share three of the question's words and fill the places the words leave;
    the fifth hit's sentence shares none and was never a candidate to pick, though it reads closest to the question
    of all (cosine 0.42 against 0.34): it is quoted after the picks, with its citation."""
    sources = [(1, _hit(NOTICES, "notices.md"))] + [(n, _hit(t, f"p{n}.md")) for n, t in enumerate(OTHERS, 2)] + [
        (5, _hit(ANSWERING, "environments.md"))]
    bullets = [x for x in extractive_answer(QUESTION, sources, embed=embedder.embed_documents).splitlines()
               if x.startswith("- ")]
    assert bullets[-1] == "- Run `quokka use 3.11` to make another installed interpreter the default one [5].", bullets
    assert all(x.startswith("- On ") and x.endswith("[1].") for x in bullets[:-1]), bullets

