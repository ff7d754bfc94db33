"""`program_output.is_output`: a block after a sentence that says a program prints something is its output, shown but
not scored nor offered as the code after the sentence; a fenced block in a configuration language never is — it is
settings to write ("... an icon ... that will print the book as a single page." over a ```` ```toml ```` table)."""

from __future__ import annotations

from ragls.answer.neighbours import with_code_after
from ragls.answer.passages import units

PRINT = """### Printing

The `[output.print]` table controls the printable output. By default, the site shows an icon that will print the
whole book as a single page.

```toml
[output.print]
enable = true      # include support for printable output
page-break = true  # insert a page break after each chapter
```

### Running

Run the build and it will print the following:

```
Building book...
Done in 3.2 s
```
"""


def test_a_configuration_block_is_no_output_whatever_the_sentence_says():
    """"... that will print the whole book as a single page." announces nothing: its TOML table is the code after
    the sentence, scored with it and shown (the question asks how to break pages per chapter); the build's printout
    after "it will print the following:" stays output."""
    found = units(PRINT)
    icon = next(u for u in found if u.sentence.startswith("By default, the site shows an icon"))
    assert not icon.output and "page-break = true" in icon.scored_text
    shown = with_code_after(icon, {"page", "break", "chapter", "print"}, 8)
    assert "page-break = true" in shown.attached
    build = next(u for u in found if u.sentence.startswith("Run the build"))
    assert build.output and "Building book" in build.attached
