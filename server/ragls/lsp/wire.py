"""The wire shapes of docs/protocol.md: pydantic models of request params (camelCase aliases) and `to_wire_*`
converters from IR objects to JSON-ready dicts. The only module (with the clients) where camelCase appears.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from ragls.answer.extractive_label import plain_label
from ragls.answer.preview import chunk_preview
from ragls.config.settings import EnvName
from ragls.core.errors import InvalidParams, invalid_params
from ragls.core.ir import Answer, Chunk, Hit, LineSpan
from ragls.core.uris import display_path, http_url, key_path, path_to_uri
from ragls.index.titles import source_title
from ragls.lsp.plain import to_plain
from ragls.retrieval.focus import context_span
from ragls.sources.convert import extracted_text
from ragls.sources.passage import Passage
from ragls.sources.redact import url_credential


class _Params(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class QueryParams(_Params):
    query: str
    top_k: int | None = Field(None, alias="topK", ge=1, le=200, strict=True)
    rag: str | list[str] | None = None
    explain: bool = Field(False, strict=True)  # strict as `expand`: "yes" or "false" is -32602, not a guess
    expand: bool | None = Field(None, strict=True)  # multi-query expansion for this request (retrieval.expand_n)


class Message(_Params):
    """One earlier turn of `rag/ask` `history`. Only "user" and "assistant": a "system" (or "tool", "developer")
    turn would let whoever builds the history give the LLM instructions next to ragls's own, so any other role is
    -32602 naming the field (`parse`), on every front that takes `history` (LSP, local socket, HTTP /ask)."""

    role: Literal["user", "assistant"]
    content: str


class AskParams(_Params):
    question: str = ""
    top_k: int | None = Field(None, alias="topK", ge=1, le=200, strict=True)
    rag: str | list[str] | None = None
    documents: list[str] | None = None
    history: list[Message] | None = None
    expand: bool | None = Field(None, strict=True)
    partial_result_token: int | str | None = Field(None, alias="partialResultToken")
    work_done_token: int | str | None = Field(None, alias="workDoneToken")


class RebuildParams(_Params):
    workspace_folder: str | None = Field(None, alias="workspaceFolder")
    rag: str | None = None
    work_done_token: int | str | None = Field(None, alias="workDoneToken")


class CommitParams(_Params):
    repository: str | None = None
    staged: bool = Field(True, strict=True)
    style: Literal["conventional", "plain"] | None = None


class ReadPassageParams(_Params):
    path: str = Field(min_length=1)
    start_line: int = Field(1, alias="startLine", ge=1, strict=True)
    end_line: int | None = Field(None, alias="endLine", ge=1, strict=True)


class ToolParams(_Params):
    """rag/tool: one agent tool by its MCP name (or VS Code's `ragls_*` name) and its arguments."""
    name: Literal["search_docs", "ask_docs", "read_passage", "index_status", "ragls_search", "ragls_ask",
                  "ragls_read_passage", "ragls_index_status"]
    arguments: dict[str, Any] = Field(default_factory=dict)


class SearchToolArgs(_Params):
    query: str = Field(min_length=1)
    top_k: int | None = Field(None, validation_alias=AliasChoices("top_k", "topK"), ge=1, le=50, strict=True)
    rag: str | list[str] | None = None
    expand: bool | None = Field(None, strict=True)


class AskToolArgs(_Params):
    question: str = Field(min_length=1)
    top_k: int | None = Field(None, validation_alias=AliasChoices("top_k", "topK"), ge=1, le=50, strict=True)
    rag: str | list[str] | None = None
    expand: bool | None = Field(None, strict=True)


class ReadToolArgs(_Params):
    path: str = Field(min_length=1)
    start_line: int = Field(1, validation_alias=AliasChoices("start_line", "startLine"), ge=1, strict=True)
    end_line: int | None = Field(None, validation_alias=AliasChoices("end_line", "endLine"), ge=1, strict=True)


def to_wire_tool(text_data: tuple[str, dict]) -> dict:
    """rag/tool result: `text` for the model (document text quoted by `answer.template.quote_passage`) and `data`,
    the same result structured (snake_case keys, as the MCP tool's structuredContent)."""
    text, data = text_data
    return {"text": text, "data": data}


def to_wire_passage(p: Passage) -> dict:
    """rag/readPassage result of a `sources.passage.Passage`."""
    return {"path": p.path, "uri": p.uri, "startLine": p.start_line, "endLine": p.end_line,
            "totalLines": p.total_lines, "text": p.text, "truncated": p.truncated,
            **({"cutChars": p.cut_chars} if p.cut_chars else {})}


class ModelsParams(_Params):
    base_url: Annotated[str | None, AfterValidator(http_url)] = Field(None, alias="baseUrl", min_length=1)
    api_key_env: EnvName = Field(None, alias="apiKeyEnv", min_length=1)


def to_wire_models(found: list) -> dict:
    """rag/models result: `servers`, one per `local.Found` (a runtime on its default port) or `local.Probe` (the
    base URL asked about): {name, baseUrl, backend, models, keyUsed?, error?}."""
    servers = []
    for f in found:
        if hasattr(f, "runtime"):  # local.Found
            servers.append({"name": f.runtime.name, "baseUrl": f.base_url, "backend": f.runtime.backend,
                            "models": list(f.models)})
        else:  # local.Probe
            servers.append({"name": "", "baseUrl": f.base_url, "backend": "openai" if f.key_used else "external",
                            "models": list(f.models),
                            **({"keyUsed": True} if f.key_used else {}), **({"error": f.error} if f.error else {})})
    return {"servers": servers}


def parse(model: type[BaseModel], params: Any) -> Any:
    """Validate params against `model`. Raises InvalidParams naming the field, e.g. "topK: ..."."""
    data = to_plain(params)
    if isinstance(data, list) and len(data) == 1:  # workspace/executeCommand arguments: [params]
        data = data[0]
    if not isinstance(data, dict):
        raise InvalidParams("params must be an object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_params(exc.errors(), limit=1) from None


# -- converters --------------------------------------------------------------------------------------------
def to_wire_range(span: LineSpan) -> dict:
    return {"start": {"line": span.start_line, "character": span.start_char},
            "end": {"line": span.end_line, "character": span.end_char}}


def source_uri(chunk: Chunk) -> str:
    """A file:// URI for workspace files and absolute paths; the URL itself for fetched pages; `ragls:<label>`
    for documents with no file behind them (a command's output, the previous answer)."""
    if chunk.folder:
        return path_to_uri(Path(chunk.folder) / key_path(chunk.path))
    if chunk.path.startswith(("http://", "https://")):
        return chunk.path
    if Path(chunk.path).is_absolute():
        return path_to_uri(chunk.path)
    return "ragls:" + quote(chunk.path, safe="")


def to_wire_source(chunk: Chunk, focus: LineSpan | None = None, context: LineSpan | None = None,
                   more_focus: Sequence[LineSpan] = (), quotes: Sequence[LineSpan] = ()) -> dict:
    """Source of a chunk: uri (with `#fragment` for a web page's heading that has an id), path, range (in the
    extracted text for converted documents), optional title (of the focus's section, `index.titles.source_title`), `page` (1-based, PDFs), `focusRange` (the
    answering sentence's lines, inside `range`) when `focus` is given and `contextRange` (the window around it,
    widened to cover the focus, `retrieval/focus.context_span`) when `context` is given and differs from the focus;
    with `more_focus` (more quoted places of the chunk, `Hit.more_focus`) `focusRanges`: the focus and those, in line
    order; with `quotes` (each passage an extractive answer quotes, `Hit.quotes`) `quoteRanges`, unless it is the
    focus alone."""
    uri = source_uri(chunk)
    if chunk.anchor and uri.startswith(("http://", "https://")) and "#" not in uri:
        uri = f"{uri}#{quote(chunk.anchor, safe='-._~!$&()*+,;=:@')}"
    src = {"uri": uri, "path": display_path(chunk.path) if chunk.folder else chunk.path,
           "range": to_wire_range(chunk.span)}
    title = source_title(chunk, focus)  # the focus's section
    if title:
        src["title"] = title
    if chunk.page is not None:
        src["page"] = chunk.page
    if extracted_text(chunk.path):  # its lines count the text ragls extracted (HTML, PDF, DOCX), not the file's
        src["extractedText"] = True
    if focus is not None:
        src["focusRange"] = to_wire_range(focus)
        context = context_span(focus, context)  # the window widened to cover the focus: it always contains it
        if context != focus:
            src["contextRange"] = to_wire_range(context)
        if more_focus:
            src["focusRanges"] = [to_wire_range(r) for r in sorted((focus, *more_focus), key=lambda r: r.start_line)]
        if quotes and list(quotes) != [focus]:  # where each quote's sentence starts: a [n] opens at its own
            src["quoteRanges"] = [to_wire_range(r) for r in quotes]
    return src


def to_wire_chunk(hit: Hit, explain: bool = False, relevance: float | None = None) -> dict:
    """The `rag/query` Chunk of `hit`: `preview` (its focus lines as the answer reads them, one line,
    `answer/preview.chunk_preview`); `relevance` (its score's share of the best hit's, `relevance_shares`) is
    sent when given, `signals` and `transforms` only with `explain`."""
    out = {"id": hit.chunk.id, "text": hit.chunk.text, "score": round(hit.score, 6),
           "source": to_wire_source(hit.chunk, hit.focus, hit.window, quotes=hit.quotes),
           "preview": chunk_preview(hit.chunk, hit.focus)}
    if relevance is not None:
        out["relevance"] = relevance
    if hit.focus is not None:
        out["focusRange"] = to_wire_range(hit.focus)
    if explain:
        from ragls.retrieval.transforms import transforms_of

        signals = {k: (int(v) if k != "rerank" else v) for k, v in hit.signals.items()}
        out["signals"] = signals
        if via := transforms_of(hit.signals):
            out["transforms"] = via  # the query transforms whose lists ranked this hit
    return out


def to_wire_query(result, explain: bool = False) -> dict:
    shares = result.relevances()  # none when abstained: the best weak match is no "100%"
    out = {"query": result.query, "chunks": [to_wire_chunk(h, explain, r) for h, r in zip(result.hits, shares)],
           "abstained": result.abstained, "elapsedMs": round(result.elapsed_ms, 1)}
    if result.truncated:
        out["truncated"] = True  # the embedding model read only the end of the query
    if result.rerank:
        out["rerank"] = dict(result.rerank)  # {backend, elapsedMs, candidates, timedOut?, error?}
    trace = result.llm
    if trace is not None:  # some LLM-assisted retrieval step is on: what this question spent (and, explained, did)
        out["llmCalls"] = trace.to_wire(explain)
    return out


def to_wire_answer(answer: Answer) -> dict:
    """The `rag/ask` result; `retrievalQuery` and `retrievalContext` (follow-ups), `cached` (true only), `error` ({message}, the LLM
    failed and `answer` is extractive) and `label` (the extractive answer's first line, `extractive_label.plain_label`)
    are present only when they apply."""
    out = {
        "answer": answer.text,
        "sources": [{"n": n, **to_wire_source(hit.chunk, hit.focus, hit.window, hit.more_focus, hit.quotes)}
                    for n, hit in answer.sources],
        "citations": [{"n": c.n, "supported": c.supported} for c in answer.citations],
        "model": answer.model,
        "abstained": answer.abstained,
        "elapsedMs": round(answer.elapsed_ms, 1),
    }
    if answer.retrieval_query is not None:
        out["retrievalQuery"] = answer.retrieval_query
    if answer.retrieval_context:
        out["retrievalContext"] = answer.retrieval_context  # the earlier turns' words the follow-up was searched with
    if answer.cached:
        out["cached"] = True
    if answer.error is not None:
        out["error"] = {"message": answer.error}
    label = plain_label(answer.text) if not answer.abstained else None
    if label is not None:
        out["label"] = label
    if answer.llm_calls is not None:
        from ragls.retrieval.llm_steps import wire_counts

        out["llmCalls"] = {"steps": wire_counts(answer.llm_calls)}
    return out


def to_wire_rebuild(reports, folders: list[Path], elapsed_ms: float, ws) -> dict:
    """rag/rebuild result: the workspace's totals, the first `status.SKIPPED_LISTED` files the rebuild left out and
    `skippedMore`, how many more (present when there are)."""
    from ragls.workspace.status import SKIPPED_LISTED

    files = sum(idx.manifest.file_count() for idx in ws.indexes)
    chunks = sum(idx.manifest.chunk_count() for idx in ws.indexes)
    left_out = [s for r in reports for s in r.skipped]
    skipped = [{"path": display_path(s.path), "reason": s.reason} for s in left_out[:SKIPPED_LISTED]]
    out = {"files": files, "chunks": chunks, "skipped": skipped, "elapsedMs": round(elapsed_ms, 1)}
    if len(left_out) > len(skipped):
        out["skippedMore"] = len(left_out) - len(skipped)
    return out


def to_wire_status(status) -> dict:
    from datetime import datetime, timezone

    def iso(ts):
        return datetime.fromtimestamp(ts, timezone.utc).isoformat() if ts else None

    return {
        "folders": [{
            "uri": path_to_uri(f.folder), "files": f.files, "chunks": f.chunks, "pending": f.pending,
            "pendingVectors": f.pending_vectors, "pendingWindows": f.pending_windows,
            "embeddingLoading": f.embedding_loading, "storedPendingVectors": f.stored_pending_vectors,
            "lastIndexedAt": iso(f.last_indexed_at),
            "indexPath": str(f.index_path), "writer": f.writer,
            "skipped": [{"path": display_path(p), "reason": r} for p, r in f.skipped],
            **({"skippedMore": f.skipped_more} if f.skipped_more else {}),  # left out beyond those listed
            **({"writerProcess": f.writer_process} if f.writer_process else {}),
        } for f in status.folders],
        "embeddingModel": status.embedding_model,
        **({"embeddingSource": status.embedding_source} if status.embedding_source else {}),
        **({"embeddingRequested": status.embedding_requested}
           if status.embedding_requested and status.embedding_requested != status.embedding_model else {}),
        "store": status.store,
        "fingerprint": status.fingerprint,
        "generation": status.generation,
        "errors": status.errors,
        "llmCalls": {"steps": getattr(status, "llm_calls", {})},
        "notices": list(getattr(status, "notices", [])),
        "noticeLevels": list(getattr(status, "notice_levels", [])),
        **({"embeddingMaxLength": status.max_length} if getattr(status, "max_length", None) else {}),
    }


def _iso(ts: float | None) -> str | None:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(ts, timezone.utc).isoformat() if ts else None


def to_wire_rag(info) -> dict:
    """A rag/list entry (docs/protocol.md): name, sources, files, chunks, pendingVectors, lastIndexedAt, errors,
    plus kind, skipped, origin and indexPath. A source holding a credential (`https://user:token@host/`,
    `?token=…`) is listed masked (`redact.url_credential`), as its skipped entry says it: never the value."""
    sources = [url_credential(source) or source for source in info.sources]
    out = {"name": info.name, "sources": sources, "files": info.files, "chunks": info.chunks,
           "pendingVectors": info.pending_vectors, "lastIndexedAt": _iso(info.last_indexed_at),
           "errors": list(info.errors), "kind": info.kind,
           "skipped": [{"path": p, "reason": r} for p, r in info.skipped]}
    if info.origin:
        out["origin"] = info.origin
    if info.index_path:
        out["indexPath"] = info.index_path
    return out


def to_wire_rag_rebuild(report, info, elapsed_ms: float) -> dict:
    """rag/rebuild {rag} result: the RAG's totals after the rebuild and what this run skipped."""
    return {"rag": info.name, "files": info.files, "chunks": info.chunks,
            "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped],
            "elapsedMs": round(elapsed_ms, 1)}


def to_wire_commit(result) -> dict:
    return {"message": result.message, "truncated": result.truncated, "files": list(result.files)}
