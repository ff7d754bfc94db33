"""Every citation of a benchmark write-up names a section that exists.

Code, tests, bench scripts and docs cite measurements as `bench/history/<file>.md, "<section title>"` (the lab
notebook) or `docs/benchmarks.md, "<section title>"` (the current figures): the quoted title, or a part of it, must
be in a heading of that file, so a section that moves or is renamed cannot leave a default's provenance pointing
nowhere.
A citation may wrap onto the next line of a comment or docstring, and may quote several titles ("A" and "B").
The history's own sections (bench/history/) are quoted verbatim as they were written and are not checked, nor is
this module (its examples cite sections that do not exist).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"(?P<file>docs/benchmarks\.md|bench/history/[\w.-]+\.md)")
# What joins a wrapped citation: a line break, the next line's indent and its comment marker.
CONTINUATION = re.compile(r"\n[ \t]*(?:#|//|--|\*)?[ \t]*")
# Right after the file name: an optional "," or "(", then one or more quoted titles joined by ",", ";" or "and".
TITLES = re.compile(r'\s*[,;:]?\s*\(?\s*((?:["“][^"”\n]{3,200}["”](?:\s*(?:,|;|and)\s*)?)+)')


def normalised(text: str) -> str:
    """Lower case, one space, no Markdown emphasis or code marks: how a title is compared with a heading."""
    return re.sub(r"\s+", " ", re.sub(r"[`*]", "", text)).strip().lower()


def headings(path: Path) -> list[str]:
    """The normalised `##`-`####` headings of a Markdown file."""
    return [normalised(m.group(1)) for m in re.finditer(r"^#{2,4} (.+)$", path.read_text(), re.MULTILINE)]


def citations(text: str) -> list[tuple[int, str, list[str]]]:
    """[(line, cited file, [quoted titles])] for every citation in `text` that quotes a section title."""
    found = []
    for m in CITED.finditer(text):
        after = CONTINUATION.sub(" ", text[m.end():m.end() + 400])
        titles = TITLES.match(after)
        if titles:
            found.append((text.count("\n", 0, m.start()) + 1, m.group("file"),
                          re.findall(r'["“]([^"”]+)["”]', titles.group(1))))
    return found


def dangling(name: str, text: str, root: Path = ROOT) -> list[str]:
    """["name:line: FILE, "title""] for each citation in `text` whose file is missing or has no heading holding
    the title."""
    bad, cache = [], {}
    for line, cited, titles in citations(text):
        path = root / cited
        if cited not in cache:
            cache[cited] = headings(path) if path.is_file() else None
        for title in titles:
            if cache[cited] is None or not any(normalised(title) in h for h in cache[cited]):
                bad.append(f'{name}:{line}: {cited}, "{title}"')
    return bad


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot list tracked files")
    here = str(Path(__file__).resolve().relative_to(ROOT))
    return [name for name in out.decode().split("\0")
            if name and not name.startswith("bench/history/") and name != here]


def test_a_dangling_citation_is_found(tmp_path):
    (tmp_path / "bench/history").mkdir(parents=True)
    (tmp_path / "bench/history/session-9.md").write_text("# History\n\n## Window pooling: how (helper x)\n\ntext\n")
    text = ('# measured (bench/history/session-9.md, "Window pooling"), also\n'
            '# bench/history/session-9.md, "Window\n# pooling: how" and "No such section";\n'
            '"""bench/history/session-8.md, "Window pooling" """\n'
            "and bench/history/session-9.md without a title.\n")
    assert dangling("x.py", text, tmp_path) == [
        'x.py:2: bench/history/session-9.md, "No such section"',
        'x.py:4: bench/history/session-8.md, "Window pooling"',
    ]


def test_every_cited_section_exists():
    bad, cited = [], 0
    for name in tracked_files():
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "docs/benchmarks.md" in text or "bench/history/" in text:
            cited += len(citations(text))
            bad += dangling(name, text)
    assert cited > 100  # the citations are found at all (about 130 when this test was written)
    assert bad == [], "citations of a section no heading of the cited file holds:\n" + "\n".join(bad)
