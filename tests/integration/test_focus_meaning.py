"""A hit's focus (`focusRange`) ranks its chunk's passages by their meaning beside their words
(`answer/focus._with_meaning`): the sentence that answers in its own words beats one restating the question's, on
real stores (tantivy, LanceDB, the SQLite manifest) and the offline all-MiniLM-L6-v2, through `search` as every
front calls it. By words alone the focus was the first paragraph, which shares "certificate", "server", "HTTPS" and
"expired" with the question and says what fails, not how to stop it.
"""

from __future__ import annotations

import pytest
from offline_index import file_lines, folder_index, line_of
from ragls.answer.focus import sentence_focus
from ragls.embedding.embed import offline_model_dir
from ragls.retrieval.search import search

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

CERTS = """# Certificates

By default the client checks the certificate of every HTTPS server it talks
to, and a call to a server whose certificate is expired or self-signed fails
with a `CertificateError` that names the server.

```python
>>> fetch("https://expired.example.org/")
CertificateError: certificate has expired (expired.example.org)
```

You can turn verification off for a client and accept any certificate:

```python
>>> client = Client(check_certs=False)
>>> client.fetch("https://expired.example.org/")
<Reply [200]>
```

A custom certificate bundle can be given with the `ca_file` option instead.
"""

TIMEOUTS = "# Timeouts\n\nThe client waits five seconds for a reply before it gives up.\n"
QUESTION = "How do I disable certificate verification for a server whose HTTPS certificate has expired?"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    idx, s = folder_index(tmp_path_factory.mktemp("meaning"), {"certs.md": CERTS, "timeouts.md": TIMEOUTS})
    yield idx, s
    idx.close()


def test_the_focus_is_the_sentence_that_answers_by_meaning(indexed):
    idx, s = indexed
    top = search([idx], idx.embedder, QUESTION, settings=s.retrieval, top_k=2)[0]
    assert top.chunk.path == "certs.md"
    first, last = file_lines(top.focus)
    assert first == line_of(CERTS, "You can turn verification off")
    assert first <= line_of(CERTS, "check_certs=False") <= last <= first + 5  # the code line it introduces, 6 lines


def test_without_the_question_vector_the_focus_is_chosen_by_words(indexed):
    idx, s = indexed
    top = search([idx], idx.embedder, QUESTION, settings=s.retrieval, top_k=2)[0]
    [by_words] = sentence_focus([top], QUESTION)  # no embed: the words' choice (a BM25-only hit, no model)
    assert file_lines(by_words.focus)[0] == line_of(CERTS, "By default the client checks")
