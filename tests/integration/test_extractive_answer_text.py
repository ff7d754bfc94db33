"""The text of extractive answers (issue 27) with the real offline model, on real pages: a reST line opening with a
substitution reference is prose, a `:file:` role keeps its "~", a `.. only::` body is no code block, a literal
block the chunk's end cut is read on from the file, a fence shows its language only, a doctest under an object
description stays code, a grid-table row of images is no passage and the first sentence under an identifier page
title is led by it (answer/blocks.py, index/headings.py, answer/rest.py, answer/neighbours.py, answer/passages.py,
answer/rest_tables.py)."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.extractive import units
from ragls.core.ir import Chunk, Document, Hit, LineSpan
from ragls.index.chunking import chunk_document


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def _hit(path: str, text: str, folder: str = "", first_line: int = 0) -> Hit:
    span = LineSpan(first_line, 0, first_line + text.count("\n"), 0)
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=span, text_hash=path, folder=folder), score=1.0)


def _answer(question: str, hit: Hit, embedder) -> str:
    return extractive_answer(question, [(1, hit)], embed=embedder.embed_documents)


# kitty's docs/conf.rst (9475a58f): 83 of its sentences open a line with "|kitty|", and its pages open with a
# section title inside ".. only:: man"
KITTY_CONF = """\
kitty.conf
================

.. highlight:: conf


.. only:: man

    Overview
    --------------


|kitty| is highly customizable, everything from keyboard shortcuts, to rendering
frames-per-second. See below for an overview of all customization possibilities.

You can open the config file within |kitty| by pressing :sc:`edit_config_file`
(:kbd:`⌘+,` on macOS). A :file:`kitty.conf` with commented default
configurations and descriptions will be created if the file does not exist.

.. _confloc:

|kitty| looks for a config file in the OS config directories (usually
:file:`~/.config/kitty/kitty.conf`) but you can pass a specific path via the
:option:`kitty --config` option or use the :envvar:`KITTY_CONFIG_DIRECTORY`
environment variable. See :option:`kitty --config` for full details.
"""


def test_a_rest_line_opening_with_a_substitution_is_prose_and_a_file_role_keeps_its_tilde(embedder):
    """The first line of "|kitty| looks for a config file ..." was dropped as markup (a line block or a table row)
    and ":file:`~/.config/kitty/kitty.conf`" read "`conf`" (Sphinx's "~" shortens Python names only): the answer
    quoted "`conf`) but you can pass a specific path ..."; the `.. only:: man` body was a code block under the
    page's title."""
    found = [u.sentence for u in units(KITTY_CONF, markdown=False)]
    assert any(s.endswith(": kitty is highly customizable, everything from keyboard shortcuts, to rendering "
                          "frames-per-second.") for s in found), found
    assert not any("Overview" in u.sentence + u.attached for u in units(KITTY_CONF, markdown=False)), found
    answer = _answer("Where does kitty read its config file from by default, and how do I point it at another "
                     "config directory?", _hit("conf.rst", KITTY_CONF), embedder)
    assert "kitty looks for a config file in the OS config directories (usually `~/.config/kitty/kitty.conf`) " \
           "but you can pass a specific path" in answer, answer


# Pillow's docs/reference/Image.rst (4e5f09f5): a chunk ends inside the literal block after "::"
IMAGE_RST = """\
.. automethod:: PIL.Image.Image.resize

This resizes the given image from ``(width, height)`` to ``(width/2, height/2)``::

    from PIL import Image

    with Image.open("hopper.jpg") as im:

        # Provide the target width and height of the image
        (width, height) = (im.width // 2, im.height // 2)
        im_resized = im.resize((width, height))

.. automethod:: PIL.Image.Image.rotate

This rotates the input image by ``theta`` degrees counter clockwise::

    from PIL import Image

    with Image.open("hopper.jpg") as im:

        # Rotate the image by 60 degrees counter clockwise
        theta = 60
        # Angle is in degrees counter clockwise
        im_rotated = im.rotate(angle=theta)

.. automethod:: PIL.Image.Image.save
"""


def test_a_literal_block_cut_by_the_chunks_end_is_read_on_from_the_file(tmp_path, embedder):
    """The answer showed `with Image.open("hopper.jpg") as im:` and nothing under it: the rest of the block is in
    the next chunk. Read from the file; a file changed since (its line at the chunk's end differs) is not."""
    (tmp_path / "Image.rst").write_text(IMAGE_RST, encoding="utf-8")
    cut = IMAGE_RST[:IMAGE_RST.index("        # Rotate")]
    question = "How do I rotate an image by some degrees?"
    answer = _answer(question, _hit("Image.rst", cut, str(tmp_path)), embedder)
    assert "This rotates the input image by `theta` degrees counter clockwise [1]:" in answer, answer
    assert "im_rotated = im.rotate(angle=theta)\n  ```" in answer and ".. automethod" not in answer, answer
    (tmp_path / "Image.rst").write_text(IMAGE_RST.replace('    with Image.open("hopper.jpg") as im:\n\n        # Rot',
                                                          '    with Image.open("x.jpg") as im:\n\n        # Rot'),
                                        encoding="utf-8")
    answer = _answer(question, _hit("Image.rst", cut, str(tmp_path)), embedder)
    assert 'with Image.open("hopper.jpg") as im:\n  ```' in answer and "im.rotate" not in answer, answer


# ansible-lint's docs/usage.md (262624cd): markdown-exec runs the block and shows its output
USAGE_MD = """\
# Using

## Running example playbooks

Ansible-lint includes an `ansible-lint/examples` folder that contains example
playbooks with different rule violations and undesirable characteristics. You
can run `ansible-lint` on the example playbooks to observe Ansible-lint in
action, as follows:

```console exec="1" source="console" returncode="2"
$ ansible-lint --offline -f pep8 examples/playbooks/example.yml
```
"""


def test_a_fence_shows_its_language_not_the_rest_of_its_info_string(embedder):
    answer = _answer("How do I run ansible-lint on the example playbooks?", _hit("usage.md", USAGE_MD), embedder)
    assert "  ```console\n  $ ansible-lint --offline -f pep8 examples/playbooks/example.yml\n  ```" in answer, answer
    assert "exec=" not in answer, answer


# Pillow's docs/reference/ExifTags.rst and reference/ImageOps.rst (4e5f09f5)
EXIF_TAGS = """\
The ExifTags module exposes several enum classes which provide constants and clear-text names for
various well-known EXIF tags.

.. py:data:: Base

    >>> from PIL.ExifTags import Base
    >>> Base.ImageDescription.value
    270
    >>> Base(270).name
    'ImageDescription'

+----------------+--------------------------------------------+---------------------------------------------+
|                | :meth:`~PIL.Image.Image.thumbnail`         | :meth:`~PIL.ImageOps.contain`               |
+================+============================================+=============================================+
|Given size      | ``(100, 150)``                             | ``(100, 150)``                              |
+----------------+--------------------------------------------+---------------------------------------------+
|Resulting image | .. image:: ../example/image_thumbnail.webp | .. image:: ../example/imageops_contain.webp |
+----------------+--------------------------------------------+---------------------------------------------+
|Resulting size  | ``100×100``                                | ``100×100``                                 |
+----------------+--------------------------------------------+---------------------------------------------+
"""


def test_a_doctest_under_an_object_stays_code_and_a_row_of_images_is_no_passage():
    """"`Base`: >>> from PIL.ExifTags import Base Base.ImageDescription.value 270 ..." was one sentence, and
    "Resulting image | .. image:: ../example/image_thumbnail.webp | ..." a passage."""
    found = [u.sentence for u in units(EXIF_TAGS, markdown=False)]
    assert not any(">>>" in s or ".. image::" in s for s in found), found
    assert "Resulting size | `100×100` | `100×100`" in found, found


def test_a_rest_title_reads_a_substitution_as_its_name():
    """Chunk titles (the source's title in every answer, search result and prompt) kept the bars: "Using |@example|
    to run a specific input" (Hypothesis); `index.headings.plain_heading` reads it as answers do."""
    text = "Using |@example| to run a specific input\n========================================\n\nUse it.\n"
    doc = Document(folder="", path="examples.rst", text=text, content_hash="x", kind="text")
    assert [c.title for c in chunk_document(doc)] == ["Using @example to run a specific input"]


# Lefthook's docs/configuration/no_tty.md (8d9cfec5): a page per option, titled by it; its text never names it
NO_TTY = """\
---
title: "no_tty"
---

# `no_tty`

**Default: `false`**

Whether hide spinner and other interactive things. This can be also controlled with `--no-tty` option for `lefthook run` command.

#### Example

```yml
# lefthook.yml

no_tty: true
```
"""


def test_the_first_sentence_under_an_identifier_page_title_is_led_by_it(embedder):
    """Only a first sentence that referred back ("This extension ...") was led by the page's title: "Whether hide
    spinner and other interactive things." answered without the option's name."""
    answer = _answer("In CI the lefthook spinner and other interactive output garble the logs. How do I switch "
                     "that off?", _hit("configuration/no_tty.md", NO_TTY), embedder)
    assert "- `no_tty`: Whether hide spinner and other interactive things [1]." in answer, answer
    assert "`no_tty`: This can be" not in answer, answer


GENERATING_MD = """\
# Generating sources

Sometimes source files need to be preprocessed before they are passed to the actual compiler. In Meson this is done
with [[generator]] or [[custom_target]], which run a program of yours over the inputs at build time.
"""


def test_a_double_bracketed_name_stays_as_written(embedder):
    """Meson's reference to a function, "[[custom_target]]" (a wiki link, TOML's "[[tool.x]]" in prose), read as a
    shortcut reference link inside its outer brackets: the answer showed "[custom_target]", a citation mark's look
    (answer/inline.py `_SHORTCUT_LINK`). It stays as written; a single "[Rich]" still reads as its text."""
    answer = _answer("How do I preprocess source files before compiling them?",
                     _hit("Generating-sources.md", GENERATING_MD), embedder)
    assert "In Meson this is done with [[generator]] or [[custom_target]], which run" in answer, answer
