"""ragls: a retrieval-augmented generation language server.

Data flows one way: sources -> chunks -> embeddings -> stores -> retrieval -> answer -> LSP.
"""

import os

__version__ = "0.1.0"

# ONNX Runtime 1.29+ sends usage telemetry to Microsoft (mobile.events.data.microsoft.com) on Linux and macOS from
# its first session, with any folder, trusted or not (seen by tests/e2e/test_trust_network.py through a recording
# HTTPS proxy). Its documented opt-out, read once when ONNX Runtime initialises, so set before any model loads;
# a user who sets the variable keeps their own value (docs/security.md).
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
