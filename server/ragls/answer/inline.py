"""Inline markup of a passage's text read as the answer (Markdown) shows it: links as their text (with their target
when it names a Python object), images, footnote marks and inline HTML tags dropped, reST hyperlink references as
their text and reST inline literals as code spans (`link_text`), and a passage's text on one line without bare
citation marks ("[1]", `plain`).

The passage reader (answer/passages.py) reads a chunk's blocks (answer/blocks.py) as sentences, list items and table
rows; each of them, and each line of a list it quotes, goes through here. Code spans are code: nothing inside one
is read as a link or a tag.
"""

from __future__ import annotations

import html
import re

from ragls.answer.labels import REST_LITERAL
from ragls.embedding.vocabulary import wordpiece_words
from ragls.index.headings import SUBSTITUTION

__all__ = ["SHORTCODE", "link_text", "plain"]

# Link texts and targets are bounded (`_TEXT`, `_TARGET`): unbounded, a chunk of 20,000 "[" (or "[a](") made each
# pattern scan to its end from every bracket, quadratic — 10 s for one chunk's `plain`, on every answer that read it.
# A target may be written in angle brackets ("(<https://neovim.io/doc/user/lsp.html#vim.lsp.config()>)", Ruff's docs)
# or hold balanced parentheses ("(https://en.wikipedia.org/wiki/Lisp_(language))"), CommonMark 6.3: read to its first
# ")", the link left ">)" or ")" behind in the answer ("`vim.lsp.config`>)").
_TEXT, _TARGET = r"[^\]]{0,1000}", r"(?:<[^<>\n]{0,4000}>[^)]{0,400}|(?:[^()]|\([^()]{0,400}\)){0,4000})"
_LINK = re.compile(rf"!?\[({_TEXT})\](?:\(({_TARGET})\)|\[{_TEXT}\])")
# Images are not answer text: badges (`[![npm](shield.svg)](npmjs.com/...)`, a whole line of them atop most
# READMEs) went through _LINK as "![npm](npmjs.com/...)", raw markup in the answer.
_IMAGE = re.compile(rf"!\[{_TEXT}\](?:\({_TARGET}\)|\[{_TEXT}\])")
# A link whose text is images only (a badge linking to its service): nothing, not its target — with the images gone
# it read as an empty link, MyST's implicit text, so a README's badge line was quoted as a row of URLs.
_IMAGE_LINK = re.compile(r"\[\s*(?:" + _IMAGE.pattern + rf"\s*)+\](?:\({_TARGET}\)|\[{_TEXT}\])")
# A reST hyperlink reference: `text <target>`_ (or __, anonymous), `name`_ — read as its text.
_REST_LINK = re.compile(r"(?<![`\w])`([^`<>\n]+?)(?:\s*<[^<>`\n]+>)?`__?(?!\w)")
# A shortcut reference link, "[Rich]" / "[*orjson*]" (CommonMark 6.3): its definition ("[Rich]: https://...") is
# mostly at the end of the file, outside the chunk, so markdown-it cannot resolve it; read as its text. Not a
# one-character label ("[x]"), nor one with digits or punctuation ("[Errno 98]", "[SSL: ...]", "[x>=0]"), nor after a
# word or "#" ("httpx[http2]", "#[test]"), nor in a code span (`_shortcut_links`), nor the inside of a double bracket:
# "[[custom_target]]" (Meson's reference to a function, a wiki link, TOML's array of tables "[[tool.x]]") stays as
# written — read as "[custom_target]" it looked like a citation and was neither.
_SHORTCUT_LINK = re.compile(r"(?<![\w\]\\!`#\[])\[([*_]?[A-Za-z][A-Za-z*_ .'/-]+)\](?![\(\[\]:_\w])")
_BARE_MARKER = re.compile(r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]")
# A Hugo shortcode, `{{< g_inline_pro >}}`, `{{% note %}}`, `{{< g_inline_version "v2.6" >}}`: its template replaces it
# with HTML (a badge, a frame) when the site is built, so written inside a line of prose or a configuration comment
# ("# {{< g_inline_pro >}} Default: ...", GoReleaser's reference) it is no text; not Hugo's escaped example
# `{{</* x */>}}`. answer/markup.py removes a line that is only shortcodes (`_PREPROCESSED`).
SHORTCODE = r"\{\{[<%][ \t]*/?[\w-]+(?:[ \t][^{}\n]*)?[>%]\}\}"
_SHORTCODE = re.compile(SHORTCODE + r"[ \t]*")

# A link target that names a Python object, not a page: a dotted name ("structlog.processors.LogfmtRenderer"; MyST
# resolves it as a cross-reference), not a file ("why.md") nor a host ("example.com").
_OBJECT_TARGET = re.compile(r"^~?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_NOT_OBJECT = re.compile(r"\.(?:md|rst|txt|html?|ipynb|py|png|svg|jpe?g|gif|pdf|toml|ya?ml|json|cfg|ini|com|org|net|"
                         r"io|edu|gov)$")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]{1,200}\]")  # a footnote mark, "colorful[^win]"
# An attribute list (`{.class}`, `{#id}`, `{key=value}`, several in one, kramdown's `{: .class}`): MyST's attrs_inline
# and attrs_block, Python-Markdown's attr_list (mkdocs-material's `{ .annotate }`), pandoc. Markup, never words.
_ATTR = r"""(?:[.#][\w-]+|[\w-]+=(?:"[^"\n]*"|'[^'\n]*'|[^\s{}"']+))"""
ATTRIBUTES = r"\{:?[ \t]*" + _ATTR + r"(?:[ \t]+" + _ATTR + r")*[ \t]*\}"
# A code span with the attribute list right after it ("`print(1)`{l=python}": the span as written, group 1), or an
# attribute list right after a link, an image or a bracketed span ("[Next](x.md){.md-button}").
_ATTRIBUTED = re.compile(r"(``[^`\n]+``|`[^`\n]+`)(?:" + ATTRIBUTES + r")?|(?<=[)\]])" + ATTRIBUTES)
# A reST backslash escape: the backslash is never shown, an escaped space not at all. Only where an escape is what the
# author meant: before a space, punctuation or "_" ("\\*args", "``a``\\ b", "DEVPISERVER\\_": an underscore ending a
# word would make it a reference) or a letter right after inline markup ("*PATTERN*\\s"); a backslash between letters
# ("C:\\Users" in a plain text file) stays.
_REST_ESCAPE = re.compile(r"(?<=[*`_|])\\(\w)|\\( |_|[^\w\s])")
# Inline HTML in prose (`<kbd>Ctrl</kbd>`, `<code>x</code>`, `<br/>`, `<a href="...">text</a>`): the tags are not
# text. Only these tag names: "Vec<T>" or "<name>" in prose is not a tag.
_INLINE_HTML = re.compile(r"</?(?:a|abbr|b|br|cite|code|del|em|i|ins|kbd|mark|q|s|samp|small|span|strong|sub|sup|u|"
                          r"var|wbr)(?:\s[^<>]*)?/?>", re.IGNORECASE)


# A link text that is one lower-case name of parts joined by "-", "_" or "." ("django-cors-headers", "sphinx-autobuild",
# "columns.py"): a package, tool, command or file the link points at (`_named`)
_NAME_TEXT = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)+")
_NAME_PARTS = re.compile(r"[-_.]")


def _named(text: str) -> str:
    """A link's `text` as the answer shows it: as code when it is one lower-case name of parts joined by "-", "_"
    or "." (`_NAME_TEXT`) of which some part is no English word the model's tokenizer knows whole
    (`vocabulary.wordpiece_words`: "django-cors-headers", `` `sphinx-autobuild`_ ``, "crates.io") — a package, a
    command or a file, which is what the reader must type, and what `identifiers.IDENTIFIER` recognises as the
    means an answer names (`neighbours.explains`: "It will detect changes and reload the page any time you make
    edits." / "To do so, use `sphinx-autobuild` to run the following command:"); as it is otherwise (an English
    compound, "open-source", "read-only"; a title, "Sentry", "the docs")."""
    if not _NAME_TEXT.fullmatch(text):
        return text
    words = wordpiece_words()
    return f"`{text}`" if any(p not in words for p in _NAME_PARTS.split(text)) else text


def _link(label: str, target: str | None) -> str:
    """A Markdown link (its `label` and `target`, `_LINK`'s two groups) as its text; when its target names a Python object (`_OBJECT_TARGET`), with that name as code,
    which is what the reader must write: "[*logfmt*](structlog.processors.LogfmtRenderer)" -> "*logfmt*
    (`structlog.processors.LogfmtRenderer`)", "[`LoggerFactory`](structlog.stdlib.LoggerFactory)" ->
    "`structlog.stdlib.LoggerFactory`". A link with no text (MyST's "[](#setup)", whose text Sphinx fills with the
    target's title) reads as its target: "[](https://example.com)" -> "https://example.com", "[](#pkg.mod.setup)" ->
    "`pkg.mod.setup`"; a link with neither ("[](){#anchor}", an mkdocs-autorefs anchor) as nothing."""
    target = (target or "").strip()
    if not label.strip() and target:  # MyST's implicit text "[](#setup)", "see [](config.md)": the target's title
        target = target.strip("<>").lstrip("#")  # (resolved at build time, not here), so the target itself
        return f"`{target}`" if _OBJECT_TARGET.match(target) and not _NOT_OBJECT.search(target) else target
    if not _OBJECT_TARGET.match(target) or _NOT_OBJECT.search(target):
        return _named(label)
    name = target.lstrip("~")
    words = label.strip("`*_ ")
    if not words or words in (name, name.rsplit(".", 1)[-1]):
        return f"`{name}`"
    return f"{label} (`{name}`)"


# A code span or a Markdown link, whichever starts first: a link written inside a code span ("`[](#anchor)`",
# "`grid[i][j]`") is the code's text, not a link.
_CODE_OR_LINK = re.compile(r"(`[^`\n]+`)|" + _LINK.pattern)


def _links(text: str) -> str:
    """`text` with its Markdown links read by `_link`, outside code spans (`_CODE_OR_LINK`): "`[](#anchor)`" and
    "`grid[i][j]`" stay as written; a link whose text is code ("[`Sampler`](pkg.Sampler)") is still a link, also
    when the code holds brackets (the Helix book's "[`[editor.lsp]`](./editor.md#editorlsp-section)" reads
    "`[editor.lsp]`"): the brackets inside code spans are set aside first (`_HIDE_BRACKETS`), so the link text's
    bounded pattern (`_TEXT`) stays one character class."""
    if "[" not in text:
        return text
    hidden = "`" in text and "]" in text
    if hidden:
        text = CODE_SPANS.sub(lambda m: m.group(0).translate(_HIDE_BRACKETS), text)
    text = _CODE_OR_LINK.sub(lambda m: m.group(1) or _link(m.group(2), m.group(3)), text)
    return text.translate(_SHOW_BRACKETS) if hidden else text


# The brackets of a code span, set aside while links are read (`_links`): characters no text holds (Unicode
# noncharacters).
_HIDE_BRACKETS = str.maketrans("[]", "\ufdd0\ufdd1")
_SHOW_BRACKETS = str.maketrans("\ufdd0\ufdd1", "[]")


def _outside_code(text: str, pattern: re.Pattern[str], repl) -> str:
    """`text` with `pattern` replaced by `repl` (a template or a function of the match) outside its code spans."""
    parts = re.split(r"(`[^`\n]+`)", text)
    for k in range(0, len(parts), 2):
        parts[k] = pattern.sub(repl, parts[k])
    return "".join(parts)


# A dotted name a narrow table column wraps at its dot with a line break between two code spans, "`http.redirections.`
# <br />`entryPoint.to`" (Traefik's reference tables: 229 such names): one name, so one code span.
_WRAPPED_NAME = re.compile(r"(`[^`\s]*\.)`[ \t]*<br[ \t]*/?>[ \t]*`(?=[^`\s]+`)", re.IGNORECASE)


def _inline_html(text: str) -> str:
    """`text` without inline HTML tags outside code spans (`_INLINE_HTML`, `_tag`): `<code>x</code>` reads as
    `` `x` ``, other tags as the text they hold; a code span ending in "." and a `<br>` before another code span
    read as one dotted name (`_WRAPPED_NAME`: "`a.`<br/>`b`" -> "`a.b`")."""
    if "<" not in text:
        return text
    return _outside_code(_WRAPPED_NAME.sub(r"\1", text), _INLINE_HTML, _tag)


def _tag(m: re.Match[str]) -> str:
    """An inline HTML tag as Markdown: `<code>`/`<kbd>` and their closing tags as a code span's backtick, `<sup>` as
    "^(" and `</sup>` as ")" ("2<sup>n</sup>" reads "2^(n)"), `<br>` as a space, any other tag as nothing."""
    tag = m.group(0).lower()
    name = re.sub(r"[^a-z].*", "", tag.lstrip("</"), flags=re.DOTALL)
    if name in ("code", "kbd"):
        return "`"
    if name == "sup":
        return ")" if tag.startswith("</") else "^("
    return " " if name == "br" else ""


# pymdownx.keys' key combination, "++ctrl+alt+delete++", "++r++" (Textual's docs: 108, MkDocs Material's: 26): the
# keys in group 1
_KEYS = re.compile(r"(?<![+\w])\+\+([A-Za-z0-9][\w-]*(?:\+[A-Za-z0-9][\w-]*)*)\+\+(?![+\w])")


def _key(m: re.Match[str]) -> str:
    """A pymdownx.keys combination as the page shows it, a code span as `<kbd>` reads (`_tag`): "++ctrl+p++" ->
    "`Ctrl+P`", "++page-up++" -> "`Page Up`"."""
    return "`" + "+".join(k.upper() if len(k) == 1 else k.replace("-", " ").replace("_", " ").title()
                          for k in m.group(1).split("+")) + "`"


def _keys(text: str) -> str:
    """`text` with its pymdownx.keys combinations outside code spans as code spans (`_KEYS`, `_key`)."""
    return _outside_code(text, _KEYS, _key) if "++" in text else text


# A reST substitution reference (`index.headings.SUBSTITUTION`), "|@example|", "|st.composite|", "|~settings.deadline|",
# "|command-line-tool|" (with "_" or "__" after it a link too): the name in group 1. docutils' inline markup rules: no
# whitespace just inside the bars, none of word characters or bars right outside ("| cell |" of a table and "a|b" are
# not one).
# A substitution's name that is a Python name ("@example", "st.composite", ".filter", "settings.max_examples",
# "HealthCheck.too_slow", "run_state_machine_as_test", "DeadlineExceeded"): Hypothesis's prolog replaces each with its
# cross-reference (".. |@example| replace:: :func:`@example <hypothesis.example>`"), so the page shows it as code
_CODE_NAME = re.compile(r"^[@.~]?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(\))?$")


def _substitution(m: re.Match[str]) -> str:
    """A reST substitution reference (`SUBSTITUTION`) as the page shows its replacement, read from its name (the
    definition, ".. |name| replace:: ...", is mostly in another chunk or the build's `rst_prolog`): a Python name
    (`_CODE_NAME` with a ".", "_", "@", "()" or an inner capital) as a code span, "~" keeping its last part as
    Sphinx's "~" does ("|~settings.deadline|" -> "`deadline`"); any other name as its text ("|test cases|" -> "test
    cases", "|version|" -> "version")."""
    name = m.group(1)
    if not _CODE_NAME.match(name):
        return name
    shown = name[1:].rsplit(".", 1)[-1] if name.startswith("~") else name
    code = any(c in name for c in "._@(") or re.search(r"[a-z][A-Z]", name)
    return f"`{shown}`" if code else shown


def _substitutions(text: str) -> str:
    """reST `text` with its substitution references outside code spans read (`SUBSTITUTION`, `_substitution`)."""
    return _outside_code(text, SUBSTITUTION, _substitution) if "|" in text else text


def _shortcut_links(text: str) -> str:
    """`text` with its shortcut reference links ("[Rich]", `_SHORTCUT_LINK`) outside code spans read as their text."""
    return _outside_code(text, _SHORTCUT_LINK, lambda m: _named(m.group(1))) if "[" in text else text


# An HTML character reference in Markdown prose ("`TTIN` &mdash; increase worker count by one.", "&nbsp;", "&#8594;"):
# CommonMark shows the character (6.2); outside code spans the answer shows it too (`_character`).
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# ... except those the answer, itself Markdown, must keep written as references: "&lt;div&gt;" decoded would be a tag
_MARKUP_ENTITIES = frozenset("<>&")


def _character(m: re.Match[str]) -> str:
    """The character an HTML character reference (`_ENTITY`) stands for — a no-break space as a space — or the
    reference as written when it names no character (`html.unescape` leaves it) or one Markdown reads as markup
    (`_MARKUP_ENTITIES`)."""
    char = html.unescape(m.group(0))
    if char == m.group(0) or char in _MARKUP_ENTITIES:
        return m.group(0)
    return " " if char == "\u00a0" else char


def link_text(text: str, markdown: bool | None = True) -> str:
    """Prose markup as the answer (Markdown) shows it: Markdown links outside code spans reduced to their text (with
    their target when it names a Python object, `_link`, `_links`; in Markdown (`markdown`, `blocks.chunk_markdown`
    of the chunk: True Markdown, False reST, None plain text) a shortcut reference "[Rich]" as "Rich", `_SHORTCUT_LINK`, and a pymdownx.keys "++ctrl+p++" as
    "`Ctrl+P`" (`_keys`) — reST and plain text have none: their
    brackets are text, "use [include] vs [source] in your .coveragerc" names two INI sections), images and links
    of images only (badges, `_IMAGE_LINK`) dropped,
    footnote marks outside code spans (a regular expression's "`[^:]`" stays) and inline HTML tags dropped
    (`_inline_html`), in Markdown HTML character references outside code spans as their characters ("&mdash;" as
    "—", `_character`; not "&lt;", "&gt;", "&amp;"), reST backslash escapes read (`_escapes`; not in
    Markdown nor plain text), Markdown attribute lists after a code span, link or image dropped (`_ATTRIBUTED`: "`x = 1`{l=python}"
    reads "`x = 1`"), reST hyperlink references reduced to their text
    (`` `Sentry <https://sentry.io/>`_ `` -> "Sentry", `` `git`_ `` -> "git"), Hugo shortcodes outside code spans
    dropped (`SHORTCODE`: "{{< g_inline_pro >}} Default: ..." reads "Default: ..."), reST substitution references as their
    name ("|@example|" -> "`@example`", `_substitutions`) and reST inline literals as Markdown
    code spans (``` ``maxsize`` ``` -> `` `maxsize` ``; one holding a backtick, `_ticked`, fenced by two)."""
    if "{{" in text:  # Hugo's shortcodes, in any text its pages hold (a YAML comment is read as plain text)
        text = _outside_code(text, _SHORTCODE, "")
    if markdown and "{" in text:
        text = _ATTRIBUTED.sub(lambda m: m.group(1) or "", text)
    text = _links(_IMAGE.sub("", _IMAGE_LINK.sub("", text)))
    if markdown:
        text = _keys(_shortcut_links(text))
    else:  # reST's backslash escapes, not a plain text's backslashes ("D:\_cache", a diagram's "/chunk\/")
        text = _substitutions(text) if markdown is None else _escapes(_substitutions(text))
    text = _inline_html(_outside_code(text, _FOOTNOTE_REF, "") if "[^" in text else text)
    if markdown and "&" in text:
        text = _outside_code(text, _ENTITY, _character)
    text = _REST_LINK.sub(lambda m: _named(m.group(1).strip()), text)
    text = REST_LITERAL.sub(r"`\1`", text)
    return _TICKED_LITERAL.sub(_ticked, text) if not markdown and "``" in text else text


# A reST inline literal holding backticks ("``:rolename:`content```", "````literal````"; docutils ends one at "``"
# followed by no third "`"): a Markdown code span needs a longer fence and a space inside it (`_ticked`).
_TICKED_LITERAL = re.compile(r"(?<!`)``(\S(?:[^\n]*?\S)??)``(?!`)")


def _ticked(m: re.Match[str]) -> str:
    """A reST inline literal (`_TICKED_LITERAL`) holding a backtick as a Markdown code span ("`` :rolename:`content`
    ``"); any other as written (`REST_LITERAL` reads it)."""
    return f"`` {m.group(1)} ``" if "`" in m.group(1) else m.group(0)


# reST inline literals and interpreted text (``x``, `x`): what `_escapes` and `rest_literals.note_refs` leave as written
CODE_SPANS = re.compile(r"(``[^`\n]+``|`[^`\n]+`)")


def _escapes(text: str) -> str:
    """reST `text` with its backslash escapes (`_REST_ESCAPE`) outside code spans as the characters they escape
    ("*EXCLUDE_PATTERN*\\s" -> "*EXCLUDE_PATTERN*s", "``a``\\ b" -> "``a``b"); in ``literals`` and interpreted text
    (":math:`\\alpha`") nothing changes."""
    if "\\" not in text:
        return text
    return _SPAN_OR_ESCAPE.sub(lambda m: m.group(1) or m.group(2) or m.group(3).strip(), text)


# A code span (kept as written, group 1) or an escape (`_REST_ESCAPE`, groups 2 and 3), matched in one pass over the
# whole text: an escape right after a span ("`Item`\\s", a role read as code) sees the backtick before it, which a
# text split into spans hid from `_REST_ESCAPE`'s look-behind.
_SPAN_OR_ESCAPE = re.compile(f"{CODE_SPANS.pattern}|{_REST_ESCAPE.pattern}")


def plain(text: str, markdown: bool = True) -> str:
    """`text` on one line (runs of whitespace as one space) with its markup reduced (`link_text`; `markdown` as
    there) and bare citation marks ("[1]", "[2, 3]") removed."""
    return " ".join(_BARE_MARKER.sub("", link_text(text, markdown)).split())
