"""`ragls mcp`'s path to its first answer on an indexed folder loads none of the vector stack: the answer comes
from SQLite + tantivy (BM25) once the MCP SDK is imported, and the embedding model (fastembed, onnxruntime, numpy),
LanceDB (pyarrow) and the language server's wire models load only after it (ragls/workspace/live.py `hold_vectors`). A
regression guard on what is imported, run in a fresh interpreter on a real index; no timing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from clikit import ragls

FIXTURE_DOCS = Path(__file__).resolve().parents[1] / "fixtures" / "docs"

# Not needed for a BM25 answer; each costs start-up CPU that competes with the MCP SDK's import. markdown-it is
# not listed: the answer names the section holding each passage's cited lines (index.titles.focus_title), and for
# a Markdown chunk of several sections that parses its headings (about 45 ms to import, once per process).
VECTOR_STACK = ["numpy", "onnxruntime", "fastembed", "tokenizers", "lancedb", "pyarrow",
                "ragls.lsp.wire", "lsprotocol", "pygls", "networkx", "ragls.stores.vectors"]

# The start-up path of `ragls mcp FOLDER` (cli.cmd_mcp) up to the first search_docs result, without serving
# stdio: the SDK is imported, then the index opens on its thread (vectors held) while the server is built, then one
# BM25 search through the tool's own code.
START = """
import json, sys
from ragls.cli import app as cli
args = cli.build_parser().parse_args(["mcp", sys.argv[1]])
from ragls.mcp.server import RaglsTools, build_server
live, _ = cli._start_live(args, hold_vectors=True)
build_server(live)
ws = live.get_indexed(120)
result = RaglsTools._search(ws, "How long does the first retry wait?", 3, None)
modules = [m for m in sys.argv[2:] if m in sys.modules]
print(json.dumps({"results": result.structured_content["results"], "loaded": modules,
                  "vectors_ready": [idx.vectors_ready for idx in ws.indexes]}))
live.close()
"""


def test_first_answer_loads_no_vector_stack(tmp_path):
    ws = tmp_path / "docs"
    shutil.copytree(FIXTURE_DOCS, ws)
    env = dict(os.environ, RAGLS_CACHE_DIR=str(tmp_path / "cache"), RAGLS_OFFLINE="1", HF_HUB_OFFLINE="1")
    ragls(env, "index", ws)  # in-process (clikit); the start below is a process of its own: its imports are checked
    out = subprocess.run([sys.executable, "-c", START, str(ws), *VECTOR_STACK], env=env, check=True,
                         capture_output=True, text=True, timeout=300)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["results"][0]["path"] == "guide/retries.md"
    assert "200 milliseconds" in data["results"][0]["text"]
    assert data["vectors_ready"] == [False]  # BM25 answered; the model was never loaded
    assert data["loaded"] == []
