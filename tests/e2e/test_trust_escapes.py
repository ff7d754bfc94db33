"""Ways out of an untrusted folder that the allow-list once missed, through `ragls query` and `ragls serve` (issue 25).

A cloned folder's ragls.toml may declare `[rags.NAME]` tables whose sources stay inside the folder. Two spellings
used to reach a private folder beside it: a brace set whose expansion is `..` (`{..,.}/private/*.md`: no `..`
part before expansion, the resolver expands it), and a glob inside the folder that descends a symlinked directory
or matches a symlinked file pointing out (`docs/**/*.md` with `docs/more -> ../../private`). Neither may index
the private file: the first RAG is ignored with the trust notice, the second indexes only the folder's own files.

A folder may keep its index inside itself (`index.path = ".ragls-index"`, once trusted), so the folder can ship
that directory with links planted in it (`manifest.sqlite`, `bm25` pointing out): ragls refuses such an index directory
(`index_paths.check_index_dir`) on the CLI and in `ragls serve` rather than write SQLite and tantivy files outside.
"""

from __future__ import annotations

import json
import sys

import pytest
from clikit import ragls as run_cli
from lspkit import init_params, request, server_env
from pygls.exceptions import JsonRpcException
from pytest_lsp import make_test_lsp_client
from ragls.config.trust import trust as trust_folder

VAULT = "The vault combination is 4-8-15-16-23-42."


@pytest.fixture
def clone(tmp_path):
    """A cloned folder with a private folder beside it, reached by a brace set and by links."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "vault.md").write_text(f"# Vault\n\n{VAULT}\n")
    folder = tmp_path / "clone"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`.\n")
    (folder / "docs" / "more").symlink_to(private, target_is_directory=True)  # a symlinked directory, out
    (folder / "notes.md").symlink_to(private / "vault.md")  # a symlinked file, out
    (folder / "ragls.toml").write_text('[rags.brace]\nsources = ["{..,.}/private/*.md"]\n\n'
                                       '[rags.globby]\nsources = ["docs/**/*.md", "*.md"]\n')
    return folder


def ragls(tmp_path, *args):
    """`ragls ARGS` in-process (clikit: the CLI's own output and exit code, without a process start and model load
    per call); the LSP test below keeps a real `ragls serve` process."""
    return run_cli(server_env(tmp_path / "cache"), *args, check=False)


def test_a_brace_set_expanding_to_dotdot_is_a_source_outside_the_folder(clone, tmp_path):
    out = ragls(tmp_path, "query", clone, "vault combination", "--rag", "brace", "--json")
    assert out.returncode == 2 and "unknown rag 'brace'" in out.stderr
    [notice] = [line for line in out.stderr.splitlines() if "so these settings were ignored" in line]
    assert "rags.brace (a source outside the folder)" in notice and "rags.globby" not in notice


def test_a_glob_does_not_follow_links_out_of_its_directory(clone, tmp_path):
    out = ragls(tmp_path, "query", clone, "vault combination", "--rag", "globby", "--json", "--top-k", "5")
    assert out.returncode == 0, out.stderr
    chunks = json.loads(out.stdout)["chunks"]
    assert [c["source"]["uri"].rsplit("/", 2)[-2:] for c in chunks] == [["docs", "guide.md"]]
    assert VAULT not in out.stdout


@pytest.fixture
def planted(tmp_path):
    """A cloned folder whose ragls.toml keeps the index inside it, shipped with links out in that directory."""
    victim = tmp_path / "outside" / "victim-dir"
    victim.mkdir(parents=True)
    (victim / "keep.txt").write_text("precious\n")
    folder = tmp_path / "clone"
    index = folder / ".ragls-index"
    index.mkdir(parents=True)
    (folder / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`.\n")
    (folder / "ragls.toml").write_text('[index]\npath = ".ragls-index"\n')
    trust_folder(folder)  # index.path needs trust; a trusted folder's planted links are refused all the same
    (index / "manifest.sqlite").symlink_to(tmp_path / "outside" / "victim.sqlite")
    (index / "bm25").symlink_to(victim, target_is_directory=True)
    return folder


def test_an_index_directory_with_planted_links_is_refused(planted, tmp_path):
    out = ragls(tmp_path, "index", planted)
    assert out.returncode != 0
    assert f"index directory {planted / '.ragls-index'} holds a symbolic link" in out.stderr
    assert sorted(p.name for p in (tmp_path / "outside").rglob("*")) == ["keep.txt", "victim-dir"]


@pytest.mark.asyncio
async def test_serve_refuses_the_planted_index_directory_and_says_why(planted, tmp_path):
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "ragls", "serve", env=server_env(tmp_path / "cache"))
    try:
        await client.initialize_session(init_params([planted]))
        for _ in range(2):  # the server stays up and says why, request after request
            with pytest.raises(JsonRpcException) as err:
                await request(client, "rag/status", {})
            assert err.value.code == -32803 and "workspace could not be opened" in str(err.value)
            assert f"{planted / '.ragls-index' / 'bm25'} -> " in str(err.value)
        assert sorted(p.name for p in (tmp_path / "outside").rglob("*")) == ["keep.txt", "victim-dir"]
        await client.shutdown_session()
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()


def test_a_link_to_a_secret_file_is_a_secret_file(tmp_path):
    """A cloned folder ships `notes.md -> .env`; the user then fills in `.env` as its README says. The link's
    name passes the secret globs, its target does not: the file is never read, so neither `ragls index` nor a
    query hands out the values (DB_PASS= has no shape the masker knows)."""
    folder = tmp_path / "clone"
    folder.mkdir()
    (folder / "README.md").write_text("# App\n\nCopy .env.example to .env and fill in the database settings.\n")
    (folder / ".env").write_text("DB_PASS=q7Lm2Vx9\nSESSION_SIGNING=w4Rt8Zp1\n")
    (folder / "notes.md").symlink_to(".env")
    out = ragls(tmp_path, "index", folder)
    assert out.returncode == 0 and "1 indexed" in out.stdout, out.stderr
    out = ragls(tmp_path, "query", folder, "database settings DB_PASS session signing", "--json", "--top-k", "5")
    chunks = json.loads(out.stdout)["chunks"]
    assert [c["source"]["uri"].rsplit("/", 1)[-1] for c in chunks] == ["README.md"]
    assert "q7Lm2Vx9" not in out.stdout and "w4Rt8Zp1" not in out.stdout
