"""`ragls status` prints the same facts in-process and through a running `ragls serve` (same index, same moment):
fingerprint, model, the cold-embedding estimate ("embedding:") and the notices ("note:"); `ragls doctor` and
`ragls estimate` give the same figures. The CLI runs in this process (`ragls.cli.app.main`), the server is real."""

from __future__ import annotations

import json
import logging
import re

import pytest
from lspkit import SERVER_COMMAND, copy_docs, init_params, server_env, wait_indexed
from pytest_lsp import ClientServerConfig
from ragls.cli import app as cli


@pytest.fixture
def env(tmp_path, monkeypatch):
    env = server_env(tmp_path / "cache")
    for key in ("RAGLS_CACHE_DIR", "RAGLS_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.setenv(key, env[key])
    return env


def run(capsys, *argv) -> str:
    capsys.readouterr()
    assert cli.main([str(a) for a in argv]) == 0
    return capsys.readouterr().out


def facts(out: str) -> dict[str, list[str]]:
    """The lines of `ragls status` that must not depend on who answers, by their label."""
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        label = line.split(":", 1)[0]
        if label in ("folder", "files", "model", "embedding", "note", "generation", "skipped", "error"):
            found.setdefault(label, []).append(line)
    return found


@pytest.mark.asyncio
async def test_status_is_the_same_served_and_in_process(tmp_path, env, capsys, caplog):
    ws = copy_docs(tmp_path / "docs")
    run(capsys, "index", ws)  # built with the offline model: the server keeps it (a "note:" line)
    client = await ClientServerConfig(server_command=SERVER_COMMAND, server_env=env).start()
    await client.initialize_session(init_params([ws]))
    try:
        await wait_indexed(client)
        with caplog.at_level(logging.DEBUG, logger="ragls.cli.app"):
            served = run(capsys, "status", ws)
        assert "answered by the running server" in caplog.text
        local = run(capsys, "status", ws, "--no-server")
        served_json = json.loads(run(capsys, "status", ws, "--json"))
        local_json = json.loads(run(capsys, "status", ws, "--json", "--no-server"))
    finally:
        await client.shutdown_session()
    assert served_json["fingerprint"] == local_json["fingerprint"]
    assert served_json["notices"] == local_json["notices"] and served_json["notices"]
    assert served_json["embeddingMaxLength"] == local_json["embeddingMaxLength"]
    served_facts, local_facts = facts(served), facts(local)
    assert served_facts == local_facts
    assert {"model", "embedding", "note"} <= set(served_facts)
    assert re.search(r"fingerprint: [0-9a-f]{8,}", served_facts["model"][0])


def test_doctor_and_estimate_agree(tmp_path, env, capsys):
    ws = copy_docs(tmp_path / "docs")
    estimate = json.loads(run(capsys, "estimate", ws, "--json"))
    capsys.readouterr()
    assert cli.main(["doctor", str(ws), "--json"]) in (0, 1)
    doctor = json.loads(capsys.readouterr().out)
    sources = next(c for c in doctor["checks"] if c["name"] == "sources")
    assert (f"{estimate['files']} files to index, ~{estimate['chunks']} sections, "
            f"~{estimate['seconds'] / 60:.1f} min to embed") in sources["message"]
