"""Credential files (`.netrc`, `.pgpass`, `.pypirc`, `.git-credentials`, `.npmrc`, ...) are secret files
(`config.SECRET_GLOBS`, `sources.exclude_secrets`): even under `sources.include = ["**/*"]` the real indexer never
reads them, lists each as skipped with its reason in rag/status, and drops one that an earlier index (secrets not
excluded) held. The text phase of the real FolderIndex (manifest + tantivy); no model is loaded (nothing secret is
read, so nothing secret could reach an embedding)."""

from __future__ import annotations

import os
from pathlib import Path

from ragls.lsp.wire import to_wire_status
from ragls.sources.walk import SECRET_FILE, SECRET_LINK
from ragls.workspace.rag_workspace import RagWorkspace

CREDENTIAL_FILES = {
    ".netrc": "machine mirror.internal login deploy password Zq8nWv3Lt\n",
    "_netrc": "machine win.internal login deploy password Wn5tRc7Kq\n",
    ".pgpass": "db.internal:5432:app:app:Pg4pAss9Yx\n",
    ".pypirc": "[pypi]\nusername = __token__\npassword = pypi-Ag4TwIneT0ken\n",
    ".git-credentials": "https://deploy:Gc3rEdS7mv@git.internal\n",
    "tools/.npmrc": "//registry.npmjs.org/:_authToken=NpMrCaUth7Tk\n",
    "tools/.yarnrc.yml": 'npmAuthToken: "YaRnAuTh5Tk"\n',
    "home/.aws/credentials": "[default]\naws_secret_access_key = AwSs3cReT9Key\n",
    "keys/id_ed25519": "Ed25519PriVateK3y\n",
}


def _workspace(folder: Path, index_dir: Path) -> RagWorkspace:
    ws = RagWorkspace([folder], [{"index": {"path": str(index_dir)}, "sources": {"include": ["**/*"]}}])
    ws.progressive = True  # rag/status from the manifest, without loading the embedding model
    return ws


def _skipped(ws: RagWorkspace) -> dict[str, str]:
    (folder,) = to_wire_status(ws.status())["folders"]
    return {s["path"]: s["reason"] for s in folder["skipped"]}


def _indexed(ws: RagWorkspace) -> set[str]:
    """The files the index holds: the manifest's, once each tantivy document is one of their chunks."""
    idx = ws.indexes[0]
    assert idx.bm25.count() == idx.manifest.chunk_count()
    return set(idx.manifest.files())


def test_credential_files_are_never_indexed_and_rag_status_says_why(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    for rel, text in CREDENTIAL_FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    (folder / "README.md").write_text("# Mirror\n\nThe mirror is synced nightly from the internal release job.\n")
    (folder / "mirror-login.txt").symlink_to(".netrc")  # a link to a secret file is one
    index_dir = tmp_path / "index"

    # An index built before these names were secret files (the old list) holds them (so the checks can fail) ...
    ws = _workspace(folder, index_dir)
    try:
        with monkeypatch.context() as old:
            old.setattr("ragls.sources.walk.SECRET_GLOBS", [".env*", "*.pem", "*.key", "id_rsa*"])
            ws.indexes[0].sync(embed=False)
        # README and every credential file (the link is left out: its target is indexed under its own name)
        assert ws.status().folders[0].files == 1 + len(CREDENTIAL_FILES)
        assert _indexed(ws) == set(CREDENTIAL_FILES) | {"README.md"}
    finally:
        ws.close()

    # ... and now every one of them leaves it, each listed with its reason.
    ws = _workspace(folder, index_dir)
    try:
        report = ws.indexes[0].sync(embed=False)
        assert sorted(report.deleted) == sorted(CREDENTIAL_FILES)
        expected = {rel: SECRET_FILE for rel in CREDENTIAL_FILES} | {"mirror-login.txt": SECRET_LINK}
        assert _skipped(ws) == expected
        assert ws.status().folders[0].files == 1
        assert _indexed(ws) == {"README.md"}
        assert [h.chunk.path for h in ws.query("mirror internal deploy password", top_k=5).hits] == ["README.md"]

        # A credential file created later (a watcher hint) is skipped at once, unread; a full scan keeps the entry.
        (folder / "db" / ".pgpass").parent.mkdir()
        (folder / "db" / ".pgpass").write_text("db2.internal:5432:app:app:Pg2Late4Qz\n", encoding="utf-8")
        ws.indexes[0].sync(only=["db/.pgpass"], embed=False)
        assert _skipped(ws)["db/.pgpass"] == SECRET_FILE
        ws.indexes[0].sync(embed=False)
        assert _skipped(ws) == expected | {"db/.pgpass": SECRET_FILE}
        assert _indexed(ws) == {"README.md"}

        # Once removed, its entry goes with the next full scan.
        os.remove(folder / "db" / ".pgpass")
        ws.indexes[0].sync(embed=False)
        assert "db/.pgpass" not in _skipped(ws)
    finally:
        ws.close()


def test_secret_files_the_include_globs_do_not_take_are_not_listed(tmp_path):
    """Under the default include (documentation types) `.netrc` would not be indexed anyway: no skipped entry."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".netrc").write_text(CREDENTIAL_FILES[".netrc"], encoding="utf-8")
    (folder / "README.md").write_text("# Mirror\n\nSynced nightly.\n")
    ws = RagWorkspace([folder], [{"index": {"path": str(tmp_path / "index")}}])
    ws.progressive = True
    try:
        ws.indexes[0].sync(embed=False)
        assert _skipped(ws) == {} and ws.status().folders[0].files == 1
    finally:
        ws.close()
