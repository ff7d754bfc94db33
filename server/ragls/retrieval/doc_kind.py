"""Document-kind prior: chunks of a project's own bookkeeping pages — changelog / release notes / history / news,
a docs blog's posts, contributing guide, authors, release process — ranked lower unless the question asks about versions, changes,
releases or contributing (`retrieval.meta_page_weight`).

Why: such pages mention every feature of the project once, in its own words ("async handlers", "Queue", "list all
entries in descending order"), so on a usage question they win the fusion on common words while the guide page that
answers sits at rank 2-8. Seen on held-out sets (issue 27: a release-notes chunk ranked 1 and led the answer; a
contributing page's "Releasing" section ranked 1); on the dev sets a bookkeeping chunk ranked above the gold in 4 of
55 black questions (contributing pages; 1 at rank 1) and 1 of 30 aiohttp ones (a "what's new" page at rank 1), in none
of the others, whose changelog files are one-line `include` stubs; demoting them moved those 5 up and no first gold hit down
(bench/history/sessions-36-37.md, "Document-kind prior"). A document prior in the sense of Kraaij, Westerveld & Hiemstra, "The
importance of prior probabilities for entry page search" (SIGIR 2002): a factor on the fused score, not a filter —
a bookkeeping chunk that is the only good match still ranks.

A chunk is a bookkeeping page's when (any of):
- a part of its path (a folder, or the file name without its extension) is one of `_META_NAMES` after lower-casing
  and dropping everything but letters (`CHANGES.rst`, `changelog.d/`, `release-notes.md`, `docs/contributing/the_basics.md`,
  `HISTORY.md`, `docs/internals/architecture.md`, a release's `community/3.0-announcement.md`; not
  `ch14-01-release-profiles.md`) — "internals" pages explain the
  implementation to the people who work on it (Pydantic's "targeted to contributors"; Django's `docs/internals/` is its
  contributing guide and release process), in the words of every usage question;
- its file is named by a version (`breaking-changes/0.279.0.md`, `changes/7.4.rst`: one release's notes or breaking
  changes, `_VERSION_FILE`), or its name holds a version of three parts (`announce/release-2.2.0.rst`,
  `release/1.26.0-notes.rst`, `_VERSION_IN_NAME`; a topic names a two-part version, `python-3.12.md`, `oauth-2.0.md`),
  whatever its folder is called;
- it is under a folder of a docs blog's posts (`_POST_FOLDERS`: `blog/`, `posts/`, `_posts/`; a file called
  `blog.md` is a page about blogs, not a post): a dated post tells what a release brought or how the project
  changed, in a user's words, like release notes (Material for MkDocs' `blog/posts/excluding-content-from-search.md`,
  "The latest Insiders release brings three new simple ways to exclude ...", won a question the setup page's
  "Search exclusion" section answers);
- its page title (the first part of its heading path) starts with one of `_META_TITLES` ("Changelog", "Release
  Notes", "What's new", "Contributing", ...);
- a part of its heading path is a version heading (`2.0.1`, `Version 0.47.3 (August 24, 2025)`, `v25.1.0 - 2025-01-
  29`): the structure of a changelog whatever the file is called; or a release's heading, one to three capitalised
  words and a version with a "v" or three parts (`Hatch v1.17.0`, `Scrapy 2.11.0`, `Django 5.0.1 release notes`:
  a release announcement or blog post, `_RELEASE_HEADING`; not a topic with a version, `OAuth 2.0`, `Python 3.12
  support`).

A question is about those pages when it names a version number (`2.0`, `v3`), or a word of `_ASKS` ("which
version", release, changelog, deprecated, added in, what's new, contribute, pull request, ...): then no chunk is demoted. Not words a
project's own subject uses or a user's situation tells ("version(s)", "migration", "upgrade", "history", "changed",
"removed": Alembic's docs are about migrations, upgrades, the history command and the versions folder, and "I
changed server_default ..." tells what the user did), which left its 7,129-line changelog undemoted on every question
(set 19: file Hit@1 22 -> 24, MRR@10 0.528 -> 0.571; every other set identical; bench/history/sessions-42-43.md, "a project's own words are not"). Nor "author(s)"
or "credits": in a question they are the user's data — a commit's author in `git blame`, a schema's `author` field,
the authors of the user's blog posts (black, marshmallow and Material for MkDocs questions; none of the 1,331 asks
who wrote the project), while the authors page stays demoted only × the weight when it is what is asked for.
One page is not demoted for a question that names it: a page that is a bookkeeping page only by its own name and
title (no version file, blog folder, folder of bookkeeping pages or version heading), when the question uses that name
and the chunk is not a list (`_listing`: at least half its lines list items — releases, people, changes) — the
name is then a feature the tool documents: xonsh's `history.rst`, "History", its tutorial on the shell's command
history, lost the first place to other pages on two questions about history (held-out set 42: file Hit@1 19 -> 21
with it undemoted, the 40 other dev sets unchanged per question; bench/history/session-54.md, "The right file first
on corpora nobody tuned on"); a feed reader's "News", a version control system's "Changes" likewise. Session 54's
rule listed only "history"; the list became the page's structure (session 55: over the 43 recorded dev sets it
weighs every recorded entry as the list did; without its two conditions a question's "changes" of a file would lift
Vite's `changes/` folder of breaking-change notes, and a blog's `AUTHORS` list; bench/history/session-55.md, "The
right file first on kitty and Lefthook"). A changelog called `HISTORY.rst` stays demoted under its version headings.

API reference entries (`retrieval.reference_entry_weight`, `reference_factors`): a chunk holding a Sphinx object
description (`.. class::`, `.. method::`, `.. function::`, `.. attribute::`, `.. autoclass::`, ... with or without
the `py:` domain) or a mkdocstrings block (`::: httpx.HTTPError`) is one entry of an API reference. Such entries name
every parameter of a call and so match a how-to question's words and meaning as well as the guide page that explains
the task, and win near ties (issue 27: aiohttp's `client_reference.rst` first for "how do I cap the number of
connections to one host", whose answer is the guide's paragraph on `limit_per_host`). When the question names no
identifier (`names_identifier`: a code span, a call `f()`, snake_case, camelCase or an inner capital, `a.b`, `::`)
they are scored × the weight; a question naming one is asked of the reference and keeps it. The entry is
recognised by its markup, not its page's name, so a guide page's own entries count and a reference page's prose does
not. `.. data::` entries are left out: a constant's or a configuration key's entry states a value (Flask's
`SEND_FILE_MAX_AGE_DEFAULT` for "how long may browsers keep my static assets"), which is what a question about a
setting asks for, where a signature is only the means (bench/history/sessions-38-39.md, "API reference entries").

Stub chunks (`retrieval.stub_chunk_weight`, `stub_factors`): a chunk with less than a sentence of prose once its
headings, directive and field lines, HTML comments and tags are left out — a page's one-line intro cut off by its
first subheading ("# Writing your docs / How to layout and write your Markdown source files."), an `automodule` page
whose docstrings are not in the folder, a section's last line split off with a link anchor. Such a chunk's window
is all title and topic, so its cosine matches a question about the topic as well as the passage that answers it,
and it wins near ties while saying nothing (bench/history/sessions-40-41.md, "Stub chunks"). It is scored × the weight, so it
still ranks where nothing better matches.

API pages (`retrieval.api_page_weight`, `api_page_factors`): a chunk of a page named as a project's API reference — a
folder or file whose name is "api" or "API reference" (`api/plugins.rst`, `api.md`, `api_reference.rst`; letters
only, lower-cased) — is scored × the weight, whatever the question. Documentation is written in two kinds of page
(Diataxis' reference and how-to/explanation): the reference describes every object once, its parameters and hooks,
and so matches a task question's words and meaning wherever the task touches an object, while the guide page states
what to do. The reference page still ranks where no guide page matches nearly as well (a question about one
object's parameters: the exact-match bonus keeps a chunk naming the asked identifier first). Named, not marked up:
a guide page's own `.. autoclass::` is not demoted (the markup rule above, off since two blind sets), and a page
called "reference" is not either (a configuration or command-line reference states settings, what such questions
ask for). Measured in bench/history/sessions-42-43.md, "API pages".

Quoted messages (`retrieval.quoted_message_weight`, `quoted_factors`): a chunk that holds, word for word, a message
the question quotes (`names.quoted_messages`: three or more words in quotes — an error the user saw, "No source for
code") is scored × the weight (above 1). A page that lists the message is where it is explained (an error reference,
a FAQ entry); a sibling page can match the rest of the question as well and win by a few hundredths (bench/history/sessions-42-43.md,
"Quoted messages").

Written names (`retrieval.written_name_weight`, `written_factors`): a question that writes a name as a name — a code
span (`` `# type: ignore` ``), a command-line option (`--junit-xml`), a compound identifier (`warn_unreachable`,
`mypy.ini`) — is answered by the passage that writes it the same way: sibling pages document one thing in its
several forms (a command-line reference's `--warn-unreachable`, a configuration reference's `warn_unreachable`, a
guide's "unreachable code"), and BM25's words and the embedding do not see the form. A chunk whose title or text
holds the written names as written (case aside) is scored × (1 + (weight - 1) × the share of them it holds).
Chosen by leave-one-corpus-out over 25 docs sets (bench/history/sessions-46-47.md, "Sibling pages: the name as the question
writes it").

Settings pages (`retrieval.settings_page_weight`, `settings_factors`): when the question asks which setting to use
or what to set ("Which setting does that?", "What do I set in the config?", "What value do I put in my settings?",
"How do I configure that?"), or about a default ("How many times does it retry by default?", "What is the
default timeout?", "Can I make that the project default?"; `asks_for_setting`), a chunk of a page named as the project's settings — a folder or file
called "config", "configuration", "settings", "conf" or "options" (`config/hatch.md`, `topics/settings.rst`,
`user-guide/configuration.md`, kitty's `conf.rst` for kitty.conf, Caddy's `caddyfile/options.md` for its global
options, uWSGI's `Options.rst`; "conf" and "options" added in session 68: kitty-i10 and caddy-i04 first, no question
of 64 sets lower, bench/history/session-68.md, "the 28 file Hit@1 misses of delta"; never a program's source such as
`docs/conf.py` or `settings.py`, `is_program_source`) — among the first `SETTINGS_HEAD` fused entries is scored × the weight
(above 1). Documentation states each setting once, on its settings page, and tells the task around it on tutorial
and how-to pages (Diataxis' reference against its guides): a question about the task without that asking clause is theirs, a question asking for the setting is the
settings page's, and the tutorial that mentions the flag in passing otherwise wins the near tie on the task's words
(bench/history/sessions-44-45.md, "Settings pages"). Only the first few entries are weighed: a settings chunk that neither signal
ranks near the top is not what the question asks for, however the question is phrased.
A chunk that states settings by its markup counts as one too (`defines_setting`): a reST description of an option,
configuration value, setting or environment variable (`.. confval::`, `.. option::`), or a Markdown table whose rows
each name an option in their first cell (`accesslog.filters.statusCodes`, `--dry-run`). Projects document settings
on pages not called "settings" — a configuration value on its extension's page (Sphinx's `intersphinx_mapping` on
`intersphinx.rst`), an option table on each component's reference page (Traefik's `entrypoints.md`,
`logs-and-accesslogs.md`) — and there the guide page that tells the task in prose won the near tie (bench/history/
session-59.md, "Ranking").
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from itertools import chain
from typing import NamedTuple

from ragls.answer.code_passages import CONFIG_LANGUAGES
from ragls.core.analysis import STOPWORDS, line_terms, query_words
from ragls.core.ir import Chunk, title_headings
from ragls.retrieval.names import quoted_messages
from ragls.retrieval.query import CODE_SPAN
from ragls.sources.convert import CONVERTED_EXTENSIONS
from ragls.sources.load import kind_for, markup_extension

# Path parts (letters only, lower-cased) of bookkeeping pages.
_META_NAMES = frozenset({
    "changelog", "changelogs", "changes", "history", "news", "releasenotes", "releases", "whatsnew",
    "contributing", "contribute", "contributors", "authors", "releaseprocess", "releasing", "codeofconduct",
    "internals", "announce", "announcement", "announcements",
})
# Folder names (letters only, lower-cased) of a docs blog's posts: a folder only, a file "blog.md" is a topic page.
_POST_FOLDERS = frozenset({"blog", "posts"})
_META_TITLES = re.compile(
    r"\s*(change\s*log|changes\b|release\s+notes|release\s+history|version\s+history|history\b|news\b|"
    r"what'?s\s+new|contributing|contributors|how\s+to\s+contribute|authors\b|release\s+process|releasing\b)",
    re.IGNORECASE)
# A heading that is a version: "2.0.1", "v25.1.0", "Version 0.47.3 (August 24, 2025)", "1.2.0 - 2024-01-01",
# "3.0.0rc1", "[1.4.0] - 2023-05-02" (Keep a Changelog), "3.9.0 (2023-11-18)", "2.0 (unreleased)": the version alone or
# followed by a date or a release state — not a numbered manual section ("2.1: Installing", "4.2 - Configuration").
_DATE = r"(?:\d{4}-\d\d-\d\d|[A-Za-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\s+[A-Za-z]+\.?\s+\d{4}|" \
        r"(?:un)?released\b|yanked\b|not\s+yet\s+released|in\s+development)"
_VERSION_HEADING = re.compile(
    r"\s*\[?(?:v(?:ersion)?\s*)?\d+\.\d+(?:\.\d+)*(?:[-.]?(?:a|b|rc|dev|post)\d*)?\]?"
    r"\s*(?:$|\(\s*(?:released\s+(?:on\s+)?)?" + _DATE + r"|[-–—:,]\s*(?:released\s+(?:on\s+)?)?" + _DATE + r"|" + _DATE + r")",
    re.IGNORECASE)
# A release's own heading: a name of one to three capitalised words, then a version with a "v" or of three parts, then
# at most "release notes" / "released" / "is out" — "Hatch v1.17.0" (a release announcement in a docs blog), "Scrapy
# 2.11.0"; not "OAuth 2.0", "Python 3.12 support", "Using HTTP/1.1". Over the headings of the 22 corpora measured
# (bench/history/sessions-42-43.md, "Release announcements (coordinator") it matches only release announcements and changelog entries.
_RELEASE_HEADING = re.compile(
    r"\s*[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2}\s+(?:v\d+\.\d+(?:\.\d+)*|\d+\.\d+\.\d+)"
    r"(?:\s+(?:release\s+notes|released|is\s+out))?\s*$")
# Words of a question about versions, changes or contributing (matched on the lower-cased question).
_ASKS = re.compile(
    r"\b(v?\d+\.\d+|v\d+|(?:which|what|in|since|before|after)\s+versions?|versioned|releases?|released|releasing|change\s*logs?|"
    r"what'?s\s+new|new\s+in|added\s+in|introduced|deprecat\w*|since\s+(?:which|what)|"
    r"breaking|backwards?[-\s]incompatib\w*|contribut\w*|pull\s+requests?|maintainers?|"
    r"news\s+fragments?|when\s+(?:was|were|did)\b.*\b(?:added|introduced|dropped))\b")


# Memos of what a chunk is (LRU, keyed by its path, title or text itself: an edited chunk is a new key, nothing to
# invalidate). The same candidates are weighed on every query, and splitting their texts again cost ~8 ms of a warm
# Rust-book rag/query (session 49). Paths and (path, heading path) pairs (`_path_names`, `_meta_words`): a few hundred
# bytes each; chunk texts (`_lines`, `_prose_chars`): 2,048 texts of ~2 KB and their lines are ~10 MB at most (a
# line's terms: `analysis.line_terms`).
PAGES_MEMO = 4096
LINES_MEMO = 2048


@functools.lru_cache(maxsize=PAGES_MEMO)
def _path_names(path: str) -> frozenset[str]:
    """The folder and file names of `path` (the file's without its extensions: up to its first dot, and up to its
    last, for a name that starts with a version, "3.0-announcement.md"), lower-cased, letters only (memoised)."""
    parts = path.replace("\\", "/").split("/")
    stems = {q for p in parts for q in (p.split(".", 1)[0] or p, p.rsplit(".", 1)[0] or p)}
    return frozenset(re.sub(r"[^a-z]", "", p.lower()) for p in stems)


# A file named by a version ("0.279.0.md", "v2.1.rst", "7.4.rst", "3.0.0rc1.txt"): one release's page (its notes, its
# breaking changes), not a topic ("v2-migration-guide.rst", "http2.md").
_VERSION_FILE = re.compile(r"v?\d+(?:\.\d+)+(?:[-.]?(?:a|b|rc|dev|post)\d*)?", re.IGNORECASE)
# A version of three parts in a file's name ("release-2.2.0", "1.26.0-notes"): a release's page; a topic page names
# at most a two-part version ("python-3.12", "oauth-2.0", "http-1.1"), and a guide to moving to a release is a guide
# ("upgrading-to-3.0.0", "migration-2.0.0": `_MOVING`; marshmallow's upgrading.rst answers nine of its set's questions).
_VERSION_IN_NAME = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?![.\d])", re.IGNORECASE)
_MOVING = re.compile(r"migrat|upgrad|porting|moving|guide", re.IGNORECASE)


def is_meta_page(chunk: Chunk) -> bool:
    """True when `chunk` belongs to a changelog / release-notes / contributing / authors page (module docstring)."""
    return _meta_page(chunk.path, chunk.title)


def _meta_page(path: str, title: str) -> bool:
    """`is_meta_page` of a chunk's `path` and `title` (heading path)."""
    return _meta_words(path, title) is not None


@functools.lru_cache(maxsize=PAGES_MEMO)
def _meta_words(path: str, title: str) -> frozenset[str] | None:
    """Why a chunk's page (`path`, heading path `title`) is a bookkeeping page, memoised (the same pages are weighed on
    every query): None when it is not one; the words that alone make it one when only its own name does — its file
    name's bookkeeping name (`_META_NAMES`: "history") and its title's words matched by `_META_TITLES` ("History") —;
    the empty set when more than its name does, whatever it is called: a version file, a blog's post folder, a
    version or release heading, or a folder of such pages (`changes/`, `contributing/`)."""
    folders, _, name = path.replace("\\", "/").rpartition("/")
    stem = name.rsplit(".", 1)[0]
    headings = [h for h in title_headings(title) if h.strip()]
    if ((folders and _path_names(folders) & (_POST_FOLDERS | _META_NAMES))
            or _VERSION_FILE.fullmatch(stem) or (_VERSION_IN_NAME.search(stem) and not _MOVING.search(stem))
            or any(_VERSION_HEADING.match(h) or _RELEASE_HEADING.match(h) for h in headings)):
        return frozenset()
    words = _path_names(name) & _META_NAMES
    m = _META_TITLES.match(headings[0]) if headings else None
    if m:
        words |= set(re.findall(r"[a-z]+", m.group(1).lower()))
    return frozenset(words) if words else None


# A version constraint the user writes (`requires-python = ">=3.9,<4"`, "requests<2.32", "~=1.4"): their project's
# material, not a question about a release; and an IPv4 address ("127.0.0.1", "10.0.0.5:8000"), whose "127.0" is no
# version number
_CONSTRAINT = re.compile(r"(?:[<>]=?|[=!~]=)\s*v?\d+(?:\.\d+)*|(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?!\w|\.\d)"
                         # ... and a number the user quotes as what they saw ("12.50", a value in their output)
                         r"|[\"'\u201c\u2018]\s*[$\u20ac\u00a3]?\d[\d.,]*\s*[\"'\u201d\u2019]")


def asks_about_changes(question: str) -> bool:
    """True when `question` asks about versions, releases, changes or contributing (module docstring): the
    bookkeeping pages are then not demoted. A version constraint it quotes (`_CONSTRAINT`: ">=3.9,<4") is the
    user's own setting, not a version asked about (nor is an IPv4 address, "every visitor seems to come from
    127.0.0.1", nor a number in quotes, the value the user saw: "Prices come out as strings like "12.50"" asks why
    a decimal is rendered as a string, and a 3.0 release announcement won over the settings page): "My project says requires-python = ">=3.9,<4", yet uv resolves as
    though the <4 part weren't there" asks how resolution reads it, and the internals page won. So is a word of
    `_ASKS` that modifies a thing of the user's: after an indefinite or possessive determiner (`_OWN`) and before a
    noun of its own (`_modifier`: "a changelog archive", "my release notice", "a release tag", "a release binary"):
    the user's own page, tag or build, not the project's releases ("Some internal pages (e.g. a changelog archive)
    clutter the search results" asks how to exclude a page, and the docs blog's post about search exclusion won over
    the setup page). The head of its phrase asks as ever: "How are we supposed to cut a release?", "Can I take back a
    release I already pushed?" (held-out set 31's release tutorial fell out of the top 8 when "a release" was the
    user's own too)."""
    text = _CONSTRAINT.sub(" ", question.lower())
    return any(not (_OWN.search(text, 0, m.start()) and _modifier(text, m.end())) for m in _ASKS.finditer(text))


def _modifier(text: str, end: int) -> bool:
    """True when the word of `_ASKS` ending at `end` modifies the next word: one follows it directly, not a function
    word (`STOPWORDS`: "a release I pushed", "a release of ...") — "a changelog archive", "a release tag"."""
    m = _NEXT_WORD.match(text, end)
    return m is not None and m.group(1) not in STOPWORDS


_NEXT_WORD = re.compile(r" ([a-z][a-z-]*)")


# An indefinite or possessive determiner, and at most one word, right before a word of `_ASKS`: the user's own thing
# ("a changelog", "our release notice", "a broken release"); not "a new release", "my next release" (a release asked
# about) or a version number ("a 2.0 release": `_ASKS` matches the number first).
_OWN = re.compile(r"\b(?:a|an|my|our|your|their)\s+(?:(?!new\b|newer\b|next\b|upcoming\b|recent\b|latest\b|"
                  r"future\b|previous\b|older\b|earlier\b|later\b|major\b|minor\b)[a-z-]+\s+)?$")


def meta_factors(question: str, chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: weight} for the (key, chunk) pairs whose chunk is a bookkeeping page's, {} when `weight` is 1 (off) or
    the question asks about changes. A page that is one only by its own name (`_meta_words`) is not weighed when the
    question uses that name and the chunk is no list (`_listing`): the name is a feature the page documents. `weight` in [0, 1] multiplies the chunk's fused
    score (`fuse.apply_prior`)."""
    if weight >= 1.0 or asks_about_changes(question):
        return {}
    asked = frozenset(re.findall(r"[a-z]+", question.lower()))
    out = {}
    for key, chunk in chunks:
        words = _meta_words(chunk.path, chunk.title)
        if words is not None and not (words and words <= asked and not _listing(chunk.text)):
            out[key] = weight
    return out


# A list item's line ("- ", "* ", "1. ", "#. ") and a heading's (Markdown "# ", a reST underline or overline).
_LIST_LINE = re.compile(r"\s*(?:[-*+•]|\d+[.)]|#\.)\s+\S")
_HEADING_LINE = re.compile(r"\s*(?:#{1,6}\s|([=\-~^*+#\"'`])\1{2,}\s*$)")


def _listing(text: str) -> bool:
    """True when at least half of `text`'s lines (blank lines and headings left out) are list items: a list of
    releases, people or changes, what a bookkeeping page holds; a feature's page explains in sentences and code."""
    lines = [ln for ln in text.split("\n") if ln.strip() and not _HEADING_LINE.match(ln)]
    return bool(lines) and 2 * sum(bool(_LIST_LINE.match(ln)) for ln in lines) >= len(lines)


# Folder or file names (letters only, lower-cased) of a project's API reference.
_API_NAMES = frozenset({"api", "apireference"})


def is_api_page(chunk: Chunk) -> bool:
    """True when `chunk`'s page is a project's API reference by name: a folder or file (without extension) called
    "api" or "api reference" in any case and spelling (`api/`, `API.md`, `api_reference.rst`; module docstring)."""
    return bool(_path_names(chunk.path) & _API_NAMES)


def api_page_factors(chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: weight} for the (key, chunk) pairs whose chunk is an API page's (`is_api_page`); {} when `weight` is 1
    (off). `weight` in [0, 1] multiplies the chunk's fused score (`fuse.apply_prior`)."""
    if weight >= 1.0:
        return {}
    return {key: weight for key, chunk in chunks if is_api_page(chunk)}


# Folder or file names (letters only, lower-cased) of a project's settings reference.
_SETTINGS_NAMES = frozenset({"config", "configuration", "settings", "conf", "options"})
# A question's asking clause naming a setting as what it wants: "which setting", "what option", "what do I set",
# "in my settings", "to Hatch's own config file", "configure" (matched on the question as written, any case) ...
_ASKS_SETTING = re.compile(
    r"\b(?:which|what|any|a|one|the\s+right)\s+(?:settings?|config(?:uration)?s?|options?)\b"
    r"|\bwhat\s+(?:do|should|can|must)\s+(?:i|we|you)\s+set\b|\bwhat\s+to\s+set\b"
    r"|\b(?:in|into|to)\s+(?:the|my|our|its|\w+'s(?:\s+own)?)\s+(?:settings|config(?:uration)?)(?:\s+file)?\b"
    r"|\bconfigur(?:e|ing)\b"
    # ... or about a default, which the settings page states with each setting: "by default", "the default value",
    # "what is the default", "make that the default" (not "the default setup", "the default environment").
    r"|\bby\s+default\b|\bdefault\s+values?\b|\bwhat(?:'s|\s+is|\s+are)\s+the\s+defaults?\b"
    r"|\b(?:make|set)\s+(?:it|that|this|them)\s+the\s+(?:\w+\s+)?default\b", re.IGNORECASE)
# The fused entries a settings page's chunk must be among to be weighed (bench/history/sessions-44-45.md, "Settings pages": the
# first 3 to 10 gave the same first places, 5 and 10 the widest range of factors that lowers no question).
SETTINGS_HEAD = 5


def is_settings_page(chunk: Chunk) -> bool:
    """True when `chunk`'s page is a project's settings reference by name: a folder or file (without extension)
    called "config", "configuration", "settings", "conf" or "options" in any case (`config/hatch.md`, `settings.rst`,
    `conf.rst`, `caddyfile/options.md`, a commented `settings.ini`; module docstring), unless it is a program's source
    (`is_program_source`): the names tell documentation's reference from its guides (Diataxis), what the prior was
    measured on; in a program they name a build's own configuration (Sphinx's `docs/conf.py`), a CLI's option parser
    (`src/cli/options.ts`), a folder of loaders (`config/loader.py`) or one site's values (Django's `settings.py`),
    none of them the page that documents a setting."""
    return bool(_path_names(chunk.path) & _SETTINGS_NAMES) and not is_program_source(chunk.path)


def is_program_source(path: str) -> bool:
    """True when the file at `path` (a path or key) is a program's source indexed as code: `load.kind_for` "code",
    but not a page converted to text (HTML, `convert.CONVERTED_EXTENSIONS`), a web page, or a configuration file that
    comments its settings (TOML, YAML, INI, .conf: `code_passages.CONFIG_LANGUAGES`; JSON has no comments)."""
    if "://" in path or kind_for(path) != "code":
        return False
    ext = markup_extension(path)
    return ext not in CONVERTED_EXTENSIONS and ext not in CONFIG_LANGUAGES


# A setting's own entry, by its markup: a reST description of an option, a configuration value, a setting or an
# environment variable (`.. confval:: html_css_files`, `.. option:: -W`, `.. std:setting::`) ...
_SETTING_ENTRY = re.compile(r"^[ \t]*\.\.[ \t]+(?:\w+:)?(?:confval|option|cmdoption|setting|envvar)::", re.MULTILINE)
# ... or the rows of a table of options, each row's first cell naming one: a code span, an HTML anchor, a command-line
# option or a dotted, snake_case or camelCase name (`accesslog.filters.statusCodes`, `--dry-run`, `maxIdleConns`).
_TABLE_ROW = re.compile(r"^[ \t]*\|([^|\n]*)\|", re.MULTILINE)
_NAMED_CELL = re.compile(r"`[^`\n]+`|<a\s[^>]*\bid=|(?<![\w-])--?[A-Za-z][\w-]+|\b\w+[._]\w+|\b[a-z]+[A-Z]\w*")
_RULE_CELL = re.compile(r"[\s:-]*")  # a Markdown table's delimiter row's cell, `---` / `:--:`


def defines_setting(chunk: Chunk) -> bool:
    """True when `chunk` states settings by its markup: a reST option / configuration value / setting / environment
    variable description (`_SETTING_ENTRY`), or a Markdown table of at least two rows whose first cells name
    something in at least half the rows (`_NAMED_CELL`; delimiter rows left out): the entry of the setting a question
    asks for, wherever its page is and whatever it is called (module docstring, "Settings pages")."""
    if _SETTING_ENTRY.search(chunk.text):
        return True
    cells = [c for c in _TABLE_ROW.findall(chunk.text) if not _RULE_CELL.fullmatch(c)]
    named = sum(bool(_NAMED_CELL.search(c)) for c in cells)
    return named >= 2 and 2 * named >= len(cells)


def asks_for_setting(question: str) -> bool:
    """True when `question` asks which setting to use or what to set (`_ASKS_SETTING`; module docstring)."""
    return _ASKS_SETTING.search(question) is not None


def settings_factors(question: str, chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: weight} for the (key, chunk) pairs whose chunk is a settings page's (`is_settings_page`) or states
    settings by its markup (`defines_setting`) when `question` asks for a setting (`asks_for_setting`); {} when
    `weight` is 1 (off) or it does not. `chunks` are the first
    `SETTINGS_HEAD` fused entries without the exact-match bonus (the caller picks them); `weight` >= 1 multiplies the
    chunk's fused score (`fuse.apply_prior`)."""
    if weight == 1.0 or not asks_for_setting(question):
        return {}
    return {key: weight for key, chunk in chunks if is_settings_page(chunk) or defines_setting(chunk)}

# A Sphinx object description of a callable, class or attribute (any domain prefix `py:`; `auto*` directives of
# autodoc), or a mkdocstrings block "::: package.name" (a space after the colons: ":::{admonition}" is MyST).
_REFERENCE_ENTRY = re.compile(
    r"^[ \t]*(?:\.\.[ \t]+(?:py:)?(?:class|method|function|attribute|coroutinemethod|comethod|coroutinefunction|"
    r"decorator|decoratormethod|exception|property|classmethod|staticmethod|module|auto[a-z]+)::|:::[ \t]+\w[\w.]*)",
    re.MULTILINE)
# What names an identifier in a question: a code span, snake_case, camelCase, an inner capital (ClientSession),
# a dotted name (also a version "3.0"), a call "f()", a "::" path.
_IDENTIFIER = re.compile(r"`[^`\n]+`|\b[A-Za-z]+_\w+|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\b\w+\.\w+|\w\(\)|::")


# Lines that are markup, not prose: a Sphinx directive or field line (`.. automodule:: x`, `:members:`), a reST
# adornment or Markdown thematic break (`=====`, `---`), a Markdown heading; and HTML comments and tags.
_MARKUP_LINE = re.compile(r"^[ \t]*(?:\.\.[ \t]+[\w:-]+::.*|:[\w-]+:.*|[=\-~^\"*#+`]{3,}[ \t]*|#{1,6}[ \t].*)$", re.MULTILINE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TAG = re.compile(r"<[^<>\n]+>")
# Less prose than this many characters (spaces collapsed) is less than a sentence that answers anything.
STUB_PROSE_CHARS = 80


def is_stub(chunk: Chunk) -> bool:
    """True when `chunk`'s text holds fewer than `STUB_PROSE_CHARS` characters of prose (module docstring)."""
    return _prose_chars(chunk.text) < STUB_PROSE_CHARS


@functools.lru_cache(maxsize=LINES_MEMO)
def _prose_chars(text: str) -> int:
    """The characters of prose in a chunk `text` (spaces collapsed; `is_stub`), memoised per text."""
    text = _TAG.sub(" ", _COMMENT.sub(" ", text))
    return len(" ".join(_MARKUP_LINE.sub(" ", text).split()))


def stub_factors(chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: weight} for the (key, chunk) pairs whose chunk is a stub (`is_stub`); {} when `weight` is 1 (off).
    `weight` in [0, 1] multiplies the chunk's fused score (`fuse.apply_prior`)."""
    if weight >= 1.0:
        return {}
    return {key: weight for key, chunk in chunks if is_stub(chunk)}


def is_reference_entry(chunk: Chunk) -> bool:
    """True when `chunk`'s text holds an API reference entry: a Sphinx object description other than `.. data::`, or
    a mkdocstrings block (module docstring)."""
    return _REFERENCE_ENTRY.search(chunk.text) is not None


def names_identifier(question: str) -> bool:
    """True when `question` names an identifier (`_IDENTIFIER`): it is then asked of the API reference."""
    return _IDENTIFIER.search(question) is not None


def reference_factors(question: str, chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: weight} for the (key, chunk) pairs whose chunk is an API reference entry (`is_reference_entry`); {}
    when `weight` is 1 (off) or the question names an identifier. `weight` in [0, 1] multiplies the chunk's fused
    score (`fuse.apply_prior`)."""
    if weight >= 1.0 or names_identifier(question):
        return {}
    return {key: weight for key, chunk in chunks if is_reference_entry(chunk)}


# A line this long (spaces collapsed) repeated word for word on other pages is generated or copied boilerplate (a
# `--help` block cog writes into every command page, a shared options table), not a page's own answer.
REPEATED_LINE_CHARS = 40
REPEATED_ON_PAGES = 2  # ... when at least this many OTHER pages among the candidates hold it
# A question's words that a chunk holds only in such boilerplate count this many times the line share: the block
# matched the question for words every page of its kind prints ("setup.cfg", "pyproject.toml" in the `--rcfile` line)
REPEATED_TERMS_SCALE = 2.0


class _Lines(NamedTuple):
    """The lines of a chunk text as `repeated_block_factors` compares them."""

    distinct: frozenset[str]  # its non-blank lines, whitespace runs as single spaces, each once
    long: frozenset[str]  # those of REPEATED_LINE_CHARS characters or more


@functools.lru_cache(maxsize=LINES_MEMO)
def _lines(text: str) -> _Lines:
    """`_Lines` of a chunk `text`, memoised per text (`LINES_MEMO`)."""
    lines = frozenset(line for raw in text.splitlines() if (line := " ".join(raw.split())))
    return _Lines(lines, frozenset(x for x in lines if len(x) >= REPEATED_LINE_CHARS))


def repeated_block_factors(chunks: Iterable[tuple[object, Chunk]], weight: float,
                           terms: Iterable[str] = ()) -> dict[object, float]:
    """{key: factor} for the (key, chunk) pairs with lines of REPEATED_LINE_CHARS+ characters that REPEATED_ON_PAGES or
    more other pages among `chunks` hold word for word: factor = (1 - a x the share of its long lines so repeated) x
    (1 - REPEATED_TERMS_SCALE x a x the share of the question's `terms` (BM25 index terms, `analysis.stems`) the chunk
    holds that it holds only in repeated lines), a = 1 - `weight` — a chunk made only of such lines and matching the
    question only there is x `weight` x (1 - 2a); {} when `weight` is 1 (off). For the term share a line of any
    length counts as repeated when REPEATED_ON_PAGES other pages hold it (a long option's wrapped tail, "deleted
    after combining.", is the block's too); the chunk's title is its own. The repeated block (coverage.py's docs
    write every reporting command's `--help` into its page) matches many questions about what it lists while
    answering none of them; its page's own prose is elsewhere. Judged among the candidates only (the fused list's
    head), so it costs a split of their texts (memoised per text, `_lines`, and per line, `analysis.line_terms`). Measured
    in bench/history/sessions-42-43.md, "Repeated blocks" and "Repeated blocks: the question's words only in the block"."""
    if weight >= 1.0:
        return {}
    alpha = 1.0 - weight
    wanted = frozenset(terms)
    items = [(key, chunk, _lines(chunk.text)) for key, chunk in chunks]
    by_page: dict[str, frozenset[str]] = {}
    for _, chunk, text in items:
        by_page[chunk.document] = by_page.get(chunk.document, frozenset()) | text.distinct
    # a chunk's own page holds each of its lines, so a line REPEATED_ON_PAGES other pages hold is on one page more
    pages = Counter(chain.from_iterable(by_page.values()))
    repeated = frozenset(line for line, n in pages.items() if n > REPEATED_ON_PAGES)
    out = {}
    for key, chunk, text in items:
        shared = len(text.long & repeated)
        if not shared:
            continue
        factor = 1.0 - alpha * shared / len(text.long)
        title = line_terms(chunk.title) if wanted else frozenset()
        held = {t for t in wanted if t in title or any(t in line_terms(line) for line in text.distinct)}
        if held:
            own = title.union(*(line_terms(line) for line in text.distinct - repeated))
            factor *= 1.0 - REPEATED_TERMS_SCALE * alpha * len(held - own) / len(held)
        out[key] = factor
    return out


def _word_run(text: str) -> str:
    """`text`'s BM25 words (`analysis.query_words`) joined by single spaces, with a space at each end."""
    return f" {' '.join(query_words(text))} "


def quoted_factors(question: str, chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: weight} for the (key, chunk) pairs whose title or text holds a message `question` quotes
    (`names.quoted_messages`) as a run of the same words (case, punctuation and spacing aside); {} when `weight` is 1
    (off) or the question quotes no message. `weight` >= 1 multiplies the chunk's fused score (`fuse.apply_prior`)."""
    if weight == 1.0:
        return {}
    messages = [run for message in quoted_messages(question) if (run := _word_run(message)).strip()]
    if not messages:
        return {}
    return {key: weight for key, chunk in chunks
            if any(m in _word_run(f"{chunk.title}\n{chunk.text}") for m in messages)}


# A command-line option as a question writes it: `--junit-xml`, `-rcfile`; not a "-" compound of prose (brand-new).
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]+")


def written_names(question: str, compounds: Iterable[str]) -> list[str]:
    """The names `question` writes as names, lower-cased, each once, of three characters or more: its code spans
    whole (`# type: ignore`), its command-line options (`--strict`, `_OPTION`) and `compounds` (the compound
    identifiers the caller took from it, `search._named_compounds`: `warn_unreachable`, `mypy.ini`)."""
    names = [m.strip().lower() for m in CODE_SPAN.findall(question)]
    names += [m.lower() for m in _OPTION.findall(question)]
    names += [c.lower() for c in compounds]
    return [n for n in dict.fromkeys(names) if len(n) > 2]


def written_factors(names: list[str], chunks: Iterable[tuple[object, Chunk]], weight: float) -> dict[object, float]:
    """{key: 1 + (weight - 1) x share} for the (key, chunk) pairs whose title or text holds a share > 0 of `names`
    (`written_names`) as written, case aside; {} when `weight` is 1 (off) or there are no names. `weight` >= 1: the
    factor of a chunk holding every name (`fuse.apply_prior`)."""
    if weight == 1.0 or not names:
        return {}
    out = {}
    for key, chunk in chunks:
        text = f"{chunk.title}\n{chunk.text}".lower()
        held = sum(n in text for n in names)
        if held:
            out[key] = 1.0 + (weight - 1.0) * held / len(names)
    return out
