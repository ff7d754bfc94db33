"""The document-kind prior on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py,
`retrieval.meta_page_weight`): a changelog entry that repeats a guide page's words outranks that guide page on a
usage question with the prior off (1.0), and ranks below it with the default; a question about versions or changes
still gets the changelog first; the chunk is demoted, not dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir
from ragls.workspace.rag_workspace import RagWorkspace

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

GUIDE = """# Background work

Some work should not delay the reply. Attach a `BackgroundTask` to the response object; it is awaited
once the response has been sent, so the client does not wait for it.

```python
return JSONResponse(data, background=BackgroundTask(send_welcome_email, user))
```
"""
CHANGES = """# Release notes

## 2.1.0 (March 3, 2024)

- Run background tasks after the response is sent to the client, so the client does not wait for work
  attached to a response.
- Fix the reply of streaming responses when the client disconnects.

## 2.0.0 (January 9, 2024)

- Drop support for Python 3.8.
"""
QUESTION = "How do I run some work after the response is sent so the client does not wait for it?"
ASKS = "In which version did background tasks start to run after the response is sent to the client?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("kind"), {"background.md": GUIDE, "release-notes.md": CHANGES})


def paths(folder: Path, question: str, weight: float | None) -> list[str]:
    layers = [{"retrieval": {"meta_page_weight": weight}}] if weight is not None else []
    ws = RagWorkspace([folder], layers, read_only=True)
    try:
        return [h.chunk.path for h in ws.retrieve(question, top_k=5)]
    finally:
        ws.close()


def test_changelog_entry_ranks_below_the_guide_on_a_usage_question(folder):
    assert paths(folder, QUESTION, 1.0)[0] == "release-notes.md"  # the prior off: the changelog wins
    got = paths(folder, QUESTION, None)  # the default
    assert got[0] == "background.md"
    assert "release-notes.md" in got  # demoted, not dropped


def test_a_question_about_versions_keeps_the_changelog_first(folder):
    assert paths(folder, ASKS, None)[0] == paths(folder, ASKS, 1.0)[0] == "release-notes.md"


PROXY = """# Behind a reverse proxy

When the application runs behind a reverse proxy such as nginx, every request seems to come from the proxy's
address. Wrap the application in `ProxyFix` so the client address is read from the `X-Forwarded-For` header the
proxy sets, and tell it how many proxies sit in front of it.
"""
PROXY_CHANGES = """# Changes

## 3.1.0 (May 2, 2025)

- `ProxyFix` reads the client address from `X-Forwarded-For` when the application runs behind a reverse proxy such
  as nginx, so requests no longer seem to come from the proxy at 127.0.0.1.
"""
ADDRESS = "My app sits behind nginx and every visitor seems to come from 127.0.0.1. What do I do?"


AUTHORS = """# Authors

Several people write the posts on our blog. The authors, with the name, avatar and description each one gave:

- Jane Doe (avatar: jane.png), who writes posts about the theme.
- John Roe (avatar: john.png), who writes posts about the plugins.
"""
BLOG = """# Setting up a blog

List the people who write for your site in `.authors.yml` in the blog directory: one entry per person with a
display name, a picture and a one-line bio; a post refers to its writers by their entry key.
"""
BLOG_AUTHORS = "Several people write posts on our blog. Where do I define the authors (name, avatar, description)?"


@pytest.mark.parametrize("files,question", [
    # "127.0" of an IPv4 address read as a version (Flask's and Werkzeug's proxy questions)
    ({"proxy.md": PROXY, "changes.md": PROXY_CHANGES}, ADDRESS),
    # "the authors" of the user's own blog posts (a commit's author, a schema's author field) read as a question about
    # the project's authors page
    ({"setup/blog.md": BLOG, "AUTHORS.md": AUTHORS}, BLOG_AUTHORS),
])
def test_the_users_own_words_are_no_question_about_changes(tmp_path, files, question):
    # Read as a question about releases or the project's people, these kept the bookkeeping page's undemoted first
    # place (bench/history/sessions-48-49.md "The right file first: page names").
    guide, meta = files
    folder = indexed_folder(tmp_path, files)
    assert paths(folder, question, 1.0)[0] == meta  # the prior off: the bookkeeping page wins
    got = paths(folder, question, None)
    assert got[0] == guide
    assert meta in got  # demoted, not dropped


HISTORY = """# History

The shell keeps the commands you type in its history, one session file per shell. Old commands are removed once
the history holds more than `HISTORY_SIZE` entries; set `HISTORY_SIZE = (100000, 'commands')` in your run control
file to keep more of them. `history show` lists the commands kept.
"""
VARIABLES = """# Environment variables

Every variable the shell reads. `PROMPT` sets the prompt; `PATH` the folders searched for commands; `HISTORY_SIZE`
how many commands are kept; `HISTORY_FILE` the file where the commands of a session go.
"""
HISTORY_SIZE = "My old commands disappear from the history after a few thousand entries. Which variable keeps more?"


def test_a_page_named_by_the_feature_asked_about_is_no_changelog(tmp_path):
    # xonsh's history.rst, its tutorial on command history, was weighed as a changelog and lost its first place on
    # held-out set 42 (bench/history/session-54.md, "The right file first on corpora nobody tuned on")
    folder = indexed_folder(tmp_path, {"history.md": HISTORY, "variables.md": VARIABLES})
    assert paths(folder, HISTORY_SIZE, 1.0)[0] == "history.md"  # the prior off
    assert paths(folder, HISTORY_SIZE, None)[0] == "history.md"
    assert paths(folder, "Which variable sets the prompt?", None)[0] == "variables.md"


NEWS = """# News

The reader fetches the news of every feed you follow once an hour and keeps the unread items for 30 days. Set
`news.refresh = "15m"` in your profile to check the feeds more often; `news.keep_days` keeps items for longer.
"""
FEEDS = """# Feeds

Every feed you follow is listed in your profile, with the hour it was last read. Press `r` to read a feed again
now, `d` to stop following it.
"""
NEWS_REFRESH = "The news from my feeds shows up an hour late. How do I make the reader check them more often?"


def test_any_bookkeeping_name_the_question_uses_is_the_features_page(tmp_path):
    # The rule of the history test above without its one-word list: a page that is a bookkeeping page only by its own
    # name ("News", which is also a feed reader's feature) is the feature's page for a question using that word,
    # unless the chunk is a list of releases, people or changes (the authors test above) or its folder holds such
    # pages (bench/history/session-55.md, "The right file first on kitty and Lefthook")
    folder = indexed_folder(tmp_path, {"news.md": NEWS, "feeds.md": FEEDS})
    assert paths(folder, NEWS_REFRESH, 1.0)[0] == "news.md"  # the prior off
    assert paths(folder, NEWS_REFRESH, None)[0] == "news.md"
