"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): an emphasised default statement
completes its paragraph (`passages._DEFAULT`), the sentence right after the block a quoted ":" sentence carries
comes with it when it names what the question asks (`neighbours._after_block`), and a ":" sentence with its whole
list takes the place of a quoted item of that list (`extractive._held_items`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

SETTINGS = """# Settings

### publish_branch

Set the remote branch to commit to when using `publish` to upload the site. This option can be overridden by a
command line option of `publish`.

**default**: `site-pages`

### publish_remote

Set the remote name to push to when using `publish` to upload the site. This option can be overridden by a command
line option of `publish`.

**default**: `upstream`
"""

SERVING = """# Serving applications

There are many ways to serve an application. While you're developing it, you usually don't want a full web server
up and running, but a simple standalone one. Because of that Quokka comes with a builtin development server.

The easiest way is creating a small `start-site.py` file that runs the application using the builtin server:

```python
from quokka.serving import serve
from site_app import make_app

app = make_app()
serve("localhost", 8080, app, use_reloader=True)
```

You can also pass it the `extra_files` keyword argument with a list of additional files (like configuration files)
you want to observe.

## Reloader

The Quokka reloader constantly monitors modules and paths of your application, and restarts the server if any of
the observed files change. There are two backends the reloader supports: `stat` and `events`.

- The default `stat` backend simply checks the modification time of all files in a regular interval.
- The `events` backend uses filesystem events, and is much faster than `stat`.

To switch between the backends you can use the `reloader_type` parameter of the `serve` function.

The dev server restarts as soon as a watched Python file changes on disk. A change to a template file does not
restart the dev server. Each restart of the dev server reloads the settings once. Editing a file while the dev server
restarts is safe. The dev server prints the name of the changed file before it restarts. A syntax error in an edited
file keeps the dev server waiting until the file is fixed. The dev server never restarts for a change in a virtual
environment. Making many changes at once causes one restart of the dev server. The dev server watches files in the
current folder by default. A file the dev server watches may be a `.py` file of the project or of a dependency.
"""

TITLES = """# Page titles

Quokka will attempt to determine the title of a document in the following ways, in order:

1. A title defined in the nav configuration setting for a document.
2. A title defined in the `title` meta-data key of a document.
3. A level 1 Markdown header on the first line of the document body.
4. The filename of a document.

Upon finding a title for a page, Quokka does not continue checking any additional sources in the above list.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    files = {"settings.md": SETTINGS, "serving.md": SERVING, "titles.md": TITLES}
    with extractive_workspace(tmp_path_factory.mktemp("leads"), files) as w:
        yield w


def _bullets(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


def test_an_emphasised_default_completes_its_paragraph(ws):
    """"**default**: `site-pages`" is a paragraph of its own under the setting it completes (MkDocs' configuration
    reference): read with that paragraph's last sentence, as "Default: ``10``" is. Before, the emphasis hid it
    from `_DEFAULT`, and the paragraph, under MIN_WORDS, was dropped: the answer never named the value."""
    answer = ws.ask("Which branch does publish push to by default?").text
    assert "This option can be overridden by a command line option of `publish`. **default**: `site-pages` [1]" \
        in answer, answer


def test_the_sentence_after_a_quoted_example_naming_the_option_comes_with_it(ws):
    """The ":" sentence is quoted with its `serve(...)` example; the sentence right after the example names
    `extra_files` ("files" is asked about), which neither the sentence nor the example names: it is quoted next,
    under its own citation."""
    answer = ws.ask("The dev server restarts when I edit a .py file but not when I change my settings.yaml. How do I "
                    "make serve watch that file too?").text
    lines = answer.splitlines()
    lead = next(i for i, x in enumerate(lines) if x.startswith("- The easiest way is creating a small"))
    end = lines.index("  ```", lead + 2)
    assert lines[end + 1].startswith("- You can also pass it the `extra_files` keyword argument"), answer


def test_a_lead_in_with_its_list_takes_the_place_of_a_quoted_item(ws):
    """"A title defined in the nav configuration setting ..." reads closest to the question, but it is one of four
    ways; its lead-in, above the floor, comes with the whole list in that item's place — the item is not quoted
    twice, and the other three ways are in the answer."""
    answer = ws.ask("When I don't give a page a title in nav, where does Quokka get the title it shows?").text
    lines = answer.splitlines()
    at = lines.index("- Quokka will attempt to determine the title of a document in the following ways, in order "
                     "[1]:")
    assert lines[at + 1:at + 5] == ["  1. A title defined in the nav configuration setting for a document.",
                                    "  2. A title defined in the `title` meta-data key of a document.",
                                    "  3. A level 1 Markdown header on the first line of the document body.",
                                    "  4. The filename of a document."], answer
    assert answer.count("A title defined in the nav configuration setting") == 1
