"""LLM calls made by query-time retrieval steps (query transforms, corrective retrieval): one place that makes
them, caches them, counts them and turns every failure into "no result".

- `StepLLM.for_settings(generation, retrieval)`: a chat model from `llm/chat.py` (the configured
  `generation` backend and model: OpenAI-compatible, Anthropic, Ollama, external) with the retrieval time budget
  `retrieval.llm_timeout_s` and no SDK retries, so a slow or failing model costs a query at most that long. None
  for backend "none": the steps then do nothing.
- `StepLLM.call(step, prompt, system, trace)`: the model's text, or None when the call failed or timed out
  (`RequestFailed`); every real call is counted in `trace` (this question) and in the process-wide
  `llm.costs.COUNTER` (`rag/status` `llmCalls`), a failure as a failed call. Answers are cached in memory
  (`TransformCache`, LRU) by (step, model, prompt): the same question with the same model gives the same
  paraphrases without a second call, as an answer cache would. Failures are not cached.
- `LLMTrace`: what one question's retrieval spent and did (calls per step, failures, cache hits, the texts the
  model wrote, why the steps were skipped, the corrective grade) — shown by `--explain` and the CLI.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragls.core.errors import RequestFailed
from ragls.core.lru import LRU
from ragls.llm.costs import COUNTER, LLMCallCounter

if TYPE_CHECKING:
    from ragls.config.settings import GenerationSettings, RetrievalSettings
    from ragls.llm.chat import ChatModel

log = logging.getLogger(__name__)

CACHE_ENTRIES = 1024  # distinct (step, model, prompt) answers kept in memory


class TransformCache(LRU[str]):
    """Thread-safe in-memory LRU of LLM answers for retrieval steps, keyed by (step, model, prompt, system)."""

    def __init__(self, max_entries: int = CACHE_ENTRIES) -> None:
        super().__init__(max_entries)


#: The process's cache of transform answers (paraphrases, HyDE passages, step-back questions, grades).
CACHE = TransformCache()


@dataclass
class LLMTrace:
    """One question's LLM-assisted retrieval.

    - `counter`: calls (and failed calls) per step of this question (`llm.costs.LLMCallCounter`).
    - `cached`: steps answered from the cache (no call made).
    - `queries`: what the model wrote, per step: "hyde" (the passage), "step_back" (the question), "expand"
      (the paraphrases, a list), "corrective" (the rewritten query).
    - `skipped`: why no LLM step ran (the skip rule, no backend), else None.
    - `grade`: the corrective grade of the final passages, "sufficient" / "insufficient", None when not graded.
    - `rounds`: corrective retrieval rounds run (1 or 2; 0 without corrective retrieval).
    - `errors`: the failures' messages (no keys: `llm/chat.py` never puts them in messages).
    """

    counter: LLMCallCounter = field(default_factory=LLMCallCounter)
    cached: list[str] = field(default_factory=list)
    queries: dict[str, Any] = field(default_factory=dict)
    skipped: str | None = None
    grade: str | None = None
    rounds: int = 0
    errors: list[str] = field(default_factory=list)

    def merge(self, other: LLMTrace) -> None:
        """Add `other`'s calls, failures, errors and cached steps (each once); its model texts fill steps this
        trace has none for. For one question retrieved in parts (several RAGs, the reranker's call)."""
        self.counter.merge(other.counter)
        self.errors += other.errors
        self.cached += [c for c in other.cached if c not in self.cached]
        self.queries = {**other.queries, **self.queries}

    def to_wire(self, explain: bool = False) -> dict:
        """{step: {"calls", "failures"}} — plus, with `explain`, "cached", "queries", "skipped", "grade"."""
        calls, failures = self.counter.snapshot(), self.counter.failures()
        out: dict[str, Any] = {"steps": {s: {"calls": n, "failures": failures.get(s, 0)} for s, n in calls.items()}}
        if explain:
            out.update({k: v for k, v in (("cached", self.cached), ("queries", self.queries),
                                          ("skipped", self.skipped), ("grade", self.grade)) if v})
        return out


def wire_counts(counter: LLMCallCounter) -> dict[str, dict[str, int]]:
    """`llmCalls` of rag/status: {step: {"calls": n, "failures": m}} for the steps with at least one call."""
    failures = counter.failures()
    return {s: {"calls": n, "failures": failures.get(s, 0)} for s, n in counter.snapshot().items()}


_MODELS: dict[str, ChatModel] = {}
_MODELS_LOCK = threading.Lock()


class StepLLM:
    """The chat model used by query-time retrieval steps (module docstring)."""

    def __init__(self, chat: ChatModel, cache: TransformCache = CACHE) -> None:
        self.chat = chat
        self.cache = cache

    @classmethod
    def for_settings(cls, gen: GenerationSettings, retrieval: RetrievalSettings) -> StepLLM | None:
        """The step model for the `generation` backend with `retrieval.llm_timeout_s` and no retries; None for
        backend "none". Models are kept per settings (one SDK client each, reused across questions)."""
        from ragls.llm.chat import make_chat_model

        if gen.resolved_backend() == "none":
            return None
        tuned = gen.model_copy(update={"timeout_s": retrieval.llm_timeout_s, "max_retries": 0,
                                       "temperature": 0.0})
        key = tuned.model_dump_json()
        with _MODELS_LOCK:
            chat = _MODELS.get(key)
            if chat is None:
                try:
                    chat = make_chat_model(tuned)
                except RequestFailed as exc:
                    log.warning("retrieval LLM steps off: %s", exc)
                    return None
                if chat is None:
                    return None
                _MODELS[key] = chat
        return cls(chat)

    @property
    def model(self) -> str:
        return self.chat.model

    def call(self, step: str, prompt: str, system: str, trace: LLMTrace) -> str | None:
        """The model's reply to `prompt` for retrieval step `step` (a `llm.costs.STEPS` name), stripped; None when
        the call failed or timed out (counted as a failed call of `step`, its message in `trace.errors`).
        A cached reply for the same step, model, system and prompt costs no call (`trace.cached`)."""
        key = (step, self.chat.backend, self.chat.base_url, self.chat.model, system, prompt)
        hit = self.cache.get(key)
        if hit is not None:
            trace.cached.append(step)
            return hit
        try:
            text = self.chat.complete(prompt, system=system).strip()
        except RequestFailed as exc:
            trace.counter.add(step, 1, failures=1)
            COUNTER.add(step, 1, failures=1)
            message = str(exc).replace("raise generation.timeout_s", "raise retrieval.llm_timeout_s")
            trace.errors.append(f"{step}: {message}")
            log.warning("retrieval step %s: the LLM failed, plain retrieval used: %s", step, message)
            return None
        except Exception as exc:  # a step never fails the query (e.g. a model resolved lazily)
            trace.counter.add(step, 1, failures=1)
            COUNTER.add(step, 1, failures=1)
            trace.errors.append(f"{step}: {type(exc).__name__}: {exc}")
            log.warning("retrieval step %s failed, plain retrieval used", step, exc_info=exc)
            return None
        trace.counter.add(step)
        COUNTER.add(step)
        if text:
            self.cache.put(key, text)
        return text
