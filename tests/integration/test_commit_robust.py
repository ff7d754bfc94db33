"""Commit messages that fit the model, on real git repositories and the real openai SDK against the loopback
server: hundreds of trivial changes before the important one, a model whose context holds 8k tokens (counted by a
real WordPiece tokenizer, the offline MiniLM's), and cp1252 bytes in a staged diff."""

from __future__ import annotations

import json
import subprocess

import pytest
from commitkit import git, settings_for, write
from llm_server import Reply
from ragls.commit.message import generate_commit_message
from ragls.core.errors import RequestFailed
from ragls.embedding.embed import offline_model_dir
from ragls.llm.chat import make_chat_model

pytestmark = pytest.mark.usefixtures("isolated_git")

CONTEXT_TOKENS = 8192
SOURCE_V1 = ("def pay(invoice, amount):\n    \"\"\"Charge the customer for an invoice.\"\"\"\n"
             "    return gateway.charge(invoice.customer, amount)\n")
SOURCE_V2 = ("def pay(invoice, amount):\n    \"\"\"Charge the customer for an invoice, at most once.\"\"\"\n"
             "    check_credit_limit(invoice.customer, amount)\n"
             "    return gateway.charge(invoice.customer, amount, idempotency_key=invoice.id)\n")


def word_piece_counter():
    tokenizers = pytest.importorskip("tokenizers")
    model = offline_model_dir()
    if model is None:
        pytest.skip("needs ragls[offline] (its tokenizer counts the fake model's tokens)")
    tok = tokenizers.Tokenizer.from_file(str(model / "tokenizer.json"))
    tok.no_truncation()
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


def small_context_model(count):
    """A handler that answers like an 8k-context OpenAI-compatible server."""
    def handle(req):
        text = "\n".join(str(m.get("content") or "") for m in req.messages)
        n = count(text)
        if n > CONTEXT_TOKENS - 500:  # leaves room for the reply, as servers check prompt + max_tokens
            return Reply(status=400, error=f"This model's maximum context length is {CONTEXT_TOKENS} tokens. "
                                           f"However, your messages resulted in {n} tokens. Please reduce the "
                                           f"length of the messages.")
        return Reply(text="fix(billing): charge each invoice at most once\n\nCheck the credit limit first.")
    return handle


@pytest.fixture
def busy_repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    for i in range(400):
        write(root, f"fixtures/case{i:03d}.json", json.dumps({"case": i, "expected": "pending review"}) + "\n")
    write(root, "src/billing.py", SOURCE_V1)
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    for i in range(400):  # 400 small changes, all sorted before src/
        write(root, f"fixtures/case{i:03d}.json", json.dumps({"case": i, "expected": "approved after review"})
              + "\n")
    write(root, "src/billing.py", SOURCE_V2)
    git(root, "add", ".")
    return root


def test_source_hunk_reaches_an_8k_model_among_400_small_changes(busy_repo, llm):  # noqa: F811
    count = word_piece_counter()
    llm.reset(small_context_model(count))
    settings = settings_for(llm)  # default commit.max_diff_chars (24000), no token limit configured
    result = generate_commit_message(busy_repo, settings=settings, chat=make_chat_model(settings.generation))
    assert result.message.startswith("fix(billing): charge each invoice at most once")
    assert result.truncated is True and len(result.files) == 401
    accepted = llm.requests[-1]
    prompt = accepted.last_user_text()
    assert count(prompt) <= CONTEXT_TOKENS - 500
    assert "+    check_credit_limit(invoice.customer, amount)" in prompt  # the source hunk reached the model
    assert "idempotency_key=invoice.id" in prompt
    assert "src/billing.py" in prompt.partition("\nDiff:\n")[2].splitlines()[1]  # and it comes first


def test_context_length_error_is_retried_once_with_a_smaller_digest(busy_repo, llm):  # noqa: F811
    count = word_piece_counter()
    llm.reset(small_context_model(count))
    settings = settings_for(llm, max_diff_chars=60000)
    result = generate_commit_message(busy_repo, settings=settings, chat=make_chat_model(settings.generation))
    assert result.message.startswith("fix(billing)")
    assert len(llm.requests) == 2  # one rejection, one retry
    first, second = (r.last_user_text() for r in llm.requests)
    assert count(first) > CONTEXT_TOKENS - 500 >= count(second)


def test_max_prompt_tokens_fits_the_first_request(busy_repo, llm):  # noqa: F811
    count = word_piece_counter()
    llm.reset(small_context_model(count))
    settings = settings_for(llm, max_prompt_tokens=CONTEXT_TOKENS)
    result = generate_commit_message(busy_repo, settings=settings, chat=make_chat_model(settings.generation))
    assert result.message.startswith("fix(billing)") and len(llm.requests) == 1


def test_cp1252_bytes_in_a_staged_diff_reach_the_model_as_text(tmp_path, llm):  # noqa: F811
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "notes.txt", b"Menu\n")
    git(root, "add", ".")
    git(root, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "init")
    write(root, "notes.txt", b"Menu\nThe caf\xe9\x92s special \x93cr\xe8me br\xfbl\xe9e\x94 \x81\n")
    git(root, "add", ".")
    settings = settings_for(llm)
    llm.queue("docs: add the special")
    generate_commit_message(root, settings=settings, chat=make_chat_model(settings.generation))
    prompt = llm.requests[-1].last_user_text()
    assert "+The caf\u00e9\u2019s special \u201ccr\u00e8me br\u00fbl\u00e9e\u201d \ufffd" in prompt
    assert not any(0x7F <= ord(c) < 0xA0 or (ord(c) < 0x20 and c not in "\n\t") for c in prompt)


def test_merge_in_progress_conflicts_refused_then_gits_merge_message(tmp_path, llm):  # noqa: F811
    """A conflicted merge: unmerged paths are a clear error (git commit refuses them too); once resolved and
    staged, the message is git's "Merge branch 'topic'" with or without a model (the model is not asked)."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    write(root, "guide.md", "# Guide\n\nBase text.\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    git(root, "checkout", "-q", "-b", "topic")
    write(root, "guide.md", "# Guide\n\nTopic text.\n")
    git(root, "commit", "-q", "-am", "topic edit")
    git(root, "checkout", "-q", "main")
    write(root, "guide.md", "# Guide\n\nMain text.\n")
    git(root, "commit", "-q", "-am", "main edit")
    with pytest.raises(subprocess.CalledProcessError):
        git(root, "merge", "topic")
    settings = settings_for(llm)
    chat = make_chat_model(settings.generation)
    with pytest.raises(RequestFailed, match=r"unmerged paths \(guide\.md\) — resolve the conflicts"):
        generate_commit_message(root, settings=settings, chat=chat)
    write(root, "guide.md", "# Guide\n\nMain and topic text.\n")
    git(root, "add", "guide.md")
    asked = len(llm.requests)
    for model in (chat, None):
        result = generate_commit_message(root, settings=settings, chat=model)
        assert result.message == "Merge branch 'topic'"
        assert result.files == ["guide.md"]
    assert len(llm.requests) == asked
    git(root, "commit", "-q", "--no-edit")
    write(root, "guide.md", "# Guide\n\nAfter the merge.\n")
    git(root, "add", ".")
    result = generate_commit_message(root, settings=settings, chat=None)  # no merge in progress any more
    assert result.message.startswith("docs: update guide.md")


def test_before_the_first_commit_all_changes_says_nothing_is_tracked_yet(tmp_path, llm):  # noqa: F811
    """A new repository with only untracked files: "tracked files match HEAD" named a HEAD that does not exist."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "notes.txt", b"Menu\n")
    settings = settings_for(llm)
    with pytest.raises(RequestFailed, match="nothing is tracked yet .*git add"):
        generate_commit_message(root, settings=settings, staged=False)
    with pytest.raises(RequestFailed, match="nothing staged"):
        generate_commit_message(root, settings=settings)
    git(root, "add", ".")  # staged before the first commit: described against the empty tree
    llm.queue("docs: add the menu")
    assert generate_commit_message(root, settings=settings,
                                   chat=make_chat_model(settings.generation)).message == "docs: add the menu"
