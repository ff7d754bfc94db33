"""The name test (retrieval/user_context.py, read by names.py `question_names` and `name_terms`; abstention's
absent_name veto) on names
that only describe the user's own things, as the question's grammar marks them: after "for my/our ..." ("for my
JavaScript project"), in a phrase of theirs opening the sentence up to a comma ("Behind our TLS-terminating proxy,"),
and between an article or a possessive and its noun in a long parenthetical aside ("(Option+F on a Mac keyboard)").
Three answerable questions of that form were refused as "the docs never mention ..." on real dev sets (Task's tk10,
Kinto's kp19, prompt-toolkit's pt07; bench/history/session-66.md, "Abstention: the user's own things"). On a real
index (tantivy + LanceDB + the offline MiniLM) of a small tool's docs written here, which never say JavaScript,
TLS or Mac: such questions are answered, and near misses naming the thing asked in a possessive phrase of another
form ("in my Kubernetes cluster", "from my .netrc file") or as an aside's own name ("(for example with Stryker)")
still abstain. A call written without backticks is judged by its callees, not its arguments (`callees`: Jest's js19
"I wrote expect(parseConfig(bad)).toThrow() ..." was refused for "parseConfig")."""

from __future__ import annotations

import pytest
from abstainkit import assert_abstains_naming, assert_answered
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.names import name_terms, question_names

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"install.md": """# Installing taskrun

taskrun is a task runner shipped as a single binary.

## With npm

If your project already uses npm, install the package `@taskrun/cli` globally:

    npm install -g @taskrun/cli

The package downloads the right binary for your platform when it is installed.

## From a release

Download the archive for your platform from the releases page and put the `taskrun` binary on your PATH.
""",
"proxy.md": """# Running behind a proxy

When taskrun's web dashboard runs behind a reverse proxy that speaks https to the browsers and plain http to
the dashboard, the URLs the dashboard hands back start with the scheme it was reached with. Set
`dashboard.url_scheme = "https"` so that every URL the dashboard generates starts with https:// instead of http://.
""",
"keys.md": """# Key bindings in the prompt

Add a binding to a `KeyMap` object with `keymap.add(...)`. Terminals translate the Alt key into a leading escape
key: to handle Alt+F, bind the two keys `'escape', 'f'`, which arrive one after the other. On keyboards with an
Option key instead of Alt, the terminal must be set to send Option as Meta for this to work.
""",
"testing.md": """# Testing tasks

To check that loading a task file fails, pass a function to `expect` and let it make the call:
`expect(() => loadTasks(file)).toThrow()`. The function that throws must be invoked inside a wrapping function,
otherwise the error is thrown before `toThrow` can catch it and the test fails with the error itself.
""",
"credentials.md": """# Credentials

taskrun reads the credentials of a remote cache from the environment variables `TASKRUN_USER` and
`TASKRUN_PASSWORD`, or from the `[cache]` table of the configuration file.
""",
}


def test_names_of_the_users_own_things():
    """The describing names of a "for my ..." phrase, a fronted phrase of theirs and a long aside are not names;
    the possessed noun, another preposition's phrase, a short gloss and an aside's own names are."""
    assert question_names("Which npm package do I install to get taskrun for my JavaScript project?") == ["npm"]
    assert question_names("Behind our TLS-terminating proxy, the URLs the dashboard hands back start with "
                          "http:// instead of https://.") == ["URLs"]
    assert question_names("How do I bind Alt+F (Option+F on a Mac keyboard) in a KeyMap object?") == \
        ["Alt+F", "Option+F", "KeyMap"]
    assert question_names("How do I run taskrun in my Kubernetes cluster?") == ["Kubernetes"]
    assert question_names("Can taskrun read the cache credentials from my .netrc file?") == [".netrc"]
    assert question_names("Does taskrun work for my Redis?") == ["Redis"]
    assert question_names("How do I run mutation testing (for example with Stryker) on my tasks?") == ["Stryker"]
    assert question_names("How do I authenticate with Windows auth (NTLM)?") == ["Windows", "NTLM"]


def test_a_calls_arguments_are_the_users():
    """A call written without backticks is judged by its callees: its arguments are the user's values and
    functions."""
    assert name_terms("I wrote expect(parseSettings(bad)).toThrow() but it crashes.") == \
        {"expect(parseSettings(bad)).toThrow": ["expect", "tothrow"]}
    assert name_terms("How do I call client.get('/users') with relative paths?") == {"client.get('/users": ["client", "get"]}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("own"), DOCS) as w:
        yield w


@pytest.mark.parametrize("question", [
    "Which npm package do I install to get taskrun for my JavaScript project?",
    ("Behind our TLS-terminating proxy, the URLs the taskrun dashboard hands back start with http:// instead of "
     "https://."),
    "How do I bind Alt+F (Option+F on a Mac keyboard) in a KeyMap object?",
    ("I wrote expect(parseSettings(bad)).toThrow() but the test crashes with the error itself instead of passing. "
     "What am I doing wrong?"),
])
def test_a_name_of_the_users_own_thing_is_no_absent_name(ws, question):
    """No chunk holds JavaScript, TLS, Mac or parseSettings; the docs answer for the tool, not the user's project,
    proxy, keyboard or function. No absent name, answered."""
    assert_answered(ws, question)


@pytest.mark.parametrize(("question", "name"), [
    ("How do I run taskrun as a job in my Kubernetes cluster?", "Kubernetes"),
    ("Can taskrun read the remote cache credentials from my .netrc file?", ".netrc"),
    ("How do I run mutation testing (for example with Stryker) on my taskrun tasks?", "Stryker"),
])
def test_a_name_the_question_asks_about_still_abstains(ws, question, name):
    """A possessive phrase after another preposition, and an aside's own name, name what is asked."""
    assert_abstains_naming(ws, question, name)
