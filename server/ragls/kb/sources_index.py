"""The index of a sources RAG (`kb/rags.py`'s built-in backend): a `FolderIndex` over the RAG's sources — local
files, directories and globs, and web pages — with incremental sync (size/mtime then content hash for files,
conditional requests for web pages)."""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragls.config.settings import Settings
from ragls.core.errors import RequestFailed, Skipped
from ragls.embedding.embed import Embedder
from ragls.index.indexer import FolderIndex, SyncReport
from ragls.index.scan import VANISHED, load_indexable  # the workspace scan's reading and no-text check
from ragls.sources.convert import conversion_outdated
from ragls.sources.load import os_error_skip

log = logging.getLogger(__name__)


@dataclasses.dataclass
class RagSpec:
    """One `[rags.NAME]` table: where it was declared (`origin`, the config file), its sources and settings."""

    name: str
    origin: Path
    table: dict[str, Any]
    settings: Settings
    backend: str = "sources"

    @property
    def sources(self) -> list[str]:
        value = self.table.get("sources", [])
        return [value] if isinstance(value, str) else [str(s) for s in value]

    @property
    def base_dir(self) -> Path:
        return self.origin.parent


class SourcesIndex(FolderIndex):
    """The index of a sources RAG: a `FolderIndex` whose "folder" is its index directory and whose files are the
    RAG's sources — absolute paths and URLs as keys (chunks carry them as `path`, with folder ""). Sync is
    incremental by size/mtime then content hash for files, by conditional requests for web pages."""

    def __init__(self, spec: RagSpec, embedder: Embedder, index_dir: Path, read_only: bool = False,
                 on_page: Callable[[str, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None):
        self.spec = spec
        self.on_page = on_page
        self.should_stop = should_stop
        self.last_requests = 0
        self._held_pages: list = []  # web pages fetched with new content, their validators saved once written
        super().__init__(index_dir, spec.settings, embedder, index_dir=index_dir, read_only=read_only)
        self.manifest.folder = ""
        self.missing_vectors = self._missing_vectors()

    def _missing_vectors(self) -> str | None:
        """A message when the manifest lists indexed files but the vector store is missing or empty (deleted by
        hand, a half-copied cache): the chunks are re-embedded from the manifest as the index opens."""
        files = self.manifest.file_count()
        if not files or not self.manifest.get_meta("vectors_fp"):
            return None
        vectors = self.index_dir / "vectors"
        if vectors.is_dir() and any(vectors.rglob("*.lance")):
            return None
        return (f"RAG {self.spec.name!r}: its manifest lists {files} indexed file(s) but the vector store "
                f"{vectors} is missing or empty; the chunks are re-embedded from the manifest, or run "
                f"`ragls rag rebuild {self.spec.name}` to rebuild it from its sources")

    def _scan(self, only):
        from ragls.sources.resolve import resolve_sources
        from ragls.stores.manifest import FileRecord

        s = self.settings
        report = SyncReport()
        known = self.manifest.files()
        resolved = resolve_sources(self.spec.sources, self.spec.base_dir, s.sources, s.document_loaders)
        report.skipped += resolved.skipped
        self.manifest.clear_skipped(keep=set())
        docs, listed = [], set()
        for path, loader in resolved.files.items():
            listed.add(path)
            rec = known.get(path)
            p = Path(path)
            try:
                st = p.stat()
            except OSError as exc:  # listed a moment ago, now gone or unreachable: skipped with its reason
                report.skipped.append(os_error_skip(path, exc, VANISHED))
                listed.discard(path)
                continue
            if rec is not None and rec.size == st.st_size and rec.mtime_ns == st.st_mtime_ns and \
                    not conversion_outdated(path, rec.content_hash, s.document_loaders, loader):
                report.unchanged += 1
                continue
            loaded = load_indexable(p.parent, p.name, s, loader)
            if isinstance(loaded, Skipped):
                report.skipped.append(Skipped(path, loaded.reason))
                listed.discard(path)
                continue
            loaded = dataclasses.replace(loaded, folder="", path=path)
            if rec is not None and rec.content_hash == loaded.content_hash:
                self.manifest.touch_file(FileRecord(path, loaded.size, loaded.mtime_ns, loaded.content_hash))
                report.unchanged += 1
                continue
            docs.append(loaded)
        if resolved.urls:
            web_docs, unchanged, skipped = self._fetch_web(resolved.urls, set(known))
            for doc in web_docs:
                if doc.path not in listed:
                    listed.add(doc.path)
                    docs.append(doc)
            listed |= set(unchanged)
            report.unchanged += len(unchanged)
            report.skipped += skipped
        deleted = [k for k in known if k not in listed]
        return docs, deleted, report

    def _fetch_web(self, urls: dict[str, tuple[str | None, bool]], known: set[str]):
        """Fetch the URL sources and crawls: (new Documents, unchanged URLs, skipped). The validators of pages
        fetched with new content are held (`Crawler(hold_new=True)`, in `_held_pages`) until `_sync_text` has
        written their text. Raises RequestFailed when a crawl was interrupted (`should_stop`): nothing is written
        then, the held validators neither, so the next crawl fetches those pages whole."""
        from ragls.sources.crawl import Crawler, CrawlResult, HttpCache
        from ragls.sources.loaders import LoaderError, load_source_with

        s = self.settings
        result = CrawlResult()
        crawler = Crawler(cache=HttpCache(self.index_dir / "http_cache.sqlite"), known=known.__contains__,
                          max_bytes=s.sources.max_file_bytes, timeout_s=s.web.timeout_s, delay_s=s.web.delay_s,
                          max_pages=s.web.max_pages, max_depth=s.web.max_depth, user_agent=s.web.user_agent,
                          respect_robots=s.web.respect_robots, on_page=self.on_page,
                          should_stop=self.should_stop, hold_new=True)
        docs = []
        seen: set[str] = set()
        try:
            for url, (loader, recursive) in urls.items():
                if loader is not None and loader in s.document_loaders:
                    try:
                        docs.append(load_source_with(loader, s.document_loaders[loader], url,
                                                     s.sources.max_file_bytes, s.sources.loader_timeout_s))
                    except LoaderError as exc:
                        result.skipped.append(Skipped(url, str(exc)))
                elif recursive:
                    crawler.crawl(url, result, seen)
                else:
                    crawler.fetch_one(url, result)
        finally:
            crawler.close()
            crawler.cache.close()
        self.last_requests = result.requests
        if result.interrupted:  # never write a partial crawl: pages not visited would be deleted
            raise RequestFailed(f"rag {self.spec.name}: crawl interrupted (shutting down); nothing was changed")
        self.manifest.set_meta("web_kept", json.dumps([[k.path, k.reason] for k in result.kept]))
        docs += [p.document for p in result.pages if p.document is not None]
        self._held_pages = result.pages
        return docs, result.unchanged, result.skipped

    def _sync_text(self, only):
        """`FolderIndex._sync_text`, then the validators of the web pages it wrote (held by `_fetch_web`) saved:
        a write that raised (a full disk) leaves the older ones, and the next crawl fetches those pages whole.
        Saving them failing (the disk full by then) is logged, not raised: the text is in the index."""
        from ragls.sources.crawl import HttpCache

        self._held_pages = []
        report = super()._sync_text(only)
        held, self._held_pages = self._held_pages, []
        if held:
            cache = None
            try:
                cache = HttpCache(self.index_dir / "http_cache.sqlite")
                cache.put_all(held)
            except (sqlite3.Error, OSError) as exc:  # the text is written: only the next crawl's 304s are lost
                log.warning("rag %s: the web pages' validators were not saved (%s); the next crawl fetches "
                            "those %d page(s) whole", self.spec.name, exc, len(held))
            finally:
                if cache is not None:
                    cache.close()
        return report
