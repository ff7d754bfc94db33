"""Abstention on questions written situation first, on a real index (tantivy + LanceDB + the offline MiniLM): an
asking sentence that points back at the situation before it ("What went wrong?", "Is that allowed?") names nothing
the answering passage holds, so focus_coverage also weighs the whole question (`abstention.gather`;
bench/history/sessions-40-41.md, "Abstention: the whole question weighed too"). Docs written for this test, in no measured
corpus."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

PAGES = {
    "request_data.md": """# Dealing with request data

## The input stream

The raw request body is the WSGI input stream, `environ["wsgi.input"]`. The stream can be read only once. If a
middleware reads the input stream before the application, for example to log request bodies, the form parser finds
it exhausted and `request.form` and `request.files` are empty. Wrap the stream so it can be replayed, or let the
middleware read `request.get_data(cache=True)` so the body is kept for the parser.

## Limits

Set `max_content_length` to refuse bodies larger than a given number of bytes.
""",
    "responses.md": """# Responses

## Pickling

Response objects can be pickled, for example to put them in a cache. Call `response.freeze()` before that: it reads the
body iterator into a list, so the pickled response holds its whole body.

## Headers

Headers are set from a mapping with `response.headers`.
""",
    "routing.md": """# Routing

## Custom converters

A converter turns a placeholder of a URL rule into a Python value. Subclass `BaseConverter` and register the class
in the map's `converters` dict under a name. A placeholder without a converter uses the `default` converter; set
`converters["default"]` to your class to change how those placeholders are matched.
""",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("context"), PAGES) as w:
        yield w


@pytest.mark.parametrize("question", [
    ("I added a middleware that reads the input stream to log request bodies, and now request.form comes up empty in "
     "the app. What went wrong?"),
    "I want to pickle a response object to cache it. Is that allowed, and is there anything to do first?",
])
def test_an_asking_sentence_that_points_back_is_read_with_its_situation(ws, question):
    """The asking sentence alone ("What went wrong?": went, wrong; "Is that allowed, ...?": allowed, first) is in no
    passage; the situation before it is what the passage answers. Main refused both (focus_coverage 0, P 0.10)."""
    result = ws.query(question)
    assert result.hits.evidence.focus_coverage > 0.3 and not result.abstained, result.hits.evidence


def test_a_prefixed_english_word_is_no_name(ws):
    """"untyped" is un + typed (`english.lowercase_name`: a bound prefix before a dictionary word), not a product name
    the docs must mention; main refused this question for "they never mention untyped"."""
    from ragls.retrieval.english import lowercase_name

    assert not any(lowercase_name(w) for w in ("untyped", "unpickle", "deserialize", "reindexing"))
    assert all(lowercase_name(w) for w in ("postgres", "redis", "gevent"))  # post + gres, re + dis: too short a rest
    result = ws.query("After writing my own converter class, how do I register it on the URL map, and how would I "
                      "make it the default converter for untyped placeholders?")
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_a_name_the_docs_lack_in_the_asking_sentence_still_abstains(ws):
    """The whole question's words only raise focus_coverage; a name the docs never mention, asked about after a
    situation they do cover, still vetoes (`absent_name` reads the asking sentence)."""
    result = ws.query("I added a middleware that reads the input stream to log request bodies. How do I ship those "
                      "logs to Kafka?")
    assert result.hits.evidence.absent_names == ("Kafka",) and result.abstained, result.hits.evidence


def test_a_value_the_user_assigns_is_no_name(ws):
    """`--converter=myconv` gives the user's own value; named again later ("rules using myconv") it is still theirs,
    no name the docs must mention (`names.assigned_values`), and no word evidence against the question either. Main
    refused this question for "they never mention myconv"."""
    from ragls.retrieval.names import assigned_values, question_names, user_material

    question = ("I registered my converter class with --converter=myconv, but URL placeholders without a converter "
                "still do not use myconv. What am I missing?")
    assert "myconv" not in question_names(question) and "myconv" in user_material(question)
    assert assigned_values("set `level=debug` and --source=my_pkg.core") == {"debug", "my_pkg.core", "my", "pkg",
                                                                             "core"}
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_a_variable_the_users_code_binds_is_no_name(ws):
    """`payload = request.get_data()` binds the user's own variable (`names.bound_names`): named again later ("to log
    `payload`") it is no name the docs must mention. Main refused this question for "they never mention payload"
    (attrs' "I mixed `name = field()` and `age: int = 0` in one class and `age` silently disappeared ..."). A keyword
    argument binds nothing: its parameter is the library's. The name is the user's material too (`user_material`):
    attrs' question, its name veto gone, was refused by the meaning veto for "age" until it was."""
    from ragls.retrieval.names import bound_names, question_names, user_material

    question = ("My middleware reads `payload = request.get_data()` to log `payload`, and now `request.form` comes "
                "up empty in the app. Why?")
    assert bound_names(question) == {"payload"} and question_names(question) == ["request.form"]
    assert "payload" in user_material(question)  # in no chunk: no word evidence against the question either
    assert bound_names("I mixed `name = field()` and `age: int = 0`; is `count: int` required?") == {"name", "age",
                                                                                                     "count"}
    assert bound_names("It expects `x=`, `timeout=4.0` and `a == b`") == frozenset()
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_a_verb_form_of_an_english_clipping_is_no_name():
    """"diffing" is diff (a clipping of difference) + -ing: English word formation, not a product's name
    (`english.lowercase_name`); main vetoed an answerable Alembic question ("How do I stop it from diffing column
    types?") for it. A name stays a name with an -ing or -ed after it."""
    from ragls.retrieval.english import lowercase_name

    assert not any(lowercase_name(w) for w in ("diffing", "diffed"))
    assert all(lowercase_name(w) for w in ("tokioing", "gevented", "redis", "nginx"))


def test_a_placeholder_name_is_the_users_own(ws):
    """"somelib" is "some" closed up with the kind of thing it stands for (`names.placeholder`: myapp, somelib,
    yourpackage): the user's stand-in for their own library, no name the docs must mention and no word evidence
    while no chunk holds it. Main refused this question for "they never mention somelib" (mypy's docs: "the
    equivalent of a [mypy-somelib] per-module section"). A product written the same way is still a name, and a
    tool asked about still vetoes."""
    from ragls.retrieval.names import placeholder, question_names, user_material

    question = "How do I register the converter class from somelib on the URL map as the default converter?"
    assert "somelib" not in question_names(question) and "somelib" in user_material(question)
    assert question_names("How do I write a [mypy-somelib] per-module section?") == ["mypy"]
    assert not any(placeholder(w) for w in ("mysql", "mypy", "mypyc", "anyio", "anyhow", "somelibrary2"))
    assert question_names("How do I set up fuzz testing with cargo-fuzz?") == ["cargo-fuzz"]
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_a_quoted_lower_case_word_is_the_users_string(ws):
    """'slugx' in quotes is a string the user typed (a label, a value: `names.quoted_literals`), not a name the docs
    must mention, and no word evidence while no chunk holds it. Main refused this question for "they never mention
    slugx" (Material for MkDocs: "When a reader picks 'conda' on one page, how can every other tab set switch to
    'conda' too?"). A quoted name keeps its form, code without backticks keeps its string, and the bare word is
    still a name."""
    from ragls.retrieval.names import question_names, quoted_literals, user_material

    question = ("Some URL rules of mine use placeholders I label 'slugx'. How do I register my converter class on "
                "the URL map so that 'slugx' placeholders use it?")
    assert "slugx" not in question_names(question) and "slugx" in user_material(question)
    assert quoted_literals("""It says "Happy Eyeballs", 'CERT_REQUIRED', on_event("startup") and 'not found'.""") \
        == ["not found"]
    assert question_names("How do I register a converter for slugx placeholders?") == ["slugx"]
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_an_acronym_the_user_owns_in_their_situation_is_no_name(ws):
    """"Our DBA" in a sentence that tells the user's situation is their person (`names.possessed_acronyms`), not a
    name the docs must mention; main refused this question for "they never mention DBA" (Psycopg: "Our DBA sees my
    long-running service sitting 'idle in transaction' ... Why, and how do I avoid it?"). In the asking sentence
    an owned acronym is still a name, and the veto stands."""
    from ragls.retrieval.names import question_names

    question = ("Our DBA sees a middleware that reads the input stream to log request bodies, and request.form comes "
                "up empty in the app. Why, and how do I avoid it?")
    assert "DBA" not in question_names(question)
    assert question_names("How do I authenticate requests against our LDAP?") == ["LDAP"]
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_a_name_the_user_gives_their_own_thing_or_a_numbers_plural_is_no_name(ws):
    """"a method called reset_pin" in a sentence about the user's own code names their thing (`names.bound_names`),
    and "404s" is the plural of a number: neither is a name the docs must mention. Main refused two answerable
    Django REST framework questions for "they never mention reset_pin" / "404s" (drf-docs df26, df21). Asked about
    ("Is there a method called reset_pin?"), the name stands, and the veto with it."""
    from ragls.retrieval.names import bound_names, question_names, user_material

    question = ("My converter is a class called slug_pin, so its rule ends in slug_pin/. I want the placeholder "
                "without a converter to use my class. How?")
    assert bound_names(question) == {"slug_pin"} and question_names(question) == []
    assert {"slug", "pin"} <= user_material(question)
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence
    assert question_names("The middleware logs 404s and 500s but request.form comes up empty. Why?") == ["request.form"]
    assert question_names("Is there a method called reset_pin?") == ["reset_pin"]
    assert question_names("Does it have a converter called slug_pin for 404s?") == ["slug_pin"]


def test_what_the_user_would_do_without_is_no_name(ws):
    """"... so I don't need nvm?" names what the user wants to avoid, not what they ask about (`names._AVOIDED`):
    main refused pnpm's "How do I get pnpm to install Node.js LTS for me globally, so I don't need nvm?" (pnpm-docs
    pn29) for "they never mention nvm". Asked about, the name stands."""
    from ragls.retrieval.names import question_names

    question = "How do I keep the request body for the form parser, so I don't need gunicorn?"
    assert question_names(question) == []
    assert question_names("Can the form parser read the body with gunicorn instead of uwsgi?") == ["gunicorn"]
    result = ws.query(question)
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence
    assert ws.query("How do I keep the request body for the form parser under gunicorn?").abstained
