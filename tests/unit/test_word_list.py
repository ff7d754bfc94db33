"""retrieval/word_list.py: pyspellchecker's English words, kept on disk once read (`spelling_words`)."""

from __future__ import annotations

import pytest
from ragls.retrieval import word_list


@pytest.fixture
def models_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_MODELS_DIR", str(tmp_path / "models"))
    return tmp_path / "models"


def test_the_kept_copy_holds_the_lists_words_and_is_read_back(models_dir):
    assert word_list._list_file() is not None  # pyspellchecker is a dependency (pyproject.toml)
    loaded = word_list._load()
    assert {"verbose", "knead", "hundredth"} <= loaded and "kubernetes" not in loaded
    assert word_list.spelling_words() == loaded  # first call: loaded, then kept
    (kept,) = models_dir.glob("english-words-*.txt")
    assert frozenset(kept.read_text(encoding="utf-8").split("\n")) == loaded
    kept.write_text("alpha\nbeta", encoding="utf-8")  # a later process reads the copy, not the list
    assert word_list.spelling_words() == {"alpha", "beta"}


def test_sorted_words_answer_in_as_the_set_of_their_words():
    words = frozenset({"alpha", "beta", "abbé", "naïve", "zebra", "ab", "abc", "abd"})
    sorted_words = word_list.SortedWords.of(words)
    assert sorted_words == words and len(sorted_words) == 8 and set(sorted_words) == words
    probes = words | {"", "a", "abb", "abbe", "abbés", "alph", "alphas", "zebras", "zz", "naive", "\ud800"}
    assert {w for w in probes if w in sorted_words} == words
    assert 42 not in sorted_words
    empty = word_list.SortedWords(b"")
    assert len(empty) == 0 and "alpha" not in empty and empty == frozenset()


def test_a_copy_that_cannot_be_written_only_costs_the_load(models_dir):
    assert word_list._list_file() is not None  # pyspellchecker is a dependency (pyproject.toml)
    models_dir.parent.mkdir(exist_ok=True)
    models_dir.write_text("not a folder")  # neither readable nor writable as the models folder
    assert word_list.spelling_words() == word_list._load()
