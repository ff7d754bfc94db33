"""API reference entries on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py,
`retrieval.reference_entry_weight`): a `.. class::` entry whose parameter list repeats a how-to question's words
outranks the guide page that answers it with the prior off (1.0) and ranks below it with the default; a question
naming an identifier is asked of the reference, and its entry keeps its score; the entry is demoted, not dropped."""

from __future__ import annotations

from pathlib import Path

import offline_index
import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

GUIDE = """# Connection limits

By default the client keeps a pool of connections and reuses them between requests.

To cap how many connections the client opens to one server at a time, give the connector a per-host limit:

```python
conn = TCPConnector(limit_per_host=30)
session = ClientSession(connector=conn)
```
"""
REFERENCE = """Connectors
==========

.. class:: TCPConnector(*, limit=100, limit_per_host=0, ttl_dns_cache=10)

   Connector for the client's TCP connections to a host.

   :param int limit: total number of simultaneous connections the client opens. If *limit* is
      ``0`` the number of simultaneous connections is not capped.

   :param int limit_per_host: number of simultaneous connections the client opens to the same host
      (endpoint). ``0`` means the number of connections to the same host is not capped.
"""
HOW_TO = "How do I cap the number of simultaneous connections the client opens to the same host?"
NAMED = "What does ttl_dns_cache default to?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("reference"), {"connections.md": GUIDE, "reference.rst": REFERENCE})


def ranked(folder: Path, question: str, weight: float | None) -> list[tuple[str, float]]:
    return offline_index.ranked(folder, question, None if weight is None else {"reference_entry_weight": weight})


def test_reference_entry_ranks_below_the_guide_on_a_how_to_question(folder):
    assert ranked(folder, HOW_TO, 1.0)[0][0] == "reference.rst"  # the prior off: the parameter list wins
    assert ranked(folder, HOW_TO, None)[0][0] == "reference.rst"  # the default is off (held-out sets 13, 14)
    got = [path for path, _ in ranked(folder, HOW_TO, 0.85)]
    assert got[0] == "connections.md"
    assert "reference.rst" in got  # demoted, not dropped


def test_a_question_naming_an_identifier_keeps_the_reference_entry(folder):
    off, on = ranked(folder, NAMED, 1.0), ranked(folder, NAMED, 0.85)
    assert off[0][0] == on[0][0] == "reference.rst"
    assert on[0][1] == pytest.approx(off[0][1])  # not scaled
