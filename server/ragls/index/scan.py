"""The text phase's first step, for `indexer.FolderIndex`: decide what changed since the last sync — the files to
(re)read, those to delete, those skipped and why — from a full walk of the folder or the paths the file watcher
hinted; then which documents that makes once reST pages hold the text of what they include (`index.inclusion`).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ragls.config.globs import named_globs
from ragls.config.settings import Settings
from ragls.core.errors import Skipped
from ragls.core.ir import Document
from ragls.core.uris import key_path
from ragls.index.chunking import no_text_reason
from ragls.sources.convert import UNSTAMPED, conversion_outdated, load_source, read_stamp
from ragls.sources.walk import OUTSIDE_LINK, FileFilter, walk_with
from ragls.stores.manifest import FileRecord

log = logging.getLogger(__name__)

VANISHED = "vanished while indexing (deleted after it was listed)"


@dataclass
class SyncReport:
    """Outcome of one sync: counts of files (re)indexed, deleted, unchanged; skipped files with reasons."""

    indexed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    # path -> `convert.read_stamp` of the skipped files whose reason follows from their bytes (Manifest.set_skipped)
    stamps: dict[str, str] = field(default_factory=dict)
    chunks_added: int = 0
    from_cache: int = 0
    elapsed_ms: float = 0.0
    vectors_error: str | None = None  # the vector phase could not run (no embedding model): BM25 only


def load_indexable(folder: Path, rel: str, settings: Settings, loader: str | None = None,
                   confined: bool = False) -> Document | Skipped:
    """The file `folder / rel` read for indexing (`convert.load_source`, with `settings.sources.max_file_bytes`,
    `[document_loaders]`, `loader` — a `name:` source prefix — and `sources.loader_timeout_s`), or why it is skipped:
    its reading failed, or its text holds nothing to index (`chunking.no_text_reason`: empty, whitespace or markup
    only, degenerate text such as one line repeated or encoded data). The one check of what a scan indexes: the
    workspace's scan and a sources RAG's (`kb.sources_index`) both read through it. `confined`: the file as opened
    must lie inside `folder` (`load.read_bytes`), else it is skipped with `OUTSIDE_LINK`."""
    loaded = load_source(folder, rel, settings.sources.max_file_bytes, settings.document_loaders, loader,
                         settings.sources.loader_timeout_s, confined=confined)
    if not isinstance(loaded, Skipped) and (why := no_text_reason(loaded.text)) is not None:
        return Skipped(rel, why)
    return loaded


class TextScan:
    """Mixin of `indexer.FolderIndex`: `_scan`. Uses the index's `folder`, `settings`, `index_dir`, `manifest`,
    `filter`, `restrict_to`, and sets `symlink_targets` at each full scan."""

    def _scan(self, only: Iterable[str] | None) -> tuple[list[Document], list[str], SyncReport]:
        """Decide what changed. `only`: relative paths hinted by the watcher (always re-hashed)."""
        report = SyncReport()
        allowed = self.restrict_to() if self.restrict_to is not None else None
        if only is None:
            known = self.manifest.files()
            walker = FileFilter(self.folder, self.settings.sources, self.index_dir)
            listed = walk_with(walker)
            self.filter.read_ignore_files()  # the watcher's filter, read here rather than at its next event
            self.symlink_targets = walker.aliases
            report.skipped += [Skipped(rel, OUTSIDE_LINK) for rel in walker.outside]
            report.skipped += [Skipped(rel, why) for rel, why in sorted(walker.secrets.items())]  # never read
            self._record_ignore_warnings(walker.ignore_problems)
            if allowed is not None:  # a team overlay indexes only the locally changed files
                listed = [p for p in listed if p in allowed]
            if allowed is None and not listed and known and self._indexed_files_exist(known):
                # Most likely a typo in sources.include: emptying the index would answer every query with
                # nothing, silently. Keep it and say why (rag/status, doctor); a rebuild empties it on purpose.
                warning = (f"no file of {self.folder} matches the sources settings (include "
                           f"{named_globs(self.settings.sources.include)}), though the {len(known)} indexed files still exist: "
                           f"the index was kept; fix sources.include (or run rebuild to empty the index)"
                           + "".join(f"; {path}: {why}" for path, why in self.ignore_warnings))
                if warning != self.include_warning:
                    log.warning("%s", warning)
                    self.manifest.set_meta("include_warning", warning)
                return [], [], report
            if self.include_warning:
                self.manifest.set_meta("include_warning", "")
            candidates = sorted(set(listed) | set(known))
            listed_set = set(listed)
            self.manifest.clear_skipped(keep=listed_set | set(walker.unreadable) | set(walker.outside)
                                        | set(walker.secrets))
            # a folder the walk could not enter: one entry; the files it held stay indexed as they were (unknown is
            # not gone: a `chmod` or a lost mount deleted them, session 64) until the folder is read again
            report.skipped += [Skipped(rel, why) for rel, why in sorted(walker.unreadable.items())]
        else:
            candidates = sorted(set(only))
            known = self.manifest.file_records(candidates)  # O(hinted paths), not O(index)
            listed_set = {p for p in candidates if self.filter.included(p) and not self.filter.alias_of_indexed(p)
                          and (allowed is None or p in allowed)}
            # a file replaced by a link out of the folder (or such a link created) is listed as skipped at once
            report.skipped += [Skipped(p, OUTSIDE_LINK) for p in candidates
                               if p not in listed_set and self.filter.outside_reason(p) is not None]
            # so is a secret file the include globs take (`.netrc` under include "**/*"), never read
            report.skipped += [Skipped(p, why) for p in candidates if p not in listed_set
                               and os.path.lexists(self.folder / key_path(p))
                               and (why := self.filter.secret_skip_reason(p)) is not None]
        docs: list[Document] = []
        deleted: list[str] = []
        skips = self.manifest.skip_stamps() if only is None else {}
        total = len(candidates)
        if total:
            self.on_progress("scan", 0, total, f"0/{total} files scanned")  # the scan's start (cli Progress times it)
        for n, rel in enumerate(candidates, 1):
            if n % 200 == 0 or n == total:  # "scan": checking for changes, before any file is (re)indexed
                self.on_progress("scan", n, total, f"{n}/{total} files scanned")
            path = self.folder / key_path(rel)
            if only is None and rel in known and rel not in listed_set and walker.unentered(rel):
                report.unchanged += 1
                continue
            if rel not in listed_set or not os.path.isfile(path):  # False, not raising, for EACCES
                if rel in known:
                    deleted.append(rel)
                if only is None and rel in listed_set:  # listed by the walk a moment ago, gone now
                    report.skipped.append(Skipped(rel, VANISHED))
                continue
            rec = known.get(rel)
            if only is None and rec is not None:
                try:
                    st = path.stat()
                except OSError:
                    deleted.append(rel)
                    continue
                if rec.size == st.st_size and rec.mtime_ns == st.st_mtime_ns and \
                        not conversion_outdated(rel, rec.content_hash, self.settings.document_loaders):
                    report.unchanged += 1
                    continue
            stamp = read_stamp(path, rel, self.settings.sources.max_file_bytes, self.settings.document_loaders)
            if only is None and rec is None and stamp is not None and (old := skips.get(rel)) and old[1] == stamp:
                report.skipped.append(Skipped(rel, old[0]))  # skipped before, unchanged since: not read again
                report.stamps[rel] = stamp
                continue
            # the file opened must lie in the folder: a name swapped for a link out since the walk is not read
            loaded = load_indexable(self.folder, rel, self.settings,
                                    confined=not self.settings.sources.follow_outside_links)
            if isinstance(loaded, Skipped):
                if stamp is not None and not loaded.reason.startswith(UNSTAMPED):
                    report.stamps[rel] = stamp
                # vanished: listed, then deleted before it was read (recorded until the next full scan, which no
                # longer lists it); a watcher hint for a deleted file is a plain deletion
                if not (loaded.reason.startswith("vanished") and only is not None):
                    report.skipped.append(loaded)
                if rel in known:
                    deleted.append(rel)
                continue
            if rec is not None and rec.content_hash == loaded.content_hash:
                self.manifest.touch_file(FileRecord(rel, loaded.size, loaded.mtime_ns, loaded.content_hash))
                report.unchanged += 1
                continue
            docs.append(loaded)
        return docs, deleted, report

    @property
    def include_warning(self) -> str | None:
        """Set by the last full scan when it listed no file while the indexed files still exist (the index was
        kept, see `_scan`); kept in the manifest so read-only processes (`ragls status`) show it too."""
        return self.manifest.get_meta("include_warning") or None

    @property
    def ignore_warnings(self) -> list[tuple[str, str]]:
        """(ignore file's path, why) of each ignore file whose rules the last full scan could not apply as written
        (`FileFilter.ignore_problems`: too large or of too many patterns, so all below it is left out; unreadable,
        malformed, a line too costly to match). The path is absolute. Kept in the manifest, like `include_warning`,
        so read-only processes (`ragls status`) show them too: rag/status lists each among `errors` (severity
        "warning"), `ragls index` prints it, the server's watcher shows it once."""
        raw = self.manifest.get_meta("ignore_warnings")
        return [tuple(pair) for pair in json.loads(raw)] if raw else []

    def _record_ignore_warnings(self, problems: dict[str, str]) -> None:
        """Store the full scan's `FileFilter.ignore_problems` as `ignore_warnings` (absolute paths), when changed."""
        pairs = [[k if os.path.isabs(k) else str(self.folder / key_path(k)), why] for k, why in sorted(problems.items())]
        value = json.dumps(pairs) if pairs else ""
        if value != (self.manifest.get_meta("ignore_warnings") or ""):
            self.manifest.set_meta("ignore_warnings", value)

    def _indexed_files_exist(self, known: dict[str, FileRecord]) -> bool:
        """True when some file of the index is still on disk (the walk lists none: the settings exclude them)."""
        return any(os.path.lexists(self.folder / key_path(p)) for p in known)

