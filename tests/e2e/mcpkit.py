"""Helpers for `ragls mcp` end-to-end tests: the MCP SDK's own client talking to `python -m ragls mcp` over stdio.

The SDK's stdio client lives in anyio cancel scopes that must be entered and left by one task, so `McpProcess`
runs the session in a task of its own and hands calls to it; tests and module-scoped fixtures use it from any task.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lspkit import server_env

if TYPE_CHECKING:
    from mcp import ClientSession

MCP_COMMAND = [sys.executable, "-m", "ragls", "mcp"]


class McpProcess:
    """A running `ragls mcp FOLDER...` with an initialized ClientSession (`session`), started by `start()` and
    stopped by `stop()` (stdin closed; the server exits and releases its index locks)."""

    def __init__(self, folders: list[Path], cache: Path, extra_env: dict[str, str] | None = None,
                 cwd: Path | None = None, args: list[str] | None = None):
        # The SDK imported here and in _run: every xdist worker imports this module to collect the suite, and
        # `import mcp` costs ~0.55 CPU-s.
        from mcp import StdioServerParameters

        env = server_env(cache)
        env.update(extra_env or {})
        self.params = StdioServerParameters(command=MCP_COMMAND[0], args=[*MCP_COMMAND[1:], *(args or []),
                                                                          *map(str, folders)],
                                            env=env, cwd=str(cwd) if cwd else None)
        self.session: ClientSession | None = None
        self.init = None
        self._ready = asyncio.Event()
        self._done = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._error: BaseException | None = None

    async def start(self, timeout: float = 60.0) -> McpProcess:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._ready.wait(), timeout)
        if self._error is not None:
            raise self._error
        return self

    async def _run(self) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        try:
            async with stdio_client(self.params) as (read, write), ClientSession(read, write) as session:
                self.init = await session.initialize()
                self.session = session
                self._ready.set()
                await self._done.wait()
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self._error = exc
        finally:
            self._ready.set()

    async def stop(self) -> None:
        self._done.set()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, 30)

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, timeout: float = 120.0):
        """CallToolResult of a tool call."""
        return await asyncio.wait_for(self.session.call_tool(tool, arguments or {}), timeout)

    async def data(self, tool: str, arguments: dict[str, Any] | None = None) -> dict:
        """structuredContent of a successful tool call (fails the test on an error result)."""
        result = await self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content


@contextlib.asynccontextmanager
async def mcp_server(folders: list[Path], cache: Path, **kwargs):
    proc = await McpProcess(folders, cache, **kwargs).start()
    try:
        yield proc
    finally:
        await proc.stop()


async def wait_mcp_indexed(proc: McpProcess, files: int | None = None, timeout: float = 240.0) -> dict:
    """Poll index_status until nothing is queued, every chunk has its vector and (optionally) `files` are indexed."""
    deadline = asyncio.get_running_loop().time() + timeout
    status: dict = {}
    while asyncio.get_running_loop().time() < deadline:
        status = await proc.data("index_status")
        folders = status["folders"]
        done = all(f["pending_files"] == 0 and f["pending_vectors"] == 0 and f["last_indexed_at"] for f in folders)
        if done and (files is None or sum(f["files"] for f in folders) == files):
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"index not ready in {timeout} s: {status}")
