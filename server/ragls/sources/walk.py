"""Which files of a workspace folder are indexed.

A file is included when it matches `settings.include` and is not excluded by any of: `settings.exclude`, the
`.gitignore` files of the folder (root and nested, each relative to its own directory, when
`settings.respect_gitignore`: `ignore_files.GitIgnores`), the built-in junk directories `config.JUNK_DIRS` at any
depth, the index directory when it lies inside the folder, the secret globs `config.SECRET_GLOBS` (when `settings.exclude_secrets`), and
editor temp files (always). A file whose extension is in upper case (`NOTES.MD`) matches an include glob written in lower case. All globs
are gitignore-style (matched by `pathspec`), with brace sets `{a,b}` expanded first (`bracex`), nested braces
included.

Paths are relative to the folder with "/" separators, e.g. "docs/guide/setup.md". `walk` returns them as index
keys (`uris.path_key`: the path itself, or a percent-encoded form for a name that is not valid UTF-8); the filter
accepts either form.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from pathspec import GitIgnoreSpec

from ragls.config.globs import expand_braces, globbed, include_reaches, kept_out, literal_folders
from ragls.config.settings import JUNK_DIRS, SECRET_GLOBS, SourcesSettings
from ragls.core.uris import key_path, path_key
from ragls.sources.ignore_files import (  # noqa: F401 - MAX_IGNORE_* re-exported
    GITIGNORE,
    MAX_IGNORE_FILE_BYTES,
    MAX_IGNORE_PATTERNS,
    GitIgnores,
    reach,
    walk_dirs,
)
from ragls.sources.load import FRAGMENT_EXTENSIONS, OUTSIDE_LINK, inside_folder  # noqa: F401 - re-exported

log = logging.getLogger(__name__)

# Editor temp and swap files (Vim, Emacs, generic). "4913" is Vim's probe file for directory write access.
TEMP_GLOBS = ["*~", ".*.swp", ".*.swx", "4913", "*.tmp", ".#*"]
# `FileFilter.served`: how long a file's verdict is remembered (as `answer.includes` keeps a folder's filter), and at
# most how many verdicts (~200 bytes each).
SERVED_TTL_S = 5.0
SERVED_MEMO = 4096


def compile_globs(globs: Iterable[str], excluding: bool = False) -> GitIgnoreSpec:
    """A `GitIgnoreSpec` of gitignore-style globs after brace expansion (a leading "!" negates, last match wins).
    `excluding`: the globs keep files out (sources.exclude), else they let files in (sources.include). A glob
    `globs.glob_problem` rejects (too many expansions or wildcards) fails closed (`globs.kept_out`): one that keeps
    files out is matched by a wider glob, one that lets files in is left out; named in the workspace's warnings
    (`globs.glob_warnings`), which every front shows, and logged at debug level only (each filter built logged it
    again as a warning: `ragls index` printed it three times). Compiled once per list and remembered (`_compiled`):
    every walk, rewatch and read-back builds a filter, and a folder's ragls.toml of 50,000 globs took 4 CPU-s each
    time."""
    return _compiled(tuple(globs), excluding)


@functools.lru_cache(maxsize=32)
def _compiled(globs: tuple[str, ...], excluding: bool) -> GitIgnoreSpec:
    kept, messages = kept_out(globs, excluding)
    for message in messages:
        log.debug("the glob %s", message)
    lines = [line for glob in kept for line in expand_braces(glob.strip())]
    return GitIgnoreSpec.from_lines([line for line in lines if line])


@functools.lru_cache(maxsize=32)
def _literal_folders(include: tuple[str, ...]) -> list[tuple[str, ...]] | None:
    """`globs.literal_folders` of `include`, remembered as `_compiled` is (shared, never changed)."""
    return literal_folders(include)


#: The reason of a folder the walk could not list or enter ("unreadable folder: Permission denied").
UNREADABLE_FOLDER = "unreadable folder"


class FileFilter:
    """Decides which paths of one workspace folder are indexed; shared by `walk` and the file watcher.

    `folder` is the workspace folder; `settings` its `[sources]` settings (defaults in `config.SourcesSettings`);
    `index_dir`, when inside `folder`, is never indexed. Parsed `.gitignore` files and directory verdicts are
    cached: call `invalidate()` after a `.gitignore` changes.
    """

    def __init__(self, folder: Path, settings: SourcesSettings, index_dir: Path | None = None) -> None:
        self.folder = Path(folder)
        self.settings = settings
        self._include = compile_globs(settings.include)
        self._include_folders = _literal_folders(tuple(settings.include))  # None: a line matches at any depth
        self._exclude = compile_globs(settings.exclude, excluding=True)
        self._temp = compile_globs(TEMP_GLOBS)
        self._junk = frozenset(JUNK_DIRS)
        self._index_rel = _relative_inside(self.folder, index_dir) if index_dir is not None else None
        self._gitignores = GitIgnores(self.folder, settings, self.dir_walked)
        self._dir_reasons: dict[str, str | None] = {}
        self._served: dict[str, tuple[float, bool]] = {}  # `served`: path -> (monotonic time, verdict)
        self._changes = 0  # `changed` calls so far: a verdict computed across one is not remembered
        # Symlinked files listed under their own (alias) path, by the real path of their target: the watcher maps
        # an event on the target to the alias. Filled by `walk_with`.
        self.aliases: dict[str, list[str]] = {}
        # Symlinks the walk left out because they point outside the folder (`outside_reason`), as index keys: the
        # indexer lists them as skipped. Filled by `walk_with`.
        self.outside: list[str] = []
        # Folders the last walk could not enter ("docs/" -> reason): one skipped entry each. Filled by `walk_with`.
        self.unreadable: dict[str, str] = {}
        # Secret files the include globs would have taken (`secret_skip_reason`), as index keys -> reason: the
        # indexer lists them as skipped, so rag/status says why `.netrc` is not indexed. Filled by `walk_with`.
        self.secrets: dict[str, str] = {}
        # The open index's reST section labels, ({normalised label}, the page asking) -> {label: section title}
        # (`stores.manifest.Manifest.section_titles`), set by the index that owns this filter (`index.indexer.
        # FolderIndex`) for the answers over its folder (`answer.ref_titles`); None for a filter of one walk.
        self.section_titles: Callable[[Iterable[str], str], dict[str, str]] | None = None

    @property
    def ignore_problems(self) -> dict[str, str]:
        """Ignore files whose rules could not be applied as written (`ignore_files.read_ignore_file`: too large or
        of too many patterns, so all below them is left out; unreadable or malformed, so their rules are not
        applied), as index keys (an ignore file above the folder: its absolute path) -> why: the indexer lists each
        as skipped, so rag/status says why a folder indexes nothing. Filled as the ignore files are read (and cached
        with them: `GitIgnores.problems`)."""
        return self._gitignores.problems

    def invalidate(self) -> None:
        """Forget the cached `.gitignore` files and directory verdicts (e.g. after a `.gitignore` was edited), and the
        file verdicts `served` remembers."""
        self._gitignores.clear()
        self._dir_reasons.clear()
        self.changed()

    def read_ignore_files(self) -> None:
        """Read the folder's .gitignore files now (`GitIgnores.read_all`, a traversal of the walked directories),
        not at the first verdict asked: the indexer does it after a full scan, on its own thread, so the file
        watcher's next event (on the server's event loop) finds them read."""
        if self.settings.respect_gitignore:
            self._gitignores.read_all()

    def changed(self) -> None:
        """Something in the folder changed (the file watcher saw an event: a file edited, deleted, swapped for a
        link, a folder moved): forget the file verdicts `served` remembers."""
        self._changes += 1
        self._served.clear()

    def served(self, rel_path: str) -> bool:
        """`included(rel_path)`, remembered per path for SERVED_TTL_S seconds: every query's hits pass this test
        (`RagWorkspace.servable`), and it costs a few stat calls (the link and real-path checks of `reason`) and
        glob matches, ~0.4 ms a file. Forgotten at once by `changed()` (the file watcher's events) and
        `invalidate()`: a file that becomes excluded or a link out of the folder stops being served at its event,
        and within SERVED_TTL_S without a watcher (a reader process). A verdict computed while a change was
        reported is not remembered."""
        now = time.monotonic()
        found = self._served.get(rel_path)
        if found is not None and now - found[0] <= SERVED_TTL_S:
            return found[1]
        changes = self._changes
        verdict = self.included(rel_path)
        if changes == self._changes:
            if len(self._served) >= SERVED_MEMO:
                self._served.clear()
            self._served[rel_path] = (now, verdict)
        return verdict

    def unentered(self, rel_path: str) -> bool:
        """Whether file key `rel_path` lies in a folder the last walk could not enter (`UNREADABLE_FOLDER` in
        `unreadable`: "docs/" for "docs/a.md", "./" for every file): what it holds there is unknown, not gone."""
        folders = [key for key, why in self.unreadable.items() if key.endswith("/") and why.startswith(UNREADABLE_FOLDER)]
        return any(key == "./" or rel_path.startswith(key) for key in folders)

    def included(self, rel_path: str) -> bool:
        """True when the file at `rel_path` ("/"-separated, relative to the folder) is to be indexed (`reason`)."""
        return self.reason(rel_path) is None

    def reason(self, rel_path: str) -> str | None:
        """Why the file at `rel_path` is excluded (e.g. "junk directory node_modules"), or None if included.
        Its parent directories are checked too: a file in an ignored directory is never included; so is where it
        leads: a symlink out of the folder is excluded (`outside_reason`)."""
        rel_path = _norm(key_path(rel_path))
        if not rel_path:
            return "not a file path"
        parent, _, _ = rel_path.rpartition("/")
        if parent:
            why = self.dir_reason(parent)
            if why is not None:
                return why
        return self._file_reason(rel_path) or self.outside_reason(rel_path) or self.secret_target_reason(rel_path)

    def hidden_reason(self, rel_path: str) -> str | None:
        """Why the file at `rel_path` is left out whatever `sources.include` says — a junk, excluded or ignored
        directory above it, or its own name excluded, ignored (`.gitignore`, `.git/info/exclude`) or a secret
        file's — or None. `sources.include` chooses what is indexed; this is what nothing may read: a page's
        literalinclude of the user's gitignored `terraform.tfvars` is refused by it (`answer.includes`)."""
        rel_path = _norm(key_path(rel_path))
        if not rel_path:
            return "not a file path"
        parent, _, _ = rel_path.rpartition("/")
        return (self.dir_reason(parent) if parent else None) or self._common_reason(rel_path, is_dir=False)

    def outside_reason(self, rel_path: str) -> str | None:
        """`OUTSIDE_LINK` when the file at `rel_path` (an index key) resolves outside the folder (a symlink
        pointing out: `pw.md -> /etc/passwd`) and `sources.follow_outside_links` is off, else None. A path that
        does not exist is not outside (nothing to read). Part of `reason`."""
        if getattr(self.settings, "follow_outside_links", False):
            return None
        path = self.folder / key_path(rel_path)
        if not os.path.lexists(path):
            return None
        return OUTSIDE_LINK if inside_folder(self.folder, path) is None else None

    def secret_target_reason(self, rel_path: str) -> str | None:
        """`SECRET_LINK` when the file at `rel_path` is a symlink to a secret file inside the folder (`notes.md ->
        .env`: a name that passes the secret globs leading to one that does not), with `sources.exclude_secrets`
        on; else None. Part of `reason`."""
        path = self.folder / key_path(rel_path)
        if not self.settings.exclude_secrets or not os.path.islink(path):
            return None
        target = inside_folder(self.folder, path)
        return SECRET_LINK if target is not None and secret_file(target) else None

    def secret_skip_reason(self, rel_path: str) -> str | None:
        """`SECRET_FILE` (or `SECRET_LINK`) when the file at `rel_path` would be indexed but for
        `sources.exclude_secrets`: its name is a secret file's (`config.SECRET_GLOBS`: `.netrc`, `.pgpass`, `.env*`,
        ...) or it links to one, its directories are walked and `sources.include` matches it. Else None (an
        included file, or one left out for another reason, e.g. the default include does not take `.netrc`). The
        indexer lists such files as skipped with this reason (rag/status); the file is never read."""
        rel_path = _norm(key_path(rel_path))
        parent, _, _ = rel_path.rpartition("/")
        if not self.settings.exclude_secrets or not rel_path or (parent and self.dir_reason(parent) is not None):
            return None
        if secret_file(rel_path):
            return SECRET_FILE if self._include_matches(rel_path) else None
        return self.secret_target_reason(rel_path) if self._file_reason(rel_path) is None else None

    def indexed_target(self, real_path: str) -> str | None:
        """The relative path of `real_path` (a symlink target, resolved) when it lies inside the folder and is
        indexed itself, else None."""
        inside = _relative_inside(Path(os.path.realpath(self.folder)), Path(real_path))
        return inside if inside is not None and self.included(inside) else None

    def alias_of_indexed(self, rel_path: str) -> bool:
        """True when `rel_path` is a symlink whose target is indexed under its own path (so it is not indexed)."""
        path = self.folder / key_path(rel_path)
        return os.path.islink(path) and self.indexed_target(os.path.realpath(path)) is not None

    def dir_included(self, rel_dir: str) -> bool:
        """True when the directory `rel_dir` is walked (not excluded itself nor inside an excluded directory)."""
        return self.dir_reason(rel_dir) is None

    def dir_walked(self, rel_dir: str) -> bool:
        """`dir_included(rel_dir)`, and a file below it can match `sources.include` (`globs.include_reaches`: not
        `src/` for `docs/**/*.md`): the walk descends into it and the file watcher watches it."""
        return include_reaches(self._include_folders, _norm(key_path(rel_dir))) and self.dir_included(rel_dir)

    def dir_reason(self, rel_dir: str) -> str | None:
        """Why the directory `rel_dir` (and everything below it) is excluded, or None. Cached."""
        rel_dir = _norm(key_path(rel_dir))
        if not rel_dir:
            return None
        if rel_dir in self._dir_reasons:
            return self._dir_reasons[rel_dir]
        parent, _, _ = rel_dir.rpartition("/")
        why = self.dir_reason(parent) if parent else None
        if why is None:
            why = self._own_dir_reason(rel_dir)
        self._dir_reasons[rel_dir] = why
        return why

    # -- single-entry checks; the parent directories are assumed to be included ------------------------------

    def _own_dir_reason(self, rel_dir: str) -> str | None:
        name = rel_dir.rpartition("/")[2]
        if self._index_rel is not None and rel_dir == self._index_rel:
            return "index directory"
        if name in self._junk or name.lower() in VCS_DIRS:
            return f"junk directory {name}"
        return self._common_reason(rel_dir, is_dir=True)

    def _file_reason(self, rel_path: str) -> str | None:
        if self._index_rel is not None and rel_path == self._index_rel:
            return "index directory"
        if self._temp.match_file(globbed(rel_path)):
            return "editor temp file"
        why = self._common_reason(rel_path, is_dir=False)
        if why is not None:
            return why
        if not self._include_matches(rel_path):
            return "not matched by sources.include"
        return None

    def _include_matches(self, rel_path: str) -> bool:
        return (self._include.match_file(globbed(rel_path))
                or self._include.match_file(globbed(_lower_extension(rel_path))))

    def _common_reason(self, rel: str, is_dir: bool) -> str | None:
        probe = globbed(rel + "/" if is_dir else rel)
        if self.settings.exclude_secrets and secret_file(probe):
            return SECRET_FILE
        if self._exclude.match_file(probe):
            return "excluded by sources.exclude"
        if self.settings.respect_gitignore:
            source = self._gitignores.match(rel, is_dir)
            if source is not None:
                return f"ignored by {source}"
        return None


#: Version control data (a clone's .git/config: its remote URL, http.extraheader; logs/HEAD: the user's name and
#: e-mail), git's about the user's copy: never read, in any case of the name (`.GIT` is `.git` on macOS and Windows).
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
VCS_DATA = "version control data (never read)"

BROKEN_LINK = "broken symlink: its target does not exist"
LINK_LOOP = "symlink that cannot be followed"
OUTSIDE_DIR_LINK = "symlink to a folder outside the indexed folder (symlinked folders are never followed)"
SECRET_LINK = "symlink to a secret file (sources.exclude_secrets)"
SECRET_FILE = "secret (sources.exclude_secrets)"
NOT_REGULAR = "not a regular file"  # the reason `sources.load.read_bytes` gives too (it never opens one)
_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"))


def not_regular_reason(mode: int) -> str:
    """The skip reason of a file (or a link's target) of `st_mode` `mode` that is neither a regular file nor a
    folder: "not a regular file (a FIFO)" — opening a FIFO blocks until a writer comes, a device never ends."""
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), None)
    return f"{NOT_REGULAR} ({kind})" if kind else NOT_REGULAR


def secret_file(rel_path: str) -> bool:
    """True when folder-relative `rel_path` ("/"-separated) names a secret file (`config.SECRET_GLOBS`: `.env*`,
    `*.pem`, `.netrc`, ...): the one secret-file rule, applied by `FileFilter` (with `sources.exclude_secrets`), a
    read-back (`passage.read_back`) and the commit diff (`commit.gitdiff.classify`). For a read-back, pass the real
    path (`inside_folder`), so an indexed name swapped for a link to `.env` is refused too. Names match in any case
    (`.ENV`, `Deploy.PEM`): on a case-insensitive file system (macOS, Windows) `notes.md -> .ENV` opens `.env`."""
    return _compiled_secrets(tuple(SECRET_GLOBS)).match_file(globbed(rel_path.lower()))


@functools.lru_cache(maxsize=4)
def _compiled_secrets(globs: tuple[str, ...]):
    return compile_globs(list(globs))


def walk(folder: Path, settings: SourcesSettings, index_dir: Path | None = None) -> list[str]:
    """Sorted "/"-separated paths, relative to `folder`, of the regular files to index (see `FileFilter`), as index
    keys (`uris.path_key`; a name that is not valid UTF-8 is percent-encoded, never an error).

    Excluded directories, and those no include glob can reach (`FileFilter.dir_walked`), are not descended into.
    A symlink to a regular file inside the folder that is indexed itself is left out (real-path identity: one copy, under the real name); a symlink to any other regular file is
    listed under its own path and recorded in `FileFilter.aliases` (target real path -> alias keys) so the watcher
    can follow the target, unless the target lies outside the folder: such a link is left out and recorded in
    `FileFilter.outside` (`sources.follow_outside_links` lists it like the others). Symlinked directories are not
    followed (no loops); one whose target lies outside the folder is recorded in `FileFilter.unreadable`
    ("vendor/" -> OUTSIDE_DIR_LINK) when its place is walked, so the indexer lists it as skipped; a dangling link (or a link loop) the include globs take is recorded in
    `FileFilter.unreadable` (BROKEN_LINK, or LINK_LOOP with the OS's reason), so the indexer lists it as skipped,
    and so is a FIFO, socket or device, or a link to one (`not_regular_reason`: "not a regular file (a FIFO)").
    A folder that cannot be listed, or
    whose entries cannot be reached (read but no search permission, e.g. after `chmod -R 644`), is not descended
    into and recorded in `FileFilter.unreadable` ("docs/" -> "unreadable folder: Permission denied"; "./" for the
    root itself). Secret files (`sources.exclude_secrets`) are never listed; those `sources.include` would have
    taken are recorded in `FileFilter.secrets` (key -> reason, `secret_skip_reason`).
    """
    return walk_with(FileFilter(folder, settings, index_dir))


def walk_with(file_filter: FileFilter) -> list[str]:
    """`walk` with an existing `FileFilter` (so the watcher can keep one filter and its caches)."""
    root = file_filter.folder
    file_filter.aliases = {}
    file_filter.outside = []
    file_filter.unreadable = {}
    file_filter.secrets = {}
    found: list[str] = []
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        directory = root / rel_dir if rel_dir else root
        try:
            with os.scandir(directory) as it:
                entries = list(it)
            if entries:  # listing needs read permission, reaching an entry search (x): a mode 644 folder lists
                reach(os.path.join(directory, GITIGNORE))  # names whose files cannot be opened; and its ignore file
        except OSError as exc:
            log.debug("cannot list %s: %s", directory, exc)
            file_filter.unreadable[f"{path_key(rel_dir)}/" if rel_dir else "./"] = (
                f"{UNREADABLE_FOLDER}: {exc.strerror or exc}")
            continue
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_symlink():
                    try:
                        target = os.stat(entry.path)
                    except OSError as exc:  # dangling link or loop: listed as skipped when include takes it
                        if file_filter._file_reason(rel) is None:
                            file_filter.unreadable[path_key(rel)] = (
                                BROKEN_LINK if exc.errno == errno.ENOENT else f"{LINK_LOOP}: {exc.strerror or exc}")
                        continue
                    if stat.S_ISREG(target.st_mode) and file_filter._file_reason(rel) is None:
                        real = os.path.realpath(entry.path)
                        if file_filter.indexed_target(real) is not None:
                            continue  # the target is indexed under its own path: one copy, the real name
                        if file_filter.outside_reason(rel) is not None:
                            file_filter.outside.append(path_key(rel))
                            continue
                        if file_filter.secret_target_reason(rel) is not None:
                            file_filter.secrets[path_key(rel)] = SECRET_LINK
                            continue  # a link to a secret file is a secret file (never read, like the file)
                        file_filter.aliases.setdefault(real, []).append(path_key(rel))
                        found.append(path_key(rel))
                    elif stat.S_ISREG(target.st_mode) and (why := file_filter.secret_skip_reason(rel)) is not None:
                        file_filter.secrets[path_key(rel)] = why  # a link named like a secret file
                    elif stat.S_ISDIR(target.st_mode):  # never followed; one out of the folder is said
                        if file_filter.dir_walked(rel) and _points_outside(root, entry.path):
                            file_filter.unreadable[f"{path_key(rel)}/"] = OUTSIDE_DIR_LINK
                    elif file_filter._file_reason(rel) is None:
                        file_filter.unreadable[path_key(rel)] = not_regular_reason(target.st_mode)
                elif entry.is_dir(follow_symlinks=False):
                    if file_filter.dir_walked(rel):
                        stack.append(rel)
                elif entry.is_file(follow_symlinks=False):
                    if file_filter._file_reason(rel) is None:
                        found.append(path_key(rel))
                    elif (why := file_filter.secret_skip_reason(rel)) is not None:
                        file_filter.secrets[path_key(rel)] = why
                elif file_filter._file_reason(rel) is None:  # a FIFO, socket or device the include globs take
                    mode = entry.stat(follow_symlinks=False).st_mode
                    file_filter.unreadable[path_key(rel)] = not_regular_reason(mode)
            except OSError as exc:
                log.debug("cannot stat %s: %s", entry.path, exc)
    found.sort()
    return found


def walked_dirs(file_filter: FileFilter) -> list[str]:
    """Absolute paths of the directories `walk_with(file_filter)` descends into: the folder itself and every
    directory below it that is neither excluded (`FileFilter.dir_reason`: junk directories such as node_modules,
    .gitignore'd ones, `sources.exclude`) nor out of `sources.include`'s reach (`FileFilter.dir_walked`: `src/` for
    `docs/**/*.md`) nor a symlink (never followed) nor unlistable. What the file watcher
    watches: a file of any other directory is never indexed. Empty when the folder cannot be listed."""
    root = file_filter.folder
    rels = (file_filter._gitignores.read_all() if file_filter.settings.respect_gitignore
            else walk_dirs(root, file_filter.dir_walked))
    return [os.path.join(root, rel) if rel else str(root) for rel in rels]


def _lower_extension(rel_path: str) -> str:
    """`rel_path` with its file name's extension in lower case ("docs/NOTES.MD" -> "docs/NOTES.md"; both of an include
    fragment's, "INIT.RST.INC" -> "INIT.rst.inc"), so the include globs ("**/*.md") match upper-case extensions as
    Windows and macOS users expect."""
    head, slash, name = rel_path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return rel_path
    if ext.lower() in FRAGMENT_EXTENSIONS and "." in stem.strip("."):
        stem, _, inner = stem.rpartition(".")
        ext = f"{inner}.{ext}"
    return f"{head}{slash}{stem}.{ext.lower()}"


def _norm(rel_path: str) -> str:
    rel = rel_path.replace("\\", "/").strip("/")
    while rel.startswith("./"):
        rel = rel[2:]
    return rel


def _points_outside(folder: Path, path: str) -> bool:
    """True when the real path of `path` (a symlink in `folder`) is neither `folder` nor inside it."""
    root, real = os.path.realpath(folder), os.path.realpath(path)
    return real != root and _relative_inside(Path(root), Path(real)) is None


def _relative_inside(folder: Path, other: Path) -> str | None:
    """`other` relative to `folder` ("/"-separated) when it lies strictly inside it, else None."""
    try:
        rel = Path(os.path.realpath(other)).relative_to(os.path.realpath(folder))
    except ValueError:
        try:
            rel = Path(os.path.abspath(other)).relative_to(os.path.abspath(folder))
        except ValueError:
            return None
    text = rel.as_posix()
    return None if text in ("", ".") else text
