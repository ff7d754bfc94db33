"""The digest of a diff the model is shown (`commit/message.py`): one line per file (`describe`), then the hunks of
the text files, the most important first (`importance`: changed lines that are more than whitespace, weighted by
the kind of file), within a character budget (`render_diff`). Lockfiles, generated, secret, binary and deleted files
(`gitdiff.FileDiff.kind`, `status`) are described by their line, never by their content.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ragls.commit.gitdiff import FileDiff


def _counts(f: FileDiff) -> str:
    if f.status == "added":
        return f"+{f.added}"
    if f.status == "deleted":
        return f"-{f.removed}"
    return f"+{f.added} -{f.removed}"


def describe(f: FileDiff) -> str:
    """One line for a file, e.g. "modified: src/app.py (+3 -1)", "lockfile updated: poetry.lock (+120 -80)",
    "Binary file changed: logo.png", "renamed: a.py → b.py", "deleted: old.py (-40)"."""
    verb = {"added": "added", "deleted": "deleted"}.get(f.status, "updated")
    if f.kind == "binary":
        what = {"added": "added", "deleted": "deleted"}.get(f.status, "changed")
        name = f"{f.old_path} → {f.path}" if f.old_path else f.path
        return f"Binary file {what}: {name}"
    if f.kind == "secret":
        name = f"{f.old_path} → {f.path}" if f.old_path else f.path
        return f"secret file {verb}: {name} (content not shown)"
    if f.kind in ("lockfile", "generated"):
        label = "lockfile" if f.kind == "lockfile" else "generated file"
        return f"{label} {verb}: {f.path} ({_counts(f)})"
    if f.status in ("renamed", "copied"):
        edits = f" ({_counts(f)})" if f.added or f.removed else ""
        return f"{f.status}: {f.old_path} → {f.path}{edits}"
    if f.status == "unmerged":
        return f"unmerged (conflict): {f.path}"
    if f.old_mode and f.new_mode and f.old_mode != f.new_mode and not (f.added or f.removed):
        return f"mode changed: {f.path} ({f.old_mode} → {f.new_mode})"
    return f"{f.status}: {f.path} ({_counts(f)})"


def _shows_hunks(f: FileDiff) -> bool:
    # Deleted files are described by name and line count only: their old content says little about the change.
    return f.kind == "text" and f.status != "deleted" and bool(f.hunks)


_RESERVE = 160  # room kept for the "… more files" line and the truncation note


class _Builder:
    def __init__(self, limit: int) -> None:
        self.parts: list[str] = []
        self.used = 0
        self.limit = limit

    def room(self) -> int:
        return self.limit - _RESERVE - self.used

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.used += len(text)

    def text(self) -> str:
        return "".join(self.parts)[: self.limit]


FILE_LIST_SHARE = 0.4  # at most this part of the budget lists files when they do not all fit


def semantic_lines(hunk: str) -> int:
    """Changed lines of a hunk that are more than whitespace: the +/- lines left after pairing each removed line
    with an added line equal to it but for whitespace (re-indentation, trailing spaces, line endings). A
    whitespace-only hunk gives 0."""
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()
    for line in hunk.split("\n")[1:]:
        if line[:1] == "-":
            removed["".join(line[1:].split())] += 1
        elif line[:1] == "+":
            added["".join(line[1:].split())] += 1
    return sum((removed - added).values()) + sum((added - removed).values())


def importance(f: FileDiff, weight: float = 1.0) -> float:
    """How much a file's hunks tell about the change: `weight` (its kind of file, see `commit.CATEGORY_WEIGHTS`)
    times its changed lines that are more than whitespace. 0 for files whose hunks are not shown."""
    if not _shows_hunks(f):
        return 0.0
    return weight * sum(semantic_lines(h) for h in f.hunks)


def render_diff(files: list[FileDiff], budget: int,
                weight: Callable[[FileDiff], float] | None = None) -> tuple[str, bool]:
    """The diff as the model sees it, at most `budget` characters. Returns (text, cut).

    Layout: "Files changed (N):" and one `describe` line per file — in git's order when all fit in the budget,
    else the most important files (by `importance`, `weight(file)` giving its kind's weight, default 1) within
    FILE_LIST_SHARE of the budget and "… and N more files (12 in docs/, 3 in tests/)"; then "Diff:" and the hunks
    of text files (not lockfiles, generated, binary or deleted files), the most important files first (ties in
    git's order), each file's hunks in order, whitespace-only hunks after every other hunk, until the budget is
    reached. A hunk that does not fit is cut at a line boundary (or skipped when not even its first lines fit) and
    the next file tried; a note "[diff truncated …]" ends a reduced text and `cut` is True. Same input → same
    output. `budget` must be at least 1000 (`commit.max_diff_chars`' minimum).
    """
    out = _Builder(budget)
    cut = False
    out.add(f"Files changed ({len(files)}):\n")
    weights = [weight(f) if weight is not None else 1.0 for f in files]
    scores = [importance(f, w) for f, w in zip(files, weights)]
    ranked = sorted(range(len(files)), key=lambda i: (-scores[i], -weights[i], i))
    lines = [f"- {describe(f)}\n" for f in files]
    if sum(map(len, lines)) <= out.room():
        for line in lines:
            out.add(line)
    else:
        cut = True
        room = int(budget * FILE_LIST_SHARE)
        listed: set[int] = set()
        used = out.used
        for i in ranked:
            if used + len(lines[i]) > room:
                break
            listed.add(i)
            used += len(lines[i])
        for i in sorted(listed):  # shown in git's order
            out.add(lines[i])
        rest = [files[i].path for i in range(len(files)) if i not in listed]
        out.add(f"- … and {len(rest)} more files{_where(rest)}\n")
    shown = [i for i in ranked if _shows_hunks(files[i])]
    total_hunks = sum(len(files[i].hunks) for i in shown)
    n_hunks = 0
    if shown and out.room() > 200:
        out.add("\nDiff:\n")
        # (file, hunk index) in the order they are offered: semantic hunks of the ranked files, then the rest
        order = [(i, k) for i in shown for k, h in enumerate(files[i].hunks) if semantic_lines(h)]
        order += [(i, k) for i in shown for k, h in enumerate(files[i].hunks) if not semantic_lines(h)]
        chosen: dict[int, list[str]] = {}
        used = 0
        room = out.room()
        for i, k in order:
            f = files[i]
            head = 0 if i in chosen else len(_file_head(f))
            block = f.hunks[k] + "\n"
            if used + head + len(block) <= room:
                chosen.setdefault(i, []).append(block)
                used += head + len(block)
                n_hunks += 1
                continue
            cut = True
            partial = _cut_lines(block, room - used - head)
            if partial:
                chosen.setdefault(i, []).append(partial)
                used += head + len(partial)
        for i in shown:  # most important file first; hunks of one file in the order they were taken
            if i in chosen:
                out.add(_file_head(files[i]) + "".join(chosen[i]))
    elif shown:
        cut = True
    if cut:
        out.add(f"[diff truncated to {budget} characters: {n_hunks} of {total_hunks} hunks shown in full]\n")
    return out.text(), cut


def _file_head(f: FileDiff) -> str:
    a = "/dev/null" if f.status == "added" else f"a/{f.old_path or f.path}"
    return f"--- {a}\n+++ b/{f.path}\n"


def _where(paths: list[str], top: int = 3) -> str:
    """" (12 in docs/, 3 in tests/, 1 at the top)" — where the unlisted files are, by top directory."""
    dirs = Counter(p.split("/", 1)[0] + "/" if "/" in p else "" for p in paths)
    parts = [f"{n} in {d}" if d else f"{n} at the top" for d, n in dirs.most_common(top)]
    if len(dirs) > top:
        parts.append("…")
    return f" ({', '.join(parts)})" if parts else ""


def _cut_lines(block: str, room: int) -> str:
    """The longest prefix of `block` made of whole lines (at least the "@@" line and one more), within `room`."""
    kept: list[str] = []
    used = 0
    for line in block.splitlines(keepends=True):
        if used + len(line) > room:
            break
        kept.append(line)
        used += len(line)
    return "".join(kept) if len(kept) >= 2 else ""
