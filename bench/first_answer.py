"""README command 1 from scratch, then a warm CLI (issue 29): the two figures docs/benchmarks.md quotes.

    python bench/first_answer.py [--question "..."] [--warm-runs 10] [--venv DIR]

1. `python3 -m venv --upgrade-deps VENV` then `VENV/bin/pip install -e '.[offline]'` from this checkout, as the
   README says (timed; pip's output is scanned for "does not provide the extra" warnings, issue 29 item 9: there
   must be none).
2. `VENV/bin/ragls ask docs QUESTION` with a fresh HOME and cache (nothing indexed, no model copy): seconds from
   launch to the answer's first line on stdout, and to the command's end; each `ragls:` line of stderr with its
   time since launch (the time split: model load, index, embedding) and the sources the answer cites. Target: answer ≤ 30 s after pip install
   ends, on a quiet 2-core machine.
3. `ragls serve --background docs`, then `--warm-runs` calls of `ragls query docs ...` (a fresh CLI process each,
   through the background server's socket): median and min wall. Target ≤ 0.3 s. The server is stopped after.

The load average (`os.getloadavg`) is printed before and after each step: quote it with the figures.
The embedding model is the `offline` extra's MiniLM (RAGLS_OFFLINE=1: this machine reaches no model hub).

    python bench/first_answer.py --timeline [--code DIR]

only step 2, with this interpreter (`python -m ragls`, the checkout's `server/` or DIR's on PYTHONPATH, bytecode
written as an install has it): the time split of the `ask` — each `ragls:` line of stderr and the first line of the
answer, with the seconds since launch and the process's CPU seconds at the end.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUESTION = "How do I use a local Ollama model for answers?"
EXTRA_WARNING = re.compile(r"does not provide the extra", re.IGNORECASE)
SOURCE_LINE = re.compile(r"^\[\d+\] \S")  # `ragls ask`'s "[n] path:lines  title" lines (cli/app.py)


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def run_timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - t0, proc


def first_answer(ragls: Path | list[str], question: str, env: dict,
                 timeline: list | None = None) -> tuple[float | None, float, str]:
    """(seconds to the first stdout line, seconds to exit, stderr) of `ragls ask docs QUESTION` run in the repo;
    `timeline` (optional) gets (seconds since launch, "stdout"/"stderr", line) of every line."""
    import threading

    t0 = time.perf_counter()
    cmd = [str(ragls)] if isinstance(ragls, Path) else list(ragls)
    proc = subprocess.Popen([*cmd, "ask", "docs", question], env=env, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    err_lines: list[str] = []

    def read_err() -> None:
        for line in proc.stderr:
            err_lines.append(line)
            if timeline is not None:
                timeline.append((time.perf_counter() - t0, "stderr", line.rstrip()))

    reader = threading.Thread(target=read_err)
    reader.start()
    first = None
    for line in proc.stdout:
        if first is None and line.strip():
            first = time.perf_counter() - t0
        if timeline is not None:
            timeline.append((time.perf_counter() - t0, "stdout", line.rstrip()))
    reader.join()
    proc.wait()
    return first, time.perf_counter() - t0, "".join(err_lines)


def print_timeline(timeline: list) -> None:
    """Each `ragls:` line of stderr and the answer's first line, with seconds since launch; then the sources the
    answer cites (its stdout lines that name a file and line range, after the answer text)."""
    shown = 0
    for t, stream, line in timeline:
        if stream == "stderr" and line.startswith("ragls:") or stream == "stdout" and shown < 1 and line.strip():
            shown += stream == "stdout"
            print(f"{t:8.1f} s  {stream}: {line[:150]}")
    sources = [line for _, stream, line in timeline if stream == "stdout" and SOURCE_LINE.search(line)]
    print("sources cited:" + "".join(f"\n  {line.strip()[:150]}" for line in sources))


def run_timeline(args, env: dict) -> None:
    """`--timeline`: README command 1's `ask` alone, with this interpreter and the checkout's (or --code's) code."""
    code = (args.code or REPO / "server").resolve()
    env = {**env, "PYTHONPATH": str(code)}
    print(f"start: {load()}; code {code}")
    timeline: list = []
    before = os.times()
    first, total, _ = first_answer([sys.executable, "-m", "ragls"], args.question, env, timeline)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    print_timeline(timeline)
    print(f"answer after {first if first is None else round(first, 1)} s, command ends after {total:.1f} s, "
          f"process CPU {cpu:.1f} s; {load()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--warm-runs", type=int, default=10)
    ap.add_argument("--venv", type=Path, help="where to create the venv (default: a temp dir, deleted after)")
    ap.add_argument("--timeline", action="store_true", help="only the ask, with this interpreter: its time split")
    ap.add_argument("--code", type=Path, help="with --timeline: the server/ folder whose code runs")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ragls-first-answer-"))
    venv = args.venv or tmp / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "VIRTUAL_ENV",
                                                             "PYTHONDONTWRITEBYTECODE", "RAGLS_MODELS_DIR")}
    env.update({"HOME": str(tmp / "home"), "XDG_CACHE_HOME": str(tmp / "home/.cache"),
                "XDG_CONFIG_HOME": str(tmp / "home/.config"), "XDG_DATA_HOME": str(tmp / "home/.local/share"),
                "RAGLS_CACHE_DIR": str(tmp / "cache"), "RAGLS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
                "PIP_CONFIG_FILE": os.environ.get("PIP_CONFIG_FILE", "/etc/pip.conf")})
    (tmp / "home").mkdir()
    if args.timeline:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        try:
            run_timeline(args, env)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    try:
        print(f"start: {load()}")
        t_venv, proc = run_timed([sys.executable, "-m", "venv", "--upgrade-deps", str(venv)], env, REPO)
        if proc.returncode:
            sys.exit(f"venv failed: {proc.stderr}")
        t_pip, proc = run_timed([str(venv / "bin/pip"), "install", "-e", ".[offline]"], env, REPO)
        if proc.returncode:
            sys.exit(f"pip install failed: {proc.stderr[-3000:]}")
        output = proc.stdout + proc.stderr
        extra_warnings = [line for line in output.splitlines() if EXTRA_WARNING.search(line)]
        print(f"venv --upgrade-deps {t_venv:.1f} s, pip install -e '.[offline]' {t_pip:.1f} s; "
              f"'does not provide the extra' warnings: {len(extra_warnings)} {extra_warnings}; {load()}")
        timeline: list = []
        before = os.times()
        first, total, _ = first_answer(venv / "bin/ragls", args.question, env, timeline)
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        print_timeline(timeline)
        print(f"README command 1 ask: answer after {first if first is None else round(first, 1)} s, command ends "
              f"after {total:.1f} s, process CPU {cpu:.1f} s; {load()}")
        ragls = str(venv / "bin/ragls")
        subprocess.run([ragls, "serve", "--background", "docs", "--idle-exit", "10"], env=env, cwd=REPO, check=True,
                       capture_output=True)
        try:
            subprocess.run([ragls, "query", "docs", "warm up"], env=env, cwd=REPO, check=True, capture_output=True)
            walls = [run_timed([ragls, "query", "docs", "how do I configure the embedding model"], env, REPO)[0]
                     for _ in range(args.warm_runs)]
        finally:
            subprocess.run([ragls, "serve", "--stop", "docs"], env=env, cwd=REPO, check=False, capture_output=True)
        print(f"warm `ragls query` through `ragls serve --background` ({args.warm_runs} runs): median "
              f"{statistics.median(walls):.3f} s, min {min(walls):.3f} s; {load()}")
        if extra_warnings:
            sys.exit("pip warned about a missing extra (issue 29 item 9)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
