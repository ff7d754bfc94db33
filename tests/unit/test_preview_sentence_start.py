"""A search preview (rag/query `preview`: the CLI, Neovim's quickfix, VS Code's picker, HTTP `/retrieve`, MCP)
starts where its focus sentence does, not mid-sentence. Focus lines are whole lines, and in hard-wrapped reST a
sentence starts inside one (answer/preview.py `_from_sentence_start`; break53's and break54's lead: Pillow's
tutorial and ImageDraw reference, Quart's docs)."""

from __future__ import annotations

from ragls.answer.preview import chunk_preview
from ragls.core.ir import Chunk, LineSpan

TUTORIAL = """Copying a subrectangle from an image
^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

::

    box = (0, 0, 64, 64)
    region = im.crop(box)

The region is defined by a 4-tuple, where coordinates are (left, upper, right,
lower). The Python Imaging Library uses a coordinate system with (0, 0) in the
upper left corner. Also note that coordinates refer to positions between the
pixels, so the region in the above example is exactly 64x64 pixels.

The :py:meth:`~PIL.Image.Image.point` method can be used to translate the pixel
values of an image (e.g. image contrast manipulation). In most cases, a
function object expecting one argument can be passed to this method. Each
pixel is processed according to that function:

The region could now be processed in a certain manner and pasted back.
Nothing else is said.
"""


def _preview(first: int, last: int) -> str:
    """The preview of TUTORIAL with focus lines `first`-`last` (1-based, as an editor shows them)."""
    chunk = Chunk(id="t", path="handbook/tutorial.rst", text=TUTORIAL, span=LineSpan(0, 0, TUTORIAL.count("\n"), 0),
                  text_hash="t")
    return chunk_preview(chunk, LineSpan(first - 1, 0, last - 1, 80))


def test_a_focus_line_that_opens_with_the_last_sentences_tail_starts_at_its_own_sentence():
    assert _preview(10, 11).startswith("The Python Imaging Library uses a coordinate system with (0, 0) in the upper "
                                       "left corner."), _preview(10, 11)


def test_a_focus_line_inside_a_sentence_begun_on_the_line_above_starts_with_its_first_words():
    assert _preview(17, 17) == "Each pixel is processed according to that function:", _preview(17, 17)


def test_a_line_that_starts_a_sentence_or_a_paragraph_is_shown_from_its_start():
    assert _preview(9, 9).startswith("The region is defined by a 4-tuple"), _preview(9, 9)
    assert _preview(20, 20) == "Nothing else is said.", _preview(20, 20)  # the line above ends a sentence
