"""Offline commit messages say what changed (`commit/topics.py`): the section a documentation edit falls in, the
function a code edit falls in, definitions added or removed, an option renamed — on real git repositories holding
real files (the Flask docs fixture's nginx.rst, ragls's own gitdiff.py and deployment.md), edited and staged, and
`generate_commit_message` without a model. The subject stays within 72 characters."""

from __future__ import annotations

from pathlib import Path

import pytest
from commitkit import git, settings_for, write
from ragls.commit.message import SUBJECT_MAX, generate_commit_message

pytestmark = pytest.mark.usefixtures("isolated_git")
REPO = Path(__file__).resolve().parents[2]
NGINX = REPO / "tests" / "fixtures" / "flask-docs" / "nginx.rst"
GITDIFF = REPO / "server" / "ragls" / "commit" / "gitdiff.py"
DEPLOYMENT = REPO / "docs" / "deployment.md"


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    for rel, text in files.items():
        write(root, rel, text)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


def _offline(root: Path, staged: bool = True, style: str = "conventional") -> str:
    message = generate_commit_message(root, settings=settings_for(), staged=staged, style=style).message
    assert len(message.splitlines()[0]) <= SUBJECT_MAX
    return message


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_one_line_doc_edit_names_its_section(tmp_path):
    root = _repo(tmp_path, {"docs/nginx.rst": NGINX.read_text(encoding="utf-8")})
    _edit(root / "docs" / "nginx.rst", "Linux. It may be different", "Linux and BSD. It may be different")
    git(root, "add", ".")
    assert _offline(root) == "docs: update Configuration section of nginx.rst"  # it read "docs: update nginx.rst"
    assert _offline(root, style="plain") == "Update Configuration section of nginx.rst"
    git(root, "reset", "-q")  # not staged: the working tree's text names the section
    assert _offline(root, staged=False) == "docs: update Configuration section of nginx.rst"


def test_a_code_edit_names_its_function_and_its_test_counts_as_one_more_file(tmp_path):
    source = GITDIFF.read_text(encoding="utf-8")
    root = _repo(tmp_path, {"server/gitdiff.py": source, "tests/test_gitdiff.py": "def test_x():\n    pass\n"})
    line = '    return run_git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).returncode == 0'
    _edit(root / "server" / "gitdiff.py", line, line.replace("--quiet", "-q"))
    write(root, "tests/test_gitdiff.py", "def test_x():\n    assert True\n")
    git(root, "add", ".")
    assert _offline(root) == "fix: update has_commit() in gitdiff.py and 1 more file"


def test_a_function_added_or_removed_is_named(tmp_path):
    source = GITDIFF.read_text(encoding="utf-8")
    root = _repo(tmp_path, {"gitdiff.py": source})
    write(root, "gitdiff.py", source + '\n\ndef head_name(root: Path) -> str:\n    """HEAD\'s branch."""\n'
                                       '    return decode(run_git(root, ["symbolic-ref", "HEAD"]).stdout)\n')
    git(root, "add", ".")
    assert _offline(root) == "feat: add head_name() to gitdiff.py"
    git(root, "commit", "-q", "-m", "add")
    start = source.index("def has_commit(")
    end = source.index("\ndef ", start + 1)
    write(root, "gitdiff.py", source[:start] + source[end + 1:])
    git(root, "add", ".")
    assert _offline(root) == "fix: remove has_commit() and head_name() from gitdiff.py"


def test_an_option_renamed_in_a_doc(tmp_path):
    root = _repo(tmp_path, {"docs/deployment.md": DEPLOYMENT.read_text(encoding="utf-8")})
    path = root / "docs" / "deployment.md"
    path.write_text(path.read_text(encoding="utf-8").replace("--repo-id", "--repository-id"), encoding="utf-8")
    git(root, "add", ".")
    # the section comes first; the option's rename when the section cannot be named
    assert _offline(root) == "docs: update Team mode section of deployment.md"
    from ragls.commit.gitdiff import parse_diff
    from ragls.commit.topics import topic_phrases, topics

    [f] = parse_diff(git(root, "diff", "--cached").encode())
    assert topic_phrases(f, topics(f), "deployment.md", 0) == [
        "rename option --repo-id to --repository-id in deployment.md"]
