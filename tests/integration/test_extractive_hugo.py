"""Extractive answers over Markdown docs built with Hugo: shortcode lines (`{{% note %}}` ... `{{% /note %}}`,
`{{< tab tabID="..." >}}`, `{{< steps >}}`) frame prose and code and are no text of it (answer/markup.py). Before,
a note's first sentence was quoted as "{{% note %}} If you ..." and a tab's code block was introduced by the tab's
shortcode line alone ("- {{< tab tabID="build-script" >}} [1]" over the code). Real stores (tantivy, LanceDB), the
offline model, `RagWorkspace.ask` without an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.markup import clean_markup

ENVIRONMENTS = """# Managing environments

Quokka creates one virtual environment per project, with the interpreter it was installed with.

{{% note %}}
If you use a tool like pyenv to manage different Python versions, you can switch the current `python` of your shell
and Quokka will use it to create the new environment.
{{% /note %}}

{{< tabs tabTotal="2" >}}
{{< tab tabID="linux" >}}

To point the project at another interpreter, run `quokka env use` with its path:

```bash
quokka env use /usr/local/bin/python3.12
```

{{< /tab >}}
{{< /tabs >}}

{{% warning %}}
Removing an environment with `quokka env remove` deletes its site-packages folder for good.
{{% /warning %}}
"""


# GoReleaser's configuration reference: a badge shortcode inside a YAML comment and inside a sentence
PUBLISH = """# Publishing

Quokka can publish the built wheels to an index {{< g_inline_pro >}} after every tagged release.

```yaml
publish:
  # Whether to sign the wheels before uploading them to the index. {{< g_inline_pro >}}
  # {{< g_inline_version "v2.6" >}} Default: false.
  sign_wheels: true
```
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("hugo"), {"environments.md": ENVIRONMENTS,
                                                               "publishing.md": PUBLISH}) as w:
        yield w


def test_shortcode_lines_are_no_text_of_the_answer(ws):
    """The note's sentence and the tab's ":" sentence with its code answer; no shortcode reaches the answer."""
    answer = ws.ask("I manage my Python versions with pyenv. How do I make Quokka use the 3.12 interpreter "
                    "for this project?").text
    assert "- To point the project at another interpreter, run `quokka env use` with its path [1]:" in answer, answer
    assert "quokka env use /usr/local/bin/python3.12" in answer, answer
    assert "{{" not in answer and "}}" not in answer, answer


def test_shortcode_lines_leave_empty_lines():
    """Line numbers never move (citations point at the file's lines): each shortcode line becomes an empty line.
    Hugo's escaped example `{{</* note */>}}` (how Hugo's own docs show a shortcode) and template tags stay text."""
    text = "{{% note %}}\nA note.\n{{% /note %}}\n{{< /tab >}}{{< tab tabID=\"x\" >}}\n{{</* note */>}}\n{% raw %}"
    assert clean_markup(text).split("\n") == ["", "A note.", "", "", "{{</* note */>}}", "{% raw %}"]


def test_inline_shortcodes_are_no_text_of_the_answer(ws):
    """A shortcode inside a line (a "Pro" badge, a version badge; answer/inline.py `SHORTCODE`) is no text: the YAML
    comment over `sign_wheels` and the sentence read without it (GoReleaser's comments read "{{< g_inline_pro >}}
    Default: ..."), and the setting still answers. (A code block an answer shows is shown as written.)"""
    answer = ws.ask("How do I make Quokka sign the wheels before uploading them to the index?").text
    assert "sign_wheels: true" in answer, answer
    bullets = [line for line in answer.splitlines() if line.startswith("- ")]
    assert "- Whether to sign the wheels before uploading them to the index. Default: false [1]:" in bullets, answer
    assert "- Quokka can publish the built wheels to an index after every tagged release [1]." in bullets, answer
    assert not any("{{" in line or "}}" in line for line in bullets), answer
