"""A Markdown page whose options are an HTML definition list (Cargo's generated command pages: rust-lang/cargo,
src/doc/src/commands, MIT OR Apache-2.0) on a real index (tantivy, LanceDB, the offline model), answered without an
LLM: the HTML blocks are read as Markdown when the page is chunked (index/html_blocks.py), so search finds the
option, its preview and the answer quote the definition led by its term and without a tag, and the citation's lines
are the lines of the file that hold them. Before, the chunk held the tags (`<dt class="option-term" id="...">`), the
answer reader skipped the HTML lines and quoted no option."""

from __future__ import annotations

import pytest
from offline_index import extractive_workspace, line_of
from ragls.answer.passages import chunk_units
from ragls.answer.preview import chunk_preview

ADD = """# cargo-add(1)

## NAME

cargo-add --- Add dependencies to a Cargo.toml manifest file

## DESCRIPTION

This command can add or modify dependencies. The source for the dependency can be a registry, a path or a git
repository.

## OPTIONS

### Section options

<dl>

<dt class="option-term" id="option-cargo-add---dev"><a class="option-anchor" href="#option-cargo-add---dev"><code>--dev</code></a></dt>
<dd class="option-desc"><p>Add as a <a href="../reference/specifying-dependencies.html#development-dependencies">development dependency</a>.</p>
</dd>


<dt class="option-term" id="option-cargo-add---build"><a class="option-anchor" href="#option-cargo-add---build"><code>--build</code></a></dt>
<dd class="option-desc"><p>Add as a <a href="../reference/specifying-dependencies.html#build-dependencies">build dependency</a>.</p>
</dd>


<dt class="option-term" id="option-cargo-add---target"><a class="option-anchor" href="#option-cargo-add---target"><code>--target</code> <em>target</em></a></dt>
<dd class="option-desc"><p>Add as a dependency to the <a href="../reference/specifying-dependencies.html#platform-specific-dependencies">given target platform</a>.</p>
<p>To avoid unexpected shell expansions, you may use quotes around each target, e.g., <code>--target 'cfg(unix)'</code>.</p>
</dd>

</dl>

### Dependency options

<dl>

<dt class="option-term" id="option-cargo-add---dry-run"><a class="option-anchor" href="#option-cargo-add---dry-run"><code>--dry-run</code></a></dt>
<dd class="option-desc"><p>Don’t actually write the manifest</p>
</dd>


<dt class="option-term" id="option-cargo-add---rename"><a class="option-anchor" href="#option-cargo-add---rename"><code>--rename</code> <em>name</em></a></dt>
<dd class="option-desc"><p><a href="../reference/specifying-dependencies.html#renaming-dependencies-in-cargotoml">Rename</a> the dependency.</p>
</dd>

</dl>
"""

CLEAN = """# cargo-clean(1)

## DESCRIPTION

Remove artifacts from the target directory that Cargo has generated in the past. With no options, cargo clean
will delete the entire target directory.
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with extractive_workspace(tmp_path_factory.mktemp("htmldl"), {"cargo-add.md": ADD, "cargo-clean.md": CLEAN}) as ws:
        yield ws


def test_search_finds_the_option_and_previews_it_without_tags(ws):
    hits = ws.query("cargo add --dev development dependency").hits
    top = hits[0]
    assert top.chunk.path == "cargo-add.md"
    preview = chunk_preview(top.chunk, top.focus)
    assert "--dev" in preview and "Add as a development dependency" in preview, preview
    assert "<" not in top.chunk.text and "option-term" not in top.chunk.text, top.chunk.text


def test_the_answer_quotes_the_definition_led_by_its_term_on_the_source_lines(ws):
    result = ws.ask("Which cargo add option adds the dependency as a development dependency?")
    assert "`--dev`: Add as a development dependency" in result.text, result.text
    for markup in ("<dt", "<dd", "<p>", "class=", "option-anchor", "href"):
        assert markup not in result.text, (markup, result.text)
    hit = next(h for n, h in result.sources if n == 1)
    assert hit.chunk.path == "cargo-add.md"
    # the quoted passage cites the file's <dt> and <dd> lines (1-based), as the focus would
    unit = next(u for u in chunk_units(hit.chunk) if u.sentence.startswith("`--dev`"))
    first = hit.chunk.span.start_line + 1
    assert (first + unit.line, first + unit.end) == (line_of(ADD, 'id="option-cargo-add---dev"'),
                                                     line_of(ADD, "development dependency</a>"))


def test_a_definition_of_two_paragraphs_answers_whole(ws):
    result = ws.ask("How do I add a dependency only for one target platform, and how do I quote it?")
    assert "`--target` target: Add as a dependency to the given target platform" in result.text, result.text
    assert "<code>" not in result.text and "&#" not in result.text, result.text
