"""Extractive answers with the offline model: an HTML `<pre>` block in Markdown is the code block it shows
(`answer/blocks._preformatted`), so a ":" sentence is quoted with the command under it; a synopsis block right
under a heading and a status line ("<i>⚠️ Experimental</i>") do not end the prose the heading labels
(`answer/passages`). The text is Caddy's documentation (caddyserver/website, src/docs/markdown, Apache-2.0), which
writes every command so."""

from __future__ import annotations

import pytest
from ragls.answer.ask import extractive_answer
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan

RUNNING = """### Using the Service

If using a Caddyfile, you can edit your configuration with `nano`, `vi`, or your preferred editor:
<pre><code class="cmd bash">sudo nano /etc/caddy/Caddyfile</code></pre>

You can place your static site files in either `/var/www/html` or `/srv`. Make sure the `caddy` user has permission to read the files.

To verify that the service is running:
<pre><code class="cmd bash">systemctl status caddy</code></pre>
The status command will also show the location of the currently running service file.

If using a config file, you can gracefully reload Caddy after making any changes:
<pre><code class="cmd bash">sudo systemctl reload caddy</code></pre>

You can stop the service with:
<pre><code class="cmd bash">sudo systemctl stop caddy</code></pre>
"""

COMMANDS = """### `caddy add-package`

<i>⚠️ Experimental</i>

<pre><code class="cmd bash">caddy add-package &lt;packages...&gt;
	[-k, --keep-backup]</code></pre>

Similarly to `caddy upgrade`, replaces the current Caddy binary with the latest version with the same modules installed, _plus_ the packages listed as arguments included in the new binary. Find the list of packages you can install from [our download page](/download). Each argument should be the full package name.

For example:

<pre><code class="cmd bash">caddy add-package github.com/caddy-dns/cloudflare</code></pre>
"""


@pytest.fixture(scope="module")
def embedder(offline_embedder):
    return offline_embedder


def _hit(text: str, path: str) -> Hit:
    lines = text.count("\n")
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(100, 0, 100 + lines, 0), text_hash=path),
               score=1.0)


def test_a_colon_sentence_is_quoted_with_the_command_of_its_pre_block(embedder):
    """main read the `<pre>` lines as HTML (not text): "you can gracefully reload Caddy after making any changes."
    was quoted without `sudo systemctl reload caddy`, its ":" made "."."""
    answer = extractive_answer("I edited /etc/caddy/Caddyfile on the server. How do I make the running service pick "
                               "it up without downtime?", [(1, _hit(RUNNING, "running.md"))],
                               embed=embedder.embed_documents, embed_query=embedder.embed_query)
    lines = answer.splitlines()
    at = next(i for i, x in enumerate(lines) if "gracefully reload Caddy" in x)
    assert lines[at].endswith("after making any changes [1]:"), answer
    assert lines[at + 1:at + 4] == ["  ```", "  sudo systemctl reload caddy", "  ```"], answer
    assert "<pre>" not in answer and "<code" not in answer, answer


def test_pre_blocks_are_code_with_their_lines_and_entities_decoded():
    found = units(COMMANDS)
    example = next(u for u in found if u.attached and "cloudflare" in u.attached)
    assert example.attached == "```\ncaddy add-package github.com/caddy-dns/cloudflare\n```"
    assert example.block_end == 11  # the <pre> line, 0-based
    # the synopsis is code (entities decoded), shown by no passage of its own; nothing quotes its HTML
    assert not any("&lt;" in u.text or "<pre>" in u.text or "Experimental" in u.text for u in found), found


def test_the_heading_labels_the_prose_under_a_status_line_and_a_synopsis():
    """"### `caddy add-package`" / "<i>⚠️ Experimental</i>" / the command's synopsis / its description: the
    description is led by the command's name, as when the synopsis was read as HTML lines."""
    found = units(COMMANDS)
    first = next(u for u in found if "Similarly to" in u.sentence)
    assert first.sentence.startswith("`caddy add-package`: Similarly to `caddy upgrade`"), first
