"""The folder a command reads, checked once for every command (cli/common.py, cli/ops.py, cli/trust.py): a module of
its own so that cli/trust.py, which cli/common.py calls to offer trust, need not import cli/common.py back."""

from __future__ import annotations

from pathlib import Path

from ragls.core.errors import InvalidParams


def require_folder(path: str | Path, cmd: str | None = None) -> Path:
    """`path` (user-expanded) when it is a folder. Raises InvalidParams (exit code 2) saying why not: no such file or
    folder, or a file (then which folder to pass, and for `ask` (`cmd`) the --file option)."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        why = "no such file or folder" if not folder.exists() else "a file; ragls reads a folder, so pass its folder"
        if folder.is_file():
            why += f" {folder.parent}" + (f" and --file {folder.name} to ask about this file" if cmd == "ask" else "")
        raise InvalidParams(f"not a folder: {folder} ({why})")
    return folder
