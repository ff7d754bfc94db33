"""Settings pages on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py `settings_factors`,
`retrieval.settings_page_weight`): a question asking what to set in the config has the tutorial that mentions the
flag first with the prior off; with the default the settings page (config/) that states the setting ranks first,
scored × the weight, every other chunk as before; a question without that asking clause changes nothing. A page not
named as the settings whose table of options states the flag (`doc_kind.defines_setting`) is weighed alike; so is a
page named by the settings reference's other common names, "conf" and "options"."""

from __future__ import annotations

from pathlib import Path

import offline_index
import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

TUTORIAL = """# Testing your project

The test command runs your test suite with pytest. Some tests are flaky: they fail now and then for no reason of
their own. Pass `--retries 2` and the test command will re-run failed tests automatically, up to two times, before
they count as failures. Pass `--parallel` to spread the tests over every CPU core.
"""
SETTINGS = """# Test settings

## Retries

The `retries` key of the `[tool.proj.test]` table is how many times a failing case is tried again before it is
reported, for every run; the `--retries` flag overrides it.

```toml
[tool.proj.test]
retries = 2
```
"""
ASKING = "Some of my tests are flaky. Can the test command re-run failed tests, and what do I set in the config so it always does?"
TASK = "Some of my tests are flaky. Can the test command re-run failed tests automatically?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("settings"),
                          {"tutorials/testing.md": TUTORIAL, "config/testing.md": SETTINGS})


def ranked(folder: Path, question: str, weight: float | None) -> list[tuple[str, float]]:
    return offline_index.ranked(folder, question, None if weight is None else {"settings_page_weight": weight})


def test_a_question_asking_for_a_setting_gets_the_settings_page_first(folder):
    off = ranked(folder, ASKING, 1.0)
    assert off[0][0] == "tutorials/testing.md"  # the prior off: the tutorial's flag wins the near tie
    got = ranked(folder, ASKING, None)
    assert got[0][0] == "config/testing.md"
    before = dict(off)
    assert got[0][1] == pytest.approx(1.2 * before["config/testing.md"])
    assert all(before[path] == pytest.approx(score) for path, score in got[1:])


def test_no_asking_clause_no_factor(folder):
    off, on = ranked(folder, TASK, 1.0), ranked(folder, TASK, None)
    assert [path for path, _ in on] == [path for path, _ in off]
    assert [score for _, score in on] == pytest.approx([score for _, score in off])


REFERENCE = """# The test command

Runs the project's test suite and reports the failures.

## Options

| Option | Description | Default |
|---|---|---|
| `--retries` | How many times a failed test is run again before it counts as a failure. | 0 |
| `--parallel` | Spread the tests over every CPU core. | false |
"""
WHICH = "Some tests are flaky and fail now and then for no reason. Which option re-runs failed tests automatically?"


@pytest.fixture(scope="module")
def reference_folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("options"),
                          {"tutorials/testing.md": TUTORIAL, "reference/test-command.md": REFERENCE})


def test_a_table_of_options_is_weighed_as_a_settings_page(reference_folder):
    off = ranked(reference_folder, WHICH, 1.0)
    assert off[0][0] == "tutorials/testing.md"  # the prior off: the tutorial's prose wins
    got = ranked(reference_folder, WHICH, None)
    assert got[0][0] == "reference/test-command.md"
    assert got[0][1] == pytest.approx(1.2 * dict(off)["reference/test-command.md"])


@pytest.mark.parametrize("path", ["conf.md", "caddyfile/options.md"])
def test_a_page_named_conf_or_options_is_a_settings_page(tmp_path, path):
    """The settings reference by its other common names: kitty's `conf.rst` (kitty.conf) and Caddy's
    `caddyfile/options.md` (global options) state each setting once, as `config/` does above."""
    folder = indexed_folder(tmp_path, {"tutorials/testing.md": TUTORIAL, path: SETTINGS})
    off = ranked(folder, ASKING, 1.0)
    assert off[0][0] == "tutorials/testing.md"
    got = ranked(folder, ASKING, None)
    assert got[0][0] == path
    assert got[0][1] == pytest.approx(1.2 * dict(off)[path])
