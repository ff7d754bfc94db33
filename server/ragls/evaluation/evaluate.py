"""`ragls eval`: retrieval quality and abstention of a folder's index against a gold file of questions.

Gold file: JSON Lines, one question per line (docs/evaluation.md)::

    {"id": "rb-07", "kind": "paraphrase", "question": "...",
     "gold": [{"path": "ch04-01-what-is-ownership.md", "lines": [120, 124], "text": "drop"}]}

`gold` items are `{"path", "lines": [first, last]}` (1-based, inclusive; `lines` optional = the whole file), or
the strings "path" / "path:first-last". An empty `gold` marks an unanswerable question. `text` is for checkers
(bench/questions/check.py), ignored here. `kind` groups the report rows (default "all").

Metrics (answerable questions; a hit *matches* a gold item when it is the same file and, when the item has
lines, the hit's chunk lines overlap them):
- Hit@k: share of questions with a top-k hit in a gold file (file level, lines ignored);
- SpanHit@k: share of the questions with line gold whose top k holds a hit overlapping a gold span;
- Recall@k: mean share of a question's gold items matched in the top k (a two-part question with one of its two
  spans found scores 0.5);
- MRR@10: mean 1 / rank of the first matching hit in the top 10 (0 if none; trec_eval `recip_rank` cut at 10);
- abstention: precision = unanswerable among the abstained, recall = abstained among the unanswerable, and the
  share of answerable questions abstained on (false abstentions);
- answers (a separate table, when measured): Key = share of the questions with a `key` whose answer (`rag/ask`,
  extractive without an LLM) contains one of its key strings (case-sensitive: the identifier the user needs, e.g.
  "verify=False"); KeyFirst = share of the same questions whose answer's first passage (`first_passage`: the
  first list item with the lines under it, else the first paragraph) holds one; Focus@k = share of the questions with line gold whose top k holds a hit whose focus lines
  (`focusRange`) overlap a gold span and span at most FOCUS_MAX_LINES lines.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragls.answer.ask import UNMENTIONED_PREFIX
from ragls.answer.extractive_label import is_extractive_label
from ragls.core.errors import InvalidParams
from ragls.core.ir import Hit
from ragls.evaluation.metrics import reciprocal_rank_at

MRR_DEPTH = 10
FOCUS_MAX_LINES = 6  # a citation points at the answering sentence(s), not a window (issue 27)
_SPAN = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")
_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])[ \t]")  # a list item at the margin (Markdown bullet or numbered)


@dataclass(frozen=True)
class GoldItem:
    """One place that answers a question: a file, or lines `start`..`end` of it (1-based, inclusive)."""

    path: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    kind: str
    gold: tuple[GoldItem, ...]
    keys: tuple[str, ...] = ()  # strings the answer should contain (any one): the identifier the user needs

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


@dataclass
class QuestionResult:
    """One question's outcome: the ranked hits' `path:first-last`, the 1-based rank of the first match (None),
    which gold items the top k matched, whether the product abstained, the answer text when answers were
    measured, and the top k hits' focus lines (what Focus@k judged)."""

    id: str
    kind: str
    answerable: bool
    hits: list[str]
    first_rank: int | None
    file_hit: bool
    file_first: bool  # the first hit is in a gold file (file Hit@1: the page the user opens first is the right one)
    gold_found: list[bool]
    has_lines: bool
    abstained: bool
    extra: dict[str, Any] = field(default_factory=dict)
    focus_hit: bool | None = None  # a top-k focus overlaps a gold span within FOCUS_MAX_LINES (None: no line gold)
    key_hit: bool | None = None  # the answer holds one of the question's keys (None: no key or not measured)
    key_first: bool | None = None  # its first passage (`first_passage`) holds one (None as for key_hit)
    answer: str | None = None  # the answer text Key was judged on (`--json` carries it to read the answers)
    focus: list[str] = field(default_factory=list)  # the top k hits' focusRange `path:first-last` ("" without one)


def _norm_path(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def _gold_item(raw: Any, where: str) -> GoldItem:
    if isinstance(raw, str):
        m = _SPAN.match(raw)
        if m:
            start = int(m["start"])
            return GoldItem(_norm_path(m["path"]), start, int(m["end"] or start))
        return GoldItem(_norm_path(raw))
    if isinstance(raw, dict) and isinstance(raw.get("path"), str):
        lines = raw.get("lines")
        if lines is None:
            return GoldItem(_norm_path(raw["path"]))
        if (isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) and n >= 1 for n in lines)
                and lines[0] <= lines[1]):
            return GoldItem(_norm_path(raw["path"]), lines[0], lines[1])
        raise InvalidParams(f"{where}: gold lines must be [first, last], 1-based, first <= last; got {lines!r}")
    raise InvalidParams(f"{where}: a gold item is \"path\", \"path:first-last\" or {{\"path\", \"lines\"}}; got {raw!r}")


QUESTION_FIELDS = frozenset({"id", "kind", "question", "gold", "text", "key"})  # docs/evaluation.md, "The gold file"


def load_questions(path: str | Path) -> list[Question]:
    """Parse a gold file (see the module docstring). Blank lines and lines starting with "//" are skipped.
    Raises InvalidParams naming the file and line for a malformed line, a duplicate id, or a line without "gold" but
    with fields the format does not know (a guessed "answers" would otherwise count as unanswerable), and for a
    file that is not UTF-8 text (a leading BOM is skipped); OSError when unreadable."""
    out: list[Question] = []
    seen: set[str] = set()
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a BOM (a Windows editor's) is no part of line 1
    except UnicodeDecodeError as exc:
        raise InvalidParams(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); a "
                            f"gold file is JSON Lines: docs/evaluation.md") from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        where = f"{path}:{n}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidParams(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("question"), str) or not obj["question"].strip():
            raise InvalidParams(f"{where}: each line is an object with a non-empty \"question\"")
        unknown = sorted(set(obj) - QUESTION_FIELDS)
        if "gold" not in obj and unknown:  # e.g. "answers"/"expected": silently unanswerable would skew every metric
            raise InvalidParams(f"{where}: no \"gold\" (where the answer is; [] = unanswerable) but unknown "
                                f"field(s) {', '.join(map(repr, unknown))}: see docs/evaluation.md for the format")
        gold = obj.get("gold", [])
        if not isinstance(gold, list):
            raise InvalidParams(f"{where}: \"gold\" must be a list (empty = unanswerable)")
        qid = str(obj.get("id", n))
        if qid in seen:
            raise InvalidParams(f"{where}: duplicate id {qid!r}")
        seen.add(qid)
        keys = obj.get("key", [])
        keys = [keys] if isinstance(keys, str) else keys
        if not isinstance(keys, list) or not all(isinstance(k, str) and k for k in keys):
            raise InvalidParams(f"{where}: \"key\" must be a string or a list of non-empty strings")
        out.append(Question(qid, obj["question"].strip(), str(obj.get("kind") or "all"),
                            tuple(_gold_item(g, where) for g in gold), tuple(keys)))
    if not out:
        raise InvalidParams(f"{path}: no questions")
    return out


def hit_lines(hit: Hit) -> tuple[int, int]:
    """The 1-based inclusive line range of a hit's chunk (a span ending at column 0 ends on the line before)."""
    span = hit.chunk.span
    end = span.end_line + 1 if span.end_char > 0 else max(span.end_line, span.start_line + 1)
    return span.start_line + 1, end


def matches(hit: Hit, item: GoldItem) -> bool:
    """Same file and, when the item has lines, overlapping lines."""
    if _norm_path(hit.chunk.path) != item.path:
        return False
    if item.start is None:
        return True
    first, last = hit_lines(hit)
    return first <= item.end and last >= item.start


def focus_lines(hit: Hit) -> tuple[int, int] | None:
    """The 1-based inclusive lines of a hit's focus (`focusRange`), None without one."""
    f = hit.focus
    if f is None:
        return None
    end = f.end_line + 1 if f.end_char > 0 or f.end_line == f.start_line else f.end_line
    return f.start_line + 1, end


def focus_matches(hit: Hit, item: GoldItem) -> bool:
    """Same file, the hit has a focus of at most FOCUS_MAX_LINES lines, and it overlaps the item's lines."""
    lines = focus_lines(hit)
    if item.start is None or lines is None or _norm_path(hit.chunk.path) != item.path:
        return False
    return lines[1] - lines[0] + 1 <= FOCUS_MAX_LINES and lines[0] <= item.end and lines[1] >= item.start


def answer_body(answer: str) -> str:
    """`answer` without the extractive answer's last line naming what its sources do not mention
    (`answer.ask.unmentioned_line`: "*None of these sources mentions PyPI.*"): a name the question asks about
    repeated there is no answer holding it, so Key does not read that line."""
    head, sep, last = answer.rstrip("\n").rpartition("\n")
    return head if sep and last.startswith(UNMENTIONED_PREFIX) else answer


def first_passage(answer: str) -> str:
    """The part of `answer` a reader takes in first, which KeyFirst judges: without its italic label line (the
    extractive answer's "*Extractive answer ...*"), the first list item at the margin ("- ", "* ", "+ ", "1. ",
    "1) ") with every line under it up to the next line at the margin — its `[n]`, and the list or code block its
    sentence introduces, indented or blank lines — else (an answer without a list: an abstention's "Not in your
    docs: ...", an LLM's prose) its first paragraph (up to a blank line); "" for an empty answer. An answer that
    opens with a paragraph before its list (an LLM's) is judged on that paragraph."""
    lines = answer.strip("\n").split("\n")
    if lines and is_extractive_label(lines[0]):
        lines = lines[1:]
    while lines and not lines[0].strip():
        lines = lines[1:]
    if not lines:
        return ""
    if _ITEM.match(lines[0]):
        end = next((i for i in range(1, len(lines)) if lines[i][:1] not in ("", " ", "\t")), len(lines))
    else:
        end = next((i for i in range(1, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(lines[:end]).rstrip()


def judge(q: Question, hits: Sequence[Hit], k: int, abstained: bool, answer: str | None = None) -> QuestionResult:
    """Score one question's ranked `hits` (best first, at least MRR_DEPTH when available) at cut-off `k`;
    `answer` is its answer text when answers are measured."""
    topk = list(hits[:k])
    relevant = {str(i) for i, h in enumerate(hits[:MRR_DEPTH]) if any(matches(h, g) for g in q.gold)}
    rr = reciprocal_rank_at([str(i) for i in range(min(len(hits), MRR_DEPTH))], dict.fromkeys(relevant, 1.0),
                            MRR_DEPTH)
    gold_paths = {g.path for g in q.gold}
    return QuestionResult(
        id=q.id, kind=q.kind, answerable=q.answerable,
        hits=[f"{h.chunk.path}:{'-'.join(map(str, hit_lines(h)))}" for h in hits[:MRR_DEPTH]],
        first_rank=round(1 / rr) if rr else None,
        file_hit=any(_norm_path(h.chunk.path) in gold_paths for h in topk),
        file_first=bool(topk) and _norm_path(topk[0].chunk.path) in gold_paths,
        gold_found=[any(matches(h, g) for h in topk) for g in q.gold],
        has_lines=any(g.start is not None for g in q.gold),
        abstained=abstained,
        focus_hit=any(focus_matches(h, g) for h in topk for g in q.gold) if any(g.start for g in q.gold) else None,
        focus=[f"{h.chunk.path}:{'-'.join(map(str, lines))}" if (lines := focus_lines(h)) else "" for h in topk],
        key_hit=any(key in answer_body(answer) for key in q.keys) if q.keys and answer is not None else None,
        key_first=any(key in first_passage(answer) for key in q.keys) if q.keys and answer is not None else None,
        answer=answer)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(results: Sequence[QuestionResult], k: int) -> dict[str, Any]:
    """{"all": row, "kinds": {kind: row}, "abstention": {...}} from per-question results.

    A row: n (answerable), unanswerable, Hit@1 (the first hit is in a gold file), Hit@k, SpanHit@k (None without
    line gold), Recall@k, MRR@10 (None without answerable questions), abstained (share of the row's questions
    abstained on).
    """
    def row(rs: Sequence[QuestionResult]) -> dict[str, Any]:
        ans = [r for r in rs if r.answerable]
        lined = [r for r in ans if r.has_lines]
        return {
            "n": len(ans), "unanswerable": len(rs) - len(ans),
            "Hit@1": _mean([float(r.file_first) for r in ans]),
            f"Hit@{k}": _mean([float(r.file_hit) for r in ans]),
            f"SpanHit@{k}": _mean([float(any(r.gold_found)) for r in lined]),
            f"Recall@{k}": _mean([sum(r.gold_found) / len(r.gold_found) for r in ans]),
            f"MRR@{MRR_DEPTH}": _mean([1 / r.first_rank if r.first_rank else 0.0 for r in ans]),
            "abstained": _mean([float(r.abstained) for r in rs]),
        }

    kinds = sorted({r.kind for r in results})
    answers = None
    if any(r.key_hit is not None or r.focus_hit is not None for r in results):
        def answer_row(rs: Sequence[QuestionResult]) -> dict[str, Any]:
            keyed = [r for r in rs if r.key_hit is not None]
            lined = [r for r in rs if r.focus_hit is not None]
            return {"keyed": len(keyed), "Key": _mean([float(r.key_hit) for r in keyed]),
                    "KeyFirst": _mean([float(bool(r.key_first)) for r in keyed]), "lined": len(lined),
                    f"Focus@{k}": _mean([float(r.focus_hit) for r in lined])}

        answers = {"all": answer_row(results),
                   "kinds": {kind: answer_row([r for r in results if r.kind == kind]) for kind in kinds}
                   if len(kinds) > 1 else {}}
    unans = [r for r in results if not r.answerable]
    ans = [r for r in results if r.answerable]
    abst = [r for r in results if r.abstained]
    tp = sum(1 for r in unans if r.abstained)
    return {
        "k": k, "questions": len(results),
        "all": row(results),
        "kinds": {kind: row([r for r in results if r.kind == kind]) for kind in kinds} if len(kinds) > 1 else {},
        "abstention": {
            "unanswerable": len(unans), "abstained": len(abst), "abstained_unanswerable": tp,
            "abstained_answerable": len(abst) - tp,
            "precision": tp / len(abst) if abst else None,
            "recall": tp / len(unans) if unans else None,
            "false_abstention_rate": (len(abst) - tp) / len(ans) if ans else None,
        },
        **({"answers": answers} if answers is not None else {}),
    }


def run(questions: Sequence[Question], retrieve: Callable[[str, int], list[Hit]],
        abstains: Callable[[str, list[Hit]], bool], k: int,
        on_question: Callable[[int, int], None] | None = None,
        answer: Callable[[str], str] | None = None) -> list[QuestionResult]:
    """Judge every question: `retrieve(text, depth)` ranks hits (depth = max(k, MRR_DEPTH)), `abstains(text,
    hits)` is the product's abstention decision for them; `answer(text)`, when given, is the product's answer text
    (asked only for questions with a `key`)."""
    depth = max(k, MRR_DEPTH)
    out = []
    for i, q in enumerate(questions):
        hits = retrieve(q.question, depth)
        text = answer(q.question) if answer is not None and q.keys else None
        out.append(judge(q, hits, k, abstains(q.question, hits), text))
        if on_question is not None:
            on_question(i + 1, len(questions))
    return out


# -- settings for --compare ---------------------------------------------------------------------------------
def parse_setting_side(spec: str) -> tuple[str, dict[str, Any]]:
    """A `--compare` side -> (label, settings layer). `spec` is a TOML file (its settings, as in ragls.toml), or
    comma-separated `name=value` pairs with dotted or flat (`rag_*`) names; values are TOML values (`true`, `10`,
    `0.3`, `"text"`), a bare word is a string. Raises InvalidParams, also for a setting name ragls does not know
    (naming the closest known one): a side that silently ignored it would be reported as if it applied."""
    import tomllib

    path = Path(spec).expanduser()
    if spec.endswith(".toml") or path.is_file():
        if not path.is_file():
            raise InvalidParams(f"--compare: no such settings file: {spec}")
        try:
            return path.name, _known_settings(spec, tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InvalidParams(f"--compare: {spec}: {exc}") from None
    layer: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, eq, raw = part.partition("=")
        if not eq or not name.strip():
            raise InvalidParams(f"--compare: expected name=value (e.g. retrieval.top_k=10), got {part!r}")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()
        section, dot, key = name.strip().partition(".")
        if dot:
            layer.setdefault(section, {})[key] = value
        else:
            layer[section] = value
    if not layer:
        raise InvalidParams("--compare: empty settings")
    return spec, _known_settings(spec, layer)


def _known_settings(spec: str, layer: dict[str, Any]) -> dict[str, Any]:
    """`layer` unchanged when every name in it is a setting (old names included); raises InvalidParams naming the
    first unknown one and the closest known name (`config.settings.normalize`'s warning)."""
    from ragls.config.aliases import OldName
    from ragls.config.settings import normalize

    unknown = [w for w in normalize(layer)[1] if not isinstance(w, OldName)]
    if unknown:
        raise InvalidParams(f"--compare {spec}: {unknown[0]}")
    return layer


# -- report ---------------------------------------------------------------------------------------------------
def _fmt(v: float | None) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"


def _columns(k: int) -> list[str]:
    """The metrics of a row, as printed: file Hit@1 first (once when k is 1)."""
    return [*(["Hit@1"] if k != 1 else []), f"Hit@{k}", f"SpanHit@{k}", f"Recall@{k}", f"MRR@{MRR_DEPTH}", "abstained"]


def format_report(summary: dict[str, Any]) -> str:
    """The human table: one row for all questions, one per kind, then the abstention line."""
    k = summary["k"]
    cols = _columns(k)
    lines = [f"{'kind':14s} {'n':>4s} {'unans':>5s} " + " ".join(f"{c:>10s}" for c in cols)]
    rows = [("all", summary["all"]), *summary["kinds"].items()]
    for name, r in rows:
        lines.append(f"{name:14s} {r['n']:4d} {r['unanswerable']:5d} " + " ".join(f"{_fmt(r[c]):>10s}" for c in cols))
    a = summary["abstention"]
    lines.append(f"abstention: precision {_fmt(a['precision'])}, recall {_fmt(a['recall'])} "
                 f"({a['abstained_unanswerable']} of {a['unanswerable']} unanswerable abstained; "
                 f"{a['abstained_answerable']} of {summary['all']['n']} answerable abstained, "
                 f"rate {_fmt(a['false_abstention_rate'])})")
    if "answers" in summary:
        lines.append(f"{'answers':14s} {'keyed':>5s} {'Key':>10s} {'KeyFirst':>10s} {'lined':>5s} {f'Focus@{k}':>10s}")
        for name, r in [("all", summary["answers"]["all"]), *summary["answers"]["kinds"].items()]:
            lines.append(f"{name:14s} {r['keyed']:5d} {_fmt(r['Key']):>10s} {_fmt(r['KeyFirst']):>10s} {r['lined']:5d} "
                         f"{_fmt(r[f'Focus@{k}']):>10s}")
    return "\n".join(lines)


def format_compare(label_a: str, a: dict[str, Any], label_b: str, b: dict[str, Any]) -> str:
    """Two summaries side by side: one line per (row, metric) with A, B and B − A."""
    cols = _columns(a["k"])
    width = max(12, len(label_a), len(label_b))
    lines = [f"A = {label_a}", f"B = {label_b}",
             f"{'kind':14s} {'metric':11s} {'A':>{width}s} {'B':>{width}s} {'B-A':>8s}"]
    for name in ["all", *a["kinds"]]:
        ra = a["all"] if name == "all" else a["kinds"][name]
        rb = b["all"] if name == "all" else b["kinds"].get(name)
        if rb is None:
            continue
        for c in cols:
            va, vb = ra[c], rb[c]
            delta = "-" if va is None or vb is None else f"{vb - va:+.3f}"
            lines.append(f"{name:14s} {c:11s} {_fmt(va):>{width}s} {_fmt(vb):>{width}s} {delta:>8s}")
    for c in ("precision", "recall", "false_abstention_rate"):
        va, vb = a["abstention"][c], b["abstention"][c]
        delta = "-" if va is None or vb is None else f"{vb - va:+.3f}"
        lines.append(f"{'abstention':14s} {c[:11]:11s} {_fmt(va):>{width}s} {_fmt(vb):>{width}s} {delta:>8s}")
    return "\n".join(lines)


def to_json(summary: dict[str, Any], results: Sequence[QuestionResult]) -> dict[str, Any]:
    return {**summary, "results": [asdict(r) for r in results]}
