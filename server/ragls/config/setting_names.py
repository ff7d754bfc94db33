"""What a setting is called where the user set it: an error that says "fix generation.base_url" should say "the
VS Code setting ragls.generation.baseUrl" to someone who set the URL in VS Code, and name both places when the
server cannot tell.

The server knows its editor from `initialize` (`clientInfo.name`) and which settings the editor sent
(initializationOptions, then each `workspace/didChangeConfiguration`: the editor layer). A setting in the editor
layer is named as that editor spells it; one not there came from ragls.toml (or is the default), so ragls.toml is
named first, then the editor's setting that would override it. With an editor it does not know, the server names
ragls.toml and the VS Code setting.

Messages are written with the dotted ragls.toml names (`generation.base_url`, docs/configuration.md);
`name_settings` rewrites the ones an editor can set, at the editor front (lsp/handlers.py), so the CLI, MCP and HTTP
fronts keep the ragls.toml names.

A setting a file set (the user's own `~/.config/ragls/ragls.toml`, or a folder's ragls.toml whose value applies) and
no editor setting overrode is named with that file on every front: "generation.base_url in
~/.config/ragls/ragls.toml" (`setting_files` finds them, `name_setting_files` writes them; a workspace's LLM
error, workspace/rag_workspace.py). The editor front leaves a name already followed by " in <file>" as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragls.config.settings import normalize

# The settings the VS Code extension passes through (clients/vscode/src/settings.ts PASS_THROUGH_KEYS), by their
# ragls.toml names; its setting is `ragls.<section>.<camelCase name>`.
VSCODE_SETTINGS = frozenset({
    "sources.include", "sources.exclude", "retrieval.top_k", "retrieval.min_similarity", "embedding.model",
    "embedding.model_path", "generation.backend", "generation.model", "generation.base_url",
    "generation.api_key_env", "commit.style", "index.path"})
_DOTTED = re.compile(r"(?<![\w./`])(" + "|".join(re.escape(n) for n in sorted(VSCODE_SETTINGS, key=len, reverse=True))
                     + r")(?!\w|\.\w| in (?:[/~]|[A-Za-z]:[\\/]))")  # not inside a path, a file name or a longer dotted name,
# nor one already named with the file that set it (`name_setting_files`)


def editor_family(client_name: str | None) -> str | None:
    """"vscode" for VS Code and its forks and code-server (`clientInfo.name` "Visual Studio Code", "Code - OSS",
    "code-server", "VSCodium", "Cursor", ...), "neovim" for Neovim, None for any other or no name."""
    name = (client_name or "").lower()
    if "neovim" in name or name == "nvim":
        return "neovim"
    if any(word in name for word in ("visual studio code", "code - oss", "code-server", "vscod", "cursor",
                                     "windsurf")):
        return "vscode"
    return None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def editor_setting(dotted: str, family: str | None) -> str | None:
    """The editor's own name for `dotted` (`generation.base_url`), or None when that editor has none."""
    section, _, name = dotted.partition(".")
    if family == "vscode" and dotted in VSCODE_SETTINGS:
        return f"the VS Code setting ragls.{section}.{_camel(name)}"
    if family == "neovim":
        return f'settings.{dotted} in require("ragls").setup()'
    return None


def setting_label(dotted: str, editor_layer: dict[str, Any] | None, client_name: str | None) -> str:
    """How to name `dotted` to this user: the editor's setting when the editor sent it; "X in ragls.toml or <the
    editor's setting>" when it did not (the value is ragls.toml's or the default); for an unknown editor, ragls.toml
    and the VS Code setting."""
    family = editor_family(client_name)
    section, _, name = dotted.partition(".")
    layer, _ = normalize(editor_layer or {})
    editor_set = name in (layer.get(section) or {})
    own = editor_setting(dotted, family)
    if editor_set and own is not None:
        return own
    if editor_set:
        return f"{dotted} (in your editor's ragls settings)"
    other = own or editor_setting(dotted, "vscode")
    return f"{dotted} in ragls.toml" + (f" or {other}" if other else "")


def name_settings(message: str, editor_layer: dict[str, Any] | None, client_name: str | None) -> str:
    """`message` with each dotted name of a setting an editor can set (`generation.base_url`, ...) named as
    `setting_label` says; other text unchanged."""
    return _DOTTED.sub(lambda m: setting_label(m.group(1), editor_layer, client_name), message)


def setting_files(files: Iterable[tuple[Path | None, dict[str, Any] | None]],
                  overrides: Sequence[dict[str, Any] | None] = ()) -> dict[str, Path]:
    """Which file set each setting in force: {dotted name ("generation.base_url"): path}, from `files` — (path, its
    layer as applied) in load order (the user's ragls.toml, then the folder's: the last wins, as in
    `build_settings`) — without the names a later layer of `overrides` (the editor's settings) sets. A layer's keys
    are read as `normalize` reads them (aliases, camelCase, a null value dropped). Values are never read out."""
    found: dict[str, Path] = {}
    for path, data in files:
        if path is None:
            continue
        for section, values in normalize(data or {})[0].items():
            found.update({f"{section}.{name}": path for name in values})
    for layer in overrides:
        for section, values in normalize(layer or {})[0].items():
            for name in values:
                found.pop(f"{section}.{name}", None)
    return found


def file_label(path: Path) -> str:
    """`path` as a message names it: "~/.config/ragls/ragls.toml" under the home folder, else the whole path."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except (ValueError, RuntimeError):  # outside the home folder, or no home
        return str(path)


def name_setting_files(message: str, files: Mapping[str, Path]) -> str:
    """`message` with each dotted name of `files` (`setting_files`) that `name_settings` would rewrite followed by
    the file that set it: "Check generation.base_url" -> "Check generation.base_url in ~/.config/ragls/ragls.toml";
    other names and text unchanged."""
    def label(m: re.Match) -> str:
        path = files.get(m.group(1))
        return m.group(1) if path is None else f"{m.group(1)} in {file_label(path)}"

    return _DOTTED.sub(label, message)
