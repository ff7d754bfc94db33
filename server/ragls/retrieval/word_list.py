"""pyspellchecker's English word list as a set of words, kept on disk once read.

`spelling_words()`: the lower-case alphabetic words of `SpellChecker(language="en")` (160,572 entries: words and
inflections counted in a large corpus of English text), for `english.lexicon`. Loading the list (gzip, JSON and the
checker's own set-up) costs ~0.3-0.4 CPU-s in every process that needs it — a server's or CLI's first question with
a lower-case word BERT's WordPiece vocabulary lacks. The words are written once beside the derived model files
(`index.paths.models_root`, `english-words-<digest>.txt`, the digest of the list's own file, so another
pyspellchecker release gets its own copy) and read back in ~0.03 CPU-s. In memory the words are a `SortedWords`
(their sorted text and the offsets of its lines, ~1.7 MB; as a frozenset of str they took ~12 MB of the server's).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import itertools
from array import array
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path

from ragls.core.atomic import atomic_target
from ragls.index.paths import models_root


def _list_file() -> Path | None:
    """pyspellchecker's English list (`spellchecker/resources/en.json.gz`), found without importing the package;
    None when it is not installed or keeps its list elsewhere."""
    try:
        spec = importlib.util.find_spec("spellchecker")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "resources" / "en.json.gz"
        if path.is_file():
            return path
    return None


def _load() -> frozenset[str]:
    """The list's lower-case alphabetic words as pyspellchecker reads them; empty when it cannot be read."""
    try:
        from spellchecker import SpellChecker

        words = SpellChecker(language="en").word_frequency.dictionary
    except (ImportError, OSError, ValueError, TypeError):
        return frozenset()
    return frozenset(w for w in words if w.isalpha() and w.islower())


class SortedWords(AbstractSet):
    """A large read-only set of words held in about the memory of their text: the words sorted (code point order,
    which is UTF-8's byte order), one per line, in one bytes object, and the offsets of the lines (`array("I")`).
    `word in words` is a binary search over the lines (~17 slices for 128,000 words, a few microseconds); iterating
    decodes the lines. 128,000 English words take ~1.7 MB, against ~12 MB as a frozenset of str. Compares equal to
    a set with the same words (`collections.abc.Set`)."""

    def __init__(self, text: bytes):
        """`text`: distinct words joined by newlines, sorted (as `of` writes them); b"" for no words."""
        self._text = text
        # line i is text[starts[i]:starts[i + 1] - 1]; the last line ends where a newline after the text would be.
        # Plain Python (~10 ms for 128,000 words), not numpy: the first BM25 answer imports none of the vector stack
        # (tests/integration/test_mcp_start.py)
        lengths = (len(line) + 1 for line in text.split(b"\n")) if text else ()
        self._starts = array("I", itertools.accumulate(lengths, initial=0))

    @classmethod
    def of(cls, words: Iterable[str]) -> SortedWords:
        """The distinct `words` (none may hold a newline)."""
        return cls("\n".join(sorted(set(words))).encode("utf-8"))

    @property
    def text(self) -> bytes:
        """The sorted words, one per line, as `__init__` takes them."""
        return self._text

    def _line(self, i: int) -> bytes:
        return self._text[self._starts[i]:self._starts[i + 1] - 1]

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        try:
            key = word.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: in no list
            return False
        text, starts = self._text, self._starts
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if text[starts[mid]:starts[mid + 1] - 1] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo < len(starts) - 1 and text[starts[lo]:starts[lo + 1] - 1] == key

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __iter__(self) -> Iterator[str]:
        return (self._line(i).decode("utf-8") for i in range(len(self)))

    __hash__ = AbstractSet._hash


def spelling_words() -> SortedWords:
    """The lower-case alphabetic words of pyspellchecker's English list: from the kept copy when there is one, else
    loaded (`_load`) and kept (one word per line, sorted, written atomically). Empty when pyspellchecker is missing
    or its list unreadable. A copy that cannot be read or written (a read-only or full disk) only costs the load."""
    source = _list_file()
    kept = None
    if source is not None:
        with contextlib.suppress(OSError):
            kept = models_root() / f"english-words-{hashlib.sha256(source.read_bytes()).hexdigest()[:16]}.txt"
            return SortedWords(kept.read_bytes())  # written sorted by `SortedWords.of` (below)
    words = SortedWords.of(_load())
    if kept is not None and words:
        with contextlib.suppress(OSError):
            kept.parent.mkdir(parents=True, exist_ok=True)
            with atomic_target(kept) as tmp:
                tmp.write_bytes(words.text)
    return words
