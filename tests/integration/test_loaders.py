"""[document_loaders]: argv split before `$1`/`$2` are substituted, no shell, failures as skipped entries naming
the tool; used by the workspace indexer and by ephemeral documents."""

from __future__ import annotations

import json
import os
import sys

import pytest
from ragls.core.errors import RequestFailed
from ragls.sources.convert import load_source
from ragls.sources.ephemeral import load_documents
from ragls.sources.load import OUTSIDE_LINK

TOOL = """import json, sys
open(sys.argv[1], "w").write(json.dumps(sys.argv[2:]))
if sys.argv[2:3] == ["--fail"]:
    sys.stderr.write("cannot parse input\\n"); sys.exit(4)
to_file = sys.argv[-1].endswith("output.txt")
data = open(sys.argv[-2] if to_file else sys.argv[-1], encoding="utf-8").read()
out = "CONVERTED " + data.upper()
if to_file:
    open(sys.argv[-1], "w").write(out)
else:
    print(out)
"""

HOSTILE = "we;ird $(touch PWNED1) `touch PWNED2` name.note"


@pytest.fixture
def setup(tmp_path):
    tool = tmp_path / "tool dir" / "conv.py"
    tool.parent.mkdir()
    tool.write_text(TOOL)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / HOSTILE).write_text("hello loader\n")
    return tmp_path, tool, docs


def _argv(tmp_path):
    return json.loads((tmp_path / "argv.json").read_text())


def test_hostile_path_reaches_the_tool_as_one_argument(setup):
    tmp_path, tool, docs = setup
    command = f"{sys.executable} '{tool}' '{tmp_path}/argv.json' $1"
    doc = load_source(docs, HOSTILE, 10_000, {"note": command})
    assert doc.text == "CONVERTED HELLO LOADER\n\n"
    [arg] = _argv(tmp_path)  # exactly one argument: the private copy of the checked bytes, under the file's name
    assert os.path.basename(arg) == HOSTILE and not arg.startswith(str(docs)) and not os.path.exists(arg)
    assert not list(tmp_path.rglob("PWNED*")) and not list(docs.parent.parent.glob("PWNED*"))


def test_output_file_placeholder(setup):
    tmp_path, tool, docs = setup
    (docs / "plain.note").write_text("abc\n")
    doc = load_source(docs, "plain.note", 10_000, {"note": f"{sys.executable} '{tool}' '{tmp_path}/argv.json' $1 $2"})
    args = _argv(tmp_path)
    assert args[0].endswith("/plain.note") and args[1].endswith("output.txt")
    assert doc.text == "CONVERTED ABC\n"


def test_loader_argv_substitutes_inside_items():
    from ragls.sources.loaders import loader_argv

    assert loader_argv("pandoc --from=docx '--out=$2' $1", "a b;c.docx", "/tmp/o") == [
        "pandoc", "--from=docx", "--out=/tmp/o", "a b;c.docx"]


def test_failures_are_skipped_naming_the_tool(setup):
    tmp_path, tool, docs = setup
    missing = load_source(docs, HOSTILE, 10_000, {"note": "no-such-converter-xyz $1"})
    assert missing.reason == "document loader 'note' (no-such-converter-xyz): command not found: no-such-converter-xyz"
    failing = load_source(docs, HOSTILE, 10_000, {"note": f"{sys.executable} '{tool}' '{tmp_path}/a.json' --fail $1"})
    assert failing.reason == f"document loader 'note' ({sys.executable}) exited with status 4: cannot parse input"
    slow = load_source(docs, HOSTILE, 10_000, {"note": f"{sys.executable} -c 'import time; time.sleep(5)' $1"},
                       timeout_s=0.5)
    assert slow.reason == f"document loader 'note' ({sys.executable}): no result within 0.5 s"
    big = load_source(docs, HOSTILE, 10_000, {"note": f"{sys.executable} -c 'print(\"x\" * 20000)' $1"})
    assert big.reason == f"document loader 'note' ({sys.executable}): output too large (20001 bytes > 10000)"


def test_ephemeral_documents_use_loaders(setup):
    tmp_path, tool, docs = setup
    loaders = {"shout": f"{sys.executable} '{tool}' '{tmp_path}/argv.json' $1"}
    [doc] = load_documents([f"shout:{HOSTILE}"], docs, loaders=loaders)
    assert doc.text.startswith("CONVERTED HELLO LOADER")
    assert [os.path.basename(a) for a in _argv(tmp_path)] == [HOSTILE]
    with pytest.raises(RequestFailed, match="no-such-converter-xyz"):
        load_documents([f"bad:{HOSTILE}"], docs, loaders={"bad": "no-such-converter-xyz $1"})


SWAP_THEN_READ = """import os, sys
# A racing local process: the checked file's name is swapped for a link out of the folder, then the loader reads $1.
os.unlink(sys.argv[1]); os.symlink(sys.argv[2], sys.argv[1])
print("LOADED " + open(sys.argv[3], encoding="utf-8").read())
"""


def test_a_loader_reads_the_bytes_that_were_checked_not_a_name_swapped_since(tmp_path):
    # ragls checks a file (regular, inside the folder as opened) and then runs the loader: the loader must convert
    # those bytes, not open the name again after a swap for a link out of the folder (`~/.ssh/id_rsa`).
    tool = tmp_path / "swap.py"
    tool.write_text(SWAP_THEN_READ)
    secret = tmp_path / "outside" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("xylophonequark private key\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.note").write_text("the heron waits by the weir\n")
    command = f"{sys.executable} '{tool}' '{docs / 'notes.note'}' '{secret}' $1"
    doc = load_source(docs, "notes.note", 10_000, {"note": command}, confined=True)
    assert doc.text == "LOADED the heron waits by the weir\n\n"
    assert (docs / "notes.note").is_symlink()  # the swap did happen, after the check
    # a name that already is a link out when ragls reads it is refused before any loader runs, as plain text is
    again = load_source(docs, "notes.note", 10_000, {"note": f"{sys.executable} -c 'print(1)' $1"}, confined=True)
    assert again.reason == OUTSIDE_LINK
