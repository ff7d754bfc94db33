"""A reference page titles each option by its bare lower-case name ("languages" over "A list of locale names ...",
beets' configuration reference; "## allow-features", Cargo's; "log-big", uWSGI's options) and its prose never
repeats it: an extractive answer shows the passages under such a heading led by the name
(answer/labels.py `bare_heading_label`, `passages.Unit.lead`) — and scores and embeds them as before (the name is
no evidence that a passage answers). Real stores (tantivy, LanceDB), the offline model, `RagWorkspace.ask` without
an LLM."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.extractive import render_extractive
from ragls.answer.labels import bare_heading_label
from ragls.answer.passages import Unit, units

CONFIG_RST = """\
Configuration
=============

Tagpipe reads its settings from ``config.yaml`` in your configuration directory.

languages
~~~~~~~~~

A list of locale names to search for preferred aliases. For example, setting this to ``en`` uses the
transliterated artist name "Pyotr Ilyich Tchaikovsky" instead of the Cyrillic script when tagging.

id3v23
~~~~~~

By default, tagpipe writes MP3 tags using the ID3v2.4 standard, the latest version of ID3. Enable this option to
instead use the older ID3v2.3 standard, which older players prefer.
"""

FEATURES_MD = """\
# Feature settings

## allow-features

Restricts which unstable features the build may enable; the list is checked before any crate is compiled.

## Usage notes

The build reads these settings once, when it starts.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("bare"), {"config.rst": CONFIG_RST,
                                                                "features.md": FEATURES_MD}) as w:
        yield w


@pytest.mark.parametrize(("question", "shown"), [
    ("How do I get transliterated artist names instead of Cyrillic ones when tagging?", "- `languages`: "),
    ("My old car stereo only reads ID3v2.3 tags. Can tagpipe write the older version?", "- `id3v23`: "),
    ("Can I restrict which unstable features the build may enable?", "- `allow-features`: Restricts which"),
])
def test_a_passage_under_a_bare_name_heading_is_shown_led_by_it(ws, question, shown):
    answer = ws.ask(question).text
    assert shown in answer, answer


def test_the_name_is_shown_not_scored():
    """The passages' scored text is as written; a heading in words ("## Usage notes", "Configuration") leads
    nothing."""
    found = units(FEATURES_MD)
    assert [(u.lead, u.sentence[:20]) for u in found] == [("`allow-features`", "Restricts which unst"),
                                                         ("", "The build reads thes")]
    assert [u.lead for u in units(CONFIG_RST, markdown=False)] == ["", "`languages`", "`languages`", "`id3v23`",
                                                                   "`id3v23`"]
    assert [bare_heading_label(x) for x in ("## log-big", "### base", "## Usage", "## `--check`", "socket")] == [
        "`log-big`", "`base`", "", "", "`socket`"]


def test_a_passage_naming_it_in_another_case_is_not_led_by_it():
    """Werkzeug's "nginx" page: "Installing and running Nginx itself ..." names it already (a bare name is a
    word; its capital is the sentence's), and "`nginx`: Installing ..." repeated it."""
    answer = render_extractive([(1, Unit("Installing and running Nginx itself is outside the scope of this doc.",
                                         lead="`nginx`")),
                                (2, Unit("A list of locale names to search for preferred aliases.",
                                         lead="`languages`"))])
    assert answer.endswith("\n- Installing and running Nginx itself is outside the scope of this doc [1].\n"
                           "- `languages`: A list of locale names to search for preferred aliases [2]."), answer
