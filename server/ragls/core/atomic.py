"""Files written whole or not at all: a temp file beside the target, renamed over it on success and deleted on any
failure — a full disk (ENOSPC) leaves neither a partial target nor a stray temp file (issue 29: a partial 12 MB
model copy filled what was left of a disk and was never deleted)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def atomic_target(dst: Path) -> Iterator[Path]:
    """Yield a temp path in `dst`'s folder (".NAME.PID.tmp") for the caller to write; when the block returns it
    replaces `dst` in one rename (a concurrent reader sees the old file or the new one, never half of one); when
    it raises, the temp file is deleted and the exception (e.g. OSError ENOSPC) propagates."""
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
