"""Extractive answers on a real index with the offline model (`RagWorkspace.ask`): the sentence after a quoted one is
read with it (`neighbours.explains`) when it tells the reader what to do and names what to use ("999 is a custom
status code ... Try slowing down ... with the `DOWNLOAD_SLOTS` setting:"), and when it refers back to it from the
next paragraph across lines the built page does not show (a reST directive or target between them: ".. setting::
IMAGES_THUMBS")."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.answer.neighbours import explains
from ragls.answer.passages import units

FAQ = """Frequently asked questions
==========================

What does the response status code 999 mean?
--------------------------------------------

999 is a custom response status code used by some sites to throttle requests.
Try slowing down the crawling speed by using a download delay of ``2`` (or
higher) for the affected domains, with the :setting:`DOWNLOAD_SLOTS` setting:

.. code-block:: python

    DOWNLOAD_SLOTS = {
        "example.com": {"delay": 2},
    }

Can I answer a status code myself?
----------------------------------

Yes. A status code answered by the site reaches the callback of the request when the spider lists that code
among the codes it handles; other status codes are dropped before the callback runs.
"""

IMAGES = """Images
======

Images are stored in the images store, one file per image, named after a hash of the image's address.

Minimum image sizes
-------------------

Images smaller than the minimum sizes are dropped: an image must be at least as high as the minimum height and
at least as wide as the minimum width to be stored. Small images are often icons or tracking pixels. The pipeline
checks the size of each downloaded image before it stores it. A medium-sized image passes when both of its sides
reach the minimum sizes.

Thumbnail generation for images
-------------------------------

The images pipeline can automatically create thumbnails of the downloaded images.

.. setting:: IMAGES_THUMBS

In order to use this feature, you must set :setting:`IMAGES_THUMBS` to a dictionary
where the keys are the thumbnail names and the values are their dimensions.

Thumbnails are stored in the images store next to the full images, one folder per thumbnail name.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("remedy"), {"faq.rst": FAQ, "images.rst": IMAGES}) as w:
        yield w


def test_what_to_do_after_a_quoted_statement_is_read_with_it(ws):
    """The question asks what 999 means and how to get past it; "Try slowing down ... with the `DOWNLOAD_SLOTS`
    setting:" shares no word with it and comes with the statement, and its code, under the same citation."""
    answer = ws.ask("One website keeps answering with an odd status code 999. What does it mean and how do I get "
                    "past it?").text
    assert "throttle requests. Try slowing down the crawling speed" in answer, answer
    assert "`DOWNLOAD_SLOTS`" in answer, answer


def test_the_next_paragraph_across_a_directive_is_read_with_a_quoted_sentence(ws):
    """"In order to use this feature, you must set `IMAGES_THUMBS` ..." refers back to the one-sentence paragraph
    above it across ".. setting:: IMAGES_THUMBS", which the built page does not show."""
    answer = ws.ask("Along with the downloaded product pictures I also need small and medium-sized previews. Can "
                    "the pipeline create them?").text
    assert "thumbnails of the downloaded images. In order to use this feature, you must set `IMAGES_THUMBS`" \
        in answer, answer



# The need in the paragraph's first sentence, the means in its second: "To <goal>, you can add the following ...:"
# says what to do in the second person, not in an imperative, and shows it in the block it introduces.
GUARD = """# Keeping one package manager

When you use the fastpack tool on a project, you don't want others to accidentally
run a different installer by habit. To prevent people from using other installers,
you can add the following `preinstall` script to your `package.json`:

```json
{
    "scripts": {
        "preinstall": "npx only-allow fastpack"
    }
}
```

Now, whenever someone runs another installer, they'll get an error instead and
installation will not proceed. You can still remove the script at any time.
"""


def test_what_you_can_do_after_a_stated_need_is_read_with_it():
    """"To prevent people from using other installers, you can add the following `preinstall` script ...:" names
    the means of the need stated before it ("you don't want others to accidentally run a different installer") in
    words a question asked in the need's words does not use: the sentence is read with the need when that is
    quoted (`neighbours.explains`), as an imperative one is; a "you can" sentence naming nothing new is not."""
    found = units(GUARD)
    need = next(u for u in found if u.sentence.startswith("When you use"))
    means = next(u for u in found if u.sentence.startswith("To prevent"))
    assert "npx only-allow fastpack" in means.attached
    assert explains(need, means, GUARD)
    after = next(u for u in found if u.sentence.startswith("Now, whenever"))
    last = next(u for u in found if u.sentence.startswith("You can still"))
    assert not explains(after, last, GUARD)


# helix-editor/helix 079a789, book/src/configuration.md (the paragraph after the example configuration)
RELOAD = """You can use a custom configuration file by specifying it with the `-c` or
`--config` command line argument, for example `hx -c path/to/custom-config.toml`.
You can reload the config file by issuing the `:config-reload` command. Alternatively, on Unix operating systems, you can reload it by sending the USR1
signal to the Helix process, such as by using the command `pkill -USR1 hx`.
"""


def test_what_you_can_do_with_any_verb_is_read_with_the_sentence_before():
    """"You can reload the config file by issuing the `:config-reload` command." tells the reader what to do with a
    verb `_REMEDY`'s imperative list does not hold: after "you can" any verb but one of perceiving ("You can see
    ...") does (helix hx10: main quoted the `-c` sentence alone for "How do I apply the changes without
    restarting it?")."""
    found = units(RELOAD)
    custom, reload = found[0], found[1]
    assert reload.sentence.startswith("You can reload the config file")
    assert explains(custom, reload, RELOAD)
    seen = units("You can use a custom file with `-c`. You can see the result in the `:log` buffer.\n")
    assert len(seen) == 2 and not explains(*seen, "")
