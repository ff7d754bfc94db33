"""The English words the bundled model's tokenizer knows whole (`wordpiece_words`): a general dictionary for telling
a name (gevent, autobuild, cors) from an English word (source, only), read by the abstention's name test
(retrieval/names.py) and by the answer's reading of link texts (answer/inline.py)."""

from __future__ import annotations

import functools
import json

from ragls.embedding.model_source import BUNDLED_TOKENIZER_DIR

__all__ = ["wordpiece_words"]


@functools.cache
def wordpiece_words() -> frozenset[str]:
    """The whole words of BERT's uncased WordPiece vocabulary (the tokenizer of the bundled all-MiniLM-L6-v2,
    `model_source.BUNDLED_TOKENIZER_DIR`: 21,745 of its 30,522 entries are whole ASCII words — WordPiece gives a word its
    own entry when it is frequent in English Wikipedia and BookCorpus, and splits rarer ones, NTLM into pieces);
    empty when the file cannot be read. Read once per process (~0.5 MB of JSON, ~50 ms)."""
    try:
        vocab = json.loads((BUNDLED_TOKENIZER_DIR / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError):
        return frozenset()
    return frozenset(w for w in vocab if w.isalpha() and w.isascii())
