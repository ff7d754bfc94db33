"""OpenTelemetry traces (optional: `pip install 'ragls[otel]'`, setting `observability.otel_endpoint`).

One trace per request (`rag/query`, `rag/ask`), with child spans for the query embedding (`embed.query`), BM25
(`bm25.search`), the vector search (`vector.search`), fusion (`fusion.rrf`), the reranker (`rerank`) and the LLM
(`llm.chat`); the indexer's work gets its own traces (`index.sync`, `index.embed`). Spans are exported over
OTLP/HTTP (protobuf) to `<endpoint>/v1/traces` in batches.

Attributes are counts, sizes, limits and model/backend names only: never document text, queries, prompts, answers,
paths of files or API keys. Without the setting, or without the SDK installed, every call here is a no-op that
costs one attribute lookup.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger(__name__)

_tracer = None  # an opentelemetry Tracer once configured
_provider = None
_endpoint: str | None = None
_SAFE_TYPES = (bool, int, float)


def configure(endpoint: str | None, service_name: str = "ragls") -> bool:
    """Export spans to `endpoint` (e.g. "http://127.0.0.1:4318"); None or "" turns tracing off. Returns True when
    tracing is on. A missing SDK is logged once as a warning (the setting asks for something not installed)."""
    global _tracer, _provider, _endpoint
    endpoint = (endpoint or "").rstrip("/") or None
    if endpoint == _endpoint:
        return _tracer is not None
    shutdown()
    _endpoint = endpoint
    if endpoint is None:
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning("observability.otel_endpoint is set but OpenTelemetry is not installed: "
                    "pip install 'ragls[otel]'")
        return False
    from ragls import __version__

    _provider = TracerProvider(resource=Resource.create({"service.name": service_name,
                                                         "service.version": __version__}))
    _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"),
                                                    schedule_delay_millis=500))
    _tracer = _provider.get_tracer("ragls")
    return True


def shutdown() -> None:
    """Flush and stop the exporter (idempotent)."""
    global _tracer, _provider, _endpoint
    if _provider is not None:
        try:
            _provider.shutdown()
        except Exception:  # noqa: BLE001 - telemetry never breaks the product
            log.debug("telemetry shutdown failed", exc_info=True)
    _tracer = _provider = _endpoint = None


def flush(timeout_ms: int = 5000) -> None:
    """Export pending spans now (tests, process exit)."""
    if _provider is not None:
        _provider.force_flush(timeout_ms)


@contextlib.contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A span named `name` (child of the current one) with numeric/boolean `attributes` and short strings that
    the caller vouches are not user text (model names, backends); other values are dropped. Yields the span
    (or None when tracing is off) so the caller can add `set_attribute` results."""
    if _tracer is None:
        yield None
        return
    attrs = {k: v for k, v in attributes.items() if v is not None and isinstance(v, (*_SAFE_TYPES, str))}
    with _tracer.start_as_current_span(name, attributes=attrs) as s:
        yield s


def traced(name: str, **static: Any) -> Callable:
    """Decorator: run the function inside `span(name, **static)`."""
    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            if _tracer is None:
                return fn(*args, **kwargs)
            with span(name, **static):
                return fn(*args, **kwargs)
        return inner
    return wrap
