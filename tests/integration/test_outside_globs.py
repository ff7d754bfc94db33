"""`sources.include` / `sources.exclude` globs that point outside the folder (`../`, `~`, the folder's own absolute
path after the anchoring `/`) match nothing and read nothing outside; each is named in one warning, in `ragls
status --json` errors (rag/status's list), on the CLI's stderr and in `ragls doctor`. `ragls` in this process on a real index."""

from __future__ import annotations

import json
import os

from clikit import ragls


def test_globs_pointing_outside_the_folder_are_named_and_read_nothing_outside(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update({"RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")})
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "vault.md").write_text("# Vault\n\nThe vault combination is 4-8-15-16-23-42.\n")
    folder = tmp_path / "clone"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_text("# Deploying\n\nThe deploy command is `make ship`.\n")
    absolute = f"{folder.resolve()}/docs/*.md"
    (folder / "ragls.toml").write_text(f'[sources]\ninclude = ["docs/*.md", "../private/*.md", "~/notes/*.md", '
                                       f'"{absolute}"]\nexclude = ["../private/**"]\n')
    out = ragls(env, "index", folder)
    assert "1 indexed" in out.stdout
    for glob in ("../private/*.md", "~/notes/*.md", absolute, "../private/**"):
        assert f"glob '{glob}'" in out.stderr, glob
    assert "write 'docs/*.md'" in out.stderr

    status = json.loads(ragls(env, "status", folder, "--json").stdout)
    messages = [e["message"] for e in status["errors"] if e.get("path") == str(folder / "ragls.toml")]
    assert sum("sources.include glob" in m for m in messages) == 3
    assert any("sources.exclude glob '../private/**' climbs out of the folder" in m for m in messages)
    # one wording on every surface: a warning (nothing failed), as `ragls index` and `query` print it
    assert {e.get("severity") for e in status["errors"] if e.get("path") == str(folder / "ragls.toml")} == {"warning"}
    plain = ragls(env, "status", folder).stdout
    assert "warning:     sources.exclude glob '../private/**' climbs out" in plain and "error:" not in plain, plain
    doctor = ragls(env, "doctor", folder, check=False)
    assert "glob '../private/*.md' climbs out of the folder" in doctor.stdout + doctor.stderr
    res = json.loads(ragls(env, "query", folder, "vault combination", "--json").stdout)
    assert all("vault" not in c["source"]["uri"] for c in res["chunks"])

    (folder / "ragls.toml").write_text('[sources]\ninclude = ["docs/*.md", "/docs/*.md"]\n')  # '/' anchors: fine
    status = json.loads(ragls(env, "status", folder, "--json").stdout)
    assert not [e for e in status["errors"] if "glob" in e["message"]]
