"""An extractive answer names what the question names that none of its sources mentions (answer/ask.py
`unmentioned_line`, retrieval/absent_names.py `unmentioned_names`), on a real index (tantivy + LanceDB + the offline MiniLM)
of a small migration tool's docs written here: a question about Postgres answered from passages about migrations and
column types that never say Postgres (the install page does, outside the sources) ends "None of these sources mentions
Postgres."; a question whose names the sources hold or an everyday acronym gets no such line; "I'm" is no name
(retrieval/names.py `question_names`)."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace

DOCS = {
"migrations.md": """# Migrations

Run `shift migrate` to apply the migrations in the `migrations/` folder in order. Each migration is a Python file
with an `upgrade()` and a `downgrade()` function. `shift migrate --to 0042` stops at that revision, and
`shift downgrade 0041` undoes the migrations after it.

## Creating tables

A migration creates a table with `op.create_table(name, *columns)` and drops it with `op.drop_table(name)`.
Columns are `Column(name, type)` objects; pass `primary_key=True` for the key column.
""",
"columns.md": """# Column types

A column's type is one of shift's types: `Integer`, `String(length)`, `DateTime` or `Boolean`. A migration that
changes a column's type uses `op.alter_column(table, name, type_=String(200))`; the data is converted in place.
""",
"install.md": """# Installing

Install shift with pip. It talks to your database through its driver: install psycopg to use Postgres, or
mysqlclient to use MySQL. The connection URL goes in `shift.toml` under `[database] url`.
""",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("unmentioned"), DOCS, toml="[retrieval]\ntop_k = 2\n") as w:
        yield w


def test_a_name_no_source_mentions_is_said_at_the_end(ws):
    question = "How do I create a table with a Postgres column type in a migration?"
    answer = ws.ask(question)
    assert not answer.abstained, answer.text
    assert all("Postgres" not in hit.chunk.text for _, hit in answer.sources), [h.chunk.path for _, h in answer.sources]
    assert "create_table" in answer.text, answer.text
    assert answer.text.endswith("\n\n*None of these sources mentions Postgres.*"), answer.text


def test_no_line_when_the_sources_name_it(ws):
    for question in ("Which driver do I install to use Postgres?",
                     "How much RAM does shift migrate need?"):  # an everyday acronym: docs may say "memory"
        answer = ws.ask(question)
        assert "None of these sources" not in answer.text, (question, answer.text)


def test_i_m_is_no_name(ws):
    """"I'm" (capitalised inside a sentence) was read as a name: docs that never write "I'm" refused the question
    ("Not in your docs: they never mention I'm.")."""
    answer = ws.ask("How do I undo a migration I'm not happy with?")
    assert not answer.abstained, answer.text
    assert "shift downgrade" in answer.text and "None of these sources" not in answer.text, answer.text


@pytest.mark.parametrize(("question", "word"), [
    ("How do I give each migration a name with today's date?", "today"),  # a deictic word of time
    ("Can one migration file hold upgrades with different on_upgrade hooks?", "different"),  # before a name
    ("How do I run a migration inside a with block?", "block"),  # "a with block": Python's statement, a noun
    ("Can shift migrate stop once its memory use goes over a limit?", "goes"),  # "its ... use": a noun
    ("Can shift migrate print a label like 'Uploading' while it runs?", "Uploading"),  # a quoted label
])
def test_prose_words_are_no_names(ws, question, word):
    """Words abstain55's hedge line named on answered dev questions (bench/history/session-56.md): the word after
    "with" or "use" is the means asked about only where they are a preposition and a verb, and a quoted English
    word capitalised as a label is the user's text, not a name."""
    answer = ws.ask(question)
    said = [line for line in answer.text.splitlines() if "mention" in line]  # the hedge line or a refusal's reason
    assert not any(word in line for line in said), answer.text


@pytest.mark.parametrize(("question", "named", "alone"), [
    ("How do I run shift migrate from VS Code?", "VS Code", "mention Code"),
    ("Can shift migrate read its database URL from GitHub Actions secrets?", "GitHub Actions", "GitHub or Actions"),
])
def test_a_name_of_two_words_is_named_whole(ws, question, named, alone):
    """A product named by two capitalised words is one name (retrieval/names.py `name_phrases`), in the refusal's
    reason ("they never mention ...") as in the hedge line (`unmentioned_line`): both named the second word alone
    ("... mentions Code.", lefthook-p01; "Encrypt" of "Let's Encrypt", uwsgi-n03), which names something else, or
    each word as a name of its own."""
    answer = ws.ask(question)
    said = [line for line in answer.text.splitlines() if "mention" in line]
    assert said and all(f"mention {named}." in line or f"mentions {named}." in line for line in said), answer.text
    assert not any(alone in line for line in said), answer.text


def test_a_pasted_question_of_many_names_lists_a_few_and_counts_the_rest(ws):
    # a pasted log line or list of identifiers: the abstention named all 1,200 ("they never mention ErrCode0,
    # ErrCode1, ...": 13-18 kB of answer); it names the first few, each cut to a line's length, and counts the rest
    for sep, more in ((", ", "or 1,194 more"), (" ", "…")):
        question = "Why does shift fail with " + sep.join(f"ErrCode{i}" for i in range(1200)) + "?"
        answer = ws.ask(question)
        assert answer.abstained and len(answer.text) < 1000, answer.text[:300]
        assert "ErrCode0" in answer.text and "ErrCode1199" not in answer.text and more in answer.text, answer.text
