"""An untrusted folder whose ragls.toml names an LLM gets an extractive answer that says why its LLM is not used and
how to trust it (`FolderLayer.ignored_llm`, the wording of the CLI's untrusted-file notice), not "no LLM
configured"; a folder that names none keeps that label. `ragls ask` in this process on a real index, offline model,
no API key in the environment."""

from __future__ import annotations

import json
import os

from clikit import ragls
from ragls.answer.extractive import EXTRACTIVE_LABEL


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

    (folder / "ragls.toml").write_text("[retrieval]\ntop_k = 4\n")  # retrieval tuning only: nothing to trust
    answer = json.loads(ragls(env, "ask", folder, "What is the deploy command?", "--json").stdout)
    assert answer["answer"].startswith(EXTRACTIVE_LABEL)
