"""`core.hashing.source_digest`: the version of the code a stored result was computed by (the index's sentence marks
record it): it changes with the module and with every ragls module it imports, directly or inside a function, and
with nothing else. Real files in a package laid out as ragls is."""

from __future__ import annotations

import json

import ragls
from ragls.core.hashing import source_digest


def fake_package(tmp_path, monkeypatch):
    root = tmp_path / "ragls"
    (root / "answer").mkdir(parents=True)
    (root / "__init__.py").write_text('__version__ = "1.0"\n')
    (root / "answer" / "__init__.py").write_text("")
    (root / "answer" / "passages.py").write_text(
        "from ragls.answer import blocks\n\ndef units():\n    from ragls.core.text import words\n    return words\n")
    (root / "answer" / "blocks.py").write_text("import ragls.core.ir\nDEFINITION = 1\n")
    (root / "core").mkdir()
    (root / "core" / "__init__.py").write_text("")
    for name in ("text", "ir", "unrelated"):
        (root / "core" / f"{name}.py").write_text(f"# {name}\n")
    monkeypatch.setattr(ragls, "__file__", str(root / "__init__.py"))
    return root


def test_the_digest_follows_every_module_the_code_imports(tmp_path, monkeypatch):
    root = fake_package(tmp_path, monkeypatch)
    first = source_digest("ragls.answer.passages")
    assert first == source_digest("ragls.answer.passages") and len(first) == 16
    (root / "core" / "unrelated.py").write_text("# changed, imported by nobody\n")
    assert source_digest("ragls.answer.passages") == first
    # a module named in `from package import module`, one imported inside a function, one two steps away
    for changed in ("answer/blocks.py", "core/text.py", "core/ir.py", "answer/passages.py"):
        (root / changed).write_text((root / changed).read_text() + "# changed\n")
        now = source_digest("ragls.answer.passages")
        assert now != first, changed
        first = now
    monkeypatch.setattr(ragls, "__version__", "2.0")
    assert source_digest("ragls.answer.passages") != first  # an install of bytecode only: its version decides


NESTED = """\
try:
    import ragls.core.in_try
except ImportError:
    from ragls.core import in_except
else:
    import ragls.core.in_else
finally:
    import ragls.core.in_finally
for _ in ():
    pass
else:
    with open(__file__):
        import ragls.core.in_with
while False:
    import ragls.core.in_while

class Reader:
    import ragls.core.in_class

    async def read(self, kind):
        match kind:
            case "x":
                from ragls.core.in_match import x
                return x
"""


def test_imports_in_every_kind_of_block_count(tmp_path, monkeypatch):
    """An import in a `try`, `except`, `else`, `finally`, `with`, `while`, class body or `match` case is followed
    too (the digest reads statement lists, not every node)."""
    root = fake_package(tmp_path, monkeypatch)
    names = ("in_try", "in_except", "in_else", "in_finally", "in_with", "in_while", "in_class", "in_match")
    for name in names:
        (root / "core" / f"{name}.py").write_text(f"# {name}\nx = 1\n")
    (root / "answer" / "passages.py").write_text(NESTED)
    first = source_digest("ragls.answer.passages")
    for name in names:
        (root / "core" / f"{name}.py").write_text((root / "core" / f"{name}.py").read_text() + "# changed\n")
        now = source_digest("ragls.answer.passages")
        assert now != first, name
        first = now


def test_the_real_passage_code_has_a_version():
    from ragls.answer.extractive import sentences_version

    # answer/lead_ins.py imports passages: the lead-ins' texts are embedded ahead too (`answer_sentences`)
    assert sentences_version() == source_digest("ragls.answer.lead_ins") != source_digest("ragls.answer.passages")


def test_a_kept_digest_is_read_back_while_the_package_is_unchanged(tmp_path, monkeypatch):
    """`kept_in`: the digest equals the one computed, is read back from its file while no `.py` file of the package
    changed (a stored digest under the same key is what it returns: nothing was parsed), and follows an edit of an
    imported module as the computed one does; a folder it cannot write only costs the computation."""
    root = fake_package(tmp_path, monkeypatch)
    kept = tmp_path / "models"
    first = source_digest("ragls.answer.passages", kept_in=kept)
    assert first == source_digest("ragls.answer.passages")
    (stored,) = kept.glob("source-digest-ragls.answer.passages-*.json")
    record = json.loads(stored.read_text())
    assert record["digest"] == first
    stored.write_text(json.dumps({"key": record["key"], "digest": "read back"}))
    assert source_digest("ragls.answer.passages", kept_in=kept) == "read back"
    (root / "core" / "unrelated.py").write_text("# changed, imported by nobody: computed again, the same digest\n")
    assert source_digest("ragls.answer.passages", kept_in=kept) == first
    (root / "core" / "text.py").write_text("# changed, imported inside a function\n")
    now = source_digest("ragls.answer.passages", kept_in=kept)
    assert now == source_digest("ragls.answer.passages") != first
    assert json.loads(stored.read_text())["digest"] == now
    monkeypatch.setattr(ragls, "__version__", "2.0")
    assert source_digest("ragls.answer.passages", kept_in=kept) == source_digest("ragls.answer.passages") != now
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    assert source_digest("ragls.answer.passages", kept_in=blocked) == source_digest("ragls.answer.passages")
