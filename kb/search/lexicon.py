"""The word dictionary and segmenter of search: jieba's algorithm on a corpus-trimmed dictionary.

The index build writes ``lexicon.json`` into the index: the words of jieba's dictionary
made only of characters the corpus or the curated search data use, plus the user
dictionary, plus jieba's total frequency, so that the trimmed dictionary cuts every text
made of those characters exactly as the full one would (same DAG, same log-probabilities).
A fresh process loads it in milliseconds instead of jieba's 350k-word dictionary, and
does not import jieba at all: ``Lexicon.cut`` is jieba's maximum-probability route
(``cut(..., HMM=False)``), written out here.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

from kb.core.errors import KbError

USER_FREQ = 20000  # the frequency of a user-dictionary word given without one
GENERIC_FREQ = 3000  # a jieba word at least this frequent is everyday language (没有, 同时)


def jieba_dictionary() -> Path:
    """jieba's own dictionary file (found without importing jieba)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise KbError("jieba is not installed (pip install -e .)")
    return Path(spec.origin).parent / "dict.txt"


class Lexicon:
    """Word frequencies and the total they are probabilities of."""

    def __init__(self, freq: dict[str, int], total: int, domain: set[str] | None = None):
        self.freq = freq
        self.total = max(1, total)
        self.domain = domain or set()   # the curated words (user dictionary, synonyms)
        self.maxlen = max(map(len, freq), default=1)
        self._logtotal = math.log(self.total)
        self._reach: dict[str, int] | None = None

    # --- building -------------------------------------------------------------------

    @classmethod
    def full(cls, user: Iterable[tuple[str, int | None]] = ()) -> Lexicon:
        """jieba's whole dictionary with the user words applied (as ``jieba.add_word``)."""
        freq, total = _jieba_words()
        freq = dict(freq)          # the parsed dictionary is shared; this lexicon gets its own copy
        lex = cls(freq, total)
        lex.add_words(user)
        return lex

    def generic(self, word: str) -> bool:
        """A word of everyday language rather than a term of the rules: one character, or
        frequent in jieba's general dictionary, and not a curated word."""
        return word not in self.domain and (len(word) < 2 or self.freq.get(word, 0) >= GENERIC_FREQ)

    def add_words(self, words: Iterable[tuple[str, int | None]]) -> None:
        """Add curated (word, freq) pairs; freq 0 removes a word (forces jieba to split it)."""
        for word, f in words:
            if f != 0:
                self.domain.add(word)
            f = USER_FREQ if f is None else f
            old = self.freq.pop(word, 0)
            self.total += f - old
            if f > 0:
                self.freq[word] = f
        self.maxlen = max(map(len, self.freq), default=1)
        self._logtotal = math.log(max(1, self.total))
        self._reach = None

    def trimmed(self, chars: set[str], common: int = 0) -> Lexicon:
        """The words made of ``chars`` (and those of frequency ``common`` or more, if given);
        the same total, so text made of ``chars`` is cut exactly as before."""
        made_of = re.compile(f"[{re.escape(''.join(sorted(chars)))}]+")
        words = set(filter(made_of.fullmatch, self.freq)) if chars else set()
        freq = {w: f for w, f in self.freq.items() if w in words or (common and f >= common)}
        return Lexicon(freq, self.total, set(self.domain))

    # --- storage --------------------------------------------------------------------

    def save(self, path: Path) -> None:
        """The words as one newline-joined string beside their frequencies (twice as fast
        to read back as a JSON object of 80k keys)."""
        if any("\n" in w for w in self.freq):
            raise KbError(f"{path}: a lexicon word contains a line break")
        data = {"total": self.total, "words": "\n".join(self.freq), "freqs": list(self.freq.values()),
                "domain": sorted(self.domain)}
        path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Lexicon:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            words = data["words"].split("\n") if data["words"] else []
            if len(words) != len(data["freqs"]):
                raise ValueError(f"{len(words)} words but {len(data['freqs'])} frequencies")
            return cls(dict(zip(words, data["freqs"])), int(data["total"]), set(data["domain"]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise KbError(f"{path}: unreadable search lexicon ({exc})") from None

    # --- segmentation ---------------------------------------------------------------

    def cut_run(self, run: str, without: str | None = None) -> list[str]:
        """jieba's maximum-probability segmentation of one run of ideographs (as if the word
        ``without`` were not in the dictionary, when given)."""
        n = len(run)
        freq, reach = self.freq, self._reach or self._reaches()
        logtotal = self._logtotal
        route: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
        for i in range(n - 1, -1, -1):
            best: tuple[float, int] | None = None
            if freq.get(run[i]) and run[i] != without:
                best = (math.log(freq[run[i]]) - logtotal + route[i + 1][0], i)
            for j in range(i + 2, min(n, i + reach.get(run[i], 0)) + 1):
                f = freq.get(run[i:j])
                if f and (without is None or run[i:j] != without):
                    cand = (math.log(f) - logtotal + route[j][0], j - 1)
                    if best is None or cand > best:
                        best = cand
            route[i] = best or (-logtotal + route[i + 1][0], i)  # as jieba: an unknown char alone
        out: list[str] = []
        i = 0
        while i < n:
            j = route[i][1] + 1
            out.append(run[i:j])
            i = j
        return out

    def _reaches(self) -> dict[str, int]:
        """The length of the longest word starting with each character (no longer piece of a
        run can be a word: ``cut_run`` looks no further)."""
        reach: dict[str, int] = {}
        for w in self.freq:
            if len(w) > reach.get(w[0], 0):
                reach[w[0]] = len(w)
        self._reach = reach
        return reach


@functools.lru_cache(maxsize=1)
def _jieba_words() -> tuple[dict[str, int], int]:
    """jieba's dictionary file parsed once per process: word -> frequency, and their total."""
    text = jieba_dictionary().read_text(encoding="utf-8")
    fields = text.split()
    words, counts = fields[0::3], fields[1::3]
    # jieba's own file: every line "word frequency tag", read in a few passes over one split
    if len(fields) % 3 == 0 and text.count("\n") + (not text.endswith("\n")) == len(words) \
            and all(map(str.isdigit, counts)) and all(map(str.isalpha, fields[2::3])):
        numbers = list(map(int, counts))
        return dict(zip(words, numbers)), sum(numbers)
    freq: dict[str, int] = {}
    total = 0
    for line in text.splitlines():            # another dictionary: lines "word frequency [tag]"
        parts = line.split(" ")
        if len(parts) >= 2 and parts[1].strip().isdigit():
            f = int(parts[1])
            freq[parts[0]] = f
            total += f
    return freq, total
