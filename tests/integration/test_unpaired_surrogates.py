"""User text with lone surrogates on a real index (tantivy + LanceDB + the offline MiniLM): JSON allows `"\\ud800"`
and argv bytes that are not UTF-8 arrive as PEP 383 surrogates (`ragls query . $'\\xff'`). The tokenizer used to
raise TypeError (HTTP 500, a CLI traceback); now the rest of the question is searched and answered."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace
from ragls.core.analysis import well_formed
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

TOPICS = {
    "harbor.md": "# Harbor\n\nThe harbor master assigns berths to arriving cargo ships each morning.\n",
    "orchard.md": "# Orchard\n\nApple trees are pruned in late winter while they are dormant.\n",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("surrogates"), TOPICS, filler=False) as w:
        yield w


def test_well_formed_replaces_only_lone_surrogates():
    assert well_formed("apple \udcff trees \ud800") == "apple \ufffd trees \ufffd"
    assert well_formed("caf\u00e9 \U0001f600") == "caf\u00e9 \U0001f600"  # real characters stay
    assert well_formed(None) is None


def test_query_with_a_lone_surrogate_is_searched(ws):
    result = ws.query("When are the apple \udcff trees pruned?", top_k=1)
    assert result.hits[0].chunk.path == "orchard.md"
    assert "\ufffd" in result.query and "\udcff" not in result.query


def test_ask_with_lone_surrogates_in_question_and_history_answers(ws):
    answer = ws.ask("When are the apple trees \ud800 pruned?",
                    history=[{"role": "user", "content": "orchard \udcff"}])
    assert answer.sources and answer.sources[0][1].chunk.path == "orchard.md"
    assert "winter" in answer.text
