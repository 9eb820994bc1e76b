"""Curated synonym groups (kb/data/search/synonyms.tsv), expanded at query time."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kb.errors import KbError
from kb.search.analysis import DATA_DIR, normalize

SYNONYMS_PATH = DATA_DIR / "synonyms.tsv"


@dataclass
class Synonyms:
    """Word -> the other members of its groups; single-character groups kept apart."""

    groups: list[list[str]] = field(default_factory=list)
    index: dict[str, list[str]] = field(default_factory=dict)
    chars: dict[str, list[str]] = field(default_factory=dict)

    def expand(self, word: str) -> list[str]:
        """The other members of every group ``word`` belongs to (in file order, no repeats)."""
        return list(self.index.get(word, []))

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
def load_synonyms(path: str = str(SYNONYMS_PATH)) -> Synonyms:
    """The curated groups (cached per process)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise KbError(f"{p}: cannot read synonyms ({exc.strerror})") from None
    return parse_synonyms(text, str(p))
