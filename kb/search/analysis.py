"""Text analysis for search: script folding, words with negation scope, character grams.

Every text is folded first (fullwidth ASCII to halfwidth, then OpenCC t2s, then
lowercase) without changing its length, so offsets point into the original string and
Traditional and Simplified text meet on the same terms.

* words: runs of ideographs cut by the search lexicon (jieba's algorithm, see
  ``lexicon``); runs of ASCII letters/digits are one word each, an English word by its stem
  (``stem``: leaves, left, leaving -> leav; exposed, exposes -> expos). A single-character
  negator (不 未 没 无 非 勿 别) cut off before a word is joined to it (不 + 判罚 ->
  不判罚), and the word after a negator is in its scope either way (不同意).
* grams: every ideograph (unigram) and every pair of adjacent ideographs (bigram); a
  gram inside a negation scope is marked with a leading ``!``, so 判罚 in 不判罚 and 同意
  in 不同意 do not match the positive word, at the word or at the character level.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import opencc

from kb.search.lexicon import Lexicon

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "search"
USERDICT_PATH = DATA_DIR / "userdict.txt"

# Bump when tokenisation changes in a way that needs a rebuilt index.
ANALYZER_VERSION = "5"

NEGATORS = frozenset("不未没无非勿别")
NEG = "!"

_FULLWIDTH = {0xFF01 + i: 0x21 + i for i in range(94)}
_FULLWIDTH[0x3000] = 0x20  # ideographic space
# Variants OpenCC t2s keeps (both are valid Simplified) but the records and queries mix:
# 接著 / 接着, 跟著 / 跟着; and Taiwan's mahjong spelling of 炮 (放砲, 一砲雙響: the rules write 放炮).
_VARIANTS = str.maketrans({"著": "着", "砲": "炮"})


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
    """Width-fold, t2s, then variants t2s leaves apart (著 -> 着): the form every term is
    compared in (before lowercasing)."""
    return to_simplified(fold_width(text)).translate(_VARIANTS)


def normalize(text: str) -> str:
    """The search form of a text: ``fold`` plus lowercase, keeping the length."""
    folded = fold(text)
    lowered = folded.lower()
    if len(lowered) == len(folded):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in folded)


# An editor's restoration of a lost number, 超过〔七〕线 or 第〔26？〕条 (kb/ingest/collate.py): searched as
# the words it restores (七线), its brackets and doubt mark left out.
RESTORED_RE = re.compile(r"〔([^〔〕]*?)？?〕")


def searchable(text: str) -> str:
    """A record's title or text as search reads it: restorations without their brackets."""
    return RESTORED_RE.sub(r"\1", text) if "〔" in text else text


def search_form(text: str) -> str:
    """A record's title or text as a query's strings are matched against it: restorations without
    their brackets, normalized (the ranker's titles and phrases, the static index's titles)."""
    return normalize(searchable(text))


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


def runs(norm: str) -> list[tuple[str, int, int, bool]]:
    """Runs of a normalized text: (run, start, end, is_cjk); other characters split runs."""
    out: list[tuple[str, int, int, bool]] = []
    i, n = 0, len(norm)
    while i < n:
        ch = norm[i]
        if is_cjk(ch):
            j = i + 1
            while j < n and is_cjk(norm[j]):
                j += 1
            out.append((norm[i:j], i, j, True))
        elif ch.isalnum():
            j = i + 1
            while j < n and norm[j].isalnum() and not is_cjk(norm[j]):
                j += 1
            out.append((norm[i:j], i, j, False))
        else:
            i += 1
            continue
        i = j
    return out


# English past forms a suffix rule cannot reach: the stem of their present form.
IRREGULAR = {"left": "leave", "led": "lead", "made": "make", "shown": "show", "saw": "see", "seen": "see",
             "took": "take", "taken": "take", "gave": "give", "given": "give", "went": "go", "gone": "go",
             "fell": "fall", "fallen": "fall", "said": "say", "told": "tell", "knew": "know", "known": "know",
             "won": "win", "lost": "lose", "held": "hold", "drew": "draw", "drawn": "draw", "threw": "throw",
             "thrown": "throw", "withdrew": "withdraw", "withdrawn": "withdraw", "forgot": "forget",
             "forgotten": "forget", "chose": "choose", "chosen": "choose", "spoke": "speak", "spoken": "speak",
             "broke": "break", "broken": "break", "caught": "catch", "thought": "think", "got": "get",
             "gotten": "get", "dealt": "deal", "understood": "understand", "overtook": "overtake",
             "mistook": "mistake", "mistaken": "mistake", "began": "begin", "begun": "begin",
             "men": "man", "women": "woman", "children": "child"}


def stem(word: str) -> str:
    """A light English stemmer, the same for index and query (and the site's engine): plural,
    past and -ing forms, -ly adverbs and a final e fall away (penalties -> penalty, dropped ->
    drop, revoking -> revok, accidentally -> accidental); a word that is not all ASCII letters,
    or has three letters or fewer, is kept."""
    w = IRREGULAR.get(word, word)
    if len(w) <= 3 or not (w.isascii() and w.isalpha()):
        return w
    if w.endswith(("ies", "ied")) and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    elif w.endswith("es") and len(w) > 4 and w[-3] in "sxzh":
        w = w[:-2]
    elif w.endswith("s") and w[-2] not in "su":
        w = w[:-1]
    elif w.endswith("ly") and len(w) > 5:
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]          # dropp -> drop, bidd -> bid
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]          # expose, exposed, exposing -> expos
    return w


@dataclass(frozen=True)
class Analysis:
    """The index terms of one text."""

    words: list[tuple[str, int, int]]   # (word, start, end) in the normalized text
    bigrams: list[str]
    unigrams: list[str]


def analyze(text: str, lex: Lexicon) -> Analysis:
    """Words (negators joined), bigrams and unigrams (negation-marked) of ``text``."""
    norm = normalize(text)
    words: list[tuple[str, int, int]] = []
    bigrams: list[str] = []
    unigrams: list[str] = []
    for run, s, _, cjk in runs(norm):
        if not cjk:
            w = stem(run)
            words.append((w, s, s + len(run)))
            bigrams.append(w)
            continue
        negated = [False] * len(run)
        toks = lex.cut_run(run)
        pos = 0
        k = 0
        while k < len(toks):
            w = toks[k]
            start = pos
            if w in NEGATORS and k + 1 < len(toks) and toks[k + 1] not in NEGATORS:
                nxt = toks[k + 1]
                for i in range(pos + 1, pos + 1 + len(nxt)):
                    negated[i] = True
                w = w + nxt
                k += 1
            elif len(w) >= 3 and w[0] in NEGATORS and lex.freq.get(w[1:]):
                for i in range(pos + 1, pos + len(w)):
                    negated[i] = True
            pos += len(w)
            words.append((w, s + start, s + pos))
            k += 1
        for i, ch in enumerate(run):
            unigrams.append(NEG + ch if negated[i] else ch)
            if i + 1 < len(run):
                bg = run[i:i + 2]
                bigrams.append(NEG + bg if negated[i] and negated[i + 1] else bg)
    return Analysis(words, bigrams, unigrams)


def tokenize(text: str, lex: Lexicon) -> list[str]:
    """The word terms of ``text``, as the index's word fields hold them."""
    return [w for w, _, _ in analyze(text, lex).words]


def char_grams(text: str, lex: Lexicon) -> list[str]:
    """The bigram terms of ``text`` (negation-marked), as the index's gram field holds them."""
    return analyze(text, lex).bigrams


# --- curated dictionary -----------------------------------------------------------------

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


def analysis_fingerprint(paths: tuple[Path, ...] = ()) -> str:
    """Changes whenever indexing would tokenise differently (analyzer version, curated data)."""
    h = hashlib.sha256(ANALYZER_VERSION.encode())
    for p in (USERDICT_PATH, *paths):
        h.update(p.read_bytes())
    return h.hexdigest()
