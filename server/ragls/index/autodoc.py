"""API reference pages whose text the docs build takes from the package's docstrings (Sphinx autodoc's
`.. automodule:: tornado.web`, `.. autoclass:: flask.Flask`, MyST's ```` ```{autoclass} ````, mkdocstrings'
`::: textual.app`): a folder of documentation holds the directive, not the text, so a question about such an API
finds only the directive line (Textual's 116 `api/*.md` pages, Tornado's API reference). `record` keeps which pages
hold such directives (the manifest's meta `autodoc_pages`: {page: the first object it documents}) as each sync
writes them; `notice` tells the user why such questions go unanswered and what to index, unless the index already
holds Python files (the package is indexed too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from ragls.core.ir import Document
from ragls.stores.manifest import Manifest

# mkdocstrings' `::: package.module` (the object's dotted path in group 1); Sphinx autodoc's directives, reST
# `.. autoclass:: name` or MyST ```` ```{autoclass} name ```` (the name in group 2; autosummary lists its names in
# its body: the directive's name stands for them)
_DIRECTIVE = re.compile(r"^(?:::: ([A-Za-z_][\w.]*)[ \t]*$"
                        r"|[ \t]*(?:\.\. |`{3,}\{|:{3,}\{)(auto(?:module|class|function|exception|data|attribute|"
                        r"method|property|decorator|summary))(?:::|\})[ \t]*([\w.]*))", re.MULTILINE)
META_KEY = "autodoc_pages"
MAX_NAMED = 3  # objects a notice names as examples


def documented(text: str) -> str | None:
    """The first object an API reference page's autodoc directive documents ("textual.app", "tornado.web", or the
    directive ("autosummary") when it names none), None when the page holds no such directive."""
    m = _DIRECTIVE.search(text)
    if m is None:
        return None
    return m.group(1) or m.group(3) or m.group(2)


def record(manifest: Manifest, docs: Iterable[Document], deleted: Iterable[str]) -> None:
    """Update the manifest's record of autodoc pages for one written batch: the `docs` written (an included file,
    written without text, is part of its page) and the `deleted` paths."""
    docs = list(docs)
    old = json.loads(manifest.get_meta(META_KEY) or "{}")
    pages = {p: name for p, name in old.items() if p not in set(deleted) | {d.path for d in docs}}
    pages.update({d.path: name for d in docs if d.text and (name := documented(d.text)) is not None})
    if pages != old:
        manifest.set_meta(META_KEY, json.dumps(pages, sort_keys=True))


def notice(manifest: Manifest) -> str | None:
    """Why questions about the APIs a folder's autodoc pages document go unanswered, and what to index: None when
    it has no such page or its index holds Python files (the package's docstrings are indexed too)."""
    pages = json.loads(manifest.get_meta(META_KEY) or "{}")
    if not pages or manifest.has_suffix((".py", ".pyi")):
        return None
    names = sorted({f"`{name}`" for name in pages.values()})
    shown = ", ".join(names[:MAX_NAMED]) + (", ..." if len(names) > MAX_NAMED else "")
    n = len(pages)
    return (f"{n} page{'s' if n != 1 else ''} ({', '.join(sorted(pages)[:MAX_NAMED])}{', ...' if n > MAX_NAMED else ''}) "
            f"document{'s' if n == 1 else ''} Python APIs ({shown}) with autodoc directives, whose text the docs "
            f"build takes from the package's docstrings, which this index does not hold: questions about those "
            f"APIs find only the directive. To answer them, index the folder that holds the package (e.g. the "
            f"project's root) with its Python files in sources.include, e.g. \"src/**/*.py\" (docs/configuration.md)")
