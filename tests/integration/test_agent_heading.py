"""MCP search_docs / ask_docs name a passage by the section holding its cited lines, as rag/query and rag/ask do
(`index.titles.focus_title`): a reST chunk packs sibling sections and is titled by the first, so on urllib3's docs
MCP said "advanced-usage.rst:307-308 — Your proxy appears to only use HTTP and not HTTPS" where the CLI and the
editors said "SOCKS Proxies". Real stores and the offline model."""

from __future__ import annotations

import pytest
from ragls.answer.agent_tools import ask_result, search_result
from ragls.embedding.embed import offline_model_dir
from ragls.lsp.wire import to_wire_chunk
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

PROXIES = """Proxies
=======

You can use a proxy manager to tunnel requests through an HTTP proxy. The proxy
manager keeps one connection pool per origin and reuses it for later requests.
Both plain and TLS origins are supported through the same proxy manager object.

SOCKS Proxies
-------------

For SOCKS, you can use the socks proxy manager to connect to SOCKS4 or SOCKS5
proxies. Install the PySocks package first, then pass a socks5h URL to the manager.
"""


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGLS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGLS_OFFLINE", "1")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "advanced.rst").write_text(PROXIES)
    ws = RagWorkspace([folder])
    ws.index()
    yield ws
    ws.close()


def test_search_and_ask_name_the_section_of_the_cited_lines(ws):
    hits = ws.query("connect to SOCKS5 proxies with PySocks", 1).hits
    assert hits[0].chunk.title == "Proxies" and hits[0].focus is not None  # one chunk, titled by its first section
    wire = to_wire_chunk(hits[0])
    assert wire["source"]["title"] == "SOCKS Proxies"  # what rag/query (CLI, editors) shows

    _, data = search_result(ws, "connect to SOCKS5 proxies with PySocks", 1)
    top = data["results"][0]
    assert (top["start_line"], top["heading"]) == (wire["source"]["focusRange"]["start"]["line"] + 1, "SOCKS Proxies")

    text, data = ask_result(ws, "How do I connect to SOCKS5 proxies?")
    cited = [s for s in data["sources"] if s["start_line"] >= 11]
    assert cited and all(s["heading"] == "SOCKS Proxies" for s in cited), data["sources"]
    assert "— SOCKS Proxies" in text
