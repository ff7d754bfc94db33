"""Extractive answers with the offline model on a settings table whose option names are wrapped at a dot with
`<br />` to keep the column narrow (Traefik's reference pages write 229 names so: "`http.redirections.`<br
/>`entryPoint.to`"). The name the user types is one dotted name: `answer/inline` joins the two code spans (it read
the `<br />` as a space: "`http.redirections.` `entryPoint.to`"). The table is Traefik's (traefik/traefik,
docs/content/reference/install-configuration/entrypoints.md, MIT), its anchors as written."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.inline import plain
from ragls.core.ir import Chunk, Hit, LineSpan

OPTIONS = """## Configuration Options

| Field | Description | Default | Required |
|:------|:------------|:--------|:---------|
| <a id="opt-address" href="#opt-address" title="#opt-address">`address`</a> | Define the port, and optionally the hostname, on which to listen for incoming connections and packets. | "" | Yes |
| <a id="opt-http-redirections-entryPoint-to" href="#opt-http-redirections-entryPoint-to" title="#opt-http-redirections-entryPoint-to">`http.redirections.`<br />`entryPoint.to`</a> | The target element to enable (permanent) redirecting of all incoming requests on an entry point to another one. <br /> The target element can be an entry point name (ex: `websecure`), or a port (`:443`). | "" | Yes |
| <a id="opt-http-redirections-entryPoint-scheme" href="#opt-http-redirections-entryPoint-scheme" title="#opt-http-redirections-entryPoint-scheme">`http.redirections.`<br />`entryPoint.scheme`</a> | The target scheme to use for (permanent) redirection of all incoming requests. | https | No |
"""


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def test_a_name_wrapped_at_its_dot_reads_as_one_code_span(embedder):
    lines = OPTIONS.count("\n")
    hit = Hit(chunk=Chunk(id="ep", path="entrypoints.md", text=OPTIONS, span=LineSpan(83, 0, 83 + lines, 0),
                          text_hash="ep"), score=1.0)
    answer = extractive_answer("How do I redirect every request of an entry point to another entry point?",
                               [(1, hit)], embed=embedder.embed_documents, embed_query=embedder.embed_query)
    assert "`http.redirections.entryPoint.to` | The target element" in answer, answer
    assert "`http.redirections.` `entryPoint" not in answer, answer


def test_only_a_span_ending_in_a_dot_joins_the_next():
    assert plain("`a.`<br/>`b` and `c`<br>`d`") == "`a.b` and `c` `d`"
    # a line break inside prose stays a space; a code span closing a sentence is no wrapped name
    assert plain("Use `x`.<br />`y` is next.") == "Use `x`. `y` is next."
