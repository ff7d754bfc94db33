"""abstention's paraphrase evidence (`Evidence.refused`, retrieval/abstention.py PARAPHRASE_COSINE): a question the
word model refuses is answered when it means one of the top hits' focus sentences and no veto applies; on a real
index (tantivy + LanceDB + the offline MiniLM) of a small serialization library's docs written here — a corpus the
rule was not fitted on — a near miss the word model refuses still abstains, its sentence cosine measured and low."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.abstention import PARAPHRASE_COSINE, Evidence

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

DOCS = {
"schemas.md": """# Schemas

A schema declares the fields of your data and how each is converted. Call `schema.load(data)` to validate and
deserialize input; it returns a dictionary of the field values.

## Objects from loaded data

To get an object instead, define a method on the schema and decorate it with `post_load`. The method receives the
deserialized values and returns whatever it builds from them, for example `return Book(**data)`.
""",
"fields.md": """# Fields

Each field type converts one kind of value: `String`, `Integer`, `DateTime`, `Nested`. Pass `required=True` to
reject input that lacks the field, and `load_default=` to fill it in when it is missing.
""",
"validation.md": """# Validation

A field's `validate=` argument takes a function that raises `ValidationError` for a bad value. Errors are
collected per field and raised together after the whole input was checked.
""",
}


def test_a_paraphrase_the_focus_sentence_means_is_refused_only_under_a_veto():
    """Few of the question's words together in one focus (P below the floor 0.2), but a focus sentence it means
    (cosine at PARAPHRASE_COSINE or above): not refused; with a veto, or a lower sentence cosine, refused. The
    probability itself does not move."""
    paraphrase = Evidence(0.7, 0.16, 0.5, focus_coverage=0.11, sentence_cosine=0.76)
    assert paraphrase.probability() < 0.2 and not paraphrase.refused(0.2)
    assert Evidence(0.7, 0.16, 0.5, focus_coverage=0.11, sentence_cosine=PARAPHRASE_COSINE - 0.01).refused(0.2)
    for veto in ("absent_name", "value_missing", "meaning_absent"):
        assert Evidence(0.7, 0.16, 0.5, focus_coverage=0.11, sentence_cosine=0.76, **{veto: 1.0}).refused(0.2), veto
    assert not Evidence(0.7, 0.9, 1.0, focus_coverage=0.9).refused(0.2)  # the model answers: no cosine needed
    assert not Evidence(None, 0.1, 0.0, focus_coverage=0.0).refused(0.2)  # no vector evidence: rule 1 does not apply


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("paraphrase"), DOCS) as w:
        yield w


def test_a_near_miss_on_an_unseen_corpus_still_abstains(ws):
    """"Translated into the reader's language": the docs' own words (field), a feature they never describe. The
    word model refuses it (P 0.15 with MiniLM), no veto applies, so its sentence cosine is measured — 0.29, far
    below PARAPHRASE_COSINE — and it abstains; a question these docs answer in its own words is answered."""
    result = ws.retrieve("Can a field be translated into the reader's language automatically?")
    evidence = result.evidence
    assert evidence.probability() < 0.2 and not evidence.vetoed()
    assert 0.0 < evidence.sentence_cosine < PARAPHRASE_COSINE - 0.1, evidence.sentence_cosine
    assert ws.query("Can a field be translated into the reader's language automatically?").abstained
    assert not ws.query("How can I end up with a Book object instead of a plain mapping after deserializing?").abstained
