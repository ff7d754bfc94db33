"""A program's `--help` output pasted in a page is read as passages (answer/help_text.py): each option with its
description wrapped over indented lines, and the program's description under its usage line. Read as code, none
of it could be quoted: devpi's command reference is every command's `--help` in reST literal blocks, and its answers
quoted tutorial sentences instead ("The server will listen on `http://localhost:4040` ..." for "Which option makes
it accept connections from other machines?"). Real offline embedding model for the answer; the passages are read by
the real reader (answer/passages.units)."""

from __future__ import annotations

import pytest
from extractkit import _bullets
from ragls.answer.across_chunks import option_continued
from ragls.answer.ask import extractive_answer
from ragls.answer.passages import units
from ragls.core.ir import Chunk, Hit, LineSpan

SERVER_RST = """\
Command reference (server)
==========================

The server keeps its state in a directory of its own; start it once per machine.

::

    $ hubd -h
    usage: hubd [-h] [-c CONFIGFILE] [--listen-on ADDR] [--port PORT]
                [--threads THREADS] [--max-body BYTES] [--offline]

    Start a server which serves packages to many users. The mirror index is a
    cached copy of the public index and is created by default.

    options:
      -h, --help            Show this help message and exit.
      -c CONFIGFILE, --configfile CONFIGFILE
                            Config file to use. [None]

    web serving options:
      --listen-on ADDR      address to listen on. Use --listen-on=0.0.0.0 if you
                            want to accept connections from any machine.
                            [localhost]
      --port PORT           port to listen for http requests. [3141]
      --threads THREADS     number of threads to start for serving clients. [50]
      --max-body BYTES      maximum number of bytes in a request body. This
                            limits the size of a package a client can upload,
                            a multi-part upload's too. [1073741824]
      --offline             (experimental) never connect to the public index
                            and only serve the files already cached. [False]

The tutorial server started above listens on ``http://localhost:4040`` and serves the web interface
when the web plugin is installed.
"""


def _hit(text: str, path: str) -> Hit:
    n = text.count("\n")
    return Hit(chunk=Chunk(id=path, path=path, text=text, span=LineSpan(0, 0, n, 0), text_hash=path), score=1.0)


def test_each_option_of_a_help_output_is_a_passage_with_its_whole_description():
    found = {u.sentence: (u.line, u.end) for u in units(SERVER_RST, markdown=False)}
    option = ("`--listen-on ADDR`: address to listen on. Use --listen-on=0.0.0.0 if you want to accept connections "
              "from any machine. [localhost]")
    assert found[option] == (20, 22), found
    assert ("`--max-body BYTES`: maximum number of bytes in a request body. This limits the size of a package a "
            "client can upload, a multi-part upload's too. [1073741824]") in found, found
    # the program's description under its usage line, led by the program's name
    assert found["`hubd`: Start a server which serves packages to many users. The mirror index is a cached copy of "
                 "the public index and is created by default."] == (11, 12)
    assert "`-c CONFIGFILE, --configfile CONFIGFILE`: Config file to use. [None]" in found


def test_the_option_that_answers_leads_the_answer(offline_embedder):
    question = "The server only answers on localhost. Which option makes it accept connections from other machines?"
    bullets = _bullets(extractive_answer(question, [(1, _hit(SERVER_RST, "doc/commands.rst"))],
                                         embed=offline_embedder.embed_documents))
    assert bullets[0].startswith("- `--listen-on ADDR`: address to listen on. Use --listen-on=0.0.0.0"), bullets


def test_a_chunk_opening_inside_a_help_output_reads_its_options():
    """The chunker cut the help output: the chunk has no "::" above its lines. Its entries were read as a reST
    definition list ("--max-body BYTES:" over a dedented description) and the description it opens with as prose
    run on into the next option ("[localhost] --port PORT port to listen ..."); now as the help output it is, the
    cut description from its first whole sentence on."""
    lines = SERVER_RST.split("\n")
    text = "\n".join(lines[20:30])  # opens inside --listen-on's description
    found = {u.sentence: (u.line, u.end) for u in units(text, markdown=False)}
    assert "`--port PORT`: port to listen for http requests. [3141]" in found, found
    assert ("`--max-body BYTES`: maximum number of bytes in a request body. This limits the size of a package a "
            "client can upload, a multi-part upload's too. [1073741824]") in found, found
    assert not any("--port PORT port" in s for s in found), found
    # a chunk that opens at the usage line (a `.. code::` directive's body, its line in the chunk before): an
    # option after another's wrapped description was read as a definition's term ("(experimental) never connect
    # to the public index:" over its dedented last line)
    whole = {u.sentence for u in units("\n".join(lines[8:]), markdown=False)}
    assert ("`--offline`: (experimental) never connect to the public index and only serve the files already "
            "cached. [False]") in whole, whole
    assert "`-c CONFIGFILE, --configfile CONFIGFILE`: Config file to use. [None]" in whole, whole
    # a word the help formatter broke after its hyphen ("web-" / "plugin") is read whole
    cut = ("                            postponed to run on server start. This allows a much\n"
           "                            faster start after an import, when the web-\n"
           "                            plugin is used. [False]\n"
           "      --hard-links          use hard links during export and import instead of\n"
           "                            copying files. [False]")
    found = [u.sentence for u in units(cut, markdown=False)]
    assert found == ["This allows a much faster start after an import, when the web-plugin is used. [False]",
                     "`--hard-links`: use hard links during export and import instead of copying files. [False]"], found


CLICK_MD = """\
# Command line

```console
$ hub serve --help
Usage: hub serve [OPTIONS] [FILES]...

  Serve the given database files in a web server.

Options:
  -i, --immutable PATH      Database files to open in immutable mode
  -h, --host TEXT           Host for the server to listen on, use 0.0.0.0 to
                            listen on all interfaces  [default: 127.0.0.1]
  --cors                    Enable CORS by serving Access-Control-Allow-Origin: *
  --help                    Show this message and exit.
```
"""


def test_a_fenced_help_output_in_markdown():
    found = [u.sentence for u in units(CLICK_MD)]
    assert "`hub serve`: Serve the given database files in a web server." in found, found
    assert ("`-h, --host TEXT`: Host for the server to listen on, use 0.0.0.0 to listen on all interfaces  "
            "[default: 127.0.0.1]") in found, found


UPLOAD_RST = """\
    build options:
      -p PYTHON_EXE, --python PYTHON_EXE
                            Specify which Python interpreter to use.
      --no-vcs              don't export the versioned files to a fresh dir, just
                            build directly using the dirname as current dir.
      --sdist               build a source distribution.

    positional arguments:
      url                   set the current API endpoints from the given url. With
                            a web server with basic auth in front of the server,
                            use a url like https://user:secret@example.com/USER.

Uploading
=========
"""


def test_a_positional_argument_is_an_entry_and_a_chunk_opening_inside_options_reads_them():
    """A help output's positional argument ("url" over its description) is an entry as an option is; a chunk
    that opens inside the options and holds one was read as a definition list ("--no-vcs ... just build
    directly:" over a dedented line), as it was not made of option entries only."""
    found = {u.sentence: (u.line, u.end) for u in units(UPLOAD_RST, markdown=False)}
    assert found["`--no-vcs`: don't export the versioned files to a fresh dir, just build directly using the "
                 "dirname as current dir."] == (3, 4), found
    assert found["`url`: set the current API endpoints from the given url. With a web server with basic auth in "
                 "front of the server, use a url like https://user:secret@example.com/USER."] == (8, 10), found


COBRA_RST = """\
Backing up
==========

::

    $ restic backup --help

    Usage:
      restic backup [flags] [FILE/DIR] ...

    Flags:
      -e, --exclude pattern                        exclude a pattern (can be specified multiple times)
          --exclude-if-present filename[:header]   takes filename[:header], exclude contents of directories
                                                   containing filename
          --exclude-larger-than size               max size of the files to be backed up (allowed suffixes: k/K, m/M)
      -h, --help                                   help for backup
"""


def test_a_long_option_indented_past_the_short_ones_is_an_entry_of_its_own():
    """cobra (Go) indents an option without a short form past the short ones: "--exclude-if-present" under
    "-e, --exclude pattern" is the next entry, not the description going on."""
    found = {u.sentence: (u.line, u.end) for u in units(COBRA_RST, markdown=False)}
    assert found["`-e, --exclude pattern`: exclude a pattern (can be specified multiple times)"] == (11, 11), found
    assert found["`--exclude-if-present filename[:header]`: takes filename[:header], exclude contents of directories "
                 "containing filename"] == (12, 13), found
    assert "`--exclude-larger-than size`: max size of the files to be backed up (allowed suffixes: k/K, m/M)" in found


def test_code_that_is_no_help_output_gives_no_option_passages():
    listing = """\
Check the permissions of the files in the folder:

```console
$ ls -l
-rw-r--r--  1 me  staff   120 Jan  1 10:00 app.py
drwxr-xr-x  3 me  staff    96 Jan  1 10:00 templates
$ diff old.txt new.txt
-old line  here
--- a/old.txt
$ tool prune -v --list      \\
    --keep-daily    7    \\
    --keep-weekly   4    \\
    --keep-monthly  6
```
"""
    assert [u.sentence for u in units(listing)] == ["Check the permissions of the files in the folder:"]


IMPORT_RST = """\
Command reference (import)
==========================

::

    $ hub-import -h
    usage: hub-import [-h] [--no-events] [--hard-links] [path]

    Import a dumped server state into a new server directory.

    options:
      -h, --help            Show this help message and exit.
      --skip-type TYPE      skip the given index type during import. Used when the
                            corresponding plugin isn't installed anymore. [None]
      --no-events           no events will be run during import, instead they are
                            postponed to run on server start. This allows a much
                            faster start of the server after an import, when the
                            search plugin is used. [False]
      --hard-links          use hard links during export and import instead of
                            copying files. [False]
"""


def test_an_option_the_chunk_end_cut_is_quoted_whole(tmp_path, offline_embedder):
    """The chunker cut the help output inside --no-events' description (the chunk ends on "faster start of the
    server after an import, when the"): the rest of the description is read back from the file
    (`across_chunks.option_continued`); the citation keeps the chunk's lines."""
    (tmp_path / "doc").mkdir()
    (tmp_path / "doc" / "import.rst").write_text(IMPORT_RST)
    text = "\n".join(IMPORT_RST.split("\n")[:17])  # through "faster start of the server after an import, when the"
    chunk = Chunk(id="import.rst#0", path="doc/import.rst", text=text, span=LineSpan(0, 0, 16, 0),
                  text_hash="import.rst#0", folder=str(tmp_path))
    question = "After importing a dump the server starts slowly because the search plugin processes everything. Can the import skip that?"
    bullets = _bullets(extractive_answer(question, [(1, Hit(chunk=chunk, score=1.0))], embed=offline_embedder.embed_documents))
    assert ("- `--no-events`: no events will be run during import, instead they are postponed to run on server start. "
            "This allows a much faster start of the server after an import, when the search plugin is used. [False] [1]"
            ) in bullets, bullets


@pytest.mark.timeout(60)
def test_a_line_of_a_long_run_of_spaces_is_read_in_one_pass():
    """An entry's line padded by a long run of spaces before more text (a terminal's capture, a hostile page) is read
    as any other: its description is the text after the option. The lazy descriptions of
    OPTION_ENTRY / _POSITIONAL and the prompt line's program retried the line's end at each character: quadratic in
    the run (32,000 spaces: 8 s per pattern; 150,000 here: minutes). The timeout is a hang guard."""
    run = " " * 150_000
    text = SERVER_RST.replace("port to listen for http requests. [3141]", f"port to listen for http requests.{run}[3141]")
    text = text.replace("$ hubd -h", f"$ hubd{run}-h")
    found = [u.sentence for u in units(text, markdown=False)]
    port = [s for s in found if s.startswith("`--port PORT`: port to listen for http requests.")]
    assert len(port) == 1, [s[:80] for s in found]  # (cut by the passage length cap)
    assert "`--threads THREADS`: number of threads to start for serving clients. [50]" in found, found


def test_an_option_the_chunk_end_cut_stops_at_the_next_entry_indented_past_it(tmp_path):
    """The chunk ends on "-f, --force" and its description is whole; the file goes on with cobra's long options
    indented past the short ones, which are entries of their own (`help_text.continues_entry`): reading the
    description on past the chunk's end (`across_chunks.option_continued`) takes none of them. It took both
    ("... even unchanged ones --exclude-if-present filename[:header]   takes filename[:header] ...")."""
    e_line = "      -e, --exclude pattern                        exclude a pattern (can be specified multiple times)\n"
    rst = COBRA_RST.replace(e_line, e_line + "      -f, --force                                  force re-reading the "
                                             "source files, even unchanged ones\n")
    (tmp_path / "backup.rst").write_text(rst)
    text = "\n".join(rst.split("\n")[:13])  # through "-f, --force ..."
    chunk = Chunk(id="backup.rst#0", path="backup.rst", text=text, span=LineSpan(0, 0, 12, 0),
                  text_hash="backup.rst#0", folder=str(tmp_path))
    force = [u for u in units(text, markdown=False) if u.sentence.startswith("`-f, --force`")]
    assert len(force) == 1 and force[0].end == 12, force
    read_on = option_continued(1, force[0], {1: Hit(chunk=chunk, score=1.0)})
    assert read_on.sentence == "`-f, --force`: force re-reading the source files, even unchanged ones", read_on
