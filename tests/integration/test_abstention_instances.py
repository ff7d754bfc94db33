"""The name test (retrieval/absent_names.py `absent_names`, abstention's absent_name veto) on what a user writes around a
name the docs hold: a name made an adjective by a past participle ("a Wrapify-built executable"), the user's
numbered instance of a name the docs write with x's ("_WRP123456" for `_WRP{xxxxxx}`), and a name in a premise the
question opens with ("Since the bundled app ignores PYTHONWARNINGS, how do I ...?"). On a real index (tantivy +
LanceDB + the offline MiniLM) of a small bundler's docs written here: such questions are answered, and a question
about a name the docs never mention still abstains."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.absent_names import digit_pattern
from ragls.retrieval.asking import asked_clause
from ragls.retrieval.names import question_names

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"runtime.md": """# Run-time information

Your code can tell whether it runs from a bundle: when a bundled app starts up, the bootloader sets the
`sys.frozen` attribute and stores the absolute path to the bundle folder in `sys._WRAPDIR`. A normal Python
interpreter sets neither.

## The temporary folder

In onefile mode the bootloader unpacks the bundle into a temporary folder named `_WRP{xxxxxx}` in the system's
temp directory and deletes it when the program exits. The `_WRP{xxxxxx}` folder is not removed if the program
crashes or is killed, so such folders can accumulate over time.
""",
"spec.md": """# Spec files

The spec file tells Wrapify how to build your app. To pass run-time options to the embedded interpreter, create a
list of tuples such as `('W ignore', None, 'OPTION')` and pass it to `EXE` before the keyword arguments: the
`W ignore` option disables all warnings in the bundled app.
""",
"consumers.md": """# Consumers

`JsonWrapConsumer` works like `WrapConsumer`, except it will auto-encode and decode to JSON sent as text frames:
its `receive_json` handler gets the decoded JSON object.
""",
"signing.md": """# Code signing

On macOS, set `codesign_identity` in the spec file to sign the app bundle with your developer certificate.
""",
}


def test_the_name_before_a_participle_is_the_name():
    """"Wrapify-built" names Wrapify, as "LaTeX-style" names LaTeX; a lower-case word that is no participle, an
    option and a prose compound stay whole."""
    assert question_names("How can I tell whether it runs as a Wrapify-built executable?") == ["Wrapify"]
    assert question_names("Can I use GitHub-hosted runners for GPG-signed tags?") == ["GitHub", "GPG"]
    assert question_names("How do I set the User-agent header?") == ["User-agent"]
    assert question_names("What does --dry-run print?") == ["--dry-run"]
    assert question_names("Is the result well-known?") == []
    # a participle the model's WordPiece words lack but English has ("decoded"): the name is JSON, which the docs
    # write; "JSON-decoded" as a name refused a question on Django Channels' JsonWebsocketConsumer
    assert question_names("Are incoming messages JSON-decoded and encoded for me?") == ["JSON"]


def test_a_numbered_name_has_a_pattern_and_a_premise_is_the_situation():
    assert digit_pattern("_WRP123456") == (["wrp", "xxxxxx"], ["wrpxxxxxx"])
    assert digit_pattern("IPv6") == digit_pattern("x86") == digit_pattern("Kerberos") == ([], [])
    q = "Since the bundled app ignores PYTHONWARNINGS, how do I make it run with warnings ignored?"
    assert asked_clause(q) == "how do I make it run with warnings ignored?" and question_names(q) == []
    # a question word right after "Since" opens no premise; "When" and "If" are not read as one
    assert question_names("Since which Wrapify version does it exist?") == ["Wrapify"]
    assert question_names("When my proxy needs NTLM, how do I log in?") == ["NTLM"]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("instances"), DOCS) as w:
        yield w


@pytest.mark.parametrize("question", [
    ("From inside my code, how can I tell whether it's running as a Wrapify-built executable or as a normal Python "
    "script?"),
    ("Customers complain that folders with names like _WRP123456 keep piling up in their temp directory. Why aren't "
    "they cleaned up?"),
    ("Since the bundled app ignores PYTHONWARNINGS, how do I make its embedded interpreter run with warnings ignored, "
    "from the spec file?"),
    "Which consumer class should I subclass so incoming and outgoing messages are JSON-decoded and encoded for me?",
])
def test_a_name_the_docs_hold_in_the_users_words_is_answered(ws, question):
    """No chunk holds "Wrapify built" as a phrase, "_WRP123456" or PYTHONWARNINGS; the docs name Wrapify, write
    the folder as `_WRP{xxxxxx}`, and answer what the premise's question asks. No absent name, answered."""
    result = ws.retrieve(question)
    assert result.evidence.absent_names == (), result.evidence
    assert not ws.query(question).abstained, result.evidence


def test_a_name_the_docs_never_mention_still_abstains(ws):
    """Authenticode (no chunk holds it) and a numbered name whose pattern the docs never write (`E4021`)."""
    for question, name in (("How do I sign a Wrapify-built executable with Authenticode?", "Authenticode"),
                           ("What does the bootloader's error WRAP4021 mean?", "WRAP4021")):
        result = ws.retrieve(question)
        assert name in result.evidence.absent_names, result.evidence
        assert ws.query(question).abstained
