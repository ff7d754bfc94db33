"""A neighbour joins a hit's focus (`focusRange`) by its score only when it says something of the question's own
point (`answer/focus._on_point`), on real stores (tantivy, LanceDB, the SQLite manifest) and the offline
all-MiniLM-L6-v2 with the sentence pass's stored vectors, through `RagWorkspace.retrieve` as every front calls it.
With the meaning weighed in, every sentence of a page scores near its best one (the cosines of one topic's
sentences lie close together), so before session 68 the last paragraph of the page below, a warning that shares
only the page's topic word "beacon" with the question, joined the focus of the roll-back answer (lines 3-8, the VS
Code client's fixture page). A sentence on a line the focus shows already still joins.
"""

from __future__ import annotations

from offline_index import extractive_workspace, file_lines, line_of
from ragls.answer.neighbours import FOCUS_SENTENCE_LINES

DEPLOYMENT = """# Deploying beacon firmware

New firmware goes out to the beacon cluster in stages.

Run `beacon push --canary 5` first: it updates five beacons and waits an hour. If no beacon reports a fault,
run `beacon push --all` to update the rest. To roll back, run `beacon push --previous`.

Never deploy during a storm warning; the beacons must stay lit while they reboot.
"""

CALIBRATION = """# Calibrating the frobnicator

The frobnicator drifts a little every week, so calibrate it on Mondays with the zeta-17 torque wrench.
"""


def test_a_sentence_sharing_only_the_topic_stays_out_of_the_focus(tmp_path):
    files = {"deployment.md": DEPLOYMENT, "calibration.md": CALIBRATION}
    with extractive_workspace(tmp_path, files, filler=False, sentence_pass=True) as workspace:
        top = workspace.retrieve("How do I roll back beacon firmware?", 2).hits[0]
    assert top.chunk.path == "deployment.md"
    first, last = file_lines(top.focus)
    assert first <= line_of(DEPLOYMENT, "To roll back") <= last  # the answer
    assert line_of(DEPLOYMENT, "storm warning") > last  # main: lines 3-8, the warning in
    assert last - first + 1 <= FOCUS_SENTENCE_LINES
    assert file_lines(top.quotes[0]) == (line_of(DEPLOYMENT, "To roll back"),) * 2  # where the cursor opens
