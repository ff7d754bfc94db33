"""Extractive answers with the real offline model: the sentence right before a quoted one in its paragraph is read
with it when it names an identifier the question's words point at that the quoted one does not name
(`neighbours.names_before`). A page names the setting in one sentence and says what it does in the next, in the
question's words: "You can configure the set of private commits by setting `git.private-commits` to a revset." /
"The value is a revset of commits that Jujutsu will refuse to push." (Jujutsu's config.md, jj-i06) — quoted alone,
the second answers "how do I make jj refuse to push ..." without the name to set."""

from __future__ import annotations

import pytest
from extractkit import _bullets
from ragls.answer.ask import extractive_answer
from ragls.answer.cite import content_words
from ragls.answer.neighbours import names_before
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


CONFIG = """# Configuration

## Remote branches

### Protected branches

You can name the branches nobody may overwrite by setting `remote.protected-branches` to a
glob. The tool will then refuse to force-push any branch matching it. If unset, every branch
may be force-pushed.

```toml
[remote]
protected-branches = "release/*"
```

### Fetch interval

The `remote.fetch-interval` setting is the number of minutes between two background fetches.
"""

GUIDE = """# Working with remotes

Pushing a branch sends its commits to the remote. When a branch was rewritten locally, the push
is a force-push, which replaces the remote branch with the local one.
"""

QUESTION = "How do I stop the tool from force-pushing over our release branches?"


def _hit(text: str, path: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
               score=1.0)


def test_the_sentence_naming_the_setting_comes_with_the_one_quoted(embedder):
    """The passage reading closest to the question is "The tool will then refuse to force-push ..." (it names
    nothing); the sentence before it names `remote.protected-branches`, whose words "protected" and "branches" the
    question's "branches" points at: the first bullet quotes both, the name first."""
    answer = extractive_answer(QUESTION, [(1, _hit(CONFIG, "config.md")), (2, _hit(GUIDE, "remotes.md"))],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == (
        "- You can name the branches nobody may overwrite by setting `remote.protected-branches` to a glob. The tool "
        "will then refuse to force-push any branch matching it [1]."), answer


POINTED = """The `--listen-on` option tells the tool to listen for control messages on a UNIX socket. See `tool --help` for
details. Now you can control the running tool with the `--to` argument of `tool remote`."""


def test_a_pointer_elsewhere_is_not_read_before_a_sentence():
    """"See `tool --help` for details." names `tool --help`, which the question's "tool" points at, but only sends
    the reader elsewhere (`neighbours.POINTER`): it is not read before the next sentence. A sentence naming `--listen-on`,
    which "listen" points at, is read before the sentence after it (the pointer itself, here)."""
    found = units(POINTED)
    query = frozenset(content_words("How do I control a running tool from a script?"))
    pointer = next(u for u in found if u.sentence.startswith("See "))
    after = next(u for u in found if u.sentence.startswith("Now you can"))
    assert not names_before(pointer, after, query, POINTED)
    first = next(u for u in found if u.sentence.startswith("The `--listen-on`"))
    assert names_before(first, pointer, frozenset(content_words("Which option makes it listen for messages?")),
                        POINTED)
