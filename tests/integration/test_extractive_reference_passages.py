"""Passages of configuration references (answer/passages.py, answer/code_passages.py, answer/labels.py), on the real
text of two references and with the real offline model where an answer is asked for:

- GoReleaser documents each setting of `.goreleaser.yaml` in the YAML comment above it, closing the comment with
  "# Default: false." or "# Templates: allowed." — lines that read as a YAML key commented out, so no such setting
  had a passage (`code_passages._CONFIG_CODE_END`: a capitalised word before ":" is prose's label);
- Caddy defines each subdirective in one list item as long as a paragraph ("- **stream_close_delay** is ... Enabling
  this ... A reasonable starting point might be something like `5m` ... Default: no delay."), which quoted whole was
  cut at EXTRACTIVE_MAX_SENTENCE_CHARS ("... Enabling this may be a good idea to avoid a thundering herd of
  reconnecting …"): its sentences are passages, as a paragraph's, the later ones led by the name the item defines
  (`labels.item_label`).
"""

from __future__ import annotations

import pytest
from askkit import extractive_over
from ragls.answer.passages import units


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


# goreleaser/goreleaser cd616d2, www/content/customization/publish/scm/_index.md (the `release` section)
GORELEASER = """Let's see what can be customized in the `release` section for GitHub:

```yaml {filename=".goreleaser.yaml"}
release:
  # If set to true, will not auto-publish the release.
  # Note: all GitHub releases start as drafts while artifacts are uploaded.
  # Available only for GitHub and Gitea.
  draft: true

  # Useful if you want to delay the creation of the tag in the remote.
  # You can create the tag locally, but not push it, and run GoReleaser.
  # It'll then set the `target_commitish` portion of the GitHub release to the
  # value of this field.
  # Only works on GitHub.
  #
  # Default: ''.
  # Templates: allowed.
  target_commitish: "{{ .Commit }}"

  # If set to auto, will mark the release as not ready for production
  # in case there is an indicator for this in the tag e.g. v1.0.0-rc1
  # If set to true, will mark the release as not ready for production.
  # Default: false.
  prerelease: auto
```
"""


def test_a_yaml_comment_closed_by_a_labelled_line_is_a_passage():
    found = {u.attached: u.sentence for u in units(GORELEASER) if u.line > 2}
    assert found['```yaml\nprerelease: auto\n```'] == (
        "If set to auto, will mark the release as not ready for production in case there is an indicator for this in "
        "the tag e.g. v1.0.0-rc1 If set to true, will mark the release as not ready for production. Default: false:")
    assert found['```yaml\ntarget_commitish: "{{ .Commit }}"\n```'].endswith("Default: ''. Templates: allowed:")


def test_the_setting_under_a_labelled_comment_answers(embedder):
    answer = extractive_over("When I tag v2.0.0-rc1 the GitHub release should be flagged as a pre-release "
                             "automatically, but normal tags shouldn't. How?", GORELEASER, "scm.md",
                             embedder.embed_documents)
    # a passage of its own, not a comment line inside the whole block the lead-in sentence carries
    assert "- If set to auto, will mark the release as not ready for production" in answer, answer
    assert "prerelease: auto" in answer, answer


# caddyserver/website 1a6bbd7, src/docs/markdown/caddyfile/directives/reverse_proxy.md ("Streaming")
CADDY = """#### Streaming

- **stream_timeout** <span id="stream_timeout"/> is a [duration value](/docs/conventions#durations) after which streaming requests such as WebSockets will be forcibly closed at the end of the timeout. This essentially cancels connections if they stay open too long. A reasonable starting point might be `24h` to cull connections older than a day. Default: no timeout.

- **stream_close_delay** <span id="stream_close_delay"/> is a [duration value](/docs/conventions#durations) which delays streaming requests such as WebSockets from being forcibly closed when the config is unloaded; instead, the stream will remain open until the delay is complete. In other words, enabling this prevents streams from immediately closing when Caddy's config is reloaded. Enabling this may be a good idea to avoid a thundering herd of reconnecting clients which had their connections closed by the previous config closing. A reasonable starting point might be something like `5m` to allow users 5 minutes to leave the page naturally after a config reload. Default: no delay.
"""


def test_an_item_as_long_as_a_paragraph_is_read_sentence_by_sentence():
    found = [(u.sentence, u.line, u.end) for u in units(CADDY)]
    assert found[0] == (("**stream_timeout** is a duration value after which streaming requests such as WebSockets will "
                         "be forcibly closed at the end of the timeout. This essentially cancels connections if they "
                         "stay open too long. A reasonable starting point might be `24h` to cull connections older "
                         "than a day. Default: no timeout."), 2, 2)  # shorter than a cut: whole
    assert found[1:] == [  # its sentences, the later led by the name the item defines
        (("**stream_close_delay** is a duration value which delays streaming requests such as WebSockets from being "
          "forcibly closed when the config is unloaded; instead, the stream will remain open until the delay is "
          "complete."), 4, 4),
        (("`stream_close_delay`: In other words, enabling this prevents streams from immediately closing when "
          "Caddy's config is reloaded."), 4, 4),
        (("`stream_close_delay`: Enabling this may be a good idea to avoid a thundering herd of reconnecting "
          "clients which had their connections closed by the previous config closing."), 4, 4),
        (("`stream_close_delay`: A reasonable starting point might be something like `5m` to allow users 5 minutes "
          "to leave the page naturally after a config reload. Default: no delay."), 4, 4)]


# benoitc/gunicorn 65ac1a3, docs/content/reference/settings.md (the `reload` entry and the next one)
GUNICORN = """## Debugging

### `reload`

**Command line:** `--reload`

**Default:** `False`

Restart workers when code changes.

This setting is intended for development. It will cause workers to be
restarted whenever application code changes.

### `reload_engine`

**Command line:** `--reload-engine STRING`

**Default:** `'auto'`

The implementation that should be used to power [reload](#reload).
"""

# python-poetry/poetry f467023, docs/configuration.md (the `cache-dir` entry)
POETRY = """### `cache-dir`

**Type**: `string`

**Environment Variable**: `POETRY_CACHE_DIR`

The path to the cache directory used by Poetry.
"""


def test_a_reference_entry_s_description_is_quoted_with_its_fields(embedder):
    """The description ("Restart workers when code changes.") names the setting by its heading only; the option the
    user types is in the fields above it (`neighbours.describes`; main quoted "`reload`: Restart workers when code
    changes." without `--reload`)."""
    answer = extractive_over("While developing I want the workers to restart whenever I edit my code. Which option "
                             "does that?", GUNICORN, "settings.md", embedder.embed_documents)
    assert ("- `reload`: **Command line:** `--reload` **Default:** `False`. Restart workers when code changes [1]."
            in answer.splitlines()), answer


def test_describes_reads_bold_fields_naming_code_only():
    from ragls.answer.neighbours import describes

    found = units(POETRY)
    assert [u.sentence for u in found] == [
        "`cache-dir`: **Environment Variable**: `POETRY_CACHE_DIR`",  # "**Type**: `string`": under MIN_WORDS
        "`cache-dir`: The path to the cache directory used by Poetry."]
    assert describes(*found)
    note = units("**Note:** this runs before any worker starts.\n\nThe hook takes the arbiter as its argument.\n")
    assert len(note) == 2 and not describes(*note)  # prose in bold, no field naming code
    prose = units("**Important**: while it is possible to pipe a command's output to restic using `--stdin`, doing so "
                  "is discouraged.\n\nFor example, a failed dump still makes an empty backup.\n")
    assert len(prose) == 2 and not describes(*prose)  # a bold lead-in of prose (restic), not a field
    faq = units("**Answer**: Yes, use the `TERM` signal.\n\nThe worker finishes its task first.\n")
    assert len(faq) == 2 and not describes(*faq)  # a FAQ's answer (Celery) is a sentence, not a field
    named = units("### `reload`\n\n**Command line:** `--reload`\n\nThe `--reload` option restarts workers when code changes.\n")
    assert not describes(*named)  # the description names the option itself
