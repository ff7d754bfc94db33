"""bench/corpora.json pins each dev set's corpus (repository + commit or PyPI sdist, folder, digest) and names only
question files that exist; bench/corpora.py extracts a corpus from a real git directory and refuses one that differs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import corpora

HEX40, HEX64 = re.compile(r"[0-9a-f]{40}"), re.compile(r"[0-9a-f]{64}")


def _under(path: str, folders: list[str]) -> bool:
    return not folders or any(path == f or path.startswith(f + "/") for f in folders)


def test_manifest_is_well_formed_and_names_existing_question_files():
    manifest = corpora.load_manifest()
    assert len(manifest) >= 20
    for name, e in manifest.items():
        header = "\n".join(line for line in (BENCH / "questions" / f"{name}.jsonl").read_text().splitlines()
                           if line.startswith("//"))
        assert set(corpora.FIELDS) <= set(e), name
        if "sdist" in e:
            assert e["sdist"].endswith(".tar.gz") and HEX64.fullmatch(e["sdist_sha256"]), name
            assert e["sdist"].removesuffix(".tar.gz").rsplit("-", 1)[1] in header, name  # the header's version
        else:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+", e["repo"]) and HEX40.fullmatch(e["commit"]), name
            assert e["commit"][:8] in header, name  # the commit the question writer read
        for p in e["paths"] + e["exclude"] + [e["root"]]:
            assert not p.startswith("/") and ".." not in p.split("/") and not p.endswith("/"), (name, p)
        assert all(_under(x, e["paths"]) for x in e["exclude"]), name
        assert e["root"] == "" or _under(e["root"], e["paths"]) or any(_under(p, [e["root"]]) for p in e["paths"])
        assert re.fullmatch(r"[\w.+-]+", e["extract"]) and e["files"] > 0 and HEX64.fullmatch(e["sha256"]), name


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x",
           "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """A git repository whose one commit holds docs/{a.md, b.rst, man/x.1, img.png} and src/code.py."""
    r = tmp_path / "repo"
    for rel, text in {"docs/a.md": "# A\n", "docs/b.rst": "B\n=\n", "docs/man/x.1": ".TH X\n", "docs/img.png": "png",
                      "src/code.py": "x = 1\n"}.items():
        (r / rel).parent.mkdir(parents=True, exist_ok=True)
        (r / rel).write_text(text)
    _git(r, "init", "-q")
    _git(r, "add", ".")
    _git(r, "commit", "-q", "-m", "docs")
    return r


def test_materialise_extracts_the_pinned_folder_and_refuses_a_different_one(repo, tmp_path):
    commit = _git(repo, "rev-parse", "HEAD")
    entry = {"repo": "o/n", "commit": commit, "paths": ["docs"], "exclude": ["docs/man"], "include": ["*.md", "*.rst"],
             "extract": "n-x", "root": "docs", "files": 2, "sha256": ""}
    path = tmp_path / "corpora.json"
    path.write_text(json.dumps({"s": entry}))
    expected = tmp_path / "expected"
    (expected / "docs").mkdir(parents=True)
    (expected / "docs/a.md").write_text("# A\n")
    (expected / "docs/b.rst").write_text("B\n=\n")
    files, sha = corpora.record("s", expected / "docs", path)
    assert files == 2
    manifest = corpora.load_manifest(path)

    corpus = corpora.materialise("s", repo / ".git", tmp_path / "data", manifest)
    assert corpus == tmp_path / "data/n-x/docs"
    assert sorted(p.name for p in corpus.rglob("*")) == ["a.md", "b.rst"]
    assert corpora.digest(corpus) == (2, sha)

    (corpus / "a.md").write_text("# A, edited\n")
    with pytest.raises(corpora.CorpusMismatch, match="2 files"):
        corpora.verify("s", corpus, manifest)
    assert corpora.materialise("s", repo / ".git", tmp_path / "data", manifest) == corpus  # replaced, verified
    assert (corpus / "a.md").read_text() == "# A\n"

    manifest["s"]["sha256"] = "0" * 64  # the git directory holds other files than the manifest pins
    with pytest.raises(corpora.CorpusMismatch):
        corpora.materialise("s", repo / ".git", tmp_path / "other", manifest)
    assert [p.name for p in (tmp_path / "other").iterdir()] == []  # nothing left behind
    manifest["s"]["commit"] = "1" * 40
    with pytest.raises(corpora.CorpusMismatch, match="not a tree object"):  # a commit the clone lacks
        corpora.materialise("s", repo / ".git", tmp_path / "other", manifest)


def test_all_sets_from_a_folder_of_clones_print_set_folder_lines(repo, tmp_path, monkeypatch, capsys):
    commit = _git(repo, "rev-parse", "HEAD")
    entry = {"repo": "o/repo", "commit": commit, "paths": ["docs"], "exclude": ["docs/man"], "extract": "repo-x",
             "root": "", "files": 0, "sha256": ""}
    sdist = {"sdist": "pkg-1.0.tar.gz", "sdist_sha256": "0" * 64, "paths": ["pkg-1.0/docs"], "exclude": [],
             "extract": "pkg-1.0", "root": "pkg-1.0/docs", "files": 1, "sha256": "0" * 64}
    monkeypatch.setattr(corpora, "MANIFEST", tmp_path / "corpora.json")
    corpora.MANIFEST.write_text(json.dumps({"git-set": entry, "sdist-set": sdist}))
    (tmp_path / "expected").mkdir()
    corpora.extract(entry, repo / ".git", tmp_path / "expected")
    assert corpora.record("git-set", tmp_path / "expected")[0] == 3  # docs/a.md, b.rst, img.png: man/ left out

    rc = corpora.main(["all", "--git-dir", str(tmp_path / "{name}" / ".git"), "--dest", str(tmp_path / "data")])
    out, err = capsys.readouterr()
    assert rc == 1  # the sdist set needs --sdist
    assert out == f"git-set {tmp_path / 'data' / 'repo-x'}\n"
    assert "sdist-set: sdist pkg-1.0.tar.gz: pass --sdist" in err
