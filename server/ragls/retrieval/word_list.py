"""pyspellchecker's English word list as a set of words, kept on disk once read.

`spelling_words()`: the lower-case alphabetic words of `SpellChecker(language="en")` (160,572 entries: words and
inflections counted in a large corpus of English text), for `english.lexicon`. Loading the list (gzip, JSON and the
checker's own set-up) costs ~0.3-0.4 CPU-s in every process that needs it — a server's or CLI's first question with
a lower-case word BERT's WordPiece vocabulary lacks. The words are written once beside the derived model files
(`index.paths.models_root`, `english-words-<digest>.txt`, the digest of the list's own file, so another
pyspellchecker release gets its own copy) and read back in ~0.03 CPU-s.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
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


def spelling_words() -> frozenset[str]:
    """The lower-case alphabetic words of pyspellchecker's English list: from the kept copy when there is one, else
    loaded (`_load`) and kept (one word per line, written atomically). Empty when pyspellchecker is missing or its
    list unreadable. A copy that cannot be read or written (a read-only or full disk) only costs the load."""
    source = _list_file()
    kept = None
    if source is not None:
        with contextlib.suppress(OSError):
            kept = models_root() / f"english-words-{hashlib.sha256(source.read_bytes()).hexdigest()[:16]}.txt"
            return frozenset(kept.read_text(encoding="utf-8").split("\n"))
    words = _load()
    if kept is not None and words:
        with contextlib.suppress(OSError):
            kept.parent.mkdir(parents=True, exist_ok=True)
            with atomic_target(kept) as tmp:
                tmp.write_text("\n".join(sorted(words)), encoding="utf-8")
    return words
