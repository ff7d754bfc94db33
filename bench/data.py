"""Where the benchmark data sets are: one resolver for every benchmark, test and doc command.

A data set is found, in this order:

1. an explicit path (a benchmark's `--corpus` / `--data` flag, passed as `explicit`);
2. the environment variable `RAGLS_BENCH_DATA`: a folder laid out like the shared data folder
   (`corpora/rust-book`, `corpora/flask-docs`, `bench/cranfield`);
3. `../shared/` beside the repository root — the root is found from this file's location, never from the
   current directory, so a benchmark runs the same from any working directory;
4. the folder `bench/fetch_data.py` downloads to (the user cache dir, `platformdirs.user_cache_dir("ragls")`
   + `/bench-data`, same layout).

When none has it, `DataNotFound` says all of these and how to fetch the data.

    from data import dataset            # with bench/ on sys.path (benchmarks run as `python bench/x.py`)
    book = dataset("rust-book", args.corpus)
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "RAGLS_BENCH_DATA"
REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"

# data set name -> its place inside a data root; `marker` is a file the folder must hold to count as present.
LAYOUT: dict[str, tuple[str, str]] = {
    "rust-book": ("corpora/rust-book", "ch04-01-what-is-ownership.md"),
    "flask-docs": ("corpora/flask-docs", "quickstart.rst"),
    "cranfield": ("bench/cranfield", "cran.all.1400"),
}

FETCH_HINT = "python bench/fetch_data.py  (downloads the public originals, checks their sha256)"


class DataNotFound(FileNotFoundError):
    """A data set is in none of the places `dataset` looks; the message names each place and the fix."""


def fetch_root() -> Path:
    """The folder `bench/fetch_data.py` writes to: `<user cache dir>/ragls/bench-data` (platformdirs)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("ragls")) / "bench-data"


def candidates(name: str, explicit: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """[(where it came from, path)] in lookup order for data set `name` (see the module docstring).
    Raises KeyError for an unknown name."""
    rel, _ = LAYOUT[name]
    out: list[tuple[str, Path]] = []
    if explicit:
        out.append(("the --corpus/--data flag", Path(explicit).expanduser()))
    env = os.environ.get(ENV)
    if env:
        out.append((f"${ENV}", Path(env).expanduser() / rel))
    out.append(("../shared beside the repository", SHARED / rel))
    out.append(("the bench/fetch_data.py download folder", fetch_root() / rel))
    return out


def dataset(name: str, explicit: str | os.PathLike | None = None) -> Path:
    """The folder holding data set `name` ("rust-book", "flask-docs" or "cranfield").

    An `explicit` path is used as given (it must exist: a wrong flag is an error, never silently replaced).
    Raises DataNotFound naming every place looked in, and KeyError for an unknown name.
    """
    if name not in LAYOUT:
        raise KeyError(f"unknown data set {name!r}; known: {', '.join(LAYOUT)}")
    marker = LAYOUT[name][1]
    places = candidates(name, explicit)
    if explicit:
        path = places[0][1]
        if not path.is_dir():
            raise DataNotFound(f"{name}: the path given ({path}) is not a folder")
        return path
    for _, path in places:
        if (path / marker).is_file():
            return path
    tried = "\n".join(f"  - {where}: {path}" for where, path in places)
    raise DataNotFound(f"data set {name!r} not found. Looked in:\n  - an explicit --corpus/--data flag: not given\n"
                       f"{tried}\nPass the folder with --corpus/--data, set {ENV} to a folder holding "
                       f"{LAYOUT[name][0]}/, or download it: {FETCH_HINT}")


def available(name: str) -> Path | None:
    """`dataset(name)`, or None when it is nowhere (for tests that skip without it)."""
    try:
        return dataset(name)
    except DataNotFound:
        return None


def missing_reason(name: str) -> str:
    """A skip reason saying how to get data set `name`."""
    return (f"data set {name!r} not found (looked in ${ENV}, ../shared beside the repository and the "
            f"fetch_data download folder); get it with: {FETCH_HINT}, or set {ENV}")
