"""Shared pytest fixtures. Keep each fixture small; add yours below."""

from __future__ import annotations

import pytest
from llm_server import LLMServer


@pytest.fixture
def llm_server():
    """A running loopback OpenAI- and Anthropic-compatible server (see tests/llm_server.py); stopped afterwards."""
    with LLMServer() as server:
        yield server
