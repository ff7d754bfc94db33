"""Extractive answers with the real offline model (answer/ask.extractive_answer): a passage read with what
names it (an object description, an identifier or environment-variable heading) or completes it (the sentence it
refers back to, the one naming what it announces, the docs' answer to their own question), reST and MyST read as
text, and the focus on the lines naming what is asked."""

from __future__ import annotations

import pytest
from extractkit import _bullets, _hit, _windowed
from ragls.answer.ask import extractive_answer
from ragls.answer.focus import sentence_focus


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


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


def test_a_myst_admonition_body_is_prose(embedder):
    """A MyST admonition fence (```{note} ... ```) holds prose, as reST's ".. note::" does: its sentences answer."""
    text = ("# Cache\n\nThe cache lives in the user folder.\n\n```{note}\nDeleting the cache folder is always safe "
            "because it is rebuilt on the next run.\n```\n")
    answer = extractive_answer("Is it safe to delete the cache folder?", [(1, _hit(text, "cache.md"))],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- Deleting the cache folder is always safe because it is rebuilt on the next "
                                   "run [1].")


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
