"""chunking.no_text_reason: files with nothing to index (markup or front matter only, degenerate text) are
named with the reason; real text with long runs is not."""

from __future__ import annotations

import pytest
from ragls.index.chunking import no_text_reason


@pytest.mark.parametrize(("text", "reason"), [
    ("\u200b\u200b\n\u200d\u2060\n", "markup only (no text)"),  # zero-width characters
    ("\x01\x02\x1b\x7f\n", "markup only (no text)"),  # control characters
    ("\ufeff\u00ad# \n", "markup only (no text)"),
    ("---\ntitle: Notes\ntags: [a, b]\n---\n", "front matter only (no text)"),
    ("+++\ntitle = 'Notes'\n+++\n\n# \n", "front matter only (no text)"),
    ("---\ntitle: Notes\n---\nThe walrus basks.\n", None),
    ("\u200bThe walrus basks.\n", None),
    ("---\n\nA thematic break, then text.\n", None),
])
def test_files_without_text_are_named(text, reason):
    """Junk files (issue 29: control-character, zero-width and front-matter-only files became chunks) say why."""
    assert no_text_reason(text) == reason


_ROWS = "".join(f"| feature-{i} | yes | yes | no | yes |\n" for i in range(5_000))  # a table of numbered rows: 18x


_LINKS = ["".join(f"[{i}](https://github.com/o/r{i * j}/blob/{i * j * 7919:040x}/pyproject.toml#L1-L3)|"
                  for i in range(5)) for j in range(80)]


_CJK = "".join(chr(0x4E00 + i * 7919 % 20_000) + ("。" if i % 23 == 22 else "") for i in range(8_000))  # no spaces


@pytest.mark.parametrize(("text", "reason"), [
    ("a" * 1_900_000, "degenerate text (too few distinct characters: 0.0 bits per character)"),
    ("ab" * 5_000 + "ba" * 5_000, "degenerate text (too few distinct characters: 1.0 bits per character)"),
    ("The same log line, again and again.\n" * 3_000, "degenerate text (repetitive: compresses "),
    ("a" * 9_999, None),  # short: costs a few chunks, judged by nothing
    (_ROWS, None),
    ("# Users\n\n" + "".join(f"Project {j} builds its wheels with Hatch, as its pyproject.toml shows: {links}\n\n"
                             for j, links in enumerate(_LINKS)), None),  # 80 % in long runs of links
    (_CJK, None),
    ("# Data\n\n" + "".join(f"{i * 7919 % 65536:04x}" for i in range(5_000)),
     ("degenerate text (no word breaks: 100% in runs of 256+ characters without a space, such as minified code or "
     "encoded data)")),
])
def test_degenerate_text_is_named(text, reason):
    """Text not worth embedding (sources.load.degenerate_reason), and long text that is: real shapes with long runs
    (a page of link lists, CJK prose without spaces, a table of similar rows) are not judged degenerate."""
    got = no_text_reason(text)
    assert got == reason or (reason and got and reason.endswith(" ") and got.startswith(reason)), got
