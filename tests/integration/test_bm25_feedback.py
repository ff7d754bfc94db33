"""BM25 pseudo-relevance feedback on real tantivy indexes: the store's term-level API, the RM3 expansion, and the
`retrieval.bm25_feedback` setting through `search()` of a real workspace (offline MiniLM)."""

from __future__ import annotations

import pytest
from ragls.config.settings import RetrievalSettings, build_settings
from ragls.core.hashing import text_hash
from ragls.core.ir import Chunk, LineSpan
from ragls.retrieval.feedback import feedback_query, feedback_search
from ragls.retrieval.search import search
from ragls.stores.bm25 import Bm25Store
from ragls.workspace.rag_workspace import RagWorkspace

# 40 filler chunks with words of their own, so a term in up to 4 chunks passes the 10 % document-frequency cut.
FILLER = {f"filler{i}": f"Note {i}: the quarry{i} ledger lists basalt{i} and granite{i} blocks." for i in range(40)}
TEXTS = {
    "otters-a": "Sea otters sleep in kelp forests. The kelp anchors the otters while they sleep; kelp everywhere.",
    "otters-b": "Otters wrap kelp around their bodies to sleep. Kelp canopies shelter otters from waves.",
    "kelp-only": "Kelp canopies grow fast in cold water; a kelp forest shelters many fish under its canopies.",
    "trains": "The night train leaves at nine from platform two; trains to the coast run hourly.",
}
ALL = {**FILLER, **TEXTS}


def _chunk(cid: str, text: str) -> Chunk:
    return Chunk(id=cid, path=f"{cid}.md", text=text, span=LineSpan(0, 0, 1, 0), text_hash=text_hash(text), title="")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Bm25Store(tmp_path_factory.mktemp("bm25"))
    s.add(_chunk(cid, text) for cid, text in ALL.items())
    s.commit()
    yield s
    s.close()


def texts_of(ids):
    return {cid: ALL[cid] for cid in ids if cid in ALL}


def test_store_analysis_matches_the_index(store):
    assert store.query_terms("Running runners were HashMap::new") == ["run", "runner", "hashmap", "new", "hash", "map"]
    assert store.query_terms("what is it") == ["what", "is", "it"]  # only stop words: kept, as search() does
    assert store.text_terms("The runner was running retryMaxAttempts") == [
        "runner", "run", "retrymaxattempt", "retri", "max", "attempt"]
    assert store.num_docs() == len(ALL)
    assert store.doc_freq("kelp") == 3 and store.doc_freq("otter") == 2 and store.doc_freq("kelps") == 0


def test_weighted_term_query_equals_the_parsed_query(store):
    plain = store.search("sleeping otters", 10)
    built = store.search_terms({"sleep": 1.0, "otter": 1.0}, 10)
    assert [c for c, _ in built] == [c for c, _ in plain] == ["otters-a", "otters-b"]
    assert [s for _, s in built] == pytest.approx([s for _, s in plain])
    halved = store.search_terms({"sleep": 0.5, "otter": 0.5}, 10)
    assert [s for _, s in halved] == pytest.approx([s / 2 for _, s in plain])
    assert store.search_terms({}, 10) == [] and store.search_terms({"otter": 0.0}, 10) == []


def test_feedback_terms_come_from_the_first_pass_chunks(store):
    q = feedback_query(store, "otters", texts_of, fb_docs=10, fb_terms=10, query_weight=0.5)
    # The first pass finds otters-a and otters-b only; their eligible terms are the model's vocabulary.
    first_pass_terms = set(store.text_terms(ALL["otters-a"])) | set(store.text_terms(ALL["otters-b"]))
    assert set(q) - {"otter"} <= first_pass_terms
    assert "kelp" in q and "canopi" in q and "train" not in q
    assert q["otter"] == pytest.approx(max(q.values()))  # the query term keeps the largest weight
    assert sum(q.values()) == pytest.approx(1.0)
    # The second pass reaches a chunk without the query word, through the feedback terms.
    first = [c for c, _ in store.search("otters", 10)]
    second = [c for c, _ in feedback_search(store, "otters", 10, texts_of)]
    assert first == ["otters-b", "otters-a"] or first == ["otters-a", "otters-b"]
    assert set(second[:2]) == set(first) and second[2] == "kelp-only"


def test_feedback_uses_only_fb_docs_chunks(store):
    q = feedback_query(store, "kelp otters", texts_of, fb_docs=1, fb_terms=10, query_weight=0.5)
    top = store.search("kelp otters", 1)[0][0]
    assert set(q) - {"kelp", "otter"} <= set(store.text_terms(ALL[top]))


def test_a_follow_ups_borrowed_words_weigh_less_in_feedback_too(store):
    """A chat follow-up's borrowed words (`Query.word_weights`, CONTEXT_WEIGHT 0.25) weigh less in both passes, as
    in plain BM25: "when do trains run" with "otters" borrowed finds the train chunk first and keeps "train" the
    heaviest query term; unweighted, "otters" (a rarer word) brought its own chunks and terms first."""
    text = "when do trains run otters"
    plain = feedback_query(store, text, texts_of, fb_docs=2, fb_terms=10, query_weight=0.5)
    weighted = feedback_query(store, text, texts_of, fb_docs=2, fb_terms=10, query_weight=0.5,
                              word_weights={"otters": 0.25})
    assert weighted["otter"] < plain["otter"] and weighted["train"] > plain["train"]
    assert weighted["train"] == pytest.approx(max(weighted.values()))
    assert sum(weighted.values()) == pytest.approx(1.0)
    hits = feedback_search(store, text, 3, texts_of, word_weights={"otters": 0.25})
    assert hits[0][0] == "trains"


def test_feedback_with_query_syntax_characters(store):
    for text in ('otters AND (kelp', '"unterminated otters', 'otters:kelp -v {0}', 'otters^2 OR *', "otters~ [x TO"):
        hits = feedback_search(store, text, 5, texts_of)
        assert hits and hits[0][0] in {"otters-a", "otters-b", "kelp-only"}, text
    assert feedback_search(store, "?!", 5, texts_of) == []
    assert feedback_query(store, "zzzunknown", texts_of) == {"zzzunknown": 1.0}  # no first-pass match: no expansion


def test_settings_defaults_and_names():
    r = RetrievalSettings()
    assert (r.bm25_feedback, r.bm25_feedback_docs, r.bm25_feedback_terms, r.bm25_feedback_query_weight) == (
        False, 10, 10, 0.5)
    s, warnings = build_settings({"retrieval": {"bm25Feedback": True, "bm25FeedbackTerms": 20}})
    assert s.retrieval.bm25_feedback and s.retrieval.bm25_feedback_terms == 20 and warnings == []


DOCS = {f"{cid}.md": f"# {cid}\n\n{text}\n" for cid, text in TEXTS.items()}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("RAGLS_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    mp.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path_factory.mktemp("docs")
    for i in range(40):
        (folder / f"filler{i}.md").write_text(f"# Filler {i}\n\n{FILLER[f'filler{i}']}\n")
    for name, body in DOCS.items():
        (folder / name).write_text(body)
    w = RagWorkspace([folder], [{}])
    w.index()
    yield w
    w.close()
    mp.undo()


def _paths(hits):
    return [h.chunk.path for h in hits]


def test_search_with_feedback_off_is_plain_bm25(ws):
    r = ws.settings.retrieval
    assert not r.bm25_feedback
    hits = search(ws.indexes, ws.embedder, "otters", settings=r, top_k=5, signals=("bm25",))
    plain = ws.indexes[0].bm25.search("otters", r.candidates)
    assert [h.chunk.id for h in hits] == [cid for cid, _ in plain]
    assert _paths(hits) and set(_paths(hits)) == {"otters-a.md", "otters-b.md"}


def test_search_with_feedback_on_ranks_the_second_pass(ws):
    r = RetrievalSettings(bm25_feedback=True)
    idx = ws.indexes[0]
    hits = search(ws.indexes, ws.embedder, "otters", settings=r, top_k=5, signals=("bm25",))
    assert "kelp-only.md" in _paths(hits)  # reached through feedback terms only
    expected = feedback_search(idx.bm25, "otters", r.candidates,
                               lambda ids: {c: ch.text for c, ch in idx.manifest.get_chunks(ids).items()})
    assert [h.chunk.id for h in hits] == [cid for cid, _ in expected][:5]
    assert [h.signals["bm25"] for h in hits] == [float(i) for i in range(1, len(hits) + 1)]
    # Hybrid: the vector signal is unchanged, and the BM25 rank in `signals` is the feedback pass's rank.
    both = search(ws.indexes, ws.embedder, 'otters "AND (kelp', settings=r, top_k=10)
    kelp = next(h for h in both if h.chunk.path == "kelp-only.md")
    assert "bm25" in kelp.signals and "vector" in kelp.signals
