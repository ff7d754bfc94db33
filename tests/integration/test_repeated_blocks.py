"""Repeated blocks on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py
`repeated_block_factors`, `retrieval.repeated_block_weight`): four command pages print the same generated `--help`
block, as coverage.py's docs do; with the default their chunks' fused scores are scaled by the share of their long
lines other pages repeat, and further by the share of the question's words they hold only in that block; with the
prior off (1) they are not, and a page of its own prose is untouched."""

from __future__ import annotations

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

HELP = """Usage: tool {cmd} [options] [modules]

Options:
  --data-file=INFILE    Read the measurement data for the report from this file.
  --include=PAT1,PAT2   Include only files whose paths match one of these patterns.
  --omit=PAT1,PAT2      Omit files whose paths match one of these patterns from the report.
  --skip-empty          Skip files with no code in the report.
  --rcfile=RCFILE       Read the configuration from this file instead of the default one.
"""
def page(cmd, what):
    return f"# tool {cmd}\n\nThe `{cmd}` command writes {what}.\n\n```\n{HELP.format(cmd=cmd)}```\n"
DOCS = {"cmd_xml.md": page("xml", "an XML report for CI servers"), "cmd_json.md": page("json", "a JSON report for scripts"),
        "cmd_lcov.md": page("lcov", "an LCOV report for editors"), "cmd_html.md": page("html", "an HTML report to browse"),
        "source.md": """# Choosing the files to measure

By default every file the program runs is measured, so the report can list the files of libraries you installed.
Pass `--source=mypackage` to the run command to measure only the files of your package: the reports made from that
data then list only those files, and files of the package that never ran are reported as not covered at all.
"""}
QUESTION = "How do I include only the files of my package in the report?"
# Its BM25 terms (analysis.stems) are includ, file, packag, report; a command page holds includ, file and report, and
# only report outside the shared options ("The `xml` command writes an XML report ..."): 2 of its 3 only in the block.
OWN_QUESTION = "Which report does the xml command write for CI servers?"  # every word a command page holds is its own


def scores(tmp_path, weight: str, question: str = QUESTION) -> dict[str, float]:
    folder = indexed_folder(tmp_path / f"{weight}-{len(question)}", DOCS, filler=False,
                            toml=f'[generation]\nbackend = "none"\n[retrieval]\nrepeated_block_weight = {weight}\n')
    ws = RagWorkspace([folder])
    try:
        return {h.chunk.path: h.score for h in ws.query(question).hits}
    finally:
        ws.close()


def test_a_block_other_pages_repeat_is_scaled_by_its_share(tmp_path):
    off, on = scores(tmp_path, "1.0"), scores(tmp_path, "0.8")
    assert set(off) == set(on) == set(DOCS)
    assert on["source.md"] == pytest.approx(off["source.md"])  # its own prose: no factor
    for page in ("cmd_xml.md", "cmd_json.md", "cmd_lcov.md", "cmd_html.md"):
        # 5 of its 6 lines of 40+ characters are the shared options (its own sentence is the 6th): x (1 - 0.2 x 5/6);
        # 2 of the 3 question terms it holds only there: x (1 - 2 x 0.2 x 2/3)
        assert on[page] / off[page] == pytest.approx((1 - 0.2 * 5 / 6) * (1 - 0.4 * 2 / 3)), (page, on[page], off[page])


def test_a_question_the_page_answers_in_its_own_words_gets_the_line_share_only(tmp_path):
    off, on = scores(tmp_path, "1.0", OWN_QUESTION), scores(tmp_path, "0.8", OWN_QUESTION)
    for page in ("cmd_xml.md", "cmd_json.md", "cmd_lcov.md", "cmd_html.md"):
        assert on[page] / off[page] == pytest.approx(1 - 0.2 * 5 / 6), (page, on[page], off[page])
