"""The 36 计台名堂 (twmj16:patterns.N): names, 台 and readings from kb/data/mahjong/patterns.tsv,
each with the predicate that awards it on a layout.

The data file is the one source of a pattern's name and 台 (as the text gives them); the scorer,
the site's pattern table (:func:`pattern_rows`) and the tests read it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kb.core.curated import Table, read_table
from kb.core.errors import KbError
from kb.rules.mahjong.hand import clause
from kb.rules.mahjong.layouts import Group, Layout
from kb.rules.mahjong.tiles import FLOWERS, is_dragon, is_honor, is_wind, suit_of, tile_name

PATTERN_TABLE = Table("mahjong/patterns.tsv", ("number", "name", "tai", "reading"), optional=("reading",),
                      unique=("number",), may_be_empty=("tai", "reading"))


@dataclass(frozen=True)
class PatternRow:
    """One pattern as the data file gives it."""

    number: int
    name: str
    tai: str            # as the text gives it: "16", "2N"; "" where it gives none
    reading: str
    where: str


def _load() -> dict[int, PatternRow]:
    rows: dict[int, PatternRow] = {}
    for row in read_table(PATTERN_TABLE):
        if not row["number"].isdigit():
            raise KbError(f"{row.where}: number '{row['number']}' is not a pattern number")
        n = int(row["number"])
        rows[n] = PatternRow(n, row["name"], row["tai"], row.get("reading"), row.where)
    if sorted(rows) != list(range(1, 37)):
        raise KbError(f"{PATTERN_TABLE.file()}: needs patterns 1–36 once each, has {sorted(rows)}")
    return rows


ROWS: dict[int, PatternRow] = _load()


def name(number: int) -> str:
    """The pattern's name as the text gives it."""
    return ROWS[number].name


def tai(number: int) -> int:
    """The pattern's 台 as an integer (0 where the text gives none)."""
    text = ROWS[number].tai
    if not text:
        return 0
    if not text.isdigit():
        raise KbError(f"{ROWS[number].where}: 台 '{text}' of pattern {number} is not a number")
    return int(text)


def pattern_rows() -> list[dict[str, Any]]:
    """The 36 patterns for the site's table: number, name, tai (text as given, "" if none), clause, reading."""
    return [{"number": r.number, "name": r.name, "tai": r.tai, "clause": clause(r.number), "reading": r.reading}
            for r in ROWS.values()]


@dataclass
class Item:
    """One scored (or excluded) line: a pattern's 台 with its clause."""

    number: int
    name: str
    tai: int
    clause: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "tai": self.tai, "clause": self.clause}
        if self.detail:
            out["detail"] = self.detail
        return out


Predicate = Callable[[Layout], list[Item]]


@dataclass(frozen=True)
class Pattern:
    """A 计台名堂: its number and the predicate that awards it; name, 台 and reading from the data."""

    number: int
    award: Predicate
    hand_needed: bool = True     # judged on the tiles, so not for a flower win whose hand is not counted

    @property
    def name(self) -> str:
        return name(self.number)

    @property
    def tai(self) -> str:
        return ROWS[self.number].tai

    @property
    def clause(self) -> str:
        return clause(self.number)

    @property
    def reading(self) -> str:
        return ROWS[self.number].reading


def _one(number: int, cond: bool, detail: str = "") -> list[Item]:
    return [Item(number, name(number), tai(number), clause(number), detail)] if cond else []


def _wind_pungs(lay: Layout) -> list[Group]:
    return [g for g in lay.pungs() if is_wind(g.tile)]


def _dragon_pungs(lay: Layout) -> list[Group]:
    return [g for g in lay.pungs() if is_dragon(g.tile)]


def _std(lay: Layout) -> bool:
    return lay.form == "standard"


def _p1(lay: Layout) -> list[Item]:
    out = []
    for g in _wind_pungs(lay):
        parts = [label for label, wind in (("合开门序", lay.hand.seat_wind), ("合圈序", lay.hand.round_wind))
                 if g.tile == wind]
        if parts:
            out.append(Item(1, name(1), len(parts), clause(1), f"{tile_name(g.tile)}坎：" + "、".join(parts)))
    return out


def _p2(lay: Layout) -> list[Item]:
    return [Item(2, name(2), tai(2), clause(2), f"{tile_name(g.tile)}坎") for g in _dragon_pungs(lay)]


def _p5(lay: Layout) -> list[Item]:
    h = lay.hand
    ok = len(h.concealed) == 2 and all(m.type != "ankan" for m in h.melds) and not h.self_drawn
    return _one(5, ok, "五副吃碰外露，单钓胡铳")


def _p6(lay: Layout) -> list[Item]:
    h = lay.hand
    return _one(6, len(h.concealed) == 2 and h.self_drawn and bool(h.open_melds), "暗牌剩 1 张并自摸")


def _p7(lay: Layout) -> list[Item]:
    h = lay.hand
    ok = (_std(lay) and all(g.kind == "chow" for g in lay.sets) and not any(map(is_honor, lay.tiles))
          and not h.flowers and len(lay.waits) >= 2 and not h.self_drawn)
    return _one(7, ok)


def _p9(lay: Layout) -> list[Item]:
    h = lay.hand
    return _one(9, h.dealer or h.from_dealer, "庄家胡牌" if h.dealer else "庄家付")


def _p10(lay: Layout) -> list[Item]:
    h, n = lay.hand, lay.hand.dealer_streak
    return [Item(10, f"连{n}拉{n}", 2 * n, clause(10), "庄家连N闲家一律拉N，2N台")] if n and (h.dealer or h.from_dealer) else []


def _suits(lay: Layout) -> set[str]:
    return {s for s in map(suit_of, lay.tiles) if s}


def _p13(lay: Layout) -> list[Item]:
    return _one(13, all(map(is_honor, lay.tiles)))


def _p14(lay: Layout) -> list[Item]:
    return _one(14, len(_suits(lay)) == 1 and not any(map(is_honor, lay.tiles)))


def _p15(lay: Layout) -> list[Item]:
    return _one(15, len(_suits(lay)) == 1 and any(map(is_honor, lay.tiles)))


def _concealed_pungs(lay: Layout) -> int:
    return sum(1 for g in lay.pungs() if g.concealed)


def _p20(lay: Layout) -> list[Item]:
    return _one(20, _std(lay) and len(_wind_pungs(lay)) == 3 and is_wind(lay.pairs[0]))


def _p22(lay: Layout) -> list[Item]:
    return _one(22, _std(lay) and len(_dragon_pungs(lay)) == 2 and is_dragon(lay.pairs[0]))


def _p26(lay: Layout) -> list[Item]:
    held = set(lay.hand.flowers)
    if len(held) == 8:
        return [Item(26, "满花", 8, clause(26), "持满花（8 张花牌）")]
    out = []
    for group, label in ((FLOWERS[:4], "春夏秋冬"), (FLOWERS[4:], "梅兰竹菊")):
        if set(group) <= held:
            out.append(Item(26, "花杠", 2, clause(26), f"{label}同色花杠"))
        elif group[lay.hand.seat - 1] in held:
            out.append(Item(26, name(26), tai(26), clause(26), f"{tile_name(group[lay.hand.seat - 1])}合开门序"))
    return out


def _p30(lay: Layout) -> list[Item]:
    h = lay.hand
    if h.flower_win != "七抢一":
        return []
    return [Item(30, name(30), tai(30), clause(f"30.{h.rob_case}"), f"第 {h.rob_case} 种方式")]


PATTERNS: tuple[Pattern, ...] = (
    Pattern(1, _p1),
    Pattern(2, _p2),
    Pattern(3, lambda lay: _one(3, not lay.hand.open_melds)),
    Pattern(4, lambda lay: _one(4, not lay.hand.open_melds and lay.hand.self_drawn)),
    Pattern(5, _p5),
    Pattern(6, _p6),
    Pattern(7, _p7),
    Pattern(8, lambda lay: _one(8, _std(lay) and len(lay.pungs()) == 5)),
    Pattern(9, _p9, hand_needed=False),
    Pattern(10, _p10, hand_needed=False),
    Pattern(11, lambda lay: _one(11, len(lay.waits) == 1, f"只听{tile_name(lay.waits[0])}" if len(lay.waits) == 1 else "")),
    Pattern(12, lambda lay: _one(12, lay.hand.robbing_kan)),
    Pattern(13, _p13),
    Pattern(14, _p14),
    Pattern(15, _p15),
    Pattern(16, lambda lay: _one(16, _concealed_pungs(lay) == 3)),
    Pattern(17, lambda lay: _one(17, _concealed_pungs(lay) == 4)),
    Pattern(18, lambda lay: _one(18, _concealed_pungs(lay) == 5)),
    Pattern(19, lambda lay: _one(19, len(_wind_pungs(lay)) == 4)),
    Pattern(20, _p20),
    Pattern(21, lambda lay: _one(21, len(_dragon_pungs(lay)) == 3)),
    Pattern(22, _p22),
    Pattern(23, lambda lay: _one(23, lay.hand.self_drawn)),
    Pattern(24, lambda lay: _one(24, lay.hand.after_kan)),
    Pattern(25, lambda lay: _one(25, lay.hand.last_tile and lay.hand.self_drawn)),
    Pattern(26, _p26, hand_needed=False),
    Pattern(27, lambda lay: _one(27, bool(lay.hand.flower_win), "视同正式之胡牌"), hand_needed=False),
    Pattern(28, lambda lay: _one(28, lay.hand.at_deal, "起手配牌得花，补牌后摸第 1 张时胡"), hand_needed=False),
    Pattern(29, lambda lay: _one(29, lay.hand.flower_win == "八仙过海"), hand_needed=False),
    Pattern(30, _p30, hand_needed=False),
    Pattern(31, lambda lay: _one(31, lay.hand.declared == "天听")),
    Pattern(32, lambda lay: _one(32, lay.hand.declared == "地听")),
    Pattern(33, lambda lay: _one(33, lay.hand.timing == "天胡")),
    Pattern(34, lambda lay: _one(34, lay.hand.timing == "地胡")),
    Pattern(35, lambda lay: _one(35, lay.hand.timing == "人胡")),
    Pattern(36, lambda lay: _one(36, lay.form == "lilgu")),
)

BY_NUMBER: dict[int, Pattern] = {p.number: p for p in PATTERNS}

if sorted(BY_NUMBER) != sorted(ROWS):
    raise KbError(f"{PATTERN_TABLE.file()}: patterns {sorted(set(ROWS) ^ set(BY_NUMBER))} lack a predicate or a row")
