"""What kind of change a diff is, read from its paths: each path's category (ci, build, test, docs, asset, code), the
Conventional Commits type (feat, fix, docs, ...) and scope of the whole change, and whether an edit only adds a
definition (a feature rather than a fix). Used by `message.py`: the type/scope hint of the model's prompt, the
weight of a file's lines in the digest, and the deterministic message without a model.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ragls.commit import gitdiff
from ragls.commit.gitdiff import FileDiff

CONVENTIONAL_TYPES = ("feat", "fix", "docs", "style", "refactor", "perf", "test", "build", "ci", "chore", "revert")

_DOC_EXTS = {".md", ".markdown", ".mdx", ".rst", ".adoc", ".org", ".txt"}
# Images, fonts and media: a change to one alone is no feature or fix (`guess_type` rule 7-9); beside docs, docs.
_ASSET_EXTS = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".bmp", ".tif", ".tiff", ".avif",
               ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".webm", ".mov"}
_DOC_NAMES = ("readme", "changelog", "changes", "contributing", "license", "authors", "notice", "history")
_DOC_DIRS = {"docs", "doc", "documentation"}
_TEST_DIRS = {"tests", "test", "__tests__", "spec", "specs", "testdata", "testing"}
_TEST_FILE = re.compile(r"(^test_.*\.py$|_test\.(py|go|rb|exs?|cpp|cc|c)$|\.(test|spec)\.[cm]?[jt]sx?$|"
                        r"Tests?\.(java|kt|cs|swift)$|_spec\.(rb|lua)$)")
_CI_PREFIXES = (".github/", ".gitlab/", ".circleci/", ".ci/", ".buildkite/", ".woodpecker/", ".azure-pipelines/")
_CI_NAMES = {".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "Jenkinsfile", "appveyor.yml",
             ".pre-commit-config.yaml", "bitbucket-pipelines.yml", "noxfile.py", "tox.ini"}
_BUILD_NAMES = {"pyproject.toml", "setup.py", "setup.cfg", "MANIFEST.in", "package.json", "Makefile", "makefile",
                "GNUmakefile", "CMakeLists.txt", "Cargo.toml", "go.mod", "pom.xml", "build.gradle",
                "build.gradle.kts", "settings.gradle", "Gemfile", "composer.json", "meson.build", "BUILD",
                "BUILD.bazel", "WORKSPACE", "Dockerfile", "docker-compose.yml", "compose.yaml", "tsconfig.json",
                "webpack.config.js", "vite.config.ts", "vite.config.js", "rollup.config.js", "Pipfile",
                "flake.nix", "default.nix", "justfile", "Justfile", "build.rs"}
_GENERIC_DIRS = {"src", "lib", "packages", "apps", "crates", "pkg", "internal", "modules"}


def path_category(path: str) -> str:
    """"ci", "build", "test", "docs" or "code" for a repository-relative path, checked in that order:
    ci — under .github/, .gitlab/, .circleci/, .ci/ … or a CI file (.gitlab-ci.yml, Jenkinsfile, tox.ini …);
    build — build/packaging files (pyproject.toml, package.json, Makefile, Dockerfile …), lockfiles,
    requirements*.txt, *.gradle, *.cmake; test — under a tests/test/spec/__tests__ directory or named like a test
    (test_*.py, *_test.go, *.test.ts, *.spec.js, FooTest.java); docs — under docs/doc/, a prose file (.md, .rst,
    .adoc, .txt …) or README/CHANGELOG/LICENSE…; asset — an image, font or media file (`_ASSET_EXTS`); code —
    everything else."""
    p = PurePosixPath(path)
    name = p.name
    if path.startswith(_CI_PREFIXES) or name in _CI_NAMES:
        return "ci"
    if (name in _BUILD_NAMES or name in gitdiff.LOCKFILE_NAMES or name.startswith("Dockerfile")
            or (name.startswith("requirements") and name.endswith((".txt", ".in")))
            or p.suffix in (".gradle", ".cmake")):
        return "build"
    if _TEST_DIRS & set(p.parts[:-1]) or _TEST_FILE.search(name):
        return "test"
    if (p.parts[0] in _DOC_DIRS and len(p.parts) > 1) or p.suffix.lower() in _DOC_EXTS \
            or name.lower().startswith(_DOC_NAMES):
        return "docs"
    if p.suffix.lower() in _ASSET_EXTS:
        return "asset"
    return "code"


# A line that starts a function, method, class or type definition in the common languages: Python/Ruby `def`,
# `class`, JS/TS/Lua/PHP/shell `function`, Go `func`, Rust `fn`/`struct`/`enum`/`trait`/`impl`, Java/C#/Kotlin/Swift
# `interface`/`record`/`object`/`fun`, with their usual modifiers (export, pub, async, public, static, ...).
_DEFINITION = re.compile(
    r"^\s*(?:(?:export|default|pub(?:\([\w:]+\))?|async|public|private|protected|internal|static|abstract|"
    r"final|sealed|open|data|local|unsafe|const)\s+)*"
    r"(?:def|class|function|func|fn|fun|struct|enum|trait|impl|interface|record|object|module)\b[\s<(]*[\w$]")


def adds_definition(f: FileDiff) -> bool:
    """True when `f` only adds lines (an existing text file, nothing removed) and one added line starts a function,
    class or type definition (`_DEFINITION`): new code beside the old, a feature rather than a fix."""
    if f.status != "modified" or f.kind != "text" or f.removed or not f.added:
        return False
    return any(line.startswith("+") and _DEFINITION.match(line[1:])
               for hunk in f.hunks for line in hunk.split("\n")[1:])


def guess_type(files: list[FileDiff]) -> str:
    """The conventional-commit type for a change, by the first rule that matches:
    1. every file deleted → chore;  2. every file renamed without edits → refactor;
    3. all docs (images and other assets beside them included) → docs;  4. all tests → test;  5. all CI → ci;
    6. all build or CI (some build) → build;  7. some code file (see `path_category`) added, or one only added to
    with a new function or class (`adds_definition`) → feat;  8. some code file changed → fix;  9. otherwise →
    chore (e.g. docs and tests together, or assets alone)."""
    if not files:
        return "chore"
    if all(f.status == "deleted" for f in files):
        return "chore"
    if all(f.status == "renamed" and not (f.added or f.removed) for f in files):
        return "refactor"
    cats = [path_category(f.path) for f in files]
    kinds = set(cats)
    if "docs" in kinds and kinds <= {"docs", "asset"}:
        return "docs"
    for only in ("docs", "test", "ci"):
        if kinds == {only}:
            return only
    if kinds <= {"build", "ci"}:
        return "build"
    code = [f for f, c in zip(files, cats) if c == "code"]
    if any(f.status == "added" or adds_definition(f) for f in code):
        return "feat"
    if code:
        return "fix"
    return "chore"


def guess_scope(files: list[FileDiff], kind: str | None = None) -> str | None:
    """The top directory shared by every changed path (old and new), or None when a file sits at the root or the
    paths differ there. A generic container (src, lib, packages, apps, crates, pkg, internal, modules) gives way to
    the next directory when that one is shared too. Leading dots are dropped; a scope that only repeats `kind`
    (docs/docs, test/tests, ci/github) is None."""
    dirs = []
    for f in files:
        for path in (f.path, f.old_path):
            if path is not None:
                dirs.append(PurePosixPath(path).parts[:-1])
    if not dirs or any(not d for d in dirs):
        return None
    scope = dirs[0][0]
    if any(d[0] != scope for d in dirs):
        return None
    if scope in _GENERIC_DIRS and all(len(d) > 1 for d in dirs) and len({d[1] for d in dirs}) == 1:
        scope = dirs[0][1]
    scope = scope.lstrip(".")
    redundant = {"docs": {"docs", "doc", "documentation"}, "test": _TEST_DIRS,
                 "ci": {"github", "gitlab", "circleci", "ci", "buildkite", "woodpecker"}}
    if not scope or scope in redundant.get(kind or "", set()):
        return None
    return scope
