"""A hit's focus (`focusRange`) ranks its chunk's passages by their meaning beside their words
(`answer/focus._with_meaning`): the sentence that answers in its own words beats one restating the question's, on
real stores (tantivy, LanceDB, the SQLite manifest) and the offline all-MiniLM-L6-v2, through `search` as every
front calls it. By words alone the focus was the first paragraph, which shares "certificate", "server", "HTTPS" and
"expired" with the question and says what fails, not how to stop it. The sentences' vectors are the ones the
index's sentence pass stored (`Embedder.known_vectors`): a search never runs the model on them, so without that pass
(a one-shot CLI command, a named RAG, a cold index) the words alone choose, at a warm query's cost.
"""

from __future__ import annotations

import pytest
from offline_index import file_lines, folder_index, line_of, offline_toml
from ragls.answer.focus import sentence_focus
from ragls.config.trust import trust as trust_folder
from ragls.embedding.embed import Embedder, offline_model_dir
from ragls.retrieval.search import search
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

CERTS = """# Certificates

By default the client checks the certificate of every HTTPS server it talks
to, and a call to a server whose certificate is expired or self-signed fails
with a `CertificateError` that names the server.

```python
>>> fetch("https://expired.example.org/")
CertificateError: certificate has expired (expired.example.org)
```

You can turn verification off for a client and accept any certificate:

```python
>>> client = Client(check_certs=False)
>>> client.fetch("https://expired.example.org/")
<Reply [200]>
```

A custom certificate bundle can be given with the `ca_file` option instead.
"""

TIMEOUTS = "# Timeouts\n\nThe client waits five seconds for a reply before it gives up.\n"
QUESTION = "How do I disable certificate verification for a server whose HTTPS certificate has expired?"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A RagWorkspace over certs.md and timeouts.md, indexed with the sentence pass (`index.sentence_vectors`, on by
    default: what a server runs once every window has its vector)."""
    root = tmp_path_factory.mktemp("meaning")
    folder = root / "docs"
    folder.mkdir()
    (folder / "certs.md").write_text(CERTS)
    (folder / "timeouts.md").write_text(TIMEOUTS)
    (folder / "ragls.toml").write_text(offline_toml(root / "index", '[generation]\nbackend = "none"\n',
                                                    sentence_pass=True))
    trust_folder(folder)
    ws = RagWorkspace([folder])
    ws.index()
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """The same files in a FolderIndex alone: no sentence pass, nothing stored for the sentences."""
    idx, s = folder_index(tmp_path_factory.mktemp("words"), {"certs.md": CERTS, "timeouts.md": TIMEOUTS})
    yield idx, s
    idx.close()


def test_the_focus_is_the_sentence_that_answers_by_meaning(workspace):
    top = workspace.retrieve(QUESTION, 2).hits[0]
    assert top.chunk.path == "certs.md"
    first, last = file_lines(top.focus)
    assert first == line_of(CERTS, "You can turn verification off")
    assert first <= line_of(CERTS, "check_certs=False") <= last <= first + 5  # the code line it introduces, 6 lines


def test_without_stored_sentence_vectors_the_words_choose_and_the_model_does_not_run(indexed, monkeypatch):
    idx, s = indexed
    search([idx], idx.embedder, "warm the model up", settings=s.retrieval, top_k=2)
    embedded: list[str] = []
    embed_documents = Embedder.embed_documents

    def counted(self, texts, *args, **kwargs):
        embedded.extend(texts)
        return embed_documents(self, texts, *args, **kwargs)

    monkeypatch.setattr(Embedder, "embed_documents", counted)
    top = search([idx], idx.embedder, QUESTION, settings=s.retrieval, top_k=2)[0]
    assert top.chunk.path == "certs.md"
    assert file_lines(top.focus)[0] == line_of(CERTS, "By default the client checks")  # the words' choice
    assert not [t for t in embedded if "verification off" in t], embedded  # no focus sentence went to the model


def test_without_the_question_vector_the_focus_is_chosen_by_words(workspace):
    top = workspace.retrieve(QUESTION, 2).hits[0]
    [by_words] = sentence_focus([top], QUESTION)  # no embed: the words' choice (a BM25-only hit, no model)
    assert file_lines(by_words.focus)[0] == line_of(CERTS, "By default the client checks")


def test_the_first_hits_are_ordered_by_their_best_sentence_too(workspace):
    """`retrieval.sentence_weight` (retrieval/sentence_rank.py): each of the first fused candidates gains the weight
    x the cosine of its page's best answer sentence among them, read from the vectors the sentence pass stored — the
    model's own for that sentence — and those candidates are re-sorted; without a stored vector nothing moves."""
    from ragls.retrieval.fuse import Fused
    from ragls.retrieval.sentence_rank import best_sentence_cosines, sentence_rerank

    manifest = workspace.indexes[0].manifest
    [certs], [timeouts] = manifest.chunks_of("certs.md"), manifest.chunks_of("timeouts.md")
    query = workspace.embedder.embed_query(QUESTION)
    known = workspace.embedder.known_vectors
    best, other = best_sentence_cosines([certs, timeouts], known, query)
    answering = workspace.embedder.embed_documents(
        ["You can turn verification off for a client and accept any certificate:"])[0]
    assert best == pytest.approx(float(answering @ query), abs=1e-5)  # the answering sentence is the best one
    assert best > other + 0.2
    # two entries of timeouts.md's page (the same chunk under two keys) gain its best sentence alike: their order stays
    fused = [Fused("timeouts", 0.9), Fused("timeouts again", 0.85), Fused("certs", 0.8)]
    pages = {"timeouts": timeouts, "timeouts again": timeouts, "certs": certs}
    out = sentence_rerank(fused, pages, known, query, 1.0)
    assert [f.key for f in out] == ["certs", "timeouts", "timeouts again"]
    assert out[0].score == pytest.approx(0.8 + best) and out[0].contributions["sentence"] == pytest.approx(best)
    assert out[2].score == pytest.approx(0.85 + other)
    # the question turned around (-query): every best sentence points away from it and adds nothing, so a fused score
    # stays positive (the clients' relevance shares are read from the scores)
    away = sentence_rerank([Fused("timeouts", 0.02), Fused("certs", 0.01)], pages, known, -query, 1.0)
    assert [(f.key, f.score) for f in away] == [("timeouts", 0.02), ("certs", 0.01)]
    unmoved = [Fused("timeouts", 0.9), Fused("certs", 0.8)]
    assert sentence_rerank(unmoved, {"timeouts": timeouts, "certs": certs}, lambda texts: None, query, 1.0) is unmoved

    # through the pipeline: the first hit's score is its fused score plus its best sentence's cosine and the margin
    settings = workspace.settings.retrieval
    assert settings.sentence_weight == 0.0  # off by default (config/settings.py says why)
    plain = workspace.retrieve(QUESTION, 2).hits[0]
    try:
        settings.sentence_weight = 1.0
        ranked = workspace.retrieve(QUESTION, 2).hits[0]
    finally:
        settings.sentence_weight = 0.0
    assert plain.chunk.id == ranked.chunk.id == certs.id
    # (the fused first, its page also gains `retrieval.sentence_margin`)
    assert ranked.score == pytest.approx(plain.score + best + settings.sentence_margin, abs=1e-5)


def test_another_page_takes_the_first_place_only_by_more_than_the_margin(workspace):
    """`retrieval.sentence_margin` (retrieval/sentence_rank.py): the fused first's page gains the margin too, so a page
    whose best sentence beats the first's by less than the margin plus their fused gap stays below it; by more, it
    still comes first. The raise is the stored sentence vectors' cosine, as without a margin."""
    from ragls.retrieval.fuse import Fused
    from ragls.retrieval.sentence_rank import best_sentence_cosines, sentence_rerank

    manifest = workspace.indexes[0].manifest
    [certs], [timeouts] = manifest.chunks_of("certs.md"), manifest.chunks_of("timeouts.md")
    query = workspace.embedder.embed_query(QUESTION)
    known = workspace.embedder.known_vectors
    best, other = best_sentence_cosines([certs, timeouts], known, query)
    pages = {"timeouts": timeouts, "certs": certs}
    lead = best - other - 0.1  # what certs' sentence wins by over timeouts.md's 0.1 fused lead
    assert lead > 0.05

    def ranked(margin):
        return sentence_rerank([Fused("timeouts", 0.9), Fused("certs", 0.8)], pages, known, query, 1.0, margin=margin)

    kept = ranked(lead + 0.01)  # a margin above certs' lead: the fused first stays first
    assert [f.key for f in kept] == ["timeouts", "certs"]
    assert kept[0].contributions["sentence"] == pytest.approx(other + lead + 0.01)
    assert kept[1].score == pytest.approx(0.8 + best)
    moved = ranked(lead - 0.01)  # below it: the answering page comes first, its raise its own sentence's cosine
    assert [f.key for f in moved] == ["certs", "timeouts"]
    assert moved[0].score == pytest.approx(0.8 + best)
    assert workspace.settings.retrieval.sentence_margin == 0.05  # the default (config/settings.py says why)


def test_with_a_rare_share_only_sentences_holding_a_rare_question_term_count(workspace):
    """`retrieval.sentence_rare_share` (`sentence_rank.rare_sentences`): a sentence counts only when it holds a
    question term (stemmed as the query's) that at most that share of the head's sentences hold; the product's name
    and the subject every candidate repeats lift nothing. On the real index: timeouts.md's only sentence holds no
    term of the question, so with the share below 1 its chunk has no sentence to count, while certs.md keeps its
    answering sentence (it alone says "verification") and the same cosine."""
    from ragls.retrieval.query import analyse
    from ragls.retrieval.sentence_rank import best_sentence_cosines, rare_sentences

    sentences = ["SQLFluff aims to fill this space for SQL.", "Configure the SQLFluff rules in a .sqlfluff file.",
                 "A rule is excluded with exclude_rules."]
    terms = analyse("How do I exclude a rule when SQLFluff lints?").focus_terms
    # "sqlfluff" and "rule" are held by 2 of 3 sentences, "exclud" by one: only that sentence counts at a share of 0.5
    assert rare_sentences(sentences, terms, 0.5) == {"A rule is excluded with exclude_rules."}
    assert rare_sentences(sentences, terms, 0.7) == set(sentences)  # 2/3 <= 0.7: "sqlfluff" and "rule" count too

    manifest = workspace.indexes[0].manifest
    [certs], [timeouts] = manifest.chunks_of("certs.md"), manifest.chunks_of("timeouts.md")
    query = workspace.embedder.embed_query(QUESTION)
    known = workspace.embedder.known_vectors
    every = best_sentence_cosines([certs, timeouts], known, query)
    gated = best_sentence_cosines([certs, timeouts], known, query, terms=analyse(QUESTION).focus_terms,
                                  rare_share=0.3)
    assert gated == [pytest.approx(every[0]), None]
    assert workspace.settings.retrieval.sentence_rare_share == 1.0  # off by default (config/settings.py says why)


def test_with_first_only_the_sentences_choose_the_first_hit_alone(workspace):
    """`retrieval.sentence_first_only` (retrieval/sentence_rank.py): the page the sentences raise highest comes first
    with its raise, and every other entry of the head keeps its fused place and score — the first hits an answer is
    built from change only where the first one does."""
    from ragls.retrieval.fuse import Fused
    from ragls.retrieval.sentence_rank import best_sentence_cosines, sentence_rerank

    manifest = workspace.indexes[0].manifest
    [certs], [timeouts] = manifest.chunks_of("certs.md"), manifest.chunks_of("timeouts.md")
    query = workspace.embedder.embed_query(QUESTION)
    known = workspace.embedder.known_vectors
    best, _ = best_sentence_cosines([certs, timeouts], known, query)
    pages = {"timeouts": timeouts, "certs": certs, "timeouts again": timeouts, "certs again": certs}

    def ranked(first_only):
        fused = [Fused("timeouts", 0.9), Fused("certs", 0.8), Fused("timeouts again", 0.75), Fused("certs again", 0.7)]
        return [(f.key, round(f.score, 6)) for f in
                sentence_rerank(fused, pages, known, query, 1.0, first_only=first_only)]

    # re-sorted (session 64's form): both of certs.md's entries rise above timeouts.md's
    assert [k for k, _ in ranked(False)] == ["certs", "certs again", "timeouts", "timeouts again"]
    # first only: certs comes first with its raise; the others keep the fused order and their fused scores
    assert ranked(True) == [("certs", round(0.8 + best, 6)), ("timeouts", 0.9), ("timeouts again", 0.75),
                            ("certs again", 0.7)]
    assert workspace.settings.retrieval.sentence_first_only is True  # the default (config/settings.py says why)
