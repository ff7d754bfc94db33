"""ragls: a retrieval-augmented generation language server.

Data flows one way: sources -> chunks -> embeddings -> stores -> retrieval -> answer -> LSP.
"""

import os
import sys

__version__ = "0.1.0"

# ONNX Runtime 1.29+ sends usage telemetry to Microsoft (mobile.events.data.microsoft.com) on Linux and macOS from
# its first session, with any folder, trusted or not (seen by tests/e2e/test_trust_network.py through a recording
# HTTPS proxy). Its documented opt-out, read once when ONNX Runtime initialises, so set before any model loads;
# a user who sets the variable keeps their own value (docs/security.md).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

# httpx's package `__init__` imports its command-line client (`httpx._main`: click, rich and pygments) whenever those
# are installed (click comes with huggingface_hub, rich with import-linter): ~0.1 CPU-s in every ragls process that
# loads the embedding model (fastembed -> huggingface_hub -> httpx), for a command ragls never runs. Marked as not
# importable before anything imports httpx, httpx falls back to its own stub `httpx.main`; the rest of httpx is
# unchanged (tests/integration/test_httpx_without_cli.py). Nothing changes once httpx is imported.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)
