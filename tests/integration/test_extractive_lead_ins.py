"""A short ":" lead-in read with the code block it introduces, with the real offline embedding model
(answer/lead_ins.py `lead_in_text`)."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.lead_ins import lead_in_text
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


PIPED = """# `chained`

**Default: `false`**

Jobs of a hook run one after another in the order they are written. Each job
gets the files of the commit and its own environment, and its output is shown
when it ends. A job's exit code decides whether the hook passes.

When several jobs depend on each other, the later ones usually make no sense
after an earlier one failed: a migration cannot run on a database that was
never created, and seeding a half-migrated schema leaves it broken.

#### Example

```yml
# hooks.yml
database:
  chained: true # stop at the first failing job
  jobs:
    - name: create
      run: make db-create
    - name: migrate
      run: make db-migrate
```

Jobs are shown with their names in the summary, failed ones in red.
"""


def test_a_short_lead_in_is_read_with_its_block(embedder):
    """"Example:" (a section title standing in as the lead-in of the code under it) reads like nothing alone
    (the cosine of its one word to any question is near 0), so the option its block sets, the answer, was never
    quoted: it is embedded with its block's first lines, and the better of the two cosines is its own."""
    lead = next(u for u in units(PIPED) if u.sentence == "Example:")
    assert lead_in_text(lead).startswith("Example:\n# hooks.yml\ndatabase:\n  chained: true")
    longer = next(u for u in units(PIPED) if u.sentence.startswith("Jobs are shown"))
    assert lead_in_text(longer) == ""
    hit = Hit(chunk=Chunk(id="chained.md", path="chained.md", text=PIPED, span=LineSpan(0, 0, 30, 0),
                          text_hash="chained.md"), score=1.0)
    answer = extractive_answer("My hook creates the database, migrates it, then seeds it. If creating fails, the "
                               "rest must not run. What setting does that?", [(1, hit)],
                               embed=embedder.embed_documents)
    assert "chained: true" in answer, answer
