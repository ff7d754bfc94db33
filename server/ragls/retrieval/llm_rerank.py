"""Listwise LLM reranking (`retrieval.rerank_backend = "llm"`): one chat call orders the best fused candidates.

RankGPT-style (Sun et al. 2023, "Is ChatGPT Good at Search?"): the query and the first
`retrieval.rerank_llm_candidates` (default 20) fused candidates, numbered [1]..[n] with their heading path and
text (each cut to `PASSAGE_CHARS`), go to the generation backend and model (`llm/chat.py`) in one call; the model answers with the numbers, most relevant
first ("[3] > [1] > [2]"). Numbers it leaves out keep their fused order after the ones it ranked; candidates past
the first n follow unchanged. The score of the hit at rank r is 1/r — a rank, not a relevance: it is not
comparable with the cross-encoder's (`retrieval.relevance_floor`).

Each call is counted in `llm.costs.COUNTER["rerank"]`. A failed call or a reply without a valid number raises
`RerankFailed`; search then returns the fused order and reports the failure (never an error to the user).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from ragls.core.errors import RaglsError, RequestFailed

log = logging.getLogger(__name__)

PASSAGE_CHARS = 1200  # 20 passages: ~24,000 characters, ~6,000 tokens
SYSTEM = "You are a search engine's ranking step: you order passages by how well they answer a search query."
PROMPT = """Search query: {query}

Passages:
{passages}

Rank the {n} passages above from the most to the least relevant to the search query. Answer only with their \
numbers in order, most relevant first, in this form: [2] > [1] > [3]"""


class RerankFailed(RequestFailed):
    """The LLM reranker could not order the candidates (provider failure, unusable reply)."""


def parse_order(reply: str, n: int) -> list[int]:
    """0-based candidate positions in the order the reply names them ("[3] > [1]" or "3, 1"): numbers 1..n, each
    once, in order of first mention; positions not named follow in their original order. Raises RerankFailed when
    the reply names no valid number."""
    named = []
    for m in re.finditer(r"\d+", reply or ""):
        k = int(m.group()) - 1
        if 0 <= k < n and k not in named:
            named.append(k)
    if not named:
        raise RerankFailed(f"the LLM reranker's reply names no passage number: {reply[:120]!r}")
    return named + [k for k in range(n) if k not in named]


class LLMReranker:
    """Listwise reranking through a `ChatModel` (see module docstring). `candidates`: how many fused candidates
    the model sees."""

    name = "llm"

    def __init__(self, chat, candidates: int = 20):
        self.chat = chat
        self.candidates = candidates
        self.model_name = getattr(chat, "model", "")

    @classmethod
    def from_settings(cls, settings) -> LLMReranker:
        """The generation backend's chat model (RequestFailed when generation.backend is none)."""
        from ragls.llm.chat import make_chat_model

        chat = make_chat_model(settings.generation)
        if chat is None:
            raise RequestFailed('retrieval.rerank_backend = "llm" needs a generation backend (generation.backend and '
                                "its API key)")
        return cls(chat, settings.retrieval.rerank_llm_candidates)

    def llm_calls_for(self, n_chunks: int) -> int:
        """LLM calls `rerank` makes for `n_chunks` candidates: 1, or 0 when fewer than two reach the model (one
        passage needs no ordering). `rerankers.rerank_fused` reports it per question (`llmCalls` of rag/query)."""
        return 1 if min(n_chunks, self.candidates) >= 2 else 0

    def prompt(self, query: str, chunks: Sequence) -> str:
        """The user prompt for the first `candidates` chunks."""
        from ragls.retrieval.cross_encoder import rerank_input

        parts = []
        for n, c in enumerate(chunks, 1):
            text = " ".join(rerank_input(c).split())
            if len(text) > PASSAGE_CHARS:
                text = text[:PASSAGE_CHARS].rsplit(" ", 1)[0] + " …"
            parts.append(f"[{n}] {text}")
        return PROMPT.format(query=query, passages="\n\n".join(parts), n=len(chunks))

    def rerank(self, query: str, chunks: Sequence) -> list[tuple]:
        """[(chunk, 1/rank)] for all `chunks` (given in fused order): the first `candidates` in the model's order,
        then the rest unchanged. One chat call, counted. Raises RerankFailed (fused order kept by the caller).

        The call is not cancelled when the time budget passes (llm/chat.py cancels by closing the model's HTTP
        client, which this long-lived model shares between queries): it ends in the background within
        `generation.timeout_s` and its result is dropped."""
        from ragls.llm.costs import COUNTER

        head, tail = list(chunks[:self.candidates]), list(chunks[self.candidates:])
        if len(head) < 2:
            return [(c, 1.0 / r) for r, c in enumerate(head + tail, 1)]
        try:
            reply = self.chat.complete(self.prompt(query, head), system=SYSTEM)
            order = parse_order(reply, len(head))
        except RaglsError as exc:
            COUNTER.add("rerank", 1, 1)
            if isinstance(exc, RerankFailed):
                raise
            raise RerankFailed(f"LLM reranker: {exc}") from None
        COUNTER.add("rerank", 1)
        ranked = [head[k] for k in order] + tail
        return [(c, 1.0 / r) for r, c in enumerate(ranked, 1)]
