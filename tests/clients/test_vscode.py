"""VS Code client (`clients/vscode/`): build, wire test, and the extension in a real VS Code, all against the real
ragls server on a temporary copy of `clients/vscode/testFixture/` (see `src/test/fixture.ts`: two folders, one a
git repository, each with a `ragls.toml` for the offline MiniLM model and generation backend `none`).

Layers:
- build: `npm ci` when node_modules is missing (or a copy of the one kept per lockfile in the toolchain dir),
  `npm run package` (its vscode:prepublish runs tsc: the one type check) and eslint.
- wire: `node --test out/test/wire.test.js` — the server over stdio through vscode-jsonrpc, plus launch resolution.
- in-host: `out/test/e2e/runInHost.js` — code-server + headless Chromium run `src/test/suite/*.test.ts` in the
  extension host; every command against the real server.
- UI: `out/test/e2e/uiAsk.js` installs the packaged .vsix into code-server, asks through the command palette and
  saves screenshots to `clients/vscode/test-results/`, then (uiReload.ts' steps, in the same code-server session)
  reloads the window over an extracted-text editor; `out/test/e2e/uiTrust.js`, a session of its own with VS Code's
  Workspace Trust on, the workspace opened in Restricted Mode.

The first two need node and npm; the last two also need the toolchain from
`clients/vscode/scripts/setup-test-toolchain.sh` (found through `$RAGLS_TOOLS_DIR/env.sh`, default `.tools/env.sh`),
and are skipped with the reason when it is absent — except under `RAGLS_REQUIRE_VSCODE_TOOLCHAIN=1` (.ci/run),
where its absence fails them. The server runs as `sys.executable -m ragls serve`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# tests/conftest.py `_run_embedding_cache`: the servers these tests start (wire, in-editor, UI) count nothing the
# model embedded, and each index of clients/vscode/testFixture reuses the vectors of the run's earlier ones.
SHARED_EMBEDDING_CACHE = True

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "clients" / "vscode"
NODE = shutil.which("node")
NPM = shutil.which("npm")
TOOLS = Path(os.environ.get("RAGLS_TOOLS_DIR") or ROOT / ".tools")
RESULTS = EXT / "test-results"

pytestmark = pytest.mark.skipif((NODE is None or NPM is None) and os.environ.get("RAGLS_REQUIRE_VSCODE_TOOLCHAIN") != "1",
                                reason="node and npm are needed for the VS Code client")


def _toolchain() -> dict[str, str] | None:
    """Variables from the toolchain's env.sh (NODE24_BIN, CODE_SERVER, PLAYWRIGHT_DIR, CHROMIUM), if installed."""
    env_sh = TOOLS / "env.sh"
    if not env_sh.is_file():
        return None
    found = dict(re.findall(r'^export (\w+)="([^"]*)"$', env_sh.read_text(encoding="utf-8"), re.MULTILINE))
    needed = ("NODE24_BIN", "CODE_SERVER", "PLAYWRIGHT_DIR", "CHROMIUM")
    if not all(k in found for k in needed):
        return None
    if not (Path(found["CODE_SERVER"]).exists() and Path(found["CHROMIUM"]).exists()):
        return None
    return {k: found[k] for k in needed}


TOOLCHAIN = _toolchain()
MISSING_TOOLCHAIN = f"code-server toolchain not installed in {TOOLS} (run clients/vscode/scripts/setup-test-toolchain.sh)"
REQUIRED = os.environ.get("RAGLS_REQUIRE_VSCODE_TOOLCHAIN") == "1"  # CI: a missing toolchain is a failure
needs_toolchain = pytest.mark.skipif(TOOLCHAIN is None and not REQUIRED, reason=MISSING_TOOLCHAIN)


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env.pop("ANTHROPIC_API_KEY", None)
    env["RAGLS_TEST_PYTHON"] = sys.executable
    env.update(extra)
    return env


def _run(args: list[str], timeout: float, **extra: str) -> subprocess.CompletedProcess[str]:
    """Run in clients/vscode in its own process group; on timeout the whole group is killed."""
    proc = subprocess.Popen(args, cwd=EXT, env=_env(**extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{' '.join(args)} timed out after {timeout} s\n{out}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything left behind (a server, a browser)
        except ProcessLookupError:
            pass
    print(out)
    return subprocess.CompletedProcess(args, proc.returncode, out, "")


def _assert_tap(result: subprocess.CompletedProcess[str], what: str) -> list[str]:
    lines = result.stdout.splitlines()
    failed = [line for line in lines if line.lstrip().startswith("not ok ")]
    passed = [line for line in lines if line.lstrip().startswith("ok ")]
    assert result.returncode == 0 and not failed, f"{what} failed (exit {result.returncode}):\n{result.stdout}"
    assert passed, f"{what} ran no tests:\n{result.stdout}"
    return passed


VSIX = EXT / "ragls-vscode.vsix"


def _install_node_modules() -> None:
    """clients/vscode/node_modules as `npm ci` makes it from package-lock.json. With the toolchain dir outside this
    checkout (.ci/run: the user cache dir), the install is kept there per lockfile (`node_modules/<sha256>`) and a
    fresh clone copies it (~1 CPU-s) instead of running `npm ci` again (~27 CPU-s); the copy is the same tree, and a
    changed lockfile gets its own install."""
    lock = EXT / "package-lock.json"
    if TOOLS.resolve().is_relative_to(ROOT):
        result = _run([NPM, "ci", "--no-audit", "--no-fund"], timeout=600)
        assert result.returncode == 0, result.stdout
        return
    cached = TOOLS / "node_modules" / hashlib.sha256(lock.read_bytes()).hexdigest()
    if not (cached / "node_modules" / ".package-lock.json").is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=f"{cached.name}.", dir=cached.parent))
        try:
            for name in ("package.json", "package-lock.json"):
                shutil.copy2(EXT / name, fresh / name)
            result = _run([NPM, "ci", "--no-audit", "--no-fund", "--prefix", str(fresh)], timeout=600)
            assert result.returncode == 0, result.stdout
            if not (cached / "node_modules" / ".package-lock.json").is_file():
                shutil.rmtree(cached, ignore_errors=True)  # an incomplete earlier install
            with contextlib.suppress(OSError):  # another checkout's install got there first: the same tree
                fresh.rename(cached)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
    shutil.rmtree(EXT / "node_modules", ignore_errors=True)
    result = subprocess.run(["cp", "-a", str(cached / "node_modules"), str(EXT / "node_modules")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def built() -> Path:
    """node_modules installed (npm ci, only when missing), out/ compiled and the .vsix packaged: `npm run package`
    runs vscode:prepublish (tsc, the one type check of the sources, then the esbuild bundle) before vsce packs."""
    assert NODE is not None and NPM is not None, "node and npm are needed for the VS Code client"
    if not (EXT / "node_modules" / ".package-lock.json").exists():
        _install_node_modules()
    VSIX.unlink(missing_ok=True)
    result = _run([NPM, "run", "package"], timeout=300)
    assert result.returncode == 0 and VSIX.is_file(), f"tsc or vsce package failed:\n{result.stdout}"
    # The .vsix holds esbuild's bundle (dist/extension.js); the in-editor tests load the extension from this folder
    # and import out/ themselves, so dist/extension.js goes back to the loader of out/extension.js (one copy of
    # each module, as `npm run compile` leaves it).
    result = _run([NODE, "scripts/bundle.mjs", "--dev"], timeout=60)
    assert result.returncode == 0, result.stdout
    return EXT / "out"


def test_compile_and_lint(built: Path) -> None:
    assert (built / "extension.js").is_file()
    result = _run([NPM, "exec", "--", "eslint", "src"], timeout=300)  # the type check was the compile's
    assert result.returncode == 0, f"lint failed:\n{result.stdout}"


def test_vsix_is_bundled_and_its_page_has_no_broken_image(built: Path) -> None:
    """The .vsix `npm run package` writes: esbuild's bundle, no node_modules or sources, at most 40 files; its README
    (the Extensions / Marketplace page, which shows https: images only) is the repository's without the relative
    screenshots (scripts/package-readme.mjs), so nothing on the page is a broken image."""
    import zipfile

    with zipfile.ZipFile(VSIX) as z:
        names = z.namelist()
        readme = z.read("extension/readme.md").decode("utf-8")
        manifest = z.read("extension/package.json").decode("utf-8")
    files = [n for n in names if not n.endswith("/")]
    assert len(files) <= 40, files
    assert "extension/dist/extension.js" in files
    assert not [n for n in files if "node_modules/" in n or n.endswith((".ts", ".map")) or "/out/" in n], files
    assert not [n for n in files if "screenshots/" in n], files
    assert readme.startswith("# ragls for VS Code") and "## Commands" in readme and "## Development" not in readme
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", readme)
    assert all(image.startswith("https://") for image in images), images
    assert re.findall(r"!\[[^\]]*\]\(media/screenshots/", (EXT / "README.md").read_text(encoding="utf-8"))
    assert '"secondarySidebar"' in manifest  # the chat view's home
    # The cited lines' highlight has its own colour, visible in a dark theme (editor.rangeHighlightBackground is
    # #ffffff0b in Dark Modern): alpha at least 0x60 over VS Code's selection blue.
    colors = {c["id"]: c["defaults"] for c in json.loads(manifest)["contributes"].get("colors", [])}
    assert int(colors.get("ragls.sourceHighlightBackground", {}).get("dark", "#00000000")[7:9], 16) >= 0x60, colors
    with zipfile.ZipFile(VSIX) as z:
        bundle = z.read("extension/dist/extension.js").decode("utf-8")
    assert re.search(r"ThemeColor\(\s*[\"']ragls\.sourceHighlightBackground[\"']\s*\)", bundle), "the highlight does not use it"
    # A link to another setting is `#id#` in backticks; bare, the Settings UI shows the raw #id#.
    assert not re.search(r"(?<!`)#ragls\.[\w.]+#", manifest), re.findall(r".{20}#ragls\.[\w.]+#.{5}", manifest)


def test_wire_protocol_against_real_server(built: Path) -> None:
    result = _run([NODE, "--test", "out/test/wire.test.js"], timeout=300)
    _assert_tap(result, "wire test")
    counts = dict(re.findall(r"^# (pass|fail) (\d+)$", result.stdout, re.MULTILINE))
    assert int(counts.get("pass", 0)) >= 8 and counts.get("fail") == "0", result.stdout


@needs_toolchain
def test_extension_in_vscode(built: Path, tmp_path: Path) -> None:
    assert TOOLCHAIN is not None, MISSING_TOOLCHAIN
    result = _run([NODE, "out/test/e2e/runInHost.js", str(tmp_path / "host")], timeout=660, **TOOLCHAIN)
    passed = _assert_tap(result, "in-editor tests")
    assert any("Generate Commit Message" in line for line in passed), result.stdout
    assert re.search(r"^# (\d+) passed, 0 failed$", result.stdout, re.MULTILINE), result.stdout


@needs_toolchain
def test_ask_through_the_command_palette(built: Path, tmp_path: Path) -> None:
    assert TOOLCHAIN is not None, MISSING_TOOLCHAIN
    shots = [RESULTS / name for name in ("answer-panel.png", "source-opened.png", "search-live.png",
                                         "search-opened-highlight.png", "progress.png", "status-starting.png", "walkthrough.png",
                                         "chat-view.png", "chat-abstained.png", "chat-code-block.png", "chat-history.png",
                                         "chat-error.png", "chat-server-stopped.png", "chat-server-retried.png",
                                         "status-warning.png", "status-warning-message.png",
                                         "extracted-after-reload.png")]
    crumbs = RESULTS / "extracted-breadcrumbs.png"
    for shot in [*shots, crumbs]:
        shot.unlink(missing_ok=True)
    result = _run([NODE, "out/test/e2e/uiAsk.js", str(VSIX), str(tmp_path / "ui")], timeout=900,
                  RAGLS_TEST_RESULTS=str(RESULTS), **TOOLCHAIN)
    passed = _assert_tap(result, "UI test")
    for shot in shots:
        assert shot.is_file() and shot.stat().st_size > 10_000, f"no screenshot {shot.name}"
    # uiReload.ts' steps, last in the session: an HTML page's result opened from Search Docs is its extracted text in
    # Markdown, and stays so in the editor VS Code restores after a window reload (it came back in HTML mode); its
    # breadcrumbs read the page's path in the workspace (they read every folder from /)
    assert any("after a window reload" in line for line in passed), result.stdout
    assert any("its breadcrumbs read the page's path" in line for line in passed), result.stdout
    assert crumbs.is_file() and crumbs.stat().st_size > 1_000, "no screenshot extracted-breadcrumbs.png"


@needs_toolchain
def test_restricted_mode_warning_offers_manage_workspace_trust(built: Path, tmp_path: Path) -> None:
    """Restricted Mode (uiTrust.ts): the server's warning about an untrusted ragls.toml and Show Status carry a
    "Manage Workspace Trust" button, which opens the Workspace Trust editor; its Trust restarts the server trusted."""
    assert TOOLCHAIN is not None, MISSING_TOOLCHAIN
    shots = [RESULTS / name for name in ("restricted-warning.png", "restricted-trust-editor.png")]
    for shot in shots:
        shot.unlink(missing_ok=True)
    result = _run([NODE, "out/test/e2e/uiTrust.js", str(VSIX), str(tmp_path / "ui")], timeout=600,
                  RAGLS_TEST_RESULTS=str(RESULTS), **TOOLCHAIN)
    passed = _assert_tap(result, "UI test in Restricted Mode")
    assert any("the warning is gone" in line for line in passed), result.stdout
    for shot in shots:
        assert shot.is_file() and shot.stat().st_size > 10_000, f"no screenshot {shot.name}"
