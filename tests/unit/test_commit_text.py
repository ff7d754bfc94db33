"""Pure parts of the commit-message feature: diff parsing of odd patches, the budgeted digest, reply cleanup,
wrapping, and the path rules of the deterministic message."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ragls.commit.conventional import guess_scope, guess_type, path_category
from ragls.commit.digest import describe, render_diff, semantic_lines
from ragls.commit.gitdiff import FileDiff, parse_diff
from ragls.commit.message import clean_reply, shorten_subject, wrap_body

COMBINED = (b"diff --cc f.txt\nindex f2ad6c7,6178079..0000000\n--- a/f.txt\n+++ b/f.txt\n"
            b"@@@ -1,1 -1,1 +1,5 @@@\n++<<<<<<< HEAD\n +c\n++=======\n+ b\n++>>>>>>> other\n")


def test_combined_diff_of_a_conflict_counts_both_parents():
    [f] = parse_diff(COMBINED)
    assert (f.path, f.status, f.added, f.removed, f.kind) == ("f.txt", "modified", 5, 0, "text")
    assert f.hunks[0].startswith("@@@ -1,1 -1,1 +1,5 @@@\n++<<<<<<< HEAD")


def test_quoted_and_spaced_names():
    raw = (b'diff --git "a/tab\\there.txt" "b/tab\\there.txt"\nnew file mode 100644\nindex 0000000..e69de29\n'
           b'--- /dev/null\n+++ "b/tab\\there.txt"\n@@ -0,0 +1 @@\n+x\n'
           b"diff --git a/my file.txt b/my file.txt\nindex 1..2 100644\n--- a/my file.txt\t\n+++ b/my file.txt\t\n"
           b"@@ -1 +1 @@\n-a\n+b\n"
           b'diff --git "a/q\\"uote\\303\\251" "b/q\\"uote\\303\\251"\ndeleted file mode 100644\nindex 1..0\n'
           b'Binary files "a/q\\"uote\\303\\251" and /dev/null differ\n')
    files = parse_diff(raw)
    assert [(f.path, f.status, f.kind, f.added, f.removed) for f in files] == [
        ("tab\there.txt", "added", "text", 1, 0),
        ("my file.txt", "modified", "text", 1, 1),
        ('q"uoteé', "deleted", "binary", 0, 0),
    ]
    assert describe(files[2]) == 'Binary file deleted: q"uoteé'


def test_mode_change_and_generated_files():
    raw = (b"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
           b"diff --git a/web/dist/app.min.js b/web/dist/app.min.js\nindex 1..2 100644\n--- a/web/dist/app.min.js\n"
           b"+++ b/web/dist/app.min.js\n@@ -1 +1 @@\n-var a=1\n+var a=2\n")
    run, js = parse_diff(raw)
    assert describe(run) == "mode changed: run.sh (100644 → 100755)"
    assert describe(js) == "generated file updated: web/dist/app.min.js (+1 -1)"
    assert js.hunks == ()  # generated content never reaches the model


def test_garbage_input_never_raises():
    assert parse_diff(b"") == []
    assert parse_diff(b"\xff\xfe not a diff\n") == []
    [f] = parse_diff(b"diff --git a/x\n@@ -1 +1 @@\n-\xe9\n+\xff\n")
    assert (f.added, f.removed) == (1, 1)


def test_file_list_alone_over_budget_is_cut_with_a_count():
    files = [FileDiff(path=f"pkg/very/long/directory/name/module_{i:04d}.py", status="added", added=i)
             for i in range(200)]
    text, cut = render_diff(files, 1000)
    assert cut and len(text) <= 1000
    lines = text.splitlines()
    assert lines[0] == "Files changed (200):"
    shown = sum(1 for ln in lines if ln.startswith("- added: "))
    assert 0 < shown < 200
    assert f"- … and {200 - shown} more files ({200 - shown} in pkg/)" in lines
    assert lines[-1].startswith("[diff truncated to 1000 characters")


def test_one_huge_line_is_cut_not_sent():
    f = FileDiff(path="data.py", status="added", added=1, hunks=("@@ -0,0 +1 @@\n+" + "x" * 50_000,))
    text, cut = render_diff([f], 2000)
    assert cut and len(text) <= 2000 and "xxxx" not in text


@pytest.mark.parametrize(("reply", "expected"), [
    ('"fix: quoted subject"', "fix: quoted subject"),
    ("```\nfeat(api): fenced\n\nbody\n```", "feat(api): fenced\n\nbody"),
    ("Commit message:\n\n**Fix: bold heading.**\n\nBody.", "Fix: bold heading\n\nBody."),
    ("Subject: feat: Add the thing", "feat: add the thing"),
    ("feat: Add API docs", "feat: add API docs"),
    ("```text\nfix: unterminated fence", "fix: unterminated fence"),
    ("  \n\n", ""),
])
def test_clean_reply(reply, expected):
    assert clean_reply(reply, "conventional") == expected


def test_clean_reply_keeps_plain_capitals():
    assert clean_reply("Add retries to the HTTP client.", "plain") == "Add retries to the HTTP client"


def test_shorten_subject():
    s = "feat(core): " + "word " * 30
    out = shorten_subject(s)
    assert len(out) <= 72 and out.endswith("word") and out.startswith("feat(core): word")
    assert shorten_subject("x" * 100) == "x" * 72
    assert shorten_subject("fix: two\nlines.") == "fix: two lines"


def test_wrap_body_keeps_structure():
    text = ("A long paragraph " * 8 + "\n\n\n- item one " + "more " * 15 + "\n    code line that is kept exactly as "
            "it is even though it is long\nSigned-off-by: Someone With A Long Name <someone@example.com>")
    out = wrap_body(text).split("\n")
    assert all(len(ln) <= 72 for ln in out if not ln.startswith(("    ", "Signed")))
    assert out.count("") == 1  # blank runs collapse
    assert out[-1] == "Signed-off-by: Someone With A Long Name <someone@example.com>"
    bullet = [ln for ln in out if ln.startswith("- item one")]
    assert bullet and out[out.index(bullet[0]) + 1].startswith("  more")


@pytest.mark.parametrize(("path", "category"), [
    (".github/workflows/ci.yml", "ci"), ("Jenkinsfile", "ci"), ("pyproject.toml", "build"),
    ("requirements-dev.txt", "build"), ("web/yarn.lock", "build"), ("tests/unit/test_x.py", "test"),
    ("src/foo_test.go", "test"), ("web/src/app.spec.ts", "test"), ("docs/api/index.html", "docs"),
    ("CHANGELOG", "docs"), ("notes.md", "docs"), ("src/main.rs", "code"),
])
def test_path_category(path, category):
    assert path_category(path) == category


def test_type_and_scope_rules():
    def f(path, status="modified", **kw):
        return FileDiff(path=path, status=status, added=kw.get("added", 1), removed=kw.get("removed", 1),
                        old_path=kw.get("old_path"))

    assert guess_type([f("a.py", "deleted"), f("docs/x.md", "deleted")]) == "chore"
    assert guess_type([f("b.py", "renamed", old_path="a.py", added=0, removed=0)]) == "refactor"
    assert guess_type([f("docs/a.md"), f("tests/test_a.py")]) == "chore"
    assert guess_type([f("pyproject.toml"), f(".github/workflows/ci.yml")]) == "build"
    assert guess_type([f("img.png", "added")]) == "chore"  # an image alone is no feature
    assert guess_type([f("docs/guide.md"), f("assets/diagram.SVG", "added")]) == "docs"
    assert guess_type([f("app.py", "added"), f("logo.png", "added")]) == "feat"
    assert guess_type([f("src/a.py"), f("src/b.py", "added")]) == "feat"
    assert guess_type([f("src/a.py"), f("tests/test_a.py", "added")]) == "fix"
    added_def = FileDiff("calc.py", "modified", added=3, hunks=("@@ -2,0 +3,3 @@\n+\n+def sub(a, b):\n+    return a - b",))
    assert guess_type([added_def]) == "feat"  # only additions, one of them a new function
    assert guess_type([replace(added_def, removed=1)]) == "fix"  # an edit that also removes a line
    assert guess_type([replace(added_def, hunks=("@@ -2,0 +3 @@\n+LIMIT = 3",), added=1)]) == "fix"
    assert guess_type([replace(added_def, hunks=("@@ -1 +1,2 @@\n def f():\n+    # class of its own",))]) == "fix"
    assert guess_scope([f("src/ragls/a.py"), f("src/ragls/sub/b.py")]) == "ragls"
    assert guess_scope([f("src/ragls/a.py"), f("src/other/b.py")]) == "src"
    assert guess_scope([f("server/a.py"), f("b.py")]) is None
    assert guess_scope([f("docs/a.md")], "docs") is None
    assert guess_scope([f("client/b.py", "renamed", old_path="server/b.py")]) is None


def test_semantic_lines_ignore_whitespace_only_changes():
    assert semantic_lines("@@ -1,2 +1,2 @@\n-def f():\n-  return 1\n+def f():\n+    return 1") == 0
    assert semantic_lines("@@ -1 +1 @@\n-x = 1\n+x = 2") == 2
    assert semantic_lines("@@ -1 +1,2 @@\n-a = 1 \n+a = 1\n+b = 2") == 1


def test_whitespace_hunks_and_unimportant_files_come_after_the_source_change():
    reindent = FileDiff(path="src/a.py", status="modified", added=40, removed=40, hunks=(
        "@@ -1,40 +1,40 @@\n" + "\n".join(f"-x{i} = {i}" for i in range(40)) + "\n"
        + "\n".join(f"+x{i}  =  {i}" for i in range(40)),))
    docs = [FileDiff(path=f"docs/p{i}.md", status="modified", added=1, removed=1,
                     hunks=(f"@@ -1 +1 @@\n-old text {i}\n+new text {i}",)) for i in range(100)]
    source = FileDiff(path="src/core.py", status="modified", added=2, removed=1,
                      hunks=(("@@ -10,3 +10,4 @@\n def pay(amount):\n-    return charge(amount)\n"
                              "+    check_limit(amount)\n+    return charge(amount, idempotent=True)"),))
    text, cut = render_diff([reindent, *docs, source], 1500, weight=lambda f: 0.5 if f.path.endswith(".md") else 1)
    diff = text.partition("\nDiff:\n")[2]
    assert cut and diff.startswith("--- a/src/core.py\n+++ b/src/core.py\n@@ -10,3 +10,4 @@")
    assert "idempotent=True" in diff and "x0  =  0" not in diff  # the re-indent is offered last


def test_cp1252_byte_in_a_diff_is_decoded_without_control_characters():
    [f] = parse_diff(b"diff --git a/n.txt b/n.txt\n--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-it is\n"
                     b"+it\x92s caf\xe9 \x81 time\n")
    assert f.hunks[0].endswith("+it\u2019s caf\u00e9 \ufffd time")
    assert not any(0x7F <= ord(c) < 0xA0 or (ord(c) < 0x20 and c not in "\n\t") for c in f.hunks[0])


def test_a_doc_that_gains_sections_says_which():
    """One documentation file gaining headings: "add Metrics section to configuration.md", not "update …"."""
    from ragls.commit.message import added_sections, deterministic_message

    md = FileDiff("docs/configuration.md", "modified", added=5, removed=1, hunks=(
        "@@ -9,1 +9,1 @@\n-Each job has a timeout (default 300).\n+Each job has a timeout (default 600).",
        "@@ -18,0 +19,4 @@\n+\n+## Metrics\n+\n+Set `metrics_port` to expose Prometheus metrics.",))
    assert added_sections(md) == ["Metrics"]
    assert deterministic_message([md], "conventional")[0] == "docs: add Metrics section to configuration.md"
    assert deterministic_message([md], "plain")[0] == "Add Metrics section to configuration.md"
    rst = FileDiff("docs/deploy.rst", "modified", added=8, hunks=(
        "@@ -20,0 +21,8 @@\n+Upgrading\n+---------\n+\n+Stop the workers.\n+\n+Rolling back\n+============\n+Restore.",))
    assert added_sections(rst) == ["Upgrading", "Rolling back"]
    assert deterministic_message([rst], "conventional")[0] == "docs: add Upgrading and Rolling back sections to deploy.rst"
    # a reworded heading is an edit; a rewrite is an update; code and several files keep the generic subject
    reworded = FileDiff("guide.md", "modified", added=1, removed=1, hunks=("@@ -1 +1 @@\n-# Setup\n+# Install",))
    rewrite = FileDiff("guide.md", "modified", added=6, removed=5, hunks=(
        "@@ -1,5 +1,6 @@\n-a\n-b\n-c\n-d\n-e\n+# New\n+a\n+b\n+c\n+d\n+e",))
    code = FileDiff("app.py", "modified", added=2, hunks=("@@ -1,0 +2,2 @@\n+# Notes\n+x = 1",))
    assert added_sections(reworded) == added_sections(rewrite) == added_sections(code) == []
    # several files: the subject names them, the body says the sections each gains (git's record does not)
    body = "- configuration.md: add Metrics section\n- deploy.rst: add Upgrading and Rolling back sections"
    assert deterministic_message([md, rst], "conventional") == (
        f"docs: update deploy.rst and configuration.md\n\n{body}", False)
    assert deterministic_message([md, rst, code], "plain")[0].endswith(f"\n\n{body}")


def test_a_comment_in_an_added_code_block_is_no_section():
    """"# install …" inside an added ```sh fence is shell, not a heading: the subject stays "update setup.md"; a real
    section whose body holds such a block is named alone."""
    from ragls.commit.message import added_sections, deterministic_message

    [fence] = parse_diff(b"diff --git a/docs/setup.md b/docs/setup.md\n--- a/docs/setup.md\n+++ b/docs/setup.md\n"
                         b"@@ -10,0 +11,6 @@\n+To work on ragls itself:\n+\n+```sh\n"
                         b"+# install the dev dependencies\n+pip install -e '.[dev]'\n+```\n")
    assert added_sections(fence) == []
    assert deterministic_message([fence], "conventional")[0] == "docs: update setup.md"
    section = FileDiff("docs/configuration.md", "modified", added=7, hunks=(
        "@@ -18,0 +19,7 @@\n+## Metrics\n+\n+```toml\n+# scrape every 15 s\n+metrics_port = 9100\n+```\n+Done.",))
    assert added_sections(section) == ["Metrics"]
    assert deterministic_message([section], "conventional")[0] == "docs: add Metrics section to configuration.md"


def test_a_title_and_an_underline_from_separate_added_runs_are_no_section():
    """Added lines are read run by run: "+See also", a context line, "+==========" is no reST title."""
    from ragls.commit.message import added_sections, deterministic_message

    [split] = parse_diff(b"diff --git a/docs/deploy.rst b/docs/deploy.rst\n--- a/docs/deploy.rst\n"
                         b"+++ b/docs/deploy.rst\n@@ -4,2 +4,4 @@\n Stop the workers.\n+See also\n"
                         b" Restart them.\n+==========\n")
    assert added_sections(split) == []
    assert deterministic_message([split], "conventional")[0] == "docs: update deploy.rst"
