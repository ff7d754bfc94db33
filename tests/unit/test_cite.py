"""Citation parsing, cleaning and the support rule of ragls.answer.cite."""

from __future__ import annotations

import pytest
from ragls.answer.cite import (
    carrying_sentence,
    check_citations,
    clean_markers,
    content_words,
    stem,
    supports,
)
from ragls.core.ir import Chunk, Citation, Hit, LineSpan


def hit(text: str, title: str = "", path: str = "doc.md") -> Hit:
    return Hit(Chunk(id=path + text[:8], path=path, text=text, span=LineSpan(0, 0, 3, 0), text_hash="h",
                     title=title), score=1.0)


OWNERSHIP = hit("Each value in Rust has an owner. When the owner goes out of scope, the value is dropped.",
                title="Ownership")
BORROW = hit("References borrow a value without taking ownership. The borrow checker enforces the rules.",
             title="References and Borrowing")
SOURCES = [(1, OWNERSHIP), (2, BORROW)]


@pytest.mark.parametrize(("word", "expected"), [
    ("borrows", "borrow"), ("borrowed", "borrow"), ("borrowing", "borrow"), ("running", "run"),
    ("libraries", "library"), ("processes", "process"), ("stored", "stor"), ("store", "stor"), ("bus", "bus"),
    ("is", "is"),
])
def test_stem(word, expected):
    assert stem(word) == expected


def test_content_words_drop_stop_words_and_case():
    assert content_words("The Owner of THE value is dropped") == ["owner", "valu", "drop"]


def test_supported_when_two_content_words_shared():
    assert supports("A value is dropped when its owner leaves scope", OWNERSHIP.chunk.text)


def test_unsupported_when_sentence_is_about_something_else():
    assert not supports("Cargo downloads crates from the registry", OWNERSHIP.chunk.text)


def test_long_sentence_needs_thirty_percent():
    # 2 shared words (value, owner) out of 10 content words: below 30 %
    long = "value owner alpha bravo charlie delta echo foxtrot golf hotel"
    assert len(set(content_words(long))) == 10
    assert not supports(long, OWNERSHIP.chunk.text)
    assert supports("value owner alpha bravo charlie", OWNERSHIP.chunk.text)  # 2 of 5 = 40 %


def test_single_content_word_sentence_needs_that_word():
    assert supports("Ownership.", OWNERSHIP.chunk.title + " " + OWNERSHIP.chunk.text)
    assert not supports("Lifetimes.", OWNERSHIP.chunk.text)
    assert not supports("It is so.", OWNERSHIP.chunk.text)  # no content words: nothing to verify


def test_check_citations_supported_and_unsupported():
    text = "When the owner goes out of scope the value is dropped [1]. Cargo builds crates quickly [2]."
    cleaned, cites = check_citations(text, SOURCES)
    assert cleaned == text
    assert cites == [Citation(1, True), Citation(2, False)]


def test_out_of_range_citation_removed_and_not_listed():
    text = "Values have one owner [1]. Macros expand at compile time [7]. References borrow values [2][9]."
    cleaned, cites = check_citations(text, SOURCES)
    assert cleaned == "Values have one owner [1]. Macros expand at compile time. References borrow values [2]."
    assert [c.n for c in cites] == [1, 2]
    assert all(c.supported for c in cites)


def test_list_marker_keeps_valid_numbers():
    cleaned, cites = check_citations("The owner drops the value and references borrow it [1, 2, 5].", SOURCES)
    assert cleaned == "The owner drops the value and references borrow it [1][2]."
    assert [c.n for c in cites] == [1, 2]


def test_valid_list_marker_left_untouched():
    text = "The owner drops the value; references borrow the value [1, 2]."
    cleaned, cites = check_citations(text, SOURCES)
    assert cleaned == text
    assert [c.n for c in cites] == [1, 2]


def test_marker_after_period_checks_previous_sentence():
    text = "Cargo is a build tool. The borrow checker enforces the rules. [2]"
    _, cites = check_citations(text, SOURCES)
    assert cites == [Citation(2, True)]
    assert carrying_sentence(text, text.index("[2]"), len(text)) == "The borrow checker enforces the rules"


def test_marker_at_line_start_checks_following_text():
    text = "Sources:\n[1] Each value has an owner and is dropped."
    _, cites = check_citations(text, SOURCES)
    assert cites == [Citation(1, True)]


def test_number_cited_twice_is_supported_only_if_every_sentence_is():
    text = "The owner drops the value [1]. Tokio runs async tasks on threads [1]."
    _, cites = check_citations(text, SOURCES)
    assert cites == [Citation(1, False)]


def test_code_and_links_are_not_citations():
    text = "Index with `v[3]` or\n```rust\nlet x = a[0];\n```\nsee [docs][4] and [5](http://x) — the owner drops the value [1]."
    cleaned, cites = check_citations(text, SOURCES)
    assert cleaned == text
    assert [c.n for c in cites] == [1]


def test_clean_markers_removes_space_before_dropped_marker():
    assert clean_markers("A claim [3], then more [1].", {1}) == "A claim, then more [1]."


def test_citations_ordered_by_first_use_and_distinct():
    text = "References borrow a value [2]. The owner drops the value [1]. The borrow checker enforces rules [2]."
    _, cites = check_citations(text, SOURCES)
    assert [c.n for c in cites] == [2, 1]


@pytest.mark.parametrize("ending", [". 🎉 [1]", "! 🚀🚀[1]", " 👍🏽 [1]", ".✅[1]", " (see docs) 🙂 [1]", ".” 🎉 [1]",
                                    " 👨‍👩‍👧 [1]"])
def test_sentence_ending_in_emoji_or_punctuation_is_still_checked(ending):
    source = hit("Session tokens expire after thirty minutes of inactivity.")
    text = "Session tokens expire after thirty minutes" + ending
    _, cites = check_citations(text, [(1, source)])
    assert cites == [Citation(1, True)]
    _, cites = check_citations("Bananas are yellow" + ending, [(1, source)])
    assert cites == [Citation(1, False)]


def test_a_lead_in_without_content_words_is_checked_with_its_sentence():
    """Extractive answers end a bullet with the lead-in of a code block ("… blueprint? Like this [2]:"); "Like
    this" alone has no content word and the text after the marker is code, so it was reported unsupported."""
    text = "- So how do you register that blueprint? Like this [2]:\n  ```\n  app.register_blueprint(bp)\n  ```"
    at = text.index("[2]")
    assert carrying_sentence(text, at, at + 3) == "- So how do you register that blueprint? Like this"
    hit = Hit(chunk=Chunk(id="c", path="b.rst", text="So how do you register that blueprint?  Like this::\n",
                          span=LineSpan(0, 0, 1, 0), text_hash="c"), score=1.0)
    assert check_citations(text, [(2, hit)])[1][0].supported
    elsewhere = Hit(chunk=Chunk(id="d", path="c.rst", text="Templates render variables with Jinja.\n",
                                span=LineSpan(0, 0, 1, 0), text_hash="d"), score=1.0)
    assert not check_citations(text, [(2, elsewhere)])[1][0].supported


def test_a_bullet_that_is_only_a_lead_in_claims_the_code_block_it_introduces():
    """An extractive answer's bullet can be a lead-in alone ("- It can be used like this [1]:", restic's backup
    page): no content word before the marker, none after it up to the line's end, so source [1] — the page the
    bullet quotes word for word — was listed "citation not supported by this text". The code block it introduces
    is the claim; the line above (another bullet) is not joined to it."""
    page = ("Suppose you have a file called ``excludes.txt`` with the following content:\n\n::\n\n    # exclude go-files\n"
            "    *.go\n\nIt can be used like this:\n\n.. code-block:: console\n\n"
            "    $ restic -r /srv/restic-repo backup ~/work --exclude=\"*.c\" --exclude-file=excludes.txt\n")
    text = ("- Please see `restic help backup` for more on each exclude option [2].\n"
            "- It can be used like this [1]:\n"
            "  ```\n  $ restic -r /srv/restic-repo backup ~/work --exclude=\"*.c\" --exclude-file=excludes.txt\n  ```\n"
            "- Suppose you have a file called `excludes.txt` with the following content [1].")
    at = text.index("[1]:")
    assert carrying_sentence(text, at, at + 3) == (
        '$ restic -r /srv/restic-repo backup ~/work --exclude="*.c" --exclude-file=excludes.txt')
    backup, other = hit(page, title="Excluding files", path="040_backup.rst"), hit("Run restic check weekly.")
    assert check_citations(text, [(1, backup), (2, other)])[1] == [Citation(2, False), Citation(1, True)]
    # the code is checked against the cited page: a page without it does not support the bullet
    assert check_citations(text, [(1, other), (2, backup)])[1] == [Citation(2, True), Citation(1, False)]
