"""With source code opted in (`sources.include` "**/*.py"), an extractive answer quotes what a code file says — a
docstring with the definition it documents, a comment with the code under it — and never a code line as a
sentence. Before, a .py chunk was read as Markdown: "- def test_skip() -> None: session = mock.Mock(spec=("skip",))
runner.run(session) assert session.skip.called [2]" was a bullet, and a chunk that began inside a docstring read its
closing quotes as a new docstring holding the code after it. Real stores (tantivy, LanceDB), the offline model,
`RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.code_passages import code_passages

SESSIONS = '''"""The session object handed to every task function."""

from typing import Any, NoReturn


class Session:
    """The session a task runs in: its environment and the commands it runs."""

    def skip(self, *args: Any) -> NoReturn:
        """Immediately skips the session and optionally logs a warning."""
        raise SessionSkip(*args)

    def run(self, *args: str, env: dict[str, str] | None = None) -> None:
        """Run a command in the session.

        Pass ``env`` to set environment variables for this one command.
        """
        # Merge the command's environment over the session's own variables.
        merged = {**self.env, **(env or {})}
        self._runner.run(args, env=merged)
'''

TESTS = '''from unittest import mock


def test_skip() -> None:
    session = mock.Mock(spec=("skip",))
    runner.run(session)
    assert session.skip.called
'''

INSIDE = '''        Args:
            names (list[str]): the sessions to keep in the queue, in order.
        """
        self._queue = [s for s in self._queue if s.name in names]
        return self._queue
'''


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("code"), {"tasks/sessions.py": SESSIONS, "tests/test_skip.py": TESTS},
                              toml='[sources]\ninclude = ["**/*.py", "**/*.md"]\n') as w:
        yield w


def test_docstring_is_quoted_with_its_definition(ws):
    answer = ws.ask("How do I skip a session from inside the task?").text
    assert "- Immediately skips the session and optionally logs a warning [1]:" in answer, answer
    assert "def skip(self, *args: Any) -> NoReturn:" in answer, answer
    assert "- def " not in answer and "assert session.skip.called [" not in answer, answer


def test_comment_is_quoted_with_the_code_under_it(ws):
    answer = ws.ask("How are the command's environment variables merged with the session's own?").text
    assert "Merge the command's environment over the session's own variables" in answer, answer
    assert "merged = {**self.env, **(env or {})}" in answer, answer
    assert "- merged =" not in answer, answer


def test_a_chunk_that_opens_inside_a_docstring():
    """The closing quotes of a docstring the chunk began inside open no passage: the code after them is code."""
    assert code_passages(INSIDE) == []
    [unit] = code_passages(SESSIONS, (8, 9))
    assert unit.sentence == "Immediately skips the session and optionally logs a warning:"
    assert unit.attached == "```\ndef skip(self, *args: Any) -> NoReturn:\n```" and (unit.line, unit.end) == (8, 9)
