"""`ragls mcp`: the workspace index as a Model Context Protocol server (stdio), on the official `mcp` SDK.

Tools (input schemas from the annotated signatures below; descriptions are written for a model):
  search_docs {query, top_k?, rag?, expand?}  ranked passages: path, 1-based start_line-end_line, heading, text,
                                            score (`expand`: multi-query expansion by the LLM for this call)
  ask_docs {question, top_k?, rag?, expand?}  an answer citing numbered, verified sources (LLM or extractive)
  read_passage {path, start_line?, end_line?}  exact lines of an indexed file; nothing outside the indexed folders
  index_status {}                           folders, files, chunks, pending work, skipped files, model, writer
Resources: one `file://` resource per indexed file (`resources/list`, `resources/read`).

Every tool result carries a text block for the model and the same data as `structuredContent`. Document text in
the text block is quoted inside `<passage>` elements (`answer.template.quote_passage` via `answer.agent_tools`, which `rag/tool` shares; the one quoting function
the LLM prompt uses too) under a note that it is data, not instructions; only
indexed files are ever read (the index already leaves out excluded and secret files, and `RagWorkspace.retrieve`
checks hits against the current source filter again), so an excluded or secret file never reaches an agent.

The index is the one the editors use (same index dir, same lock), served by the same lifecycle as the editor's
(`ragls.workspace.live.LiveWorkspace`: reader / writer roles, named-RAG sync, reopen on a `ragls.toml` change).
Logging goes to stderr; the SDK points fd 1 at stderr while it serves, so stray output never corrupts the wire.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Resource as MCPResource
from pydantic import Field, ValidationError

from ragls import __version__
from ragls.answer import agent_tools
from ragls.answer.agent_tools import hit_lines, hit_record, line_range  # noqa: F401 (re-exported)
from ragls.answer.template import DATA_NOTE
from ragls.core.errors import INTERNAL, InvalidParams, RaglsError, error_kind, invalid_params, to_wire_error
from ragls.core.uris import path_to_uri
from ragls.mcp.stdio import answering_stdio_server
from ragls.sources.passage import MAX_PASSAGE_CHARS, MAX_PASSAGE_LINES, read_indexed_text, resolve_indexed
from ragls.workspace.live import LiveWorkspace

log = logging.getLogger(__name__)

# The embedding model loads after the first tool answer, or this long after the server starts serving if no tool
# is called before: the first answer (BM25) does not share the CPU with the model load (LiveWorkspace.hold_vectors).
VECTORS_AFTER_S = 2.0
VECTORS_AFTER_ENV = "RAGLS_TEST_VECTORS_AFTER_S"  # test hook: another delay than VECTORS_AFTER_S (seconds)


INSTRUCTIONS = (
    "ragls indexes the documentation and text files of this project (hybrid BM25 + embedding search, kept fresh "
    "as files change). Use search_docs to find passages with exact file paths and line numbers, read_passage to "
    "read more lines around a hit, ask_docs for a short answer with numbered citations, and index_status to see "
    "what is indexed. " + DATA_NOTE)

SEARCH_DESCRIPTION = (
    "Search the project's indexed documents (docs, READMEs, notes, text files) for passages relevant to a "
    "natural-language query or keywords. Returns up to top_k passages, best first, each with its file path, 1-based "
    "start_line-end_line (the most relevant lines when known), heading path, score and text. 'abstained': true "
    "means nothing relevant enough was found - do not rely on the weak matches. Prefer this over grepping when "
    "the wording in the documents is unknown; cite results as path:start_line.")
ASK_DESCRIPTION = (
    "Answer a question from the project's indexed documents. Returns a short answer citing numbered sources [n] "
    "(path and lines each); citations are checked against the source text and unsupported ones are flagged. Uses "
    "the configured LLM, or quotes the most relevant sentences when none is configured. Use search_docs instead "
    "when you want to read the passages yourself.")
READ_DESCRIPTION = (
    "Read exact lines of an indexed file, e.g. to see more context around a search_docs hit. 'path' is the path "
    "shown by search_docs (relative to its indexed folder), an absolute path or a file:// URI inside an indexed "
    f"folder. Lines are 1-based and inclusive; at most {MAX_PASSAGE_LINES} lines and {MAX_PASSAGE_CHARS:,} "
    "characters per call (a longer line is cut, and the result says so). Files outside the indexed folders, and "
    "files the index leaves out (ignored, excluded, secret, binary), are refused.")
STATUS_DESCRIPTION = (
    "Report what is indexed: folders, file and chunk counts, files still queued, chunks still waiting for "
    "embeddings, skipped files with the reason, the embedding model, the answer backend, and which process writes "
    "the index (this one, or an editor's language server).")

Rag = Annotated[str | list[str] | None, Field(
    description="Limit the search to named knowledge bases (`[rags.*]` in the user's config) or indexed folders "
                "(name or path, as listed by index_status): one name or a list. Default: the project's folders.")]

Expand = Annotated[bool | None, Field(
    description="Multi-query expansion for this call: true has the project's LLM write paraphrases of the query "
                "and searches them too (one extra LLM call; finds passages worded differently from the query), "
                "false turns it off. Default: the project's setting (retrieval.expand_n). Without a configured "
                "LLM it changes nothing.", strict=True)]


def _result(text_data: tuple[str, dict[str, Any]]) -> CallToolResult:
    text, data = text_data
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def tool_error(exc: BaseException) -> CallToolResult:
    """The `isError` tool result for `exc`, by the one error mapping of every front (`errors.to_wire_error`): the
    text block is the message a model can act on, `structuredContent.error` the protocol's `{"code", "message"}`
    (-32602 bad arguments, -32803 backend failure or index not ready, -32603 an unexpected error, whose text stays
    in the server log with its traceback and never reaches the agent)."""
    wire = to_wire_error(exc)
    if error_kind(exc) is INTERNAL:
        log.error("tool call failed", exc_info=exc)
    return CallToolResult(content=[TextContent(type="text", text=wire["message"])],
                          structured_content={"error": wire}, is_error=True)


# -- the tools ------------------------------------------------------------------------------------------------
class RaglsTools:
    """The tool and resource implementations over a LiveWorkspace; each runs its workspace work off the event
    loop. Every error is an `isError` result (`tool_error`, the mapping LSP, the socket and HTTP use too)."""

    def __init__(self, live: LiveWorkspace):
        self.live = live

    async def _ws(self, indexed: bool = True):
        """The open workspace; `indexed`: also wait for a never-indexed folder's first text phase."""
        return await asyncio.to_thread(self.live.get_indexed if indexed else self.live.get)  # live.OPEN_TIMEOUT_S

    async def _run(self, fn, *args, **kwargs):
        try:
            with self.live.request():  # the workspace and named RAGs it uses are not closed under it
                ws = await self._ws(indexed=fn is not self._status)
                return await asyncio.to_thread(fn, ws, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - every failure is an `isError` result, the server keeps serving
            return tool_error(exc)
        finally:
            self.live.release_vectors()  # the first answer is out: the embedding model may load now

    # search_docs ------------------------------------------------------------------------------------------
    async def search_docs(
        self,
        query: Annotated[str, Field(description="What to look for: a question, a phrase or keywords, in plain words "
                                                "(no query syntax).", min_length=1)],
        top_k: Annotated[int | None, Field(description="How many passages to return (default: the project's "
                                                       "retrieval.top_k, usually 5).", ge=1, le=50)] = None,
        rag: Rag = None,
        expand: Expand = None,
    ) -> CallToolResult:
        return await self._run(self._search, query, top_k, rag, expand)

    @staticmethod
    def _search(ws, query: str, top_k: int | None, rag, expand: bool | None = None) -> CallToolResult:
        return _result(agent_tools.search_result(ws, query, top_k, rag, expand))

    # ask_docs ---------------------------------------------------------------------------------------------
    async def ask_docs(
        self,
        question: Annotated[str, Field(description="The question to answer from the documents, in plain words.",
                                       min_length=1)],
        top_k: Annotated[int | None, Field(description="How many passages the answer may draw on (default: the "
                                                       "project's retrieval.top_k).", ge=1, le=50)] = None,
        rag: Rag = None,
        expand: Expand = None,
    ) -> CallToolResult:
        return await self._run(self._ask, question, top_k, rag, expand)

    @staticmethod
    def _ask(ws, question: str, top_k: int | None, rag, expand: bool | None = None) -> CallToolResult:
        return _result(agent_tools.ask_result(ws, question, top_k, rag, expand))

    # read_passage -----------------------------------------------------------------------------------------
    async def read_passage(
        self,
        path: Annotated[str, Field(description="The file: a path as returned by search_docs (relative to its "
                                               "indexed folder), an absolute path or a file:// URI.", min_length=1)],
        start_line: Annotated[int, Field(description="First line to return, 1-based.", ge=1)] = 1,
        end_line: Annotated[int | None, Field(description=f"Last line to return, inclusive (default and maximum: "
                                                          f"start_line + {MAX_PASSAGE_LINES - 1}).", ge=1)] = None,
    ) -> CallToolResult:
        return await self._run(self._read, path, start_line, end_line)

    @staticmethod
    def _read(ws, path: str, start_line: int, end_line: int | None) -> CallToolResult:
        return _result(agent_tools.read_result(ws, path, start_line, end_line))

    # index_status -----------------------------------------------------------------------------------------
    async def index_status(self) -> CallToolResult:
        return await self._run(self._status)

    @staticmethod
    def _status(ws) -> CallToolResult:
        return _result(agent_tools.status_result(ws, "this process (ragls mcp)"))

    # resources --------------------------------------------------------------------------------------------
    async def list_files(self) -> list[MCPResource]:
        with self.live.request():
            try:
                ws = await self._ws()
            except RaglsError:
                return []
            return await asyncio.to_thread(_list_resources, ws)

    async def read_file(self, uri: str) -> str:
        """The text of the indexed file `uri` (masked, `read_indexed_text`). Raises MCPError with the code of the
        one error mapping (`to_wire_error`: -32602 for a URI outside the folders or not indexed, as the tools'),
        not the SDK's -32603 for a resource that fails."""
        try:
            with self.live.request():
                ws = await self._ws()
                idx, rel = await asyncio.to_thread(resolve_indexed, ws.indexes, uri)
                return await asyncio.to_thread(read_indexed_text, idx, rel)
        except RaglsError as exc:
            wire = to_wire_error(exc)
            raise MCPError(code=wire["code"], message=wire["message"], data={"uri": uri}) from None


def _list_resources(ws) -> list[MCPResource]:
    out = []
    for idx in ws.indexes:
        if not idx.writer:
            idx.refresh()
        for rel in sorted(idx.manifest.files()):
            if idx.filter.included(rel):
                out.append(MCPResource(uri=path_to_uri(idx.folder / rel), name=rel, mime_type=_mime(rel),
                                       description=f"indexed file of {idx.folder.name}"))
    return out


def _mime(rel: str) -> str:
    suffix = Path(rel).suffix.lower()
    return {".md": "text/markdown", ".markdown": "text/markdown", ".rst": "text/x-rst", ".html": "text/html",
            ".htm": "text/html", ".json": "application/json"}.get(suffix, "text/plain")


# -- the server -----------------------------------------------------------------------------------------------
class RaglsMCP(MCPServer):
    """MCPServer whose resources are the indexed files at the time of the request (not a static list)."""

    def __init__(self, tools: RaglsTools, **kwargs):
        super().__init__(**kwargs)
        self.ragls = tools

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        """MCPServer.call_tool, with arguments that fail the tool's schema answered like every other bad request
        (`tool_error(InvalidParams)`: "search_docs: query: Field required", `structuredContent.error` -32602)
        instead of the SDK's pydantic dump ("1 validation error for search_docsArguments … visit
        https://errors.pydantic.dev/…")."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            bad = invalid_params(exc.__cause__.errors())
            return tool_error(InvalidParams(f"{name}: {bad}; the tool's input schema lists its arguments"))

    async def list_resources(self) -> list[MCPResource]:
        return await self.ragls.list_files()

    async def read_resource(self, uri, context=None) -> Iterable:
        from mcp.server.lowlevel.helper_types import ReadResourceContents

        text = await self.ragls.read_file(str(uri))
        return [ReadResourceContents(content=text, mime_type=_mime(str(uri)))]

    async def run_stdio_async(self) -> None:
        """MCPServer.run_stdio_async on the SDK's stdio transport, with unreadable lines answered -32700 / -32600
        instead of dropped (`mcp.stdio.answering_stdio_server`)."""
        async with answering_stdio_server() as (read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream,
                                            self._lowlevel_server.create_initialization_options())


def build_server(live: LiveWorkspace) -> RaglsMCP:
    """The MCP server over `live` (started by the lifespan, closed when the client disconnects)."""
    tools = RaglsTools(live)

    @asynccontextmanager
    async def lifespan(_server):
        # Start-up is over: what it allocated (modules, the SDK's pydantic models) lives as long as the process,
        # so later collections skip it; cyclic GC back on (`ragls mcp` turns it off while it starts).
        gc.freeze()
        gc.enable()
        live.start()
        delay = float(os.environ.get(VECTORS_AFTER_ENV) or VECTORS_AFTER_S)
        timer = asyncio.get_running_loop().call_later(delay, live.release_vectors)
        try:
            yield {}
        finally:
            timer.cancel()
            await asyncio.to_thread(live.close)

    server = RaglsMCP(tools, name="ragls", title="ragls: project documents",
                      version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan,
                      warn_on_duplicate_resources=False)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)
    server.add_tool(tools.search_docs, name="search_docs", title="Search project documents",
                    description=SEARCH_DESCRIPTION, annotations=read_only, structured_output=False)
    server.add_tool(tools.ask_docs, name="ask_docs", title="Answer from project documents",
                    description=ASK_DESCRIPTION, annotations=ToolAnnotations(read_only_hint=True,
                                                                             destructive_hint=False),
                    structured_output=False)
    server.add_tool(tools.read_passage, name="read_passage", title="Read lines of an indexed file",
                    description=READ_DESCRIPTION, annotations=read_only, structured_output=False)
    server.add_tool(tools.index_status, name="index_status", title="Index status",
                    description=STATUS_DESCRIPTION, annotations=read_only, structured_output=False)
    return server


def run(live: LiveWorkspace) -> None:
    """Serve MCP on stdio over `live` (started here if the caller has not started it) until the client closes
    stdin; then the index is closed and its writer lock released. A `live` built with `hold_vectors=True` loads
    the embedding model after the first tool answer or `VECTORS_AFTER_S` after serving starts."""
    build_server(live).run("stdio")
