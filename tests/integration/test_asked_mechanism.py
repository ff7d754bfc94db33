"""A way asked for whose answer has a closed vocabulary, none of it stated (retrieval/asked_limit.py `MECHANISMS`,
`mechanism_missing`; abstention's mechanism_missing veto): a question asking a tool to retry what failed, to send a
notification when something happens or to report how long each step took abstains when none of the top hits'
context windows says a word of it, and is answered where one does ("A failed download is retried up to three
times"). On a real index (tantivy + LanceDB + the offline MiniLM) of a small task runner's docs written here: without
their downloads page they state no retry, with it a retry of downloads. Near misses of these forms were answered on
real dev sets (Task's tn31 and tn33, Lefthook's lefthook-n04, Alembic's al-n03: bench/history/session-68.md,
"Abstention: the 14 refusals, and a way asked whose word no passage says")."""

from __future__ import annotations

import pytest
from offline_index import indexed_folder
from ragls.answer.ask import _evidence_reason
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.asked_limit import mechanism_asked, mechanism_missing
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"tasks.md": """# Tasks

A task is a list of commands run one after another in the project folder. `taskrun build` runs the task named
build; when the task finishes, taskrun prints which commands failed and exits with the code of the first failing
command. A long build can be split into several tasks that depend on each other: each dependency runs first, once.

## Sources and outputs

List the files a task reads under `sources` and the files it writes under `outputs`. When no source file has
changed since the last run and every output file exists, the task is skipped and taskrun says it is up to date.
""",
"downloads.md": """# Downloading tools

A task can download the tools it needs with `fetch:` entries. A failed download is retried up to three times, with
a pause that doubles after each attempt; set `fetch_retries` to change how many attempts are made. A download that
still fails fails the task.
""",
"output.md": """# Output

By default the output of each command is printed as it comes. With `output: group` the lines of one command are
printed together when the command finishes, so the output of commands run at the same time does not mix. The
summary at the end of a run lists each task and whether it failed.
""",
}


def _workspace(tmp_path_factory, name: str, docs: dict[str, str]):
    """A workspace of one folder of `docs` (file name -> text), indexed for real, closed after the module."""
    w = RagWorkspace([indexed_folder(tmp_path_factory.mktemp(name), docs, toml='[generation]\nbackend = "none"\n')])
    yield w
    w.close()


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    """The docs without the downloads page: no retry of anything is stated."""
    yield from _workspace(tmp_path_factory, "ways", {k: v for k, v in DOCS.items() if k != "downloads.md"})


@pytest.fixture(scope="module")
def ws_retries(tmp_path_factory):
    """The docs with the downloads page, which states retries."""
    yield from _workspace(tmp_path_factory, "retries", DOCS)


def test_the_asking_forms():
    """Each way is asked for as the user's request; a value asked, a re-run without failure, an alert with no
    event or a watch mode (the family dropped) are not."""
    assert mechanism_asked("Can taskrun automatically retry a flaky command a few times?") == ("retrying",)
    assert mechanism_asked("How do I make it try again automatically when the network is flaky?") == ("retrying",)
    assert mechanism_asked("Can taskrun show a desktop notification when a long build finishes?") == ("a notification",)
    assert mechanism_asked("How can I get an email when my nightly build fails?") == ("a notification",)
    assert mechanism_asked("Can taskrun print how long each task took at the end of a run?") == ("timings",)
    assert mechanism_asked("How many times does taskrun retry a failed download by default?") == ()
    assert mechanism_asked("How do I re-run just the task I name?") == ()
    assert mechanism_asked("How do I turn the alerts off?") == ()
    assert mechanism_asked("Does taskrun have a watch mode that re-runs the task when a file changes?") == ()


def test_a_way_stated_in_other_words_is_stated():
    """The stated words of each way, in any case and inflection; a link's target states nothing."""
    asked = "Can taskrun retry a failed command automatically?"
    assert mechanism_missing(asked, ["Commands run one after another.", "A task fails with its first command."]) \
        == "retrying"
    assert mechanism_missing(asked, ["A failed command is Retried twice."]) == ""
    assert mechanism_missing(asked, ["See [the guide](https://example.com/retry) on commands."]) == "retrying"
    assert mechanism_missing("Can taskrun print how long each task took?", ["Each task's duration is shown."]) == ""


@pytest.mark.parametrize(("question", "way"), [
    ("Can taskrun automatically re-run a failing command a few times before failing the task?", "retrying"),
    ("Can taskrun alert me when a long build task finishes?", "a notification"),
    ("Can taskrun print how long each task took at the end of a run?", "timings"),
])
def test_a_way_the_docs_never_name_abstains(ws, question, way):
    """The docs (without the downloads page) discuss commands that fail, builds that finish, the end of a run and
    changed source files, never a retry, a notification or timings: the veto applies and says which way
    is missing. Each of these was answered before the veto (P 0.75-0.86); a question whose own word no chunk holds
    ("send me an email", "show a notification") was refused already."""
    evidence = ws.retrieve(question).evidence
    assert evidence.mechanism_missing == 1.0 and evidence.missing_mechanism == way, evidence
    assert ws.query(question).abstained
    assert _evidence_reason(evidence, question) == f"the passages found discuss it but never mention {way}"


def test_a_way_the_docs_state_is_answered(ws_retries):
    """Downloads are retried: the retry asked for a flaky download is answered."""
    question = "Can taskrun retry a flaky tool download automatically before it fails the task?"
    evidence = ws_retries.retrieve(question).evidence
    assert evidence.mechanism_missing == 0.0, evidence
    assert not ws_retries.query(question).abstained, evidence
