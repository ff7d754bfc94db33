"""Shared pieces of the rag/ask tests (integration/test_ask, test_conversation, test_local_llm): hand-made hits over a small
Rust-book text, a recording retriever, settings pointing at the loopback LLM server (tests/llm_server.py)."""

from __future__ import annotations

import pytest
from ragls.config.settings import GenerationSettings, Settings
from ragls.core.ir import Chunk, Hit, LineSpan
from ragls.llm.chat import make_chat_model

OWNERSHIP = ("Each value in Rust has an owner. There can only be one owner at a time. "
             "When the owner goes out of scope, the value will be dropped.")
BORROWING = ("A reference lets you borrow a value without taking ownership of it. "
             "The borrow checker makes sure references never outlive the data they point to.")
CARGO = "Cargo is the Rust build system and package manager. Run cargo build to compile the project."
LIFETIMES = ("Lifetimes are named regions of code that a reference must be valid for. "
             "Lifetime annotations describe how the lifetimes of several references relate.")


def make_hit(path: str, text: str, similarity: float | None, score: float, first_line: int = 0,
             title: str = "") -> Hit:
    lines = text.count("\n") + 1
    span = LineSpan(first_line, 0, first_line + lines, 0)
    return Hit(Chunk(id=f"{path}#{first_line}", path=path, text=text, span=span, text_hash=path, title=title),
               score=score, signals={"vector": 1.0}, similarity=similarity)


def extractive_over(question: str, text: str, path: str, embed) -> str:
    """The extractive answer to `question` from one hit: a chunk of the whole `text` at `path` (line 0 on),
    sentences embedded by `embed` (the real offline model's `embed_documents`)."""
    from ragls.answer.ask import extractive_answer

    hit = Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
              score=1.0)
    return extractive_answer(question, [(1, hit)], embed=embed)


HITS = [make_hit("book/ownership.md", OWNERSHIP, 0.62, 0.9, 10, "Ownership"),
        make_hit("book/borrowing.md", BORROWING, 0.41, 0.8, 0, "References"),
        make_hit("book/cargo.md", CARGO, 0.12, 0.5, 4)]
EXTRA = make_hit("lifetimes.md", LIFETIMES, 0.55, 0.95)


class Retriever:
    """retrieve(query, k) over fixed hits; records the calls. `by_query` maps a query substring to other hits."""

    def __init__(self, hits: list[Hit], by_query: dict[str, list[Hit]] | None = None):
        self.hits, self.by_query, self.calls = hits, by_query or {}, []

    def __call__(self, query: str, k: int) -> list[Hit]:
        self.calls.append((query, k))
        for needle, hits in self.by_query.items():
            if needle in query:
                return hits[:k]
        return self.hits[:k]


@pytest.fixture
def ask_key(monkeypatch):
    """The API key `settings()` names (RAGLS_TEST_KEY). A plugin of tests/conftest.py: modules that use it write
    `pytestmark = pytest.mark.usefixtures("ask_key")`."""
    monkeypatch.setenv("RAGLS_TEST_KEY", "k")


def settings(server=None, backend="openai", **gen) -> Settings:
    g = {"backend": "none"}
    if server is not None:
        url = server.openai_url if backend == "openai" else server.anthropic_url
        g = {"backend": backend, "base_url": url, "model": "test-model", "api_key_env": "RAGLS_TEST_KEY",
             "max_retries": 0}
    return Settings(generation=GenerationSettings(**{**g, **gen}))


def chat_for(s: Settings):
    return make_chat_model(s.generation)
