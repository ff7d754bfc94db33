"""A nearly full disk, for real: a 2 MB tmpfs mounted in a private mount namespace (`unshare`; as a normal user in
a user namespace too). Copying the offline model (12 MB) there fails with ENOSPC and leaves no partial file; a
config write that does not fit keeps the old file whole; `ragls query` answers by keywords (BM25) and says the
disk is full."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None or not shutil.which("unshare"),
                                reason="needs ragls[offline] and util-linux unshare")

SCRIPT = """
import errno, json, os, sys
from pathlib import Path
root = Path(sys.argv[1])
out = {}
os.environ["RAGLS_MODELS_DIR"] = str(root / "models")
from ragls.embedding.embed import offline_model_dir
try:
    offline_model_dir()
    out["model"] = "copied"
except OSError as exc:
    out["model"] = errno.errorcode.get(exc.errno, str(exc.errno))
from ragls.cli.rags import write_config
import tomlkit
config = root / "ragls.toml"
config.write_text('[rags.notes]\\nsources = ["a"]\\n')
doc = tomlkit.parse(config.read_text())
doc["rags"]["notes"]["sources"].append("x" * 3_000_000)
try:
    write_config(config, doc)
    out["config"] = "written"
except OSError as exc:
    out["config"] = errno.errorcode.get(exc.errno, str(exc.errno))
out["config_text"] = config.read_text()
# `ragls query` on the full disk: the model cannot be copied, so it answers by keywords and says why
import contextlib, io
docs = Path(sys.argv[2])
os.environ["RAGLS_CACHE_DIR"] = str(root / "cache")
os.environ["RAGLS_OFFLINE"] = "1"
from ragls.cli.app import main
stdout, stderr = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
    try:
        out["query_exit"] = main(["query", str(docs), "walrus tusks"]) or 0
    except SystemExit as exc:
        out["query_exit"] = exc.code
out["query_out"], out["query_err"] = stdout.getvalue(), stderr.getvalue()
out["files"] = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
print(json.dumps(out))
"""


def _on_tmpfs(tmp_path, size: str, script: str, arg, timeout_s: float) -> dict:
    """Run Python `script` with argv [mount, `arg`] on a tmpfs of `size` mounted at `tmp_path/small` in a private
    mount namespace; its last stdout line, JSON, parsed. Fails the test when the tmpfs cannot be mounted here."""
    mount = tmp_path / "small"
    mount.mkdir()
    ns = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else [
        "unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    shell = f'mount -t tmpfs -o size={size} tmpfs "$1" && exec "{sys.executable}" -c "$2" "$1" "$3"'
    proc = subprocess.run([*ns, "sh", "-c", shell, "sh", str(mount), script, str(arg)], capture_output=True,
                          text=True, timeout=timeout_s, check=False)
    if proc.returncode != 0 and "mount" in proc.stderr and "ragls" not in proc.stderr:
        pytest.fail(f"cannot mount a tmpfs in a private namespace here: {proc.stderr}")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_full_disk_leaves_no_partial_files(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "walrus.md").write_text("# Walruses\n\nA walrus uses its tusks to haul itself onto the ice.\n")
    out = _on_tmpfs(tmp_path, "2m", SCRIPT, docs, 180)
    assert out["model"] == "ENOSPC" and out["config"] == "ENOSPC"
    assert out["config_text"] == '[rags.notes]\nsources = ["a"]\n'  # the old file, whole
    assert not [f for f in out["files"] if f.endswith(".tmp")], out["files"]
    assert "models/all-MiniLM-L6-v2-int8/model.onnx" not in out["files"]  # no partial model
    # the CLI answers by keywords on the full disk, and says why vector search is off
    assert out["query_exit"] == 0, out["query_err"]
    assert "walrus.md" in out["query_out"], out
    assert "disk full" in out["query_err"] and "copying the embedding model" in out["query_err"], out["query_err"]


WORDS = ("harbour", "tide", "ferry", "puffin", "gannet", "lighthouse", "keeper", "rope", "anchor", "sail", "mast",
         "hull", "deck", "cargo", "crane", "pier")


def test_ragls_index_on_a_full_disk_says_so_and_resumes_once_there_is_room(tmp_path):
    """The index fills a 1 MB tmpfs while it is written: SQLite's "database or disk is full" (or LanceDB's "No
    space left on device", which its own error type carries) ended `ragls index` with a traceback; now one line
    says the disk is full and what to do, and once there is room the next run finishes the index."""
    mount = tmp_path / "small"
    mount.mkdir()
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(40):
        sections = "\n".join(f"## Section {j} of page {i}\n\n"
                             + " ".join(WORDS[(i * 7 + j * 3 + k * k) % len(WORDS)] for k in range(180)) + ".\n"
                             for j in range(3))
        (docs / f"p{i:02}.md").write_text(f"# Page {i}\n\n{sections}")
    ns = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else [
        "unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    index = [sys.executable, "-m", "ragls", "index", str(docs)]
    shell = ('m="$1" && shift && mount -t tmpfs -o size=1m tmpfs "$m" && "$@" 2> "$0/first.err"; echo "first=$?"; '
             'mount -o remount,size=64m "$m" && "$@" > /dev/null 2>&1; echo "second=$?"')
    env = {**os.environ, "RAGLS_CACHE_DIR": str(mount / "cache"), "RAGLS_MODELS_DIR": str(tmp_path / "models"),
           "RAGLS_OFFLINE": "1"}
    proc = subprocess.run([*ns, "sh", "-c", shell, str(tmp_path), str(mount), *index], capture_output=True,
                          text=True, timeout=600, check=False, env=env)
    if "first=" not in proc.stdout:
        pytest.fail(f"cannot mount a tmpfs in a private namespace here: {proc.stderr}")
    first_err = (tmp_path / "first.err").read_text()
    assert "first=1" in proc.stdout, proc.stdout + first_err
    assert "Traceback" not in first_err, first_err
    [line] = [x for x in first_err.splitlines() if "disk full" in x]
    assert line.startswith("ragls: disk full: the index cannot be written (") and "free some space" in line
    assert "second=0" in proc.stdout, proc.stdout


# A web RAG of one page on a 127.0.0.1 site (ETags), indexed; the page grows, the disk is filled but for 48 KB and the
# page indexed again (its text cannot be written), the filler deleted and the page indexed a third time.
WEB_SCRIPT = """
import errno, hashlib, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
root, tmp = Path(sys.argv[1]), Path(sys.argv[2])
PAGES = {"/docs/a.html": b"<html><head><title>A</title></head><body><main><h1>Setup</h1><p>The widget daemon listens on port 7341.</p></main></body></html>"}
LOG = []
class Site(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        body = PAGES.get(self.path)
        if body is None:
            self.send_response(404); self.send_header("content-length", "0"); self.end_headers(); return
        etag = '"' + hashlib.sha1(body).hexdigest()[:12] + '"'
        if self.headers.get("if-none-match") == etag:
            LOG.append((self.path, 304)); self.send_response(304); self.send_header("etag", etag); self.end_headers(); return
        LOG.append((self.path, 200)); self.send_response(200); self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body))); self.send_header("etag", etag); self.end_headers()
        self.wfile.write(body)
server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/docs/a.html"
os.environ.update(RAGLS_CACHE_DIR=str(root / "cache"), RAGLS_MODELS_DIR=str(tmp / "models"), RAGLS_OFFLINE="1", RAGLS_CONFIG_DIR=str(tmp / "config"))
(tmp / "config").mkdir(exist_ok=True); (tmp / "project").mkdir(exist_ok=True)
(tmp / "config" / "ragls.toml").write_text(f'[rags.widget]\\nsources = ["{url}"]\\nchunk_size = 100\\nweb = {{ delay_s = 0 }}\\n')
from ragls.workspace.rag_workspace import RagWorkspace
ws = RagWorkspace([tmp / "project"])
out = {}
ws.index_rag("widget")
index = ws.rags.get("widget").index
words = ["harbour", "tide", "ferry", "puffin", "gannet", "lighthouse", "keeper", "rope", "anchor", "sail"]
PAGES["/docs/a.html"] = ("<html><body><main><h1>Setup</h1><p>The widget daemon now listens on port 9184.</p>" + "".join(
    f"<h2>Part {j}</h2><p>" + " ".join(words[(j * 3 + k * k) % 10] + str(j) for k in range(150)) + ".</p>" for j in range(120))
    + "</main></body></html>").encode()
filler = root / "filler"
with open(filler, "wb") as f:  # the disk full but for 48 KB
    try:
        while True:
            f.write(b"\\0" * 65536); f.flush(); os.fsync(f.fileno())
    except OSError as exc:
        out["fill"] = errno.errorcode.get(exc.errno)
os.truncate(filler, max(0, filler.stat().st_size - 48 * 1024))
try:
    ws.index_rag("widget"); out["second"] = "ok"
except Exception as exc:
    out["second"] = f"{type(exc).__name__}: {exc}"
filler.unlink()
LOG.clear()
try:
    out["third"] = ws.index_rag("widget").indexed
except Exception as exc:
    out["third"] = f"{type(exc).__name__}: {exc}"[:200]
out["log"] = LOG[:]
out["free_mb"] = os.statvfs(root).f_bavail * os.statvfs(root).f_frsize // 2**20
out["has_new"] = "9184" in " ".join(c.text for c in index.manifest.chunks_of(url))
print(json.dumps(out))
"""


def test_a_web_page_whose_text_did_not_fit_is_fetched_whole_once_there_is_room(tmp_path):
    """The new ETag of a changed page was saved at its fetch, before its text: on a full disk the text write failed
    ("database or disk is full") but the small validator write had fitted, so the next crawl sent the new ETag, the
    site answered 304 and the index kept the old text until the page changed again. The validators are saved only
    once the text is written now: the next crawl, with room again, fetches the page whole (200) and indexes it."""
    out = _on_tmpfs(tmp_path, "64m", WEB_SCRIPT, tmp_path, 600)
    assert out["fill"] == "ENOSPC" and "disk is full" in out["second"], out
    assert out["log"] == [["/docs/a.html", 200]], out  # on main: 304, the validators of a text never written
    assert len(out["third"]) == 1 and out["has_new"], out
