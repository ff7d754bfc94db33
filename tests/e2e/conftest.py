"""Fixtures of the end-to-end tests."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from livekit import OPTIONS, index_state


@pytest.fixture(scope="module")
def rebuild_clean():
    """fn(folder) -> set of (path, ranges..., title, text) of a clean rebuild of `folder` in a fresh index dir."""
    from ragls.config.trust_filter import load_settings
    from ragls.embedding.embed import Embedder
    from ragls.index.indexer import FolderIndex

    cache = Path(tempfile.mkdtemp(prefix="ragls-live-clean-"))
    env = {"RAGLS_CACHE_DIR": str(cache), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        settings = load_settings(Path(tempfile.gettempdir()), OPTIONS)[0]
        embedder = Embedder(settings.embedding)
        embedder.ensure_loaded()

        def rebuild(folder: Path) -> dict:
            index_dir = Path(tempfile.mkdtemp(prefix="clean-", dir=cache))
            s = load_settings(folder, OPTIONS)[0]
            idx = FolderIndex(folder, s, embedder, index_dir=index_dir)
            idx.sync(embed=False)
            idx.close()
            return index_state(index_dir)

        yield rebuild
    shutil.rmtree(cache, ignore_errors=True)
