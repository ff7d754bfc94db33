"""Citations in an answer: find `[n]`, drop the ones that point at no source, and check each against its chunk.

Markers: `[1]`, runs like `[1][2]` and lists like `[1, 2]`, outside code (fenced blocks and inline `code`),
not preceded by `]` (a markdown reference link `[text][1]`) and not followed by `(` (a link `[1](url)`).
A number that is not a source is removed; a marker left with no valid number is removed with the space before
it, so the answer never shows a broken link.

The sentence carrying a marker is the text before it (trailing punctuation, emoji and symbols dropped) back to the
previous sentence end (".", "!" or "?" followed
by whitespace, or a line break), with other markers removed; when that text is a lead-in without content words ("Like this [1]:"), the sentence
before it on the same line joins it; for a marker that opens a line, or when there are still no content words,
the text after it up to the next sentence end; and when that is empty too but a fenced code block follows (a
bullet that is only a lead-in, "- It can be used like this [1]:"), the block's code is what the marker claims.

Support rule (deliberately simple and explainable):
  - content words: the text case-folded, split into runs of letters/digits, minus English stop words and
    one-character tokens, each lightly stemmed (`stem`: -ies→y, -sses→ss, -s, -ing, -ed, then a final -e, and
    a doubled final consonant undoubled; stems keep at least 3 characters: "borrows", "borrowed", "borrowing" →
    "borrow"; "store", "stored" → "stor"; "running" → "run"; "libraries" → "library");
  - S = the sentence's content-word set, C = the cited chunk's (text plus title);
  - supported ⇔ |S| > 0 and |S ∩ C| ≥ min(2, |S|) and |S ∩ C| ≥ 0.3·|S|.
  So a short sentence needs two shared words (one if it has only one), a long one a 30 % overlap.
A number cited in several sentences is supported only when every one of them is.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from ragls.core.ir import Citation, Hit

MIN_SHARED = 2
MIN_SHARED_RATIO = 0.3

STOP_WORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "cannot", "could", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during", "each", "either", "else", "etc", "even", "ever", "every", "few", "for", "from", "further", "had", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "however", "i", "if", "in", "into", "is", "isn", "it", "its", "itself", "just", "let", "like", "ll", "may", "me", "might", "more", "most", "much", "must", "mustn", "my", "myself", "no", "nor", "not", "now", "of", "off", "often", "on", "once", "one", "only", "or", "other", "others", "our", "ours", "ourselves", "out", "over", "own", "per", "rather", "re", "same", "shall", "she", "should", "shouldn", "since", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "therefore", "these", "they", "this", "those", "though", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "use", "used", "using", "ve", "very", "via", "was", "wasn", "we", "were", "weren", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "won", "would", "wouldn", "yes", "yet", "you", "your", "yours", "yourself", "yourselves"])

_WORD = re.compile(r"[^\W_]+")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_GROUP = r"\[\s*\d+(?:\s*,\s*\d+)*\s*\]"
_MARKER = re.compile(rf"(?<!\]){_GROUP}(?:\s*{_GROUP})*(?!\()")
_NUM = re.compile(r"\d+")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
_VOWELS = set("aeiouy")
# Everything after a sentence's last letter or digit on its line: punctuation, emoji (with variation selectors and
# joiners), symbols, closing quotes and brackets, spaces.
_TRAILING_DECORATION = re.compile(r"[^\w\n]+$")
# The fenced code block a lead-in's marker introduces: an optional ":" after the marker, then the fence on the next
# line (indented under a list item, as extractive answers write it); group 1 is the code.
_BLOCK_AFTER = re.compile(r"[^\S\n]*:?[^\S\n]*\n[^\S\n]*```[^\n]*\n(.*?)(?:\n[^\S\n]*```|\Z)", re.DOTALL)


# Memos (LRU, keyed by the text itself: nothing to invalidate). Every answer checks its citations against whole
# chunks and reads each candidate passage's language, and the same chunks and passages come back for every
# question on a topic: stems of distinct words (~150 bytes each), passages' language verdicts (~300 bytes each) and
# chunks' content words (1,024 chunk texts and their words: ~6 MB at most).
STEM_MEMO = 16384
PASSAGE_MEMO = 8192
CHUNK_WORDS_MEMO = 1024


@functools.lru_cache(maxsize=STEM_MEMO)
def stem(word: str) -> str:
    """Light suffix stripping (see the module docstring); words of 3 characters or fewer are kept as they are.
    Memoised (`STEM_MEMO`)."""
    w = word
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and set(w[: -len(suffix)]) & _VOWELS:
            w = w[: -len(suffix)]
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1] not in _VOWELS:
        w = w[:-1]
    return w


# A passage in another language than an English question's (a README's translations beside it, README.de.md,
# README.ja.md, which share its code, names and commands): mostly letters of a script beyond Latin, or more of the
# frequent function words of other languages written in Latin letters (FOREIGN_WORDS: Spanish, Portuguese,
# French, German, Italian, Dutch, Indonesian, Swedish, Turkish, Polish; none an English word or a common English
# abbreviation, so no "mit" (MIT License), "os", "es", "em", "sin", "till", "di") than English stop
# words, at least two of them — or one in a passage of OTHER_LANGUAGE_MIN_WORDS words or more of which under
# OTHER_LANGUAGE_SHARE are English stop words. Terse English (a changelog's "Fixed Text.expand_tabs assertion
# error", a table row) holds few stop words but none of these. Measured on Rich's 16 translated READMEs and the
# English docs here (bench/history/sessions-48-49.md, "A new corpus tried as a newcomer: Rich and nox").
OTHER_LANGUAGE_MIN_WORDS = 6
OTHER_LANGUAGE_SHARE = 0.1
FOREIGN_WORDS = frozenset([
    "de", "la", "que", "el", "en", "los", "las", "del", "se", "por", "con", "una", "para", "lo", "como", "más",
    "pero", "sus", "sobre", "también", "usted", "puede", "este", "esta", "não", "uma", "com", "da",
    "das", "dos", "você", "mais", "pode", "ao", "muito", "isso", "le", "les", "et", "une", "du",
    "est", "pour", "qui", "dans", "pas", "sur", "vous", "avec", "cette", "il", "sont", "peut", "ou", "aussi",
    "être", "der", "das", "und", "ist", "nicht", "dem", "ein", "eine", "zu", "von", "für", "auf", "auch",
    "sie", "sich", "wird", "kann", "oder", "wenn", "werden", "wie", "ich", "wir", "che", "della", "sono",
    "puoi", "anche", "questo", "questa", "può", "essere", "gli", "het", "een", "niet", "zijn", "voor", "ook", "je",
    "wordt", "yang", "dengan", "ini", "itu", "dari", "dalam", "tidak", "anda", "dapat", "akan", "pada", "juga",
    "atau", "bisa", "untuk", "och", "att", "det", "som", "är", "på", "för", "av", "inte", "också", "bir",
    "bu", "için", "ile", "olarak", "gibi", "daha", "çok", "się", "nie", "jest", "że", "dla", "lub", "oraz", "można",
    "jak"
])
_LETTERS = re.compile(r"[^\W\d_]+")
_URL = re.compile(r"\b(?:https?|ftp)://\S+")
_PUNCTUATION = ".,;:!?¿¡()[]{}\"'«»“”‘’*_"


def english_question(question: str) -> bool:
    """Whether `question` reads as English: at least two of its words, and a fifth of them, are English stop words
    ("How do I install it?"; not a keyword query "pipx install nox", nor "Wie installiere ich Rich?")."""
    words = _LETTERS.findall(question.casefold())
    stops = sum(w in STOP_WORDS for w in words)
    return stops >= 2 and stops >= 0.2 * len(words)


@functools.lru_cache(maxsize=PASSAGE_MEMO)
def other_language(passage: str) -> bool:
    """Whether `passage` (a sentence or list item) reads as another language than English, by its words outside
    code spans, fenced code and URLs (see FOREIGN_WORDS): "Anda dapat menentukan spinner yang hendak digunakan
    dengan ...", "Para renderizar markdown, importe a classe ...", "スピナーのスタイルが表示されます". For
    `english_question`s only. Memoised (`PASSAGE_MEMO`)."""
    text = _URL.sub(" ", _CODE.sub(" ", passage)).casefold()
    letters = [c for c in text if c.isalpha()]
    if letters and sum(c >= "\u0250" for c in letters) > len(letters) / 2:
        return True
    words = [w for w in (t.strip(_PUNCTUATION) for t in text.split()) if w.isalpha()]  # not "para-02", "x86"
    foreign = sum(w in FOREIGN_WORDS for w in words)
    stops = sum(w in STOP_WORDS for w in words)
    if foreign >= 2 and foreign > stops:
        return True
    return foreign >= 1 and len(words) >= OTHER_LANGUAGE_MIN_WORDS and stops < OTHER_LANGUAGE_SHARE * len(words)


def content_words(text: str) -> list[str]:
    """Stemmed content words of `text`, in order, repeats kept (see the module docstring)."""
    out = []
    for token in _WORD.findall(text.casefold()):
        if len(token) < 2 or token in STOP_WORDS:
            continue
        out.append(stem(token))
    return out


def supports(sentence: str, chunk_text: str) -> bool:
    """The support rule: does `chunk_text` share enough content words with `sentence`?"""
    s = set(content_words(strip_markers(sentence)))
    if not s:
        return False
    shared = len(s & _content_word_set(chunk_text))
    return shared >= min(MIN_SHARED, len(s)) and shared >= MIN_SHARED_RATIO * len(s)


@functools.lru_cache(maxsize=CHUNK_WORDS_MEMO)
def _content_word_set(text: str) -> frozenset[str]:
    """The distinct `content_words` of a cited chunk's `text` (with its title), memoised (`CHUNK_WORDS_MEMO`)."""
    return frozenset(content_words(text))


def strip_markers(text: str) -> str:
    """`text` without citation markers."""
    return _MARKER.sub("", text)


def _prose_markers(text: str) -> Iterable[re.Match[str]]:
    """Marker matches outside code spans, in order."""
    code = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    for m in _MARKER.finditer(text):
        if not any(a <= m.start() < b for a, b in code):
            yield m


def clean_markers(text: str, valid: set[int]) -> str:
    """Remove numbers not in `valid` from every marker; drop markers left empty (with the whitespace before)."""
    out: list[str] = []
    pos = 0
    for m in _prose_markers(text):
        numbers = [int(x) for x in _NUM.findall(m.group(0))]
        kept = list(dict.fromkeys(n for n in numbers if n in valid))
        if kept == numbers:
            continue
        out.append(text[pos:m.start()])
        if kept:
            out.append("".join(f"[{n}]" for n in kept))
        else:
            out[-1] = out[-1].rstrip(" \t")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def carrying_sentence(text: str, start: int, end: int) -> str:
    """The sentence a marker at text[start:end] belongs to (module docstring), markers removed."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        # Trailing emoji, symbols, closing quotes/brackets and the final punctuation are no sentence of their own:
        # "It expires after ten minutes. 🎉 [1]" checks "It expires after ten minutes".
        before = _TRAILING_DECORATION.sub("", text[:start])
    else:  # the marker opens a line: it belongs to the text after it
        before = ""
    cuts = [0] + [m.end() for m in _SENTENCE_END.finditer(before)]
    sentence = strip_markers(before[cuts[-1]:]).strip()
    if content_words(sentence):
        return sentence
    if sentence and len(cuts) > 1 and before[cuts[-1] - 1] != "\n":
        # a lead-in of stop words only ("Like this [1]:") belongs to the sentence before it on its line (never to
        # the line above: a bullet that is only a lead-in claims the code it introduces, below)
        joined = strip_markers(before[cuts[-2]:]).strip()
        if content_words(joined):
            return joined
    after = text[end:]
    stop = _SENTENCE_END.search(after)
    following = strip_markers(after[: stop.start() if stop else len(after)]).strip()
    if not content_words(following) and (block := _BLOCK_AFTER.match(after)):
        return block.group(1).strip()
    return following


def check_citations(text: str, sources: list[tuple[int, Hit]]) -> tuple[str, list[Citation]]:
    """Clean and check the citations of an answer.

    `sources` are the (n, hit) pairs the answer may cite. Returns (text with unknown `[n]` removed, one
    `Citation(n, supported)` per distinct n, in order of first use)."""
    by_n = {n: hit for n, hit in sources}
    cleaned = clean_markers(text, set(by_n))
    verdicts: dict[int, bool] = {}
    for m in _prose_markers(cleaned):
        sentence = carrying_sentence(cleaned, m.start(), m.end())
        for n in dict.fromkeys(int(x) for x in _NUM.findall(m.group(0))):
            hit = by_n[n]
            ok = supports(sentence, f"{hit.chunk.title}\n{hit.chunk.text}")
            verdicts[n] = verdicts.get(n, True) and ok
    return cleaned, [Citation(n, ok) for n, ok in verdicts.items()]
