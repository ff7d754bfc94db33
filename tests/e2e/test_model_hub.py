"""The model hub hears only of models the user chose: with `HF_ENDPOINT` pointing at a loopback recorder (a mirror,
as huggingface_hub reads it), an untrusted folder's `embedding.model` and `reranker_model` never reach it through
the CLI, while the user's own default model is looked for there, not at huggingface.co; once the folder is trusted
its model is looked for too (so the test can fail)."""

from __future__ import annotations

import json
import socketserver
import threading

from clikit import ragls
from lspkit import server_env


class HubRecorder:
    """A model hub on loopback (`HF_ENDPOINT`) that records each request's path and hangs up without answering, so
    ragls's probe finds no hub and falls back to the bundled offline model at once (no download retries)."""

    def __init__(self):
        self.paths: list[str] = []
        recorder = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                line = self.rfile.readline().decode("latin-1").split()
                if len(line) >= 2:
                    recorder.paths.append(line[1])

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_an_untrusted_folder_names_a_model_and_the_hub_never_hears_of_it(tmp_path):
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`; it takes two minutes.\n")
    (folder / "ragls.toml").write_text('[embedding]\nmodel = "evil-org/evil-embedder"\n'
                                       '[retrieval]\nreranker = "cross-encoder"\nreranker_model = "evil-org/evil-reranker"\n')
    hub = HubRecorder()
    env = server_env(tmp_path / "cache")
    for key in ("RAGLS_OFFLINE", "HF_HUB_OFFLINE"):  # online, as a laptop is: the hub may be asked
        env.pop(key)
    env["HF_ENDPOINT"] = hub.url
    try:
        ragls(env, "index", folder)
        res = json.loads(ragls(env, "query", folder, "deploy command", "--json").stdout)
        assert res["chunks"] and hub.paths  # the user's own default model was looked for on the hub...
        assert not [p for p in hub.paths if "evil" in p]  # ...the folder's never

        ragls(env, "trust", folder)
        ragls(env, "query", folder, "deploy command", "--json", check=False)
        assert "/api/models/evil-org/evil-embedder" in hub.paths  # trusted, its model is the user's choice
    finally:
        hub.close()
