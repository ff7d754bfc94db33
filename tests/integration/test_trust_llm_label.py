"""An untrusted folder whose ragls.toml names an LLM gets an extractive answer that says why its LLM is not used and
how to trust it (`FolderLayer.ignored_llm`, the wording of the CLI's untrusted-file notice), not "no LLM
configured"; a folder that names none keeps that label. `ragls ask` in this process on a real index, offline model,
no API key in the environment."""

from __future__ import annotations

import json
import os

from clikit import ragls
from llm_server import held_port
from ragls.answer.extractive_label import EXTRACTIVE_LABEL


def env_for(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update({"RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")})
    return env


def test_an_untrusted_folders_llm_is_named_with_how_to_trust_it(tmp_path):
    env = env_for(tmp_path)
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`; it takes two minutes.\n")
    (folder / "ragls.toml").write_text('[generation]\nbackend = "ollama"\nbase_url = "http://127.0.0.1:9/v1"\n'
                                       'model = "llama3"\n')
    answer = json.loads(ragls(env, "ask", folder, "What is the deploy command?", "--json").stdout)
    assert answer["model"] == "extractive" and "make ship" in answer["answer"]
    assert "no LLM configured" not in answer["answer"]
    text = answer["answer"]
    assert f"{folder / 'ragls.toml'}'s LLM settings (generation.backend, generation.base_url, generation.model)" in text
    assert f"are ignored until the folder is trusted: read the file, then run `ragls trust {folder}` to use them" in text

    why = text[text.index(f"{folder / 'ragls.toml'}'s LLM settings"):text.index(" to use them") + len(" to use them")]
    proc = ragls(env, "status", folder)  # the reason once, not "no LLM configured": the warning line names the
    status = proc.stdout  # settings and how to trust the folder (nothing failed: not an error); the generation line
    assert "generation:  none (extractive answers: an untrusted ragls.toml's LLM settings are not used; see the " \
        "warning below)" in status, status  # points at it
    assert not [x for x in status.splitlines() if x.startswith("error:")], status
    error = next(x for x in status.splitlines() if x.startswith("warning:     "))
    assert f"{folder / 'ragls.toml'} is not trusted, so these settings were ignored: generation.backend" in error
    assert f"run `ragls trust {folder}`" in error
    assert "not trusted" not in proc.stderr, proc.stderr  # not a third time on stderr
    wire = json.loads(ragls(env, "status", folder, "--json").stdout)
    assert wire["generation"]["ignored"] == why
    assert [e["severity"] for e in wire["errors"]] == ["warning"]  # docs/protocol.md: clients show it as a warning

    (folder / "ragls.toml").write_text("[retrieval]\ntop_k = 4\n")  # retrieval tuning only: nothing to trust
    answer = json.loads(ragls(env, "ask", folder, "What is the deploy command?", "--json").stdout)
    assert answer["answer"].startswith(EXTRACTIVE_LABEL)
    status = ragls(env, "status", folder)
    assert "generation:  none (extractive answers: no LLM configured)" in status.stdout
    assert "ignored" not in json.loads(ragls(env, "status", folder, "--json").stdout)["generation"]


def test_an_unreachable_vendor_is_named_not_the_ignored_base_url(tmp_path):
    """A user key in the environment picks the vendor's endpoint; the untrusted folder's base_url is ignored, so the
    failure names the URL actually used and the network, never the folder's URL or generation.base_url."""
    env = env_for(tmp_path)
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        env.pop(name, None)
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`; it takes two minutes.\n")
    (folder / "ragls.toml").write_text('[generation]\nbackend = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n')
    with held_port() as port:  # the vendor is reached through a proxy that refuses the connection
        env.update({"OPENAI_API_KEY": "sk-user-key-0123456789", "HTTPS_PROXY": f"http://127.0.0.1:{port}",
                    "https_proxy": f"http://127.0.0.1:{port}"})
        answer = json.loads(ragls(env, "ask", folder, "What is the deploy command?", "--json").stdout)
    message = answer["error"]["message"]
    assert answer["model"] == "extractive" and "make ship" in answer["answer"]
    assert "openai backend at https://api.openai.com/v1: cannot connect" in message, message
    assert "check the network connection to https://api.openai.com/v1" in message
    assert "generation.base_url" not in message and "127.0.0.1:9" not in message
