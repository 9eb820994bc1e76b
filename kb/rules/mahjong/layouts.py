"""Layouts: every reading of a hand as five sets and a pair (or 呖咕呖咕, or a flower win)."""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.rules.mahjong.hand import Hand
from kb.rules.mahjong.tiles import INDEX, TILES, chow_tiles, counts_of, decompositions, lilgu_pung, waits

PUNG_KINDS = ("pung", "kong")


@dataclass(frozen=True)
class Group:
    """One set of a layout: chow, pung or kong (a pair is kept apart)."""

    kind: str            # "chow" | "pung" | "kong"
    tile: str            # the pung's tile or the chow's lowest tile
    source: str          # "hand" | "chi" | "pon" | "kan" | "ankan"
    concealed: bool      # 暗: formed from dealt or drawn tiles (a pung done by a discard is not)
    winning: bool = False

    @property
    def tiles(self) -> list[str]:
        return chow_tiles(self.tile) if self.kind == "chow" else [self.tile] * (4 if self.kind == "kong" else 3)


@dataclass
class Layout:
    """One reading of the hand that the patterns are judged on."""

    hand: Hand
    form: str                                   # "standard" | "lilgu" | "flower"
    sets: list[Group] = field(default_factory=list)
    pairs: list[str] = field(default_factory=list)   # one pair, or seven for 呖咕呖咕
    waits: list[str] = field(default_factory=list)

    @property
    def counted(self) -> bool:
        """False for a flower win whose concealed hand is not counted (暗牌不计)."""
        return self.form != "flower"

    @property
    def tiles(self) -> list[str]:
        return list(self.hand.concealed) + [t for m in self.hand.melds for t in m.tiles]

    def pungs(self) -> list[Group]:
        return [g for g in self.sets if g.kind in PUNG_KINDS]


def _meld_groups(hand: Hand) -> list[Group]:
    out = []
    for m in hand.melds:
        if m.type == "chi":
            out.append(Group("chow", min(m.tiles, key=INDEX.__getitem__), "chi", False))
        else:
            out.append(Group("pung" if m.type == "pon" else "kong", m.tiles[0], m.type, m.type == "ankan"))
    return out


def layouts(hand: Hand) -> list[Layout]:
    """Every layout of the hand: each decomposition times each place of the winning tile."""
    concealed = counts_of(list(hand.concealed))
    n_sets = 5 - len(hand.melds)
    fixed = _meld_groups(hand)
    w = hand.winning_tile
    out: list[Layout] = []
    for pair, sets in decompositions(concealed, n_sets):
        places = (["pair"] if pair == w else []) + sorted({s for s in sets if w in _set_tiles(s)})
        for place in places:
            groups = list(fixed)
            for s in sets:
                kind, tile = s
                won = place == s
                groups.append(Group(kind, tile, "hand", kind == "pung" and (hand.self_drawn or not won), won))
            out.append(Layout(hand, "standard", groups, [pair]))
    pung = lilgu_pung(concealed) if hand.lilgu and not hand.melds else None
    if pung:
        rest = list(concealed)
        rest[INDEX[pung]] -= 3
        pairs = [t for t, n in zip(TILES, rest) for _ in range(n // 2)]
        in_pung = w == pung and rest[INDEX[w]] < 2     # the winning tile can only sit in the pung
        out.append(Layout(hand, "lilgu", [Group("pung", pung, "hand", hand.self_drawn or not in_pung, in_pung)], pairs))
    return out


def _set_tiles(s: tuple[str, str]) -> list[str]:
    return chow_tiles(s[1]) if s[0] == "chow" else [s[1]] * 3


def hand_waits(hand: Hand) -> list[str]:
    """Tiles that would complete the hand without its winning tile (basis of 独听)."""
    concealed = counts_of(list(hand.concealed))
    concealed[INDEX[hand.winning_tile]] -= 1
    own = list(concealed)
    for m in hand.melds:
        for t in m.tiles:
            own[INDEX[t]] += 1
    return waits(concealed, 5 - len(hand.melds), own, hand.lilgu and not hand.melds)

