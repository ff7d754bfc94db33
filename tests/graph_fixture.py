"""Graph RAG fixture shared by tests/integration/test_graph.py and tests/e2e/test_graph_e2e.py: documents, the
fixed extraction JSON the loopback LLM server answers per chunk, and a folder writer with its ragls.toml.

Graph: ferris.md states Ferris -LIKES-> Zorblax; zorblax.md states Zorblax -MADE_FROM-> Kelp; kelp.md mentions
Kelp (and Rocky coasts); babble.md gets a reply that is not JSON. zorblax.md shares no word with QUESTION.
"""

from __future__ import annotations

import json

from llm_server import LLMServer, Reply
from ragls.config.trust import trust as trust_folder

QUESTION = "What does Ferris like?"

DOCS = {
    "ferris.md": "# Ferris\n\nFerris the crab is the mascot of the project. Ferris loves Zorblax above all.\n",
    "zorblax.md": "# Zorblax\n\nZorblax: a crustacean delicacy made from kelp, served cold.\n",
    "kelp.md": "# Kelp\n\nKelp forests grow along rocky coasts.\n",
    "babble.md": "# Babble\n\nThis note makes the extraction model babble instead of answering.\n",
    "deploy.md": "# Deployment\n\nDeployments run through the staging cluster before production.\n",
    "tokens.md": "# Tokens\n\nAccess tokens expire after one hour; refresh them with the refresh endpoint.\n",
    "oncall.md": "# On-call\n\nThe on-call rotation changes every Monday morning.\n",
    "retries.md": "# Retries\n\nFailed requests are retried three times with exponential backoff.\n",
    "likes.md": "# Preferences\n\nWhat users like does not matter here: the project mascot is chosen by vote.\n",
}

EMPTY = {"entities": [], "relationships": []}
EXTRACTIONS = {
    "Ferris loves Zorblax": {
        "entities": [{"name": "Ferris", "type": "PERSON", "description": "the crab mascot"},
                     {"name": "Zorblax", "type": "OTHER", "description": "what Ferris loves"}],
        "relationships": [{"from": "Ferris", "to": "Zorblax", "type": "LIKES", "weight": 2}]},
    "Zorblax: a crustacean": {
        "entities": [{"name": "zorblax", "type": "OTHER", "description": "a crustacean delicacy"},
                     {"name": "Kelp", "type": "OTHER", "description": "an ingredient"}],
        "relationships": [{"from": "Zorblax", "to": "Kelp", "type": "MADE_FROM", "weight": 1}]},
    "Kelp forests": {
        "entities": [{"name": "Kelp", "type": "OTHER", "description": "seaweed forests"},
                     {"name": "Rocky coasts", "type": "LOCATION", "description": ""}],
        "relationships": [{"from": "Kelp", "to": "Rocky coasts", "type": "GROWS_ALONG", "weight": 1}]},
}


def extraction_handler(req):
    text = req.last_user_text()
    if "model babble" in text:
        return Reply(text="Sure! The entities are Ferris and maybe Zorblax. {not json")
    for marker, result in EXTRACTIONS.items():
        if marker in text:
            return Reply(text="```json\n" + json.dumps(result) + "\n```")
    return Reply(text=json.dumps(EMPTY))


def sent_files(server: LLMServer) -> list[str]:
    """Which fixture files' chunks the server received (known by their heading line), one entry per request."""
    out = []
    for req in server.requests:
        text = req.last_user_text()
        out.append(next((name for name, body in DOCS.items() if body.split("\n")[0] + "\n" in text), "?"))
    return sorted(out)


def write_folder(root, server: LLMServer, hops: int = 1, extra: str = ""):
    root.mkdir(parents=True, exist_ok=True)
    for name, body in DOCS.items():
        (root / name).write_text(body)
    (root / "ragls.toml").write_text(f"""
rag_extractor_model = "extractor-test"
rag_graph_hops = {hops}
[generation]
backend = "openai"
base_url = "{server.openai_url}"
max_retries = 0
[index]
path = "{(root.parent / (root.name + '-index')).as_posix()}"
{extra}
""")
    trust_folder(root)  # the user trusts this test's own folder (ragls/config/trust.py)
    return root
