"""The model hub hears only of models the user chose: with `HF_ENDPOINT` pointing at a loopback recorder (a mirror,
as huggingface_hub reads it), an untrusted folder's `embedding.model` and `reranker_model` never reach it through
the CLI, while the user's own default model is looked for there, not at huggingface.co; once the folder is trusted
its model is looked for too (so the test can fail)."""

from __future__ import annotations

import json

from clikit import ragls
from lspkit import server_env
from netkit import LoopbackRecorder


def test_an_untrusted_folder_names_a_model_and_the_hub_never_hears_of_it(tmp_path):
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`; it takes two minutes.\n")
    (folder / "ragls.toml").write_text('[embedding]\nmodel = "evil-org/evil-embedder"\n'
                                       '[retrieval]\nreranker = "cross-encoder"\nreranker_model = "evil-org/evil-reranker"\n')
    hub = LoopbackRecorder(reply=None)
    env = server_env(tmp_path / "cache")
    for key in ("RAGLS_OFFLINE", "HF_HUB_OFFLINE"):  # online, as a laptop is: the hub may be asked
        env.pop(key)
    env["HF_ENDPOINT"] = hub.url
    try:
        ragls(env, "index", folder)
        res = json.loads(ragls(env, "query", folder, "deploy command", "--json").stdout)
        assert res["chunks"] and hub.targets  # the user's own default model was looked for on the hub...
        assert not [p for p in hub.targets if "evil" in p]  # ...the folder's never

        ragls(env, "trust", folder)
        ragls(env, "query", folder, "deploy command", "--json", check=False)
        assert "/api/models/evil-org/evil-embedder" in hub.targets  # trusted, its model is the user's choice
    finally:
        hub.close()
