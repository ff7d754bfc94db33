"""Extractive answers with the real offline model: the second half of an example a quoted passage shows is quoted
with it whatever its score (`next_passage._goes_on`). An upgrade guide shows the old form ("If you previously had the
following in your workflow file:" and the old step) and then the new one ("It would be updated to:" and the new
step, Python Semantic Release's v10 guide, sr30); the short lead-in of the second half shares no word with the
question and scored 0.31 of the best passage there, under the floor of the passage after a quoted one (NEXT_FLOOR):
the answer showed what no longer works and not what to write instead."""

from __future__ import annotations

import pytest
from extractkit import _bullets
from ragls.answer.ask import extractive_answer
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


GUIDE = """# Upgrading to v3

## The `extra_args` input is gone

The `extra_args` input of the v2 deploy action passed any string to the deploy command line, which let a crafted
value run commands inside the action's container. In v3 the `extra_args` input was removed, and each option of the
deploy command now has an input of its own.

If you previously had the following in your workflow file:

```yaml
- uses: acme/deploy-action@v2
  with:
    extra_args: "--force --quiet"
```

It would be updated to:

```yaml
- uses: acme/deploy-action@v3
  with:
    replace_existing: true
    log_level: error
```

## Other inputs

The `deploy_token` input of the v2 deploy action is unchanged in v3. The `environment` input of the v2 deploy action
is unchanged in v3. The `dry_run` input of the v2 deploy action became `noop` in v3. The `config_file` input of the
v2 deploy action is unchanged in v3. The `directory` input of the v2 deploy action is unchanged in v3. The `verbose`
input of the v2 deploy action became `verbosity` in v3. The `tag` input of the v2 deploy action is unchanged in v3.
"""

INPUTS = """# Action inputs

## extra_args

The `extra_args` input was removed in v3 because of a command injection vulnerability. Please upgrade to v3.

## force

If set to true, the action passes `--force` to the deploy command, replacing what is deployed.
"""

QUESTION = ('Why does the v3 deploy action no longer accept my `extra_args: "--force --quiet"` input, and what do I '
            'write instead?')


def _hit(text: str, path: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
               score=1.0)


def test_the_new_form_follows_the_old_one(embedder):
    """The old step is quoted under its lead-in; "It would be updated to:" and the new step come right after it."""
    answer = extractive_answer(QUESTION, [(1, _hit(GUIDE, "upgrade.md")), (2, _hit(INPUTS, "inputs.md"))],
                               embed=embedder.embed_documents)
    bullets = _bullets(answer)
    old = bullets.index("- If you previously had the following in your workflow file [1]:")
    assert bullets[old + 1] == "- It would be updated to [1]:", answer
    assert "replace_existing: true" in answer.split(bullets[old + 1])[1].split("\n- ")[0], answer
