"""The kind of thing a question asks for and the passages naming one (`answer/answer_type.py`)."""

from __future__ import annotations

from ragls.answer.answer_type import asked_type, names_asked_type
from ragls.answer.passages import Unit


def test_the_kind_asked_for():
    assert asked_type("What command starts the process that consumes them?") == "command"
    assert asked_type("What's the command to let Claude Code search my history?") == "command"
    assert asked_type("There's no wheel for my platform. What pip command builds it from source?") == "command"
    assert asked_type("Is there a command that tidies it up?") == "command"
    assert asked_type("Which environment variable can I put in my .bashrc?") == "variable"
    assert asked_type("I don't want it to bind any keys at all. Which environment variable does that?") == "variable"
    assert asked_type("Which function turns a model into a dict?") == "function"
    assert asked_type("Which endpoint should my load balancer poll?") == "endpoint"


def test_a_kind_only_mentioned_or_too_common_is_not_asked():
    assert asked_type("From a management command I want to push a message to one browser.") is None
    assert asked_type("How do I make Enter insert the path instead?") is None
    assert asked_type("Which option adds the fixed files back automatically?") is None  # options: see ANSWER_TYPES


def test_passages_naming_the_kind():
    def unit(sentence: str, attached: str = "") -> Unit:
        return Unit(sentence, attached, 0, 0, 0)

    assert names_asked_type(unit("Channels provides this with the `runworker` command:"), "command")
    assert names_asked_type(unit("Claude Code:", "```shell\nclaude mcp add atuin -- atuin mcp\n```"), "command")
    assert names_asked_type(unit("Run it like this:", "```\n$ pip install foo\n```"), "command")
    assert names_asked_type(unit("In this case use the `get_channel_layer()` helper."), "function")
    assert names_asked_type(unit("`NO_COLOR` (the value does not matter)"), "variable")
    assert names_asked_type(unit("Set the `FETCH_MIRROR_URL` environment variable."), "variable")
    assert names_asked_type(unit("Metrics can be crawled from the `/__metrics__` endpoint."), "endpoint")
    assert not names_asked_type(unit("The command runs every job in order."), "command")
    assert not names_asked_type(unit("Queue it:", "```python\nqueue.send('x')\n```"), "command")
    assert not names_asked_type(unit("A session:", "```\n" + "$ run\n" * 20 + "```"), "command")
    assert not names_asked_type(unit("Set `retries` to 3."), "command")
    assert not names_asked_type(unit("the `drain` command"), None)
