"""Extractive answers ranked by meaning with the real offline embedding model (answer/ask.extractive_answer):
which passages are embedded, picked and quoted, from which source."""

from __future__ import annotations

import pytest
from extractkit import _bullets, _hit, _windowed
from ragls.answer.ask import extractive_answer


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


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
