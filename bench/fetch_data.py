"""Download the benchmark data sets from their public originals into the user cache dir, checking sha256.

    python bench/fetch_data.py [rust-book] [flask-docs] [cranfield]     # default: all three
    python bench/fetch_data.py --list                                    # where each data set is found now

- rust-book: `src/*.md` (+ COPYRIGHT, LICENSE-MIT, LICENSE-APACHE) of rust-lang/book at a pinned commit;
- flask-docs: `docs/**/*.rst` (+ LICENSE.txt) of pallets/flask at a pinned commit;
- cranfield: `cran.all.1400`, `cran.qry`, `cranqrel` (Chetan-Prasad/IR-Lucene_Cran) and `cranqrel.readme`
  (noramtboraas/information-retrieval), each at a pinned commit.

Every file is checked against the sha256 in `bench/data_manifest.json` (taken from the copies the figures in
docs/benchmarks.md and bench/history/ were measured on); a data set is written only when all of its files match, into
`<user cache dir>/ragls/bench-data/<layout>` — the last place `bench/data.py` looks, so the benchmarks find it
with no flag. Needs internet (github.com); CI never runs it (CI has the shared data folder).
`--write-manifest` re-creates the manifest from the data sets found locally (maintainers only).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from data import LAYOUT, DataNotFound, dataset, fetch_root

MANIFEST = Path(__file__).resolve().parent / "data_manifest.json"

# Pinned public originals. A tarball's member "<repo>-<commit>/<prefix><name>" becomes <name> in the data set.
SOURCES = {
    "rust-book": {
        "tarball": "https://github.com/rust-lang/book/archive/917544888a55e4da7109bdba8c88c893c0da70f4.tar.gz",
        "map": [("src/", ""), ("", "")],  # src/*.md -> *.md; COPYRIGHT, LICENSE-* from the root
    },
    "flask-docs": {
        "tarball": "https://github.com/pallets/flask/archive/2ac89889f4cc.tar.gz",
        "map": [("docs/", ""), ("", "")],  # docs/**/*.rst -> **/*.rst; LICENSE.txt from the root
    },
    "cranfield": {
        "files": {
            "cran.all.1400": "https://raw.githubusercontent.com/Chetan-Prasad/IR-Lucene_Cran/"
                             "ff1bd825c1781e908fdcb8a20609ef779abb3d2a/cran.all.1400",
            "cran.qry": "https://raw.githubusercontent.com/Chetan-Prasad/IR-Lucene_Cran/"
                        "ff1bd825c1781e908fdcb8a20609ef779abb3d2a/cran.qry",
            "cranqrel": "https://raw.githubusercontent.com/Chetan-Prasad/IR-Lucene_Cran/"
                        "ff1bd825c1781e908fdcb8a20609ef779abb3d2a/cranqrel",
            "cranqrel.readme": "https://raw.githubusercontent.com/noramtboraas/information-retrieval/"
                               "4ea1b8e02da1db64b68b0364d50620b3c95528dc/cranqrel.readme",
        },
    },
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _get(url: str) -> bytes:
    print(f"  downloading {url}", file=sys.stderr)
    with urllib.request.urlopen(url, timeout=120) as resp:
        return resp.read()


def _from_tarball(url: str, mapping: list[tuple[str, str]], wanted: set[str]) -> dict[str, bytes]:
    """{data-set path: bytes} for the `wanted` names found in the tarball at `url` (prefix mapping in order)."""
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(_get(url)), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            inner = member.name.split("/", 1)[1] if "/" in member.name else member.name
            for prefix, repl in mapping:
                if inner.startswith(prefix):
                    name = repl + inner[len(prefix):]
                    if name in wanted and name not in out:
                        out[name] = tar.extractfile(member).read()
                    break
    return out


def fetch(name: str, manifest: dict[str, dict[str, str]]) -> Path:
    """Download data set `name`, check every file's sha256, move it into place. Returns its folder.
    Raises SystemExit naming each file that is missing or differs (nothing is written then)."""
    expected = manifest[name]
    src = SOURCES[name]
    if "tarball" in src:
        got = _from_tarball(src["tarball"], src["map"], set(expected))
    else:
        got = {fname: _get(url) for fname, url in src["files"].items()}
    bad = [f"{f}: missing" for f in expected if f not in got]
    bad += [f"{f}: sha256 {sha256(got[f])[:12]}…, expected {h[:12]}…" for f, h in expected.items()
            if f in got and sha256(got[f]) != h]
    if bad:
        raise SystemExit(f"{name}: the download does not match the pinned files:\n  " + "\n  ".join(bad))
    dest = fetch_root() / LAYOUT[name][0]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{name}-"))
    for fname, data in got.items():
        (tmp / fname).parent.mkdir(parents=True, exist_ok=True)
        (tmp / fname).write_bytes(data)
    if dest.exists():
        shutil.rmtree(dest)
    tmp.rename(dest)
    return dest


def write_manifest() -> None:
    """bench/data_manifest.json from the local copies ({data set: {relative path: sha256}}; READMEs skipped)."""
    out = {}
    for name in LAYOUT:
        root = dataset(name)
        out[name] = {p.relative_to(root).as_posix(): sha256(p.read_bytes()) for p in sorted(root.rglob("*"))
                     if p.is_file() and p.name != "README.md"}
        print(f"{name}: {len(out[name])} files from {root}")
    MANIFEST.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help=f"data sets: {', '.join(LAYOUT)} (default: all)")
    ap.add_argument("--list", action="store_true", help="print where each data set is found now")
    ap.add_argument("--write-manifest", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.write_manifest:
        write_manifest()
        return
    if args.list:
        for name in LAYOUT:
            try:
                print(f"{name}: {dataset(name)}")
            except DataNotFound:
                print(f"{name}: not found")
        return
    unknown = [n for n in args.names if n not in LAYOUT]
    if unknown:
        ap.error(f"unknown data set(s) {', '.join(unknown)}; known: {', '.join(LAYOUT)}")
    manifest = json.loads(MANIFEST.read_text())
    for name in args.names or list(LAYOUT):
        print(f"{name}:", file=sys.stderr)
        dest = fetch(name, manifest)
        print(f"{name}: {len(manifest[name])} files, sha256 checked -> {dest}")


if __name__ == "__main__":
    main()
