"""Fused-list replay (issue 27): record each question's fused candidates once through the product's `search`, then
score page-level reorderings of them offline in milliseconds.

    python bench/fused_replay.py record bench/questions/click-docs.jsonl click-8.5.1/docs click.json
    python bench/fused_replay.py replay click.json starlette.json ...     # file Hit@1 / SpanHit@5 per rule

`record` runs the product's retrieval (`RagWorkspace.retrieve`, top 10, read only: the folder's index in the user
cache is reused, not built) with `retrieval.page_support_weight` 0 (the order page support is fitted on) and keeps the first 40 entries of the shown fused list (after the document-kind priors and
near-duplicate removal, as `search._materialize` receives it) with each chunk's path, lines, heading path, text, score
contributions, per-signal ranks, best-window cosine, its page's length in characters and the pages its text links to
(`links`: Sphinx `:ref:` / `:doc:` / `:option:` / `:setting:` / `:confval:` / `:envvar:` roles and relative or site-absolute Markdown
links, resolved to the folder's files; `_LinkTargets`); for each answerable question also the cosine of the question
with each fused page's title (`title_cos`: its first chunk's heading) and outline (`outline_cos`: the page's distinct
chunk headings joined), and each of the first SENTENCE_HEAD entries' best sentence (`sent_cos`), with the index's model
(`_Meaning`); beside the lists, `<out>.pages` holds each fused page's headings, its first 4,000 characters and counts
of its text (`page_counts`: numbered steps, object / option entries, second-person words, imperative openings). With
`RECORD_NO_MEANING=1` in the environment the meaning fields are left out (no model pass per question: a set records
in about a minute under load instead of several; the page-name, link and text features need none of them). `replay` prints, per rule and file, file Hit@1 and SpanHit@5 over the answerable questions and the
questions whose file Hit@1 the rule gains or loses against the recorded order (which reproduces the product's top hit).
The rules are the page-level signals tried in bench/history/sessions-40-41.md ("Page-level evidence on near ties"): a page's
second-best chunk (passage evidence, Callan 1994), heading-path words absent from the question, and a near tie for
the first place given to the page holding more of the first 10 passages (`page_tie`) — all withdrawn; and the
chunk priors of "Stub chunks" (`scaled`: stub chunks, shipped; mostly-code chunks and a page's opening chunk, withdrawn).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from pathlib import Path

HEAD = 40  # fused entries recorded per question

_LABEL = re.compile(r"^\.\.\s+_([^:`]+):\s*$", re.MULTILINE)
_OBJECT = re.compile(r"^\s*\.\.\s+(?:std:)?(option|setting|confval|envvar|cmdoption)::\s*(.+)$", re.MULTILINE)
_ROLE = re.compile(r":(ref|doc|option|setting|confval|envvar):`([^`]+)`")
_MD_LINK = re.compile(r"\]\(([^)\s#]+\.md)(?:#[^)]*)?\)|\]\(([^)\s#:]+/)(?:#[^)]*)?\)")


class _LinkTargets:
    """The folder's link targets: reST labels (`.. _name:`), option / setting / confval / envvar entries, and its
    .rst / .md / .txt files (paths relative to the folder, as recorded)."""

    def __init__(self, folder: Path):
        self.labels: dict[str, str] = {}
        self.objects: dict[tuple[str, str], str] = {}
        self.files: set[str] = set()
        for p in sorted(folder.rglob("*")):
            if p.suffix not in (".rst", ".md", ".txt") or not p.is_file():
                continue
            rel = p.relative_to(folder).as_posix()
            self.files.add(rel)
            text = p.read_text(errors="replace")
            for m in _LABEL.finditer(text):
                self.labels.setdefault(m.group(1).strip().lower(), rel)
            for m in _OBJECT.finditer(text):
                kind = m.group(1).replace("cmdoption", "option")
                for part in re.split(r",\s*", m.group(2)):
                    if part.strip():
                        self.objects.setdefault((kind, part.split()[0].lower().split("=")[0]), rel)

    def _role(self, here: Path, kind: str, arg: str) -> str | None:
        """The file a Sphinx role's target names (None: not in the folder)."""
        target = re.search(r"<([^>]+)>\s*$", arg)
        arg = (target.group(1) if target else arg).strip().lstrip("~!")
        if kind == "ref":
            return self.labels.get(arg.lower())
        if kind == "doc":
            stems = [(here / arg).as_posix(), arg.lstrip("/")]
            return next((c + e for c in stems for e in (".rst", ".md", ".txt") if c + e in self.files), None)
        return self.objects.get((kind, arg.split()[-1].lower().split("=")[0])) if arg.split() else None

    def _markdown(self, here: Path, md: str, folder: str) -> str | None:
        """The file a Markdown link's target names: relative to the page, or from the folder's root when it starts
        with "/" (a site-absolute link, as Hugo and MkDocs sites write them); a folder is its index page."""
        for candidate in ([md] if md else [folder + "index.md", folder + "_index.md", folder.rstrip("/") + ".md"]):
            base = Path(candidate.lstrip("/")) if candidate.startswith("/") else here / candidate
            resolved = os.path.normpath(base.as_posix())
            if resolved in self.files:
                return resolved
        return None

    def links(self, path: str, text: str):
        """(target file, offset of the link in `text`) for each link of `text`, a chunk or the whole of `path`, to
        another file of the folder, in the text's order."""
        here = Path(path).parent
        found = [(self._role(here, m.group(1), m.group(2)), m.start()) for m in _ROLE.finditer(text)]
        found += [(self._markdown(here, m.group(1), m.group(2)), m.start()) for m in _MD_LINK.finditer(text)]
        return sorted((t, at) for t, at in found if t and t != path)

    def __call__(self, path: str, text: str) -> list[str]:
        """The files (other than `path`) that `text`, a chunk of `path`, links to."""
        return sorted({t for t, _ in self.links(path, text)})


_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n\s*\n")


def anchor_texts(folder: Path) -> dict[str, list[str]]:
    """{page: the sentences of other pages that link to it}, the corpus's own anchor text (McBryan 1994; Craswell,
    Hawking & Robertson, "Effective site finding using link anchor information", SIGIR 2001: the words others use to
    point at a page describe it): for every link `_LinkTargets` resolves (Sphinx roles, Markdown links), the sentence
    around it (from the previous sentence end or blank line to the next), whitespace collapsed, at most 400
    characters."""
    targets = _LinkTargets(folder)
    out: dict[str, list[str]] = {}
    for rel in sorted(targets.files):
        text = (folder / rel).read_text(errors="replace")
        for target, at in targets.links(rel, text):
            start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
            end = next((m.end() for m in _SENTENCE_END.finditer(text, at)), len(text))
            out.setdefault(target, []).append(" ".join(text[start:end].split())[:400])
    return out


def record(questions: Path, folder: Path, out: Path) -> None:
    """Write [{id, question, answerable, gold, gold_spans, fused: [...]}] for every question of `questions` to `out`."""
    import ragls.retrieval.search as search_module
    from ragls.core.ir import Hit
    from ragls.evaluation import evaluate
    from ragls.workspace.rag_workspace import RagWorkspace

    seen: dict[str, list | None] = {"fused": None}

    @functools.cache
    def page_chars(path: str) -> int:  # the page's length in characters (0 when it cannot be read)
        try:
            return len((folder / path).read_text(errors="replace"))
        except OSError:
            return 0
    materialize = search_module._materialize
    links = _LinkTargets(folder)

    raw: dict[str, str] = {}

    def capture(lookup, fused, similarity, top_k):  # the first call of a search is the shown ranking
        if seen["fused"] is None:
            found = lookup([f.key for f in fused[:HEAD]])
            raw.update({evaluate._norm_path(c.path): c.path for c in found.values()})
            seen["fused"] = [{"score": f.score, "contrib": f.contributions, "path": evaluate._norm_path(c.path),
                              "title": c.title, "lines": evaluate.hit_lines(Hit(chunk=c, score=f.score)),
                              "text": c.text, "ranks": f.ranks, "cosine": similarity.get(f.key),
                              "page_chars": page_chars(c.path),
                              "links": links(evaluate._norm_path(c.path), c.text)}
                             for f in fused[:HEAD] if (c := found.get(f.key)) is not None]
        return materialize(lookup, fused, similarity, top_k)

    search_module._materialize = capture
    rows = []
    ws = RagWorkspace([folder], [{"retrieval": {"page_support_weight": 0.0}}], read_only=True)
    pages: dict[str, dict] = {}
    try:
        meaning = _Meaning(ws, folder, pages)
        for q in evaluate.load_questions(questions):
            seen["fused"] = None
            ws.retrieve(q.question, 10)
            fused = seen["fused"] or []
            row = {"id": q.id, "question": q.question, "answerable": q.answerable,
                   "gold": sorted({g.path for g in q.gold}),
                   "gold_spans": [[g.path, g.start, g.end] for g in q.gold if g.start is not None],
                   "fused": fused}
            if q.answerable and fused and not os.environ.get("RECORD_NO_MEANING"):
                meaning.raw.update(raw)
                meaning(q.question, row)
            rows.append(row)
    finally:
        ws.close()
        search_module._materialize = materialize
    out.write_text(json.dumps(rows))
    out.with_suffix(".pages").write_text(json.dumps(pages))


_STEP = re.compile(r"^\s*(?:\d+[.)]|#\.)\s+\S", re.MULTILINE)
_ENTRY = re.compile(r"^\s*(?:\.\.\s+(?:\w+:)?(?:auto)?(?:function|class|method|attribute|option|cmdoption|confval|setting|"
                    r"envvar|data|exception|decorator|module|describe|object|property)::|:::\s+\w)", re.MULTILINE)
_YOU = re.compile(r"\b(?:you|your|you're|you'll)\b", re.IGNORECASE)
_IMPERATIVE = re.compile(r"(?:^|[.!?]\s+|^\s*(?:[-*]|\d+[.)])\s+)(?:To \w+[^.]*?, )?(?:Run|Add|Create|Install|Use|Set|Open|"
                         r"Make|Put|Write|Call|Pass|Import|Define|Configure|Enable|Disable|Change|Remove|Replace|"
                         r"Update|Edit|Start|Check|Try|Note|Install|Navigate|Go|Type|Copy|Move|Save)\b", re.MULTILINE)


def page_counts(text: str) -> dict:
    """Raw counts of a page's text for page-kind features: characters, numbered-list items (`steps`), object /
    option / setting entries (`entries`: reST directives, mkdocstrings `:::`), second-person words (`you`),
    sentences opening with an imperative verb (`imperative`), headings opening with "How" or a gerund."""
    heads = [m.group(1) for m in re.finditer(r"^\s{0,3}#{1,6}\s+(.+)$", text, re.MULTILINE)]
    lines = text.split("\n")
    heads += [lines[i].strip() for i in range(len(lines) - 1)
              if lines[i].strip() and re.match(r"^([=\-~^*+#\"'`])\1{2,}\s*$", lines[i + 1])]
    first = [h.split()[0].lower() for h in heads if h.split()]
    return {"chars": len(text), "steps": len(_STEP.findall(text)), "entries": len(_ENTRY.findall(text)),
            "you": len(_YOU.findall(text)), "imperative": len(_IMPERATIVE.findall(text)),
            "headings": len(heads), "how_headings": sum(w == "how" for w in first),
            "ing_headings": sum(w.endswith("ing") and len(w) > 5 for w in first)}


SENTENCE_HEAD = 12  # fused entries whose sentences are embedded (`sent_cos`)


class _Meaning:
    """Per question, the cosine of the question with each fused page's outline (`outline_cos`: its title and every
    heading path of its chunks, as the index holds them; `title_cos`: its first chunk's heading path) and each of the
    first SENTENCE_HEAD entries' best sentence (`sent_cos`: the extractive answer's candidates, `answer.passages.units`);
    `pages` collects each page's outline and its text's first 4,000 characters for offline page features."""

    def __init__(self, ws, folder: Path, pages: dict):
        self.ws, self.folder, self.pages = ws, folder, pages
        self.outline: dict[str, tuple[str, str]] = {}
        self.raw: dict[str, str] = {}  # recorded (normalised) path -> the index's path

    def _outline(self, path: str) -> tuple[str, str]:
        if path not in self.outline:
            chunks = self.ws.indexes[0].manifest.chunks_of(self.raw.get(path, path))
            titles = list(dict.fromkeys(c.title for c in chunks if c.title))
            first = titles[0] if titles else Path(path).stem
            self.outline[path] = (first, ". ".join(titles) or first)
            try:
                text = (self.folder / path).read_text(errors="replace")
            except OSError:
                text = ""
            self.pages[path] = {"titles": titles, "head": text[:4000], **page_counts(text)}
        return self.outline[path]

    def __call__(self, question: str, row: dict) -> None:
        from ragls.answer.blocks import is_markdown
        from ragls.answer.passages import units

        emb = self.ws.embedder
        qv = emb.embed_query(question)
        paths = list(dict.fromkeys(r["path"] for r in row["fused"]))
        full = {}
        for r in row["fused"]:
            full.setdefault(r["path"], r)
        outlines = [self._outline(p) for p in paths]
        vecs = emb.embed_memoised([o[1] for o in outlines] + [o[0] for o in outlines])
        n = len(paths)
        row["outline_cos"] = {p: float(vecs[i] @ qv) for i, p in enumerate(paths)}
        row["title_cos"] = {p: float(vecs[n + i] @ qv) for i, p in enumerate(paths)}
        for r in row["fused"][:SENTENCE_HEAD]:
            found = units(r["text"], None, is_markdown(r["path"]))
            r["sent_cos"] = float((emb.embed_memoised([u.sentence for u in found]) @ qv).max()) if found else 0.0


def _span_hit(q: dict, order: list) -> bool:
    """A top-5 chunk overlaps a gold line span (both 1-based inclusive, as `evaluate.matches` judges)."""
    return any(r["path"] == p and r["lines"][0] <= e and r["lines"][1] >= s
               for r in order[:5] for p, s, e in q["gold_spans"])


def _mrr(q: dict, order: list) -> float:
    """1 / rank of the first of the top 10 matching a gold item (a line span, or the file when it has no lines)."""
    spans = q["gold_spans"]
    for i, r in enumerate(order[:10], 1):
        if (any(r["path"] == p and r["lines"][0] <= e and r["lines"][1] >= s for p, s, e in spans) if spans
                else r["path"] in q["gold"]):
            return 1.0 / i
    return 0.0


def page_support(gamma: float, head: int = 30):
    """Each chunk + gamma x the fused score (bonus left out) of its page's best other chunk among the first `head`."""
    def rule(q: dict) -> list:
        by_page: dict[str, list[float]] = {}
        for r in q["fused"][:head]:
            by_page.setdefault(r["path"], []).append(r["score"] - r["contrib"].get("bonus", 0.0))
        def score(r):
            rest = sorted(by_page.get(r["path"], []), reverse=True)
            own = r["score"] - r["contrib"].get("bonus", 0.0)
            if own in rest:
                rest.remove(own)
            return r["score"] + (gamma * rest[0] if rest else 0.0)
        return sorted(q["fused"], key=lambda r: -score(r))
    return rule


def title_mismatch(delta: float, with_file: bool = True):
    """Each chunk - delta x the share of its heading path's words (and its file name's, `with_file`) that the question
    does not hold (stems, stop words and numbers left out)."""
    from ragls.core.analysis import stem_set

    stop = stem_set("a an the of to in on for and or with by from is are be how do i my what use using your you it")

    def words(r) -> set[str]:
        text = r["title"] + (" " + re.sub(r"[_\-.]", " ", Path(r["path"]).stem) if with_file else "")
        return {t for t in stem_set(text) - stop if not t.isdigit()}

    def rule(q: dict) -> list:
        asked = stem_set(q["question"])
        def score(r):
            w = words(r)
            return r["score"] - (delta * len(w - asked) / len(w) if w else 0.0)
        return sorted(q["fused"], key=lambda r: -score(r))
    return rule


def page_tie(q: dict, margin: float, lead: int = 2, within: int = 5, head: int = 10) -> list:
    """The recorded order with its first place given, on a near tie, to another page's passage: the best-placed of
    the first `within` whose fused score (bonus left out) is within `margin` x the leader's and whose page holds at
    least `lead` more of the first `head` entries than the leader's. A leader with the exact-match bonus stays."""
    order = q["fused"]
    if margin <= 0 or len(order) < 2 or order[0]["contrib"].get("bonus"):
        return order
    count: dict[str, int] = {}
    for r in order[:head]:
        count[r["path"]] = count.get(r["path"], 0) + 1
    leader = order[0]
    for r in order[1:within]:
        score = r["score"] - r["contrib"].get("bonus", 0.0)
        if (r["path"] != leader["path"] and leader["score"] - score <= margin * leader["score"]
                and count[r["path"]] >= count[leader["path"]] + lead):
            return [r] + [x for x in order if x is not r]
    return order


def first_place(rule, within: int = 5):
    """`rule` deciding only the first place: its first chunk, when it is another page's and the recorded order has it
    among the first `within`, moves to the front; every other chunk keeps its recorded place (a tie-breaker for the top, the top 5 unchanged)."""
    def first(q: dict) -> list:
        order = q["fused"]
        top = rule(q)[:1]
        if (not top or top[0]["path"] == order[0]["path"]  # a sibling page, not another chunk of the leading page
                or all(r is not top[0] for r in order[:within])):
            return order
        return top + [r for r in order if r is not top[0]]
    return first


def scaled(factor):
    """Each chunk's recorded score x `factor(q, r)` (a document prior replayed), re-sorted; a chunk holding the
    exact-match bonus is left alone."""
    def rule(q: dict) -> list:
        order = q["fused"]
        score = {id(r): r["score"] * (1.0 if r["contrib"].get("bonus") else factor(q, r)) for r in order}
        return sorted(order, key=lambda r: -score[id(r)])
    return rule


_FENCED = re.compile(r"^(```|~~~).*?^(```|~~~)[^\n]*$", re.DOTALL | re.MULTILINE)


def code_share(text: str) -> float:
    """The share of `text`'s non-blank lines inside fences, indented blocks, doctests or shell prompts."""
    lines = [line for line in text.splitlines() if line.strip()]
    prose = [line for line in _FENCED.sub("", text).splitlines()
             if line.strip() and not line.startswith(("    ", "\t", ">>>", "...", "$ "))]
    return 1.0 - len(prose) / len(lines) if lines else 0.0


def _stub(r: dict) -> bool:
    """The recorded chunk is a stub (`doc_kind.is_stub`); False for a list recorded without text."""
    from ragls.core.ir import Chunk, LineSpan
    from ragls.retrieval.doc_kind import is_stub

    return "text" in r and is_stub(Chunk(id="", path=r["path"], text=r["text"], span=LineSpan(0, 0, 0, 0), text_hash=""))


RULES = {"recorded order (the product)": lambda q: q["fused"], "page support 0.125 (first 40)": page_support(0.125, 40), "page support 0.2 (first 10)": page_support(0.2, 10),
         "heading words absent x 0.03": title_mismatch(0.03), "heading words absent x 0.05": title_mismatch(0.05),
         "heading words absent x 0.08": title_mismatch(0.08),
         "heading path only, absent x 0.05": title_mismatch(0.05, with_file=False),
         "first place only: heading words absent x 0.05": first_place(title_mismatch(0.05)),
         "first place only: heading words absent x 0.08": first_place(title_mismatch(0.08)),
         "first place only: heading words absent x 0.1": first_place(title_mismatch(0.1)),
         "first place only: page support 0.125": first_place(page_support(0.125, 40)),
         "first place only: page support 0.2": first_place(page_support(0.2, 40)),
         **{f"near tie to the page with 2 more of the top 10, margin {m}": functools.partial(page_tie, margin=m) for m in (0.02, 0.04, 0.06, 0.08, 0.1)},
         # bench/history/sessions-40-41.md "Stub chunks" (lists recorded before the stub prior shipped; text recorded since then)
         "stub chunks x 0.9 (shipped: retrieval.stub_chunk_weight)": scaled(lambda q, r: 0.9 if _stub(r) else 1.0),
         "mostly code (> 50 % of lines) x 0.9": scaled(lambda q, r: 0.9 if code_share(r.get("text", "")) > 0.5 else 1.0),
         "a page's opening chunk x 1.03": scaled(lambda q, r: 1.03 if r["lines"][0] <= 3 else 1.0)}


def replay(files: list[Path]) -> None:
    """Print each rule's file Hit@1 and SpanHit@5 per recorded file, with the questions gained and lost."""
    for name, rule in RULES.items():
        cells = []
        for f in files:
            qs = [q for q in json.loads(f.read_text()) if q["answerable"] and q["fused"]]
            first = lambda q, order: order[0]["path"] in q["gold"]  # noqa: E731
            won = [q["id"] for q in qs if first(q, rule(q)) and not first(q, q["fused"])]
            lost = [q["id"] for q in qs if first(q, q["fused"]) and not first(q, rule(q))]
            spans = [q for q in qs if q["gold_spans"]]
            span = sum(_span_hit(q, rule(q)) for q in spans) / len(spans) if spans else float("nan")
            mrr = sum(_mrr(q, rule(q)) for q in qs) / len(qs)
            cells.append(f"{f.stem} {sum(first(q, rule(q)) for q in qs)}/{len(qs)} {span:.3f} {mrr:.3f}"
                         + (f" +{won} -{lost}" if won or lost else ""))
        print(f"{name}: " + " | ".join(cells))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("questions", type=Path)
    rec.add_argument("folder", type=Path)
    rec.add_argument("out", type=Path)
    rep = sub.add_parser("replay")
    rep.add_argument("files", type=Path, nargs="+")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.questions, args.folder, args.out)
    else:
        replay(args.files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
