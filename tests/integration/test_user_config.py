"""The user's own ragls.toml (`$RAGLS_CONFIG_DIR/ragls.toml`, `~/.config/ragls/ragls.toml` on Linux) is the lowest
settings layer of every folder (config/trust_filter.py `user_layer`), as docs/configuration.md says: the one place a
command-line user sets `sources.follow_outside_links` (a folder's own file cannot). ansible-lint's `docs/rules/*.md`
are symlinks to `../../src/ansiblelint/rules/*.md`: `ragls index docs` skipped all 53 rule pages, and no setting of
the CLI's could take them in. `ragls` in this process on a real index."""

from __future__ import annotations

import json
import os

from clikit import ragls


def _env(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update({"RAGLS_CACHE_DIR": str(tmp_path / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "RAGLS_DATA_DIR": str(tmp_path / "data"), "RAGLS_CONFIG_DIR": str(tmp_path / "config")})
    (tmp_path / "config").mkdir()
    return env


def _clone(tmp_path):
    """A repository whose docs/ links its rule pages from src/, as ansible-lint's does."""
    repo = tmp_path / "repo"
    (repo / "src" / "rules").mkdir(parents=True)
    (repo / "src" / "rules" / "no_changed_when.md").write_text(
        "# no-changed-when\n\nThis rule checks that tasks return changes to results or conditions. Use the "
        "`changed_when` clause on tasks that do not naturally detect if a change has occurred.\n")
    (repo / "docs" / "rules").mkdir(parents=True)
    (repo / "docs" / "usage.md").write_text("# Usage\n\nRun `ansible-lint playbook.yml` from the project root.\n")
    os.symlink("../../src/rules/no_changed_when.md", repo / "docs" / "rules" / "no-changed-when.md")
    return repo / "docs"


def test_the_user_config_lets_the_cli_follow_links_out_of_the_folder(tmp_path):
    env, docs = _env(tmp_path), _clone(tmp_path)
    out = ragls(env, "index", docs)
    assert "skipped rules/no-changed-when.md: symlink to a file outside the indexed folder" in out.stdout + out.stderr

    (tmp_path / "config" / "ragls.toml").write_text("[sources]\nfollow_outside_links = true\n")
    out = ragls(env, "index", docs)
    assert "1 indexed" in out.stdout and "no-changed-when.md" not in out.stdout + out.stderr
    res = json.loads(ragls(env, "query", docs, "what does the no-changed-when rule check", "--json").stdout)
    assert "changed_when" in res["chunks"][0]["source"]["uri"] or "changed_when" in res["chunks"][0]["preview"]
    assert res["chunks"][0]["source"]["path"].endswith("no-changed-when.md") \
        or res["chunks"][0]["source"]["uri"].endswith("no_changed_when.md")


def test_the_user_config_is_the_lowest_layer_and_named_when_invalid(tmp_path):
    env, docs = _env(tmp_path), _clone(tmp_path)
    user = tmp_path / "config" / "ragls.toml"
    user.write_text("[retrieval]\ntop_k = 1\n\n[rags.notes]\nsources = [\"" + str(docs) + "\"]\n")
    ragls(env, "index", docs)
    res = json.loads(ragls(env, "query", docs, "ansible-lint playbook", "--json").stdout)
    assert len(res["chunks"]) == 1  # the user's top_k

    (docs / "ragls.toml").write_text("[retrieval]\ntop_k = 2\n")  # a folder's own file wins over the user's
    (tmp_path / "repo" / "docs" / "more.md").write_text("# More\n\nThe playbook runs ansible-lint in CI too.\n")
    ragls(env, "index", docs)
    res = json.loads(ragls(env, "query", docs, "ansible-lint playbook", "--json").stdout)
    assert len(res["chunks"]) == 2

    (docs / "ragls.toml").unlink()
    user.write_text("[retrieval]\ntop_k = -3\n")
    out = ragls(env, "query", docs, "ansible-lint", check=False)
    assert out.returncode != 0 and f"invalid settings in {user}: retrieval.top_k" in out.stderr


def test_many_files_skipped_for_one_reason_are_one_line_of_the_index_report(tmp_path):
    """ansible-lint's docs/ printed 53 "skipped rules/...: symlink to a file outside the indexed folder" lines; more
    than five files of one reason are one line naming the first three (cli/common.skipped_lines)."""
    env, docs = _env(tmp_path), _clone(tmp_path)
    for k in range(7):
        os.symlink("../../src/rules/no_changed_when.md", docs / "rules" / f"rule-{k}.md")
    os.symlink("missing.md", docs / "gone.md")
    out = ragls(env, "index", docs).stdout
    assert "  skipped 8 files (rules/" in out and ", ...): symlink to a file outside the indexed folder" in out, out
    assert out.count("symlink to a file outside") == 1, out
    assert "  skipped gone.md: broken symlink: its target does not exist" in out, out
    status = json.loads(ragls(env, "status", docs, "--json").stdout)
    assert sum("outside" in s["reason"] for f in status["folders"] for s in f["skipped"]) == 8, status
