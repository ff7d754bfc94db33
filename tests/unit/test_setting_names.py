"""config/setting_names.py: an error names a setting as the user set it — the VS Code setting when VS Code sent it,
ragls.toml and the editor's setting when the editor did not, both ragls.toml and VS Code for an unknown editor —
and the editor front (lsp/handlers.rpc_errors) renames the settings in a JSON-RPC error's message."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from ragls.config.setting_names import VSCODE_SETTINGS, editor_family, name_settings
from ragls.config.settings import normalize
from ragls.core.errors import RequestFailed
from ragls.lsp.handlers import rpc_errors

ROOT = Path(__file__).resolve().parents[2]
MESSAGE = ("external backend at http://127.0.0.1:9/v1 is not reachable (GET http://127.0.0.1:9/health: refused); "
           "start the server (ragls never launches an external backend) or fix generation.base_url")


@pytest.mark.parametrize(("layer", "client", "named"), [
    ({"generation": {"baseUrl": "http://127.0.0.1:9/v1"}}, "Visual Studio Code",
     "or fix the VS Code setting ragls.generation.baseUrl"),
    ({"ragls": {"generation": {"baseUrl": "http://127.0.0.1:9/v1"}}}, "code-server",
     "or fix the VS Code setting ragls.generation.baseUrl"),
    ({"retrieval": {"topK": 3}}, "Visual Studio Code",  # the URL is ragls.toml's: name it, then the override
     "or fix generation.base_url in ragls.toml or the VS Code setting ragls.generation.baseUrl"),
    ({"generation": {"base_url": "http://127.0.0.1:9/v1"}}, "Neovim",
     'or fix settings.generation.base_url in require("ragls").setup()'),
    ({}, "Neovim", 'or fix generation.base_url in ragls.toml or settings.generation.base_url in require("ragls").setup()'),
    ({"generation": {"baseUrl": "http://127.0.0.1:9/v1"}}, "Helix",
     "or fix generation.base_url (in your editor's ragls settings)"),
    ({}, None, "or fix generation.base_url in ragls.toml or the VS Code setting ragls.generation.baseUrl"),
])
def test_the_setting_is_named_where_the_user_set_it(layer, client, named):
    renamed = name_settings(MESSAGE, layer, client)
    assert renamed.endswith(named), renamed
    assert renamed.startswith("external backend at http://127.0.0.1:9/v1 is not reachable (GET http://127.0.0.1:9")


def test_other_text_and_settings_no_editor_has_stay():
    text = "no reply within 5 s; raise generation.timeout_s (see docs/generation.base_url.md)"
    assert name_settings(text, {"generation": {"timeoutS": 5}}, "Visual Studio Code") == text
    assert editor_family("Code - OSS") == editor_family("VSCodium") == "vscode"
    assert editor_family("Neovim") == "neovim" and editor_family("Zed") is None and editor_family(None) is None


def test_the_vs_code_names_are_the_extensions_settings():
    """VSCODE_SETTINGS is the extension's pass-through list (settings.ts), each one a setting of its package.json."""
    source = (ROOT / "clients/vscode/src/settings.ts").read_text(encoding="utf-8")
    listed = re.search(r"PASS_THROUGH_KEYS = \[(.*?)\] as const", source, re.DOTALL).group(1)
    for spread in re.findall(r"\.\.\.(\w+)", listed):  # a list spread into it (`...RESTRICTED`) is read too
        listed += re.search(rf"const {spread} = \[(.*?)\] as const", source, re.DOTALL).group(1)
    keys = re.findall(r"'([\w.]+)'", listed)
    contributed = json.loads((ROOT / "clients/vscode/package.json").read_text(encoding="utf-8"))
    properties = {k for c in contributed["contributes"]["configuration"] for k in c["properties"]}
    dotted = []
    for key in keys:
        section, name = key.split(".")
        ((_, fields),) = normalize({section: {name: 1}})[0].items()  # the server's name of the setting
        dotted.append(f"{section}.{next(iter(fields))}")
        assert f"ragls.{key}" in properties
        assert name_settings(f"set {dotted[-1]} now", {}, "Visual Studio Code") == (
            f"set {dotted[-1]} in ragls.toml or the VS Code setting ragls.{key} now")
    assert set(dotted) == VSCODE_SETTINGS


def test_a_json_rpc_error_names_the_editors_setting():
    async def handler(ls, params):
        raise RequestFailed(MESSAGE)

    ls = SimpleNamespace(client_name="Visual Studio Code",
                         client_settings=lambda: {"generation": {"baseUrl": "http://127.0.0.1:9/v1"}})
    with pytest.raises(Exception) as caught:
        asyncio.run(rpc_errors(handler)(ls, {}))
    assert caught.value.code == -32803
    assert caught.value.message.endswith("or fix the VS Code setting ragls.generation.baseUrl")
