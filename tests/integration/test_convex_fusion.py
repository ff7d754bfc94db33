"""Convex fusion on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/fuse.py `convex_fusion`,
`retrieval.fusion`): a guide page whose cosine with the question is far above the rest, ranked first by the vector
signal and third by BM25, against reference pages that repeat the question's words (response, sent, client, call),
ranked first and second by BM25 and second and third by the vector signal, with cosines far below. RRF sees ranks only and puts the reference page first; the convex combination of normalised
scores puts the guide page first."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

GUIDE = """# Background tasks

Some work should not hold up the customer. Attach a `BackgroundTask` to what you return: it runs
after the reply has gone out, so notifying another service or e-mailing a receipt happens afterwards.

```python
return JSONResponse({"ok": True}, background=BackgroundTask(notify_webhook, order_id))
```
"""
REFERENCE = """# Response reference

## Response

`Response(content, status_code=200, headers=None, media_type=None)`: the response sent to the client.
Call the response object to send the response; the client receives the response once it is sent.

## RedirectResponse

`RedirectResponse(url, status_code=307)`: a response that sends the client to another URL after the
request; the response is sent at once.

## StreamingResponse

`StreamingResponse(content)`: sends the response body to the client in parts while the response is
being sent, for a slow generator.
"""
REDIRECTS = """# Redirect reference

`RedirectResponse(url)`: the response sent to the client to send it on to another URL. The client
receives the response once it is sent and calls the new URL; the response is sent at once.
"""
QUESTION = ("After an order is placed I have to call a slow webhook; how do I run that call once the response "
            "has been sent, so the client does not wait for it?")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("convex"), {"background.md": GUIDE, "responses.md": REFERENCE, "redirects.md": REDIRECTS})


def _top(folder: Path, fusion: str):
    ws = RagWorkspace([folder], [{"retrieval": {"fusion": fusion}}], read_only=True)
    try:
        return list(ws.retrieve(QUESTION, 5))
    finally:
        ws.close()


def test_the_page_far_closer_in_meaning_comes_first(folder):
    rrf = _top(folder, "rrf")
    convex = _top(folder, "convex")
    by_path = {h.chunk.path: h for h in rrf}
    guide, reference = by_path["background.md"], by_path["responses.md"]
    # the guide: first by cosine, far above the reference page; third by BM25, which the reference pages lead
    assert guide.signals == {"vector": 1.0, "bm25": 3.0} and reference.signals == {"vector": 2.0, "bm25": 1.0}
    assert guide.similarity - reference.similarity > 0.1
    # RRF sees the ranks only: 1.125/62 + 1/61 > 1.125/61 + 1/63, the reference page first
    assert [h.chunk.path for h in rrf][:2] == ["responses.md", "background.md"]
    assert [h.chunk.path for h in convex][:2] == ["background.md", "responses.md"]
    assert convex[0].similarity == pytest.approx(guide.similarity)  # same chunk, same cosine: only the order moved
