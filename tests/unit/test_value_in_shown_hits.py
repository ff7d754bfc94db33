"""value_missing reads the hits the user is shown as well as the hits the evidence is judged on: under convex
fusion the evidence comes from RRF's top hits, and a value stated only in a shown hit ("**port**: The server port.
Default: 8337.", held-out set 32) made ragls refuse a question it showed the answer to."""

from __future__ import annotations

from ragls.core.analysis import stems
from ragls.core.ir import Chunk, Hit, LineSpan
from ragls.retrieval.abstention import gather
from ragls.retrieval.query import analyse

QUESTION = "Which port does the web interface listen on by default?"


def _hit(cid: str, text: str) -> Hit:
    return Hit(chunk=Chunk(id=cid, path=f"{cid}.rst", text=text, span=LineSpan(0, 0, text.count("\n") + 1, 0),
                           text_hash=cid, title="Web plugin"), score=1.0)


def _stats() -> list[tuple[int, dict[str, int]]]:
    df = {"port": 3, "web": 6, "interfac": 4, "listen": 3, "default": 25}
    return [(60, {t: df.get(t, 10) for t in stems(QUESTION)})]


def test_a_value_a_shown_hit_states_is_not_missing():
    judged = [_hit("intro", "The web plugin is a very basic alternative interface.\nType beet web to start it.\n")]
    shown = [*judged, _hit("options", "Configuration\n\n- **host**: The server hostname. Default: 127.0.0.1.\n"
                                      "- **port**: The server port. Default: 8337.\n")]
    q = analyse(QUESTION)
    assert gather(_stats(), q, judged, None).value_missing == 1.0  # what the judged hits alone say
    assert gather(_stats(), q, judged, None, shown=shown).value_missing == 0.0
    assert gather(_stats(), q, judged, None, shown=judged).value_missing == 1.0  # nothing shown states it
