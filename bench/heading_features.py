"""Heading features of recorded fused lists (issue 27): how well each fused chunk's section headings match the
question, by the embedding model, for `bench/file_rank_loco.py` to weigh by leave-one-corpus-out.

    python bench/fused_replay.py record bench/questions/<set>.jsonl <folder> rec/<set>.json   # once per set
    python bench/heading_features.py rec/<set>.json ...                                        # writes rec/<set>.feat

For every answerable question of a recorded list and each of its fused entries, the entry's headings are its heading
path's last part (the section the chunk starts in, `title`) and every Markdown / reST heading inside its text (a chunk
packs several short sections: an FAQ chunk holds several questions). A heading is *question-shaped* when it ends with
"?" (an FAQ entry: "Can I call a task by name?", "How can Cargo work offline?"). Per entry (`<set>.feat`: {question id:
{feature: [value per entry]}}):

  qhead      the best cosine of the question with a question-shaped heading of the entry (0 without one): an FAQ
             entry is a question a user asked, and MiniLM was trained on pairs of questions asking the same thing
  qhead_rel  qhead minus the best qhead of the list's first 10 (0 without one; <= 0)
  qhead_best 1 for the entries whose qhead is the list's best (within the first 10) and above 0.5, else 0
  head       the best cosine of the question with any heading of the entry
  head_rel   head minus the best head of the list's first 10
  head_lead  head of the entry's own section (its title's last part) minus the list's best such cosine (first 10)

With `--sentences FOLDER` (the folder the list was recorded on), also, for the first SENTENCE_HEAD entries:

  sent_best  the best cosine of the question with one of the entry's sentences (`answer.passages.units`, the
             extractive answer's candidates; the vectors the index's sentence pass stored are reused), 0 below the head
  sent_best_rel  sent_best minus the list's best (0 below the head)

The cosines use the embedding model of the default settings as the product's vector signal does (query side for
the question, document side for the headings); with `--sentences` the folder's read-only workspace (its user-cache
index is reused).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^([=\-~^*+#\"'`])\1{2,}\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_MARKUP = re.compile(r"[`*_]|\{#[^}]*\}|<[^>]+>|\[([^\]]*)\]\([^)]*\)")


def clean(heading: str) -> str:
    """A heading without inline markup (code spans, emphasis, Markdown attribute lists `{#id}`, HTML tags, link
    targets: `[text](url)` keeps its text)."""
    return re.sub(r"\s+", " ", _MARKUP.sub(lambda m: m.group(1) or "", heading)).strip()


def headings(text: str) -> list[str]:
    """The Markdown ATX headings and reST section titles (a line over an underline of punctuation) in `text`,
    outside fenced code, in order."""
    out: list[str] = []
    lines = text.splitlines()
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = _MD_HEADING.match(line)
        if m:
            out.append(clean(m.group(1)))
        elif (line.strip() and not _UNDERLINE.match(line) and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1])
              and len(lines[i + 1].strip()) >= len(line.strip()) - 2 and not line.startswith((" ", "\t", ".."))):
            out.append(clean(line))
    return [h for h in out if h]


def entry_headings(r: dict) -> tuple[str, list[str]]:
    """(the entry's own section heading: its title's last part, every heading of the entry)."""
    own = clean(r.get("title", "").split(" > ")[-1]) if r.get("title") else ""
    found = headings(r.get("text", ""))
    return own, list(dict.fromkeys([own, *found] if own else found))


def features(embedder, q: dict) -> dict[str, list[float]]:
    """The features above for one recorded question."""
    qv = embedder.embed_query(q["question"])
    per = [entry_headings(r) for r in q["fused"]]
    texts = sorted({h for _, hs in per for h in hs})
    vec = dict(zip(texts, embedder.embed_memoised(texts))) if texts else {}
    cos = {h: float(vec[h] @ qv) for h in texts}
    head = [max((cos[h] for h in hs), default=0.0) for _, hs in per]
    own = [cos.get(o, 0.0) if o else 0.0 for o, _ in per]
    qhead = [max((cos[h] for h in hs if h.endswith("?")), default=0.0) for _, hs in per]
    top_q = max(qhead[:10], default=0.0)
    top_h = max(head[:10], default=0.0)
    top_o = max(own[:10], default=0.0)
    return {
        "qhead": qhead,
        "qhead_rel": [(v - top_q) if v else 0.0 for v in qhead],
        "qhead_best": [1.0 if v and v >= top_q and v > 0.5 else 0.0 for v in qhead],
        "head": head,
        "head_rel": [v - top_h for v in head],
        "head_lead": [v - top_o for v in own],
    }


SENTENCE_HEAD = 12


def sentence_features(embedder, q: dict) -> dict[str, list[float]]:
    """`sent_best` and `sent_best_rel` (module docstring) for one recorded question."""
    from ragls.answer.blocks import is_markdown
    from ragls.answer.passages import units

    qv = embedder.embed_query(q["question"])
    sent = []
    for r in q["fused"][:SENTENCE_HEAD]:
        found = units(r["text"], None, is_markdown(r["path"]))
        sent.append(float((embedder.embed_memoised([u.sentence for u in found]) @ qv).max()) if found else 0.0)
    top = max(sent, default=0.0)
    n = len(q["fused"])
    return {"sent_best": sent + [0.0] * (n - len(sent)),
            "sent_best_rel": [v - top for v in sent] + [0.0] * (n - len(sent))}


def main() -> int:
    from ragls.workspace.rag_workspace import RagWorkspace

    args = sys.argv[1:]
    if args[:1] == ["--sentences"]:
        folder, f = Path(args[1]), Path(args[2])
        ws = RagWorkspace([folder], read_only=True)
        try:
            rows = json.loads(f.read_text())
            feat_path = f.with_suffix(".feat")
            feat = json.loads(feat_path.read_text()) if feat_path.exists() else {}
            for q in rows:
                if q["answerable"] and q["fused"]:
                    feat.setdefault(q["id"], {}).update(sentence_features(ws.embedder, q))
            feat_path.write_text(json.dumps(feat))
        finally:
            ws.close()
        print(f"{f.stem}: sentences", flush=True)
        return 0
    from ragls.config.settings import Settings
    from ragls.embedding.embed import Embedder

    embedder = Embedder(Settings().embedding)  # the model the indexes were built with (offline: all-MiniLM-L6-v2)
    for f in map(Path, args):
        rows = json.loads(f.read_text())
        out = {q["id"]: features(embedder, q) for q in rows if q["answerable"] and q["fused"]}
        f.with_suffix(".feat").write_text(json.dumps(out))
        print(f"{f.stem}: {len(out)} questions", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
