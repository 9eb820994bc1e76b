"""Tiles of Taiwanese 16-tile mahjong: codes, names, decompositions and waits.

Tile codes: ``1m``–``9m`` (万), ``1p``–``9p`` (筒), ``1s``–``9s`` (索), winds
``E S W N``, dragons ``C F P`` (中 发 白), flowers ``f1``–``f8``
(春夏秋冬 梅兰竹菊). Internally a hand is a list of 34 counts indexed by
``INDEX``; sets are ``(kind, tile)`` pairs with kind ``"chow"`` (tile = its
lowest tile) or ``"pung"``.
"""
from __future__ import annotations

from collections.abc import Iterator

SUITS = ("m", "p", "s")
WINDS = ("E", "S", "W", "N")
DRAGONS = ("C", "F", "P")
HONORS = WINDS + DRAGONS
TILES: tuple[str, ...] = tuple(f"{n}{s}" for s in SUITS for n in range(1, 10)) + HONORS
INDEX: dict[str, int] = {t: i for i, t in enumerate(TILES)}
FLOWERS: tuple[str, ...] = tuple(f"f{i}" for i in range(1, 9))

_NUMERALS = "一二三四五六七八九"
_SUIT_NAMES = {"m": "万", "p": "筒", "s": "索"}
_HONOR_NAMES = {"E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白"}
_FLOWER_NAMES = dict(zip(FLOWERS, "春夏秋冬梅兰竹菊"))

Set = tuple[str, str]


def tile_name(code: str) -> str:
    """The Chinese name of a tile or flower code ("3s" -> "三索")."""
    if code in _HONOR_NAMES:
        return _HONOR_NAMES[code]
    if code in _FLOWER_NAMES:
        return _FLOWER_NAMES[code]
    return _NUMERALS[int(code[0]) - 1] + _SUIT_NAMES[code[1]]


def is_tile(code: object) -> bool:
    """True for a playing-tile code (not a flower)."""
    return isinstance(code, str) and code in INDEX


def is_honor(code: str) -> bool:
    return code in HONORS


def is_wind(code: str) -> bool:
    return code in WINDS


def is_dragon(code: str) -> bool:
    return code in DRAGONS


def suit_of(code: str) -> str | None:
    """The suit letter of a suited tile, None for an honor."""
    return None if code in HONORS else code[1]


def counts_of(tiles: list[str]) -> list[int]:
    """34 counts of a list of tile codes."""
    counts = [0] * len(TILES)
    for t in tiles:
        counts[INDEX[t]] += 1
    return counts


def chow_tiles(start: str) -> list[str]:
    """The three tiles of a chow given its lowest tile."""
    n, s = int(start[0]), start[1]
    return [f"{n + k}{s}" for k in range(3)]


def is_chow(tiles: list[str]) -> bool:
    """Three suited tiles of one suit in sequence (any order)."""
    if len(tiles) != 3 or any(t in HONORS for t in tiles):
        return False
    if len({t[1] for t in tiles}) != 1:
        return False
    nums = sorted(int(t[0]) for t in tiles)
    return nums[1] == nums[0] + 1 and nums[2] == nums[0] + 2


def is_meld(kind: str, tiles: list[str]) -> bool:
    """The tiles make a meld of ``kind``: chi a chow; pon three, kan and ankan four of one tile."""
    if kind == "chi":
        return is_chow(tiles)
    return len(tiles) == (3 if kind == "pon" else 4) and len(set(tiles)) == 1


def _sets(counts: list[int], need: int) -> Iterator[list[Set]]:
    """All ways to split counts into exactly ``need`` chows and pungs."""
    i = next((k for k, c in enumerate(counts) if c), None)
    if i is None:
        if need == 0:
            yield []
        return
    if need == 0:
        return
    if counts[i] >= 3:
        counts[i] -= 3
        for rest in _sets(counts, need - 1):
            yield [("pung", TILES[i])] + rest
        counts[i] += 3
    if i < 27 and i % 9 <= 6 and counts[i + 1] and counts[i + 2]:
        for k in (i, i + 1, i + 2):
            counts[k] -= 1
        for rest in _sets(counts, need - 1):
            yield [("chow", TILES[i])] + rest
        for k in (i, i + 1, i + 2):
            counts[k] += 1


def decompositions(counts: list[int], n_sets: int) -> list[tuple[str, tuple[Set, ...]]]:
    """Every distinct (pair, sets) split of the concealed counts into n_sets sets and a pair."""
    found: set[tuple[str, tuple[Set, ...]]] = set()
    work = list(counts)
    for i, c in enumerate(work):
        if c < 2:
            continue
        work[i] -= 2
        for sets in _sets(work, n_sets):
            found.add((TILES[i], tuple(sorted(sets))))
        work[i] += 2
    return sorted(found)


def has_decomposition(counts: list[int], n_sets: int) -> bool:
    """True if the counts split into n_sets sets and a pair."""
    work = list(counts)
    for i, c in enumerate(work):
        if c < 2:
            continue
        work[i] -= 2
        ok = next(_sets(work, n_sets), None) is not None
        work[i] += 2
        if ok:
            return True
    return False


def lilgu_pung(counts: list[int]) -> str | None:
    """The pung tile if 17 concealed counts are seven pairs and one pung (八对半), else None.

    Four of a kind may stand for two pairs.
    """
    if sum(counts) != 17:
        return None
    for i, c in enumerate(counts):
        if c >= 3 and all((n - 3 if k == i else n) % 2 == 0 for k, n in enumerate(counts)):
            return TILES[i]
    return None


def waits(concealed16: list[int], n_sets: int, own16: list[int], lilgu: bool) -> list[str]:
    """Tiles that complete a 16-tile hand (concealed part counts, sets still needed).

    ``own16`` counts every tile the player holds, a kong's fourth tile included; a tile
    whose four copies are all in the player's own hand cannot be waited on.
    """
    out = []
    for i, t in enumerate(TILES):
        if own16[i] >= 4:
            continue
        trial = list(concealed16)
        trial[i] += 1
        if has_decomposition(trial, n_sets) or (lilgu and n_sets == 5 and lilgu_pung(trial)):
            out.append(t)
    return out


def expand(text: str) -> list[str]:
    """Tile codes from a compact string: "123m 55p EEE" -> ["1m", "2m", "3m", "5p", "5p", "E", ...]."""
    out: list[str] = []
    digits = ""
    for ch in text.replace(" ", ""):
        if ch.isdigit() and ch != "0":
            digits += ch
        elif ch in SUITS and digits:
            out += [f"{d}{ch}" for d in digits]
            digits = ""
        elif ch in HONORS and not digits:
            out.append(ch)
        else:
            raise ValueError(f"bad tile text {text!r}")
    if digits:
        raise ValueError(f"bad tile text {text!r}")
    return out
