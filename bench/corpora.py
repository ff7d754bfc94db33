"""Materialise a dev set's evaluation corpus from a git directory and verify it against `bench/corpora.json`.

    python bench/corpora.py SET --git-dir DIR [--dest DATA]   # extract SET's corpus, check it, print "SET FOLDER"
    python bench/corpora.py SET --sdist FILE [--dest DATA]    # the same from a PyPI sdist (a set pinned to a release)
    python bench/corpora.py all --git-dir 'clones/{owner}+{name}' --sdist sdists/ --dest DATA   # every set at once
    python bench/corpora.py --verify SET FOLDER                # check a corpus folder already on disk
    python bench/corpora.py --list                             # every set: repository, commit, folder, files

Each question file's `//` header names its corpus: a public repository, a commit and a folder inside it (gold paths
are relative to the corpus folder). `bench/corpora.json` is that header in machine-readable form, one entry per set:

- `repo` (owner/name on GitHub), `commit` (40 hex digits); or, for a set pinned to a PyPI release, `sdist`: the
  file name (`pip download --no-deps --no-binary :all: NAME==VERSION` fetches it) and `sdist_sha256`;
- `paths`: what `git archive COMMIT PATH...` extracts (an empty list: the whole tree), or the sdist's members
  (its top folder included); `exclude`: paths removed from the extract (e.g. generated man pages the question
  writer left out); optional `include`: fnmatch patterns a file's path must match to be kept (e.g. `["*.md"]`
  when a set's corpus is a folder's Markdown files only);
- `extract`: the folder name under the data directory (`<name>-<short commit>`, or the sdist's name);
- `root`: the corpus folder inside the extract ("" = the extract itself; "docs" when the gold paths are relative
  to docs/);
- `files` and `sha256`: the number of files of the corpus folder and the digest of its file list and contents
  (`digest` below) on the copy the figures of docs/benchmarks.md were measured on.

GitHub is not needed here: `--git-dir` is any git directory holding the commit (a clone, `git clone --mirror`,
or a repository snapshot); an sdist is checked against `sdist_sha256` before anything is read from it. The extract is written to a temporary folder beside `--dest/<extract>` and moved
into place only when its digest matches, so a wrong commit or a damaged clone never leaves a corpus that looks
right. `--dest` defaults to `<user cache dir>/ragls/bench-data/eval` (beside `bench/fetch_data.py`'s downloads).
`--record SET FOLDER` writes a folder's file count and digest into the manifest (maintainers only).
The Rust book and the Flask docs come with `bench/fetch_data.py` instead (per-file sha256 in data_manifest.json).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import fetch_root

MANIFEST = Path(__file__).resolve().parent / "corpora.json"
QUESTIONS = Path(__file__).resolve().parent / "questions"
FIELDS = ("paths", "exclude", "extract", "root", "files", "sha256")  # and repo + commit, or sdist + sdist_sha256


class CorpusMismatch(RuntimeError):
    """The extracted or given folder is not the corpus the manifest pins (file count or digest differ)."""


def load_manifest(path: Path | None = None) -> dict[str, dict]:
    """{set name: entry} from the manifest at `path` (default MANIFEST; the module docstring lists the fields)."""
    return json.loads((path or MANIFEST).read_text())


def digest(folder: Path) -> tuple[int, str]:
    """(number of files, sha256 hex) of every file under `folder`: the sorted lines "<sha256 of the content>
    <relative posix path>" (a symbolic link: "link:<its target> <path>", never followed), joined by newlines.
    Folders themselves do not count, so an empty folder changes nothing. Raises FileNotFoundError if `folder`
    is not a folder."""
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder")
    lines = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            p = Path(dirpath) / name
            rel = p.relative_to(folder).as_posix()
            if p.is_symlink():
                lines.append(f"link:{os.readlink(p)} {rel}")
            else:
                lines.append(f"{hashlib.sha256(p.read_bytes()).hexdigest()} {rel}")
    lines.sort(key=lambda line: line.split(" ", 1)[1])
    return len(lines), hashlib.sha256("\n".join(lines).encode()).hexdigest()


def verify(name: str, folder: Path, manifest: dict[str, dict] | None = None) -> None:
    """Raise CorpusMismatch unless `folder` (the corpus folder, i.e. extract/root) holds exactly set `name`'s
    pinned files; KeyError for a set the manifest does not have."""
    entry = (manifest or load_manifest())[name]
    files, sha = digest(folder)
    if (files, sha) != (entry["files"], entry["sha256"]):
        raise CorpusMismatch(f"{name}: {folder} has {files} files, digest {sha[:12]}…; the manifest pins "
                             f"{entry['files']} files, digest {entry['sha256'][:12]}… ({source(entry)}, "
                             f"paths {entry['paths'] or 'the whole tree'})")


def source(entry: dict) -> str:
    """Where a manifest entry's corpus comes from: "owner/name@commit12" or "sdist FILE"."""
    return f"sdist {entry['sdist']}" if "sdist" in entry else f"{entry['repo']}@{entry['commit'][:12]}"


def _archive(git_dir: Path, commit: str, paths: list[str]) -> bytes:
    """`git archive --format=tar COMMIT PATH...` of `git_dir` as bytes. Raises CorpusMismatch when the commit is
    not there or a path is not in its tree (git's message quoted)."""
    run = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit, "--", *paths],
                         check=False, capture_output=True)
    if run.returncode != 0:
        raise CorpusMismatch(f"git archive {commit[:12]} {' '.join(paths)} in {git_dir} failed: "
                             f"{run.stderr.decode(errors='replace').strip()}")
    return run.stdout


def _tree(git_dir: Path, commit: str, paths: list[str]) -> list[str]:
    """The file paths of `commit` under `paths` (`git ls-tree -r --name-only`); CorpusMismatch when git fails."""
    run = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--name-only", commit, "--", *paths],
                         check=False, capture_output=True)
    if run.returncode != 0:
        raise CorpusMismatch(f"git ls-tree {commit[:12]} in {git_dir} failed: "
                             f"{run.stderr.decode(errors='replace').strip()}")
    return [f for f in run.stdout.decode().split("\0") if f]


def _excluded(member: str, exclude: list[str]) -> bool:
    return any(member == e or member.startswith(e.rstrip("/") + "/") for e in exclude)


def _sdist(path: Path, entry: dict) -> bytes:
    """The bytes of the sdist at `path`; CorpusMismatch unless their sha256 is the entry's `sdist_sha256`."""
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    if sha != entry["sdist_sha256"]:
        raise CorpusMismatch(f"{path}: sha256 {sha[:12]}…, the manifest pins {entry['sdist']} at "
                             f"{entry['sdist_sha256'][:12]}…")
    return data


def extract(entry: dict, git_dir: Path | None, into: Path, sdist: Path | None = None) -> None:
    """Write the files of `entry` (manifest entry) into the empty folder `into`: from `git_dir` at its commit, or
    from the sdist file `sdist` (sha256 checked), keeping `paths` and leaving out `exclude`. Members are checked
    by tarfile's "data" filter (no absolute paths, no links out). Raises CorpusMismatch, FileNotFoundError."""
    if "sdist" in entry:
        if sdist is None:
            raise CorpusMismatch(f"{entry['sdist']} is a PyPI sdist: pass it with --sdist")
        data, mode = _sdist(sdist, entry), "r:gz"
    else:
        if git_dir is None:
            raise CorpusMismatch(f"{source(entry)} is a git commit: pass a git directory holding it with --git-dir")
        paths = entry["paths"]
        if entry.get("include"):  # archive only the files kept: the others' blobs may be absent from a snapshot
            paths = [f for f in _tree(git_dir, entry["commit"], paths)
                     if any(fnmatch.fnmatch(f, g) for g in entry["include"])]
        data, mode = _archive(git_dir, entry["commit"], paths), "r:"
    with tarfile.open(fileobj=io.BytesIO(data), mode=mode) as tar:
        include = entry.get("include")
        members = [m for m in tar.getmembers() if not _excluded(m.name, entry["exclude"])
                   and (not entry["paths"] or any(_excluded(m.name, [p]) for p in entry["paths"]))
                   and (m.isdir() or not include or any(fnmatch.fnmatch(m.name, g) for g in include))]
        tar.extractall(into, members=members, filter="data")


def materialise(name: str, git_dir: Path | None, dest: Path, manifest: dict[str, dict] | None = None,
                sdist: Path | None = None) -> Path:
    """Extract set `name`'s corpus from `git_dir` (or the sdist file `sdist`, for a set pinned to a PyPI release)
    into `dest/<extract>`, verify it, and return the corpus folder
    (`dest/<extract>/<root>`). An existing extract that verifies is kept as it is; one that does not is replaced
    only by a verified new one. Raises CorpusMismatch (nothing written) and KeyError for an unknown set."""
    manifest = manifest or load_manifest()
    entry = manifest[name]
    final = dest / entry["extract"]
    corpus = final / entry["root"] if entry["root"] else final
    if corpus.is_dir():
        try:
            verify(name, corpus, manifest)
            return corpus
        except CorpusMismatch:
            pass
    dest.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest, prefix=f".{entry['extract']}-"))
    try:
        extract(entry, git_dir, tmp, sdist)
        verify(name, tmp / entry["root"] if entry["root"] else tmp, manifest)
        if final.exists():
            shutil.rmtree(final)
        tmp.rename(final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return corpus


def record(name: str, folder: Path, path: Path | None = None) -> tuple[int, str]:
    """Write `folder`'s file count and digest into set `name`'s entry of the manifest at `path` (default MANIFEST;
    the entry must exist). Returns them."""
    path = path or MANIFEST
    manifest = load_manifest(path)
    files, sha = digest(folder)
    manifest[name].update(files=files, sha256=sha)
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return files, sha


def _source_for(entry: dict, git_dir: str | None, sdist: str | None) -> tuple[Path | None, Path | None]:
    """(git directory, sdist file) for a manifest entry from the command line's --git-dir / --sdist: --git-dir may
    hold {owner}, {name} and {repo} (e.g. `clones/{owner}+{name}.git`), --sdist may be the file or a folder
    holding it."""
    if "sdist" in entry:
        if not sdist:
            return None, None
        path = Path(sdist)
        return None, path / entry["sdist"] if path.is_dir() else path
    if not git_dir:
        return None, None
    owner, name = entry["repo"].split("/")
    return Path(git_dir.format(owner=owner, name=name, repo=entry["repo"])), None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("items", nargs="*", metavar="SET",
                    help="sets to materialise (\"all\": every set of the manifest); with --verify / --record: SET FOLDER")
    ap.add_argument("--git-dir", help="a git directory holding the set's commit; {owner}, {name}, {repo} are filled in")
    ap.add_argument("--sdist", help="the set's PyPI sdist file, or a folder holding the sdists")
    ap.add_argument("--dest", type=Path, help="where extracts go (default: <user cache dir>/ragls/bench-data/eval)")
    ap.add_argument("--verify", action="store_true", help="check FOLDER against the manifest")
    ap.add_argument("--list", action="store_true", help="print every set of the manifest")
    ap.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    manifest = load_manifest()
    if args.list:
        for name, e in sorted(manifest.items()):
            print(f"{name}\t{source(e)}\t{'/'.join(filter(None, [e['extract'], e['root']]))}"
                  f"\t{e['files']} files")
        return 0
    names = sorted(manifest) if args.items == ["all"] else args.items
    if not names:
        ap.error("name a set, \"all\" or --list")
    if args.record or args.verify:
        if len(args.items) != 2 or args.items[0] not in manifest:
            ap.error("--verify / --record take a set of the manifest and its corpus FOLDER")
        name, folder = args.items[0], Path(args.items[1])
        try:
            if args.record:
                files, sha = record(name, folder)
                print(f"{name}: recorded {files} files, {sha}")
            else:
                verify(name, folder, manifest)
                print(f"{name} {folder}: {manifest[name]['files']} files, digest matches")
        except (CorpusMismatch, FileNotFoundError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        return 0
    unknown = [n for n in names if n not in manifest]
    if unknown:
        ap.error(f"not in {MANIFEST.name}: {', '.join(unknown)}; known: {', '.join(sorted(manifest))}")
    if not (args.git_dir or args.sdist):
        ap.error("--git-dir (or --sdist for a set pinned to a PyPI release) is required to materialise a corpus")
    failed = 0
    for name in names:
        git_dir, sdist = _source_for(manifest[name], args.git_dir, args.sdist)
        try:
            if git_dir is None and sdist is None:
                raise CorpusMismatch(f"{source(manifest[name])}: pass "
                                     f"{'--sdist' if 'sdist' in manifest[name] else '--git-dir'}")
            corpus = materialise(name, git_dir, args.dest or fetch_root() / "eval", manifest, sdist)
        except (CorpusMismatch, FileNotFoundError) as err:
            print(f"error: {name}: {err}", file=sys.stderr)
            failed += 1
            continue
        print(f"{name} {corpus}")  # the "set folder" line of a set list
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
