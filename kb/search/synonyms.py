"""Synonym groups expanded at query time: curated (kb/data/search/synonyms.tsv) and mined.

Curated groups join the two translations' words, common usage and the English terms of
the Laws. A member with Latin letters (``penalty card``, ``lead out of turn``) is found
in a query as a whole phrase, longest first, before the query is cut into words.
``mine_parallel`` adds pairs learnt from the two translations of the same clauses (the
bridge works are aligned by id), weighted lower than curated ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kb.core.errors import KbError
from kb.search.analysis import DATA_DIR, normalize

SYNONYMS_PATH = DATA_DIR / "synonyms.tsv"
# General everyday (mainland, Taiwan) and English equivalences of the rule books' words,
# read after synonyms.tsv as part of the same groups file.
VOCABULARY_PATH = DATA_DIR / "vocabulary.tsv"
CURATED_PATHS = (SYNONYMS_PATH, VOCABULARY_PATH)


@dataclass
class Synonyms:
    """Word -> the other members of its groups; single-character groups kept apart."""

    groups: list[list[str]] = field(default_factory=list)
    index: dict[str, list[str]] = field(default_factory=dict)
    chars: dict[str, list[str]] = field(default_factory=dict)
    mined: dict[str, list[str]] = field(default_factory=dict)

    @property
    def phrases(self) -> list[str]:
        """Members with Latin letters, longest first (matched in a query as whole phrases)."""
        return sorted((m for m in self.index if any("a" <= c <= "z" for c in m)),
                      key=lambda m: (-len(m), m))

    def words(self) -> set[str]:
        """Every member written in ideographs only (added to the search lexicon)."""
        return {m for m in self.index if m and all("\u4e00" <= c <= "\u9fff" for c in m)}

    def with_mined(self, pairs: dict[str, list[str]]) -> Synonyms:
        """A copy with mined pairs (word -> words of the other translation) added."""
        return Synonyms(self.groups, self.index, self.chars, pairs)

    def expand(self, word: str) -> list[str]:
        """The other members of every group ``word`` belongs to (in file order, no repeats)."""
        return list(self.index.get(word, []))

    def expand_mined(self, word: str) -> list[str]:
        """The mined counterparts of ``word`` not already among its curated synonyms."""
        curated = self.index.get(word, [])
        return [m for m in self.mined.get(word, []) if m not in curated]

    def char_rewrites(self, word: str) -> list[str]:
        """``word`` with one single-character member replaced by another (和牌 -> 胡牌)."""
        out: list[str] = []
        if len(word) < 2:
            return out
        for i, ch in enumerate(word):
            for alt in self.chars.get(ch, []):
                cand = word[:i] + alt + word[i + 1:]
                if cand != word and cand not in out:
                    out.append(cand)
        return out


def parse_synonyms(text: str, source: str = "synonyms") -> Synonyms:
    """Parse the TSV format: one group per line, tab-separated members, ``#`` comments."""
    syn = Synonyms()
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        members: list[str] = []
        for m in line.split("\t"):
            m = " ".join(normalize(m).split())
            if m and m not in members:
                members.append(m)
        if not members:
            continue
        if len(members) < 2:
            raise KbError(f"{source}:{lineno}: a synonym group needs at least two members")
        syn.groups.append(members)
        single = all(len(m) == 1 for m in members)
        for m in members:
            others = syn.index.setdefault(m, [])
            for o in members:
                if o != m and o not in others:
                    others.append(o)
            if single:
                chars = syn.chars.setdefault(m, [])
                chars.extend(o for o in members if o != m and o not in chars)
    return syn


@lru_cache(maxsize=4)
def load_synonyms(path: str | None = None) -> Synonyms:
    """The curated groups (cached per process): ``path``, or by default synonyms.tsv and
    vocabulary.tsv read as one file."""
    syn = Synonyms()
    for p in (Path(path),) if path else CURATED_PATHS:
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise KbError(f"{p}: cannot read synonyms ({exc.strerror})") from None
        _merge(syn, parse_synonyms(text, str(p)))
    return syn


def _merge(into: Synonyms, more: Synonyms) -> None:
    """Add the groups of ``more`` to ``into`` (as if its lines followed)."""
    into.groups.extend(more.groups)
    for table, extra in ((into.index, more.index), (into.chars, more.chars)):
        for m, others in extra.items():
            have = table.setdefault(m, [])
            have.extend(o for o in others if o not in have)


def load_mined(index_dir: Path) -> dict[str, list[str]]:
    """The pairs mined from the two translations, as the index build wrote them (``mined.json``)."""
    import json

    path = Path(index_dir) / "mined.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise KbError(f"{path}: unreadable mined synonyms ({exc})") from None
    if not isinstance(data, dict):
        raise KbError(f"{path}: mined synonyms must be a JSON object")
    return {str(k): [str(x) for x in v] for k, v in data.items()}


MINE_MIN_PAIRS = 2      # a pair must co-occur in at least this many aligned clauses,
MINE_SURE_PAIRS = 3     # this many if the two words share no character,
MINE_MIN_DICE = 0.75    # and be that exclusive to each other (Dice coefficient)


def mine_parallel(aligned: list[tuple[list[str], list[str]]],
                  stop: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """Word pairs that stand for each other in two translations of the same clauses.

    ``aligned`` holds the words of each clause in the two translations. For every pair
    (a, b) with a only in the first text and b only in the second, count the clauses where
    both occur. Pairs are linked best first (Dice coefficient), each word at most once
    (competitive linking); a pair needs a Dice coefficient of MINE_MIN_DICE and
    MINE_MIN_PAIRS clauses, MINE_SURE_PAIRS if the words share no character
    (庄家 <-> 定约人, 引牌 <-> 攻牌, 触摸 <-> 触及). Symmetric result.
    """
    from collections import Counter

    ca: Counter[str] = Counter()
    cb: Counter[str] = Counter()
    cab: Counter[tuple[str, str]] = Counter()
    for wa, wb in aligned:
        sa, sb = set(wa), set(wb)
        only_a = {w for w in sa - sb if len(w) >= 2 and w not in stop}
        only_b = {w for w in sb - sa if len(w) >= 2 and w not in stop}
        ca.update(only_a)
        cb.update(only_b)
        cab.update((a, b) for a in only_a for b in only_b)
    out: dict[str, list[str]] = {}
    scored = sorted(((2 * n / (ca[a] + cb[b]), n, a, b) for (a, b), n in cab.items()
                     if n >= MINE_MIN_PAIRS), reverse=True)
    for dice, n, a, b in scored:
        if dice < MINE_MIN_DICE:
            break
        if a in out or b in out or (n < MINE_SURE_PAIRS and not set(a) & set(b)):
            continue
        out[a], out[b] = [b], [a]
    return out
