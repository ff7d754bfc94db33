"""One async function per `rag/*` method (and `ragls.*` command; lsp/server.py `METHODS` maps them, and imports this
module on the first request): parse params, run the workspace operation off the event loop, convert the result to
the wire. RaglsErrors become JSON-RPC errors (see lsp/errors.py)."""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from typing import TYPE_CHECKING, Any, Protocol

from ragls.answer import agent_tools
from ragls.config.setting_names import name_setting_files, name_settings
from ragls.core.errors import Cancelled, NotReady, RaglsError
from ragls.lsp.errors import to_jsonrpc
from ragls.lsp.wire import (
    AskParams,
    AskToolArgs,
    CommitParams,
    ModelsParams,
    QueryParams,
    ReadPassageParams,
    ReadToolArgs,
    RebuildParams,
    SearchToolArgs,
    ToolParams,
    parse,
    to_wire_answer,
    to_wire_commit,
    to_wire_models,
    to_wire_passage,
    to_wire_query,
    to_wire_rag,
    to_wire_rag_rebuild,
    to_wire_rebuild,
    to_wire_status,
    to_wire_tool,
)
from ragls.sources.passage import read_passage

if TYPE_CHECKING:
    from ragls.workspace.rag_workspace import RagWorkspace


class RaglsServer(Protocol):
    """What the handlers use of the language server (`lsp/server.RaglsServer`, which registers them — so this
    module does not import it): the open workspace, `$/progress` sending, the index worker."""

    progress_sender: Any  # lsp/progress.ProgressSender
    worker: Any  # watch.IndexWorker, None before the workspace is open
    client_name: str | None  # `initialize` clientInfo.name
    live: Any  # workspace.live.LiveWorkspace, None before `initialize`

    async def get_workspace(self) -> RagWorkspace: ...

    def client_settings(self) -> dict[str, Any]: ...


def for_editor(ls: RaglsServer, message: str) -> str:
    """`message` with the settings it names called what the user set (config/setting_names.py): one a file set
    (the user's ragls.toml, a trusted folder's) and the editor did not override named with that file
    (`name_setting_files`, the open workspace's `setting_files`: "generation.backend in
    ~/.config/ragls/ragls.toml"), as `RagWorkspace.ask` names the LLM-down error's; one the editor sent as the
    editor calls it ("the VS Code setting ragls.generation.baseUrl"); any other as "X in ragls.toml or <the
    editor's setting>" (`name_settings`). Without an open workspace (still opening, failed) no file is named."""
    live = getattr(ls, "live", None)
    ws = live.ws if live is not None else None
    named = name_setting_files(message, ws.setting_files) if ws is not None else message
    return name_settings(named, ls.client_settings(), getattr(ls, "client_name", None))


def rpc_errors(fn):
    """Raise RaglsErrors as their JSON-RPC counterparts, the settings they name called what the editor calls them
    (`for_editor`); other exceptions become -32603 (pygls)."""

    @functools.wraps(fn)
    async def wrapper(ls, *args, **kwargs):
        try:
            return await fn(ls, *args, **kwargs)
        except RaglsError as exc:
            raise to_jsonrpc(exc, lambda message: for_editor(ls, message)) from None

    return wrapper


@rpc_errors
async def rag_query(ls: RaglsServer, params: Any) -> dict:
    p = parse(QueryParams, params)
    ws = await ls.get_workspace()
    result = await asyncio.to_thread(ws.query, p.query, p.top_k, p.rag, p.expand)
    return to_wire_query(result, p.explain)


@rpc_errors
async def rag_ask(ls: RaglsServer, params: Any) -> dict:
    """Each ask runs in its own thread with its own cancel event and tokens; `$/cancelRequest` makes pygls answer
    -32800 at once and cancels this coroutine, which sets the event: the LLM stream is closed (see
    `ChatModel._stream`) and nothing more is streamed to the client."""
    p = parse(AskParams, params)
    ws = await ls.get_workspace()
    cancel = threading.Event()
    on_delta = None
    if p.partial_result_token is not None:
        token = p.partial_result_token

        def on_delta(piece: str) -> None:
            if cancel.is_set():  # never stream into a request the client has cancelled
                raise Cancelled("cancelled")
            ls.progress_sender.partial(token, {"delta": piece})

    if p.work_done_token is not None:
        ls.progress_sender.partial(p.work_done_token, {"kind": "begin", "title": "ragls: asking"})
    history = [m.model_dump() for m in p.history] if p.history else None
    try:
        answer = await asyncio.to_thread(ws.ask, p.question, top_k=p.top_k, rag=p.rag, documents=p.documents,
                                         history=history, on_delta=on_delta, cancel=cancel, expand=p.expand)
    except asyncio.CancelledError:
        cancel.set()  # stops the generation thread at its next delta
        raise
    finally:
        if p.work_done_token is not None:
            ls.progress_sender.partial(p.work_done_token, {"kind": "end"})
    wire = to_wire_answer(answer)
    if "error" in wire:  # the LLM failed: its message names the setting to fix as the editor calls it
        wire["error"]["message"] = for_editor(ls, wire["error"]["message"])
    return wire


@rpc_errors
async def rag_rebuild(ls: RaglsServer, params: Any) -> dict:
    p = parse(RebuildParams, params)
    ws = await ls.get_workspace()
    if p.rag:
        ws._targets(p.rag)  # an unknown name: -32602 listing the known ones
    if p.rag and p.rag != "workspace" and p.rag in ws.rags.specs:
        t0 = time.perf_counter()
        report, info = await asyncio.to_thread(ws.rebuild_rag, p.rag)
        return to_wire_rag_rebuild(report, info, (time.perf_counter() - t0) * 1000)
    target = p.workspace_folder or (p.rag if p.rag != "workspace" else None)
    folder = ws.folder_index(target) if target else None
    t0 = time.perf_counter()
    if p.work_done_token is not None:
        ls.progress_sender.partial(p.work_done_token, {"kind": "begin", "title": "ragls: rebuilding"})
    try:
        worker = ls.worker  # the writer thread of this very workspace (a reopen in between has its own)
        if worker is None or worker.ws is not ws:
            raise NotReady("the workspace is reopening; try again")
        reports = await asyncio.wrap_future(worker.submit(lambda: ws.rebuild(folder), "from scratch"))
    finally:
        if p.work_done_token is not None:
            ls.progress_sender.partial(p.work_done_token, {"kind": "end"})
    return to_wire_rebuild(reports, ws.folders, (time.perf_counter() - t0) * 1000, ws)


@rpc_errors
async def rag_list(ls: RaglsServer, params: Any) -> list:
    ws = await ls.get_workspace()
    return [to_wire_rag(info) for info in await asyncio.to_thread(ws.rag_list)]


@rpc_errors
async def rag_status(ls: RaglsServer, params: Any) -> dict:
    ws = await ls.get_workspace()
    return to_wire_status(await asyncio.to_thread(ws.status))


@rpc_errors
async def rag_commit_message(ls: RaglsServer, params: Any) -> dict:
    p = parse(CommitParams, params)
    ws = await ls.get_workspace()
    result = await asyncio.to_thread(ws.commit_message, p.repository, p.staged, p.style)
    return to_wire_commit(result)


@rpc_errors
async def rag_read_passage(ls: RaglsServer, params: Any) -> dict:
    """Exact lines of an indexed file, by the same rules as the MCP tool `read_passage` (only files the index holds,
    inside its folders; at most 400 lines). The VS Code language-model tool `ragls_read_passage` uses it."""
    p = parse(ReadPassageParams, params)
    ws = await ls.get_workspace()
    return to_wire_passage(await asyncio.to_thread(read_passage, ws.indexes, p.path, p.start_line, p.end_line))


@rpc_errors
async def rag_tool(ls: RaglsServer, params: Any) -> dict:
    """One agent tool (docs/protocol.md `rag/tool`): the text and data the MCP tool of that name returns
    (`answer.agent_tools`, which quotes document text with `quote_passage`), so VS Code's language-model tools
    only pass it on. Invalid arguments: -32602 naming the field; a cancelled ask stops its generation."""
    p = parse(ToolParams, params)
    name = p.name.removeprefix("ragls_")
    ws = await ls.get_workspace()
    if name in ("search", "search_docs"):
        a = parse(SearchToolArgs, p.arguments)
        return to_wire_tool(await asyncio.to_thread(agent_tools.search_result, ws, a.query, a.top_k, a.rag, a.expand))
    if name in ("ask", "ask_docs"):
        a = parse(AskToolArgs, p.arguments)
        cancel = threading.Event()
        try:
            return to_wire_tool(await asyncio.to_thread(agent_tools.ask_result, ws, a.question, a.top_k, a.rag,
                                                        a.expand, cancel))
        except asyncio.CancelledError:
            cancel.set()
            raise
    if name == "read_passage":
        a = parse(ReadToolArgs, p.arguments)
        return to_wire_tool(await asyncio.to_thread(agent_tools.read_result, ws, a.path, a.start_line, a.end_line))
    return to_wire_tool(await asyncio.to_thread(agent_tools.status_result, ws, "this editor's language server"))


@rpc_errors
async def rag_models(ls: RaglsServer, params: Any) -> dict:
    """The LLM servers a guided set-up can offer (docs/protocol.md `rag/models`): with `baseUrl`, that one server's
    `GET /models` (no key first); without, the local runtimes listening on their default ports. Needs no workspace."""
    from ragls.llm.local import discover, models_at

    p = parse(ModelsParams, params)
    if p.base_url:
        probe = await asyncio.to_thread(models_at, p.base_url, p.api_key_env)
        return to_wire_models([probe])
    found = await asyncio.to_thread(discover)
    return to_wire_models(found)

