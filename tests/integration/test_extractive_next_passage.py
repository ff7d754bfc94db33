"""Extractive answers with the real offline model: the passage right after a quoted one is quoted too when it
scores at least NEXT_FLOOR of the best passage, below the quoting floor (`next_passage.with_next_passages`). A page
describes the symptom in the question's words, then names the cause in its own: "Reverse proxies may then show
`502` responses ..." / "A common culprit is the `oom-killer` of the kernel ..." (Gunicorn's FAQ, gu15)."""

from __future__ import annotations

import pytest
from extractkit import _bullets
from ragls.answer import extractive
from ragls.answer.ask import extractive_answer
from ragls.answer.next_passage import NEXT_FLOOR
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


FAQ = """# Troubleshooting

## Workers vanish

If a worker vanishes without any log line, check whether it was sent `SIGKILL`. Reverse proxies may then show `502`
responses while the server logs nothing but new worker startups. A common culprit is the `oom-killer` of the kernel, which stops workers
in containers with a memory limit.

## Slow clients

The default synchronous workers expect a buffering proxy in front of them; otherwise slow clients can hold every
worker busy.
"""

PROXY = """# Deploying behind a proxy

Run the server behind a reverse proxy such as nginx. When proxy buffering is turned off, nginx logs report error
499 for clients that went away, and the server may log `Ignoring EPIPE` at the debug level.

Set `proxy_read_timeout` high enough for your slowest view, or nginx answers `504` before the worker is done.
"""

QUESTION = "Workers keep disappearing with nothing in the error log, and nginx returns 502 meanwhile. What is the usual cause?"
CAUSE = "A common culprit is the `oom-killer` of the kernel, which stops workers in containers with a memory limit"


def _hit(text: str, path: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
               score=1.0)


def _scores(embedder) -> dict[str, float]:
    """Each candidate's score as a share of the best, as `extractive_picks` scores them."""
    sources = [(1, _hit(FAQ, "faq.md")), (2, _hit(PROXY, "deploy.md"))]
    query = set(extractive.content_words(QUESTION)) | extractive.literal_terms(QUESTION)
    found, _ = extractive.candidate_passages(sources, extractive.literal_terms(QUESTION), QUESTION)
    qvec = embedder.embed_documents([QUESTION])[0]
    cosines = [float(x) for x in embedder.embed_documents([c.unit.sentence for c in found]) @ qvec]
    scores = extractive.passage_scores(query, [c.unit for c in found], [c.words for c in found], cosines)
    final = {c.unit.sentence: s * c.weight * extractive.rank_prior(c.rank) for c, s in zip(found, scores) if s is not None}
    best = max(final.values())
    return {k: v / best for k, v in final.items()}


def test_the_cause_after_the_quoted_symptom_is_quoted(embedder):
    """The cause scores under the quoting floor (0.52 of the best: it shares one word with the question) and was
    left out; it is the sentence right after the best passage in its paragraph, so it is quoted with it, one
    passage under one citation (`next_passage.joined_in_paragraph`)."""
    share = _scores(embedder)[CAUSE + "."]
    assert NEXT_FLOOR <= share < extractive.RELATIVE_FLOOR, share
    bullets = _bullets(extractive_answer(QUESTION, [(1, _hit(FAQ, "faq.md")), (2, _hit(PROXY, "deploy.md"))],
                                         embed=embedder.embed_documents))
    assert bullets[0] == ("- Reverse proxies may then show `502` responses while the server logs nothing but new "
                          f"worker startups. {CAUSE} [1]."), bullets


def test_a_low_passage_elsewhere_is_not_quoted(embedder):
    """Only the passage right after a picked one gets the lower floor, one step: the "Slow clients" sentence (under
    the quoting floor too) follows the added cause, under a heading of its own, and is left out."""
    scores = _scores(embedder)
    slow = next(k for k in scores if k.startswith("The default synchronous workers"))
    assert scores[slow] < extractive.RELATIVE_FLOOR
    answer = extractive_answer(QUESTION, [(1, _hit(FAQ, "faq.md")), (2, _hit(PROXY, "deploy.md"))],
                               embed=embedder.embed_documents)
    assert CAUSE in answer and "The default synchronous workers" not in answer, answer
