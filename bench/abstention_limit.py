"""Abstention probe: a limit asked for, none stated (issue 27, session 67; bench/history/session-67.md, "Abstention:
a limit asked, none stated").

    python bench/abstention_cowindow.py collect <set> <docs folder> rows/<set>.json   # each set
    python bench/abstention_limit.py rows/*.json

Reads `bench/abstention_cowindow.py collect` rows (every question's evidence, decision and top 5 hits with their
focus and context-window texts) and, among the questions the product answered (where a new refusal acts), prints
each question whose asking sentences speak of a limit — as `asked_limit.limit_asked` reads the asking form
("form") or any limit word at all ("any") — with whether a limit is stated (`asked_limit._LIMIT_STATED`, the
product's test) in a top-3 context window ("window") and in a top-3 focus text ("focus"), and the counts of near
misses and answerable questions the product's rule (form, none stated in the windows) calls missing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_ANY_LIMIT = re.compile(r"\b(?:time[- ]?outs?|time[- ]limit|time out|limits?|limiting|maximum|max|cap|at most|"
                        r"(?:larger|bigger|longer|older|more) than \d[\w.]*|rate[- ]limit\w*|throttl\w*)\b",
                        re.IGNORECASE)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+", type=Path)
    a = ap.parse_args()
    from ragls.retrieval.asked_limit import _LIMIT_STATED, limit_asked
    from ragls.retrieval.asked_value import asked_value, stated_text
    from ragls.retrieval.asking import asked_sentences

    counts = {(k, n): 0 for k in ("near miss", "answerable") for n in ("asked", "missing")}
    for path in a.rows:
        for r in json.loads(path.read_text())["rows"]:
            if r.get("p") is None or r["abstained"] or r["kind"] == "far-off":
                continue
            q = r["question"]
            form = limit_asked(q)
            if not form and (asked_value(q) is not None or not _ANY_LIMIT.search(asked_sentences(q))):
                continue
            window = any(_LIMIT_STATED.search(stated_text(h["window"])) for h in r["hits"][:3])
            focus = any(_LIMIT_STATED.search(stated_text(h["focus"])) for h in r["hits"][:3])
            kind = "answerable" if r["answerable"] else "near miss"
            if form:
                counts[kind, "asked"] += 1
                counts[kind, "missing"] += not window
            print(f"{kind:10} {'form' if form else 'any ':4} {'window' if window else '------'} "
                  f"{'focus' if focus else '-----'} P {r['p']:.2f} {r['set']:22} {r['id']:16} {q[:90]}")
    for kind in ("near miss", "answerable"):
        print(f"{kind}: {counts[kind, 'asked']} ask for a limit (form), {counts[kind, 'missing']} with none stated "
              "in the top-3 windows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
