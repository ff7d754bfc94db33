"""A configuration example's comments are passages (answer/passages.py `_commented`), with the real offline model:
Zola documents every setting of `config.toml` only in the comment above it, in one ```` ```toml ```` block; the
extractive answer never named `preserve_dotfiles_in_output` for a user whose rebuilds wipe the output folder's
dotfiles, because a code block was a passage only under a sentence introducing it."""

from __future__ import annotations

import pytest
from askkit import extractive_over
from ragls.answer.passages import units


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


CONFIG = """## Configuration

All configuration variables used by the site generator, with their default values, are listed below:

```toml
# The base URL of the site; the only required configuration variable.
base_url = "https://mywebsite.com"

# For overriding the default output directory `public`, set it to another value (e.g.: "docs")
output_dir = "public"

# Whether dotfiles at the root level of the output directory are preserved when (re)building the site.
# Enabling this also prevents the deletion of the output folder itself on rebuilds.
preserve_dotfiles_in_output = false

# When set to "true", a search index is built from the pages' content.
build_search_index = false
```

Every page can override the title of the site.
"""


def test_each_commented_setting_of_a_config_block_is_a_passage():
    found = [(u.sentence, u.attached, u.line, u.end) for u in units(CONFIG) if u.line > 2]  # inside the block
    assert found[0] == ("The base URL of the site; the only required configuration variable:",
                        "```toml\nbase_url = \"https://mywebsite.com\"\n```", 5, 6)
    # a configuration comment ending in ")" is prose (`code_passages._CONFIG_CODE_END`), not a setting commented out
    assert found[1] == ('For overriding the default output directory `public`, set it to another value (e.g.: "docs"):',
                        "```toml\noutput_dir = \"public\"\n```", 8, 9)
    assert found[2] == (("Whether dotfiles at the root level of the output directory are preserved when (re)building "
                         "the site. Enabling this also prevents the deletion of the output folder itself on rebuilds:"),
                        "```toml\npreserve_dotfiles_in_output = false\n```", 11, 13)
    assert len(found) == 5 and found[-1][0] == "Every page can override the title of the site."


def test_a_rest_code_block_in_a_configuration_language_is_read_too():
    rest = ("Settings go in the file:\n\n.. code-block:: ini\n\n    # Whether the widgets are shown in the sidebar of every "
            "page.\n    show_widgets = true\n\nDone here.\n")
    found = [(u.sentence, u.attached, u.line, u.end) for u in units(rest, markdown=False)][1:]
    assert found == [("Whether the widgets are shown in the sidebar of every page:", "```ini\nshow_widgets = true\n```",
                      4, 5)]


def test_settings_commented_out_are_no_passages():
    """Cargo's and beets' examples comment settings out ("# branch = \"master\"", "copy: no  # Use files in
    place"): what they hold is no prose saying what the setting below does."""
    toml = ("```toml\n[dependencies]\n# branch = \"master\"\n# tag = \"v1.0.1\"\nregex = { git = \"https://example.com\" }\n"
            "```\n")
    yaml = "```yaml\nimport:\n    # copy: no  # Use files in place\n    write: no\n```\n"
    assert [u for u in units(toml) if u.line > 0] == [] and [u for u in units(yaml) if u.line > 0] == []


# Jujutsu's config.md (jj-vcs/jj 9d905d5, docs/config.md "Diff format" and "Paging"): comment lines wrapped at ","
# and ending in ")" or ":" are prose; until session 53 they read as commented-out code and the block had no passage.
JJ = """### Diff format

```toml
[ui]
# Builtin formats: ":color-words" (default), ":git",
#                  ":summary", ":stat", ":types", ":name-only"
# or external command name and arguments (see below)
diff-formatter = ":git"
```

In color-words diffs, changed words are displayed inline by default when color output is enabled.

Additionally, paging behavior can be toggled via `ui.paginate` like so:

```toml
[ui]
# Enable pagination for commands that support it (default)
paginate = "auto"
# Disable all pagination, equivalent to using --no-pager
paginate = "never"
```
"""


def test_a_comment_wrapped_at_commas_and_ending_in_a_bracket_is_prose():
    found = {u.line: (u.sentence, u.attached) for u in units(JJ)}
    assert found[4] == (('Builtin formats: ":color-words" (default), ":git", ":summary", ":stat", ":types", '
                         '":name-only" or external command name and arguments (see below):'),
                        '```toml\ndiff-formatter = ":git"\n```')
    assert found[16] == ("Enable pagination for commands that support it (default):", '```toml\npaginate = "auto"\n```')


def test_a_setting_or_section_commented_out_in_configuration_is_still_code():
    """Only a line that reads as a setting ("# key = value", "# args: [--fix]", a YAML "# extra:") or a section
    ("# [tool.black]") makes a configuration comment code."""
    toml = "```toml\n# [tool.black]\n# line-length = 88\nx = 1\n```\n"
    yaml = "```yaml\n# Arguments to show as an example\n# args: [--rules, \"LT02\"]\nrepos: []\n```\n"
    assert [u for u in units(toml) if u.line > 0] == [] and [u for u in units(yaml) if u.line > 0] == []


def test_a_configuration_comment_led_by_a_label_is_prose():
    """"# Note:" on a line of its own is the label of the prose after it, not a YAML key commented out; a lower-case
    key ("# extra:") still is."""
    yaml = ("```yaml\n# Note:\n# the cache directory must be writable by the user running the hook.\n"
            "cache_dir: .cache\n```\n")
    assert [(u.sentence, u.attached) for u in units(yaml)] == [
        ("Note: the cache directory must be writable by the user running the hook:", "```yaml\ncache_dir: .cache\n```")]
    section = "```yaml\n# extra:\n#   analytics: true\ntheme: material\n```\n"
    assert [u for u in units(section) if u.line > 0] == []


def test_a_program_examples_comments_are_no_passages():
    """Only a configuration language's block: a program's comments narrate its steps ("# Don't send the API key
    for this particular request."), and quoted as passages they outranked the prose that explains the example."""
    python = CONFIG.replace("```toml", "```python")
    assert [u.sentence for u in units(python)] == [
        "All configuration variables used by the site generator, with their default values, are listed below:",
        "Every page can override the title of the site."]


def test_the_setting_a_comment_documents_answers(embedder):
    answer = extractive_over("Every rebuild wipes the dotfiles I keep in the output directory. Can I keep them?",
                             CONFIG, "configuration.md", embedder.embed_documents)
    assert "- Whether dotfiles at the root level of the output directory are preserved when (re)building the site. " \
           "Enabling this also prevents the deletion of the output folder itself on rebuilds [1]:\n" \
           "  ```toml\n  preserve_dotfiles_in_output = false\n  ```" in answer, answer
