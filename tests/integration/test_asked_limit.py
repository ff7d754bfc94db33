"""A limit asked for, none stated (retrieval/asked_limit.py; abstention's limit_missing veto): a question asking for
a way to impose a limit ("Can I cap how many ...", "How do I add a timeout to ...") abstains when none of the top
hits' context windows names a limit, and is answered where one does ("`jobs: 4` runs at most four commands at
once"). On a real index (tantivy + LanceDB + the offline MiniLM) of a small hook runner's docs written here, which
state a limit for parallel commands only. Near misses of that form were answered on real dev sets (Nox's nx17,
Lefthook's lefthook-n01 and lefthook-n05, coverage.py's cov-n06: bench/history/session-67.md, "Abstention: a limit
asked, none stated")."""

from __future__ import annotations

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.asked_limit import limit_asked, limit_missing
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"commands.md": """# Commands

Each hook lists the commands it runs. A command runs in the repository root, and its output is shown when it fails.
A command that exits with a non-zero code fails the hook; the remaining commands still run unless `fail_fast: true`
is set on the hook.

## Skipping a command

Set `skip: true` on a command to leave it out, or list the branches it should be skipped on: `skip: [main]`.
Commands can also be skipped for one run with the `HOOKRUN_SKIP` environment variable.
""",
"parallel.md": """# Parallel mode

With `parallel: true` the commands of a hook run at the same time instead of one after another. Their output is
collected and printed when each command finishes, so the lines of two commands never mix.

Set `jobs: 4` on the hook to run at most four commands at once; without it every command of the hook starts
together. Commands that write the same files should not run in parallel.
""",
"uploads.md": """# Sending results to the dashboard

`hookrun report` uploads the outcome of the last run to the team dashboard: which commands failed, their output and
how long each took. The dashboard keeps the reports of every branch and shows the slowest commands first.
""",
}


def _workspace(tmp_path_factory, name: str, docs: dict[str, str]):
    """A workspace of one folder of `docs` (file name -> text), indexed for real, closed after the module."""
    w = RagWorkspace([indexed_folder(tmp_path_factory.mktemp(name), docs)])
    yield w
    w.close()


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    yield from _workspace(tmp_path_factory, "limits", DOCS)


def test_a_limit_the_docs_never_state_abstains(ws):
    """Near misses made of the docs' words ask for a limit on the dashboard's reports and uploads, which the docs
    discuss without any limit: they abstain (both were answered before the veto, P 0.69 and 0.49) and say why. The
    parallel commands' limit the docs state answers the same forms."""
    for question in ("Can I cap how many reports the dashboard keeps for a branch?",
                     "How do I add a timeout to the dashboard upload?"):
        miss = ws.query(question)
        evidence = miss.hits.evidence
        assert evidence.limit_missing == 1.0 and miss.abstained, (question, evidence)
        assert evidence.absent_names == () and evidence.value_missing == 0.0, evidence
    text = ws.ask("Can I cap how many reports the dashboard keeps for a branch?").text
    assert text.startswith("Not in your docs: the passages found discuss it but never state a limit"), text
    for question in ("Can I cap how many commands of a hook run at the same time?",
                     "How do I set a limit on how many commands run together in parallel mode?"):
        found = ws.query(question)
        assert found.hits.evidence.limit_missing == 0.0 and not found.abstained, (question, found.hits.evidence)


def test_which_questions_ask_for_a_limit():
    """The asking forms (retrieval/asked_limit.py): the user's verb limit / cap / throttle / rate-limit, a limit as
    the object of set / give / add ..., a bound the user names; not a value question, not a limit that exists."""
    for question in ("How do I set a timeout so nox kills a session that runs longer than 10 minutes?",
                     "How do I add per-client rate limiting to my Falcon API?",
                     "With parallel: true, can I cap how many commands run at once, say four at a time?",
                     "One of my hook commands sometimes hangs. Can I give it a timeout so it is killed?",
                     "How can I throttle uploads to the dashboard?",
                     "How do I make gunicorn reject request bodies (uploads) larger than 10 MB?"):
        assert limit_asked(question), question
    for question in ("What is the maximum size of a single record?",  # a value question: the value veto's
                     "What HTTP status code does a client get back once it has hit a throttle limit?",
                     "How do I lift the limit on how many parts a form may have?",
                     "How do I run the commands of a hook in parallel?",
                     "I hit the rate limits of the registry. Where is the cache kept?"):  # the situation, not the ask
        assert not limit_asked(question), question
    # a limit word or a duration or size stated; a URL's digits are no limit
    assert limit_missing("How do I add a timeout?", ["Hooks run commands.", "Commands exit 1 on failure."])
    assert not limit_missing("How do I add a timeout?", ["A command is stopped after 30s."])
    assert not limit_missing("Can I cap the uploads?", ["Uploads are restricted to members."])
    assert limit_missing("Can I cap the uploads?", ["See [the guide](https://example.com/10mb) on uploads."])


def test_a_limit_asked_as_what_a_setting_does(ws, deploy_ws):
    """"Is there a setting to kill X after a time limit?" asks for a limit as what a setting does, with no verb of
    imposing (pnpm's pn35, a near miss answered before): on deploy docs that state no limit it abstains; the
    same form for the hook runner's parallel commands, whose limit the docs state, is answered. "for maximum safety", "up to
    date" and "up to you" state no bound (pn35's windows said only these)."""
    miss = deploy_ws.query("A deploy to one of my servers sometimes hangs forever. Is there a setting to kill the "
                           "deploy after a time limit?")
    assert miss.hits.evidence.limit_missing == 1.0 and miss.abstained, miss.hits.evidence
    asked = "Is there a setting to run the parallel commands of a hook with a cap?"
    assert limit_asked(asked)
    found = ws.query(asked)
    assert found.hits.evidence.limit_missing == 0.0 and not found.abstained, found.hits.evidence
    for question in ("Is there a setting to kill lifecycle scripts after a time limit?",
                     "Is there an option to stop a job with a timeout?",
                     "Is there a way to abort the download after some time limit?"):
        assert limit_asked(question), question
    for question in ("Is there a setting to kill lifecycle scripts?",  # no limit named
                     "Is there an option to run the scripts after the install?"):
        assert not limit_asked(question), question
    for idiom in ("For maximum safety, review each build.", "Installs again if node_modules is not up to date.",
                  "Whether to enable it is up to you."):
        assert limit_missing("How do I add a timeout?", [idiom]), idiom
    for bound in ("The maximum is four.", "Runs up to four commands.", "Set max_jobs."):
        assert not limit_missing("How do I add a timeout?", [bound]), bound


DEPLOY_DOCS = {
"deploy.md": """# Deploying

`shipit deploy` copies the build to the servers listed under `[servers]` in shipit.toml, one after another. List
several servers there to deploy to all of them: `servers = ["web1", "web2", "web3"]`. Pass `--parallel` to deploy
to every listed server at the same time instead of one by one. Pass `--only web1` to deploy to that server alone,
leaving the others on the build they have.

## Rolling back

`shipit rollback` restores the previous build on every server the last deploy reached.
""",
}


@pytest.fixture(scope="module")
def deploy_ws(tmp_path_factory):
    yield from _workspace(tmp_path_factory, "deploy", DEPLOY_DOCS)


def test_a_number_asked_of_no_refusal_is_no_limit(deploy_ws):
    """"more than 2 servers" names how many, not a limit to impose: the question is answered from docs that state
    no limit (it abstained when any "more than <number>" was read as a limit asked: limit_missing 1.0); a bound of
    time or size on what is to be refused or ended still asks for one."""
    found = deploy_ws.query("How do I deploy to more than 2 servers at once?")
    assert found.hits.evidence.limit_missing == 0.0 and not found.abstained, found.hits.evidence
    for question in ("Why does my build take longer than 5 minutes?", "How can I list files older than 30 days?"):
        assert not limit_asked(question), question
    for question in ("How do I make uWSGI kill a worker that has been on one request for more than 30 seconds?",
                     "Can devpi automatically delete dev releases that are older than 30 days?",
                     "How do I stop people uploading files bigger than 10 MB through my proxy?"):
        assert limit_asked(question), question


def test_limit_narrowing_a_scope_asks_for_no_limit(deploy_ws):
    """"limit a deploy to a single named server" narrows what is deployed, it imposes no amount: answered from the
    docs' `--only` (it abstained with limit_missing 1.0 when every "I limit" read as a limit asked). "limit X to"
    an amount, a purpose, a measure or rate limiting still asks for one."""
    found = deploy_ws.query("How do I limit a deploy to a single named server?")
    assert found.hits.evidence.limit_missing == 0.0 and not found.abstained, found.hits.evidence
    for question in ("How do I limit the search to Python files?", "Can I limit the test run to the tests folder?",
                     "How do I limit the output to `*.md` files?"):
        assert not limit_asked(question), question
    for question in ("How do I limit uploads to 10 MB?", "How do I limit the request rate to a host?",
                     "How do I add per-client rate limiting to my Falcon API?",
                     "Can I limit the bandwidth of each simulated user to emulate users on a slow 3G connection?"):
        assert limit_asked(question), question
