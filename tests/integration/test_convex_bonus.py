"""The exact-match bonus on the convex scale, on a real index (tantivy + LanceDB + the offline MiniLM;
retrieval/search.py `_convex_bonus`): two chunks hold every word of the question and lead BM25 with nearly the same
score (4.63 and 4.41), a settings list first, the guide page that explains it second; the guide is far closer in
meaning (cosine 0.76 against 0.50). RRF's rank step gave BM25's first exact match 0.05 and the second 0.02 (1.22
against 0.49 on the convex scale: the settings list first whatever the cosine); each now gets its BM25 score's share
of 0.05, so the cosine decides."""

from __future__ import annotations

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

GUIDE = """# Staying logged in

A remembered login should not last forever. To make the session expire after a few days, set the
session lifetime: the login cookie then expires on its own and the user signs in again.
"""
SETTINGS = """# Settings reference

- `SECRET_KEY`: signs the session cookie.
- `SERVER_NAME`: the host and port the server answers on.
- `SESSION_LIFETIME`: a number of days of the login cookie.
- `LOGIN_VIEW`: the view name of the login page.
- `MAX_CONTENT_LENGTH`: the largest request body accepted, in bytes.
"""
QUESTION = "session lifetime login cookie"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    # Filler pages of their own: the shared ones (offline_index.FILLER_TOPICS) include "sessions", a question word.
    filler = {f"topic{i}.md": f"# {t.title()}\n\nHow the framework handles {t}: configure {t} in the application "
              f"settings.\n" for i, t in enumerate(["routing", "templates", "static files", "uploads", "websockets"])}
    return indexed_folder(tmp_path_factory.mktemp("bonus"), {"login.md": GUIDE, "settings.md": SETTINGS, **filler},
                          filler=False)


def test_between_two_exact_matches_the_cosine_decides(folder):
    ws = RagWorkspace([folder], read_only=True)
    try:
        hits = list(ws.retrieve(QUESTION, 4))
        bm25 = ws.indexes[0].bm25.search(QUESTION, 3)
    finally:
        ws.close()
    by_path = {h.chunk.path: h for h in hits}
    guide, settings = by_path["login.md"], by_path["settings.md"]
    assert settings.signals == {"vector": 2.0, "bm25": 1.0} and guide.signals == {"vector": 1.0, "bm25": 2.0}
    assert bm25[1][1] / bm25[0][1] > 0.9  # nearly the same BM25 score
    assert guide.similarity - settings.similarity > 0.2
    assert [h.chunk.path for h in hits][:2] == ["login.md", "settings.md"]
    # both exact matches keep a bonus above any fused score without one (1.22 x 0.95 and 1.22; fused <= 1)
    assert hits[1].score > 1.0 + 1.22 * 0.9 - 0.5 and hits[2].score < 1.0
