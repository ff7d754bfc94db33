"""A chat follow-up without an LLM (answer/conversation.py `refers_back`, `carry_terms`): a follow-up that asks a
question of its own ("And which version of the controller daemon is running?") is searched on its own words and
answered on its own subject even when it opens with "and" / "so" / "also"; one that only makes sense after the
earlier turn ("And how do I turn it off?", "what about Windows?") borrows the earlier question's subject. Real
stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` with history and no LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.conversation import Turn, carry_terms, refers_back

WRENCH_MD = """\
# Torque wrench calibration

The torque wrench calibration is due every 5000 tightening cycles; the bench counts the cycles and shows a
calibration reminder on the wrench display when the count is reached.

## Calibration reminder

To turn off the calibration reminder, set `wrench.reminder = false` in `bench.toml`. The reminder comes back after
the next calibration.
"""

VERSION_MD = """\
# The controller daemon

Run `benchctl version` to print which version of the controller daemon is running; the same version is shown in
the status bar of the operator console.

## Telemetry

To turn off telemetry, set `telemetry.enabled = false`; the daemon then sends no usage reports.
"""

EARLIER = [{"role": "user", "content": "How often is the torque wrench calibration due?"},
           {"role": "assistant", "content": "Every 5000 tightening cycles [1]."}]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("follow"), {"tools/wrench.md": WRENCH_MD,
                                                                  "ops/daemon.md": VERSION_MD}) as w:
        yield w


@pytest.mark.parametrize("question", [
    "And which version of the controller daemon is running?",
    "Also, which version of the controller daemon is running?",
    "So which version of the controller daemon is running?",
])
def test_a_follow_up_that_names_its_own_subject_is_answered_on_it(ws, question):
    answer = ws.ask(question, history=EARLIER)
    assert answer.retrieval_query == question
    assert answer.sources[0][1].chunk.path.endswith("ops/daemon.md"), [h.chunk.path for _, h in answer.sources]
    first = next(line for line in answer.text.splitlines() if line.startswith("- "))
    assert "benchctl version" in first, answer.text
    assert "torque" not in answer.text.lower(), answer.text


def test_a_follow_up_searched_with_borrowed_words_is_decided_by_its_own(ws):
    # "it" makes the rule borrow the earlier subject's words, but they only weigh CONTEXT_WEIGHT: the follow-up's
    # own words (which version is running) find the daemon's page; before, the earlier question's rarer words
    # (torque, wrench, calibration) outranked them and the answer led with the wrench.
    question = "and how do I check which version of it is running?"
    answer = ws.ask(question, history=EARLIER)
    assert answer.retrieval_query == f"{question} torque wrench calibration due"
    assert answer.sources[0][1].chunk.path == "ops/daemon.md", [h.chunk.path for _, h in answer.sources]
    first = next(line for line in answer.text.splitlines() if line.startswith("- "))
    assert "benchctl version" in first, answer.text


@pytest.mark.parametrize("question", ["And what about the telemetry?", "and what about telemetry?"])
def test_a_topic_switch_after_and_is_not_dragged_back_to_the_earlier_subject(ws, question):
    # "what about" always borrows the earlier subject (it names only what changes), but a new subject of its own
    # decides: the daemon's telemetry, not the wrench's calibration, and the answer leads with it.
    answer = ws.ask(question, history=EARLIER)
    assert answer.retrieval_query == f"{question} torque wrench calibration due"
    assert answer.sources[0][1].chunk.path == "ops/daemon.md", [h.chunk.path for _, h in answer.sources]
    first = next(line for line in answer.text.splitlines() if line.startswith("- "))
    assert "telemetry.enabled = false" in first, answer.text
    assert "torque" not in answer.text.lower(), answer.text


@pytest.mark.parametrize("question", ["And how do I turn it off?", "Can I switch it off?"])
def test_a_follow_up_that_leans_on_the_earlier_turn_borrows_its_subject(ws, question):
    answer = ws.ask(question, history=EARLIER)
    assert answer.retrieval_query == f"{question} torque wrench calibration due"
    assert answer.sources[0][1].chunk.path.endswith("tools/wrench.md"), [h.chunk.path for _, h in answer.sources]
    # Both pages say how to turn something off: the borrowed words tell which. The answer leads with what the
    # follow-up asks of the earlier subject, not with the earlier answer.
    first = next(line for line in answer.text.splitlines() if line.startswith("- "))
    assert "wrench.reminder = false" in first, answer.text


def test_which_follow_ups_refer_back():
    earlier = [Turn("How do I enable the frobnicator?", "Set frob = true [1].")]
    # Fragments and questions about "it" / "that" borrow the earlier subject ...
    for q in ("and for the second one?", "what about on Windows?", "And what about tests?", "and on Windows?",
              "And how do I turn it off?", "so how do I test that?", "Also, why?", "and the timeout?",
              "But is it thread-safe?", "How about the CLI?", "But what if I use Windows?"):
        assert refers_back(q), q
        assert carry_terms(q, earlier).endswith("enable frobnicator"), q
    # ... a whole question of its own after a connective does not.
    for q in ("And which version is running?", "So where are the logs?", "Then how do I check the disk usage?",
              "And what is the default port of the web server?", "Also, can the cache be shared between users?",
              "OK, and which Python versions are supported?"):
        assert not refers_back(q), q
        assert carry_terms(q, earlier) == q, q
