"""Reading `git diff` robustly: run git from an argument list and parse its patch into per-file entries (the
digest the model sees, within a character budget: `digest.py`).

Used by `commit/message.py`. Git always runs through `index.repo.run_git` (a repository's own config runs no
program: docs/security.md), the diff as `git -C ROOT -c core.quotepath=false diff --no-color --no-ext-diff
--no-textconv -M -U3 --submodule=short --ignore-submodules=dirty --src-prefix=a/ --dst-prefix=b/`, so user config
(colours, external diff drivers, textconv filters, prefixes, context size) cannot change the output, and no git
status runs in a submodule under its own config. Output is read as bytes; text and file
names are decoded as UTF-8, bytes that are not UTF-8 line by line as cp1252 (never fails), control characters
replaced. Lockfiles, generated files (by name, or
marked `linguist-generated` in .gitattributes), binary and deleted files are described by one line, never by content.
Secrets never reach the model (docs/security.md): a secret file (`config.SECRET_GLOBS`: `.env*`, `*.pem`, `.netrc`, `.npmrc`
…, the files indexing never reads) is one line too, and every hunk's secret values are masked by the indexer's
masker (`sources.redact.mask_diff_hunk`), same length, each line's `+`/`-`/space kept.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

import pathspec

from ragls.core.errors import RequestFailed
from ragls.index import repo
from ragls.sources.load import decode_bytes
from ragls.sources.redact import mask_diff_hunk

GIT_TIMEOUT_S = 60.0
MAX_MERGE_MSG_BYTES = 100_000  # git's prepared merge message: a subject and a list of conflicts

# Dependency lockfiles: summarized as one line each, their hunks are never sent to the model.
LOCKFILE_NAMES = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb",
    "poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock", "Cargo.lock", "Gemfile.lock", "composer.lock",
    "go.sum", "flake.lock", "mix.lock", "Podfile.lock", "pubspec.lock", "packages.lock.json", "gradle.lockfile",
    "conda-lock.yml",
})
# Generated / build output (gitignore-style globs): summarized like lockfiles.
GENERATED_GLOBS = [
    "*.min.js", "*.min.css", "*.map", "*.bundle.js", "dist/", "node_modules/", "__generated__/",
    "*.pb.go", "*_pb2.py", "*_pb2_grpc.py", "*.generated.*",
]
_GENERATED = pathspec.GitIgnoreSpec.from_lines(GENERATED_GLOBS)

_CONTROL_CODES = [*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)]
_CONTROLS = {c: "\ufffd" for c in _CONTROL_CODES}
_HAS_CONTROL = re.compile("[" + "".join(re.escape(chr(c)) for c in _CONTROL_CODES) + "]")

_HEADERS = (b"diff --git ", b"diff --cc ", b"diff --combined ", b"* Unmerged path ")
_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12, ord("r"): 13,
            ord('"'): 34, ord("\\"): 92}


@dataclass(frozen=True)
class FileDiff:
    """One file of a diff.

    `path` is relative to the repository root with "/" separators (the new path; the old one for deletions);
    `old_path` is set for renames and copies. `status` is "added", "deleted", "modified", "renamed", "copied" or
    "unmerged". `added`/`removed` count diff lines (0 for binary files). `kind` is "text", "binary", "secret",
    "lockfile" or "generated"; only "text" files keep their `hunks` (each starts with its "@@" line, lines joined by
    "\\n"), secret values masked.
    """

    path: str
    status: str
    added: int = 0
    removed: int = 0
    kind: str = "text"
    old_path: str | None = None
    old_mode: str | None = None
    new_mode: str | None = None
    hunks: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------------- running git

def decode(data: bytes) -> str:
    """Diff text or a file name as text: UTF-8; bytes that are not UTF-8 decoded line by line as
    `sources.load.decode_bytes` does (a cp1252 line: 0x92 -> "’"). Control characters other than tab and line
    breaks (C0, DEL, C1 — invisible, and meaningless to a model) become U+FFFD. Never raises."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = decode_bytes(data, keep_lone_cr=True)
    return text.translate(_CONTROLS) if _HAS_CONTROL.search(text) else text


def run_git(folder: Path, args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `git -C folder ARGS` (`index.repo.run_git`: an argument list, no shell, English messages, no optional
    index locks, nothing the repository's own config names run); stdin gets `stdin`, or is closed.

    Returns the completed process whatever its exit code. Raises RequestFailed when git is not installed or does
    not finish within GIT_TIMEOUT_S seconds.
    """
    try:
        return repo.run_git(folder, args, stdin=stdin, timeout=GIT_TIMEOUT_S)
    except FileNotFoundError:
        raise RequestFailed("git is not installed (no `git` executable on PATH)") from None
    except subprocess.TimeoutExpired:
        raise RequestFailed(f"git {args[-1] if args else ''} did not finish within {GIT_TIMEOUT_S:g} s") from None


def _first_error_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    lines = [ln for ln in decode(proc.stderr).splitlines() if ln.strip()]
    return lines[0].removeprefix("fatal: ") if lines else f"exit code {proc.returncode}"


def repo_root(path: Path) -> Path:
    """The top-level directory of the git work tree containing `path` (a directory or a file in one).

    Raises RequestFailed("not a git repository: PATH") when there is none, RequestFailed with git's reason for other
    failures (e.g. "detected dubious ownership"), or when git is missing; RequestFailed with
    `index.repo.foreign_repository`'s reason when the folder's `.git` names another repository (`core.worktree`
    moving the work tree to the user's home, a `.git` file or `commondir` naming another repository's git
    directory: that repository's changes would be described).
    """
    folder = path if path.is_dir() else path.parent
    if not folder.is_dir():
        raise RequestFailed(f"not a git repository: {path} (no such directory)")
    proc = run_git(folder, ["rev-parse", "--show-toplevel"])
    if proc.returncode != 0:
        reason = _first_error_line(proc)
        if "not a git repository" in reason:
            raise RequestFailed(f"not a git repository: {path}")
        raise RequestFailed(f"git failed in {path}: {reason}")
    top = os.fsdecode(proc.stdout.rstrip(b"\r\n"))
    if not top:  # inside .git or a bare repository
        raise RequestFailed(f"not a git work tree: {path}")
    foreign = repo.foreign_repository(folder)
    if foreign:
        raise RequestFailed(foreign)
    return Path(top)


def _empty_tree(root: Path) -> str:
    proc = run_git(root, ["hash-object", "-t", "tree", "/dev/null"])
    if proc.returncode != 0:
        raise RequestFailed(f"git hash-object failed: {_first_error_line(proc)}")
    return proc.stdout.decode("ascii").strip()


def merge_message(root: Path) -> str | None:
    """Git's prepared message of a merge in progress (MERGE_HEAD exists): `.git/MERGE_MSG` without its "#" comment
    lines (e.g. "Merge branch 'topic'"), as `git commit` would propose it; None when no merge is in progress or
    git prepared no message, or MERGE_MSG is no regular file (`regular_file_bytes`: a link out is not followed)."""
    head = run_git(root, ["rev-parse", "--verify", "--quiet", "MERGE_HEAD"])
    if head.returncode != 0:
        return None
    # (not `--git-path MERGE_MSG`: git gives the real path of a link there, its target)
    proc = run_git(root, ["rev-parse", "--absolute-git-dir"])
    data = regular_file_bytes(os.path.join(os.fsdecode(proc.stdout.strip()), "MERGE_MSG")) \
        if proc.returncode == 0 else None
    if data is None:
        return None
    text = decode(data)
    lines = [line.rstrip() for line in text.splitlines() if not line.startswith("#")]
    return "\n".join(lines).strip() or None


def regular_file_bytes(path: str, limit: int = MAX_MERGE_MSG_BYTES) -> bytes | None:
    """The first `limit` bytes of the regular file at `path`, None for anything else: a symbolic link (not
    followed: a folder's `.git/MERGE_MSG -> ~/.bash_history` would show that file), a FIFO (opened without
    blocking, never read), a device, or an error."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        try:
            return fh.read(limit)
        except OSError:
            return None


def has_commit(root: Path) -> bool:
    """True when the repository's HEAD names a commit (False before the first commit: an unborn branch)."""
    return run_git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).returncode == 0


def read_diff(root: Path, *, staged: bool = True) -> bytes:
    """The raw patch of the repository at `root`.

    staged=True: `git diff --cached` (index vs HEAD; vs the empty tree before the first commit).
    staged=False: `git diff HEAD` — every change to tracked files, staged or not, i.e. what `git commit -a` would
    commit (vs the empty tree before the first commit). Untracked files are not included.
    Raises RequestFailed when git fails. An empty result means there is nothing to describe.
    """
    args = ["-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
            "-M", "-U3", "--submodule=short", "--ignore-submodules=dirty", "--src-prefix=a/", "--dst-prefix=b/"]
    if staged:
        args.append("--cached")
    else:
        args.append("HEAD" if has_commit(root) else _empty_tree(root))
    args.append("--")
    proc = run_git(root, args)
    if proc.returncode != 0:
        raise RequestFailed(f"git diff failed in {root}: {_first_error_line(proc)}")
    return proc.stdout


def mark_generated(root: Path, files: list[FileDiff]) -> list[FileDiff]:
    """`files` with those the repository marks `linguist-generated` in .gitattributes turned into kind
    "generated" (hunks dropped). Text files only; on any git failure `files` is returned unchanged."""
    candidates = [f for f in files if f.kind == "text"]
    if not candidates:
        return files
    paths = b"".join(f.path.encode("utf-8", "surrogateescape") + b"\0" for f in candidates)
    proc = run_git(root, ["check-attr", "-z", "--stdin", "linguist-generated"], stdin=paths)
    if proc.returncode != 0:
        return files
    fields = proc.stdout.split(b"\0")
    generated = {decode(fields[i]) for i in range(0, len(fields) - 2, 3) if fields[i + 2] in (b"set", b"true")}
    return [replace(f, kind="generated", hunks=()) if f.kind == "text" and f.path in generated else f
            for f in files]


# ---------------------------------------------------------------------------------------------------- parsing

def _unquote(data: bytes, start: int) -> tuple[bytes, int]:
    """Parse the C-style quoted name git writes for unusual file names; `data[start]` is the opening quote.
    Returns (raw bytes, index after the closing quote)."""
    out = bytearray()
    i = start + 1
    while i < len(data):
        c = data[i]
        if c == 34:  # closing quote
            return bytes(out), i + 1
        if c == 92 and i + 1 < len(data):  # backslash
            nxt = data[i + 1]
            if 48 <= nxt <= 55:  # octal \ooo
                j = i + 1
                while j < len(data) and j < i + 4 and 48 <= data[j] <= 55:
                    j += 1
                out.append(int(data[i + 1:j], 8) & 0xFF)
                i = j
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out), len(data)


def _name(field: bytes) -> bytes | None:
    """A name from a `---`/`+++`/`rename from` line: unquoted, "a/"/"b/" prefix kept; None for /dev/null."""
    if field.startswith(b'"'):
        return _unquote(field, 0)[0]
    if field.endswith(b"\t"):  # git appends a tab to names containing spaces
        field = field[:-1]
    return None if field == b"/dev/null" else field


def _strip_prefix(name: bytes | None) -> bytes | None:
    if name is not None and name[:2] in (b"a/", b"b/"):
        return name[2:]
    return name


def _header_names(rest: bytes) -> tuple[bytes | None, bytes | None]:
    """Old and new names from the text after "diff --git " (prefixes stripped)."""
    if rest.startswith(b'"'):
        old, end = _unquote(rest, 0)
        tail = rest[end + 1:]
        new = _unquote(tail, 0)[0] if tail.startswith(b'"') else tail
        return _strip_prefix(old), _strip_prefix(new)
    if rest.endswith(b'"'):
        cut = rest.find(b' "')
        return _strip_prefix(rest[:cut]), _strip_prefix(_unquote(rest, cut + 1)[0])
    # Unquoted: "a/X b/X" when the names are equal (the usual case) — split in the middle like git does.
    n = (len(rest) - 5) // 2
    if len(rest) % 2 == 1 and rest[:2] == b"a/" and rest[2 + n:5 + n] == b" b/" and rest[2:2 + n] == rest[5 + n:]:
        return rest[2:2 + n], rest[5 + n:]
    cut = rest.find(b" b/")
    if cut < 0:
        return _strip_prefix(rest), _strip_prefix(rest)
    return _strip_prefix(rest[:cut]), rest[cut + 3:]


def classify(path: str) -> str:
    """"secret", "lockfile", "generated" or "text" for a repository-relative path (by name only; "secret" by
    `config.SECRET_GLOBS`, the rule of `sources.walk.FileFilter`)."""
    from ragls.sources.walk import secret_file

    if secret_file(path):
        return "secret"
    if PurePosixPath(path).name in LOCKFILE_NAMES:
        return "lockfile"
    if _GENERATED.match_file(path):
        return "generated"
    return "text"


def _split_sections(raw: bytes) -> list[list[bytes]]:
    sections: list[list[bytes]] = []
    current: list[bytes] | None = None
    lines = raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    for line in lines:
        # Hunk lines always start with " ", "+", "-" or "\\", so a header can only be a real header.
        if line.startswith(_HEADERS):
            current = [line]
            sections.append(current)
        elif current is not None:
            current.append(line)
    return sections


def _parse_section(lines: list[bytes]) -> FileDiff:
    header = lines[0]
    status = "modified"
    binary = False
    old_mode = new_mode = None
    if header.startswith(b"diff --git "):
        old, new = _header_names(header[len(b"diff --git "):])
    else:  # combined diff of a conflicted file, or "* Unmerged path X"
        rest = header.split(b" ", 2)[2]
        if header.startswith(b"* "):
            rest = header[len(b"* Unmerged path "):]
            status = "unmerged"
        old = new = _unquote(rest, 0)[0] if rest.startswith(b'"') else rest
    minus = plus = None
    hunks: list[list[bytes]] = []
    added = removed = 0
    width = 1  # prefix columns per hunk line: 1, or the number of parents in a combined diff
    for line in lines[1:]:
        if hunks:
            if line.startswith(b"@@"):
                width = max(1, len(line) - len(line.lstrip(b"@")) - 1)
                hunks.append([line])
                continue
            prefix = line[:width]
            if b"+" in prefix:
                added += 1
            elif b"-" in prefix:
                removed += 1
            hunks[-1].append(line)
        elif line.startswith(b"@@"):
            width = max(1, len(line) - len(line.lstrip(b"@")) - 1)
            hunks.append([line])
        elif line.startswith(b"new file mode "):
            status, new_mode = "added", line[14:].decode("ascii", "replace")
        elif line.startswith(b"deleted file mode "):
            status, old_mode = "deleted", line[18:].decode("ascii", "replace")
        elif line.startswith(b"old mode "):
            old_mode = line[9:].decode("ascii", "replace")
        elif line.startswith(b"new mode "):
            new_mode = line[9:].decode("ascii", "replace")
        elif line.startswith((b"rename from ", b"copy from ")):
            status = "renamed" if line.startswith(b"rename") else "copied"
            old = _name(line.split(b" ", 2)[2])
        elif line.startswith((b"rename to ", b"copy to ")):
            new = _name(line.split(b" ", 2)[2])
        elif line.startswith(b"--- "):
            minus = _strip_prefix(_name(line[4:]))
        elif line.startswith(b"+++ "):
            plus = _strip_prefix(_name(line[4:]))
        elif line.startswith((b"Binary files ", b"GIT binary patch")):
            binary = True
    if status == "modified" and minus is None and plus is not None and old_mode is None:
        status = "added"
    if status == "modified" and plus is None and minus is not None:
        status = "deleted"
    old = minus if minus is not None and status not in ("renamed", "copied") else old
    new = plus if plus is not None and status not in ("renamed", "copied") else new
    path = decode((old if status == "deleted" else new) or old or b"?")
    kind = "binary" if binary else classify(path)
    text_hunks = tuple(mask_diff_hunk(decode(b"\n".join(h)).replace("\r\n", "\n"))
                       for h in hunks) if kind == "text" else ()
    return FileDiff(
        path=path, status=status, added=added, removed=removed, kind=kind,
        old_path=decode(old) if status in ("renamed", "copied") and old is not None else None,
        old_mode=old_mode if new_mode is not None else None, new_mode=new_mode, hunks=text_hunks,
    )


def parse_diff(raw: bytes) -> list[FileDiff]:
    """Parse a `git diff` patch (as produced by `read_diff`) into one FileDiff per file, in git's order.

    Never raises on odd input: unknown header lines are ignored; undecodable text is read as latin-1.
    """
    return [_parse_section(section) for section in _split_sections(raw)]
