"""The name test (retrieval/absent_names.py `absent_names`, abstention's absent_name veto) on two ways a user writes an
ordinary word that looks like a name: a number made an adjective by its unit ("short 8-character IDs", "a 10-minute
timeout": `_MEASURE`), and a British spelling of a word the docs write the American way, which no dictionary here
holds in either spelling ("anonymise" for the docs' "anonymize": `_american_held`). Both were refused as "the docs
never mention" on real dev sets (Kinto's kp24, Caddy's caddy-p06; bench/history/session-66.md, "Abstention: three
word probes"). On a real index (tantivy + LanceDB + the offline MiniLM) of a small log server's docs written here:
such questions are answered, and a question about a name the docs never mention still abstains."""

from __future__ import annotations

import pytest
from abstainkit import assert_abstains_naming, assert_answered
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.english import american_spellings
from ragls.retrieval.names import question_names

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"ids.md": """# Record IDs

Every record gets an ID when it is created. By default the ID generator makes a random UUID4, which is long but
never collides.

## Shorter IDs

Set `id_generator = "short"` in the server configuration to have the server generate short random IDs of eight
letters and digits instead of UUIDs. Existing records keep their IDs.
""",
"logs.md": """# Access logs

The server writes one line per request to the access log, with the client's IP address, the method, the path and
the status code.

## Privacy

To anonymize client IP addresses in the access log, enable the `ip_mask` option: the last octet of an IPv4 address
and the last 80 bits of an IPv6 address are replaced by zeros before the line is written. Anonymized logs can still
be used to count visitors per network.
""",
"backup.md": """# Backups

Run `logsrv dump` to write every record to a JSON file, and `logsrv load` to read such a file back.
""",
}


def test_a_number_made_an_adjective_is_no_name():
    """A number and English words joined by "-" is a measure; a number before a word no dictionary holds stays a
    mixed name, and so does a name beside a measure."""
    assert question_names("I'd much prefer short 8-character IDs.") == ["IDs"]
    assert question_names("How do I set a 10-minute timeout on 64-bit builds?") == []
    assert question_names("Does it run on 2-gevent workers?") == ["2-gevent"]
    assert question_names("Which 8-character Zorbl codes does it print?") == ["Zorbl"]


def test_american_spellings():
    assert american_spellings("anonymise") == ["anonymize"]
    assert american_spellings("colour") == ["color"]
    assert american_spellings("gevent") == []


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("spellings"), DOCS) as w:
        yield w


@pytest.mark.parametrize("question", [
    "The record IDs the server generates are long UUIDs; I'd much prefer short 8-character IDs.",
    ("For privacy reasons we must not keep visitors' full IP addresses in the access logs. Can the server anonymise "
     "them?"),
])
def test_a_word_the_docs_hold_in_other_words_is_answered(ws, question):
    """No chunk holds "8-character" or a term of "anonymise"; the docs say "eight letters and digits" and
    "anonymize". No absent name, answered."""
    assert_answered(ws, question)


def test_a_name_the_docs_never_mention_still_abstains(ws):
    """A British spelling whose American one the docs lack either (pseudonymise), and a name beside a measure."""
    for question, name in (("Can the server pseudonymise visitors' IP addresses in the access logs?", "pseudonymise"),
                           ("Can the server give records short 8-character Snowflake IDs?", "Snowflake")):
        assert_abstains_naming(ws, question, name)
