"""Embedding windows: every line of a chunk reaches the vector signal.

A 2,000-character chunk is about 450 wordpieces, but all-MiniLM-L6-v2 embeds at most 256: embedded whole, the
second half of the chunk is invisible to vector search. A chunk is therefore embedded as overlapping windows of
`window` wordpieces (default the model's max length) starting every `stride` wordpieces (default half a window),
which together cover all of it; each window's embedding input is the chunk's heading path, a blank line, then
the window's text, and the heading plus the window fit the model (nothing is truncated). A chunk scores by its
best window (max over its windows, `stores/vectors.py`), and that window's lines are the hit's `focusRange`.

Measured in issue 12 on 2,000-character chunks: 256/128 windows lifted hybrid MRR@10 from 0.558 to 0.696 for
3.5x the wordpieces embedded; stride = window (a partition) costs about 2.1x for half the gain.

Window 0 of a chunk that fits in one window is exactly the chunk's old embedding input (`embedding_input`), so
its cached vector is reused. The first vector pass of the indexer embeds window 0 of every chunk (today's cost);
the other windows follow in the background.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragls.core.ir import Chunk
from ragls.index.headings import strip_heading_ids
from ragls.index.lines import LineIndex

SPECIAL_TOKENS = 2  # [CLS] and [SEP] (BERT-style models); a small safety margin for other tokenizers too
MIN_BODY_TOKENS = 16
MIN_TAIL = 0.25  # the last window holds at least a quarter of a window's text (see `tail_starts`)


@dataclass(frozen=True)
class Window:
    """One embedding window of a chunk.

    `index` is 0-based within the chunk, `count` the chunk's number of windows; `start_line`/`end_line` are the
    file lines (0-based, inclusive) the window's text spans; `text` is the embedding input (heading path + text).
    """

    chunk_id: str
    index: int
    count: int
    start_line: int
    end_line: int
    text: str


def embedding_input(chunk: Chunk) -> str:
    """The whole chunk as one embedding input: the heading path, a blank line, then the chunk text (titles help
    short chunks); the title is left out when the chunk starts with its heading line. Heading ids `{ #x }` are
    removed. Window 0 of a chunk that fits in one window equals this text. A contextual chunk's `context`
    (index/contextual.py) comes first, then a blank line."""
    text = strip_heading_ids(chunk.text)
    title = strip_heading_ids(chunk.title)
    if title and not text.lstrip().startswith("#"):
        text = f"{title}\n\n{text}"
    return f"{chunk.context}\n\n{text}" if chunk.context else text


def resolve(window: int | None, stride: int | None, model_max_length: int) -> tuple[int, int]:
    """Effective (window, stride) in wordpieces: `window` defaults to, and is capped at, the model's max length
    (a longer window would be truncated); `stride` defaults to half the window and is capped at the window."""
    w = min(window or model_max_length, model_max_length)
    s = min(stride or max(1, w // 2), w)
    return w, s


CHARS_PER_WORDPIECE = 4.4  # English prose and code: a 2,000-character chunk is about 450 wordpieces (module docstring)


def windows_per_chunk(chunk_chars: int, model_max_length: int) -> int:
    """Embedding windows of a full `chunk_chars`-character chunk at the default window and stride (`resolve`): 1
    when its ~chunk_chars / CHARS_PER_WORDPIECE wordpieces fit one window, else one more per stride past the first
    window (3 for 2,000 characters at 256 wordpieces; 1 at 512). For time estimates, before any text is read."""
    window, stride = resolve(None, None, model_max_length)
    body = max(1, window - SPECIAL_TOKENS)
    wordpieces = chunk_chars / CHARS_PER_WORDPIECE
    return 1 if wordpieces <= body else 1 + -(-int(wordpieces - body) // stride)


def plan_windows(chunk: Chunk, tokenizer, window: int, stride: int) -> list[Window]:
    """The windows of `chunk` for a `tokenizers.Tokenizer` (no truncation), `window` and `stride` in wordpieces.

    Each window's heading prefix + text fits in `window` wordpieces including the special tokens: the text part
    holds `window - 2 - prefix` wordpieces (the prefix is cut to a quarter of the window when longer) and
    successive windows start `stride` x (text part / window) wordpieces apart, the last one holding what remains
    from its own start (`tail_starts`). A chunk that fits in one window gives one window whose text is `embedding_input(chunk)`. Returns at least
    one window (an empty chunk gives its title). A chunk's `context` (contextual retrieval) starts every window,
    before the heading, cut to a quarter of the window too."""
    full = embedding_input(chunk)
    text = strip_heading_ids(chunk.text)
    title = strip_heading_ids(chunk.title)
    lines = LineIndex(chunk.text)
    first, last = chunk.span.start_line, chunk.span.end_line
    offsets = [o for o in tokenizer.encode(text, add_special_tokens=False).offsets if o[1] > o[0]]
    t_offsets = tokenizer.encode(title, add_special_tokens=False).offsets if title else []
    context = chunk.context
    c_offsets = tokenizer.encode(context, add_special_tokens=False).offsets if context else []
    # Wordpieces of `full` = those of the context, the title and the text (the blank lines between add none).
    if len(c_offsets) + len(t_offsets) + len(offsets) + SPECIAL_TOKENS <= window or not offsets:
        return [Window(chunk.id, 0, 1, first, _end_line(chunk, lines), full)]
    prefix = ""
    prefix_tokens = 0
    cap = window // 4
    for part, part_offsets in ((context, c_offsets), (title, t_offsets)):
        if part:
            prefix += (part if len(part_offsets) <= cap else part[:part_offsets[cap - 1][1]]) + "\n\n"
            prefix_tokens += min(len(part_offsets), cap)
    body = max(MIN_BODY_TOKENS, window - SPECIAL_TOKENS - prefix_tokens)
    step = max(1, round(body * stride / window))
    n = len(offsets)
    starts = tail_starts(n, body, step)
    # The text side of the mapping: window text offsets are in `text` (heading ids removed); line numbers come
    # from the chunk text, identical up to each removed id, so map through the same offsets when nothing was
    # removed and otherwise by line count of the prefix before the offset.
    same = text == chunk.text
    windows = []
    count = len(starts)
    for i, s in enumerate(starts):
        e = min(n, s + body)
        a, b = offsets[s][0], offsets[e - 1][1]
        if same:
            l0, l1 = lines.line_of(a), lines.line_of(max(a, b - 1))
        else:
            l0, l1 = text.count("\n", 0, a), text.count("\n", 0, max(a, b - 1))
        windows.append(Window(chunk.id, i, count, min(last, first + l0), min(last, first + l1),
                              prefix + text[a:b]))
    return windows


def tail_starts(n: int, body: int, step: int) -> list[int]:
    """Start offsets (in wordpieces of the chunk text, `n` of them) of windows holding `body` wordpieces each,
    `step` apart: 0, step, 2 x step, ... until a window reaches the end. The last window covers only what remains
    from its own stride step (it may hold fewer than `body` wordpieces), so it is a passage of its own rather
    than a near-copy of the window before it pulled back to end at the chunk's end (on 300-wordpiece abstracts
    that copy repeated 75-80 % of window 0 and let the best-window score gain from noise; bench/history/early-speed-and-operations.md,
    "Window tail"). A remainder shorter than `MIN_TAIL` of a window (possible only when the stride exceeds half
    the window) is too short to embed alone: that window is pulled back to hold `MIN_TAIL` of a window.
    Returns at least [0]; every start is < n when n > 0."""
    starts = [0]
    while starts[-1] + body < n:
        starts.append(starts[-1] + step)
    if len(starts) > 1:
        min_tail = max(1, int(body * MIN_TAIL))
        if n - starts[-1] < min_tail:
            starts[-1] = max(starts[-2] + 1, n - min_tail)
    return starts


def _end_line(chunk: Chunk, lines: LineIndex) -> int:
    """Last line (inclusive) holding text of the chunk (a chunk ending at column 0 ends on the line before)."""
    if chunk.span.end_char == 0 and chunk.span.end_line > chunk.span.start_line:
        return chunk.span.end_line - 1
    return chunk.span.end_line
