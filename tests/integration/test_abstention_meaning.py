"""abstention's meaning veto (`meaning_absent`, retrieval/absent_meaning.py `absent_meaning`) on a real index (tantivy +
LanceDB + the offline MiniLM) of a small static-site generator's docs written here: a question whose words the docs
lack and whose passages speak of the rest abstains and says which words; a paraphrase whose missing word its passage
means ("blow up" for "stops with an error") and a question with an everyday word the docs lack are answered; with
`abstention_probability = 0` the veto is off."""

from __future__ import annotations

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.absent_meaning import ABSENT_MEANING_VETO, absent_meaning, lacking_words
from ragls.retrieval.abstention import Evidence
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"building.md": """# Building the site

Run `sitegen build` to render every Markdown page to HTML in the `public/` folder. The build stops with an
error when a page links to a file that does not exist, and prints the page and the broken link.

## Themes

A theme decides the layout and the colours of every page. Pick one with `theme = "paper"` in `sitegen.toml`;
the default theme is `plain`.
""",
"serving.md": """# Previewing

`sitegen serve` builds the site and serves it on http://localhost:4000, rebuilding a page when you save it.
Pass `--port` to use another port.
""",
"navigation.md": """# Navigation

The menu lists the top-level pages in the order of the `nav` list in `sitegen.toml`. A page missing from the
list is still built but not shown in the menu.
""",
}

NEAR_MISS = "How do I password-protect some pages of the site?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("meaning"), DOCS, toml='[generation]\nbackend = "none"\n')


@pytest.fixture(scope="module")
def ws(folder):
    w = RagWorkspace([folder])
    yield w
    w.close()


def test_a_question_the_passages_do_not_mean_abstains_and_names_the_words(ws):
    result = ws.retrieve(NEAR_MISS)
    delta, words = absent_meaning(result.term_stats, result.query, list(result)[:3], ws.embedder.embed_query,
                                  ws.embedder.embed_memoised)
    assert delta >= ABSENT_MEANING_VETO and words == ("password-protect",), (delta, words)
    assert result.evidence.meaning_absent == 1.0 and result.evidence.absent_words == ("password-protect",)
    assert result.evidence.absent_names == ()  # an English compound, not a name: not the name veto
    answer = ws.ask(NEAR_MISS)
    assert answer.abstained
    assert answer.text.startswith("Not in your docs: they never use the word password-protect, and the closest "
                                  "passages are about something else."), answer.text


def test_a_missing_word_the_passage_means_is_answered(ws):
    """"blow up" is in no chunk, but the building page says the build "stops with an error": without the word the
    question is no closer to the passages (delta below 0), so it is answered; so is a question whose only missing
    word is an everyday one ("different")."""
    for question in ("Why does the build blow up when a page links to a missing file?",
                     "How do I build the site into a different folder?"):
        result = ws.retrieve(question)
        delta, _ = absent_meaning(result.term_stats, result.query, list(result)[:3], ws.embedder.embed_query,
                                  ws.embedder.embed_memoised)
        assert delta < ABSENT_MEANING_VETO and result.evidence.meaning_absent == 0.0, (question, delta)
        assert not ws.query(question).abstained, question
    answer = ws.ask("Why does the build blow up when a page links to a missing file?")
    assert not answer.abstained and "does not exist" in answer.text, answer.text


def test_the_users_path_or_measure_is_no_missing_subject(ws):
    """A path the user names ("/handbook") or a measure of their thing ("multi-gigabyte") is in no chunk, and without
    it the question comes closer to the passages (delta 0.103 and 0.112 when they counted) — but the docs need not
    write the user's literals or measures: the subject, the menu and the theme, is covered, so both are answered
    (`names.literal_words`, `asked_value.measure_compounds`). A near miss that names a measure too still abstains, for the
    word that is its subject."""
    for question, said in (("How do I list the /handbook pages in the menu?", "nav"),
                           ("How do I pick the theme of my multi-gigabyte site?", "theme")):
        result = ws.retrieve(question)
        assert lacking_words(result.term_stats, result.query) == [], question
        assert result.evidence.meaning_absent == 0.0, question
        answer = ws.ask(question)
        assert not answer.abstained and said in answer.text, (question, answer.text)
    near_miss = "How do I password-protect the pages of my multi-gigabyte site?"
    result = ws.retrieve(near_miss)
    assert result.evidence.absent_words == ("password-protect",), result.evidence
    answer = ws.ask(near_miss)
    assert answer.abstained and "never use the word password-protect," in answer.text, answer.text


def test_a_port_stated_in_a_url_is_a_stated_value(ws):
    """"serves it on http://localhost:4000" states the preview's port: the value check reads a URL's host and port
    (`asked_value.stated_text`), so the port question is answered, from the serving page. A port asked of what the
    docs give none (the menu), or a duration the URL's number does not measure, is still a value never stated."""
    question = "Which port does the preview use?"
    assert ws.retrieve(question).evidence.value_missing == 0.0
    answer = ws.ask(question)
    assert not answer.abstained and answer.sources[0][1].chunk.path.endswith("serving.md"), answer.text
    for question in ("Which port does the navigation menu use?",
                     "How long does the preview wait before rebuilding a page?"):
        assert ws.retrieve(question).evidence.value_missing == 1.0, question
        answer = ws.ask(question)
        assert answer.abstained and "never state the value it asks for" in answer.text, (question, answer.text)

def test_no_word_missing_means_no_veto(ws):
    result = ws.retrieve("Which theme is the default?")
    assert absent_meaning(result.term_stats, result.query, list(result)[:3], ws.embedder.embed_query,
                          ws.embedder.embed_memoised) is None
    assert result.evidence.meaning_absent == 0.0 and not ws.query("Which theme is the default?").abstained


def test_the_veto_is_off_with_the_probability_rule(folder):
    (folder / "ragls.toml").write_text((folder / "ragls.toml").read_text() + "[retrieval]\nabstention_probability = 0\n")
    w = RagWorkspace([folder])
    try:
        assert w.retrieve(NEAR_MISS).evidence.meaning_absent == 0.0
    finally:
        w.close()


def test_the_veto_is_a_veto():
    """Whatever the word evidence, meaning_absent keeps P(answerable) below the default floor 0.2, as absent_name does."""
    assert Evidence(cosine=0.6, coverage=1.0, agreement=1.0, focus_coverage=1.0, meaning_absent=1.0).probability() < 0.2
    assert Evidence(cosine=0.6, coverage=1.0, agreement=1.0, focus_coverage=1.0).probability() > 0.9


@pytest.mark.parametrize("backend", ["openai", "anthropic"])
def test_with_an_llm_its_grade_is_the_last_word(ws, llm_server, backend):
    """With corrective grading on (retrieval.corrective; an OpenAI- or Anthropic-compatible server on 127.0.0.1), the
    LLM's grade decides, not the evidence: the near miss the meaning veto refuses is answered, by the model, when it
    grades the passages SUFFICIENT; a question the evidence answers is refused after two INSUFFICIENT grades."""
    from llm_server import route
    from ragls.retrieval.llm_steps import CACHE

    base = ws.settings
    url = llm_server.openai_url if backend == "openai" else llm_server.anthropic_url
    ws.settings = base.model_copy(update={
        "retrieval": base.retrieval.model_copy(update={"corrective": True}),
        "generation": base.generation.model_copy(update={"backend": backend, "base_url": url, "model": "test-model"})})
    try:
        CACHE.clear()
        llm_server.reset(route({"judge": "SUFFICIENT"}, default="Use the password option [1]."))
        result = ws.retrieve(NEAR_MISS)
        assert result.corrective == "sufficient" and result.evidence.meaning_absent == 1.0  # the evidence alone refuses
        assert not ws.query(NEAR_MISS).abstained
        answer = ws.ask(NEAR_MISS)
        assert not answer.abstained and answer.text.startswith("Use the password option"), answer.text
        CACHE.clear()
        llm_server.reset(route({"judge": "INSUFFICIENT\nQuery: default theme name"}, default="unexpected answer call"))
        question = "Which theme is the default?"
        assert ws.query(question).abstained
        answer = ws.ask(question)
        assert answer.abstained and "insufficient" in answer.text, answer.text
        assert all("judge" in r.system for r in llm_server.requests)  # graded twice, no answer call
    finally:
        ws.settings = base
        CACHE.clear()
