"""Source strings of a named RAG (`[rags.NAME] sources = [...]`), written as aichat and raggity write them:

- a file: `~/notes/todo.md`, `/srv/manual.pdf`, `docs/intro.md` (relative to the config file's directory);
- several files separated by `;`: `a.md;b.md`;
- a directory, walked recursively with the RAG's `[sources]` rules (include globs, .gitignore, junk, secrets);
- a glob with brace sets, `~` expanded: `~/notes/**/*.{md,txt}`; a recursive filename pattern `/srv/**/README.md`
  (one whose walk would list more than `glob_walk.MAX_GLOB_ENTRIES` entries is skipped, saying so);
- an http(s) URL (one page) or a crawl `https://docs.example.com/guide/**` (see `web.py`, `crawl.py`); one holding a credential
  (`https://user:password@host/…`, `?token=…`: `redact.credential_refusal`) is skipped with its value masked
  (`redact.URL_CREDENTIAL`); so is a link a crawl meets (`crawl.py`);
- any of these prefixed by a loader name: `pdf:manual.pdf`, `jina:https://…` (`[document_loaders]`, or the
  built-in pdf / docx / html converters).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ragls.config.globs import expand_braces
from ragls.config.settings import SourcesSettings
from ragls.core.errors import Skipped
from ragls.sources.glob_walk import GLOB_CHARS, GlobTooWide, bounded_glob, glob_folder
from ragls.sources.redact import credential_refusal
from ragls.sources.walk import (
    BROKEN_LINK,
    LINK_LOOP,
    OUTSIDE_LINK,
    SECRET_FILE,
    VCS_DATA,
    VCS_DIRS,
    FileFilter,
    inside_folder,
    not_regular_reason,
    secret_file,
    walk_with,
)

_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9_-]+):(?!//)(.+)$")
BUILTIN_LOADERS = ("pdf", "docx", "html")


@dataclass
class Resolved:
    """What a source list names: files (absolute path → loader name or None), URLs (url → (loader, is_crawl)),
    and the sources that named nothing (Skipped with the reason)."""

    files: dict[str, str | None] = field(default_factory=dict)
    urls: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


def split_loader(source: str, loaders: dict[str, str]) -> tuple[str | None, str]:
    """("name", rest) when `source` starts with a known loader name and a colon (not a URL scheme, not a
    Windows drive letter), else (None, source)."""
    m = _PREFIX.match(source)
    if m and (m.group(1) in loaders or m.group(1) in BUILTIN_LOADERS):
        return m.group(1), m.group(2)
    return None, source


def resolve_sources(sources: list[str], base_dir: Path, settings: SourcesSettings,
                    loaders: dict[str, str] | None = None) -> Resolved:
    """Expand source strings (module docstring) into files and URLs. Relative paths are relative to `base_dir`
    (the directory of the config file that names them). Never raises: a source that names nothing is a
    Skipped entry ("no file matches", "not found")."""
    loaders = loaders or {}
    out = Resolved()
    for raw in sources:
        source = str(raw).strip()
        if not source:
            continue
        loader, target = split_loader(source, loaders)
        if target.lower().startswith(("http://", "https://")):
            from ragls.sources.crawl import is_crawl

            if (refusal := credential_refusal(source)) is not None:  # every page's key: index, rag/status, prompts
                out.skipped.append(refusal.skipped)
                continue
            out.urls[target] = (loader, is_crawl(target))
            continue
        for part in (p.strip() for p in target.split(";")):
            if part:
                _resolve_path(part, loader, base_dir, settings, out, source)
    return out


def _resolve_path(part: str, loader: str | None, base_dir: Path, settings: SourcesSettings, out: Resolved,
                  source: str) -> None:
    path = os.path.expanduser(part)
    if not os.path.isabs(path):
        path = os.path.join(base_dir, path)
    if "{" in part or GLOB_CHARS.search(part):  # braces are expanded here, the rest is the walk's
        patterns = expand_braces(path)
        try:
            found_paths = {p: glob_folder(pattern) for p, pattern in bounded_glob(patterns).items()}
        except GlobTooWide as exc:
            out.skipped.append(Skipped(source, f"{part!r} {exc}"))
            return
        matches = {p: root for p, root in found_paths.items() if os.path.isfile(p)}
        # a match that is no file nor folder — a dangling link, a FIFO, a device — is said, as a folder's walk says it
        odd = [Skipped(Path(p).as_posix(), why) for p in sorted(found_paths)
               if p not in matches and (why := _not_a_file(p)) is not None]
        out.skipped += odd
        if not matches and not odd:
            out.skipped.append(Skipped(source, f"no file matches {part!r}"))
        found = set()
        for p, root in matches.items():
            # A match reached through a link (a symlinked file, or `**` descending a symlinked directory) whose real
            # path leaves the glob's fixed directory is an outside link, as in a directory walk (walk.inside_folder)
            if not settings.follow_outside_links and inside_folder(Path(root), Path(p)) is None:
                out.skipped.append(Skipped(Path(p).as_posix(), OUTSIDE_LINK))
            elif why := _left_out(p, settings):
                out.skipped.append(Skipped(Path(p).as_posix(), why))
            else:
                found.add(os.path.realpath(p))
        for p in sorted(found):
            out.files.setdefault(Path(p).as_posix(), loader)
        return
    if os.path.isdir(path):
        root = Path(path).resolve()
        walker = FileFilter(root, settings)
        found = walk_with(walker)
        if not found:
            out.skipped.append(Skipped(source, "directory has no file matched by sources.include"))
        for rel in found:
            out.files.setdefault((root / rel).as_posix(), loader)
        out.skipped += _walk_skips(root, walker, found)
        return
    if os.path.isfile(path):
        if why := _left_out(path, settings):
            out.skipped.append(Skipped(Path(path).as_posix(), why))
        else:
            out.files.setdefault(Path(os.path.realpath(path)).as_posix(), loader)
        return
    out.skipped.append(Skipped(source, f"not found: {path}"))


def _not_a_file(path: str) -> str | None:
    """Why a glob match `path` that `os.path.isfile` refuses is not read, or None for a folder (globs match folders
    too: not a file source): a dangling link or link loop (`BROKEN_LINK`, `LINK_LOOP`), a FIFO, socket or device
    (`not_regular_reason`)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return BROKEN_LINK if exc.errno == errno.ENOENT else f"{LINK_LOOP}: {exc.strerror or exc}"
    return None if stat.S_ISDIR(mode) else not_regular_reason(mode)


def _walk_skips(root: Path, walker: FileFilter, found: list[str]) -> list[Skipped]:
    """What the walk of a directory source left out and says why, as a workspace folder's scan lists it
    (`index.scan`): folders it could not enter ("/notes/private/": "unreadable folder: ..."), links out of the
    directory, secret files the include globs take, and ignore files it could not apply as written (too many
    patterns: all below them left out), each under its absolute path; an ignore file that is itself indexed is
    left to the log. Before, a RAG's directory source dropped them all silently."""
    def absolute(key: str) -> str:
        return key if os.path.isabs(key) else f"{root.as_posix()}/{key}"

    skips = [Skipped(absolute("" if rel == "./" else rel).rstrip("/") + "/", why)
             for rel, why in sorted(walker.unreadable.items()) if rel.endswith("/")]
    skips += [Skipped(absolute(rel), why) for rel, why in sorted(walker.unreadable.items()) if not rel.endswith("/")]
    skips += [Skipped(absolute(rel), OUTSIDE_LINK) for rel in walker.outside]
    skips += [Skipped(absolute(rel), why) for rel, why in sorted(walker.secrets.items())]
    listed = set(found)
    skips += [Skipped(absolute(key), why) for key, why in sorted(walker.ignore_problems.items())
              if key not in listed]
    return skips


def _left_out(path: str, settings: SourcesSettings) -> str | None:
    """Why a file a source names (or a glob matched) is never read, or None: a secret file, by its name or its real
    path's (`walk.secret_file`: `.env`, `.netrc`, `*.pem`, a link to one), with `sources.exclude_secrets` on; or a
    file of version control data (`walk.VCS_DIRS`: `.git/config` holds the clone's remote URL and credentials,
    `.git/logs/HEAD` the user's name and e-mail), as in a directory walk. A cloned folder's
    `[rags.notes] sources = [".env", ".git/config"]` (untrusted, but inside the folder, so kept) indexed them."""
    for p in (path, os.path.realpath(path)):
        parts = Path(p).parts[1:]
        if not VCS_DIRS.isdisjoint(part.lower() for part in parts):
            return VCS_DATA
        # the name with its folder's (`**/.aws/credentials`), not the whole path: the user's folders above the
        # source are no part of it
        if settings.exclude_secrets and secret_file("/".join(parts[-2:])):
            return SECRET_FILE
    return None

