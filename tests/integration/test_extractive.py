"""Extractive answers ranked by meaning with the real offline embedding model (answer/ask.extractive_answer)."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.focus import sentence_focus
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def _hit(text: str, path: str = "notes.md") -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, 3, 0), text_hash=path), score=1.0)


TEXT = ("The office cat sleeps on the windowsill. Production deployments go out every Tuesday at noon. "
        "Our logo uses a dark blue.")


def test_sentence_sharing_no_word_with_the_question_is_found_by_meaning(embedder):
    answer = extractive_answer("When do we ship releases to customers?", [(1, _hit(TEXT))],
                               embed=embedder.embed_documents)
    bullets = [line for line in answer.splitlines() if line.startswith("- ")]
    assert bullets[0] == "- Production deployments go out every Tuesday at noon [1]."
    assert all("cat" not in b and "logo" not in b for b in bullets)


def test_without_embedder_no_overlap_falls_back_to_first_sentences():
    answer = extractive_answer("When do we ship releases to customers?", [(1, _hit(TEXT))])
    assert "- The office cat sleeps on the windowsill [1]." in answer


def test_same_sentence_from_two_sources_is_listed_once(embedder):
    answer = extractive_answer("When do deployments go out?", [(1, _hit(TEXT, "a.md")), (2, _hit(TEXT, "b.md"))],
                               embed=embedder.embed_documents)
    assert answer.count("Production deployments go out every Tuesday at noon") == 1


def test_passages_are_scored_against_the_question_not_the_selection_it_quotes(embedder):
    """Ask About Selection puts the selected text into the question (both clients): the answer is scored against
    what is asked, so the sentence beside the selection answers "Who owns the rename?" (the VS Code wire test),
    and a question about the selection itself is still answered from it (the Neovim ask spec)."""
    notes = ("The team agreed to rename the gizmo service to Quasar. Priya owns the rename and will announce it on "
             "the mailing list before the spring release.")
    question = ("Who owns the rename?\n\nSelected text (meeting-notes.md:5-6):\n```\n"
                "The team agreed to rename the gizmo service to Quasar.\n```")
    pebbles = "The quuxite allowance is 23 pebbles per week. Pebbles are kept in the green jar."
    about_it = ("How many pebbles is the quuxite allowance?\n\nSelected text ([selection]:1-2):\n```\n"
                + pebbles.replace(". ", ".\n") + "\n```")
    other = "Quillmark turns plain-text notes into a searchable notebook."
    for embed in (embedder.embed_documents, None):
        bullets = [line for line in extractive_answer(question, [(1, _hit(notes))], embed=embed).splitlines()
                   if line.startswith("- ")]
        assert bullets and bullets[0].startswith("- Priya owns the rename"), bullets
        answer = extractive_answer(about_it, [(1, _hit(pebbles, "[selection]")), (2, _hit(other, "readme.md"))],
                                   embed=embed)
        bullets = [line for line in answer.splitlines() if line.startswith("- ")]
        assert bullets and "23 pebbles" in bullets[0], bullets


def _bullets(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


def test_identifier_abbreviating_a_question_word_answers(embedder):
    """`chars` points at "characters" (an identifier is often a cut-down word): its sentence is quoted, although
    it shares no whole word with the question and a sentence repeating the question's words reads closer."""
    text = ("The best way to read pieces of a text buffer is to be explicit about whether you want characters or "
            "raw bytes. For individual Unicode scalar values, use the `chars` method. Buffers are stored as "
            "UTF-8 and each character may take several bytes. The buffer grows when text is appended to it. "
            "A buffer can be shared between threads.")
    answer = extractive_answer("How do I iterate over a text buffer by characters?", [(1, _hit(text))],
                               max_sentences=2, embed=embedder.embed_documents)
    # quoted on its own or read with the sentence before it, which announces it (`_completed`)
    assert any(b.endswith("For individual Unicode scalar values, use the `chars` method [1].") for b in _bullets(answer))


def test_rest_links_and_literals_read_as_text(embedder):
    text = ("Errors\n======\n\nLog files are rarely read. This is why we recommend using `Sentry\n"
            "<https://sentry.io/>`_ for dealing with application errors. If you specify ``block=True`` then at "
            "most ``maxsize`` connections are open, see `the pool docs`_ for more.\n")
    answer = extractive_answer("Which service tracks application errors? What does block=True do?",
                               [(1, _hit(text, "errors.rst"))], embed=embedder.embed_documents)
    # read with the sentence "This is why" refers back to (`antecedent`)
    assert ("- Log files are rarely read. This is why we recommend using Sentry for dealing with application "
            "errors [1].") in _bullets(answer)
    assert ("- If you specify `block=True` then at most `maxsize` connections are open, see the pool docs for "
            "more [1].") in _bullets(answer)


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


CONFIG_RST = """Configuration
=============

.. py:data:: REQUEST_TIMEOUT

    How long, in seconds, the client waits for the server to answer before
    giving up with a ``TimeoutError``. Set it to ``None`` to wait forever.

    Default: ``30``

.. py:data:: MAX_REDIRECTS

    The most redirects followed for one request before ``TooManyRedirects``
    is raised.

    Default: ``10``
"""


def _windowed(text: str, path: str, first: int, last: int) -> Hit:
    """A hit on `text` (file lines 0..) whose best window is file lines `first`..`last` (0-based)."""
    n = text.count("\n")
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, n, 0), text_hash=path), score=1.0,
               window=LineSpan(first, 0, last, 0))


def test_an_object_description_names_its_object_and_is_the_focus(embedder):
    """Sphinx's ".. py:data:: NAME" with an indented body: the body is prose (not an indented code block) and its
    first sentence names the object, so a question naming it is answered and focused on that sentence; the
    "Default: ``10``" paragraph under it completes it (answer/passages.py `_continues`)."""
    hit = _windowed(CONFIG_RST, "config.rst", 0, 16)
    question = "What does MAX_REDIRECTS do?"
    answer = extractive_answer(question, [(1, hit)], embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- `MAX_REDIRECTS`: The most redirects followed for one request before "
                                   "`TooManyRedirects` is raised. Default: `10` [1]")
    focus = sentence_focus([hit], question)[0].focus
    assert (focus.start_line, focus.end_line) == (12, 15)  # the body's lines and its default, not the window


def test_a_window_without_prose_sharing_a_word_focuses_the_lines_naming_the_terms():
    text = ("# Settings\n\nAn example:\n\n```toml\n[client]\nbase_url = \"https://example.org\"\n"
            "retries = 3\nhttp2 = true\nuser_agent = \"demo/1.0\"\nproxy = \"socks5h://localhost:1080\"\n"
            "timeout_connect = 5\ntimeout_read = 30\n```\n")
    hit = _windowed(text, "settings.md", 4, 13)
    focus = sentence_focus([hit], "proxy")[0].focus
    assert (focus.start_line, focus.end_line) == (10, 10)  # the line naming it, not the 10-line window


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


def test_only_the_candidates_the_words_cannot_rule_out_can_be_picked(embedder):
    """Of many candidate sentences, EMBEDDED_CANDIDATES can be picked (`_worth_embedding`): those sharing the most
    question words first, then the best-ranked sources' others in order. Every candidate is embedded, with the
    question, in one call (the closest of all is quoted when the words left it out, `_rescued`; the index's
    sentence pass stores their vectors)."""
    from ragls.answer.cite import content_words
    from ragls.answer.extractive import EMBEDDED_CANDIDATES, _worth_embedding, candidate_passages

    offices = ("north", "south", "east", "west", "upper", "lower", "front", "back", "corner", "garden", "attic",
               "annex", "harbour", "river", "market", "station")
    filler = " ".join(f"The {w} office keeps its own coffee machine." for w in offices)
    question = "When do production deployments reach customers?"
    sources = [(1, _hit(filler + " " + TEXT, "office.md"))]
    sent: list[str] = []

    def counting(texts):
        sent.extend(texts)
        return embedder.embed_documents(texts)

    answer = extractive_answer(question, sources, embed=counting)
    candidates, _ = candidate_passages(sources, question=question)
    assert sent == [question] + [c.unit.sentence for c in candidates] and len(candidates) == 19
    worth = [candidates[i].unit.sentence for i in _worth_embedding(set(content_words(question)), candidates)]
    assert len(worth) == EMBEDDED_CANDIDATES
    assert worth == [f"The {w} office keeps its own coffee machine." for w in offices[:11]] + [  # candidate order
        "Production deployments go out every Tuesday at noon."]
    assert _bullets(answer)[0] == "- Production deployments go out every Tuesday at noon [1]."


def test_a_passage_under_an_identifier_heading_names_it(embedder):
    """A section headed by a flag (Markdown "#### `--dry-run`", or a bare "### --jobs") documents it in prose that
    never repeats its name: the answer leads with the heading's identifier. A heading in words labels nothing."""
    text = ("## Options\n\n#### `--dry-run`\n\nDo not touch the files, only report which of them would change.\n\n"
            "### --jobs\n\nHow many worker processes format files at the same time.\n\n## Caching\n\n"
            "Results are kept between runs in the user cache folder.\n")
    answer = extractive_answer("Which option only reports which files would change without touching them?",
                               [(1, _hit(text, "options.md"))], embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- `--dry-run`: Do not touch the files, only report which of them would "
                                   "change [1].")
    answer = extractive_answer("How many processes format files in parallel?", [(1, _hit(text, "options.md"))],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == "- `--jobs`: How many worker processes format files at the same time [1]."
    answer = extractive_answer("Where are results kept between runs?", [(1, _hit(text, "options.md"))],
                               embed=embedder.embed_documents)
    assert "- Results are kept between runs in the user cache folder [1]." in _bullets(answer)


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


def test_a_myst_admonition_body_is_prose(embedder):
    """A MyST admonition fence (```{note} ... ```) holds prose, as reST's ".. note::" does: its sentences answer."""
    text = ("# Cache\n\nThe cache lives in the user folder.\n\n```{note}\nDeleting the cache folder is always safe "
            "because it is rebuilt on the next run.\n```\n")
    answer = extractive_answer("Is it safe to delete the cache folder?", [(1, _hit(text, "cache.md"))],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- Deleting the cache folder is always safe because it is rebuilt on the next "
                                   "run [1].")


def test_a_sentence_of_the_chunk_outside_its_best_window_can_answer(embedder):
    """The candidates are every passage of a hit's chunk, those outside its best window (`Hit.window`) weighted
    OUTSIDE_WINDOW: the window is where the chunk reads closest to the question, not always where the sentence
    naming what the user needs sits (a chunk's last lines, the code after a paragraph)."""
    text = ("# Retries\n\nThe client retries failed requests on its own. Each retry waits a little longer than the\n"
            "one before. Retries stop after the fifth attempt.\n\nRetries apply to idempotent methods only.\n\n"
            "# Proxies\n\nTo send every request through a proxy, set the `HTTPS_PROXY` environment variable.\n")
    hit = _windowed(text, "client.md", 0, 5)
    answer = extractive_answer("How do I send my requests through a proxy?", [(1, hit)],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- To send every request through a proxy, set the `HTTPS_PROXY` environment "
                                   "variable [1].")


def test_an_identifier_running_the_question_words_together_answers(embedder):
    """`g:fmt_linelength` holds "length" inside one word (names run words together): it points at the question's
    "line length", counts as sharing those words, is embedded among the many options and answers."""
    options = "".join(f"- `g:fmt_{name}` (defaults to `{value}`)\n" for name, value in (
        ("fast", 0), ("quiet", 0), ("preview", 0), ("target_version", '""'), ("use_virtualenv", 1),
        ("virtualenv", "~/.vim/fmt"), ("skip_magic_comma", 0), ("linelength", 88), ("skip_strings", 0),
        ("python", '"python3"'), ("cache_dir", '"~/.cache"'), ("color", 1)))
    prose = ("With this option enabled, the plugin wraps the expression so that the line fits within the line length "
             "limit. You probably noticed the peculiar default line length. If you are paid by the lines of code you "
             "write, pass a lower line length on the command line. People with sight disabilities find it harder to "
             "work with long lines. Long lines also make side-by-side diffs harder to read. Changes to a variable's "
             "line are shown in the plugin's log. The plugin changes nothing in lines you did not touch. A variable "
             "assignment that exceeds the line length is split at its parameters. The plugin keeps comments on the "
             "line they were on. Vim users can change the plugin's key mapping in their vimrc.")
    text = "# Vim\n\nThe plugin reads these variables:\n\n" + options + "\n" + prose + "\n"
    answer = extractive_answer("In the Vim plugin, which variable changes the line length?", [(1, _hit(text))],
                               embed=embedder.embed_documents)
    assert "- `g:fmt_linelength` (defaults to `88`) [1]" in _bullets(answer)


def test_a_version_the_question_names_finds_its_sentence(embedder):
    """"Python 3.9" names a version, which content words drop (single digits): the question's dotted numbers are
    terms of their own, matched verbatim (and worth IDENTIFIER_BONUS), so the sentence listing "3.9" with its
    release is found among sentences that share more of the question's words."""
    text = ("The tool supports every Python version that has not reached its end of life. We promise to support "
            "at least all of them. While there are no plans to stop supporting older Python versions right away, "
            "support might be removed in a future release without notice. Runtime support for 3.6 was removed in "
            "version 22.10.0, for 3.7 in version 23.7.0, for 3.8 in version 24.10.0 and for 3.9 in version 25.12.0. "
            "This is the case both for running the tool and for the code it checks. Each release lists its changes "
            "in the changelog. If you want to run the tool without installing Python, download a standalone "
            "executable from the release page. You can run the tool as a package if running it as a script does not "
            "work. A release in a new calendar year may change the style. Pinning the tool to a release keeps your "
            "output stable. Stop the daemon before you upgrade the tool to a new release.")
    answer = extractive_answer("In which release did the tool stop running on Python 3.9?", [(1, _hit(text))],
                               embed=embedder.embed_documents)
    assert "25.12.0" in answer


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


def test_a_passage_naming_the_question_in_one_identifier_is_added(embedder):
    """`X-Wrap-Width` is pointed at by two words of the question ("wrap width"): when no passage picked names the
    question so, the best one that does is added after them, although its sentence reads less like the question
    than the better-ranked source's sentences about headers and HTTP status codes."""
    responses = ("# Responses\n\nIf any of these headers are set to invalid values, the server returns an `HTTP 400` "
                 "error response naming the header. The server answers with `HTTP 200` when the text was changed; the "
                 "response body holds the new text and the `Content-Type` header is set. It answers `HTTP 204` when "
                 "the text sent was already formatted. `HTTP 500` means any other error while formatting the text "
                 "sent.\n")
    requests = ("# Requests\n\nThere are a few HTTP headers that control how the text is formatted. The body of the "
                "request holds the text, encoded as the `charset` of its `Content-Type` header says.\n")
    headers = ("# Headers\n\n- `X-Wrap-Width`: corresponds to the `--wrap-width` command line flag.\n"
               "- `X-Fast`: if set to `1`, the server skips its safety checks on the text sent.\n"
               "- `X-Dialect`: if set to `strict`, the server reads the text as the strict dialect.\n")
    sources = [(1, _hit(responses, "responses.md")), (2, _hit(requests, "requests.md")),
               (3, _hit(headers, "headers.md"))]
    answer = extractive_answer("Which HTTP header sets the wrap width when I send text to the server?", sources,
                               embed=embedder.embed_documents)
    assert _bullets(answer)[-1] == "- `X-Wrap-Width`: corresponds to the `--wrap-width` command line flag [3]."


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


ENV = """# Environment variables

The following environment variables are used by the client when trust_env is enabled. Environment variables
configure proxies, certificates and debugging of the client without changing any code.

### HTTP_PROXY, HTTPS_PROXY, ALL_PROXY

Valid values: a URL to a proxy.

Sets the proxy to be used for http, https, or all requests respectively.

### NO_PROXY

Valid values: a comma-separated list of hostnames/urls

Disables the proxy for specific urls.
"""


def test_a_passage_under_an_environment_variable_heading_names_it(embedder):
    """Headings naming upper-case identifiers ("### NO_PROXY", a list "### HTTP_PROXY, HTTPS_PROXY, ALL_PROXY")
    label the short paragraphs under them, so the answer names the variable the user must set."""
    from ragls.answer.labels import heading_label

    assert heading_label("### HTTP_PROXY, HTTPS_PROXY, ALL_PROXY") == "`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`"
    assert heading_label("### HTTP/2") == heading_label("## Usage") == heading_label("## FAQ, Support") == ""
    # the name counts as a word: a three-word sentence under it is a passage (MIN_WORDS), a bare one is not
    from ragls.answer.passages import units

    assert [u.sentence for u in units("# Env\n\n### NO_PROXY\n\nDisables the proxy.\n\n## Usage\n\n"
                                      "Disables the proxy.\n")] == ["`NO_PROXY`: Disables the proxy."]
    bullets = _bullets(extractive_answer("Which environment variable disables the proxy for some hosts?",
                                         [(1, _hit(ENV))], embed=embedder.embed_documents))
    assert bullets[0] == "- `NO_PROXY`: Disables the proxy for specific urls [1].", bullets
    answer = extractive_answer("Which environment variables set the proxy for the client?", [(1, _hit(ENV))],
                               embed=embedder.embed_documents)
    assert "- `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`: Sets the proxy to be used for http, https, or all requests " \
        "respectively [1]." in _bullets(answer)


def test_a_log_printout_is_not_scored_as_the_answer(embedder):
    """A block of log lines (or one a sentence announces as output) shows what happens, not what to do: its
    words ("DEBUG ... debug logging") do not score its sentence, so the configuration producing it answers."""
    text = ("# Logging\n\nThe client writes its messages through the standard library's logging module, under the "
            "logger named \"client\".\nConfigure the root logger before making requests:\n\n```python\nimport "
            "logging\nlogging.basicConfig(format=\"%(levelname)s %(message)s\", level=logging.DEBUG)\n```\n\n"
            "Debug logs then show every request the client makes, which looks like this:\n\n```\nDEBUG client: "
            "debug logging of request GET https://example.com - connection started\nDEBUG client: debug logging "
            "of response 200 OK - connection released\n```\n")
    answer = extractive_answer("How do I turn on debug logging for requests?", [(1, _hit(text))], max_sentences=1,
                               embed=embedder.embed_documents)
    assert "logging.basicConfig(" in answer and "DEBUG client" not in answer, answer
    from ragls.answer.passages import units

    said = {u.sentence: u.output for u in units(
        "If you run this code, you will see this output:\n\n```\n'a' started.\n'a' finished.\n```\n\n"
        "Your type must implement both `Display` and `Summary`:\n\n```rust\nfn notify(item: &impl Display) {}\n```\n\n"
        "You should see the following if you ran the update command:\n\n```console\n$ cargo update\n```\n")}
    assert said == {"If you run this code, you will see this output:": True,  # announced
                    "Your type must implement both `Display` and `Summary`:": False,  # a name in code, no output
                    "You should see the following if you ran the update command:": False}  # a prompt: what to run


def test_a_lower_hit_answering_the_other_part_of_the_question_is_quoted(embedder):
    """A two-part question: the best hit answers the first part in four sentences, the fifth hit the second part
    in one that reads as close to the question. That sentence is not off topic for its rank (its own evidence
    passes EVIDENCE_FLOOR) and, holding the question words no earlier pick holds, comes second (`_next_pick`);
    before, the rank prior dropped it under the relative floor and four sentences on retries filled the answer."""
    uploads = ("The client retries a failed upload three times by default. Each retry of an upload waits twice as "
               "long as the one before. The number of upload retries is set with the `max_retries` option. Retries "
               "of an upload stop at once when the server answers with a client error.")
    others = ["Logs are written to the `logs` folder of the project.",
              "The dashboard shows the uploads of the last week.", "Icons are stored as SVG files next to the templates."]
    pools = "Several uploaders can share one connection pool: pass the same `Pool` object to each of them."
    sources = ([(1, _hit(uploads, "uploads.md"))] + [(n, _hit(t, f"other{n}.md")) for n, t in enumerate(others, 2)]
               + [(5, _hit(pools, "pools.md"))])
    question = "How many times does the client retry an upload, and how can several uploaders share one connection pool?"
    bullets = _bullets(extractive_answer(question, sources, embed=embedder.embed_documents))
    assert bullets[0] == "- The client retries a failed upload three times by default [1]."
    assert bullets[1] == ("- Several uploaders can share one connection pool: pass the same `Pool` object to each of "
                          "them [5].")
    # every on-topic passage (four short ones leave room for a fifth: SHORT_ANSWER_CHARS), none of the others
    assert len(bullets) == 5 and not any("Logs" in b or "dashboard" in b or "Icons" in b for b in bullets)


def test_a_question_in_the_docs_is_quoted_with_its_answer(embedder):
    """A FAQ's "Q: ...? A: ..." (or prose's "How do you make it stop? Just delete the comma."): the docs' question
    matches the user's best, but alone it answers nothing; it is read with the sentence after it, so the answer
    carries what the docs reply."""
    text = "FAQ\n\nQ: Why do my jobs run twice?\nA: A job that exceeds its timeout is killed and retried; make jobs idempotent.\n"
    answer = extractive_answer("Why do my jobs run twice?", [(1, _hit(text, "faq.txt"))], embed=embedder.embed_documents)
    bullets = [line for line in answer.splitlines() if line.startswith("- ")]
    assert bullets[0] == ("- Q: Why do my jobs run twice? A: A job that exceeds its timeout is killed and retried; "
                          "make jobs idempotent [1]."), answer
    assert not any(b.rstrip().endswith("?") for b in bullets)


def test_a_lead_in_is_quoted_with_the_sentence_naming_what_it_announces(embedder):
    """The sentence that reads closest to the question says there is a way ("you can turn this off with an option
    of the test client") and the sentence right after it, in the next paragraph, names it with its one code line:
    the two are one passage (`_completed`), so even a one-passage answer holds `raise_server_errors=False`.
    Before, the lead-in was quoted alone. A sentence after it naming nothing the question points at is not added."""
    text = ("## Checking error pages\n\nThe test client raises any exception your handlers raise, so a failing test "
            "shows the traceback. When you want\nto check the error page your users would see instead, you can turn "
            "this off with an option of the test client.\n\nCreate it with `raise_server_errors=False`, then request "
            "the failing page:\n\n```python\nclient = TestClient(app, raise_server_errors=False)\n"
            "response = client.get(\"/broken\")\n```\n")
    question = "How do I see the error page in a test instead of the exception being raised?"
    answer = extractive_answer(question, [(1, _hit(text, "testing.md"))], max_sentences=1,
                               embed=embedder.embed_documents)
    lead = ("- When you want to check the error page your users would see instead, you can turn this off with an "
            "option of the test client")
    assert _bullets(answer) == [f"{lead}. Create it with `raise_server_errors=False`, then request the failing page [1]:"]
    assert "client = TestClient(app, raise_server_errors=False)" in answer
    plain = text.split("Create it")[0] + "Then open the page that fails and read what it says.\n"
    answer = extractive_answer(question, [(1, _hit(plain, "testing.md"))], max_sentences=1,
                               embed=embedder.embed_documents)
    assert _bullets(answer) == [f"{lead} [1]."], answer


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


def test_a_sentence_is_quoted_with_the_one_it_refers_back_to(embedder):
    """A picked sentence that opens by referring back ("So ...") or speaks in words of the identifier the sentence
    before it names ("A sync queue ..." after "`SyncQueue`") is shown with that sentence (`antecedent`): alone
    it never says what it is about. A sentence doing neither is shown alone."""
    text = ("Quillmark ships a `SyncQueue` class for deferred work.\n\nA sync queue runs its jobs only after the reply "
            "has been sent to the client.\n\nThe Courier object keeps its sockets open between calls. So repeated "
            "calls to one host reuse the same socket instead of opening a new one.\n\nLogs are rotated daily.\n")
    answer = extractive_answer("How can I run a job once the reply has gone out to the client?",
                               [(1, _hit(text, "guide.md"))], max_sentences=1, embed=embedder.embed_documents)
    assert _bullets(answer) == [("- Quillmark ships a `SyncQueue` class for deferred work. A sync queue runs its "
                                 "jobs only after the reply has been sent to the client [1].")], answer
    answer = extractive_answer("How do I stop opening a new socket for every call to the same host?",
                               [(1, _hit(text, "guide.md"))], max_sentences=1, embed=embedder.embed_documents)
    assert _bullets(answer) == [("- The Courier object keeps its sockets open between calls. So repeated calls to "
                                 "one host reuse the same socket instead of opening a new one [1].")], answer
    answer = extractive_answer("How often are logs rotated?", [(1, _hit(text, "guide.md"))], max_sentences=1,
                               embed=embedder.embed_documents)
    assert _bullets(answer) == ["- Logs are rotated daily [1]."], answer


def test_the_passage_closest_to_the_question_is_quoted_whatever_its_rank(embedder):
    """The best hit's sentences share the question's words (print, stdout, stderr, function) and fill the answer;
    the fourth hit says what was asked in other words ("standard error", `err=True`) and reads closer to the
    question than any of them. The rank prior and the word bonuses put it sixth; it is quoted after the picks
    (`_closest`). Before, the answer held five sentences on the test runner and no `err=True`."""
    testing = ("The test runner captures `print()`, `click.echo()` and `sys.stdout.write()` calls. The runner replaces "
               "`sys.stdout` and `sys.stderr` with wrappers. In this mode `sys.stdout.fileno()` raises an error. The "
               "text of each `print()` call is kept in `result.output`. A `print()` to `sys.stderr` is kept apart in "
               "`result.stderr` when the function returns. Warnings that the function writes are captured like any "
               "other output.")
    utils = ("The `echo` helper also handles binary data on any terminal. It can output both text and bytes. You can "
             "also easily print a warning to standard error by passing `err=True`.")
    sources = [(1, _hit(testing, "testing.md")), (2, _hit("Logs are written to the `logs` folder of the project.", "a.md")),
               (3, _hit("Icons are stored as SVG files next to the templates.", "b.md")), (4, _hit(utils, "utils.md"))]
    question = "How do I write a warning to stderr rather than stdout with the print function?"
    bullets = _bullets(extractive_answer(question, sources, embed=embedder.embed_documents))
    assert bullets[-1] == "- You can also easily print a warning to standard error by passing `err=True` [4]."
    assert bullets[0].endswith("[1].") and not any("Logs" in b or "Icons" in b for b in bullets)


def test_the_next_sentence_naming_another_identifier_the_question_points_at_is_read_with_the_pick(embedder):
    """The picked sentence names one thing the question points at (`io.UnsupportedOperation`); the sentence right
    after it names another (`faulthandler`) and with it the fix (`capture="fd"`): the two are one passage
    (`_completed`), so even a one-passage answer holds the fix. Before, a pick naming anything the question points
    at was quoted alone."""
    text = ("## Capturing output\n\nThe runner replaces `sys.stdout` with an in-memory wrapper while the command runs. "
            "In this mode `sys.stdout.fileno()` raises\n`io.UnsupportedOperation` when the command asks for it. C-level "
            "consumers (`faulthandler`, C extensions)\nthat expect a real file descriptor must opt into the "
            "`capture=\"fd\"` mode.\n")
    question = ("Under the test runner my command crashes with io.UnsupportedOperation because it turns on "
                "faulthandler; how do I make it work?")
    answer = extractive_answer(question, [(1, _hit(text, "testing.md"))], max_sentences=1,
                               embed=embedder.embed_documents)
    pair = ("- In this mode `sys.stdout.fileno()` raises `io.UnsupportedOperation` when the command asks for it. "
            "C-level consumers (`faulthandler`, C extensions) that expect a real file descriptor must opt into the "
            "`capture=\"fd\"` mode [1].")
    assert _bullets(answer) == [pair], answer


QUESTION_SWITCH = "The project needs the 3.12 interpreter. How do I switch the Python version of its environment?"


def _lower_source_answer(embedder, answering: str) -> tuple[str, list[str]]:
    """(the extractive answer, the sentences that can be picked: `_worth_embedding`'s choice) for QUESTION_SWITCH
    over a first hit of fourteen sentences sharing the question's words, three unrelated hits and `answering` as the
    fifth hit."""
    from ragls.answer.cite import content_words
    from ragls.answer.extractive import _worth_embedding, candidate_passages
    from ragls.answer.identifiers import literal_terms

    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February",
            "March", "April", "May", "June", "July")
    top = " ".join(f"The Python project team meets on {d} at the switch room; the environment committee reports its "
                   "version of the minutes." for d in days)
    others = ["Quokka reads its settings from a file in the project root.",
              "Plugins add commands of their own to the command line.",
              "The lock file records the exact version of every dependency."]
    sources = [(1, _hit(top, "paths.md"))] + [(n, _hit(t, f"p{n}.md")) for n, t in enumerate(others, 2)] + [
        (5, _hit(answering, "environments.md"))]
    candidates, _ = candidate_passages(sources, literal_terms(QUESTION_SWITCH), QUESTION_SWITCH)
    query = set(content_words(QUESTION_SWITCH)) | literal_terms(QUESTION_SWITCH)
    worth = [candidates[i].unit.sentence for i in _worth_embedding(query, candidates)]
    return extractive_answer(QUESTION_SWITCH, sources, embed=embedder.embed_documents), worth


def test_each_sources_best_sentences_by_words_are_embedded(embedder):
    """The EMBEDDED_CANDIDATES places go by words damped by source rank: a top hit with many sentences sharing the
    question's words filled them all, and a lower hit's answering sentence was never embedded, so never picked nor
    quoted as the closest by meaning. Each source's EMBEDDED_PER_SOURCE best by words can be picked too (Poetry's
    docs: the `env use` sentence of the fifth hit, the closest of all by meaning)."""
    from ragls.answer.extractive import EMBEDDED_CANDIDATES, EMBEDDED_PER_SOURCE

    answering = "To switch the interpreter of the current project, run `quokka env use` with its path."
    answer, worth = _lower_source_answer(embedder, answering)
    assert EMBEDDED_PER_SOURCE >= 1 and len(worth) > EMBEDDED_CANDIDATES
    assert answering in worth, worth
    assert "- To switch the interpreter of the current project, run `quokka env use` with its path [5]." in answer, \
        answer


def test_a_lower_sources_third_sentence_by_words_is_embedded(embedder):
    """EMBEDDED_PER_SOURCE is 3: a lower hit's page often holds two sentences restating the question's words before
    the one naming the means, which shares only one of them; with two places per source that one could never be
    picked (Poetry's po-i13 and po-p02, Scrapy's sc-t04: bench/history/sessions-46-47.md, "Three sentences of each source
    embedded")."""
    page = ("Each project environment records the Python interpreter version it was created with. "
            "The interpreter version of a project environment is shown by the `quokka env info` command. "
            "To switch to another one, run `quokka env use` with its path.")
    _, worth = _lower_source_answer(embedder, page)
    assert "To switch to another one, run `quokka env use` with its path." in worth, worth
