"""File Hit@1 by leave-one-corpus-out (issue 27): which ranking change transfers to a corpus it was not chosen on.

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json   # once per set
    python bench/file_rank_loco.py rec/*.json [--quiet NAME ...]                              # the LOCO tables

Reads the fused lists `bench/fused_replay.py record` wrote (each question's first 40 fused entries as the product
ranks them, after the document-kind priors and near-duplicate removal, with each entry's score contributions,
per-signal ranks, best-window cosine and page length). Each entry's score is split into its parts: the normalised
cosine n_v and BM25 score n_b (the contributions over the shipped `retrieval.convex_alpha`), the exact-match bonus
and the factor of the document-kind priors. A rule re-scores every entry as

    factor x (alpha x n_v + (1 - alpha) x n_b) + bonus x (1 - alpha) / (1 - alpha shipped) + w x feature(page)

and re-sorts; the page features are few and general (`FEATURES`): how many of the first 10 entries the page holds,
its second-best entry, the share of the question's words in its file name and headings, its length, its best
cosine against the list's best, the pages' entries in the first 40, and the entry's own RRF score (1.125 / (60 +
vector rank) + 1 / (60 + BM25 rank), x 61: the old fusion as a third signal); and the entry's own text against the
question's names (`_text_features`, bench/history/sessions-46-47.md "Sibling pages: the name as the question writes it"): a
definition entry naming the question's words, a name the question writes held as written or in another form only, a
name held only in a cross-reference role; the pages other head entries link to (`_link_features`); the question's
shape against the page's kind, a page that says it is deprecated, the page title's / outline's / best sentence's
cosine (`_page_features`, from `record`'s meaning fields and `<set>.pages`; bench/history/sessions-46-47.md "Page kind, page titles,
deprecated pages and sentence cosines"); the page's kind by its name (`_kind_features`: a folder or file called
"reference", "faq", "guides" / "tutorial", "cli" / "commands", "config" / "settings"; bench/history/sessions-48-49.md "The right
file first: page names, section-headed windows"). `--weights` replaces the weight grid. A rule family is one feature (or alpha) with a grid of weights
(`families`). `--base second30=0.1` adds main's page support to every rule and to the base order (the lists are
recorded without it), so the base reproduces the product's file Hit@1.

Leave-one-corpus-out: for each corpus (the Rust book's two sets are one corpus), the family's weight is chosen on
the other corpora (most file Hit@1 summed, then MRR@10 summed, then the weight nearest the shipped ranking) and
measured on the held-out corpus. Prints, per family, the LOCO file Hit@1 / MRR@10 per corpus against the recorded
order (which reproduces the product's top hit), the corpora helped and hurt, and the weights chosen; and the
Rust book hard set's SpanHit@5 / MRR@10 under the LOCO weight. `--sets` limits the per-corpus lines printed
(aggregate figures always cover every file given).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

ALPHA = 0.6  # the shipped retrieval.convex_alpha the lists were recorded with
HEAD = 10  # entries counted as "the first 10" for page counts


def _words(text: str, stop: frozenset[str]) -> set[str]:
    from ragls.core.analysis import stem_set

    return {t for t in stem_set(text) - stop if not t.isdigit() and len(t) > 1}


def _parts(r: dict) -> tuple[float, float, float, float]:
    """(n_v, n_b, bonus as applied, prior factor) of a recorded entry: score = factor x (0.6 n_v + 0.4 n_b) + bonus."""
    c = r["contrib"]
    v, b = c.get("vector", 0.0), c.get("bm25", 0.0)
    bonus, prior = c.get("bonus", 0.0), c.get("prior", 0.0)
    base = v + b
    if not prior or base <= 0:
        return v / ALPHA, b / (1 - ALPHA), bonus, 1.0
    kept = (r["score"] - bonus) / base  # the bonus kept (a question naming an identifier)
    dropped = r["score"] / base  # a factor withdrew it
    if bonus and 0.0 < kept <= 3.0 and (dropped > 3.0 or abs(kept - round(kept, 2)) < abs(dropped - round(dropped, 2))):
        return v / ALPHA, b / (1 - ALPHA), bonus, kept
    return v / ALPHA, b / (1 - ALPHA), 0.0, dropped


# Definition entries (issue 27, rank46): a reST object / option / setting directive, a reST or Markdown heading, a
# definition-list term or a line opening with a code span — the line that states a name, where a passing mention only
# uses it. `_entry_names` gives each entry's text.
_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:[\w-]+:)?[\w-]+::\s*(\S.*)$")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^([=\-~^*+#\"'`])\1{2,}\s*$")
_CODE_LEAD = re.compile(r"^\s*(?:[-*]\s+)?``?([^`]+)``?")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_NAME = re.compile(r"``?([^`\n]+?)``?|(?<![\w.-])(--?[A-Za-z][\w-]*|[A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)")


def _entry_names(text: str) -> list[str]:
    """The names stated by `text`'s definition entries (directive arguments, headings, definition-list terms, lines
    opening with a code span), in order."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if (m := _DIRECTIVE.match(line)) or (m := _MD_HEADING.match(line)):
            out.append(m.group(1))
        elif i + 1 < len(lines) and line.strip() and _UNDERLINE.match(lines[i + 1]) and \
                len(lines[i + 1].strip()) >= len(line.strip()) - 2:
            out.append(line.strip())
        elif line[:1] not in " \t" and line.strip() and i + 1 < len(lines) and lines[i + 1][:1] in " \t" and \
                lines[i + 1].strip() and (i == 0 or not lines[i - 1].strip()) and len(line) < 80:
            out.append(line.strip())  # a definition-list term: its definition indented below
        elif (m := _CODE_LEAD.match(line)) and line.lstrip().startswith(("`", "- `", "* `")):
            out.append(m.group(1))
    return out


def _q_names(question: str) -> set[str]:
    """The names the question writes as names (code spans, flags, snake_case, camelCase, dotted), lower-cased."""
    out = set()
    for m in _NAME.finditer(question):
        name = (m.group(1) or m.group(2) or "").strip().lower()
        if len(name) > 2:
            out.add(name)
    return out


_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]+")


def _written(question: str) -> list[str]:
    """The names a question writes as names, lower-cased, as the product would read them: code spans whole, command-line
    options (`--junit-xml`) and compound identifiers (`warn_unreachable`, `mypy.ini`; `search._named_compounds`)."""
    from ragls.core.analysis import compound_identifiers

    spans = [m.strip().lower() for m in re.findall(r"`([^`\n]+)`", question)]
    opts = [m.lower() for m in _OPTION.findall(question)]
    comps = [c.lower() for c in compound_identifiers(question)
             if any(ch.isalpha() for ch in c) and any(len(p) > 1 for p in re.split(r"_+|\.|::", c))]
    return list(dict.fromkeys(n for n in spans + opts + comps if len(n) > 2))


def _norm(name: str) -> str:
    """A name's letters and digits only: `--warn-unreachable`, `warn_unreachable` and `WARN_UNREACHABLE` alike."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _text_features(q: dict, stop: frozenset[str]) -> dict[str, list[float]]:
    """Per entry: `def_cover` 1 when one of the chunk's definition entries names words all in the question (an entry
    with an identifier-like name: directive, code span or a name with _ - .), `def_share` the best share of an
    entry's words the question holds; `form_same` the share of the question's written names found as written in the
    chunk, `form_other` 1 when the chunk holds a question's name only in another form (`warn_unreachable` for
    `--warn-unreachable`); `role_only` 1 when the chunk holds a question's name only inside a cross-reference role."""
    asked = _words(q["question"], stop)
    names = _q_names(q["question"])
    norms = {_norm(n) for n in names if _norm(n)}
    out: dict[str, list[float]] = {"def_cover": [], "def_share": [], "form_same": [], "form_other": [], "role_only": [],
                                   "def_named": [], "written": [], "written_any": [], "written_all": [], "written_x": [],
                                   "written_head": []}
    written = _written(q["question"])
    for r in q["fused"]:
        text = r["text"]
        low = text.lower()
        cover = share = 0.0
        for e in _entry_names(text):
            ew = _words(re.sub(r"[_\-./:`*]", " ", e), stop)
            if not ew or len(ew) > 6:
                continue
            s = len(ew & asked) / len(ew)
            share = max(share, s)
            if s == 1.0 and (re.search(r"[_\-.`]", e) or "::" in text):
                cover = 1.0
        out["def_cover"].append(cover)
        full = (r["title"] + "\n" + text).lower()
        held = [n in full for n in written]
        out["written"].append(sum(held) / len(held) if held else 0.0)
        out["written_any"].append(float(any(held)))
        out["written_all"].append(float(bool(held) and all(held)))
        own = r["score"] - r["contrib"].get("bonus", 0.0)
        out["written_x"].append(own * (sum(held) / len(held)) if held else 0.0)
        out["written_head"].append(own * (sum(held) / len(held)) if held and len(out["written_head"]) < 30 and
                                   not r["contrib"].get("bonus") else 0.0)
        stated = {_norm(t) for e in _entry_names(text) for t in re.split(r"[\s,/()\[\]{}=:]+", e.strip("`*"))}
        out["def_named"].append(float(any(n in stated for n in norms if len(n) > 3)))
        out["def_share"].append(share)
        same = sum(n in low for n in names) / len(names) if names else 0.0
        out["form_same"].append(same)
        flat = _norm(low)
        out["form_other"].append(float(bool(norms) and any(n in flat for n in norms) and
                                       not any(n in low for n in names)))
        roles = " ".join(re.findall(r":\w+:`[^`]*`", low))
        out["role_only"].append(float(bool(names) and any(n in roles for n in names) and
                                      not any(n in re.sub(r":\w+:`[^`]*`", " ", low) for n in names)))
    return out


def _link_features(q: dict) -> dict[str, list[float]]:
    """Per entry, from the recorded `links` (the files its chunk links to; 0 when the lists were recorded without them):
    `in<K>` how many other pages among the first K entries link to its page (capped at 2, / 2), `in<K>s` the best
    such linking entry's score / the first's, `defers<K>` 1 when its own chunk links to another page of the first K."""
    fused = q["fused"]
    top = fused[0]["score"] - fused[0]["contrib"].get("bonus", 0.0) if fused else 1.0
    out: dict[str, list[float]] = {}
    for k in (5, 10, 20):
        pages: dict[str, set[str]] = {}
        best: dict[str, float] = {}
        for r in fused[:k]:
            for target in r.get("links", ()):
                if target != r["path"]:
                    pages.setdefault(target, set()).add(r["path"])
                    best[target] = max(best.get(target, 0.0), (r["score"] - r["contrib"].get("bonus", 0.0)) / top)
        head = {r["path"] for r in fused[:k]}
        out[f"in{k}"] = [min(len(pages.get(r["path"], ())), 2) / 2 for r in fused]
        out[f"in{k}s"] = [best.get(r["path"], 0.0) for r in fused]
        if k < 20:
            out[f"defers{k}"] = [float(bool(set(r.get("links", ())) & (head - {r["path"]}))) for r in fused]
    return out


_HOW = re.compile(r"\b(?:how (?:do|can|could|should|would|to|does one)|i (?:want|need|'d like|would like|am trying|'m trying) to|"
                  r"is there a way|what(?:'s| is) the (?:best |right |recommended )?way|steps? to)\b", re.IGNORECASE)
_WHAT = re.compile(r"\b(?:what (?:is|are|does)|which|what's the (?:default|difference)|default)\b", re.IGNORECASE)
_DEPRECATED = re.compile(r"\b(?:is|are|has been|have been|was|were|now|considered|being)\s+(?:\*\*)?(?:deprecated|obsolete|"
                         r"legacy|discouraged|superseded)\b|^\s*\.\.\s+(?:version-)?deprecated::|historical purposes|"
                         r"no longer (?:maintained|supported|recommended)", re.IGNORECASE | re.MULTILINE)
_OLD_Q = re.compile(r"\b(?:deprecat\w*|legacy|obsolete|old|older|historic\w*|migrat\w*|still|used to|no longer|"
                    r"removed|anymore)\b", re.IGNORECASE)


DEPRECATED_CHARS = 800


def _body_start(head: str) -> str:
    """A page's first 1,500 characters after its title (its first heading and underline / overline)."""
    lines = head.split("\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or re.match(r"^([=\-~^*+#\"'`])\1{2,}\s*$", lines[i])
                              or lines[i].lstrip().startswith(("#", ":", "---")) and i < 6):
        i += 1
    return "\n".join(lines[i + 1:])[:DEPRECATED_CHARS]


def _page_features(q: dict, pages: dict) -> dict[str, list[float]]:
    """Per entry, from the page table `fused_replay.py record` writes beside the lists (`<set>.pages`) and the
    question's recorded meaning (`outline_cos`, `title_cos`, `sent_cos`): the question's shape against the page's
    kind, a deprecated page, the page outline's and the best sentence's cosine (each minus the list's best)."""
    fused = q["fused"]
    how = bool(_HOW.search(q["question"]))
    what = bool(_WHAT.search(q["question"])) and not how
    old_q = bool(_OLD_Q.search(q["question"]))
    out: dict[str, list[float]] = {k: [] for k in ("how_you", "how_steps", "how_entries", "what_entries", "how_imp",
                                                   "guide", "deprecated", "dep_top", "outline", "title_cos",
                                                   "outline10", "sent", "sent_page")}
    oc = q.get("outline_cos") or {}
    tc = q.get("title_cos") or {}
    top_o = max((oc.get(r["path"], -1.0) for r in fused[:10]), default=0.0)
    top_t = max((tc.get(r["path"], -1.0) for r in fused[:10]), default=0.0)
    sc = [r.get("sent_cos") for r in fused]
    top_s = max((c for c in sc if c is not None), default=0.0)
    page_s: dict[str, float] = {}
    for r, c in zip(fused, sc):
        if c is not None:
            page_s[r["path"]] = max(page_s.get(r["path"], -1.0), c)
    own = [r["score"] for r in fused]
    for m in (0.02, 0.04, 0.08):  # tie-breakers: the cosine features only for entries within m x the first's score
        near = [o >= own[0] * (1 - m) for o in own]
        for name, vals in (("title_cos", [tc.get(r["path"], top_t) - top_t if tc else 0.0 for r in fused]),
                           ("outline", [oc.get(r["path"], top_o) - top_o if oc else 0.0 for r in fused]),
                           ("sent", [(c - top_s) if c is not None else -0.3 for c in sc])):
            out[f"{name}_tie{int(m * 100)}"] = [v if ok else -1.0 for v, ok in zip(vals, near)]
    for i, r in enumerate(fused):
        pg = pages.get(r["path"], {})
        kchars = max(pg.get("chars", 0), 500) / 1000
        you = min(pg.get("you", 0) / kchars / 5, 1.0)
        steps = min(pg.get("steps", 0) / kchars, 1.0)
        imp = min(pg.get("imperative", 0) / kchars, 1.0)
        entries = min(pg.get("entries", 0) / kchars, 1.0)
        guide = (you + steps + imp) / 3 - entries
        out["how_you"].append(you if how else 0.0)
        out["how_steps"].append(steps if how else 0.0)
        out["how_imp"].append(imp if how else 0.0)
        out["how_entries"].append(entries if how else 0.0)
        out["what_entries"].append(entries if what else 0.0)
        out["guide"].append(guide if how else (-guide if what else 0.0))
        body = _body_start(pg.get("head", ""))
        dep = float(bool(_DEPRECATED.search(body)) and not old_q)
        out["deprecated"].append(dep)
        out["dep_top"].append(dep if i < 10 else 0.0)
        out["outline"].append(oc.get(r["path"], top_o) - top_o if oc else 0.0)
        out["outline10"].append(oc.get(r["path"], top_o) - top_o if oc and i < 10 else 0.0)
        out["title_cos"].append(tc.get(r["path"], top_t) - top_t if tc else 0.0)
        out["sent"].append((sc[i] - top_s) if sc[i] is not None else -0.3)
        out["sent_page"].append(page_s.get(r["path"], top_s - 0.3) - top_s if page_s else 0.0)
    return out


def _name_parts(path: str) -> set[str]:
    """The folder and file names of `path` (the file's without its extension), lower-cased, letters only (as
    `doc_kind._path_names` reads them)."""
    parts = [p.split(".", 1)[0] or p for p in path.split("/")]
    return {re.sub(r"[^a-z]", "", p.lower()) for p in parts}


_KINDS = {"ref_page": {"reference"}, "faq_page": {"faq", "faqs"}, "guide_page": {"guide", "guides", "tutorial",
                                                                               "tutorials", "quickstart"},
          "cli_page": {"cli", "commands"}, "cfg_page": {"config", "configuration", "settings"}}


def _kind_features(q: dict) -> dict[str, list[float]]:
    """Per entry, 1.0 when its page is of a kind named by its path (`_KINDS`: a folder or file called "reference",
    "faq", ...), else 0.0; and the same for the first 10 entries only (`<kind>10`)."""
    out: dict[str, list[float]] = {}
    for kind, names in _KINDS.items():
        vals = [float(bool(_name_parts(r["path"]) & names)) for r in q["fused"]]
        out[kind] = vals
        out[kind + "10"] = [v if i < 10 else 0.0 for i, v in enumerate(vals)]
    return out


def _features(q: dict, stop: frozenset[str]) -> dict[str, np.ndarray]:
    """Per entry, the page-level features of its page (each entry of a page gets the page's value)."""
    fused = q["fused"]
    paths = [r["path"] for r in fused]
    asked = _words(q["question"], stop)
    count10: dict[str, int] = {}
    for p in paths[:HEAD]:
        count10[p] = count10.get(p, 0) + 1
    scores: dict[str, list[float]] = {}
    for r in fused:
        scores.setdefault(r["path"], []).append(r["score"] - r["contrib"].get("bonus", 0.0))
    heads: dict[str, set[str]] = {}
    for r in fused:
        name = re.sub(r"[_\-./]", " ", r["path"].rsplit(".", 1)[0])
        heads.setdefault(r["path"], _words(name, stop)).update(_words(r["title"], stop))
    cos = [r.get("cosine") for r in fused]
    top_cos = max((c for c in cos if c is not None), default=0.0)
    best_cos: dict[str, float] = {}
    for p, c in zip(paths, cos):
        if c is not None:
            best_cos[p] = max(best_cos.get(p, -1.0), c)
    s30: dict[str, list[float]] = {}
    for r in fused[:30]:
        s30.setdefault(r["path"], []).append(r["score"] - r["contrib"].get("bonus", 0.0))
    head: dict[str, list[float]] = {}
    for r in fused[:HEAD]:
        head.setdefault(r["path"], []).append(r["score"] - r["contrib"].get("bonus", 0.0))
    top = fused[0]["score"] - fused[0]["contrib"].get("bonus", 0.0) if fused else 1.0
    out = {
        "count10": [min(count10.get(p, 0), 4) - 1 for p in paths],
        "second": [(sorted(scores[p], reverse=True)[1] / top if len(scores[p]) > 1 and top > 0 else 0.0) for p in paths],
        "second30": [(sorted(s30[p], reverse=True)[1] / top if i < 30 and len(s30.get(p, ())) > 1 and top > 0
                      else 0.0) for i, p in enumerate(paths)],
        "second10": [(sorted(head[p], reverse=True)[1] / top if len(head.get(p, ())) > 1 and top > 0 else 0.0)
                     for p in paths],
        "title_share": [len(asked & heads[p]) / len(asked) if asked else 0.0 for p in paths],
        "file_share": [len(asked & _words(re.sub(r"[_\-./]", " ", p.rsplit(".", 1)[0]), stop)) / len(asked)
                       if asked else 0.0 for p in paths],
        "log_length": [math.log10(max(r.get("page_chars", 0), 100)) - 4.0 for r in fused],
        "page_cosine": [best_cos.get(p, top_cos) - top_cos for p in paths],
        "count40": [min(len(scores[p]), 8) / 8 for p in paths],
        "rrf": [61 * (1.125 / (60 + r["ranks"]["vector"]) if "vector" in r["ranks"] else 0.0)
                + 61 * (1.0 / (60 + r["ranks"]["bm25"]) if "bm25" in r["ranks"] else 0.0) for r in fused],
    }
    out.update(_kind_features(q))
    out.update(_text_features(q, stop))
    out.update(_link_features(q))
    out.update(_page_features(q, q.get("_pages", {})))
    out.update({k: v for k, v in q.get("_feat", {}).items() if len(v) == len(fused)})  # bench/heading_features.py
    for name in SIDE_FEATURES:  # a side file not written for this set: the feature is 0 there
        out.setdefault(name, [0.0] * len(fused))
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


# Features read from side files beside a list: `<set>.feat` (bench/heading_features.py, bench/soft_coverage.py), `<set>.about`
# (bench/page_aboutness.py); bench/history/session-52.md "File Hit@1 misses by cause".
SIDE_FEATURES = ("qhead", "qhead_rel", "qhead_best", "head", "head_rel", "head_lead", "sent_best", "sent_best_rel",
                 "page_centroid", "page_mean", "page_top3", "page_near",
                 "softcov", "softcov_rel")  # the last two: bench/soft_coverage.py
FEATURES = (*_KINDS, *(k + "10" for k in _KINDS),
            "count10", "count40", "second", "second30", "second10", "title_share", "file_share", "log_length", "page_cosine", "rrf",
            "def_cover", "def_share", "form_same", "form_other", "role_only", "def_named",
            "written", "written_any", "written_all", "written_x", "written_head",
            "in5", "in10", "in20", "in5s", "in10s", "in20s", "defers5", "defers10",
            "how_you", "how_steps", "how_entries", "what_entries", "how_imp", "guide", "deprecated", "dep_top",
            "outline", "outline10", "title_cos", "sent", "sent_page",
            *(f"{n}_tie{m}" for n in ("title_cos", "outline", "sent") for m in (2, 4, 8)),
            *SIDE_FEATURES)
BASE: list[tuple[str, float]] = []  # features every rule, the recorded order included, adds (`--base`: what main ships)
WEIGHTS = (-0.2, -0.15, -0.1, -0.07, -0.05, -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2)
ALPHAS = tuple(round(0.4 + 0.05 * i, 2) for i in range(9))  # 0.4 .. 0.8


class Question:
    """One answerable question's recorded entries as arrays."""

    def __init__(self, q: dict, stop: frozenset[str]):
        parts = np.asarray([_parts(r) for r in q["fused"]], dtype=float)
        self.nv, self.nb, self.bonus, self.factor = parts.T
        self.feat = _features(q, stop)
        gold = set(q["gold"])
        self.gold_file = np.asarray([r["path"] in gold for r in q["fused"]])
        spans = q["gold_spans"]
        self.has_spans = bool(spans)
        self.gold_span = np.asarray([any(r["path"] == p and r["lines"][0] <= e and r["lines"][1] >= s
                                         for p, s, e in spans) for r in q["fused"]]) if spans else self.gold_file
        self.id = q["id"]

    def order(self, alpha: float, feature: str | None, w: float) -> np.ndarray:
        """Entry indices, best first, under the rule; the recorded order for (ALPHA, None, 0)."""
        score = self.factor * (alpha * self.nv + (1 - alpha) * self.nb) + self.bonus * (1 - alpha) / (1 - ALPHA)
        for name, weight in BASE:
            score = score + weight * self.feat[name]
        if feature and w:  # one feature and its weight, or "a+b" and a tuple of weights
            for name, weight in zip(feature.split("+"), w if isinstance(w, tuple) else (w,)):
                score = score + weight * self.feat[name]
        return np.argsort(-score, kind="stable")

    def metrics(self, alpha: float, feature: str | None, w: float) -> tuple[int, float, int]:
        """(file Hit@1, MRR@10 as `ragls eval` counts it, SpanHit@5)."""
        o = self.order(alpha, feature, w)
        hit1 = int(self.gold_file[o[0]])
        ranks = np.nonzero(self.gold_span[o[:10]])[0]
        mrr = 1.0 / (ranks[0] + 1) if len(ranks) else 0.0
        span = int(self.gold_span[o[:5]].any())
        return hit1, mrr, span


def load(files: list[Path]) -> dict[str, dict[str, list[Question]]]:
    """{corpus: {set: [Question]}}; rust-book and rust-keywords form one corpus."""
    from ragls.core.analysis import STOPWORDS, stem_set

    stop = stem_set(" ".join(STOPWORDS)) | stem_set("use using can want way get make work need doc docs")
    out: dict[str, dict[str, list[Question]]] = {}
    for f in files:
        corpus = "rust-book" if f.stem.startswith("rust-") else f.stem
        side = f.with_suffix(".pages")
        pages = json.loads(side.read_text()) if side.exists() else {}
        feat: dict = {}
        for suffix in (".feat", ".about"):  # bench/heading_features.py, bench/page_aboutness.py
            if f.with_suffix(suffix).exists():
                for qid, values in json.loads(f.with_suffix(suffix).read_text()).items():
                    feat.setdefault(qid, {}).update(values)
        qs = [Question({**q, "_pages": pages, "_feat": feat.get(q["id"], {})}, stop)
              for q in json.loads(f.read_text()) if q["answerable"] and q["fused"]]
        out.setdefault(corpus, {})[f.stem] = qs
    return out


def _total(qs: list[Question], alpha: float, feature: str | None, w: float) -> tuple[int, float]:
    hit = mrr = 0.0
    for q in qs:
        h, m, _ = q.metrics(alpha, feature, w)
        hit += h
        mrr += m
    return int(hit), mrr


def loco(data: dict[str, dict[str, list[Question]]], grid: list[tuple[float, str | None, float]]) -> dict:
    """{corpus: (chosen rule, {set: (base hit, base mrr, loco hit, loco mrr, n)})}."""
    per = {c: {s: {rule: _total(qs, *rule) for rule in grid} for s, qs in sets.items()} for c, sets in data.items()}

    def closeness(rule):  # ties: the rule nearest the shipped ranking
        a, _, w = rule
        return -(abs(a - ALPHA) * 2 + sum(map(abs, w if isinstance(w, tuple) else (w,))))

    out = {}
    for held, sets in data.items():
        def train(rule, held=held):
            hit = sum(per[c][s][rule][0] for c in data if c != held for s in per[c])
            mrr = sum(per[c][s][rule][1] for c in data if c != held for s in per[c])
            return hit, round(mrr, 6), closeness(rule)
        rule = max(grid, key=train)
        base = (ALPHA, None, 0.0)
        out[held] = (rule, {s: (*_total(qs, *base), *per[held][s][rule], len(qs)) for s, qs in sets.items()})
    return out


def families() -> dict[str, list[tuple[float, str | None, float]]]:
    """Rule families: alpha alone, each feature alone (alpha shipped), and every feature with any weight (the
    feature chosen in the fold too)."""
    fam = {"alpha": [(a, None, 0.0) for a in ALPHAS]}
    for f in FEATURES:
        fam[f] = [(ALPHA, f, w) for w in WEIGHTS]
    fam["any one feature"] = [(ALPHA, None, 0.0)] + [(ALPHA, f, w) for f in FEATURES for w in WEIGHTS if w]
    fam["any one page-kind / meaning feature"] = [(ALPHA, None, 0.0)] + [(ALPHA, f, w) for f in FEATURES[-22:]
                                                                          for w in WEIGHTS if w]
    fam["second + page_cosine"] = [(ALPHA, "second+page_cosine", (a, b)) for a in (0.0, 0.05, 0.07, 0.1, 0.15)
                                   for b in (0.0, 0.05, 0.1, 0.2)]
    fam["page support (second30 0.1) + any one feature"] = [(ALPHA, "second30", 0.1)] + [
        (ALPHA, f"second30+{f}", (0.1, w)) for f in FEATURES if not f.startswith("second") for w in WEIGHTS if w]
    fam["page support (second30 0.1) + alpha"] = [(a, "second30", 0.1) for a in ALPHAS]
    fam["alpha and any one feature"] = [(a, None, 0.0) for a in ALPHAS] + [
        (a, f, w) for a in ALPHAS for f in FEATURES for w in WEIGHTS if w]
    return fam


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--sets", nargs="*", help="print per-corpus lines only for these sets (default: every set)")
    ap.add_argument("--family", nargs="*", help="only these families")
    ap.add_argument("--base", nargs="*", default=[], metavar="FEATURE=WEIGHT",
                    help="features every rule adds, the base order included (main's page support: second30=0.1)")
    ap.add_argument("--weights", nargs="*", type=float, help="the weight grid (default: WEIGHTS, ±0.01 to ±0.2)")
    args = ap.parse_args()
    BASE[:] = [(f, float(w)) for f, w in (b.split("=") for b in args.base)]
    if args.weights:
        global WEIGHTS
        WEIGHTS = tuple(sorted({0.0, *args.weights}))
    data = load(args.files)
    for name, grid in families().items():
        if args.family and name not in args.family:
            continue
        res = loco(data, grid)
        helped = hurt = 0
        bh = lh = 0
        bm = lm = 0.0
        lines = []
        for rule, sets in res.values():
            for s, (b_hit, b_mrr, l_hit, l_mrr, n) in sets.items():
                bh, lh, bm, lm = bh + b_hit, lh + l_hit, bm + b_mrr, lm + l_mrr
                helped += l_hit > b_hit
                hurt += l_hit < b_hit
                if args.sets is None or s in args.sets:
                    a, f, w = rule
                    lines.append(f"  {s:14s} {b_hit:3d} -> {l_hit:3d} /{n:3d}   MRR {b_mrr / n:.3f} -> {l_mrr / n:.3f}"
                                 f"   chosen: alpha {a} {f or ''} {w if f else ''}")
        print(f"{name}: file Hit@1 {bh} -> {lh}, MRR@10 sum {bm:.2f} -> {lm:.2f}, sets helped {helped}, hurt {hurt}")
        print("\n".join(lines))
        hard = data.get("rust-book", {}).get("rust-book")
        if hard:
            rule = res["rust-book"][0]
            span = sum(q.metrics(*rule)[2] for q in hard if q.has_spans) / max(1, sum(q.has_spans for q in hard))
            mrr = sum(q.metrics(*rule)[1] for q in hard) / len(hard)
            print(f"  Rust book hard under its LOCO rule: SpanHit@5 {span:.3f}, MRR@10 {mrr:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
