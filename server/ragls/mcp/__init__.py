"""`ragls mcp`: the workspace index as a Model Context Protocol server (stdio) on the official `mcp` SDK (`server`).
Absolute imports inside this package (`from mcp.server import MCPServer`) name the SDK, never this package."""
