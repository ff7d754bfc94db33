"""evaluation/evaluate.py: gold-file parsing and its errors, the metric arithmetic on hand-made rankings, --compare sides."""

from __future__ import annotations

import pytest
from ragls.core.errors import InvalidParams
from ragls.core.ir import Chunk, Hit, LineSpan
from ragls.evaluation.evaluate import (
    GoldItem,
    first_passage,
    format_report,
    judge,
    load_questions,
    parse_setting_side,
    summarize,
)


def hit(path: str, first: int, last: int) -> Hit:
    """A hit on 1-based lines first..last (the span ends at column 0 of the line after)."""
    return Hit(chunk=Chunk(id=f"{path}{first}", path=path, text="x", span=LineSpan(first - 1, 0, last, 0),
                           text_hash=f"{path}{first}"), score=1.0)


def write(tmp_path, text: str):
    p = tmp_path / "gold.jsonl"
    p.write_text(text)
    return p


def test_gold_forms_and_unanswerable(tmp_path):
    qs = load_questions(write(tmp_path, '{"question": "a?", "gold": ["x.md"]}\n\n// comment\n'
                                        '{"id": "b", "question": "b?", "kind": "deep", "gold": ["./d/y.md:3-5", '
                                        '{"path": "z.md", "lines": [7, 7]}]}\n{"question": "c?", "gold": []}\n'))
    assert [q.id for q in qs] == ["1", "b", "5"]
    assert qs[0].gold == (GoldItem("x.md"),) and qs[0].kind == "all"
    assert qs[1].gold == (GoldItem("d/y.md", 3, 5), GoldItem("z.md", 7, 7))
    assert not qs[2].answerable


@pytest.mark.parametrize("line, message", [
    ("not json", "not JSON"), ('{"gold": []}', "non-empty .question."),
    ('{"question": "q", "gold": "x.md"}', "must be a list"),
    ('{"question": "q", "gold": [{"path": "x", "lines": [5, 2]}]}', "first <= last"),
    ('{"question": "q", "gold": [3]}', "a gold item is"),
    ('{"question": "q", "answers": ["x.md"]}', "no .gold. .* unknown field.s. 'answers'"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, message):
    with pytest.raises(InvalidParams, match=f"gold.jsonl:2: .*{message}"):
        load_questions(write(tmp_path, '{"question": "ok", "gold": []}\n' + line + "\n"))


def test_duplicate_ids_and_empty_files_are_errors(tmp_path):
    with pytest.raises(InvalidParams, match="duplicate id 'a'"):
        load_questions(write(tmp_path, '{"id": "a", "question": "q"}\n{"id": "a", "question": "r"}\n'))
    with pytest.raises(InvalidParams, match="no questions"):
        load_questions(write(tmp_path, "\n"))


def test_a_gold_file_that_is_not_utf8_is_an_error_and_a_bom_is_read(tmp_path):
    """A binary or Latin-1 file ended `ragls eval` with a UnicodeDecodeError traceback; a file saved with a BOM
    (Windows editors) failed on its first line ("Unexpected UTF-8 BOM")."""
    p = tmp_path / "gold.jsonl"
    p.write_bytes(b'{"question": "caf\xe9?", "gold": []}\n')
    with pytest.raises(InvalidParams, match=r"gold.jsonl: not UTF-8 text \(byte 0xe9 at offset 17\); a gold file is "
                                            r"JSON Lines: docs/evaluation.md"):
        load_questions(p)
    p.write_bytes(b'\xef\xbb\xbf{"question": "a?", "gold": ["x.md"]}\r\n')
    assert [(q.question, q.gold) for q in load_questions(p)] == [("a?", (GoldItem("x.md"),))]


def test_metrics_by_hand(tmp_path):
    qs = load_questions(write(tmp_path, """\
{"id": "s", "kind": "k1", "question": "q", "gold": ["a.md:10-12"]}
{"id": "t", "kind": "k1", "question": "q", "gold": ["a.md:40-41", "b.md:1-2"]}
{"id": "f", "kind": "k2", "question": "q", "gold": ["c.md"]}
{"id": "u", "kind": "k2", "question": "q", "gold": []}
{"id": "v", "kind": "k2", "question": "q", "gold": []}
"""))
    runs = {
        # s: rank 1 is the right file but lines 1-9 (no overlap); rank 3 overlaps 10-12 -> RR 1/3, outside k=2
        "s": [hit("a.md", 1, 9), hit("x.md", 1, 5), hit("a.md", 8, 20)],
        # t: rank 2 overlaps b.md 1-2 -> RR 1/2, recall 1/2 at k=2 (a.md 40-41 never found)
        "t": [hit("x.md", 1, 5), hit("b.md", 2, 30)],
        # f: file-level gold, c.md at rank 4 -> RR 1/4, not in top 2
        "f": [hit("x.md", 1, 2), hit("y.md", 1, 2), hit("z.md", 1, 2), hit("c.md", 50, 60)],
        "u": [hit("x.md", 1, 2)], "v": [],
    }
    abstained = {"s": False, "t": True, "f": False, "u": True, "v": False}
    results = [judge(q, runs[q.id], 2, abstained[q.id]) for q in qs]
    s = summarize(results, 2)
    # Hit@1: only s has a gold file first (a.md); t and f start with x.md
    assert s["all"] == pytest.approx({"n": 3, "unanswerable": 2, "Hit@1": 1 / 3, "Hit@2": 2 / 3, "SpanHit@2": 1 / 2,
                                      "Recall@2": (0 + 0.5 + 0) / 3, "MRR@10": (1 / 3 + 1 / 2 + 1 / 4) / 3,
                                      "abstained": 2 / 5})
    assert s["kinds"]["k1"]["Hit@1"] == 0.5 and s["kinds"]["k2"]["Hit@1"] == 0.0
    assert s["kinds"]["k1"]["Hit@2"] == 1.0 and s["kinds"]["k1"]["MRR@10"] == pytest.approx(5 / 12)
    assert s["kinds"]["k2"]["SpanHit@2"] is None and s["kinds"]["k2"]["abstained"] == pytest.approx(1 / 3)
    # abstained: t (answerable) and u (unanswerable) -> precision 1/2; recall 1/2 (v answered); false rate 1/3
    assert s["abstention"] == pytest.approx({"unanswerable": 2, "abstained": 2, "abstained_unanswerable": 1,
                                             "abstained_answerable": 1, "precision": 0.5, "recall": 0.5,
                                             "false_abstention_rate": 1 / 3})


def test_compare_sides(tmp_path):
    assert parse_setting_side("retrieval.top_k=10, rag_min_similarity=0.3,retrieval.hybrid=false") == (
        "retrieval.top_k=10, rag_min_similarity=0.3,retrieval.hybrid=false",
        {"retrieval": {"top_k": 10, "hybrid": False}, "rag_min_similarity": 0.3})
    assert parse_setting_side("generation.model=gpt-4o-mini")[1] == {"generation": {"model": "gpt-4o-mini"}}
    toml = tmp_path / "b.toml"
    toml.write_text("[retrieval]\ntop_k = 3\n")
    assert parse_setting_side(str(toml)) == ("b.toml", {"retrieval": {"top_k": 3}})
    with pytest.raises(InvalidParams, match="no such settings file"):
        parse_setting_side(str(tmp_path / "missing.toml"))
    with pytest.raises(InvalidParams, match="expected name=value"):
        parse_setting_side("retrieval.top_k")


def test_key_and_focus_metrics(tmp_path):
    """`key`: the answer must hold one of the strings (case-sensitive); Focus@k: a top-k hit's focus overlaps a
    gold span and spans at most 6 lines (a 12-line window overlapping the gold does not count)."""
    qs = load_questions(write(tmp_path, '{"id": "a", "question": "a?", "key": "verify=False", '
                                        '"gold": [{"path": "x.md", "lines": [10, 11]}]}\n'
                                        '{"id": "b", "question": "b?", "key": ["PoolTimeout", "pool"], '
                                        '"gold": [{"path": "x.md", "lines": [40, 40]}]}\n'))
    assert qs[0].keys == ("verify=False",) and qs[1].keys == ("PoolTimeout", "pool")
    sentence = Hit(hit("x.md", 1, 50).chunk, 1.0, focus=LineSpan(9, 0, 11, 0))  # lines 10-11
    window = Hit(hit("x.md", 1, 50).chunk, 1.0, focus=LineSpan(34, 0, 46, 0))  # lines 35-46: 12 lines
    ra = judge(qs[0], [sentence], 5, False, "set `verify=False` on the client")
    rb = judge(qs[1], [window], 5, False, "The Pool timeout is raised")
    assert (ra.key_hit, ra.focus_hit) == (True, True)
    assert (rb.key_hit, rb.focus_hit) == (False, False)
    assert (ra.focus, rb.focus) == (["x.md:10-11"], ["x.md:35-46"])  # what Focus@k judged, in --json
    assert (ra.answer, judge(qs[0], [sentence], 5, False).answer) == ("set `verify=False` on the client", None)
    s = summarize([ra, rb], 5)
    assert s["answers"]["all"] == {"keyed": 2, "Key": 0.5, "KeyFirst": 0.5, "lined": 2, "Focus@5": 0.5}
    with pytest.raises(InvalidParams, match="key"):
        load_questions(write(tmp_path, '{"question": "a?", "key": [1], "gold": []}\n'))


def test_key_does_not_read_the_line_naming_what_the_sources_do_not_mention(tmp_path):
    """An extractive answer's last line "*None of these sources mentions PyPI.*" (answer/ask.py `unmentioned_line`)
    repeats a name of the question: it holds no answer, so a key equal to that name is not found there."""
    qs = load_questions(write(tmp_path, '{"id": "a", "question": "a?", "key": "PyPI", "gold": []}\n'))
    hedged = "*Extractive answer.*\n\n- Publish with `poetry publish` [1].\n\n*None of these sources mentions PyPI.*"
    assert judge(qs[0], [], 5, False, hedged).key_hit is False
    assert judge(qs[0], [], 5, False, hedged.replace("with `poetry publish`", "to PyPI")).key_hit is True


EXTRACTIVE = """*Extractive answer (no LLM configured): the passages of your documents that best match the question.*

- Once you've built the app, you may test it locally by running `npm run preview` command [1].
  ```bash
  $ npm run preview
  ```

  (the block may hold a blank line)
- Set this to `0.0.0.0` or `true` to listen on all addresses [2].
- `server.host`: This can be set via the CLI using `--host` [2]."""


def test_first_passage_leaves_out_only_the_extractive_answers_own_label_lines():
    """The label lines `first_passage` leaves out are those answer/extractive.py writes (`is_extractive_label`):
    the plain one, the LLM-failed one and one with the reason no LLM is used; an LLM's answer opening with an
    italic line of its own is judged on that line (a pattern of "any italic line" dropped it)."""
    from ragls.answer.extractive_label import EXTRACTIVE_LABEL, FALLBACK_LABEL, extractive_label
    body = "- Use `--host` [1].\n- Other [2]."
    for label in (EXTRACTIVE_LABEL, FALLBACK_LABEL, extractive_label("the folder is not trusted")):
        assert first_passage(f"{label}\n\n{body}") == "- Use `--host` [1]."
    assert first_passage("*Set `--host` to listen on all addresses.*\n\n- More [1].") == \
        "*Set `--host` to listen on all addresses.*"


def test_key_first_judges_the_first_passage(tmp_path):
    """KeyFirst (`first_passage`): the first list item with what is indented under it (its block, blank lines
    too), without the label; an answer without a list (an abstention) is judged on its first paragraph; an LLM's
    answer opening with a paragraph on that paragraph."""
    first = first_passage(EXTRACTIVE)
    assert first.startswith("- Once you've built") and first.endswith("(the block may hold a blank line)"), first
    assert "0.0.0.0" not in first
    assert first_passage("Not in your docs: they never mention VM. Try rephrasing.\n\nMore.") == \
        "Not in your docs: they never mention VM. Try rephrasing."
    assert first_passage("Use `--host` to listen on all addresses [1].\n\n1. Run `vite --host`.\n") == \
        "Use `--host` to listen on all addresses [1]."
    assert first_passage("1) Run `vite --host` [1].\n2) Open the LAN URL [1].") == "1) Run `vite --host` [1]."
    assert first_passage("") == ""
    qs = load_questions(write(tmp_path, '{"id": "a", "question": "a?", "key": ["npm run preview"], "gold": []}\n'
                                        '{"id": "b", "question": "b?", "key": "--host", "gold": []}\n'))
    ra, rb = (judge(q, [], 5, False, EXTRACTIVE) for q in qs)
    assert (ra.key_hit, ra.key_first, rb.key_hit, rb.key_first) == (True, True, True, False)
    s = summarize([ra, rb], 5)
    assert s["answers"]["all"]["KeyFirst"] == 0.5 and s["answers"]["all"]["Key"] == 1.0
    report = format_report(s)
    assert "KeyFirst" in report and "     1.000      0.500" in report, report
