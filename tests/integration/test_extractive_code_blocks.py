"""Extractive answers with the real offline model (answer/ask.extractive_answer): the code block, command,
list or table row a quoted sentence carries, and the lead-ins that bring or leave out a block."""

from __future__ import annotations

import pytest
from extractkit import _bullets, _hit
from ragls.answer.ask import extractive_answer


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def test_a_short_lead_in_brings_its_sentence_and_an_include_only_block_is_not_quoted(embedder):
    """"Take a look at the following example:" alone says nothing: it joins the sentence before it, which carries
    the code block. mdBook's `{{#include file}}` is where a listing comes from, not text: a block holding only
    that is not quoted, and the sentence introducing it keeps what it says, ending in "." (no bullet ends on
    "[1]:" with nothing under it)."""
    text = ("# Running jobs\n\nIf you want more control over the number of workers, you can send the `--jobs` "
            "flag and the number of workers to the runner. Take a look at the following example:\n\n"
            "```console\n$ runner --jobs=1\n```\n\nTo keep slow jobs out of a run, mark them with the `skip` "
            "attribute as shown here:\n\n```rust\n{{#rustdoc_include ../listings/skip/src/lib.rs:here}}\n```\n")
    answer = extractive_answer("How do I control how many workers the runner uses? How do I keep slow jobs out?",
                               [(1, _hit(text))], embed=embedder.embed_documents)
    lines = answer.splitlines()
    first = lines.index("- If you want more control over the number of workers, you can send the `--jobs` flag and "
                        "the number of workers to the runner. Take a look at the following example [1]:")
    assert lines[first + 1:first + 4] == ["  ```console", "  $ runner --jobs=1", "  ```"]
    assert "{{#" not in answer
    assert "- To keep slow jobs out of a run, mark them with the `skip` attribute as shown here [1]." in lines


def test_a_table_row_answers_whole(embedder):
    text = ("# Client options\n\nThe client takes these options:\n\n| Option | Default | Meaning |\n|---|---|---|\n"
            "| `timeout` | `5.0` | The longest wait, in seconds, for any network operation. |\n"
            "| `trust_env` | `True` | Read proxy settings and certificates from environment variables. |\n"
            "| `http2` | `False` | Speak HTTP/2 when the server offers it. |\n\nUnknown options raise a "
            "`TypeError` when the client is created.\n")
    answer = extractive_answer("How do I stop the client from reading proxy settings from environment variables?",
                               [(1, _hit(text))], embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- `trust_env` | Default: `True` | Read proxy settings and certificates from "
                                   "environment variables [1].")  # its value under its column's name
    assert "|---|" not in answer.split("[1]", 1)[0]


def test_code_right_after_a_sentence_comes_with_it_when_it_names_what_is_asked(embedder):
    """A code block that follows a sentence not ending in ":" (reST's ".. code-block::" after a paragraph) is shown
    under it when the code names an identifier the question points at that the sentence does not: the line the
    user needs. A block this short after the paragraph's last sentence is its example and comes with it whatever
    the question asks (EXAMPLE_LINES); a longer one naming nothing asked does not (test_extractive_examples.py)."""
    text = ("Worker pools\n============\n\nThe scheduler keeps a pool of worker processes for each queue. By default "
            "it starts four workers per queue. If your jobs wait on the network it might help to increase this "
            "number.\n\n.. code-block:: python\n\n    scheduler = Scheduler(num_workers=16)\n\nMore workers use "
            "more memory, so watch the host while you raise it.\n")
    hit = _hit(text, "workers.rst")
    lines = extractive_answer("How do I raise the number of workers?", [(1, hit)],
                              embed=embedder.embed_documents).splitlines()
    at = lines.index("- If your jobs wait on the network it might help to increase this number [1].")
    assert lines[at + 1:at + 4] == ["  ```", "  scheduler = Scheduler(num_workers=16)", "  ```"]
    lines = extractive_answer("Does waiting on the network slow my jobs down?", [(1, hit)],
                              embed=embedder.embed_documents).splitlines()
    at = lines.index("- If your jobs wait on the network it might help to increase this number [1].")
    assert lines[at + 1:at + 4] == ["  ```", "  scheduler = Scheduler(num_workers=16)", "  ```"]


def test_a_command_keeps_its_trailing_argument(embedder):
    """"mytool fmt --no-cache ." ends in the command's own "." (the current folder): the citation marker goes
    after it, never between the command and its argument."""
    text = "# Cache\n\nTo ignore the cache for one run, pass the flag on the command line.\n\nmytool fmt --no-cache .\n"
    answer = extractive_answer("How do I run mytool fmt without the cache?", [(1, _hit(text, "cache.md"))],
                               embed=embedder.embed_documents)
    assert "- mytool fmt --no-cache . [1]" in _bullets(answer)


def test_a_list_item_shown_with_its_list_is_not_quoted_again(embedder):
    """A ":" sentence carries its list: an item of that list is not quoted again as a bullet of its own (and the
    sentence with its list takes the place of an item picked before it, `extractive._held_items`) — no passage text
    twice in one answer."""
    text = ("# Exit codes\n\nWhen checking, the formatter exits with:\n\n- code 0 if no file would change;\n"
            "- code 1 if some files would be reformatted; or\n- code 123 if there was an internal error\n")
    answer = extractive_answer("How do I know if the check found files to reformat?",
                               [(1, _hit(text, "exit.md"))], embed=embedder.embed_documents)
    assert answer.count("some files would be reformatted") == 1
    assert "- When checking, the formatter exits with [1]:\n  - code 0 if no file would change;\n" \
           "  - code 1 if some files would be reformatted; or\n" in answer, answer


def test_a_short_command_after_its_sentence_comes_with_it(embedder):
    """A code block of at most SHORT_CODE_LINES lines right after a sentence comes with it when it names what the
    question asks, even when the sentence names it too: the command is what the sentence tells the user to do."""
    text = ("# Ignoring revisions\n\nPut the hashes of your formatting commits into a file. You can even configure "
            "`git` to ignore the revisions listed in that file on every call to `git blame`.\n\n```console\n"
            "$ git config blame.ignoreRevsFile .git-blame-ignore-revs\n```\n\nSome hosting sites do not support "
            "this in their web views yet.\n")
    answer = extractive_answer("How do I make git blame skip the formatting commits automatically?",
                               [(1, _hit(text, "guide.md"))], embed=embedder.embed_documents)
    assert "  $ git config blame.ignoreRevsFile .git-blame-ignore-revs" in answer.splitlines()


def test_the_code_after_a_paragraph_comes_with_its_answering_sentence_not_only_its_last(embedder):
    """The code block right after a paragraph comes with whichever sentence of the paragraph answers when the
    question's words point at an identifier in it (`retries=1` for "retry"), not only with the paragraph's last
    sentence; a block is shown once."""
    text = ("# Retries\n\nThe transport can retry failed connections. Requests will be retried the given number of "
            "times in case of a ConnectError or a ConnectTimeout occurring. If you need other forms of retry "
            "behaviour, use a library such as tenacity.\n\n```python\ntransport = Transport(retries=1)\n"
            "client = Client(transport=transport)\n```\n\nRetries apply to connecting only, not to reading the "
            "response.\n")
    question = "How do I retry requests when a connection fails?"
    lines = extractive_answer(question, [(1, _hit(text))], max_sentences=1, embed=embedder.embed_documents
                              ).splitlines()
    assert lines[2].startswith("- Requests will be retried the given number of times"), lines
    assert "  transport = Transport(retries=1)" in lines
    answer = extractive_answer(question, [(1, _hit(text))], embed=embedder.embed_documents)
    assert answer.count("Transport(retries=1)") == 1, answer


def test_a_sentence_ending_in_an_ellipsis_brings_its_block_whatever_its_words(embedder):
    """"... install the optional HTTP/2 dependencies..." introduces `pip install pkg[http2]` as a ":" sentence
    does; the block comes with it although none of its words is the question's ("HTTP/2" is not "http2")."""
    text = ("# HTTP/2\n\nHTTP/2 is a major new iteration of the HTTP protocol. Using it is optional.\nYou can do so "
            "by first making sure to install the optional HTTP/2 dependencies...\n\n```shell\n$ pip install "
            "pkg[http2]\n```\n\nAnd then instantiating a client with HTTP/2 support enabled.\n")
    lines = extractive_answer("How do I enable HTTP/2?", [(1, _hit(text))], embed=embedder.embed_documents
                              ).splitlines()
    at = lines.index("- You can do so by first making sure to install the optional HTTP/2 dependencies... [1]")
    assert lines[at + 1:at + 4] == ["  ```shell", "  $ pip install pkg[http2]", "  ```"], lines


def test_a_short_lead_in_paragraph_brings_its_block_to_the_paragraph_before_it(embedder):
    """"For example:" as a paragraph of its own (Markdown) or reST's bare "::" paragraph: the block after it
    illustrates the paragraph before it. Alone the lead-in is under MIN_WORDS and was dropped, so no passage showed
    the block; now the paragraph's last sentence introduces it."""
    md = ("## Route order\n\nRoutes are tried in the order they are listed.\n\nWhen two routes can match one path, "
          "list the more specific route\nbefore the general one.\n\nFor example:\n\n```python\n"
          "# /users/me never matches here: /users/{name} comes first\n"
          "routes = [Route('/users/{name}', user), Route('/users/me', me)]\n```\n")
    question = "My handler for /users/me never runs and /users/{name} gets those requests; what is wrong?"
    answer = extractive_answer(question, [(1, _hit(md, "routing.md"))], embed=embedder.embed_documents)
    assert ("- When two routes can match one path, list the more specific route before the general one. "
            "For example [1]:") in _bullets(answer), answer
    assert "routes = [Route('/users/{name}', user), Route('/users/me', me)]" in answer
    rst = ("Adapters\n========\n\nOnce created, an adapter is mounted on a session for a URL prefix.\n\n::\n\n"
           "    >>> s = Session()\n    >>> s.mount('https://example.org/', MyAdapter())\n")
    answer = extractive_answer("How do I mount an adapter on a session?", [(1, _hit(rst, "adapters.rst"))],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == "- Once created, an adapter is mounted on a session for a URL prefix [1].", answer
    assert "  >>> s.mount('https://example.org/', MyAdapter())" in answer.splitlines()
