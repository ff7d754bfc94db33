"""The user's own values read as names or as an asked value (retrieval/names.py `question_names`, retrieval/
asked_value.py `asked_value`; abstention's absent_name and value_missing vetoes). Five answerable questions of real
dev sets were refused so (bench/history/session-68.md, "Abstention: the 14 refusals"): a version with a build's letter
(Cython's cy12 "free-threaded CPython 3.13t"), a tag of the user's, an English label before a version (python-
semantic-release's sr25 "tags like release-2.3.0"), the user's folders, a path of words and numbers (Zola's zola-i15
"(posts/2023, posts/2024)"), the run-commands file of a program the question names (jj's jj-i10 "completion in bash
... What do I put in .bashrc?"), and the second half of an indirect question read as a value asked (Cargo's
cargo-i11 "a report of how long each crate took to compile and how much ran in parallel?"). On a real index
(tantivy + LanceDB + the offline MiniLM) of a small site generator's docs written here, which write none of those
values: such questions are answered, and names of another form ("HTTP/3", ".netrc", a product's "gevent-1.4") and a
value asked outright still abstain."""

from __future__ import annotations

import pytest
from abstainkit import assert_abstains_naming, assert_answered
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.asked_value import asked_value
from ragls.retrieval.names import question_names

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"sections.md": """# Sections

Each folder under `content/` is a section, and its pages are listed on the section's page. A section nested in
another one keeps its pages to itself.

## Transparent sections

Set `transparent = true` in a nested section's `_index.md` to pass its pages on to the parent section: the parent
lists them as if they were its own. Useful for sections that only group pages, such as a folder for each year
under a blog section.
""",
"completion.md": """# Shell completion

sitegen completes its commands, its options and the names of your pages in bash, zsh and fish. For bash, load the
completion script from your shell's startup file:

    source <(COMPLETE=bash sitegen)

For zsh, add `source <(COMPLETE=zsh sitegen)` to the startup file instead.
""",
"versions.md": """# Versions and tags

sitegen finds the last released version of your theme from the Git tags of its repository. Only tags that match
`tag_format` are read; the default format is `v{version}`. Tags in any other format are ignored, so a repository
whose tags use another prefix looks as if it was never released until `tag_format` matches them.
""",
"plugins.md": """# Native plugins

Plugins written in C are loaded into the build process. A plugin built for the free-threaded CPython interpreter must
declare it with the module directive `# sitegen: freethreading_compatible = True`; without it, importing the plugin
turns the global interpreter lock (GIL) back on for the whole build.
""",
"timings.md": """# Build timings

`sitegen build --timings` writes a report of how long each page took to render and how much of the build ran in
parallel, as an HTML file next to the output folder. Use it to find the pages that slow a build down.
""",
}


def test_the_users_values_are_no_names():
    """A version with a build's letter or an English label, a path of words and numbers and the run-commands file
    of a program the question names are not names; an acronym's protocol version, a file of its own and a
    product's version label are."""
    assert question_names("How do I load my plugin on CPython 3.13t?") == ["CPython"]
    assert question_names("Why are tags like release-2.3.0 ignored?") == []
    assert question_names("I keep posts in yearly folders (posts/2023, posts/2024).") == []
    assert question_names("I want completion in bash. What do I put in .bashrc?") == []
    assert question_names("Can sitegen serve pages over HTTP/3?") == ["HTTP/3"]
    assert question_names("Can sitegen read credentials from my .netrc file?") == [".netrc"]
    assert question_names("Can I put the completion in my .vimrc?") == [".vimrc"]
    assert question_names("Does sitegen run on gevent-1.4?") == ["gevent-1.4"]


def test_an_indirect_question_continued_asks_no_value():
    """"... a report of how long X took and how much Y": the "and how much" goes on with the report asked for, not
    a value asked; asked outright it is one."""
    assert asked_value("Is there a way to get a report of how long each page took to render and how much ran in "
                       "parallel?") is None
    assert asked_value("How long does a build take, and how much of it runs in parallel?") == "amount"
    assert asked_value("Is there a way to see the build, and how much memory does it use?") == "amount"


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("values"), DOCS) as w:
        yield w


@pytest.mark.parametrize("question", [
    "Which directive do I set so importing my plugin on free-threaded CPython 3.13t doesn't turn the GIL back on?",
    ("sitegen acts as if my theme was never released, even though the repo has tags like release-2.3.0. Why are they "
    "ignored?"),
    ("I keep posts in yearly subfolders (posts/2023, posts/2024) but want the blog page to list all of them together, "
    "as if there were no subfolders."),
    "I want tab completion in bash that also completes my page names. What do I put in .bashrc?",
    ("A clean build takes ten minutes. Is there a way to get a report of how long each page took to render and how "
    "much ran in parallel?"),
])
def test_a_question_with_the_users_values_is_answered(ws, question):
    """No chunk holds 3.13t, release-2.3.0, posts/2023, .bashrc or the build's timings; the docs answer for the
    tool, not for the user's interpreter build, tags, folders, shell file or build. No veto, answered."""
    assert_answered(ws, question, value=True)


@pytest.mark.parametrize(("question", "name"), [
    ("Can sitegen serve the built pages over HTTP/3?", "HTTP/3"),
    ("Can sitegen read the credentials of my theme's repository from my .netrc file?", ".netrc"),
])
def test_a_name_the_question_asks_about_still_abstains(ws, question, name):
    """A protocol's version and a file format of its own name what is asked."""
    assert_abstains_naming(ws, question, name)


def test_a_value_asked_outright_still_abstains(ws):
    """The docs never state how long a build takes: asked for outright, that value is missing."""
    question = "How long does a clean sitegen build of a blog section take by default?"
    result = ws.retrieve(question)
    assert result.evidence.value_missing, result.evidence
    assert ws.query(question).abstained
