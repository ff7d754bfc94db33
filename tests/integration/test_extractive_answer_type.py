"""Extractive answers with the real offline model: a question asking for a kind of thing ("What command starts
...?") is answered with the passage naming one of that kind ("... provides this with the `drain` command:"),
`answer/answer_type.py`. Channels' worker page (ch11): "Channels instead provides you this with the ``runworker``
command:" scored 0.66 of the best passage and lost every place to sentences on sending jobs that shared more of
the question's words; Atuin's "### Claude Code" over `claude mcp add atuin -- atuin mcp` (at10) was never
pre-selected."""

from __future__ import annotations

import pytest
from extractkit import _bullets
from ragls.answer.extractive import extractive_answer
from ragls.core.ir import Chunk, Hit, LineSpan


@pytest.fixture
def embedder(offline_embedder):
    return offline_embedder


JOBS = """# Background jobs

Jobs are messages sent to a named queue. The scheduler puts each job on the queue it names, and a job waits
there until a process takes it off the queue. Jobs that wait longer than their deadline are dropped from the
queue.

To queue a job, send a message to the queue by name:

```python
queue.send("resize-images", {"id": 42})
```

Each queue keeps its jobs in order, and a job is taken by one process only. A job that fails goes back to the
queue once.

Once the jobs are queued, a process must take them off the queue. Taskq provides this with the `drain` command:

```
taskq drain resize-images
```

Note that `drain` only takes jobs from the queues you name on its command line.
"""

ROUTING = """# Routing jobs

A queue name routes a job to the process that listens on it. A process listens on the queues named in its
configuration, and every job sent to one of those queues is handed to that process.

You can also send jobs to a dedicated process that listens on its own queue name:

```python
queue.send("thumbnails", {"id": 7})
```

Queue names are strings of letters, digits, hyphens and dots.
"""


def _hit(text: str, path: str) -> Hit:
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, text.count("\n"), 0), text_hash=path),
               score=1.0)


def test_the_command_asked_for_leads(embedder):
    """The passage naming the command leads the answer; it came third, after two sentences on queueing jobs."""
    answer = extractive_answer("I send resize jobs to a named queue. What command starts the process that takes "
                               "them off the queue?", [(1, _hit(JOBS, "jobs.md")), (2, _hit(ROUTING, "routing.md"))],
                               embed=embedder.embed_documents)
    assert _bullets(answer)[0] == ("- Once the jobs are queued, a process must take them off the queue. Taskq "
                                   "provides this with the `drain` command [1]:"), answer
    assert "taskq drain resize-images" in answer


def test_a_command_only_mentioned_changes_nothing(embedder):
    """A question that mentions a command without asking for one ("From a management command I want ...") is
    answered as before: its passages are ranked by their own evidence alone."""
    question = "From a management command I want to send one job to the thumbnails queue."
    sources = [(1, _hit(JOBS, "jobs.md")), (2, _hit(ROUTING, "routing.md"))]
    answer = extractive_answer(question, sources, embed=embedder.embed_documents)
    assert not _bullets(answer)[0].startswith("- Once the jobs are queued"), answer
