"""Extractive answers' sentences (answer/extractive.py `units`), without a model: where a sentence ends
(abbreviations, a chunk opening mid-sentence), a sentence read with its antecedent and still cited, and a page
titled by an identifier leading the sentence that refers back to it."""

from __future__ import annotations

from blockkit import body, hit
from ragls.answer.extractive import extractive_answer, units


def test_a_chunk_opening_mid_sentence_does_not_answer_with_the_fragment():
    """A chunk's overlap with the one before starts mid-sentence ("overload that operator is listed."): that
    fragment is no answer; the sentences after it are."""
    text = "overload that operator is listed in the table.\nEvery operator of the table has an example beside it.\n"
    assert [u.sentence for u in units(text)] == ["Every operator of the table has an example beside it."]
    assert [u.sentence for u in units("The table lists every operator.\n")] == ["The table lists every operator."]


def test_a_sentence_read_with_its_antecedent_is_still_cited():
    """A sentence that refers back ("So ...") is shown with the sentence before it only when the pair fits in one
    citation (FOCUS_SENTENCE_LINES lines, cited from its first line): a long antecedent wrapped at 48 columns over
    six lines made the citation stop before the picked sentence."""
    import textwrap

    from ragls.answer.extractive import extractive_picks
    from ragls.answer.focus import quoted_focus

    prev = ("The Courier object keeps every socket it has opened in a small pool that lives as long as the object, "
            "and it checks each one for a closed peer before it lends it out again, which costs one system call per "
            "checkout and nothing more on a healthy network link today.")
    picked = "So repeated calls to one host reuse the same socket instead of opening a new one."
    text = "# Courier\n\n" + textwrap.fill(f"{prev} {picked}", 48) + "\n\nLogs are rotated daily.\n"
    q = "How do I stop opening a new socket for every call to the same host?"
    sources, picks = quoted_focus([(1, hit(text))], extractive_picks(q, [(1, hit(text))], max_sentences=1), q)
    focus, lines = sources[0][1].focus, text.split("\n")
    cited = " ".join(lines[focus.start_line - 10:focus.end_line - 10 + 1])  # hit() starts the chunk at line 10
    assert "opening a new one" in cited and picks[0][1].sentence.startswith("So repeated calls"), (cited, picks)


def test_an_abbreviation_before_a_capital_does_not_end_the_sentence():
    """"e.g.", "i.e.", "cf." and "vs." before a capital or a digit end no sentence: tox's "... very old (e.g.
    Python 3.6) and very new (e.g. Python 3.15) interpreters, ..." was quoted from "Python 3.15) interpreters"."""
    text = ("When a project supports both very old (e.g. Python 3.6) and very new (e.g. Python 3.15)\n"
            "interpreters, no single release covers both. Pin one (i.e. VIRTUALENV_VERSION) for the old ones.\n")
    assert [u.sentence for u in units(text, markdown=False)] == [
        ("When a project supports both very old (e.g. Python 3.6) and very new (e.g. Python 3.15) interpreters, no "
         "single release covers both."), "Pin one (i.e. VIRTUALENV_VERSION) for the old ones."]


EXTENSION_PAGE = """---
title: Mask Errors
---

# `MaskErrors`

This extension hides error messages from the client to prevent exposing
sensitive details. By default it masks all errors raised in any field resolver.

## Usage example:

Add the extension to the schema's extensions.
"""


def test_a_sentence_referring_back_to_an_identifier_page_title_is_led_by_it():
    """A page titled by the identifier it documents ("# `MaskErrors`") says "This extension hides ..." and never
    names it again: that sentence is read led by the title's name, as a sentence right under a section's identifier
    heading is; the page's other sentences are not (a README titled by its package is not what each sentence
    documents)."""
    lines = body(extractive_answer("hide error messages from the client, mask errors in resolvers",
                                   [(1, hit(EXTENSION_PAGE))]))
    assert "- `MaskErrors`: This extension hides error messages from the client to prevent exposing sensitive " \
           "details [1]." in lines, lines
    assert not any("`MaskErrors`: By default" in line for line in lines), lines


def test_only_the_first_sentence_under_an_identifier_title_is_led_by_it():
    """"It blocks ..." after a sentence that named the extension, or "It helps ..." in a later paragraph, is not
    led by the page title's name: only the first sentence under the title refers back to it."""
    page = ("# `DisableIntrospection`\n\nThe `DisableIntrospection` extension disables introspection queries for "
            "the schema. It blocks fields such as `__schema` and `__type`.\n\nMore text here about the schema.\n\n"
            "It helps to keep introspection queries away from production schemas.\n")
    lines = body(extractive_answer("disable introspection queries blocks fields __schema __type production",
                                   [(1, hit(page))]))
    assert lines and not any("`DisableIntrospection`: It" in line for line in lines), lines
