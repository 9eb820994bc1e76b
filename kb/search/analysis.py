"""Text analysis for search: script folding, jieba word tokens and character grams.

Both analyzers fold the text first (fullwidth ASCII to halfwidth, then OpenCC
t2s) without changing its length, so character offsets always point into the
original string, Traditional and Simplified text meet on the same terms, and
highlighting can mark the text exactly as stored.

* ``word_analyzer()``: jieba words (with the curated user dictionary), positions
  numbered 0, 1, 2, ... over the kept tokens (jieba's own ChineseAnalyzer numbers
  them by character offset, which breaks phrase queries), punctuation and
  whitespace dropped, lowercased.
* ``gram_analyzer()``: every CJK character as a unigram plus the bigram starting
  at it, both at the character's position; runs of letters/digits as one token.
  A word inside a longer word ("罚张" in "重罚张") matches here as a phrase of
  bigrams, which the word field alone cannot do.
"""
from __future__ import annotations

import hashlib
import logging
import threading
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import jieba
import opencc
from whoosh.analysis import LowercaseFilter, Token, Tokenizer

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "search"
USERDICT_PATH = DATA_DIR / "userdict.txt"

# Bump when tokenisation changes in a way that needs a rebuilt index.
ANALYZER_VERSION = "1"

_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(94)}
_FULLWIDTH[0x3000] = 0x20  # ideographic space

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


def fold_width(text: str) -> str:
    """Fullwidth ASCII (Ｅ, ４５, （ｂ）) to halfwidth; same length."""
    return text.translate(_FULLWIDTH)


def to_simplified(text: str) -> str:
    """OpenCC t2s, guaranteed to keep the length (per character if it would not)."""
    if not text:
        return text
    out = _t2s().convert(text)
    if len(out) == len(text):
        return out
    conv = _t2s().convert
    chars = []
    for ch in text:
        c = conv(ch)
        chars.append(c if len(c) == 1 else ch)
    return "".join(chars)


def fold(text: str) -> str:
    """Width-fold then t2s: the form every term is compared in (before lowercasing)."""
    return to_simplified(fold_width(text))


def normalize(text: str) -> str:
    """``fold`` plus lowercase, keeping the length (for substring tests and highlighting)."""
    folded = fold(text)
    lowered = folded.lower()
    if len(lowered) == len(folded):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)


def is_traditional(text: str) -> bool:
    """True if t2s changes the text, i.e. it was typed in Traditional characters."""
    text = fold_width(text)
    return to_simplified(text) != text


def is_cjk(ch: str) -> bool:
    """A CJK ideograph (the unified blocks and compatibility ideographs)."""
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2FA1F
            or 0xF900 <= o <= 0xFAFF)


def is_wordlike(text: str) -> bool:
    """A token worth indexing: it has at least one letter, digit or ideograph."""
    return any(ch.isalnum() for ch in text)


def strip_controls(text: str) -> str:
    """Replace control, format, surrogate and private-use characters with spaces."""
    return "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text)


# --- jieba ---------------------------------------------------------------------------

def read_userdict(path: Path = USERDICT_PATH) -> list[tuple[str, int | None, str | None]]:
    """Entries of a jieba-format user dictionary (``word freq tag``; ``#`` comments allowed)."""
    entries: list[tuple[str, int | None, str | None]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        word = parts[0]
        freq = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        tag = parts[2] if len(parts) > 2 else None
        entries.append((fold(word).lower(), freq, tag))
    return entries


def segmenter(userdict: str | Path | None = None) -> jieba.Tokenizer:
    """A private jieba tokenizer with the user dictionary loaded (built once per process)."""
    return _segmenter(str(userdict or USERDICT_PATH))


_segmenters: dict[str, jieba.Tokenizer] = {}


def _segmenter(userdict: str) -> jieba.Tokenizer:
    """Built once per dictionary, under the lock: concurrent first calls wait, not rebuild."""
    tk = _segmenters.get(userdict)
    if tk is not None:
        return tk
    with _lock:
        tk = _segmenters.get(userdict)
        if tk is None:
            jieba.setLogLevel(logging.WARNING)
            tk = jieba.Tokenizer()
            tk.initialize()
            for word, freq, tag in read_userdict(Path(userdict)):
                tk.add_word(word, freq, tag)
            _segmenters[userdict] = tk
        return tk


def analysis_fingerprint(userdict: Path = USERDICT_PATH) -> str:
    """Changes whenever indexing would tokenise differently (analyzer version, user dictionary)."""
    h = hashlib.sha256(ANALYZER_VERSION.encode())
    h.update(userdict.read_bytes())
    return h.hexdigest()


def cut(text: str, userdict: str = str(USERDICT_PATH)) -> list[tuple[str, int, int]]:
    """Word tokens of ``text`` as (normalized word, start, end); punctuation dropped."""
    norm = normalize(text)
    return [(w, s, e) for w, s, e in segmenter(userdict).tokenize(norm, HMM=False)
            if is_wordlike(w)]


def words(text: str) -> list[str]:
    """Normalized word tokens of ``text`` in order."""
    return [w for w, _, _ in cut(text)]


def _fill(t: Token, value: str, text: str, start: int, end: int, pos: int, start_char: int,
          positions: bool, chars: bool, keeporiginal: bool) -> Token:
    """Set one reused whoosh Token to a word at value[start:end], position ``pos``."""
    t.text = text
    t.boost = 1.0
    t.stopped = False
    if keeporiginal:
        t.original = value[start:end]
    if positions:
        t.pos = pos
    if chars:
        t.startchar, t.endchar = start_char + start, start_char + end
    return t


class JiebaTokenizer(Tokenizer):
    """Whoosh tokenizer: folded text cut by jieba, positions sequential, chars as offsets."""

    def __init__(self, userdict: str = str(USERDICT_PATH)):
        self.userdict = userdict

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JiebaTokenizer) and other.userdict == self.userdict

    def __getstate__(self) -> dict:
        # Pickled into the index's schema: the default dictionary is stored as None so
        # that an index does not depend on where the checkout lives.
        return {"userdict": None if self.userdict == str(USERDICT_PATH) else self.userdict}

    def __setstate__(self, state: dict) -> None:
        self.userdict = state.get("userdict") or str(USERDICT_PATH)

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True, start_pos: int = 0,
                 start_char: int = 0, tokenize: bool = True, mode: str = "",
                 **kwargs) -> Iterator[Token]:
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        if not tokenize:
            t.original = t.text = value
            t.boost = 1.0
            if positions:
                t.pos = start_pos
            if chars:
                t.startchar, t.endchar = start_char, start_char + len(value)
            yield t
            return
        pos = start_pos
        for word, s, e in cut(value, self.userdict):
            yield _fill(t, value, word, s, e, pos, start_char, positions, chars, keeporiginal)
            pos += 1


def gram_runs(text: str) -> list[tuple[str, int, int, bool]]:
    """Runs of ``normalize(text)``: (run, start, end, is_cjk); other characters split runs."""
    norm = normalize(text)
    runs: list[tuple[str, int, int, bool]] = []
    i, n = 0, len(norm)
    while i < n:
        ch = norm[i]
        if is_cjk(ch):
            j = i + 1
            while j < n and is_cjk(norm[j]):
                j += 1
            runs.append((norm[i:j], i, j, True))
        elif ch.isalnum():
            j = i + 1
            while j < n and norm[j].isalnum() and not is_cjk(norm[j]):
                j += 1
            runs.append((norm[i:j], i, j, False))
        else:
            i += 1
            continue
        i = j
    return runs


def gram_sequence(text: str) -> list[str]:
    """The gram-field terms that must occur at consecutive positions for ``text`` to occur."""
    runs = gram_runs(text)
    seq: list[str] = []
    for k, (run, _, _, cjk) in enumerate(runs):
        if not cjk or len(run) == 1:
            seq.append(run)
            continue
        seq.extend(run[i:i + 2] for i in range(len(run) - 1))
        if k < len(runs) - 1:
            seq.append(run[-1])  # the last character's unigram keeps the next run adjacent
    return seq


class GramTokenizer(Tokenizer):
    """Whoosh tokenizer: CJK unigrams + bigrams at each character's position; words otherwise.

    A break between runs (punctuation, space) advances the position by one more, so a
    phrase cannot match across it.
    """

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GramTokenizer)

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True, start_pos: int = 0,
                 start_char: int = 0, tokenize: bool = True, mode: str = "",
                 **kwargs) -> Iterator[Token]:
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pos = start_pos
        prev_end = None
        for run, s, e, cjk in gram_runs(value):
            if prev_end is not None and s > prev_end:
                pos += 1
            prev_end = e
            if not cjk:
                items = [(run, s, e, pos)]
                pos += 1
            else:
                items = []
                for i in range(len(run)):
                    items.append((run[i], s + i, s + i + 1, pos))
                    if i + 1 < len(run):
                        items.append((run[i:i + 2], s + i, s + i + 2, pos))
                    pos += 1
            for text, a, b, p in items:
                yield _fill(t, value, text, a, b, p, start_char, positions, chars, keeporiginal)


def word_analyzer():
    """jieba words, folded and lowercased, sequential positions."""
    return JiebaTokenizer() | LowercaseFilter()


def gram_analyzer():
    """CJK unigrams and bigrams, folded and lowercased."""
    return GramTokenizer() | LowercaseFilter()
