"""A short ":" lead-in joined with the sentence before it ("... in the settings module. For example:", answer/passages.py
reads a paragraph's last sentence of at most LEAD_IN_MAX_WORDS words ending in ":" with the one before it) is still
a lead-in: it is embedded with the code block it introduces (answer/lead_ins.py `lead_in_text`, judged on its last
sentence), with the real offline embedding model."""

from __future__ import annotations

import pytest
from ragls.answer.lead_ins import lead_in_text
from ragls.answer.passages import units

PAGE = """# Rate limits

Clients are counted per address for anonymous requests and per account for signed-in users.

The limits of the whole site are one mapping in the settings module, read once at startup. For example:

```python
RATE_LIMITS = {
    "anon": "100/day",
    "user": "1000/day",
}
```

A view can set its own limits, which replace the site's for that view only.
"""


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def test_a_joined_lead_in_is_read_with_its_block(embedder):
    """The joined sentence has more than LEAD_IN_WORDS content words, its lead-in "For example:" two: it is
    embedded with its block, and the question asked in the block's terms reads closer to that text than to the
    sentence alone."""
    lead = next(u for u in units(PAGE) if u.sentence.endswith("For example:"))
    text = lead_in_text(lead)
    assert text.startswith(lead.sentence + "\n") and '"anon": "100/day",' in text, text
    assert lead_in_text(next(u for u in units(PAGE) if u.sentence.startswith("A view can"))) == ""
    question = "How do I cap anonymous clients at 100 requests a day and signed-in users at 1000 a day?"
    q = embedder.embed_query(question)
    alone, with_block = embedder.embed_documents([lead.sentence, text]) @ q
    assert with_block > alone + 0.05, (alone, with_block)
