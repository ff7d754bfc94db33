"""Two answerable questions of sets held out last session that the name test refused (bench/history/session-69.md,
"Abstention: the user's hardware and a host's labels"): kitty's kitty-p04, whose "iGPU" stands in the user's
opening phrase of place ("On my laptop with an AMD iGPU plus an NVIDIA card, ..."), what the user's laptop has
(retrieval/user_context.py, `_FRONTED_WITH`), and Hatch's ha-t02, whose "TestPyPI" the docs write as the host
test.pypi.org (`absent_names.spelled_out`, which the meaning veto reads too). On a real index (tantivy + LanceDB +
the offline MiniLM) of a small terminal's and publisher's docs written here, which never say iGPU or TestPyPI: such
questions are answered, and questions that ask about the thing itself still abstain."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.names import question_names

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"faq.md": """# Frequently asked questions

## Why does termy sometimes start slowly?

termy starts within 100 ms like other GPU terminals. If it occasionally takes a long time to start, it is a power
management issue with the graphics card. On a system with two GPUs, a power efficient one built into the processor
and a dedicated one that is usually off, waking the dedicated card can take two seconds. Run termy with
`__GLX_VENDOR_LIBRARY_NAME=mesa termy` to use the built-in graphics and leave the dedicated card asleep.

## Why are my fonts blurry?

termy renders fonts at the resolution the window system reports. Set `font_hinting = full` in termy.conf when the
text looks blurry on a low resolution screen.
""",
"publish.md": """# Publishing packages

`pubtool publish` uploads the built packages to a package index. Choose the index with the `-r`/`--repo` option or
the `PUBTOOL_REPO` environment variable.

| Repository | URL |
| --- | --- |
| `main` | https://upload.pypi.org/legacy/ |
| `test` | https://test.pypi.org/legacy/ |

The `main` repository is used by default. A repository named in your configuration file may hold its own URL.
""",
}


def test_what_the_users_thing_has_in_an_opening_phrase_of_place():
    """In an opening phrase of place up to a comma, what the user's own thing has ("with an AMD iGPU plus an
    NVIDIA card") is theirs, not named; a "with" phrase elsewhere, or after another opening, still names."""
    assert question_names("On my laptop with an AMD iGPU plus an NVIDIA card, termy takes two seconds to start. "
                          "Any way to speed that up?") == ["termy"]
    assert question_names("Behind our proxy with Kerberos auth, termy cannot download updates.") == ["termy"]
    assert question_names("How do I make termy use the iGPU of my laptop?") == ["termy", "iGPU"]
    assert question_names("How do I run termy on my laptop with an iGPU?") == ["termy", "iGPU"]
    assert question_names("Starting my app with Kerberos auth, termy fails. Why?") == ["Kerberos", "termy"]
    # a clause after "with" is no thing the user has: its names are asked (it was blanked to the comma, all of them)
    assert question_names("On my laptop with termy installed I get blurry fonts on the iGPU, how do I fix that?") \
        == ["termy", "iGPU"]
    assert question_names("In my project with Django I want pubtool publish to upload to CodeArtifact, how?") \
        == ["Django", "CodeArtifact"]


@pytest.mark.timeout(60)
def test_a_long_chain_of_labels_is_read_in_linear_time():
    """`spelled_out` joins a host's consecutive labels only while they are no longer than the name: every run of a
    chain joined whole was cubic in its labels (6 s for a 2 KB chain, ~15 min for this 10 KB one, a chunk's dotted
    text read at every question naming a CamelCase name the docs do not hold). The timeout is a hang guard."""
    from ragls.core.ir import Chunk, Hit, LineSpan
    from ragls.retrieval.absent_names import spelled_out

    def hit(text):
        return Hit(Chunk(id="c", path="a.md", text=text, span=LineSpan(0, 0, 1, 0), text_hash="h"), 1.0)

    chain = "x" + ".y" * 5_000
    assert not spelled_out("TestPyPI", [hit(f"See {chain}.com for it.")])
    assert spelled_out("TestPyPI", [hit(f"See {chain}.test.pypi.org for it.")])
    assert spelled_out("TestPyPI", [hit("Upload to https://test.pypi.org/legacy/ first.")])
    assert not spelled_out("TestPy", [hit("Upload to https://test.pypi.org/legacy/ first.")])
    assert not spelled_out("PyPI", [hit("Upload to https://pypi.org/legacy/ first.")])  # one label: no host's name


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("forms"), DOCS) as w:
        yield w


@pytest.mark.parametrize("question", [
    ("On my laptop with an AMD iGPU plus an NVIDIA card, termy sometimes takes two seconds to open a window. Any way "
     "to speed that up?"),
    "How do I make pubtool publish upload to TestPyPI instead, and which repository does it use by default?",
])
def test_a_name_the_docs_write_in_another_form_or_the_users_hardware_is_answered(ws, question):
    """No chunk holds iGPU or TestPyPI: the first is the user's laptop's, the second the docs write as the host
    test.pypi.org. No absent name, no meaning veto: answered."""
    result = ws.retrieve(question)
    assert result.evidence.absent_names == (), result.evidence
    assert not ws.query(question).abstained, result.evidence


@pytest.mark.parametrize(("question", "name"), [
    ("How do I make termy render with the iGPU of my laptop?", "iGPU"),
    ("How do I make pubtool publish upload to CodeArtifact instead?", "CodeArtifact"),
    ("In my project with Django I want pubtool publish to upload to CodeArtifact, how?", "CodeArtifact"),
])
def test_a_name_asked_about_still_abstains(ws, question, name):
    """The iGPU asked about, outside the user's opening phrase, and a name no host of the docs spells (also in a
    clause after an opening "In my project with ...")."""
    result = ws.retrieve(question)
    assert name in result.evidence.absent_names, result.evidence
    assert ws.query(question).abstained
