"""Release announcements on a real index (tantivy + LanceDB + the offline MiniLM; retrieval/doc_kind.py
`_RELEASE_HEADING`): a docs blog's post "# Tool v1.7.0" announces a feature in the words a user asks about it; it is
a bookkeeping page like a changelog (x retrieval.meta_page_weight unless the question asks about versions), so the
guide page that says how to use the feature ranks first, and the post is demoted, not dropped."""

from __future__ import annotations

from pathlib import Path

import offline_index
import pytest
from offline_index import indexed_folder
from ragls.embedding.embed import offline_model_dir

pytestmark = pytest.mark.skipif(offline_model_dir() is None, reason="needs ragls[offline]")

POST = """# Quarry v1.7.0

Quarry v1.7.0 brings lockfiles for your environments and a new check command.

## Lockfiles

Quarry now writes a lockfile for each environment. In CI, the job can now fail when someone changed dependencies
but forgot to regenerate the lockfile: see the lockfile guide for how.
"""
GUIDE = """# Lockfiles

Each environment can be locked: `quarry env lock` resolves its requirements and writes `pylock.toml`.

## Stale lockfiles

Run `quarry env lock --check` in CI: it fails the job when the dependencies changed and `pylock.toml` is out of
date.
"""
QUESTION = "In CI I want the job to fail when someone changed dependencies but forgot to regenerate the lockfile."


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("release"),
                          {"blog/posts/release-quarry-170.md": POST, "how-to/lockfiles.md": GUIDE})


def ranked(folder: Path, weight: float | None, question: str = QUESTION) -> list[tuple[str, float]]:
    return offline_index.ranked(folder, question, None if weight is None else {"meta_page_weight": weight})


def test_the_guide_ranks_above_the_release_announcement(folder):
    off = ranked(folder, 1.0)
    assert off[0][0] == "blog/posts/release-quarry-170.md", off  # the prior off: the announcement wins
    got = ranked(folder, None)
    assert got[0][0] == "how-to/lockfiles.md", got
    post = [score for path, score in got if path == "blog/posts/release-quarry-170.md"]
    assert post and max(post) == pytest.approx(0.6 * max(s for p, s in off if p.startswith("blog/")))


def test_a_question_about_the_release_keeps_the_announcement(folder):
    question = "What came with release 1.7.0, and how do I fail CI on a stale lockfile?"
    assert ranked(folder, None, question) == ranked(folder, 1.0, question)


# A docs blog's post with no version in its title: it tells, in a user's words, what a release brought; the setup page
# states how to do it. Under `blog/posts/` it is a bookkeeping page (doc_kind._POST_FOLDERS); a page called `blog.md`
# (about the blog feature) is not.
STORY = """---
date: 2021-09-26
---

# Excluding content from search

The latest release brings new ways to keep a single page out of the search index, so internal pages no longer
clutter the search results. Before, every page of your site was in the search index.
"""
SETUP = """# Setting up site search

## Search exclusion

Pages can be excluded from search with the front matter `search: exclude: true`, so the page is kept out of the
index and no longer shows in the results.
"""
EXCLUDE = "Some internal pages clutter the search results. How do I keep a single page out of the search index?"


@pytest.fixture(scope="module")
def blog(tmp_path_factory):
    return indexed_folder(tmp_path_factory.mktemp("blog"),
                          {"blog/posts/excluding-content-from-search.md": STORY, "setup/site-search.md": SETUP})


def test_the_setup_page_ranks_above_a_blog_post(blog):
    off = ranked(blog, 1.0, EXCLUDE)
    assert off[0][0] == "blog/posts/excluding-content-from-search.md", off  # the prior off: the post wins
    got = ranked(blog, None, EXCLUDE)
    assert got[0][0] == "setup/site-search.md", got
    assert "blog/posts/excluding-content-from-search.md" in [path for path, _ in got]  # demoted, not dropped


def test_the_users_own_changelog_is_no_question_about_changes(blog):
    # "a changelog archive" is a page of the user's site (doc_kind._OWN), so the post is still demoted
    question = "Some internal pages (e.g. a changelog archive) clutter the search results. How do I keep a single " \
               "page out of the search index?"
    assert ranked(blog, 1.0, question)[0][0] == "blog/posts/excluding-content-from-search.md"
    assert ranked(blog, None, question)[0][0] == "setup/site-search.md"
