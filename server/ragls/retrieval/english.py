"""Whether a lower-case word is English prose or names something (retrieval/names.py's name test): `lowercase_name`
(in no English dictionary and no spelling of a dictionary word: gevent, nginx, xdist are names; untyped, subfolder,
repo are not) and `participle` (an English past participle: the "built" of "PyInstaller-built")."""

from __future__ import annotations

import functools
import re
from collections.abc import Container

from ragls.embedding.vocabulary import wordpiece_words as _english_words
from ragls.retrieval.word_list import spelling_words

# English bound prefixes written with a hyphen or closed up (multi-threaded / multithreaded, non-blocking): such a
# part alone is in no chunk of docs that write the closed form, and says nothing about the thing asked for.
HYPHEN_PREFIXES = frozenset({"anti", "co", "counter", "de", "inter", "intra", "micro", "mid", "multi", "non", "post",
                             "pre", "pro", "pseudo", "re", "semi", "sub", "super", "un", "ultra"})
# British spellings the American word list spells otherwise (serialise/serialize, analyse, colour, centre)
_BRITISH = ((re.compile(r"is(e|es|ed|ing|ation|ations|er|ers)$"), r"iz\1"), (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"),
            (re.compile(r"our(s|ed|ing|ful)?$"), r"or\1"), (re.compile(r"tre(s)?$"), r"ter\1"))
_ENDINGS = ("s", "es", "ed", "d", "ing", "er", "ers", "ly")  # an inflection of a dictionary word (rebooted, tweakers)
_VERB_ENDINGS = ("ing", "ed")  # `lowercase_name`: a verb's inflection of a word English by its other rules
CLIPPED_MAX_LENGTH = 4  # `lowercase_name`: a word this short that begins a longer word is a clipping (repo, env)
TYPO_MIN_LENGTH = 6  # `lowercase_name`: a word this long one edit from a common word, first letter kept, is a typo
PREFIXED_MIN_REST = 5  # `lowercase_name`: a bound prefix counts before a dictionary word this long (not post + gres)


def in_lexicon(word: str, words: Container[str]) -> bool:
    """True when `word` is in `words` (`lexicon()`) or an inflection of one of them (`_ENDINGS`: rebooted,
    tweakers)."""
    return word in words or any(word.endswith(e) and (word[:-len(e)] in words or word[:-len(e)] + "e" in words)
                                for e in _ENDINGS)


class _Either:
    """Words in any of `sets` (`lexicon`'s two lists, looked up one after the other instead of merged into a third
    set)."""

    __slots__ = ("sets",)

    def __init__(self, *sets: Container[str]):
        self.sets = sets

    def __contains__(self, word: object) -> bool:
        return any(word in s for s in self.sets)


@functools.cache
def lexicon() -> Container[str]:
    """The lower-case words of pyspellchecker's English word list (`SpellChecker(language="en")`: 160,572
    words and inflections, "verbose", "knead", "printouts", "hundredth", counted in a large corpus of English text
    and checked against a dictionary, so product names such as gevent, nginx or kubernetes are not in it), with the
    whole words of the model's WordPiece vocabulary (`_english_words`); the WordPiece words alone when the list
    cannot be read. Read once per process, on the first lower-case word the WordPiece words lack (the list from
    its kept copy, `word_list.spelling_words`: ~0.03 CPU-s after the first process's ~0.3-0.4). Membership only
    (`in`): the list is a `word_list.SortedWords` (~1.7 MB, not ~12 MB as a frozenset)."""
    return _Either(_english_words(), spelling_words())


def _one_edit_from(word: str, vocabulary: frozenset[str]) -> bool:
    """True when one deletion, insertion, substitution or swap of adjacent letters AFTER the first letter turns
    `word` into a word of `vocabulary` (Damerau's four typing errors; the first letter is the one people rarely get
    wrong: Pollock & Zamora 1984, "Automatic spelling correction in scientific and scholarly text", CACM 27(4))."""
    head, tail = word[0], word[1:]
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(tail[:i], tail[i:]) for i in range(len(tail) + 1)]
    candidates = ({a + b[1:] for a, b in splits if b} | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
                  | {a + c + b[1:] for a, b in splits if b for c in letters} | {a + c + b for a, b in splits for c in letters})
    return any(head + c in vocabulary for c in candidates if head + c != word)


def lowercase_name(word: str) -> bool:
    """True when the lower-case `word` (letters only) names something rather than being English prose: it is in no
    English dictionary — neither a whole word of the model's WordPiece vocabulary (`_english_words`) nor in
    pyspellchecker's English word list (`lexicon`) — and not explained as a spelling of one: a British spelling
    (`_BRITISH`: serialise), an inflection (`_ENDINGS`: a dictionary word plus -s, -ed, -ing, -er, -ly), a bound
    prefix (`HYPHEN_PREFIXES`: un, re, de, non, ...) before a dictionary word or its inflection of at least
    `PREFIXED_MIN_REST` letters (untyped, reindexing; not redis: re + dis, nor postgres: post + gres), a closed
    compound of two WordPiece words of 3+ letters (subfolder = sub + folder, codebase, flamegraphs), a clipping
    (`CLIPPED_MAX_LENGTH` letters at most, the start of a longer WordPiece word: repo, diff, env, auth, impl), or, from
    `TYPO_MIN_LENGTH` letters, a typo one edit from a WordPiece word with its first letter kept (recieve, sesion).
    gevent, uvloop, nginx, redis, kubernetes, protobuf, xdist are names; a library whose name is also an English
    word (celery, rayon, clap, alembic, ruff) or a closed compound (hypercorn = hyper + corn, nextest) is not seen.
    A general dictionary, not one fitted to questions (bench/history/held-out-sets-4-to-6.md, "Lower-case names")."""
    vocabulary = _english_words()
    if len(word) < 3 or word in vocabulary:
        return False
    known = lexicon()
    if word in known or any(rule.search(word) and rule.sub(american, word) in known for rule, american in _BRITISH):
        return False
    if in_lexicon(word, known):
        return False
    # a bound prefix on a dictionary word (untyped = un + typed, reindex, deserialize): English word formation
    if any(word.startswith(p) and len(word) - len(p) >= PREFIXED_MIN_REST and in_lexicon(word[len(p):], known)
           for p in HYPHEN_PREFIXES):
        return False
    # Only splits and edits that can reach a WordPiece word are tried (none is longer than `_longest`), so a pasted
    # 10,000-letter token costs linear time, not the quadratic one of every split and every edit of it
    longest = _longest(vocabulary)
    if any(word[:i] in vocabulary and word[i:] in vocabulary
           for i in range(max(3, len(word) - longest), min(len(word) - 2, longest + 1))):
        return False
    if len(word) <= CLIPPED_MAX_LENGTH and word in _clipping_prefixes(vocabulary):
        return False
    # a verb's -ing / -ed form of a word that is English itself by the rules above (diffing, diffed: diff, a clipping
    # of difference; repoed): names are nouns, English inflects them only once they are words
    if any(word.endswith(e) and len(base := word[:-len(e)]) >= 3 and not (lowercase_name(base) and lowercase_name(base + "e"))
           for e in _VERB_ENDINGS):
        return False
    return not (TYPO_MIN_LENGTH <= len(word) <= longest + 1 and _one_edit_from(word, vocabulary))


@functools.cache
def _clipping_prefixes(vocabulary: frozenset[str]) -> frozenset[str]:
    """Every start of 1 to `CLIPPED_MAX_LENGTH` letters of a word of `vocabulary` at least two letters longer than
    the start (repo of repository, env of environment): `lowercase_name`'s clippings, looked up in one step instead
    of a pass over the ~22,000 words per word of the question."""
    return frozenset(w[:n] for w in vocabulary for n in range(1, min(CLIPPED_MAX_LENGTH, len(w) - 2) + 1))


@functools.cache
def _longest(vocabulary: frozenset[str]) -> int:
    """The length of the longest word of `vocabulary` (0 when empty)."""
    return max(map(len, vocabulary), default=0)


# English past participles not ending in "-ed" (`participle`): those of the common irregular verbs
_IRREGULAR_PARTICIPLES = frozenset({
    "begun", "bent", "born", "bought", "bound", "broken", "brought", "built", "burnt", "cast", "caught", "chosen",
    "cut", "dealt", "done", "drawn", "driven", "fed", "felt", "found", "frozen", "given", "got", "gotten", "grown",
    "held", "hidden", "hung", "kept", "known", "laid", "learnt", "led", "left", "lost", "made", "meant", "paid",
    "proven", "put", "read", "run", "said", "sent", "set", "shown", "shut", "sold", "spent", "split", "spoken", "spun",
    "stood", "struck", "stuck", "taken", "taught", "thrown", "told", "torn", "won", "worn", "written"})


def participle(word: str) -> bool:
    """True when the lower-case `word` is an English past participle: one of `_IRREGULAR_PARTICIPLES`, or a word
    of general English ending in "ed" (built, signed, generated): BERT's WordPiece words (`_english_words`), else the
    English word list and its inflections (`lexicon`, `in_lexicon`: "decoded", "deserialized", which the 30,522
    WordPiece entries lack; "JSON-decoded" was read as a name no passage of Django Channels' docs holds, and an
    identifier question refused: bench/history/session-68.md, "The session's figures and held-out sets 71 and 72")."""
    if word in _IRREGULAR_PARTICIPLES:
        return True
    return word.endswith("ed") and (word in _english_words() or in_lexicon(word, lexicon()))


def american_spellings(word: str) -> list[str]:
    """The American spellings `_BRITISH`'s rules give the lower-case `word` ("anonymise" -> ["anonymize"], "colour"
    -> ["color"]); [] when no rule applies. What docs in American English may write for a British word that no
    dictionary here holds (`absent_names.absent_names`)."""
    return [rule.sub(american, word) for rule, american in _BRITISH if rule.search(word)]
