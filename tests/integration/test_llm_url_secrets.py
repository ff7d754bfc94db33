"""A `generation.base_url` may carry a credential (`https://user:password@gateway/v1`, a gateway's `?api-key=` query):
the LLM's description and every failure that names its URL (the CLI's stderr, rag/ask's note, MCP ask_docs's
`error`, logs) show the URL without it (red team, session 47: a refused connection printed
'openai backend at http://apiuser:Sup3rS3cretPw@127.0.0.1:9/v1?api-key=...'). Real openai and anthropic SDKs
against a loopback port that refuses connections."""

from __future__ import annotations

import pytest
from llm_server import held_port
from ragls.config.settings import GenerationSettings
from ragls.core.errors import RequestFailed
from ragls.llm.chat import make_chat_model

PASSWORD, QUERY_KEY = "Sup3rS3cretPw", "Qx7rTb2Vn9LmK3pW8sYd"


@pytest.mark.parametrize("backend", ["openai", "anthropic", "external"])
def test_a_base_urls_credentials_are_in_no_description_or_error(backend, monkeypatch):
    monkeypatch.setenv("RAGLS_URL_TEST_KEY", "sk-test-notreal0123456789abcdefgh")
    with held_port() as port:
        url = f"http://apiuser:{PASSWORD}@127.0.0.1:{port}/v1?api-key={QUERY_KEY}"
        gen = GenerationSettings(backend=backend, base_url=url, model="m", api_key_env="RAGLS_URL_TEST_KEY",
                                 max_retries=0, timeout_s=5)
        model = make_chat_model(gen)
        assert f"at http://127.0.0.1:{port}/v1" in model.describe()
        with pytest.raises(RequestFailed) as failed:
            model.complete("hello")
    shown = f"{model.describe()} {failed.value}"
    assert PASSWORD not in shown and QUERY_KEY not in shown and "apiuser" not in shown
    assert f"127.0.0.1:{port}" in str(failed.value)
