"""HTML nested deeper than lxml reads, made shallow enough before the page converter (`convert.html_to_markdown`)
reads it.

libxml2, under lxml and trafilatura, stops building the tree at 256 nested elements ("Excessive depth in document:
256, use XML_PARSE_HUGE option"; the option only moves the limit to 2,048): the text inside the nest and every
word of the page after it were dropped, silently (`'<div>' * 300` before a paragraph: only the text above the nest
was indexed). `shallow` keeps the page as it is unless libxml2 reports that limit; then, below `KEEP_DEPTH`, it drops
the tags of layout wrappers (div, span, section …: all but `CONTENT_TAGS`) and, below `MAX_HTML_DEPTH`, every tag
(their text stays, in the element above), so the whole page is read and a paragraph in the nest stays a paragraph.
"""

from __future__ import annotations

from html.parser import HTMLParser

# Elements kept nested; the rest's tags are dropped, their text kept. libxml2 stops at 256 nested elements and adds
# implied ones (html, body, p) our count does not see: 200 leaves room for them.
MAX_HTML_DEPTH = 200
KEEP_DEPTH = 100  # below it, only the tags of `CONTENT_TAGS` are kept
# Tags that make text a paragraph, heading, list, table, quotation or code for the converter (trafilatura drops bare
# text in a div or span beside paragraphs).
CONTENT_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "blockquote", "ul", "ol", "li",
                          "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption"})
# HTML's void elements: no end tag, never nested into (WHATWG HTML, "void elements").
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})


def too_deep(html: str) -> bool:
    """Whether libxml2's HTML parser (lxml.html) stops reading `html` at its nesting limit (256 elements)."""
    if html.count("<") <= MAX_HTML_DEPTH:
        return False  # cannot nest that deep
    import lxml.etree
    import lxml.html

    parser = lxml.html.HTMLParser()
    try:
        lxml.html.fromstring(html, parser=parser)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return False
    return any("Excessive depth" in error.message for error in parser.error_log)


def shallow(html: str) -> str:
    """`html` itself when lxml reads all of it (`too_deep` is False); else the page with the tags of layout elements
    nested deeper than `KEEP_DEPTH` and of all elements deeper than `MAX_HTML_DEPTH` (both counted in the tags kept)
    dropped (text, comments and the tags kept copied byte for byte, so entities, scripts and attributes read as
    before). An end tag closes its element and every element opened after
    it that is still open, as HTML's parsers do; an end tag with no open element is kept as it is."""
    if not too_deep(html):
        return html
    reader = _Flattener()
    reader.feed(html)
    reader.close()
    return "".join(reader.out)


class _Flattener(HTMLParser):
    """Copies the page, leaving out the start and end tags `shallow` drops. Linear: open elements are counted by
    tag, so an end tag of no open element costs no search of the stack."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.out: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # open elements: (tag, its tags kept)
        self.kept = 0  # open elements whose tags are kept: the depth the converter sees
        self.open: dict[str, int] = {}

    def _keeps(self, tag: str) -> bool:
        return self.kept < KEEP_DEPTH or (self.kept < MAX_HTML_DEPTH and tag in CONTENT_TAGS)

    def handle_starttag(self, tag, attrs) -> None:
        keep = self._keeps(tag)
        if keep:
            self.out.append(self.get_starttag_text() or "")
        if tag not in VOID:
            self.stack.append((tag, keep))
            self.kept += keep
            self.open[tag] = self.open.get(tag, 0) + 1

    def handle_startendtag(self, tag, attrs) -> None:
        if self._keeps(tag):
            self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag) -> None:
        if not self.open.get(tag):
            self.out.append(f"</{tag}>")
            return
        while self.stack:
            top, keep = self.stack.pop()
            self.kept -= keep
            self.open[top] -= 1
            if top == tag:
                break
        if keep:
            self.out.append(f"</{tag}>")

    def handle_data(self, data) -> None:
        self.out.append(data)

    def handle_entityref(self, name) -> None:
        self.out.append(f"&{name};")  # "&amp" without its ";" means "&amp;" to HTML's parsers

    def handle_charref(self, name) -> None:
        self.out.append(f"&#{name};")

    def handle_comment(self, data) -> None:
        self.out.append(f"<!--{data}-->")

    def handle_decl(self, decl) -> None:
        self.out.append(f"<!{decl}>")

    def handle_pi(self, data) -> None:
        self.out.append(f"<?{data}>")

    def unknown_decl(self, data) -> None:
        self.out.append(f"<![{data}]>")
