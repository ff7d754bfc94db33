"""Answer type on a real index (tantivy + LanceDB + the offline MiniLM): a question asking for a value (an amount,
a default, a path, a message, a colour) abstains when the passages found discuss its subject but never state the
value, and is answered where they do; what a value question measures and which clause of a question asks. The rule
is retrieval/asked_value.py; the fixture docs and the small pool/resolver pages are in no corpus it was measured on."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, fixture_workspace
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    w = fixture_workspace(tmp_path_factory.mktemp("values"))
    yield w
    w.close()



def test_a_value_the_docs_never_state_abstains(ws):
    """Answer type (retrieval/asked_value.py): a question asking for a value the fixture docs discuss but never state
    (the retry budget's default percentage, the default log level) abstains and says why, although every word of it
    is in the docs; value questions the docs answer (three retries by default, port 8080, drained for thirty
    seconds) are answered. The fixture docs are in no corpus the rule was measured on."""
    for question in ("What is the default value of retryBudgetPercent?", "What is the default log level?"):
        miss = ws.query(question)
        assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, (question, miss.hits.evidence)
        assert miss.hits.evidence.absent_names == ()  # every word is in the docs: not the name test
    text = ws.ask("What is the default log level?").text
    assert text.startswith("Not in your docs: the passages found discuss it but never state the value it asks for."), text
    assert "%" not in text
    for question in ("How many times is a request retried by default?", "Which port does the image listen on?",
                     "How long is a replica drained before it stops?"):
        result = ws.query(question)
        assert result.hits.evidence.value_missing == 0.0 and not result.abstained, (question, result.hits.evidence)


def test_which_questions_ask_for_a_value():
    from ragls.retrieval.asked_value import asked_value, value_stated

    assert asked_value("Which port does blackd listen on by default?") == "default-amount"
    assert asked_value("How many workers does it start when I don't pass --workers?") == "default-amount"
    assert asked_value("I run it in Docker. How long may a request take?") == "amount"
    assert asked_value("What does g:black_fast default to?") == "default"
    # asking how to set a number, or which header sets a length, asks for a way or a name, not a value
    assert asked_value("How do I set how many parallel workers Black uses?") is None
    assert asked_value("Which HTTP header sets the line length?") is None
    assert asked_value("How do I skip git blame commits without passing a flag by default?") is None
    # a value stated in the sentence holding the subject or in the two after it; references and markup are not values
    passage = ":param int backlog: the number of unaccepted connections.\n\n``128`` by default.\n"
    assert value_stated("default-amount", ["backlog"], [passage])
    assert not value_stated("default-amount", ["linger"], ["lingering_time: Use ``0`` to disable lingering."])
    assert not value_stated("amount", ["stack"], ['<Listing number="16-1"> See Listing 16-2 for the stack.'])
    assert value_stated("default", ["worker"], ["The number of parallel workers. Defaults to the number of CPUs."])
    # "no limit" said in words is a value: a request that never times out answers "how long may it take?"
    assert value_stated("amount", ["timeout"], ["By default, requests do not time out unless a timeout is set."])
    assert value_stated("amount", ["session"], ["A session cookie never expires on its own."])
    assert not value_stated("amount", ["timeout"], ["A timeout can be set on every request."])
    assert value_stated("amount", ["token"], ["A token won't expire until it is revoked."])
    assert not value_stated("amount", ["cache"], ["Do not expire the cache by hand."])  # an order, not a value
    assert not value_stated("amount", ["timeout"], ["There is no timeout parameter; use wait_for."])
    # an asking sentence that names no subject ("What am I doing wrong?") leaves the whole question asking
    assert asked_value("My upload hangs for minutes. What am I doing wrong?") is None
    from ragls.retrieval.asking import asked_sentences

    question = "My handler for /users/me never runs; /users/{name} answers instead. What am I doing wrong?"
    assert asked_sentences(question) == question
    assert asked_sentences("I run it in Docker. How long may a request take?") == "How long may a request take?"


def test_an_address_or_an_example_states_no_value():
    """A number in a link's target or a bare URL (an issue number, a commit hash) and the literals of a fenced example
    (what it passes or prints) state no value of the docs' own; a MyST directive's fence holds the docs' text, a
    configuration file's fence their settings, and a chunk cut inside an example starts in it."""
    from ragls.retrieval.asked_value import stated_text, value_stated

    linked = "Redirects are not followed [because of this](https://github.com/o/r/discussions/1785)."
    assert not value_stated("amount", ["redirect"], [linked])
    assert value_stated("amount", ["redirect"], [linked.replace(".", "; at most 20 are followed.")])
    example = "How many redirects are followed:\n\n```pycon\n>>> r.status_code\n301\n```\n"
    assert not value_stated("amount", ["redirect"], [example])
    assert value_stated("amount", ["redirect"], ["Limits:\n```{eval-rst}\nAt most 20 redirects are followed.\n```\n"])
    assert value_stated("amount", ["redirect"], ["Redirects:\n```toml\nmax_redirects = 20\n```\n"])
    assert stated_text("x = 301\n```\nThe limit is 20.\n```python\ny = 7\n```\n") == "\n\nThe limit is 20.\n\n\n\n"

def test_a_urls_host_and_port_are_stated():
    """A URL's host and port are the docs' statement of a value ("serves it on http://localhost:4000": the port), in
    prose, a code span or a link's target; its path, query and a user's password are not kept. A port is the
    answer to a question asking for a port only: it is no count, duration or size."""
    from ragls.core.analysis import stems
    from ragls.retrieval.asked_value import stated_text, value_stated

    serve = set(stems("serve"))
    for said in ("It serves the site on http://localhost:4000, rebuilding pages.",
                 "It serves the site on `http://127.0.0.1:4000/`.", "It serves [the site](http://localhost:4000/a).",
                 "It serves the site on <https://example.org:4000>."):
        assert value_stated("amount", serve, [said], port=True), said
        assert not value_stated("amount", serve, [said]), said  # a port is no duration, size ...
        assert not value_stated("amount", serve, [said], count=True), said  # ... nor count
    assert not value_stated("amount", serve, ["It serves the site on http://localhost/pages/4000."], port=True)
    assert stated_text("see https://u:s3cret@host.example:8443/x/1785?a=2#f now") == "see  host.example:8443  now"
    assert stated_text("[guide](../a/1785.md) and [x](https://x/1785)") == "[guide] and [x] x"


def test_a_paragraph_opening_by_default_states_the_default_of_its_later_sentences():
    """"By default, auto-reload is enabled. ... It also listens on the IP address `127.0.0.1`" (FastAPI's `fastapi
    dev`): the opening "By default" speaks for the sentence naming the subject, whose value is the default asked for
    ("Which address does it listen on by default?" was refused as a value the docs never state). Without that
    opening, or without a value in the subject's sentence, nothing is stated."""
    from ragls.core.analysis import stems
    from ragls.retrieval.asked_value import value_stated

    listen = set(stems("listen"))
    docs = ("By default, auto-reload is enabled, reloading the server on every change. You should only use it for "
            "development. It also listens on the IP address `127.0.0.1`, for your machine alone.")
    assert value_stated("default", listen, [docs])
    assert value_stated("default-amount", listen, [docs], port=True)  # an address answers "which port by default"
    assert not value_stated("default", listen, [docs.replace("By default, auto", "Auto")])
    assert not value_stated("default", listen, [docs.replace(" on the IP address `127.0.0.1`", " for requests")])
    # more than DEFAULT_SCOPE sentences later the opening no longer speaks for it
    far = docs.replace("You should only", "It is slower. It may be less stable. You should only")
    assert not value_stated("default", listen, [far])


def test_a_named_value_is_a_path_a_message_or_a_colour(ws):
    """"What folder", "what message", "which colour" ask for a value of a named kind (`asked_value.NAMED_VALUES`):
    answered only by a path, a quoted text, a colour's name near the subject. The fixture docs give the health
    check's path (`/healthz`) but not the folder client.toml is read from: the first is answered, the second abstains."""
    from ragls.retrieval.asked_value import asked_value, value_stated

    assert asked_value("What folder does get_app_dir return on macOS?") == "path"
    assert asked_value("What message does pause() print by default?") == "message"
    assert asked_value("Which colour does the renderer use for warnings?") == "colour"
    assert asked_value("What happens with folders?") is None  # asks what happens, not which folder
    # The named noun as the form of another thing asks for that form, not a path or a message (held-out set 32).
    assert asked_value("I want multi-disc albums in 'Disc 1' subfolders. What path format does that?") is None
    assert asked_value("Which message template is used for the prompt?") is None
    assert asked_value("What path does the exporter write the log to?") == "path"
    assert value_stated("path", ["config"], ["The config lives in ~/.config/app on Linux."])
    assert not value_stated("path", ["config"], ["The config is read and/or written at start."])
    assert value_stated("message", ["paus"], ['pause() prints "Press any key to continue".'])
    assert not value_stated("message", ["paus"], ["pause() prints a quick message."])
    assert value_stated("colour", ["warn"], ["Warnings are yellow."])
    assert not value_stated("colour", ["warn"], ["Warnings are coloured."])
    found = ws.query("What path do the health checks hit?")
    assert found.hits.evidence.value_missing == 0.0 and not found.abstained, found.hits.evidence
    miss = ws.query("Which folder does the client read client.toml from?")
    assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, miss.hits.evidence


def test_a_one_word_follow_up_asks_about_the_sentences_before_it(ws):
    """An asking sentence after others that names at most one thing and no wh-word ("Related?", "Is that
    intended?") points back at them: the whole question asks, and its word coverage is the whole question's. "How
    do I paginate?" asks on its own."""
    from ragls.retrieval.asking import asked_sentences

    situation = "Upgrades replace one replica at a time and my requests fail while a replica is drained."
    assert asked_sentences(f"{situation} Related?") == f"{situation} Related?"
    assert asked_sentences(f"{situation} Is that intended?") == f"{situation} Is that intended?"
    assert asked_sentences("My app is big. How do I paginate?") == "How do I paginate?"
    result = ws.query(f"{situation} Related?")
    assert not result.abstained and result.hits.evidence.focus_coverage > 0.5, result.hits.evidence


POOL_DOCS = """# Connection pool

The client keeps idle connections in a pool so that later calls reuse them. A call
may stop early when the peer resets the socket; the pool then opens a fresh connection.

- `max_connections`, the maximum number of open connections, or `None` for no limit.
  (Default 50)
- `idle_expiry`, how long an idle connection stays in the pool, in seconds.
  (Default 90)

## Timeouts

A request that gets no reply is cut off only when you ask for it. If no timeout is given,
requests never time out.
"""

RESOLVER_DOCS = """Resolver
========

The resolver caches the addresses it looks up, so repeated calls to a host skip DNS.

:param int dns_ttl: expire the cached DNS entries after some seconds, ``None`` means cached forever.
   By default 10 seconds. Use it to refresh each entry after N seconds.

:param int limit: total number of simultaneous lookups. If *limit* is ``0`` there is no limit
   (default: 100).

.. function:: open_pool(url, *, shutdown_timeout=30.0, backlog=128)

   Opens a pool for *url*. On shutdown, pending requests are given a grace period before they are
   cancelled.
"""


@pytest.fixture(scope="module")
def pool_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("pool"), {"pool.md": POOL_DOCS, "resolver.rst": RESOLVER_DOCS},
                              filler=False) as w:
        yield w


def test_a_value_is_judged_by_what_the_question_measures(pool_ws):
    """value_missing's subject includes what a value question measures (`asked_value.measured_terms`): a paraphrase
    whose rarest words are its situation ("the peer stops replying", "sit there") is answered where the docs state
    the value beside the thing measured (requests never time out; "(Default 50)" on the `max_connections` item);
    a signature's keyword default answers a default asked in other words (`shutdown_timeout=30.0` for "a graceful
    shutdown"). A count asked of a passage that states only a duration for its subject (the DNS entries' expiry),
    or whose number belongs to the next field (`limit`'s default), abstains. Docs written for this test, in no
    measured corpus."""
    for question in ("If I never pass a timeout and the peer stops replying, how long will my call sit there?",
                     ("How do I cap the total number of connections a client may open, and what is that cap when I "
                      "don't set it?"),
                     "How long does open_pool wait for pending requests during a graceful shutdown by default?"):
        result = pool_ws.query(question)
        assert result.hits.evidence.value_missing == 0.0 and not result.abstained, (question, result.hits.evidence)
    miss = pool_ws.query("How many DNS entries can the resolver cache hold before it evicts them?")
    assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, miss.hits.evidence


def test_what_a_value_question_measures():
    from ragls.retrieval.asked_value import asked_count, measured_terms, parameter_default, value_stated

    assert measured_terms("If I never pass a timeout and the server stops answering, how long will my call sit "
                          "there?") == ["timeout"]
    assert measured_terms("How do I limit the total number of connections a client may open?") == ["connect"]
    assert measured_terms("How many gunicorn worker processes run by default?") == ["process"]
    assert measured_terms("How many seconds does the server keep an idle connection open?") == []
    assert asked_count("How many host entries can the DNS cache hold?")
    assert not asked_count("How many seconds does the server keep an idle connection open?")
    assert not asked_count("How long does a session last?")
    # a count is not answered by a duration or a size, nor by None in a sentence about time
    entries = ":param int ttl: expire the DNS entries after some seconds, ``None`` means cached forever."
    assert value_stated("amount", ["entri"], [entries]) and not value_stated("amount", ["entri"], [entries], True)
    assert value_stated("amount", ["worker"], ["Black starts 4 workers."], True)
    assert value_stated("default-amount", ["worker"], ["Defaults to the number of CPUs, one worker each."], True)
    # a field's value does not answer for the field before it
    fields = ":param dns_ttl: refresh each entry after N seconds.\n:param limit: total lookups (default: 100)."
    assert not value_stated("default-amount", ["entri"], [fields], True)
    # a signature's default, by the parameter's name; an example's call is no signature
    assert parameter_default(["shutdown"], [".. class:: Site(runner, *, \\\n    shutdown_timeout=60.0, ssl=None)"])
    assert not parameter_default(["dns"], ["conn = TCPConnector(ttl_dns_cache=300)"])
    assert not parameter_default(["retri"], ["Use the class directly, and pass it (retries=1)."])


def test_a_name_in_the_users_situation_before_a_semicolon_does_not_veto(pool_ws):
    """`asked_clause`: a clause before ";" tells the user's situation, as a sentence before the question does, so a
    name in it that the docs lack (PROPFIND, WebDAV) does not refuse what the last clause asks; the same name where
    the question asks still abstains. Docs written for this test, in no measured corpus."""
    situation = pool_ws.query("My WebDAV gateway only speaks PROPFIND; how does the pool reuse idle connections?")
    assert situation.hits.evidence.absent_names == () and not situation.abstained, situation.hits.evidence
    asked = pool_ws.query("How does the pool reuse idle connections for PROPFIND calls to my WebDAV gateway?")
    assert set(asked.hits.evidence.absent_names) == {"WebDAV", "PROPFIND"} and asked.abstained
    from ragls.retrieval.asking import asked_clause

    assert asked_clause("We use gevent; what do I use?") == "We use gevent; what do I use?"  # asks nothing of its own
    assert asked_clause("Is it fast; or slow") == "Is it fast; or slow"


def test_a_semicolon_in_the_users_code_or_quote_ends_no_clause():
    """`asked_clause` splits at a ";" of the question's grammar, not at one inside the user's code span or quoted
    text: `SET x=1; COMMIT` is the user's code (no name), so COMMIT must not become a name of the question, nor a
    half code span the clause asked."""
    from ragls.retrieval.asking import asked_clause
    from ragls.retrieval.names import question_names

    q = "What does `SET x=1; COMMIT` do in a gevent worker?"
    assert asked_clause(q) == q and question_names(q) == ["gevent"]
    quoted = 'Why does the log say "retry 1; giving up" in Kerberos mode?'
    assert asked_clause(quoted) == quoted
    assert asked_clause("The docs say use X; what happens with `a;b`?") == "what happens with `a;b`?"


def test_a_word_of_how_help_is_asked_for_is_not_the_means():
    """The means after with/using/via/use is a name ("with gettext"), but not a word of how help is asked for
    (`asking.GENERIC_ASKING`): "What should I use instead?" names nothing, so a corpus that never says
    "instead" does not refuse it."""
    from ragls.retrieval.names import question_names

    assert question_names("Which class should I use instead?") == []
    assert question_names("How do I translate it into German with gettext?") == ["German", "gettext"]


SETTINGS_DOCS = """Settings
========

The settings are read from the project's settings module. Each setting below names its
default first.

.. setting:: FETCH_RETRIES

FETCH_RETRIES
-------------

Default: ``3``

Maximum number of times to retry a failed fetch, in addition to the first one.

The limit can also be given to a single job with the ``max_retries`` key of its
metadata, which takes precedence over FETCH_RETRIES for that job.

.. setting:: FETCH_DELAY

FETCH_DELAY
-----------

Default: ``0``

Seconds to wait between two fetches of the same site.
"""

HANDBOOK_DOCS = """# Jobs

A job fetches a list of pages, and a failed fetch is retried before the job goes on.
Jobs are queued in order and run one at a time. Each attempt that fails is logged
with its reason; a job's `skip` list allows a particular page to be left out.

## Retrying by hand

To fetch a page again, queue a new job for it; the retry log shows every fetch.
"""


@pytest.fixture(scope="module")
def settings_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("settings"),
                              {"settings.rst": SETTINGS_DOCS, "jobs.md": HANDBOOK_DOCS}, filler=False) as w:
        yield w


def test_the_subject_is_named_in_the_clause_that_asks_for_the_value(settings_ws):
    """A question asking two things, the value in its first clause (`asked_value.value_clause`): the subject is that
    clause's ("retry", "fetch"), not the rarest words of the other ("attempts", "particular"), so the default stated
    beside the setting (``Default: ``3```` above "Maximum number of times to retry a failed fetch") answers it; with
    the whole question's rarest words no sentence near them stated a number and it abstained."""
    from ragls.retrieval.asked_value import value_clause

    question = ("How many times is a failed fetch retried by default, and can I allow more attempts for one "
                "particular job only?")
    assert value_clause(question) == "How many times is a failed fetch retried by default"
    assert value_clause("What is the default port, and how do I change it?") == "What is the default port"
    assert value_clause("Which port does it listen on by default?") == "Which port does it listen on by default?"
    later = "If I never pass a timeout and the server stops answering, how long will my call sit there?"
    assert value_clause(later) == later  # a later clause points back at the one before: the whole question
    result = settings_ws.query(question)
    assert result.hits.evidence.value_missing == 0.0 and not result.abstained, result.hits.evidence


def test_a_two_part_questions_second_clause_names_the_value_it_asks(settings_ws):
    """A question asking two things, the value in its second clause, joined by "and", that names its own subject
    (`asked_value._own_value_clause`): the subject is that clause's ("fetch", "retried"), not the rarest words of
    the first ("skip", "list"), so the default stated beside the setting answers it; on main the whole question's
    rarest words were the subject, no sentence near them states a number, and the value veto refused it (Peewee's
    pw29, "... and what limits how many connections the pool keeps open?"). A second clause that points back
    ("that limit") or names only the value ("the limit by default") still reads the whole question."""
    from ragls.retrieval.asked_value import value_clause

    question = "What does a job's skip list do, and how many times is a failed fetch retried by default?"
    assert value_clause(question) == "and how many times is a failed fetch retried by default?"
    for whole in ("How do I limit the retries of a job, and what is that limit when I don't set it?",
                  "Does a job retry a failed fetch, and what is the limit by default?",
                  "In a job's metadata, how many times is a failed fetch retried by default?"):
        assert value_clause(whole) == whole, whole
    result = settings_ws.query(question)
    assert result.hits.evidence.value_missing == 0.0 and not result.abstained, result.hits.evidence


@pytest.mark.timeout(60)
def test_a_passage_of_blank_lines_is_read_in_linear_time():
    """A folder's chunk with a long run of blank lines is split into blocks in linear time: the block-start lookahead
    scanned the whole run from each of its newlines (red team, session 49: 35 s for 20,000 newlines under load, on
    every question whose shown hits held it). 200,000 here; the timeout is a hang guard."""
    from ragls.retrieval.asked_value import value_stated

    passage = "The backlog is the queue of pending connections." + "\n" * 200_000 + "- backlog: default 128"
    assert value_stated("default-amount", ["backlog"], [passage])


@pytest.mark.timeout(60)
def test_a_sentence_of_one_long_name_is_read_in_linear_time():
    """A folder's sentence holding one very long name ("aaaa…", no `=`) is searched for a keyword default
    (`name=5`) in linear time: the search scanned to the name's end from each of its characters (red team, session
    49: 19 s for 20,000 characters under load). 200,000 here; the timeout is a hang guard."""
    from ragls.retrieval.asked_value import value_stated

    assert not value_stated("default", [], ["w" * 200_000 + " is the worker."])
    assert value_stated("default", [], ["workers=4 is used when none is given."])


WORKER_DOCS = """# Workers

The server runs your handlers in worker processes. Pass `--worker-class` to run one of the bundled worker types
instead of the default sync worker. Each worker restarts when it crashes, since release 2.4.0, and a request that
finds no live worker gets a `503 Service Unavailable` response. One way to see the workers is the status page.
"""


@pytest.fixture(scope="module")
def worker_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("workers"), {"workers.md": WORKER_DOCS}, filler=False) as w:
        yield w


def test_a_number_that_names_a_thing_states_no_value(worker_ws):
    """"one of the bundled worker types", "One way", release 2.4.0 and "503 Service Unavailable" name a thing, they
    measure nothing (`asked_value._REFERENCE`): a passage about workers that holds only such numbers does not answer
    "How many worker processes ... when I don't pass --workers?". Main answered it, as it answered aiohttp's
    "How many worker processes does gunicorn start ...?" for "one of the Gunicorn default worker types". A number
    that measures still states the value."""
    from ragls.retrieval.asked_value import value_stated

    miss = worker_ws.query("How many worker processes does the server start when I don't pass --workers?")
    assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, miss.hits.evidence
    worker = ["worker"]
    assert not value_stated("amount", worker, ["Black can run one of the worker types, or each one in turn."], True)
    assert not value_stated("amount", ["bodi"], ["A body that is too large gets a `413 Content Too Large` response."])
    assert not value_stated("amount", ["cach"], ["The cache is kept for files formatted as 3.6+ only, since 22.1.0."])
    assert value_stated("amount", worker, ["It starts one worker per CPU."], True)
    assert value_stated("amount", ["bodi"], ["A body larger than 100 MB is refused with a 413 response."])
    assert value_stated("amount", ["listen"], ["It listens on 127.0.0.1:8000."], port=True)


POOL_DOCS = """# Connection pooling

Good news: keep-alive is 100% automatic within a session. Every request you make through a session reuses an open
connection to the same host when it finds a free connection, and about 90% of the requests of a typical crawl reuse
a pooled connection.

Connections are returned to the pool once the response body has been read.
"""


@pytest.fixture(scope="module")
def keepalive_ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("keepalive"), {"pooling.md": POOL_DOCS}, filler=False) as w:
        yield w


def test_a_percentage_states_no_duration_and_no_count(keepalive_ws):
    """"100% automatic" (a figure of speech) and "90% of the requests" measure a share: neither answers "how long"
    (a duration or a length) nor "how many" (`asked_value._NO_SHARE_Q`); main answered "How long does a Session keep
    a keep-alive connection open before it closes it?" (a Requests near miss) for "keep-alive is 100% automatic
    within a session". A question that may ask for a share is still answered by one."""
    from ragls.retrieval.asked_value import value_missing, value_stated

    miss = keepalive_ws.query("How long does a session keep an idle keep-alive connection open before closing it?")
    assert miss.hits.evidence.value_missing == 1.0 and miss.abstained, miss.hits.evidence
    assert value_missing("How many connections does a session keep open per host?", [POOL_DOCS], ["connect"])
    assert not value_missing("How much of a crawl's traffic reuses a pooled connection?", [POOL_DOCS], ["reus"])
    assert not value_stated("amount", ["session"], ["Keep-alive is 100% automatic within a session."], share=False)
    assert value_stated("amount", ["session"], ["A session keeps an idle connection for 30 seconds."], share=False)
