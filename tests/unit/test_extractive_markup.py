"""Extractive answers drop markup (answer/extractive.py `clean_markup`), without a model: include lines,
badges, images and link definitions, reST and MyST roles, links read as their text, mkdocstrings options; and
read a folder's pathological markup (open brackets, long runs of spaces) in linear time."""

from __future__ import annotations

import pytest
from blockkit import body, hit
from ragls.answer.extractive import clean_markup, extractive_answer, split_sentences, units


def test_no_raw_markup_reaches_the_answer():
    answer = extractive_answer("install package configuration sections project history", [(1, hit())],
                               max_sentences=10)
    for markup in ("{ #install }", ":::", "{*", "<!--", "maintainers"):
        assert markup not in answer
    assert clean_markup("# Title {#t}\n::: a.b\n{* x.py *}\n<!-- c -->\ntext").split("\n") == \
        ["# Title", "", "", "", "text"]


def test_template_tags_are_the_examples_text():
    # A Jinja/Django/Liquid tag line is not an include line ({* file *}, {! file !}): the answer about a template
    # language quotes its example whole.
    doc = ("Autoescaping can be switched on and off from within the templates with the autoescape tag:\n\n"
           "```jinja\n{% autoescape true %}\n    Autoescaping is active within this block\n{% endautoescape %}\n```\n")
    answer = extractive_answer("How do I switch autoescaping on from within a template?", [(1, hit(doc))])
    for line in ("{% autoescape true %}", "Autoescaping is active within this block", "{% endautoescape %}"):
        assert line in answer
    assert clean_markup("{% raw %}\n{{ x }}\n{% endraw %}\n{! inc.md !}").split("\n") == \
        ["{% raw %}", "{{ x }}", "{% endraw %}", ""]


README = """# `@scope/widget`

A widget library which renders charts for TypeScript codebases.

[![NPM Version](https://img.shields.io/npm/v/widget.svg?style=flat)](https://www.npmjs.com/package/widget)
[![NPM Downloads](https://img.shields.io/npm/dm/widget.svg)](https://www.npmjs.com/package/widget)

See the [getting started guide](https://widget.dev/start) for installing the widget charts library.

- Charts are drawn with ![logo](logo.png) the [canvas renderer](https://widget.dev/canvas) by default

[npmjs-url]: https://www.npmjs.com/package/widget
[license-img]: https://img.shields.io/badge/license-MIT-blue.svg
"""


def test_badges_images_and_link_definitions_never_reach_the_answer():
    """Real READMEs (node_modules) open with badge lines `[![alt](shield)](url)` and end with `[label]: url`
    definitions; the answer showed them as raw markup ("![NPM Version](https://www.npmjs.com/...)")."""
    answer = extractive_answer("which widget charts library renders charts for TypeScript, npm version license",
                               [(1, hit(README))])
    lines = body(answer)
    assert lines, answer
    for line in lines:
        assert "![" not in line and "](" not in line and "]: http" not in line and "shields.io" not in line, line
    assert "- See the getting started guide for installing the widget charts library [1]." in lines
    assert "- Charts are drawn with the canvas renderer by default [1]" in lines
    assert clean_markup(README).count("\n") == README.count("\n")


def test_a_badge_line_is_no_passage():
    """A link whose text is images only (a badge) is nothing: with its image dropped it read as an empty link, whose
    target stands for its text, so nox's and Rich's badge lines were quoted as rows of URLs ("- https://github.com/
    wntrblm/nox https://pypi.python.org/pypi/nox ... [5]")."""
    text = ("# Widget\n\n[![PyPI](https://img.shields.io/pypi/v/widget.svg)](https://pypi.org/project/widget)\n"
            "[![CI](https://github.com/o/widget/workflows/CI/badge.svg)](https://github.com/o/widget/actions)\n"
            "[ ![Docs](https://readthedocs.org/badge.svg) ](https://widget.readthedocs.io)\n"
            "[![License](https://img.shields.io/github/license/o/widget)](https://github.com/o/widget)\n\n"
            "The widget package draws charts with the canvas renderer, see [the guide](https://widget.dev).\n")
    assert split_sentences(text) == ["The widget package draws charts with the canvas renderer, see the guide."]
    answer = extractive_answer("widget pypi ci docs badge", [(1, hit(text))])
    assert "https://" not in answer, answer


def test_rest_roles_and_section_underlines_read_as_text():
    """Sphinx roles (":meth:`~flask.make_response`") and a reST title's underline reached answers verbatim."""
    text = ("The Built-In Debugger\n---------------------\n\nWhile it is possible to set :data:`DEBUG` in your "
            "config, use :meth:`~flask.Flask.make_response` and read :ref:`the responses guide <about-responses>` "
            "or :ref:`about-responses` first. Set :paramref:`.Context.configure.compare_type` or "
            ":func:`~.context.configure` there.\n")
    assert clean_markup(text).count("\n") == text.count("\n")
    assert [u.text for u in units(text)] == [
        ("While it is possible to set `DEBUG` in your config, use `make_response` and read the responses guide or "
         "about-responses first."),
        "Set `Context.configure.compare_type` or `configure` there."]  # a leading dot only guides Sphinx's search


def test_myst_roles_read_as_their_text():
    """MyST roles (`{func}`x``, Sphinx's roles written for Markdown) read as reST's do: code roles as code, `{doc}` /
    `{ref}` as their text; "{class}" was quoted verbatim and its word scored. A code span or a JavaScript template
    literal that merely holds braces is left alone."""
    text = ("This can be replaced with the {func}`password_option` decorator; see {py:class}`~click.Path` and "
            "{doc}`the prompts page <prompts>`. Print `{x}` and `${name}` as they are.")
    assert clean_markup(text) == ("This can be replaced with the `password_option` decorator; see `Path` and the "
                                  "prompts page. Print `{x}` and `${name}` as they are.")


def test_a_link_whose_text_is_code_holding_a_bracket_reads_as_its_text():
    """The Helix book links its config tables as "[`[editor.lsp]`](./editor.md#editorlsp-section)": the link text
    is a code span holding "]", which ended the link text before, so the answer and the search preview (break50)
    showed the link as written."""
    text = ("The [`[editor.lsp]`](./editor.md#editorlsp-section) section of `config.toml` toggles the language server"
            " features, and [`[editor.soft-wrap]` Section](#editorsoft-wrap-section) wraps long lines.\n")
    [unit] = units(text, None)
    assert unit.sentence == ("The `[editor.lsp]` section of `config.toml` toggles the language server features, and "
                             "`[editor.soft-wrap]` Section wraps long lines."), unit.sentence


def test_a_link_target_in_angle_brackets_or_with_parentheses_reads_as_its_text():
    """CommonMark link targets may be written in angle brackets or hold balanced parentheses: Ruff's docs link
    "[`vim.lsp.config`](<https://neovim.io/doc/user/lsp.html#vim.lsp.config()>)", which the answer read to the
    first ")" and showed as "`vim.lsp.config`>)" (break51)."""
    text = ("The Ruff language server can be set up using [`vim.lsp.config`](<https://neovim.io/doc/user/lsp.html"
            "#vim.lsp.config()>) (Neovim 0.11+) or [Lisp](https://en.wikipedia.org/wiki/Lisp_(language)) (a joke).\n")
    [unit] = units(text, None)
    assert unit.sentence == ("The Ruff language server can be set up using `vim.lsp.config` (Neovim 0.11+) or Lisp "
                             "(a joke)."), unit.sentence


def test_mkdocstrings_options_under_an_identifier_line_are_no_code():
    """mkdocstrings' `::: module.path` line with its YAML options indented under it is the generated reference's
    settings: the line was removed and its options read as an indented code block, which MkDocs' theme guide then
    quoted under its title ("AnchorLink:" / "options: show_root_heading: false ...")."""
    text = ("#### AnchorLink\n\n::: mkdocs.structure.toc.AnchorLink\n    options:\n        show_root_heading: false\n"
            "        heading_level: 5\n\n### Navigation Objects\n\nNavigation objects hold the pages of the site.\n")
    cleaned = clean_markup(text)
    assert cleaned.count("\n") == text.count("\n") and "options" not in cleaned and "heading_level" not in cleaned
    assert [u.text for u in units(text)] == ["Navigation objects hold the pages of the site."]


@pytest.mark.timeout(90)
@pytest.mark.parametrize("pattern", ["[widget ", "![widget ", "[a](widget ", "[`a]` ", "[`widget ", "[a](<w ",
                                     "[a](w(w "])
def test_a_chunk_of_open_brackets_reads_in_linear_time(pattern):
    """A folder's chunk of unclosed brackets ("[widget [widget ...", "[a](" without ")") is read in time linear in
    its length: each link pattern scanned to the chunk's end from every bracket (red team, session 49: 10 s for
    one 20,000-character chunk under load, on every answer that read it; 200,000 characters take minutes). The
    timeout is a hang guard, two orders of magnitude above the linear time."""
    text = pattern * (200_000 // len(pattern))
    [unit] = units(text, None)
    assert unit.text.endswith("…") and text.startswith(unit.text[:-1].rstrip())  # no link in it: as written, cut


@pytest.mark.timeout(60)
def test_a_heading_of_spaces_reads_in_linear_time():
    """A folder's heading holding a long run of spaces ("# a" + spaces + "b"; an HTML heading so, or its permalink
    anchor) is labelled and converted in linear time: the label's separators and the permalink glyph pattern were
    tried from every space of the run, quadratic (red team, session 49: 19 s and 22 s for 20,000 spaces under load).
    200,000 spaces here; the timeout is a hang guard."""
    from ragls.answer.labels import heading_label
    from ragls.sources.convert import html_to_markdown

    spaces = " " * 200_000
    assert heading_label(f"### HTTP_PROXY,{spaces}ALL_PROXY") == ""  # too long to be a list of names
    assert heading_label("### HTTP_PROXY, HTTPS_PROXY") == "`HTTP_PROXY`, `HTTPS_PROXY`"
    text, _ = html_to_markdown(f"<html><body><main><h2 id='x'>Retries{spaces}now ¶</h2>"
                               "<p>The client retries three times and then gives up.</p></main></body></html>")
    assert "three times" in text
