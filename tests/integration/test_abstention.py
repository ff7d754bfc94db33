"""Abstention on a real index (tantivy + LanceDB + the offline MiniLM) of the fixture docs: a near-miss question
(the docs' own topic, a feature they do not describe) abstains, answerable ones — a paraphrase and an identifier —
do not; an abstained rag/ask lists the closest passages and calls no LLM; abstention_probability 0 restores
the cosine floor alone. The rule is retrieval/abstention.py with its fitted coefficients."""

from __future__ import annotations

import pytest
from offline_index import fixture_workspace
from ragls.core.lru import LRU
from ragls.embedding.embed import MEMO_VECTORS, offline_model_dir
from ragls.retrieval.abstention import Evidence, idf, signal_agreement

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

NEAR_MISS = "How do I deploy the service to AWS Lambda with a serverless framework?"
ANSWERABLE = ["How long is a replica drained before it stops during an upgrade?",
              "retryBudgetPercent",
              "How many days can I keep using a refresh token?"]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    w = fixture_workspace(tmp_path_factory.mktemp("abstain"))
    yield w
    w.close()


def test_near_miss_abstains_and_answerable_questions_do_not(ws):
    miss = ws.query(NEAR_MISS)
    ev = miss.hits.evidence
    assert miss.abstained, ev
    assert ev.coverage < 0.7  # "aws", "lambda", "serverless" are nowhere in the docs
    for question in ANSWERABLE:
        result = ws.query(question)
        assert not result.abstained, (question, result.hits.evidence)
        assert result.hits.evidence.probability() >= ws.settings.retrieval.abstention_probability


def test_abstained_ask_lists_the_closest_passages_without_an_llm(ws):
    answer = ws.ask(NEAR_MISS)  # generation backend "none" here: an LLM call would be an extractive answer
    assert answer.abstained and answer.model == "extractive"
    assert answer.text.startswith("Not in your docs: ")
    assert "\n" not in answer.text and "guide/deployment.md" not in answer.text  # the sources list them, once
    # the closest passages rag/query shows (`RetrievalResult.shown`: not a hit no signal found), at most 3
    shown = [h.chunk.id for h in ws.query(NEAR_MISS).hits][:3]
    assert [n for n, _ in answer.sources] == list(range(1, len(shown) + 1)) and answer.citations == []
    assert [h.chunk.id for _, h in answer.sources] == shown and len(shown) >= 2
    assert answer.sources[0][1].chunk.path == "guide/deployment.md"


def test_several_knowledge_bases_abstain_like_one(tmp_path, monkeypatch):
    """The near miss abstains the same whether the request names the workspace alone or adds an unrelated one-file
    named RAG: merging the knowledge bases' results combines their abstention evidence (the most answerable one
    decides) instead of dropping it and falling back to the cosine floor. rag/ask then calls no LLM either, and an
    answerable question is still answered with the RAG added."""
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    garden = tmp_path / "garden.md"
    garden.write_text("# Garden\n\nTomatoes need six hours of sun every day; water them in the morning.\n")
    w = fixture_workspace(tmp_path, f'[rags.garden]\nsources = ["{garden.as_posix()}"]\n')
    try:
        one = w.query(NEAR_MISS, rag=["workspace"])
        both = w.query(NEAR_MISS, rag=["workspace", "garden"])
        assert one.abstained, one.hits.evidence
        assert {h.chunk.path for h in both.hits} >= {"guide/deployment.md"}
        assert both.hits.evidence is not None  # combined, not lost in the merge
        assert both.abstained, both.hits.evidence
        assert w.ask(NEAR_MISS, rag=["workspace", "garden"]).abstained
        answerable = w.query(ANSWERABLE[0], rag=["workspace", "garden"])
        assert not answerable.abstained, answerable.hits.evidence
    finally:
        w.close()


def test_probability_zero_keeps_only_the_cosine_floor(tmp_path):
    w = fixture_workspace(tmp_path, "[retrieval]\nabstention_probability = 0\n")
    try:
        assert w.settings.retrieval.abstention_probability == 0.0
        assert not w.query(NEAR_MISS).abstained  # its best cosine is above min_similarity 0.20
    finally:
        w.close()


def test_evidence_arithmetic():
    assert idf(0, 10) == pytest.approx(3.0910425)  # ln(1 + 10.5 / 0.5) = ln 22
    assert idf(10, 10) == pytest.approx(0.0465200)  # ln(1 + 0.5 / 10.5)
    assert Evidence(cosine=None, coverage=1.0, agreement=1.0).probability() is None
    low = Evidence(0.3, 0.4, 0.0, focus_coverage=0.2).probability()
    high = Evidence(0.6, 1.0, 1.0, bm25_top=0.5, focus_coverage=0.9).probability()
    assert 0 < low < high < 1
    assert Evidence(0.6, 1.0, 1.0, bm25_top=0.5, focus_coverage=0.9, absent_name=1.0).probability() < high  # a name the docs lack
    # without a comparable BM25 score (an attached collection) the model decides alike: it uses none
    unmeasured = Evidence(0.6, 0.9, 0.0, bm25_top=None, focus_coverage=0.9)
    assert unmeasured.probability() > 0.5
    assert unmeasured.probability() == Evidence(0.6, 0.9, 0.0, bm25_top=0.1, focus_coverage=0.9).probability()


def test_a_word_coverage_refusal_says_what_its_share_is():
    """Refused on word evidence alone (no absent name, no missing value): the answer says what the percentage is —
    the share of the question's words found together in the best passages — and nothing beside it."""
    from ragls.answer.ask import abstention_text
    from ragls.core.ir import Hit
    from ragls.index.chunking import chunk_document
    from ragls.sources.load import load_text

    chunk = chunk_document(load_text("guide.md", "# Guide\n\nThe client retries a failed request three times.\n"))[0]
    evidence = Evidence(0.3, 0.45, 0.0, focus_coverage=0.12)
    assert evidence.probability() < 0.2
    text = abstention_text([Hit(chunk=chunk, score=1.0, similarity=0.3)], 0.2, evidence, 0.2)
    assert text == ("Not in your docs: only 12% of the question's words occur together in the best passages (rare "
                    "words count more). Try rephrasing the question, or check that the relevant files are indexed.")


def test_agreement_is_the_best_shared_rank():
    from ragls.core.ir import Chunk, Hit, LineSpan

    def hit(**signals):
        return Hit(Chunk("c", "p", "t", LineSpan(0, 0, 1, 0), "h"), 1.0, signals)

    assert signal_agreement([hit(vector=3, bm25=1), hit(vector=2, bm25=2)]) == 0.5
    assert signal_agreement([hit(vector=1), hit(bm25=1)]) == 0.0


def test_per_passage_coverage_and_missing_rare_term(ws):
    """coverage_top <= coverage (one passage vs the union of the top hits); the near miss misses rare words
    ("aws", "lambda" are in no top hit); an identifier query found in a hit covers more and misses less."""
    miss = ws.query(NEAR_MISS).hits.evidence
    assert miss.coverage_top <= miss.coverage < 0.7
    assert 0.5 < miss.missing_idf <= 1.0  # 1.0 = a term absent from the whole corpus
    ident = ws.query("retryBudgetPercent").hits.evidence
    assert ident.coverage_top <= ident.coverage and ident.coverage > miss.coverage
    assert ident.missing_idf < miss.missing_idf
    # Features without a coefficient weigh nothing: changing them leaves the probability unchanged.
    assert Evidence(0.5, 0.8, 0.2, 0.1, 0.9).probability() == Evidence(0.5, 0.8, 0.2, 1.0, 0.0).probability()


def test_focus_margin_and_bm25_evidence(ws):
    """focus_coverage <= coverage_top (the focus lines are part of their chunk); cosine_margin is the best minus
    the 10th best candidate cosine; bm25_top is in [0, 1] and higher for an identifier found verbatim than for
    the near miss."""
    from ragls.retrieval.abstention import cosine_margin

    miss = ws.query(NEAR_MISS).hits
    ev = miss.evidence
    assert 0.0 <= ev.focus_coverage <= ev.coverage_top + 1e-9
    assert 0.0 <= ev.bm25_top <= 1.0 and 0.0 <= ev.cosine_margin <= 2.0
    ident = ws.query("retryBudgetPercent").hits.evidence
    assert ident.focus_coverage > ev.focus_coverage
    assert ident.bm25_top > ev.bm25_top
    assert cosine_margin([0.9, 0.5] + [0.4] * 8) == pytest.approx(0.5)
    assert cosine_margin([0.9] * 9) == 0.0  # fewer than 10 candidates
    # gathered, weightless unless given a coefficient (focus_coverage has one)
    assert Evidence(0.5, 0.8, 0.2, focus_coverage=0.6, cosine_margin=0.3, bm25_top=0.9).probability() == \
        Evidence(0.5, 0.8, 0.2, focus_coverage=0.6).probability() > Evidence(0.5, 0.8, 0.2, focus_coverage=0.1).probability()


def test_question_names():
    from ragls.retrieval.names import question_names

    assert question_names("How do I deploy a Flask app to AWS Lambda?") == ["Flask", "AWS", "Lambda"]
    assert question_names("Can I use IPv6, HTTP/3 or a WebSocket? And `trust_env=False`?") == \
        ["trust_env=False", "IPv6", "HTTP/3", "WebSocket"]
    assert question_names("Does it read my .netrc file, e.g. os.path.join? I ask.") == [".netrc", "os.path.join"]
    assert question_names("how many retries are allowed in 2024?") == []  # prose, numbers, sentence starts
    assert question_names('Why does `open("my.txt")` fail but `Vec::new()` not?') == ["Vec::new"]  # code is not a name


def test_a_name_made_an_adjective_is_the_name():
    """"LaTeX-style formulas", "a Unix-like system", "S3-compatible storage" name LaTeX, Unix and S3: the docs write
    the name, not the compound, so a question about typesetting LaTeX formulas is not refused because no chunk holds
    "LaTeX-style" as a phrase (a blind set's question was). A compound that is a name stays whole."""
    from ragls.retrieval.names import question_names

    assert question_names("How do I get LaTeX-style formulas typeset?") == ["LaTeX"]
    assert question_names("Does it run on a Unix-like system with S3-compatible storage?") == ["Unix", "S3"]
    assert question_names("Is a gevent-based server supported, and HTTP/3 or User-Agent?") == \
        ["gevent", "HTTP/3", "User-Agent"]
    assert question_names("Can the files be read-only?") == []


def test_question_names_judges_each_word_once():
    """A pasted text repeats its words thousands of times: each distinct word is judged once (a clipping is one set
    look-up, not a pass over the vocabulary per word; 8,000 words took 10 s), and the names are those of the text
    said once. A comma series with no "or" (the quadratic case of `_COORDINATED`) gives no listed values."""
    from ragls.retrieval import english, names

    once = "Does gevent work with json and Kerberos on my repo? "
    assert names.question_names(once * 2000) == names.question_names(once) == ["gevent", "json", "Kerberos"]
    vocabulary = names._english_words()
    for word in ("repo", "env", "json", "xq", "auth", "gev"):  # the set holds what the pass over the words found
        assert (word in english._clipping_prefixes(vocabulary)) == \
            any(w.startswith(word) and len(w) > len(word) + 1 for w in vocabulary)
    assert names._listed_values(", ".join(["json"] * 3000) + "?") == set()
    long_series = ", ".join(f"fmt{i}" for i in range(40)) + ", json, csv or table"
    assert {"json", "csv", "table"} <= names._listed_values(long_series)  # a longer series keeps its last items


def test_a_question_of_only_punctuation_or_stop_words_abstains_without_passages(ws):
    """`( " * :` holds no word, `AND OR NOT` only stop words: no hits, and rag/ask abstains without passages (no
    LLM call) on every front, which all reach `search.search` through RagWorkspace.query/ask (`Query.searchable`)."""
    for text in ('( " * :', '"*"', "AND OR NOT", "the of and", "What is it?"):
        result = ws.query(text)
        assert result.abstained and len(result.hits) == 0, text  # stop words only: nothing to search either
        answer = ws.ask(text)
        assert answer.abstained and not answer.sources, text
        assert answer.text.startswith("Not in your docs: no passage matched the question"), answer.text
    assert ws.query("`the` and `of`").hits  # a stop word quoted as code is a name to look up


def test_a_name_counts_as_mentioned_when_all_its_terms_are(ws):
    """A name is absent when one of its BM25 terms is in no chunk: `retry.max_attempts=3` (retry, max, attempt, 3
    all indexed) is mentioned, NTLM is not."""
    ev = ws.query("Is `retry.max_attempts=3` the default, and does it apply to NTLM logins?").hits.evidence
    assert ev.absent_names == ("NTLM",)
    assert ws.query("What does `retry.max_attempts` default to?").hits.evidence.absent_names == ()


def test_a_question_naming_what_the_docs_never_mention_abstains(ws):
    """The fixture docs were in none of the corpora the rule was fitted on (bench/abstention_loco.py): a near miss
    naming a protocol they never mention abstains and says so; questions naming what they do mention are
    answered."""
    miss = ws.query("Can clients authenticate with Kerberos instead of the token endpoint?")
    assert miss.abstained, miss.hits.evidence
    assert miss.hits.evidence.absent_names == ("Kerberos",) and miss.hits.evidence.absent_name == 1.0
    text = ws.ask("Can clients authenticate with Kerberos instead of the token endpoint?").text
    # the reason that decided, alone: no word-coverage figure beside it ("100% of the key words found")
    assert text.startswith("Not in your docs: they never mention Kerberos. Try rephrasing"), text
    assert "%" not in text and "estimated chance" not in text
    # a name in a sentence that only gives context, or in the selection Ask About Selection quotes, is not asked about
    from ragls.retrieval.names import question_names

    assert question_names("I run it on Ubuntu inside Docker. Which variable holds the connection string?") == []
    # the user's own addresses, URLs and paths are not names the docs must mention
    assert question_names("My app on localhost:3000 calls https://api.mycompany.com/v2 and /users/me; "
                          "how do I allow that origin?") == []
    assert question_names("Does api.mycompany.com:8443 work over HTTP/3?") == ["HTTP/3"]
    # a dotted API name is a name, though its last part reads like a top-level domain
    assert question_names("Does threading.local or request.app or socket.io or os.path.join work here?") == \
        ["threading.local", "request.app", "socket.io", "os.path.join"]
    assert question_names("Which variable is this?\n\nSelected text (a.py:1-2):\n```\nKerberos = 1\n```") == []
    for question in ("Which variable holds the PostgreSQL connection string?",
                     "What does retryBudgetPercent protect a struggling backend from?"):
        result = ws.query(question)
        assert not result.abstained, (question, result.hits.evidence)
        assert result.hits.evidence.absent_names == ()


def test_a_joined_name_is_mentioned_only_as_a_phrase(ws):
    """A name written as words joined by "/" or "-" (HTTP/3, User-Agent) is one name: the fixture docs hold "HTTP"
    and "1" but never "HTTP/1", so a question about HTTP/1 names something they do not mention and abstains;
    `in-flight`, which they do write, is mentioned. An identifier is still judged by its terms."""
    from ragls.retrieval.absent_names import absent_names

    miss = ws.query("Does the client fall back to HTTP/1 when a request is retried?")
    assert miss.hits.evidence.absent_names == ("HTTP/1",)
    assert miss.abstained, miss.hits.evidence
    assert ws.query("Are `in-flight` requests completed during an upgrade?").hits.evidence.absent_names == ()
    stats = ((3, {"checked": 1, "add": 2, "http": 3, "3": 1}),)
    never = lambda terms: False  # noqa: E731 - no phrase anywhere
    assert absent_names(stats, "Is `checked_add` or HTTP/3 supported?", never) == ("HTTP/3",)
    assert absent_names(stats, "Is HTTP/3 supported?") == ()  # no phrase lookup: counted as mentioned


def test_an_acronym_the_docs_spell_out_is_mentioned():
    """VS in "VS Code" is in no chunk, but a hit that writes "Visual Studio Code" mentions it: an acronym whose
    initials a hit spells out in capitalised words is not an absent name; NTLM spelled nowhere stays absent."""
    from ragls.core.ir import Chunk, Hit, LineSpan
    from ragls.retrieval.absent_names import spelled_out

    text = "## Visual Studio Code\n\nInstall the Black Formatter extension; a JSON Web Token is not needed."
    hits = [Hit(Chunk("c", "editors.md", text, LineSpan(0, 0, 2, 0), "h", title="Editors"), 1.0, {})]
    assert spelled_out("VS", hits) and spelled_out("JWT", hits)
    assert not spelled_out("NTLM", hits) and not spelled_out("Kerberos", hits)


def test_an_incidental_context_sentence_does_not_refuse_an_answerable_question(ws):
    """The word-level evidence weighs the sentence that asks: "How long is a replica drained ...? I run it on Ubuntu
    inside Docker." (Ubuntu and Docker are in no chunk) is answered, with the plain question's word coverage."""
    plain = ws.query(ANSWERABLE[0])
    ctx = ws.query(ANSWERABLE[0] + " I run it on Ubuntu inside Docker.")
    assert not ctx.abstained, ctx.hits.evidence
    assert ctx.hits.evidence.coverage == pytest.approx(plain.hits.evidence.coverage)


def test_a_situation_clause_before_a_semicolon_does_not_dilute_the_focus_coverage(ws):
    """"<the user's situation>; how long is a replica drained ...?" — the situation's words (nightly chaos drills,
    datacenters, change windows: in no chunk) would halve the share of the question's words in the focus; the
    asking clause alone is judged too (`asked_query(clause=True)`), and the better share counts."""
    plain = ws.query(ANSWERABLE[0]).hits.evidence
    situated = ws.query("Our platform team runs nightly chaos drills across several datacenters with strict change "
                        "windows; " + ANSWERABLE[0][0].lower() + ANSWERABLE[0][1:])
    assert not situated.abstained, situated.hits.evidence
    assert situated.hits.evidence.focus_coverage >= plain.focus_coverage - 1e-9


def test_asking_again_embeds_no_answer_sentence_twice(ws, monkeypatch):
    """The extractive answer's sentence vectors are memoised (Embedder.embed_memoised): a question asked again, or
    another one retrieving the same passages, sends the model only texts it has not embedded yet."""
    sent: list[str] = []
    real = ws.embedder.embed_documents

    def counting(texts):
        sent.extend(texts)
        return real(texts)

    monkeypatch.setattr(ws.embedder, "embed_documents", counting)
    # the memo alone: not the sentence vectors the index's sentence pass cached (test_sentence_vectors.py)
    monkeypatch.setattr(ws.embedder, "stored", None)
    first = ws.ask(ANSWERABLE[0])
    after_first = len(sent)
    assert first.model == "extractive" and not first.abstained and after_first > 5  # question + its candidates
    again = ws.ask(ANSWERABLE[0])
    assert again.text == first.text and len(sent) == after_first  # nothing embedded the second time
    ws.ask("During an upgrade, how long is a replica drained before it stops?")  # same passages, new wording
    assert len(sent) == len(set(sent)) and len(sent) - after_first < after_first  # the new question, few others


class _Recording:
    """The workspace's real fastembed model, recording which texts go through its query side (`query_embed`) and
    which through its document side (`embed`): for MiniLM both give the same vectors, for a model with
    query/passage prompts (jina-embeddings-v3's tasks, instruction-prefixed models) they do not."""

    def __init__(self, model):
        self.model, self.queries, self.documents = model, [], []

    def query_embed(self, query, **kwargs):
        self.queries += [query] if isinstance(query, str) else list(query)
        return self.model.query_embed(query, **kwargs)

    def embed(self, texts, **kwargs):
        self.documents += list(texts)
        return self.model.embed(texts, **kwargs)

    def __getattr__(self, name):
        return getattr(self.model, name)


def test_the_extractive_answer_embeds_the_question_as_a_query(ws, monkeypatch):
    """rag/ask's extractive path ranks answer sentences against the question's query-side embedding (the one
    retrieval uses), never its document-side one; passages go through the document side; both memoised apart."""
    recording = _Recording(ws.embedder.ensure_loaded())
    monkeypatch.setattr(ws.embedder, "_model", recording)
    monkeypatch.setattr(ws.embedder, "_memo", LRU(MEMO_VECTORS))  # nothing memoised by the tests before
    monkeypatch.setattr(ws.embedder, "stored", None)  # nor cached by the index's sentence pass
    question = "Which refresh token lifetime applies, in days, to the mobile app?"
    answer = ws.ask(question)
    assert answer.model == "extractive" and not answer.abstained
    assert question in recording.queries and question not in recording.documents
    assert len(recording.documents) > 3  # the candidate sentences, embedded as documents
    assert ws.embedder.embed_query_memoised(question) == pytest.approx(ws.embedder.embed_query(question), abs=1e-5)
    ws.embedder.embed_memoised([question])  # the same text as a document: a separate entry, not the query's
    assert recording.documents.count(question) == 1


def test_a_kebab_case_name_the_docs_never_mention_abstains(ws):
    """A lower-case name joined by "-", written as an option (--squash-layers) or in backticks (`docker-compose`),
    is absent when one of its words is in no chunk: the fixture docs (in no corpus the rule was fitted on) build a
    container image but never mention either, so those questions abstain and say so. Prose compounds are not
    names (a user's "brand-new" is no thing the docs must mention), and bound prefixes are judged by their words:
    "non-idempotent" and "re-tried" (the docs write "retried" closed up) are mentioned; those questions are
    answered."""
    for question, name in (("How do I build the container image with `docker-compose`?", "docker-compose"),
                           ("How do I build the container image with the --squash-layers flag?", "--squash-layers")):
        miss = ws.query(question)
        assert miss.hits.evidence.absent_names == (name,)
        assert miss.abstained, miss.hits.evidence
    for question in ("Are non-idempotent requests retried?", "Which requests are re-tried automatically?",
                     "How long is a replica drained during a rolling-upgrade?",
                     "How long is a brand-new replica drained before it stops during an upgrade?"):
        result = ws.query(question)
        assert result.hits.evidence.absent_names == () and not result.abstained, (question, result.hits.evidence)


def test_kebab_case_names_are_judged_by_their_words():
    from ragls.retrieval.absent_names import absent_names, lookup_terms
    from ragls.retrieval.names import question_names

    assert question_names("Can I set --line-length or use `cargo-fuzz`, brand-new and five-item lists?") == \
        ["cargo-fuzz", "--line-length"]
    assert lookup_terms("Is it `multi-threaded`?") == ["multi", "thread", "multithread"]
    stats = ((10, {"cargo": 3, "fuzz": 0, "cargofuzz": 0, "multi": 0, "thread": 4, "multithread": 2, "non": 0,
                   "block": 2, "nonblock": 0, "five": 1, "item": 2, "fiveitem": 0}),)
    never = lambda terms: False  # noqa: E731 - no phrase anywhere: a lower-case compound is not judged as one
    assert absent_names(stats, "Is `cargo-fuzz`, --multi-threaded, --non-blocking or five-item code supported?",
                        never) == ("cargo-fuzz",)


def test_everyday_shorthand_is_no_absent_name(ws):
    """A status class (5xx: "x" for a digit) is a range of numbers, and an acronym general English writes as a word
    (RAM, CPU: a whole word of the bundled model's uncased WordPiece vocabulary) is everyday shorthand: neither is
    a name the docs must mention, so the fixture docs, which say neither, answer these questions. A protocol's
    initials (NTLM) or a CamelCase class (RetryBudgetManager) they never mention are still absent names."""
    from ragls.retrieval.absent_names import everyday_acronym
    from ragls.retrieval.names import question_names

    assert question_names("Which ClientSession option raises on every 4xx or 5xx status, on 3.x too?") == \
        ["ClientSession"]
    # A version number with a "v" or a pre-release part is a number as 1.2.0 is (held-out set 31 refused "they never
    # mention v1.2.0" for tags the user wanted to look like it); a name with digits (OAuth2, http2) stays a name.
    assert question_names("How do I tag releases like v1.2.0 instead of 1.2.0, or as 1.0.0-b0, 2.1rc1?") == []
    assert question_names("Does it speak OAuth2 and http2?") == ["OAuth2", "http2"]
    assert everyday_acronym("RAM") and everyday_acronym("CPU")
    assert not any(everyday_acronym(n) for n in ("NTLM", "TLS", "JWT", "CORS", "OAuth", "K8S", "Kubernetes"))
    for question in ("Which requests are retried when the server answers with a 5xx status?",
                     "Retries use all my RAM; how do I cap them at a percentage of recent traffic?"):
        result = ws.query(question)
        assert result.hits.evidence.absent_names == () and not result.abstained, (question, result.hits.evidence)
    for question, name in (("Are NTLM logins retried when the server answers with a 5xx status?", "NTLM"),
                           ("Does the RetryBudgetManager use all my RAM?", "RetryBudgetManager")):
        miss = ws.query(question)
        assert miss.hits.evidence.absent_names == (name,) and miss.abstained, (question, miss.hits.evidence)


def test_a_lowercase_name_the_docs_never_mention_abstains(ws):
    """A lower-case word in no English dictionary (neither a whole word of the model's WordPiece vocabulary nor in
    pyspellchecker's English word list, nor a British spelling, inflection, closed compound, clipping or typo of
    one) names something: gevent, redis. Asked of the fixture docs, which never mention them, the question
    abstains with the name reported; a paraphrase in unusual everyday words the docs lack (dawdle, flaky, tries,
    recieve) names nothing and is answered."""
    from ragls.retrieval.names import lowercase_name, question_names

    assert all(lowercase_name(w) for w in ("gevent", "uvloop", "nginx", "redis", "kubernetes", "protobuf", "xdist"))
    assert not any(lowercase_name(w) for w in ("verbose", "printouts", "hundredth", "subfolder", "serialise",
                                               "recieve", "repo", "flaky", "tinker", "celery"))
    assert question_names("How do I use it with gevent's monkey-patching?") == ["gevent"]
    assert question_names("Can Black run with pytest-xdist?") == ["Black", "pytest-xdist"]  # the means: one name
    assert question_names("Can Black run pytest-xdist workers?") == ["Black", "pytest", "xdist"]
    for question, name in (("How do I retry failed requests with gevent's monkey-patching?", "gevent"),
                           ("Can I keep the retry budget in redis between restarts?", "redis")):
        miss = ws.query(question)
        assert miss.hits.evidence.absent_names == (name,) and miss.abstained, (question, miss.hits.evidence)
    for question in ("How long does the client dawdle before the first retry of a flaky request?",
                     "How many tries does a failed request get before the client gives up?",
                     "How do I recieve fewer retries by capping them at a share of recent traffic?"):
        result = ws.query(question)
        assert result.hits.evidence.absent_names == () and not result.abstained, (question, result.hits.evidence)


def test_the_far_off_floor_rises_as_the_question_words_go_missing():
    """Rule 2's cosine floor, with rule 1 on, is `Evidence.needed_cosine`: 0.31 with no question word in the focus,
    falling to the bare 0.2 at focus_coverage 0.62 (bench/abstention_faroff.py). The figures are aiohttp's: the
    mortgage question (cosine 0.203, focus_coverage 0.18) was answered by the bare floor; a Rust-book paraphrase
    that says its words (cosine 0.248, focus_coverage 0.65) stays answered; a keyword match is answered whatever its
    cosine; abstention_probability 0 keeps the bare floor."""
    from ragls.answer.ask import abstention_text
    from ragls.core.ir import Chunk, Hit, LineSpan
    from ragls.retrieval.relevance import abstained
    from ragls.retrieval.result import RetrievalResult

    assert Evidence(0.2, 1.0, 0.0, focus_coverage=0.0).needed_cosine(0.2) == pytest.approx(0.31)
    assert Evidence(0.2, 1.0, 0.0, focus_coverage=0.7).needed_cosine(0.2) == 0.2
    assert Evidence(0.2, 1.0, 0.0, focus_coverage=0.0).needed_cosine(0.5) == pytest.approx(0.61)  # moves with it

    def result(cosine: float, focus: float, text: str = "Build URLs from parts with params=.") -> RetrievalResult:
        hit = Hit(Chunk("c", "guide.md", text, LineSpan(1, 0, 1, len(text)), "h"), 1.0, {"vector": 1, "bm25": 1},
                  similarity=cosine)
        evidence = Evidence(cosine, 0.3, 1.0, focus_coverage=focus)
        assert evidence.probability() >= 0.2  # rule 1 answers: the floor decides
        return RetrievalResult([hit], best_similarity=cosine, evidence=evidence)

    mortgage = result(0.203, 0.18)
    assert abstained(mortgage, 0.2, "What is the difference between a mortgage's APR and its interest rate?",
                     min_probability=0.2)
    assert not abstained(mortgage, 0.2, "What is the difference between a mortgage's APR and its interest rate?")
    # the answer says which floor refused it, not "0.20, below the floor 0.20"
    assert abstention_text(list(mortgage), 0.2, mortgage.evidence, 0.2) == (
        "Not in your docs: no passage is close enough to the question (best similarity 0.20, below the 0.28 needed "
        "when only 18% of its words occur together in the best passages). Try rephrasing the question, or check that "
        "the relevant files are indexed.")
    assert not abstained(result(0.248, 0.65), 0.2, "How do I let a binding be changed after I first set it?",
                         min_probability=0.2)
    keyword = result(0.15, 0.3, "Waiting for a free connection raises `PoolTimeout`.")
    assert not abstained(keyword, 0.2, "PoolTimeout", min_probability=0.2)


def test_a_far_off_question_abstains_where_paraphrases_are_answered(ws):
    """On the fixture docs (in no corpus the far-off floor was fitted on), an everyday question about a
    subscription's refund policy reaches the bare cosine floor by chance (its best passage: the docs' policies on
    retries and tokens) with few of its words in that passage: refused now. Paraphrases of what the docs do say,
    in other words, and an identifier search are still answered."""
    refund = ws.query("What is the refund policy for annual subscriptions?")
    ev = refund.hits.evidence
    assert refund.abstained, ev
    assert ev.cosine >= ws.settings.retrieval.min_similarity > 0  # the bare floor would have answered it
    assert ws.query("What is the difference between a mortgage's APR and its interest rate?").abstained
    for question in ("How long does a drained replica wait before it stops when I upgrade?",
                     "For how many days does a refresh token stay valid?", "retryBudgetPercent"):
        answered = ws.query(question)
        assert not answered.abstained, (question, answered.hits.evidence)


def test_the_users_own_material_is_no_name_and_the_means_asked_about_is(ws):
    """What a question quotes or lists is the user's own material, not a thing it asks the docs about: a quoted
    message of three or more words (an error the user saw) and a series of values with an everyday English word
    among them ("json, csv or table") name nothing, so the fixture docs, which never say NoneType, subscriptable,
    json or csv, answer these questions (each abstained before, naming them). The word right after "with",
    "using", "via" or "use" that ends its phrase is the means asked about, English word or not: celery and
    gettext, which the fixture docs never mention, abstain with the name reported; a word that goes on into a
    noun ("with exponential backoff") only describes."""
    from ragls.retrieval.names import question_names, user_material

    assert question_names('It dies with "TypeError: \'NoneType\' object is not subscriptable"; why?') == []
    assert question_names("--format should accept only json, csv or table; what do I use?") == []
    assert question_names("Does it work with gevent or eventlet?") == ["gevent"]
    assert question_names("How do I queue jobs with celery?") == ["celery"]
    assert question_names("How do I parse flags with clap's derive macros?") == ["clap"]
    assert question_names("How do I fetch pages with relative URLs?") == ["URLs"]
    for question in (('My client stops with "TypeError: \'NoneType\' object is not subscriptable" after a retry; how'
                     ' do I turn retries off entirely in tests?'),
                     "When my tool exports its report as json, csv or table, how do I turn retries off in tests?"):
        result = ws.query(question)
        assert result.hits.evidence.absent_names == () and not result.abstained, (question, result.hits.evidence)
    for question, name in (("How do I queue the failed requests for a later retry with celery?", "celery"),
                           ("How do I translate the log messages into other languages with gettext?", "gettext")):
        miss = ws.query(question)
        assert name in miss.hits.evidence.absent_names and miss.abstained, (question, miss.hits.evidence)
    # A quoted message the docs never print is no evidence against the question either (`user_material`): before,
    # its absent words weighed in focus_coverage (0.14 on these docs) and refused it.
    quoted = ('It keeps printing "fatal: upstream quota exhausted, circuit tripped, backlog discarded, worker'
              ' respawned"; how do I cap retries at a share of recent traffic?')
    assert {"quota", "circuit", "backlog"} <= user_material(quoted)
    assert user_material("My option has default='abc', and my function receives ('a', 'b', 'c'); why?") == set()
    result = ws.query(quoted)
    assert result.hits.evidence.focus_coverage > 0.4 and not result.abstained, result.hits.evidence
    result = ws.query("How do I retry failed requests with exponential backoff?")
    assert result.hits.evidence.absent_names == () and not result.abstained, result.hits.evidence


def test_a_long_lower_case_token_is_judged_without_trying_every_edit(monkeypatch):
    """`lowercase_name` tries only the splits and one-letter edits that can reach a WordPiece word (none is longer
    than `_longest`): a pasted 20,000-letter token in a question took every split and ~1,000,000 edits of it (minutes
    of CPU, quadratic). Compounds and typos of real words are judged as before."""
    from ragls.retrieval import english, names

    assert not english.lowercase_name("codebase") and not english.lowercase_name("recieve")  # compound, typo
    assert english.lowercase_name("gevent")

    def no_edits(word, vocabulary):
        raise AssertionError(f"edits of a {len(word)}-letter word tried")

    monkeypatch.setattr(english, "_one_edit_from", no_edits)
    assert english.lowercase_name("q" * 20_000)
    assert names.question_names("Why does " + "z" * 20_000 + " fail?") == ["z" * 20_000]
