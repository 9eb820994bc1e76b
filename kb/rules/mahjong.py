"""Rules as code: the 台 of a winning hand under the Taiwanese 16-tile competition rules.

The scoring clauses are 计台名堂 1–36 of work ``twmj16`` (ids ``twmj16:patterns.N``) and
台数计算准则 (``twmj16:counting``). ``score(hand)`` takes a hand as a JSON-like dict:

==============  ==========================================================================
field           meaning (default)
==============  ==========================================================================
concealed       unexposed tiles, the winning tile included (required)
melds           ``[{"type": "chi"|"pon"|"kan"|"ankan", "tiles": [...]}]``; kan = 明杠 ([])
flowers         flower codes ``f1``–``f8`` held ([])
winning_tile    the tile that completed the hand; must be in ``concealed`` (required)
self_drawn      自摸 (false)
seat            开门序 1–4, seat wind 1=E 2=S 3=W 4=N; flowers f1/f5 belong to seat 1 (1)
round_wind      圈风 E S W N ("E")
dealer          the winner is the dealer (false)
from_dealer     a non-dealer wins and the dealer pays (放铳, or his share of a 自摸) (false)
dealer_streak   the dealer's 连庄 count N for 连N拉N (0)
after_kan       won on a replacement tile from the kong tail (杠上开花, 补花 included) (false)
last_tile       won on the last drawable tile (海底) (false)
robbing_kan     won by robbing another's 加杠 (抢杠) (false)
declared        null | "天听" | "地听" (null)
timing          null | "天胡" | "地胡" | "人胡" (null)
flower_win      null | "八仙过海" | "七抢一": a 花胡 with all eight flowers (null)
rob_case        七抢一 sub-case 1 or 2 (patterns 30.1 / 30.2) (1)
at_deal         the flower win is a 配牌花胡 (pattern 28) (false)
lilgu           allow the optional 呖咕呖咕 form (pattern 36, 选用) (true)
note            free text, ignored
==============  ==========================================================================

The result is ``{"total", "items", "excluded", "form", "groups", "waits"}``; items and
exclusions cite clause ids. Items of 0 台 (花胡, 配牌花胡) mark clauses that hold but carry no
台 of their own; 字一色并存减台 is a -4 item. Interpretive choices are in ``INTERPRETATIONS``;
``pattern_table()`` gives the 36 patterns with their readings for the site.
"""
from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.errors import KbError
from kb.rules.mahjong_tiles import (
    FLOWERS,
    INDEX,
    TILES,
    WINDS,
    chow_tiles,
    counts_of,
    decompositions,
    is_chow,
    is_dragon,
    is_honor,
    is_wind,
    lilgu_pung,
    suit_of,
    tile_name,
    waits,
)

WORK = "twmj16"
COUNTING = f"{WORK}:counting"
WINNING_FORM = f"{WORK}:winning-form"
WIN = f"{WORK}:win"
FLOWER_REPLACEMENT = f"{WORK}:flower-replacement"
EXAMPLES_PATH = Path(__file__).with_name("mahjong_examples.json")

MELD_TYPES = ("chi", "pon", "kan", "ankan")
PUNG_KINDS = ("pung", "kong")


def clause(number: int | str) -> str:
    """The clause id of scoring pattern ``number`` ("30.1" for a sub-case)."""
    return f"{WORK}:patterns.{number}"


# --------------------------------------------------------------------------- input

@dataclass(frozen=True)
class Meld:
    type: str
    tiles: tuple[str, ...]


@dataclass(frozen=True)
class Hand:
    """A validated hand (see the module docstring for the fields)."""

    concealed: tuple[str, ...]
    melds: tuple[Meld, ...]
    flowers: tuple[str, ...]
    winning_tile: str
    self_drawn: bool = False
    seat: int = 1
    round_wind: str = "E"
    dealer: bool = False
    from_dealer: bool = False
    dealer_streak: int = 0
    after_kan: bool = False
    last_tile: bool = False
    robbing_kan: bool = False
    declared: str | None = None
    timing: str | None = None
    flower_win: str | None = None
    rob_case: int = 1
    at_deal: bool = False
    lilgu: bool = True

    @property
    def seat_wind(self) -> str:
        return WINDS[self.seat - 1]

    @property
    def open_melds(self) -> list[Meld]:
        """Chi, pon and 明杠: the melds that break 门清."""
        return [m for m in self.melds if m.type != "ankan"]


_BOOL_FIELDS = ("self_drawn", "dealer", "from_dealer", "after_kan", "last_tile",
                "robbing_kan", "at_deal", "lilgu")
_CHOICE_FIELDS: dict[str, tuple[Any, ...]] = {
    "round_wind": WINDS,
    "declared": (None, "天听", "地听"),
    "timing": (None, "天胡", "地胡", "人胡"),
    "flower_win": (None, "八仙过海", "七抢一"),
    "rob_case": (1, 2),
}
KNOWN_FIELDS = frozenset(("concealed", "melds", "flowers", "winning_tile", "seat",
                          "dealer_streak", "note") + _BOOL_FIELDS + tuple(_CHOICE_FIELDS))


def _fail(zh: str, en: str) -> KbError:
    return KbError(f"{zh} / {en}")


def _tile_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise _fail(f"字段 {where} 须为牌码列表", f"field {where} must be a list of tile codes")
    for k, t in enumerate(value):
        if not isinstance(t, str):
            raise _fail(f"字段 {where}[{k}] 须为字符串牌码", f"field {where}[{k}] must be a tile-code string")
        if t not in INDEX:
            if t in FLOWERS:
                raise _fail(f"花牌 {t} 不得并入手牌（{where}[{k}]），应列入 flowers",
                            f"flower {t} in {where}[{k}]; list it under flowers")
            raise _fail(f"不存在的牌码 {t!r}（{where}[{k}]）", f"impossible tile code {t!r} in {where}[{k}]")
    return list(value)


def parse_hand(data: Any) -> Hand:
    """Check a hand dict and return a Hand; raise KbError naming the first fault."""
    if not isinstance(data, dict):
        raise _fail("手牌须为 JSON 对象", "hand must be a JSON object")
    for key in data:
        if key not in KNOWN_FIELDS:
            raise _fail(f"未知字段 {key}", f"unknown field: {key}")
    for key in ("concealed", "winning_tile"):
        if key not in data:
            raise _fail(f"缺少字段 {key}", f"missing field: {key}")
    concealed = _tile_list(data["concealed"], "concealed")
    win = data["winning_tile"]
    if not isinstance(win, str):
        raise _fail("字段 winning_tile 须为字符串牌码", "field winning_tile must be a tile-code string")
    if win not in INDEX:
        raise _fail(f"不存在的牌码 {win!r}（winning_tile）", f"impossible tile code {win!r} in winning_tile")

    melds_raw = data.get("melds", [])
    if not isinstance(melds_raw, list):
        raise _fail("字段 melds 须为列表", "field melds must be a list")
    melds = []
    for k, m in enumerate(melds_raw):
        where = f"melds[{k}]"
        if not isinstance(m, dict) or set(m) != {"type", "tiles"}:
            raise _fail(f"字段 {where} 须为含 type 与 tiles 的对象", f"field {where} must be an object with type and tiles")
        if m["type"] not in MELD_TYPES:
            raise _fail(f"字段 {where}.type 须为 chi/pon/kan/ankan", f"field {where}.type must be chi, pon, kan or ankan")
        tiles = _tile_list(m["tiles"], f"{where}.tiles")
        size = 3 if m["type"] in ("chi", "pon") else 4
        shape_ok = is_chow(tiles) if m["type"] == "chi" else len(tiles) == size and len(set(tiles)) == 1
        if not shape_ok:
            kind = {"chi": "三张同花色连续牌", "pon": "三张相同牌"}.get(m["type"], "四张相同牌")
            raise _fail(f"字段 {where}.tiles 须为{kind}", f"field {where}.tiles is not a valid {m['type']}")
        melds.append(Meld(m["type"], tuple(tiles)))

    flowers = data.get("flowers", [])
    if not isinstance(flowers, list):
        raise _fail("字段 flowers 须为 f1–f8 的列表", "field flowers must be a list of f1-f8")
    for k, f in enumerate(flowers):
        if not isinstance(f, str) or f not in FLOWERS:
            raise _fail(f"不存在的花牌码 {f!r}（flowers[{k}]），应为 f1–f8",
                        f"impossible flower code {f!r} in flowers[{k}] (f1-f8)")
    if len(set(flowers)) != len(flowers):
        raise _fail("字段 flowers 有重复的花牌", "field flowers holds a flower twice")

    opts: dict[str, Any] = {}
    for key in _BOOL_FIELDS:
        if key in data:
            if not isinstance(data[key], bool):
                raise _fail(f"字段 {key} 须为 true 或 false", f"field {key} must be true or false")
            opts[key] = data[key]
    for key, choices in _CHOICE_FIELDS.items():
        if key in data:
            val = data[key]
            if not any(val is c or (type(val) is type(c) and val == c) for c in choices):
                shown = "、".join("null" if c is None else str(c) for c in choices)
                raise _fail(f"字段 {key} 须为 {shown} 之一（得到 {val!r}）", f"field {key} must be one of {shown} (got {val!r})")
            opts[key] = val
    seat = data.get("seat", 1)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 4:
        raise _fail(f"字段 seat 须为 1–4 的整数（得到 {seat!r}）", f"field seat must be an integer 1-4 (got {seat!r})")
    streak = data.get("dealer_streak", 0)
    if isinstance(streak, bool) or not isinstance(streak, int) or streak < 0:
        raise _fail(f"字段 dealer_streak 须为非负整数（得到 {streak!r}）", f"field dealer_streak must be a non-negative integer (got {streak!r})")
    if "note" in data and not isinstance(data["note"], str):
        raise _fail("字段 note 须为字符串", "field note must be a string")

    count = len(concealed) + 3 * len(melds)
    if count != 17:
        raise _fail(f"牌数不对：{count} 张（应为 17 张，杠按 3 张计，不含花牌）",
                    f"wrong tile count: {count} (need 17; a kan counts as 3, flowers not counted)")
    every = concealed + [t for m in melds for t in m.tiles]
    over = sorted((t for t, n in Counter(every).items() if n > 4), key=INDEX.__getitem__)
    if over:
        t = over[0]
        raise _fail(f"同一张牌超过 4 张：{tile_name(t)}（{t}）{Counter(every)[t]} 张",
                    f"more than 4 of tile {t}: {Counter(every)[t]}")
    if win not in concealed:
        raise _fail(f"winning_tile {win} 不在 concealed 中（concealed 须含胡牌那张）",
                    f"field winning_tile {win} is not in concealed (concealed must include it)")

    hand = Hand(tuple(concealed), tuple(melds), tuple(flowers), win, seat=seat,
                dealer_streak=streak, **opts)
    _check_situation(hand, "rob_case" in data)
    return hand


def _check_situation(h: Hand, rob_case_given: bool) -> None:
    """Reject flag combinations the rules make impossible, naming the field."""
    def bad(zh: str, en: str) -> None:
        raise _fail(zh, en)

    if h.after_kan and not h.self_drawn:
        bad("after_kan（杠上开花）须同时 self_drawn 为 true", "field after_kan needs self_drawn true")
    if h.robbing_kan and h.self_drawn:
        bad("robbing_kan（抢杠）不能 self_drawn", "field robbing_kan cannot go with self_drawn")
    if h.dealer and h.from_dealer:
        bad("from_dealer 只用于闲家胡牌（dealer 为 false）", "field from_dealer is for a non-dealer's win only")
    if h.declared == "天听" and h.dealer:
        bad("declared 天听 只限闲家（dealer 须为 false）", "field declared 天听 is for a non-dealer only")
    if h.declared and h.open_melds:
        bad(f"declared {h.declared} 须门清（不得有吃、碰、明杠）", f"field declared {h.declared} needs no chi/pon/kan melds")
    if h.timing == "天胡" and not (h.dealer and h.self_drawn and h.declared is None):
        bad("timing 天胡 须 dealer 与 self_drawn 为 true、无 declared", "field timing 天胡 needs dealer and self_drawn true, no declared")
    if h.timing == "地胡" and h.dealer:
        bad("timing 地胡 只限闲家（dealer 须为 false）", "field timing 地胡 is for a non-dealer only")
    if h.timing in ("天胡", "地胡") and h.melds:
        bad(f"timing {h.timing} 时不得有副露或暗杠", f"field timing {h.timing} needs no melds")
    if h.timing == "人胡" and h.declared != "地听":
        bad("timing 人胡 须先 declared 地听", "field timing 人胡 needs declared 地听")
    if h.flower_win and len(h.flowers) != 8:
        bad(f"flower_win {h.flower_win} 须持全部 8 张花牌（flowers 只有 {len(h.flowers)} 张）",
            f"field flower_win needs all 8 flowers (flowers has {len(h.flowers)})")
    if rob_case_given and h.flower_win != "七抢一":
        bad("rob_case 只用于 flower_win 七抢一", "field rob_case is for flower_win 七抢一 only")
    if h.at_deal and not h.flower_win:
        bad("at_deal 只用于花胡（flower_win）", "field at_deal is for a flower win only")


# --------------------------------------------------------------------------- layouts

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


# --------------------------------------------------------------------------- patterns

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
    """A 计台名堂: its number, name, 台 as the text gives it, clause id and predicate."""

    number: int
    name: str
    tai: str
    clause: str
    award: Predicate
    hand_needed: bool = True     # judged on the tiles, so not for a flower win whose hand is not counted
    reading: str = ""            # the interpretive choice made where the text reads two ways

    def to_json(self) -> dict[str, Any]:
        out = {"number": self.number, "name": self.name, "tai": self.tai, "clause": self.clause}
        if self.reading:
            out["reading"] = self.reading
        return out


def _one(number: int, name: str, tai: int, cond: bool, detail: str = "") -> list[Item]:
    return [Item(number, name, tai, clause(number), detail)] if cond else []


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
            out.append(Item(1, "风字坎", len(parts), clause(1), f"{tile_name(g.tile)}坎：" + "、".join(parts)))
    return out


def _p2(lay: Layout) -> list[Item]:
    return [Item(2, "箭字坎", 1, clause(2), f"{tile_name(g.tile)}坎") for g in _dragon_pungs(lay)]


def _p5(lay: Layout) -> list[Item]:
    h = lay.hand
    ok = len(h.concealed) == 2 and all(m.type != "ankan" for m in h.melds) and not h.self_drawn
    return _one(5, "全求", 2, ok, "五副吃碰外露，单钓胡铳")


def _p6(lay: Layout) -> list[Item]:
    h = lay.hand
    return _one(6, "半求", 1, len(h.concealed) == 2 and h.self_drawn and bool(h.open_melds), "暗牌剩 1 张并自摸")


def _p7(lay: Layout) -> list[Item]:
    h = lay.hand
    ok = (_std(lay) and all(g.kind == "chow" for g in lay.sets) and not any(map(is_honor, lay.tiles))
          and not h.flowers and len(lay.waits) >= 2 and not h.self_drawn)
    return _one(7, "平胡", 2, ok)


def _p9(lay: Layout) -> list[Item]:
    h = lay.hand
    return _one(9, "作庄", 1, h.dealer or h.from_dealer, "庄家胡牌" if h.dealer else "庄家付")


def _p10(lay: Layout) -> list[Item]:
    h, n = lay.hand, lay.hand.dealer_streak
    return [Item(10, f"连{n}拉{n}", 2 * n, clause(10))] if n and (h.dealer or h.from_dealer) else []


def _suits(lay: Layout) -> set[str]:
    return {s for s in map(suit_of, lay.tiles) if s}


def _p13(lay: Layout) -> list[Item]:
    return _one(13, "字一色", 16, all(map(is_honor, lay.tiles)))


def _p14(lay: Layout) -> list[Item]:
    return _one(14, "清一色", 12, len(_suits(lay)) == 1 and not any(map(is_honor, lay.tiles)))


def _p15(lay: Layout) -> list[Item]:
    return _one(15, "凑一色", 4, len(_suits(lay)) == 1 and any(map(is_honor, lay.tiles)))


def _concealed_pungs(lay: Layout) -> int:
    return sum(1 for g in lay.pungs() if g.concealed)


def _p20(lay: Layout) -> list[Item]:
    return _one(20, "小四喜", 8, _std(lay) and len(_wind_pungs(lay)) == 3 and is_wind(lay.pairs[0]))


def _p22(lay: Layout) -> list[Item]:
    return _one(22, "小三元", 4, _std(lay) and len(_dragon_pungs(lay)) == 2 and is_dragon(lay.pairs[0]))


def _p26(lay: Layout) -> list[Item]:
    held = set(lay.hand.flowers)
    if len(held) == 8:
        return [Item(26, "满花", 8, clause(26), "持满花（8 张花牌）")]
    out = []
    for group, label in ((FLOWERS[:4], "春夏秋冬"), (FLOWERS[4:], "梅兰竹菊")):
        if set(group) <= held:
            out.append(Item(26, "花杠", 2, clause(26), f"{label}同色花杠"))
        elif group[lay.hand.seat - 1] in held:
            out.append(Item(26, "花牌", 1, clause(26), f"{tile_name(group[lay.hand.seat - 1])}合开门序"))
    return out


def _p30(lay: Layout) -> list[Item]:
    h = lay.hand
    if h.flower_win != "七抢一":
        return []
    return [Item(30, "七抢一", 8, clause(f"30.{h.rob_case}"), f"第 {h.rob_case} 种方式")]


PATTERNS: tuple[Pattern, ...] = (
    Pattern(1, "风字坎", "1", clause(1), _p1,
            reading="合开门序计 1 台，合圈序另计 1 台；只合圈序不合开门序者亦计 1 台（「加」指另加，不以合开门序为前提），两者皆不合者不计。"),
    Pattern(2, "箭字坎", "1", clause(2), _p2,
            reading="原文「合圈序加1台」未定义中发白与圈风的对应，无从判定，故箭字坎（及大三元、小三元）一律不加计圈序台。"),
    Pattern(3, "门清", "1", clause(3), lambda lay: _one(3, "门清", 1, not lay.hand.open_melds)),
    Pattern(4, "不求.自摸", "2", clause(4),
            lambda lay: _one(4, "不求.自摸", 2, not lay.hand.open_melds and lay.hand.self_drawn),
            reading="不求.自摸 2 台已含自摸之台：门清自摸＝门清 1＋不求.自摸 2＝3 台（门清一摸三），自摸（第 23 项）因必然并存不另计；天听、地听、地胡、人胡、五暗坎「不计门清、如自摸加计不求」即只计不求.自摸 2 台。"),
    Pattern(5, "全求", "2", clause(5), _p5,
            reading="全求须五副皆为吃、碰或明杠外露；有暗杠者非「皆已吃碰外露」，不计全求。"),
    Pattern(6, "半求", "1", clause(6), _p6,
            reading="半求须暗牌只剩 1 张并自摸，且至少有一副吃、碰或明杠；若其余皆为暗杠（门清），按不求.自摸计而不计半求。"),
    Pattern(7, "平胡", "2", clause(7), _p7,
            reading="「无字」指全手（含将）无字牌，「无坎」指五副皆为顺子（杠亦算坎），「非独听」按整手听牌张数判定（须听两张以上）。"),
    Pattern(8, "对对胡", "4", clause(8),
            lambda lay: _one(8, "对对胡", 4, _std(lay) and len(lay.pungs()) == 5)),
    Pattern(9, "作庄", "1", clause(9), _p9, hand_needed=False,
            reading="作庄「胡放皆加计」：庄家胡牌，或闲家胡牌而由庄家付（放铳或自摸时庄家那一份，字段 from_dealer），皆计 1 台；作庄与连N拉N 逐项累计（作庄明文「加计」）。"),
    Pattern(10, "连N拉N", "2N", clause(10), _p10, hand_needed=False,
            reading="N 取 dealer_streak（庄家连庄次数）；庄家胡牌计连N，闲家胡庄家计拉N，皆 2N 台，另加作庄 1 台。"),
    Pattern(11, "独听", "1", clause(11),
            lambda lay: _one(11, "独听", 1, len(lay.waits) == 1, f"只听{tile_name(lay.waits[0])}" if len(lay.waits) == 1 else ""),
            reading="独听按「只听一洞」判定：去掉胡牌那张後，能成胡的牌只有一种即为独听（含呖咕呖咕型）；单钓之牌同时可作边张或卡张者，仍只听一洞，计独听；自己已持 4 张之牌不算可听之牌。"),
    Pattern(12, "抢杠", "1", clause(12), lambda lay: _one(12, "抢杠", 1, lay.hand.robbing_kan)),
    Pattern(13, "字一色", "16", clause(13), _p13,
            reading="字一色含大/小四喜或大/小三元时，各项累计後只减除 4 台一次（另列「字一色并存减台」-4）。"),
    Pattern(14, "清一色", "12", clause(14), _p14),
    Pattern(15, "凑一色", "4", clause(15), _p15),
    Pattern(16, "三暗坎", "2", clause(16), lambda lay: _one(16, "三暗坎", 2, _concealed_pungs(lay) == 3),
            reading="暗坎指配得或摸得之坎子与暗杠；胡他家舍牌而成之坎不算暗坎（可将胡牌那张归入将或顺子时仍算暗坎，取台数高者）。三、四、五暗坎按实数只计一项。"),
    Pattern(17, "四暗坎", "5", clause(17), lambda lay: _one(17, "四暗坎", 5, _concealed_pungs(lay) == 4)),
    Pattern(18, "五暗坎", "13", clause(18), lambda lay: _one(18, "五暗坎", 13, _concealed_pungs(lay) == 5)),
    Pattern(19, "大四喜", "16", clause(19), lambda lay: _one(19, "大四喜", 16, len(_wind_pungs(lay)) == 4)),
    Pattern(20, "小四喜", "8", clause(20), _p20,
            reading="小四喜「合圈序加1台、合开门序加1台」按风字坎之坎子计（将牌合风不计），即风字坎照计。"),
    Pattern(21, "大三元", "8", clause(21), lambda lay: _one(21, "大三元", 8, len(_dragon_pungs(lay)) == 3)),
    Pattern(22, "小三元", "4", clause(22), _p22),
    Pattern(23, "自摸", "1", clause(23), lambda lay: _one(23, "自摸", 1, lay.hand.self_drawn)),
    Pattern(24, "杠上开花", "1", clause(24), lambda lay: _one(24, "杠上开花", 1, lay.hand.after_kan),
            reading="「於杠尾补牌」包括补花（补花亦於杠尾补入，见补花条）；加计自摸照第 4、23 项计。"),
    Pattern(25, "海底捞月", "1", clause(25),
            lambda lay: _one(25, "海底捞月", 1, lay.hand.last_tile and lay.hand.self_drawn),
            reading="海底捞月以摸得海底牌成胡为限；胡他家打出的最後一张牌，本规则无此名堂，不计。"),
    Pattern(26, "花牌", "1/2/8", clause(26), _p26, hand_needed=False,
            reading="每色花（春夏秋冬、梅兰竹菊）中合开门序之一张计 1 台；同色四张齐为花杠，该色改计 2 台；8 张齐为满花，改计 8 台（不再计花杠与花牌）。"),
    Pattern(27, "花胡", "—", clause(27),
            lambda lay: _one(27, "花胡", 0, bool(lay.hand.flower_win), "视同正式之胡牌"), hand_needed=False,
            reading="花胡本身无台数，列为 0 台项以示成立；台数由八仙过海或七抢一计。"),
    Pattern(28, "配牌花胡", "—", clause(28),
            lambda lay: _one(28, "配牌花胡", 0, lay.hand.at_deal, "起手配牌得花，补牌後摸第 1 张时胡"), hand_needed=False,
            reading="配牌花胡本身无台数，列为 0 台项；台数照八仙过海或七抢一计。"),
    Pattern(29, "八仙过海", "8", clause(29),
            lambda lay: _one(29, "八仙过海", 8, lay.hand.flower_win == "八仙过海"), hand_needed=False,
            reading="八仙过海（及七抢一）之 8 台即满花之花牌台，两者必然并存，不另计花牌；手牌只在补得之牌恰成杠上开花（after_kan 且成胡）时照算牌面，否则暗牌不计，只加庄、连拉台。"),
    Pattern(30, "七抢一", "8", clause(30), _p30, hand_needed=False,
            reading="七抢一两种方式皆计 8 台（分引 patterns.30.1、30.2）；补得之牌恰成杠上开花时牌面照算，含杠上开花与自摸（self_drawn、after_kan 皆为 true），即使方式一付款仍视同被抢花者放铳；谁付与底注（三家或被抢花者）不在台数内。"),
    Pattern(31, "天听", "8", clause(31), lambda lay: _one(31, "天听", 8, lay.hand.declared == "天听")),
    Pattern(32, "地听", "4", clause(32), lambda lay: _one(32, "地听", 4, lay.hand.declared == "地听")),
    Pattern(33, "天胡", "16", clause(33), lambda lay: _one(33, "天胡", 16, lay.hand.timing == "天胡"),
            reading="「不计门清一摸三」即不计门清、不求.自摸与自摸（「一摸三」之摸即自摸）；其余名堂（含独听，按所给胡牌张判定）照计。"),
    Pattern(34, "地胡", "16", clause(34), lambda lay: _one(34, "地胡", 16, lay.hand.timing == "地胡")),
    Pattern(35, "人胡", "8", clause(35), lambda lay: _one(35, "人胡", 8, lay.hand.timing == "人胡")),
    Pattern(36, "呖咕呖咕", "8", clause(36),
            lambda lay: _one(36, "呖咕呖咕", 8, lay.form == "lilgu"),
            reading="七个对子中四张相同可作两对；须门清且无副露（暗杠亦不可）；门清与之必然并存不另计；刻子为有价字牌者依风字坎/箭字坎加计；凑一色、清一色、字一色及独听、花牌、作庄等照计，自摸时计不求.自摸 2 台（同天听之例）。为选用规则，默认采用（lilgu: false 可停用）。"),
)

BY_NUMBER: dict[int, Pattern] = {p.number: p for p in PATTERNS}


@dataclass(frozen=True)
class Exclusion:
    """When pattern ``by`` is counted, pattern ``drops`` is not (the text's 不计… / 必然并存)."""

    by: int
    drops: int
    why: str
    clause: str


EXCLUSIONS: tuple[Exclusion, ...] = (
    Exclusion(13, 8, "字一色不计对对胡（必然并存）", clause(13)),
    Exclusion(18, 3, "五暗坎不计门清", clause(18)),
    Exclusion(18, 8, "五暗坎不计对对胡", clause(18)),
    Exclusion(19, 1, "大四喜圈序与开门序不另计台（必然并存）", clause(19)),
    Exclusion(21, 2, "大三元箭字坎不另计台", clause(21)),
    Exclusion(22, 2, "小三元箭字坎不另计台", clause(22)),
    Exclusion(33, 3, "天胡不计门清一摸三", clause(33)),
    Exclusion(33, 4, "天胡不计门清一摸三", clause(33)),
    Exclusion(33, 23, "天胡不计门清一摸三", clause(33)),
    Exclusion(34, 31, "地胡不计天听", clause(34)),
    Exclusion(34, 3, "地胡不计门清", clause(34)),
    Exclusion(35, 32, "人胡不计地听", clause(35)),
    Exclusion(35, 3, "人胡不计门清", clause(35)),
    Exclusion(31, 3, "天听不计门清", clause(31)),
    Exclusion(32, 3, "地听不计门清", clause(32)),
    Exclusion(36, 3, "呖咕呖咕必须门清，门清与之必然并存，仅计较高者", COUNTING),
    Exclusion(29, 26, "八仙过海已含满花之花牌台（必然并存）", COUNTING),
    Exclusion(30, 26, "七抢一已含满花之花牌台（必然并存）", COUNTING),
    Exclusion(4, 23, "不求.自摸已含自摸（必然并存，仅计较高者）", COUNTING),
)

# Interpretive choices beyond single patterns.
_GENERAL_READINGS = (
    {"clause": COUNTING, "name": "台数计算准则",
     "reading": "牌张可有多种组法时，逐一计台，取总台数最高的一种（同分取先得者）；「特别注明」的加计（全求加独听、半求含独听自摸、杠上开花与海底捞月加计自摸、作庄加计、门清一摸三、天听等加计不求.自摸）照明文累计。"},
    {"clause": WINNING_FORM, "name": "胡牌型态",
     "reading": "17 张不含花牌与杠牌逾张：每副杠只算 3 张，作一副坎子；八仙过海与七抢一之手牌亦须足 17 张，但不必成胡。"},
    {"clause": FLOWER_REPLACEMENT, "name": "补花",
     "reading": "补花於杠尾补牌，补得之牌成胡亦为杠上开花（after_kan）。"},
)

INTERPRETATIONS: list[dict[str, str]] = [
    {"clause": p.clause, "name": p.name, "reading": p.reading} for p in PATTERNS if p.reading
] + list(_GENERAL_READINGS)

ADJUST_ZI = "字一色并存减台"


def pattern_table() -> list[dict[str, Any]]:
    """The 36 patterns as JSON-ready rows (number, name, tai, clause, reading)."""
    return [p.to_json() for p in PATTERNS]


# --------------------------------------------------------------------------- scoring

@dataclass
class Scored:
    layout: Layout
    items: list[Item]
    excluded: list[dict[str, Any]]

    @property
    def total(self) -> int:
        return sum(i.tai for i in self.items)


def _judge(lay: Layout) -> Scored:
    items = [i for p in PATTERNS if lay.counted or not p.hand_needed for i in p.award(lay)]
    excluded: list[dict[str, Any]] = []
    for rule in EXCLUSIONS:
        if any(i.number == rule.by for i in items):
            for it in [i for i in items if i.number == rule.drops]:
                items.remove(it)
                excluded.append({"name": it.name, "tai": it.tai, "why": rule.why, "clause": rule.clause})
    if any(i.number == 13 for i in items) and any(i.number in (19, 20, 21, 22) for i in items):
        with_ = "、".join(i.name for i in items if i.number in (19, 20, 21, 22))
        pos = next(k for k, i in enumerate(items) if i.number == 13) + 1
        items.insert(pos, Item(13, ADJUST_ZI, -4, clause(13), f"字一色含{with_}，累计後减除 4 台"))
    return Scored(lay, items, excluded)


_FORM_NAMES = {"standard": "一般", "lilgu": "呖咕呖咕", "flower": "花胡（暗牌不计）"}
_KIND_NAMES = {"chow": "顺", "pung": "坎", "kong": "杠"}


def _groups_json(lay: Layout) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for g in lay.sets:
        out.append({"kind": _KIND_NAMES[g.kind], "tiles": g.tiles, "source": g.source,
                    "concealed": g.concealed, "winning": g.winning})
    for p in lay.pairs:
        out.append({"kind": "将" if lay.form == "standard" else "对", "tiles": [p, p], "source": "hand",
                    "concealed": True, "winning": False})
    return out


def score(hand: dict[str, Any]) -> dict[str, Any]:
    """The 台 of a winning hand: total, items with clause ids, and what was not counted and why.

    Raises KbError (one line, Chinese / English) for input that is not a winning hand.
    """
    h = parse_hand(hand)
    lays = layouts(h)
    if h.flower_win and not (h.after_kan and lays):
        lays = [Layout(h, "flower")]
    if not lays:
        raise _fail("不成胡：无法组成五副顺子/坎子/杠子与一对将", "not a winning hand: no decomposition into five sets and a pair")
    w = hand_waits(h) if lays[0].counted else []
    for lay in lays:
        lay.waits = w
    best = max((_judge(lay) for lay in lays), key=lambda s: s.total)
    return {
        "total": best.total,
        "items": [i.to_json() for i in best.items],
        "excluded": best.excluded,
        "form": _FORM_NAMES[best.layout.form],
        "groups": _groups_json(best.layout),
        "waits": list(w),
    }


# --------------------------------------------------------------------------- examples

def load_examples(path: Path | str | None = None) -> list[dict[str, Any]]:
    """The worked examples (a JSON list); KbError if the file is missing or malformed."""
    p = Path(path) if path is not None else EXAMPLES_PATH
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise _fail(f"读不到例题文件 {p}", f"cannot read examples file {p}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise _fail(f"例题文件 {p} 不是合法 JSON（第 {exc.lineno} 行）", f"examples file {p} is not valid JSON (line {exc.lineno})") from None
    if not isinstance(data, list):
        raise _fail(f"例题文件 {p} 须为列表", f"examples file {p} must hold a list")
    return data


def known_clauses() -> set[str]:
    """Clause ids this module may cite."""
    ids = {p.clause for p in PATTERNS} | {clause("30.1"), clause("30.2")}
    return ids | {COUNTING, WINNING_FORM, WIN, FLOWER_REPLACEMENT}


def check_examples(path: Path | str | None = None) -> list[dict[str, Any]]:
    """Score every worked example; return them with results, or raise KbError naming a mismatch.

    An example matches when its total is equal and its item names agree as a multiset.
    """
    out = []
    clauses = known_clauses()
    for k, ex in enumerate(load_examples(path), 1):
        title = ex.get("title", "?") if isinstance(ex, dict) else "?"
        label = f"例题 {k}「{title}」"
        if not isinstance(ex, dict) or not {"title", "clause", "hand", "expect"} <= set(ex) \
                or not isinstance(ex["expect"], dict) or not {"total", "items"} <= set(ex["expect"]):
            raise _fail(f"{label} 缺少 title/clause/hand/expect(total, items)", f"example {k} lacks title/clause/hand/expect(total, items)")
        if ex["clause"] not in clauses:
            raise _fail(f"{label} 引用了未知条款 {ex['clause']}", f"example {k} cites unknown clause {ex['clause']}")
        try:
            result = score(ex["hand"])
        except KbError as exc:
            raise KbError(f"{label}：{exc}") from None
        got_names = [i["name"] for i in result["items"]]
        want = ex["expect"]
        if result["total"] != want["total"] or Counter(got_names) != Counter(want["items"]):
            raise _fail(
                f"{label} 不符：预期 {want['total']} 台 {want['items']}，算得 {result['total']} 台 {got_names}",
                f"example {k} mismatch: expected {want['total']}, got {result['total']}")
        out.append({**ex, "result": result})
    return out


# --------------------------------------------------------------------------- command line

class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _fail(f"命令行参数有误：{message}", f"bad arguments: {message}")


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _width(text))


def format_table(result: dict[str, Any]) -> str:
    """The human (Chinese) table of a score result."""
    lines = [f"牌型：{result['form']}"]
    if result["groups"]:
        lines.append("组合：" + " ".join(f"{g['kind']}[{''.join(g['tiles'])}]" for g in result["groups"]))
    if result["waits"]:
        lines.append("听牌：" + "、".join(tile_name(t) for t in result["waits"]))
    rows = [(i["name"], str(i["tai"]), i["clause"], i.get("detail", "")) for i in result["items"]]
    width = max([_width("名堂")] + [_width(r[0]) for r in rows]) + 2
    cwidth = max([_width("条款")] + [_width(r[2]) for r in rows]) + 2
    lines.append(_pad("名堂", width) + _pad("台", 5) + _pad("条款", cwidth) + "说明")
    lines += [(_pad(name, width) + _pad(tai, 5) + _pad(cl, cwidth) + detail).rstrip()
              for name, tai, cl, detail in rows]
    if result["excluded"]:
        lines.append("不计：")
        lines += [f"  {e['name']}（{e['tai']} 台）：{e['why']}  {e['clause']}" for e in result["excluded"]]
    lines.append(f"合计：{result['total']} 台")
    return "\n".join(lines)


def _read_hand(name: str) -> Any:
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise _fail(f"读不到文件 {name}", f"cannot read {name}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise _fail(f"文件 {name} 不是 UTF-8 文本", f"{name} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(f"{name} 不是合法 JSON（第 {exc.lineno} 行第 {exc.colno} 列）",
                    f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None


def main(argv: list[str]) -> int:
    """``mahjong score FILE|- [--json]``: print the 台 of a hand; bad input -> one line, exit 2."""
    parser = _Parser(prog="kb mahjong", description="台湾十六张麻将计台")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("score", help="计算一手胡牌的台数（手牌 JSON 取自 FILE，- 为标准输入）")
    p.add_argument("file", metavar="FILE", help="手牌 JSON 文件，- 为标准输入")
    p.add_argument("--json", action="store_true", help="输出 JSON")
    argv = list(argv)
    if argv[:1] == ["mahjong"]:
        argv = argv[1:]
    try:
        args = parser.parse_args(argv)
        result = score(_read_hand(args.file))
    except KbError as exc:
        print(f"kb mahjong: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(format_table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
