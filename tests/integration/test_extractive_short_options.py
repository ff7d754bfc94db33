"""A short command-line option the question names ("-j") is a term of its own (answer/identifiers.SHORT_OPTION):
content words drop one-letter words, so "What does the -j option do?" scored every option's sentence of a man page
alike. Real offline embedding model; the chunk is an option list as reST man pages write it."""

from __future__ import annotations

from ragls.answer.ask import extractive_answer
from ragls.answer.focus import sentence_focus
from ragls.answer.identifiers import literal_terms
from ragls.core.ir import Chunk, Hit, LineSpan

OPTIONS_RST = """\
Options
-------

.. option:: -b buildername, --builder buildername

   Selects the builder that writes the output files. The builder decides the
   format of the site the build tool creates from the sources.

.. option:: -d path, --doctree-dir path

   Since the build tool has to read and parse all source files before it can
   write an output file, the parsed source files are cached. With this option
   you can select a different cache directory for the build.

.. option:: -j N, --jobs N

   Distribute the work over *N* processes in parallel, to make building on
   multiprocessor machines more effective.

.. option:: -v, --verbose

   Increase the verbosity of the build output. Can be given up to three times.
"""


def test_short_options_are_literal_terms():
    assert literal_terms("What does the -j option of sphinx-build do?") == {"-j"}
    assert literal_terms("pip install -e . then run it with -vv") == {"-e", "-vv"}
    assert literal_terms("e-mail the team, pass --jobs or -jobs, subtract -1") == set()


def test_the_option_the_question_names_is_quoted_and_focused(offline_embedder):
    n = OPTIONS_RST.count("\n")
    chunk = Chunk(id="build.rst", path="man/build.rst", text=OPTIONS_RST, span=LineSpan(0, 0, n, 0),
                  text_hash="build.rst")
    # the vector signal's best window is the -d option's body (as on Sphinx's sphinx-build page)
    hit = Hit(chunk=chunk, score=1.0, window=LineSpan(9, 0, 13, 0))
    question = "What does the -j option of the build tool do?"
    answer = extractive_answer(question, [(1, hit)], embed=offline_embedder.embed_documents)
    assert "`-j N, --jobs N`: Distribute the work over" in answer, answer
    # weighed over the whole option list, the focus is the -j option's lines (inside the window of another
    # option, that option's sentences weigh more: the window is where the chunk reads closest to the question)
    whole = Hit(chunk=chunk, score=1.0, window=LineSpan(0, 0, n, 0))
    focus = sentence_focus([whole], question)[0].focus
    assert focus.start_line <= 16 and focus.end_line >= 17 and focus.end_line - focus.start_line < 6, focus
