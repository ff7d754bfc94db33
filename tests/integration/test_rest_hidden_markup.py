"""reST markup no reader sees, kept out of the index (real stores, the offline model; index/rest_hidden.py): a file of
nothing but substitution definitions (a Sphinx `rst_prolog`, Hypothesis' `prolog.rst`) ranked above the page that
answers, and a page's closing block of link targets was a search hit of its own (bench/history/session-55.md, "The
right file first on kitty and Lefthook")."""

from __future__ import annotations

import pytest
from offline_index import folder_index, indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

NAMES = ["deadline", "max_examples", "derandomize", "database", "phases", "stateful_step_count", "report_multiple_bugs",
         "suppress_health_check", "verbosity", "print_blob", "backend", "seed"]
PROLOG = "\n".join(f".. |settings.{n}| replace:: :obj:`settings.{n} <hypothesis.settings.{n}>`\n"
                   f".. |~settings.{n}| replace:: :obj:`~hypothesis.settings.{n}`" for n in NAMES) + "\n"
SETTINGS = """Settings
========

Each test runs under a settings object. A test that takes longer than |settings.deadline| fails with a
``DeadlineExceeded`` error; set ``@settings(deadline=None)`` on a slow test to turn the check off for it.

Further reading
---------------

.. _pytest: https://docs.pytest.org/
.. _timeouts: https://example.org/timeouts
"""
DEADLINE = "How do I disable the settings deadline for slow tests?"
# A page whose closing block of link targets (beets' plugins/index.rst: 46 lines of them) fills a chunk of its own
PLUGINS = "Plugins\n=======\n\n" + "\n\n".join(
    f"The {n} plugin adds the `{n}`_ command to the library; enable it in the plugins list of your configuration and "
    f"run it on the albums you imported last." for n in NAMES) + "\n\n" + "\n\n".join(
    f".. _{n}{i}: https://example.org/plugins/{n}/and/a/long/address/of/its/documentation/page/{i}"
    for n in NAMES for i in range(3)) + "\n"


def _paths(folder, question: str) -> list[str]:
    ws = RagWorkspace([folder], read_only=True)
    try:
        return [h.chunk.path for h in ws.retrieve(question, top_k=10)]
    finally:
        ws.close()


def test_a_file_of_substitution_definitions_is_not_retrieved(tmp_path):
    # Hypothesis' prolog.rst filled three of the first five hits for a deadline question; a page's closing block of
    # link targets (beets' plugins/index.rst, 5th on a dev question) is nothing to cite either
    folder = indexed_folder(tmp_path, {"prolog.rst": PROLOG, "settings.rst": SETTINGS})
    got = _paths(folder, DEADLINE)
    assert got[0] == "settings.rst"
    assert "prolog.rst" not in got


def test_a_closing_block_of_link_targets_is_no_chunk(tmp_path):
    idx, _ = folder_index(tmp_path, {"plugins.rst": PLUGINS})
    try:
        chunks = idx.manifest.chunks_of("plugins.rst")
    finally:
        idx.close()
    assert len(chunks) >= 2
    # every sentence is still indexed, with the targets a chunk of prose holds; none is targets alone
    assert sum(c.text.count("plugin adds") for c in chunks) >= len(NAMES)
    assert all("plugin adds" in c.text for c in chunks)


def test_short_anonymous_targets_are_hidden_markup_as_their_long_form_is():
    # "__ url" is ".. __: url" written short (docutils): a block of them is no chunk, as the long form is not, and
    # an answer hides both the same way (answer.markup reads the same ANONYMOUS_TARGET)
    from ragls.answer.markup import _rest_hidden
    from ragls.index.rest_hidden import hidden_only

    short = "__ https://example.org/a\n__ https://example.org/b\n"
    long = ".. __: https://example.org/a\n.. __: https://example.org/b\n"
    assert hidden_only(short) and hidden_only(long)
    assert not hidden_only("See `the docs`__ for the options.\n\n" + short)
    assert _rest_hidden("See `the docs`__ for the options.\n\n" + short).split("\n") == [
        "See `the docs`__ for the options.", "", "", "", ""]


def test_a_page_with_lone_cr_line_ends_that_opens_with_a_comment_is_indexed(tmp_path):
    # An old Mac page (lines end with a lone CR) read as one line: opening with a comment, the whole page was one
    # hidden comment, so it had no chunk and no skipped entry either; markdown-it and the line counts read those CRs
    # as line ends, and so does `hidden_only` now (`analysis.LINE_ENDS`)
    idx, _ = folder_index(tmp_path, {"oldmac.rst": ".. a comment\r\rTide tables\r===========\r\rThe spring tide "
                                                   "floods the salt marsh twice a month.\r"})
    try:
        chunks = idx.manifest.chunks_of("oldmac.rst")
    finally:
        idx.close()
    assert len(chunks) == 1 and "salt marsh" in chunks[0].text


def test_a_crlf_directive_without_an_argument_is_shown_as_in_an_lf_file(tmp_path):
    # A CRLF page's lines keep their CR: ".. note::\r" read as a comment, so a chunk of only a note was no chunk and
    # an answer emptied the note and its body; comments, targets and substitutions stay hidden as in an LF page
    from ragls.answer.markup import _rest_hidden
    from ragls.index.rest_hidden import hidden_only

    note = "Tides\r\n=====\r\n\r\nIntro.\r\n\r\n.. note::\r\n\r\n   The spring tide floods the salt marsh.\r\n"
    assert _rest_hidden(note) == note
    assert not hidden_only(".. note::\r\n\r\n   The spring tide floods the salt marsh.\r\n")
    for hidden in (".. _tides:\r\n", "..\r\n   a comment\r\n", "__ https://example.org/a\r\n", ".. |t| replace:: x\r\n"):
        assert hidden_only(hidden) and hidden_only(hidden.replace("\r\n", "\n")), hidden
    idx, _ = folder_index(tmp_path, {"tides.rst": note})
    try:
        chunks = idx.manifest.chunks_of("tides.rst")
    finally:
        idx.close()
    assert any("salt marsh" in c.text for c in chunks)
