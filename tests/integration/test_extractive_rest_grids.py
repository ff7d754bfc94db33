"""Extractive answers on a page whose opening is laid out with sphinx-design's grid (`.. grid::` / `.. grid-item::`,
each with its `:columns:` option): the body is the page's prose, not an indented code block. Dask's
docs/source/deploying.rst (dask/dask, BSD-3-Clause) opens so; the answer to "How do I deploy Dask on Kubernetes?"
showed "Deploy Dask Clusters [2]:" over a code block holding the paragraph and its `:doc:` list."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan

DEPLOYING = """Deploy Dask Clusters
====================

.. grid:: 1 1 2 2

   .. grid-item::
      :columns: 12 12 5 5

      Dask works well at many scales ranging from a single machine to clusters of
      many machines.  This page describes the many ways to deploy and run Dask, including the following:

      - :doc:`deploying-python`
      - :doc:`deploying-cloud`
      - :doc:`deploying-hpc`
      - :doc:`deploying-kubernetes`

   .. grid-item::
      :columns: 12 12 7 7

      .. figure:: images/dask-cluster-manager.svg

         An overview of cluster management with Dask distributed.
"""


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def test_a_grid_items_body_is_prose():
    found = units(DEPLOYING, markdown=False)
    assert not any("```" in (u.attached or "") for u in found), found
    lead = next(u for u in found if "many ways to deploy" in u.sentence)
    assert lead.sentence == "This page describes the many ways to deploy and run Dask, including the following:"
    assert lead.attached.startswith("- deploying-python\n- deploying-cloud"), lead


def test_the_answer_quotes_the_grids_prose_not_a_code_block(embedder):
    lines = DEPLOYING.count("\n")
    hit = Hit(chunk=Chunk(id="dep", path="deploying.rst", text=DEPLOYING, span=LineSpan(0, 0, lines, 0),
                          text_hash="dep"), score=1.0)
    answer = extractive_answer("Which ways are there to deploy and run Dask?", [(1, hit)],
                               embed=embedder.embed_documents, embed_query=embedder.embed_query)
    assert "```" not in answer and "Deploy Dask Clusters [1]:" not in answer, answer
    assert "This page describes the many ways to deploy and run Dask, including the following [1]:" in answer, answer
