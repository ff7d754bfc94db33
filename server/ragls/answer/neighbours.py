"""What a quoted passage is read with (the extractive answer, `answer/extractive.py`; the focus, `answer/focus.py`):
the sentence before it that it refers to, the sentence after it that completes or explains it, the code block right
after it, the sentence after the block it carries. A sentence quoted alone often answers less than it says: its
antecedent, the means it leads up to or the example under it are in its neighbours.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ragls.answer.cite import content_words
from ragls.answer.identifiers import IDENTIFIER, identifier_words, passage_words, pointed_at
from ragls.answer.includes import FileFilters
from ragls.answer.labels import CODE_SPAN
from ragls.answer.passages import EXTRACTIVE_MAX_SENTENCE_CHARS, Unit, chunk_units
from ragls.core.ir import Hit

__all__ = ["FOCUS_SENTENCE_LINES", "LEAD_CODE_LINES", "NEXT_REFERENCE_WORDS", "POINTER", "REFERENCE_HEAD_WORDS", "SHORT_CODE_LINES",
           "alternative", "antecedent", "code_lines", "continues", "describes", "explains", "joined_sentences", "names_before", "quotes", "read_with_neighbours", "refers_back", "shows_how", "with_code_after"]

FOCUS_SENTENCE_LINES = 6  # the most lines a focus sentence (or list item) spans on its own (answer/focus.py)
SHORT_CODE_LINES = 3  # a code block after a sentence this short (lines of code) comes with it when on topic
NEXT_REFERENCE_WORDS = 12  # a sentence this short referring back to a quoted one is read with it (`explains`)
REFERENCE_HEAD_WORDS = 6  # "this" among a sentence's first words this many refers back (`explains`)


def read_with_neighbours(picked: list[tuple[int, Unit]], hits: dict[int, Hit], query: set[str] | frozenset[str],
                         files: FileFilters | None = None) -> list[tuple[int, Unit]]:
    """`picked` with each passage that refers back to the sentence right before it read with that sentence
    (`antecedent`), and each sentence read with the sentence right after it in its chunk (the same paragraph or
    the next, only a blank line between) when that one names an identifier the question's words point at
    (`pointed_at`) that the first does not name, in its own words or in the code of at most SHORT_CODE_LINES lines
    it shows (`with_code_after`, or the block it introduces): a lead-in quoted without what completes it ("... another
    solution is to run the tests one at a time." then "If you want more control over the number of threads used,
    you can send the `--test-threads` flag ... Take a look at the following example:" and `cargo test --
    --test-threads=1`). The prose says what to do, the next sentence names how; shown as one passage under the
    first one's citation. A sentence that names such an identifier already is read with the next one only when the
    two are shorter than EXTRACTIVE_MAX_SENTENCE_CHARS: "In this mode `sys.stdout.fileno()` ... raise
    `io.UnsupportedOperation`" then "C-level consumers (`faulthandler`, ...) must opt into the `capture="fd"` mode"
    for a question naming both (measured: bench/history/sessions-40-41.md, "The next sentence naming another identifier").
    Otherwise the next sentence of its paragraph (or of the next one, across a directive line) comes with it when
    it refers back to it and explains it or names the means of what it says, or tells what to do (`explains`);
    and when that one says no more than why ("This can happen when restic is processing huge amounts of unchanged
    data."), the sentence after it too when it tells what to do about it (`_tells_what_to_do`: "To avoid this issue
    add the following lines to the client's .ssh/config file:" and its `ServerAliveInterval 60`).
    A sentence whose paragraph ends in a ":" lead-in introducing the short code block under it comes with that
    lead-in and block when it would not show the block itself (`shows_how`: "... the port defaults to `3000`." /
    "Either option can be specified on the command line:" / `mdbook serve path/to/book -p 8000`).
    A next sentence the answer quotes anyway stays where it is (two answering sentences of
    one paragraph are not one passage: "This is why we recommend Sentry ..." and "If you specify `block=True`
    ..." each answer one part of a question). List items and table rows are whole units of their own
    and are never joined (`Unit.item`); a longer block after the next sentence is an example of something else
    more often than the line the user needs (measured: bench/history/sessions-36-37.md, "Lead-ins read with what completes
    them"). A sentence that runs on across a block ("If you put the following configuration in your
    pyproject.toml:" / the block / "then you can implement ...", `continues`) is quoted whole: a picked
    continuation after its ":" lead and the lead's short block (`_lead_of`), a picked lead with its continuation
    (`_after_block`). A passage whose lines another passage of the answer shows already (read with its neighbour,
    or inside a block it carries) is not added again (`_shown`). `files`: the open indexes' file filters by folder
    (`passages.chunk_units`)."""
    out: list[tuple[int, Unit]] = []
    picked = _leads_first(picked, hits, files)
    quoted = {(n, u.line, u.sentence) for n, u in picked}

    def free(n: int, u: Unit) -> bool:  # a neighbour neither quoted itself nor holding (or held by) a quote of hit n
        return (n, u.line, u.sentence) not in quoted and not any(
            k == n and (quotes(m, u) or quotes(u, m)) for k, m in picked)

    for n, unit in picked:
        hit = hits.get(n)
        found = chunk_units(hit.chunk, files=files) if hit is not None and unit.line >= 0 else []
        at = next((i for i, u in enumerate(found) if u.line == unit.line and u.sentence == unit.sentence), None)
        prev, own = (found[at - 1] if at else None), unit
        if prev is not None and antecedent(prev, unit) and free(n, prev):
            unit = replace(unit, sentence=joined_sentences(prev.sentence, unit.sentence), line=prev.line)
        elif prev is not None and describes(prev, unit) and free(n, prev):
            unit = replace(unit, sentence=_with_fields(prev.sentence, unit.sentence), line=prev.line)
        elif prev is not None and names_before(prev, unit, query, hit.chunk.text) and free(n, prev):
            unit = replace(unit, sentence=joined_sentences(prev.sentence, unit.sentence), line=prev.line)
        mine = pointed_at(identifier_words(own.scored_text), query)
        if at is not None and not own.attached:
            nxt = with_code_after(found[at + 1], query) if at + 1 < len(found) else None
            if nxt is not None and nxt.line - unit.end <= 2 and not unit.item and not nxt.item \
                    and code_lines(nxt.attached) <= SHORT_CODE_LINES \
                    and pointed_at(identifier_words(nxt.text), query) - mine \
                    and (not mine or len(unit.sentence) + len(nxt.sentence) < EXTRACTIVE_MAX_SENTENCE_CHARS) \
                    and free(n, nxt):
                unit = replace(nxt, sentence=joined_sentences(unit.sentence, nxt.sentence), line=unit.line)
            elif explains(unit, found[at + 1] if at + 1 < len(found) else None, hit.chunk.text) \
                    and free(n, found[at + 1]):
                unit = replace(found[at + 1], sentence=joined_sentences(unit.sentence, found[at + 1].sentence), line=unit.line)
                then = found[at + 2] if at + 2 < len(found) and not unit.attached else None
                if then is not None and _tells_what_to_do(then.sentence) and explains(unit, then, hit.chunk.text) \
                        and free(n, then):
                    unit = replace(then, sentence=joined_sentences(unit.sentence, then.sentence), line=unit.line)
            elif shows_how(unit, found[at + 1] if at + 1 < len(found) else None, query) and free(n, found[at + 1]):
                unit = replace(found[at + 1], sentence=joined_sentences(unit.sentence, found[at + 1].sentence), line=unit.line)
        lead = _lead_of(found, at, own, hit.chunk.text) if at is not None else None
        if lead is not None and (n, lead.line, lead.sentence) not in quoted and not _shown(n, lead, [*picked, *out]):
            out.append((n, lead))
            quoted.add((n, lead.line, lead.sentence))
        out.append((n, unit))
        after = _after_block(found, at, own, query, hit.chunk.text) if at is not None else None
        if after is not None and (n, after.line, after.sentence) not in quoted and not _shown(n, after, [*picked, *out]):
            out.append((n, after))
            quoted.add((n, after.line, after.sentence))
    return out


def _shown(n: int, unit: Unit, passages: list[tuple[int, Unit]]) -> bool:
    """Whether one of `passages` of source `n` already shows `unit`: its lines lie within that passage's sentence
    lines (a passage read with the sentence after it, `read_with_neighbours`, spans both) or within the block it
    carries, or `unit` carries that passage (`quotes`)."""
    return any(k == n and ((m.line <= unit.line and unit.end <= m.end) or quotes(m, unit) or quotes(unit, m))
               for k, m in passages)


def _leads_first(picked: list[tuple[int, Unit]], hits: dict[int, Hit], files: FileFilters | None = None
                 ) -> list[tuple[int, Unit]]:
    """`picked` with a continuation's ":" lead (`_lead_of`) that is picked after it moved right before it: a sentence
    running on across a block reads in its order ("If you put the following configuration in your pyproject.toml:",
    its block, then "then you can implement ..."), also when the lead was picked on its own merit (a short lead-in
    read with its block, `lead_ins.lead_in_text`); and a continuation or alternative picked later than its lead
    moved right after it ("Add these settings to your configuration file or command line:", its block, then "Or
    via command line:" and its block, not another passage between)."""
    out = list(picked)
    for n, unit in picked:
        hit = hits.get(n)
        if hit is None or unit.line < 0:
            continue
        found = chunk_units(hit.chunk, files=files)
        at = next((i for i, u in enumerate(found) if u.line == unit.line and u.sentence == unit.sentence), None)
        lead = _lead_of(found, at, unit, hit.chunk.text) if at is not None else None
        if lead is None:
            continue
        i = out.index((n, unit))
        j = next((j for j, (k, m) in enumerate(out) if k == n and m.line == lead.line and m.sentence == lead.sentence),
                 None)
        if j is not None and j > i:
            out.insert(i, out.pop(j))
        elif j is not None and j < i - 1:
            out.insert(j + 1, out.pop(i))
    return out


def joined_sentences(first: str, second: str) -> str:
    """Two sentences of one passage read as one: `second` after `first`, without the label of its section's
    heading when `first` names it already, as `labels.labelled` leaves a sentence naming it unlabelled
    ("`--line-ranges`: ... not supported. This option cannot be specified ...", not "... not supported.
    `--line-ranges`: This option ...")."""
    label = _LABEL.match(second)
    if label and all(m.group(0).strip("`") in first for m in CODE_SPAN.finditer(label.group(0))):
        second = second[label.end():]
    return f"{first} {second}"


_LABEL = re.compile(r"^`[^`\n]+`(?:, `[^`\n]+`)*: ")  # a heading's label before a sentence (`labels.labelled`)


def explains(unit: Unit, nxt: Unit | None, text: str = "") -> bool:
    """Whether `nxt`, the passage right after `unit` in its chunk, is read with it (`read_with_neighbours`): a sentence of the
    same paragraph (no blank line between) that refers back to it and says what `unit` leaves out —
    - a short one (at most NEXT_REFERENCE_WORDS words) opening with a back-reference (`_BACK_REFERENCE`: "This
      happens when returning to the top of a loop." after "A branch can go backwards in a file, so you might see a
      branch from a later line to an earlier line, like `55->50`."): it says why or what for, which the question
      often asks, in words it shares with neither (measured: bench/history/sessions-42-43.md, "Extractive answers: Key misses
      of coverage.py and Poetry classified");
    - or one that refers back in its first REFERENCE_HEAD_WORDS words (`_BACK_REFERENCE`, or "this", "these",
      "those", "such" anywhere there: `_REFERS_BACK`) and names an identifier `unit` does not name (`IDENTIFIER`),
      with the block it introduces: documentation states a need or a problem, then the means in the next sentence
      — "... SQL scripts must be handed off to DBAs." / "Alembic makes this easy via the `--sql` option ...";
      "... annotations refer to symbols not defined when the model class is being created." / "To circumvent this
      issue, the `model_rebuild()` method can be used:"; "To prune old migration files, simply delete the files." /
      "Then, in the earliest, still-remaining migration file, set `down_revision` to `None`:" — and the question,
      asked in the words of the need, shares none with the means (measured: bench/history/sessions-42-43.md, "The means named
      after the need");
    - or one of the same paragraph that tells the reader what to do (`_REMEDY`: an imperative opens it, alone or
      after "To <goal>" / "In order to <goal>", "In this case", or after "you can", "you should", ...) and names an identifier `unit` does not: a statement of what happens, then the remedy —
      "999 is a custom response status code used by some sites to throttle requests." / "Try slowing down the
      crawling speed by using a download delay ... with the `DOWNLOAD_SLOTS` setting:" (measured: bench/history/sessions-44-45.md,
      "The remedy after the statement");
    - or one that refers back by the purpose or the problem anywhere in its words (`_FOR_THIS`: "You may find a
      need to check if a repository is already initialized ..." / "The command `cat config` may be used for this
      purpose:") and names an identifier `unit` does not.
    The identifier may be named in the block the next sentence introduces rather than in its words (`_names_more`:
    "To work around this, you can set the HOME environment variable yourself, to a writable directory, for
    example:" and `export HOME=/tmp/home`; bench/history/session-63.md).
    The next sentence may open the next paragraph when only lines the built page does not show stand between
    (`_NOT_SHOWN` in the chunk `text`: a reST directive or target, ".. setting:: IMAGES_THUMBS"; a MyST target)
    and it refers back: "The Images Pipeline can automatically create thumbnails of the downloaded images." /
    ".. setting:: IMAGES_THUMBS" / "In order to use this feature, you must set `IMAGES_THUMBS` to a dictionary ...";
    across a blank line alone only when it tells what to do about what `unit` says and refers back in its first
    words (`_REMEDY` and `_REFERS_BACK`: "... It won't be possible to bind these keys." / "In order to disable
    this, execute the following command in your shell ..." and its `stty -ixon`; "You can also set this option
    with the `NOX_DEFAULT_VENV_BACKEND` environment variable."; bench/history/session-65.md, "Key misses classified").
    Never a list item or table row, a `unit` carrying a block, or a pair longer than EXTRACTIVE_MAX_SENTENCE_CHARS
    or FOCUS_SENTENCE_LINES lines, those hidden lines aside (the citation of a passage covers its first lines
    only)."""
    if nxt is None or unit.item or nxt.item or unit.attached \
            or len(unit.sentence) + len(nxt.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS:
        return False
    gap = text.split("\n")[unit.end + 1:nxt.line] if nxt.line > unit.end + 1 else []
    own = _LABEL.sub("", nxt.sentence, count=1)  # its words, without its heading's label
    if gap and not (text and all(not x.strip() or _NOT_SHOWN.match(x) for x in gap) and any(x.strip() for x in gap)) \
            and not (text and all(not x.strip() for x in gap) and _REMEDY.match(own)
                     and _REFERS_BACK.search(" ".join(own.split()[:REFERENCE_HEAD_WORDS]))):
        # the next paragraph only across a directive or target line, which the built page does not show, or when
        # it opens by telling what to do about this ("In order to disable this, execute the following command ...")
        return False
    if nxt.end - unit.line - len(gap) >= FOCUS_SENTENCE_LINES:
        return False
    if not gap and not nxt.attached and len(own.split()) <= NEXT_REFERENCE_WORDS and _BACK_REFERENCE.match(own):
        return True
    if not (_BACK_REFERENCE.match(own) or _REFERS_BACK.search(" ".join(own.split()[:REFERENCE_HEAD_WORDS]))
            or _FOR_THIS.search(own) or (not gap and _REMEDY.match(own))):
        return False
    return _names_more(unit.sentence, nxt, own)


def shows_how(unit: Unit, nxt: Unit | None, query: set[str] | frozenset[str]) -> bool:
    """Whether `nxt`, the passage right after `unit` in its chunk, is the last sentence of `unit`'s paragraph
    introducing the code block right under that paragraph (it ends in ":" and carries the block `unit` holds as its
    `Unit.code_after`, at most LEAD_CODE_LINES lines, no program's output) that `unit` would not show itself
    (`with_code_after`): "The `serve` hostname defaults to `localhost`, and the port defaults to `3000`." /
    "Either option can be specified on the command line:" / `mdbook serve path/to/book -p 8000 -n 127.0.0.1`;
    "With a few small additions to your noxfile, you can support running using only a generalized Python runner
    ..." / "You need to have the following comment in your noxfile:" / `# /// script`. The paragraph says what
    can be done, its last sentence announces how, and the block is the how; quoted alone, the first sentence leaves
    out the line the user needs (bench/history/session-65.md, "Key misses classified"). Never a list item, a
    `unit` carrying a block, or a pair longer than EXTRACTIVE_MAX_SENTENCE_CHARS."""
    if nxt is None or unit.item or nxt.item or unit.attached or not unit.code_after or nxt.output \
            or nxt.attached != unit.code_after or not nxt.sentence.endswith(":") \
            or code_lines(nxt.attached) > LEAD_CODE_LINES \
            or len(unit.sentence) + len(nxt.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS:
        return False
    return not with_code_after(unit, query, LEAD_CODE_LINES).attached


def _tells_what_to_do(sentence: str) -> bool:
    """Whether `sentence` tells the reader what to do: an imperative opens it, alone or after "To <goal>" /
    "Instead," / "In this case" or after "you can" ... (`_REMEDY`), or it names the purpose or problem of the
    sentence before it (`_FOR_THIS`: "The command `cat config` may be used for this purpose:")."""
    return bool(_REMEDY.match(sentence) or _FOR_THIS.search(sentence))


def _names_more(before: str, nxt: Unit, own: str) -> bool:
    """Whether `own` (the words of passage `nxt`) or the code or list `nxt` introduces (`Unit.attached`, not a
    program's output) names an identifier (`IDENTIFIER`) the text `before` does not: the means of a remedy is as
    often in its block as in its words ("To work around this, you can set the HOME environment variable yourself,
    to a writable directory, for example:" and `export HOME=/tmp/home`)."""
    mine = {m.group(0) for m in IDENTIFIER.finditer(before)}
    named = own if nxt.output or not nxt.attached else f"{own}\n{nxt.attached}"
    return any(m.group(0) not in mine for m in IDENTIFIER.finditer(named))


# A sentence referring back to the one before it by its purpose or its problem anywhere in its words ("The command
# `cat config` may be used for this purpose:", "On macOS the easiest fix for this is ...", "To avoid this issue ...").
_FOR_THIS = re.compile(r"\b(?:(?:this|that)\s+(?:purpose|issue|problem|situation)|(?:solution|workaround|fix)\s+"
                       r"(?:is|for\s+(?:this|that)))\b", re.IGNORECASE)
# A demonstrative among a sentence's first words refers back to the sentence before it ("Alembic makes this easy via
# ...", "To circumvent this issue, ...", "Using the X hook, this is straightforward"); "that" is left out: it is as
# often a conjunction ("Note that ...").
_REFERS_BACK = re.compile(r"\b(?:this|these|those|such)\b", re.IGNORECASE)
# A sentence telling the reader what to do ("Try slowing down the crawling speed by using a download delay ... with
# the `DOWNLOAD_SLOTS` setting:" after "999 is a custom response status code used by some sites to throttle
# requests."): an imperative opens it, alone or after "To <goal>," / "In order to <goal>," / "Instead," /
# "Alternatively,", or any verb but
# one of perceiving after "you can" / "we can" / "you should" ... ("You can reload the config file by issuing the
# `:config-reload` command.", Helix; not "You can see ..."; bench/history/session-64.md): "To prevent devs from using other package managers, you can add the
# following `preinstall` script to your `package.json`:" after "... you don't want others to accidentally run `npm
# install` or `yarn`." (pnpm's only-allow page; bench/history/session-60.md). An operating system may come first: "On
# Linux you can use `systemd-inhibit` to avoid that." after "... your machine should not go to sleep." (Borg's FAQ).
_REMEDY = re.compile(r"^(?:(?:(?:In order to|To) [^,]{3,60}|Instead|Alternatively|If so|In (?:that|this) case|"
                     r"On (?:Linux|macOS|Mac OS X|OS X|Windows|Unix|FreeBSD|BSD|WSL)),?\s+)?"
                     r"(?:(?i:(?:you|we)\s+(?:can|may|should|must|need\s+to)\s+(?:also\s+|simply\s+|just\s+)?)"
                     r"(?!(?i:see|notice|find|observe|expect|imagine|think|get|also|not|only|now|then)\b)[a-z]+\s|"
                     r"(?i:(?:you|we)\s+(?:can|may|should|must|need\s+to)\s+(?:also\s+|simply\s+|just\s+)?)?"
                     r"(?i:try|use|set|pass|add|call|"
                     r"run|execute|type|edit|create|write|export|import|apply|upgrade|update|delete|uninstall|restart|"
                     r"enable|disable|configure|specify|install|include|define|provide|change|increase|decrease|"
                     r"raise|lower|register|override|remove|replace|switch|turn)\s(?!of\b))")
# Lines a built page does not show between two paragraphs: a reST directive or target (".. setting:: IMAGES_THUMBS",
# ".. _label:", ".. index:: ...") or a MyST target "(label)=".
# A sentence announcing the code block after it without ending in ":" ("In the following example, requests are
# proxied with ...", "The example below sets ...").
_ANNOUNCES = re.compile(r"\b(?:the following (?:example|snippet|code|configuration)|(?:example|snippet|code|configuration) below)\b",
                        re.IGNORECASE)
_NOT_SHOWN = re.compile(r"^\s*(?:\.\.\s+\S|\([\w.:-]+\)=\s*$)")


def _after_block(found: list[Unit], at: int, own: Unit, query: set[str] | frozenset[str], text: str = ""
                 ) -> Unit | None:
    """The sentence right after the block that passage `found[at]` (`own`, a ":" sentence) carries, when
    `extractive_picks` quotes it after `own` (`read_with_neighbours`): it opens the paragraph after the block (only a blank
    line between), is not a list item, and names an identifier the question's words point at (`pointed_at`) that
    neither `own` nor its block names. The block shows how, and the sentence after it often names the option that
    does what the question asks: "The easiest way is creating a small `start-myproject.py` file that runs the
    application using the builtin server:", its `run_simple(...)` example, then "You can also pass it the
    `extra_files` keyword argument with a list of additional files (like configuration files) you want to observe."
    for "How do I make run_simple watch that file too?". Or it tells what to do (`_tells_what_to_do`) and names,
    in its words or its own block, an identifier neither `own` nor its block names: "However, for large repositories
    it sometimes takes longer than that to collect a list of all files, causing the following error:", the error,
    then "In this case you can increase the timeout using the `--stuck-request-timeout` option." (only blank lines
    between; bench/history/session-63.md). Or, whatever it names, the paragraph after the block
    continues the sentence `own` opens (`continues`, up to CONTINUATION_GAP lines after the block) and carries no
    program's output nor a block longer than LEAD_CODE_LINES: "Let's assume we have the following SDL file:", the
    schema, "by running the following command:" and `strawberry schema-codegen schema.graphql`. Quoted as a passage
    of its own (its own citation lines). None otherwise."""
    if not own.attached or own.block_end <= own.end:
        return None
    nxt = next((u for u in found[at + 1:] if u.line > own.block_end), None)
    if nxt is None or nxt.item or nxt.line - own.block_end > CONTINUATION_GAP:
        return None
    if continues(nxt, text) and not nxt.output and code_lines(nxt.attached) <= LEAD_CODE_LINES:
        return nxt  # the rest of the sentence `own` opens, across its block; a long block of its own is another example
    if nxt.line - own.block_end > 2:
        return None
    if not any(x.strip() for x in text.split("\n")[own.block_end + 1:nxt.line]) and _tells_what_to_do(nxt.sentence) \
            and _names_more(f"{own.sentence}\n{own.attached}", nxt, nxt.sentence):
        return nxt  # what to do about what the sentence and its block show ("In this case you can increase ...")
    mine = pointed_at(identifier_words(own.text), query)
    return nxt if pointed_at(identifier_words(nxt.sentence), query) - mine else None


LEAD_CODE_LINES = 8  # a continuation's block, or the block of the ":" passage it continues, is shown up to this long


def continues(unit: Unit, text: str = "") -> bool:
    """Whether passage `unit` continues a sentence across the code block before it: it opens in lower case ("by
    running the following command:", "then you can implement a thin wrapper ...", "which would be equivalent to:")
    with a word the chunk `text` never writes as code (`uv`, `brotli`: a name opening a sentence of its own) and
    no enumerator ("b. At some point ..."), and is no list item."""
    if not unit.sentence[:1].islower() or unit.item or _ENUMERATOR.match(unit.sentence):
        return False
    first = unit.sentence.split()[0].rstrip(",;:")
    return not any(m.group(0).strip("`").split()[:1] == [first] for m in CODE_SPAN.finditer(text))


def alternative(unit: Unit) -> bool:
    """Whether passage `unit` offers another way of doing what the passage before it shows and says no more than
    where its own block is: it opens with "Or" (`_OR`: "Or in a configuration file:", "Or, install the latest
    nightly version:", "Or use `GUNICORN_CMD_ARGS`:"), introduces a block (`Unit.attached`) and is no list item
    (an item "Or ..." is one choice of its list). Not a sentence that says what its example does ("Or this
    example, which uses a custom transport and `httpx.Mounts` to always redirect `http://` requests.", httpx: the
    example before it, a transport returning "Hello, world!", answered nothing the question asked)."""
    return not unit.item and bool(unit.attached) and bool(_OR.match(_LABEL.sub("", unit.sentence, count=1)))


_OR = re.compile(r"^Or\b(?!\s+not\b)")  # "Or via command line:", "Or, ..." (not "Or not ...")
_ENUMERATOR = re.compile(r"^[a-z][.)]\s")  # "a. If it was in the experimental module ...", "b) ..."
CONTINUATION_GAP = 3  # lines from a block's last line to the paragraph continuing its sentence (reST: two blank)


def _lead_of(found: list[Unit], at: int, own: Unit, text: str = "") -> Unit | None:
    """The ":" passage right before passage `found[at]` (`own`) when `own` continues its sentence across the block
    it introduces (`continues`; only blank lines between), the block being no program's output and at most
    LEAD_CODE_LINES lines: "If you put the following configuration in your ``pyproject.toml``:" /
    `backend-path = ["_custom_build"]` / "then you can implement a thin wrapper around ``build_meta`` ...". Quoted
    alone, the continuation leaves out the half of the sentence, and the code, that its lead shows; quoted before
    `own` as a passage of its own (`read_with_neighbours`). Likewise when `own` is the other way of doing what that
    passage and its block show (`alternative`: "Set the worker class to `asgi`:" / `gunicorn myapp:app
    --worker-class asgi` / "Or in a configuration file:" / `worker_class = "asgi"`): quoted alone, "Or in a
    configuration file:" answers with the second way and leaves out the first, which the question's words rarely
    tell apart (bench/history/session-64.md). None otherwise."""
    if at <= 0 or not (continues(own, text) or alternative(own)):
        return None
    prev = found[at - 1]
    if prev.item or prev.output or not prev.attached or prev.block_end <= prev.end \
            or not 0 < own.line - prev.block_end <= CONTINUATION_GAP \
            or code_lines(prev.attached) > LEAD_CODE_LINES:
        return None
    return prev


# A sentence opening with a word that refers back to the sentence before it: a connective ("So", "Thus",
# "However", "To do this,") or a pronoun or demonstrative subject ("It", "This", "These", "They").
_BACK_REFERENCE = re.compile(r"^(?:So|Thus|Therefore|Hence|However|Otherwise|Instead|Also|Then|It|Its|This|That|These|"
                             r"Those|They|Their|Such|To do (?:this|so|that)|In (?:this|that|which|such a) case|"
                             r"As a result|For (?:this|that) reason)\b")


def refers_back(sentence: str) -> bool:
    """Whether `sentence` (its heading's label aside) opens with a connective or a pronoun that refers back to what
    came before it (`_BACK_REFERENCE`: "So ...", "It would be updated to:", "Then run:")."""
    return bool(_BACK_REFERENCE.match(_LABEL.sub("", sentence, count=1)))


def antecedent(prev: Unit, unit: Unit) -> bool:
    """Whether passage `unit` is read with `prev`, the passage right before it in its chunk (the same paragraph, or
    the one before with only a blank line between): `unit` refers back to it — it opens with a connective or a
    pronoun (`_BACK_REFERENCE`: "So if you're making several requests to the same host, the underlying TCP
    connection will be reused" after "It also persists cookies ... made from the Session instance") — or it
    speaks in words of an identifier `prev` names and names none itself ("A background task should be attached to
    a response" after "Starlette includes a `BackgroundTask` class": every word of the name, at least two, in
    `unit`). A sentence quoted without what it refers to answers less than it says (the antecedent problem of
    extractive summaries); shown as one passage, display only (the scores are the picked sentence's own).
    Never list items, table rows or fields (`Unit.item`), a `prev` carrying a block, or a pair longer than
    EXTRACTIVE_MAX_SENTENCE_CHARS or than FOCUS_SENTENCE_LINES lines (`focus_lines` cites a passage from its first
    line on: a longer pair's citation would stop before the picked sentence)."""

    if unit.item or prev.item or prev.attached or unit.line - prev.end > 2 \
            or len(prev.sentence) + len(unit.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS \
            or unit.end - prev.line >= FOCUS_SENTENCE_LINES:
        return False
    if _BACK_REFERENCE.match(_LABEL.sub("", unit.sentence, count=1)):  # its words, without its heading's label
        return True
    if identifier_words(unit.sentence):
        return False
    words = passage_words(unit.sentence)
    return any(len(named := identifier_words(m.group(0))) >= 2 and named <= words
               for m in IDENTIFIER.finditer(prev.sentence))


# A sentence that sends the reader elsewhere: "See `kitty --help` for details.", "Please see borg_compression for all
# options.", "Refer to the changelog.", "For more information, see ..."
POINTER = re.compile(r"^(?:(?:Please,?\s+)?(?:see|refer to|consult|check out)\b|for (?:more|further|additional|full|all|the full)"
                     r"\b[^.]*?\bsee\b)", re.IGNORECASE)


def names_before(prev: Unit, unit: Unit, query: set[str] | frozenset[str], text: str) -> bool:
    """Whether `prev`, the sentence right before passage `unit` in the same paragraph of chunk text `text` (it ends
    on `unit`'s first line or the line before it, no blank line between), is read with `unit`
    (`read_with_neighbours`): it names an identifier the question's words `query` point at (`pointed_at`) that
    `unit` does not name, and it is no pointer elsewhere (`POINTER`: "See `kitty --help` for details."). A page often names the setting in one sentence and says what it does in the next, in the
    question's words: "You can configure the set of private commits by setting `git.private-commits` to a revset."
    / "The value is a revset of commits that Jujutsu will refuse to push." — the second quoted alone answers "how do
    I make jj refuse to push ..." without the name to set. The mirror of the next sentence naming such an
    identifier (`read_with_neighbours`). Never list items, table rows or fields (`Unit.item`), a `prev` carrying a
    block, a pair of EXTRACTIVE_MAX_SENTENCE_CHARS characters or more or of FOCUS_SENTENCE_LINES lines or more (as
    `antecedent`)."""
    if unit.item or prev.item or prev.attached or POINTER.match(_LABEL.sub("", prev.sentence, count=1)) \
            or len(prev.sentence) + len(unit.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS \
            or unit.end - prev.line >= FOCUS_SENTENCE_LINES:
        return False
    lines = text.split("\n")
    if not (unit.line == prev.end or (unit.line == prev.end + 1 < len(lines) and lines[prev.end].strip()
                                      and lines[unit.line].strip())):
        return False
    return bool(pointed_at(identifier_words(prev.sentence), query) - pointed_at(identifier_words(unit.scored_text), query))


# A reference entry's field ("**Command line:** `--reload`", "**Environment Variable**: `POETRY_CACHE_DIR`"): a bold
# name ending in ":" (inside or outside the bold) and its value of at most six words up to the next field — not a
# bold lead-in of prose ("**Important**: while it is possible to pipe a command output to restic using `--stdin`,
# doing so is discouraged ...")
_FIELD = (r"\*\*(?!(?:Note|Important|Warning|Tip|Caution|Hint|Example|See also)\b)[A-Z][^*\n:]{0,40}(?::\*\*|\*\*:)"
          r"(?:\s+[^*\s]+){1,6}\s*")  # nor an admonition's "**Note:** requires `gevent`."
_FIELDS = re.compile(rf"^(?:{_FIELD})+$")


def describes(fields: Unit, unit: Unit) -> bool:
    """Whether passage `unit` is the description that the reference entry's fields `fields` (the passage right
    before it, only a blank line between) come with: `fields` is only bold-named fields with short values
    (`_FIELDS`: "**Command line:** `--reload` **Default:** `False`", after its heading's label; not a sentence:
    "**Answer**: Yes, use `@send_task`.", "**MSRV:** 1.77 is required for `cargo::metadata=KEY=VALUE`.") naming, in
    code, an identifier `unit` does not name, and neither is a list item or carries a block. A settings reference writes an entry as its name
    (the heading), its fields, then what it does ("### `reload`" / "**Command line:** `--reload`" / "**Default:**
    `False`" / "Restart workers when code changes."); quoted alone, the description names the setting by its
    heading, never by the option or variable the user types. Shown as one passage, display only, as `antecedent`;
    never longer than EXTRACTIVE_MAX_SENTENCE_CHARS or FOCUS_SENTENCE_LINES lines."""
    if unit.item or fields.item or fields.attached or unit.line - fields.end > 2 \
            or len(fields.sentence) + len(unit.sentence) >= EXTRACTIVE_MAX_SENTENCE_CHARS \
            or unit.end - fields.line >= FOCUS_SENTENCE_LINES:
        return False
    own = _LABEL.sub("", fields.sentence, count=1).strip()
    if not _FIELDS.match(own) or own.endswith((".", "!", "?")):  # a sentence: "**Answer**: Yes, use `@send_task`."
        return False
    mine = {m.group(0) for m in CODE_SPAN.finditer(unit.sentence)}
    return any(m.group(0) not in mine for m in CODE_SPAN.finditer(own))


def _with_fields(fields: str, sentence: str) -> str:
    """The description `sentence` read after its entry's `fields` (`describes`), led by the heading's label one of
    them has (`labels.labelled`'s "`reload`: "), the fields ending as a sentence does: "`reload`: **Command
    line:** `--reload` **Default:** `False`. Restart workers when code changes."."""
    label = _LABEL.match(sentence) or _LABEL.match(fields)
    own_fields = _LABEL.sub("", fields, count=1).rstrip()
    own = _LABEL.sub("", sentence, count=1)
    end = "" if own_fields.endswith((".", "!", "?")) else "."
    return f"{label.group(0) if label else ''}{own_fields}{end} {own}"


def code_lines(block: str) -> int:
    """The lines of `block` (a list or code block as `Unit.attached` shows it) that are not blank or fences."""
    return sum(1 for x in block.split("\n") if x.strip() and not x.startswith(("```", "~~~")))


def quotes(a: Unit, b: Unit) -> bool:
    """Whether passage `a` already shows passage `b` (both of one chunk): `b`'s lines lie within the list or code
    block `a` carries ("Black will exit with:" and its list, then one of its items) — no text twice in an answer."""
    return a.block_end > a.end and a.end < b.line and b.end <= a.block_end


def with_code_after(unit: Unit, query: set[str] | frozenset[str], example_lines: int = 0) -> Unit:
    """`unit` showing the code block right after its sentence (`Unit.code_after`) when that code names an
    identifier pointing at a word of the question (`pointed_at`) that the sentence itself does not name: "it
    might improve performance to increase this number" answers "how do I raise the number of pools?" with
    `urllib3.PoolManager(num_pools=50)` under it. Code of at most SHORT_CODE_LINES lines naming such an
    identifier comes with it even when the sentence names it too: "configure git to ignore revisions listed in a
    file on every call to `git blame`" answers with its one `git config blame.ignoreRevsFile ...` line. Any
    sentence of the paragraph above the block can show it (`Unit.code_after`); one that is not the paragraph's
    last only code that short (the block right after a sentence illustrates that sentence; a long one under an
    earlier sentence is often about the rest of the paragraph: the 28-line test module under "When valid data is
    sent in a POST request, create should insert ..."). With `example_lines` (an answer's passages:
    EXAMPLE_LINES; the focus passes none), a block of at most that many lines right after the paragraph's last
    sentence comes with it whatever it names: the short example under a sentence shows how to do what the sentence
    says, and its name is often one the question's own words never point at — "How do I lock a view so that only
    signed-in users can open it?" is answered by `@requires('authenticated')` under "Alternatively you might want to
    redirect unauthenticated users to a different page." (measured: bench/history/sessions-38-39.md, "Short examples under an
    answering sentence"); with `example_lines`, a block of any length when the sentence announces it (`_ANNOUNCES`:
    "In the following example, requests are proxied with ... and responses are stripped of their
    `X-Custom-Response-Header` header." over the YAML setting `customResponseHeaders`; bench/history/session-60.md).
    Never a program's output (`Unit.output`). Otherwise `unit` as it is."""
    if not unit.code_after or unit.attached or unit.output:  # a program's output is not what to do
        return unit
    code = pointed_at(identifier_words(unit.code_after), query)
    own = set(content_words(unit.sentence)) | pointed_at(identifier_words(unit.sentence), query)
    short = code_lines(unit.code_after)
    # right after the paragraph's last sentence: a short one, or one the sentence announces ("In the following example, ...")
    example = unit.code_scored and (short <= example_lines or bool(example_lines and _ANNOUNCES.search(unit.sentence)))
    if not example and not (code and short <= SHORT_CODE_LINES) and (not code - own or not unit.code_scored):
        return unit
    return replace(unit, attached=unit.code_after, block_end=unit.code_end, code_after="")
