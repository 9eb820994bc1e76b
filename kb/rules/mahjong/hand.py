"""A mahjong hand as input: the fields, their checks and the situation flags (twmj16).

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
dealer_streak   the dealer's 连庄 count N for 连N拉N, 0–99 (0)
after_kan       won on a replacement tile from the kong tail (杠上开花, 补花 included) (false)
last_tile       won on the last tile: drawn (海底捞月, with self_drawn), or the last discard (河底: no 台) (false)
robbing_kan     won by robbing another's 加杠 (抢杠) (false)
declared        null | "天听" | "地听" (null)
timing          null | "天胡" | "地胡" | "人胡" (null)
flower_win      null | "八仙过海" | "七抢一": a 花胡 with all eight flowers (null)
rob_case        七抢一 sub-case 1 or 2 (patterns 30.1 / 30.2) (1)
at_deal         the flower win is a 配牌花胡 (pattern 28) (false)
lilgu           allow the optional 呖咕呖咕 form (pattern 36, 选用) (true)
note            free text, ignored
==============  ==========================================================================

A hand may also be written as one line (kb.rules.mahjong.notation), e.g. ``123m456p789s5566z6z 碰111s``.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from kb.core.errors import KbError
from kb.rules.mahjong.tiles import FLOWERS, INDEX, WINDS, is_meld, tile_name

WORK = "twmj16"
COUNTING = f"{WORK}:counting"
WINNING_FORM = f"{WORK}:winning-form"
WIN = f"{WORK}:win"
FLOWER_REPLACEMENT = f"{WORK}:flower-replacement"

MELD_TYPES = ("chi", "pon", "kan", "ankan")
MAX_STREAK = 99              # 连庄 count accepted (the text sets no limit; this bounds the input)


def clause(number: int | str) -> str:
    """The clause id of scoring pattern ``number`` ("30.1" for a sub-case)."""
    return f"{WORK}:patterns.{number}"



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
CHOICES = _CHOICE_FIELDS        # the values a choice field takes (the browser's wordings read them)
KNOWN_FIELDS = frozenset(("concealed", "melds", "flowers", "winning_tile", "seat",
                          "dealer_streak", "note") + _BOOL_FIELDS + tuple(_CHOICE_FIELDS))


class BilingualError(KbError):
    """A KbError in Chinese and English (``中文 / English``): the API answers both, the command line
    and the calculator the Chinese half (``chinese``)."""

    def __init__(self, zh: str, en: str):
        super().__init__(f"{zh} / {en}")
        self.chinese = KbError(zh).args[0]


def fail(zh: str, en: str) -> KbError:
    """A one-line KbError in Chinese and English."""
    return BilingualError(zh, en)


def _tile_list(value: Any, where: str) -> list[str]:
    if not isinstance(value, list):
        raise fail(f"字段 {where} 须为牌码列表", f"field {where} must be a list of tile codes")
    for k, t in enumerate(value):
        if not isinstance(t, str):
            raise fail(f"字段 {where}[{k}] 须为字符串牌码", f"field {where}[{k}] must be a tile-code string")
        if t not in INDEX:
            if t in FLOWERS:
                raise fail(f"花牌 {t} 不得并入手牌（{where}[{k}]），应列入 flowers",
                            f"flower {t} in {where}[{k}]; list it under flowers")
            raise fail(f"不存在的牌码 {t!r}（{where}[{k}]）", f"impossible tile code {t!r} in {where}[{k}]")
    return list(value)


def parse_hand(data: Any) -> Hand:
    """Check a hand dict and return a Hand; raise KbError naming the first fault."""
    if not isinstance(data, dict):
        raise fail("手牌须为 JSON 对象", "hand must be a JSON object")
    for key in data:
        if key not in KNOWN_FIELDS:
            raise fail(f"未知字段 {key}", f"unknown field: {key}")
    for key in ("concealed", "winning_tile"):
        if key not in data:
            raise fail(f"缺少字段 {key}", f"missing field: {key}")
    concealed = _tile_list(data["concealed"], "concealed")
    win = data["winning_tile"]
    if not isinstance(win, str):
        raise fail("字段 winning_tile 须为字符串牌码", "field winning_tile must be a tile-code string")
    if win not in INDEX:
        raise fail(f"不存在的牌码 {win!r}（winning_tile）", f"impossible tile code {win!r} in winning_tile")

    melds_raw = data.get("melds", [])
    if not isinstance(melds_raw, list):
        raise fail("字段 melds 须为列表", "field melds must be a list")
    melds = []
    for k, m in enumerate(melds_raw):
        where = f"melds[{k}]"
        if not isinstance(m, dict) or set(m) != {"type", "tiles"}:
            raise fail(f"字段 {where} 须为含 type 与 tiles 的对象", f"field {where} must be an object with type and tiles")
        if m["type"] not in MELD_TYPES:
            raise fail(f"字段 {where}.type 须为 chi/pon/kan/ankan", f"field {where}.type must be chi, pon, kan or ankan")
        tiles = _tile_list(m["tiles"], f"{where}.tiles")
        if not is_meld(m["type"], tiles):
            kind = {"chi": "三张同花色连续牌", "pon": "三张相同牌"}.get(m["type"], "四张相同牌")
            raise fail(f"字段 {where}.tiles 须为{kind}", f"field {where}.tiles is not a valid {m['type']}")
        melds.append(Meld(m["type"], tuple(tiles)))

    flowers = data.get("flowers", [])
    if not isinstance(flowers, list):
        raise fail("字段 flowers 须为 f1–f8 的列表", "field flowers must be a list of f1-f8")
    for k, f in enumerate(flowers):
        if not isinstance(f, str) or f not in FLOWERS:
            raise fail(f"不存在的花牌码 {f!r}（flowers[{k}]），应为 f1–f8",
                        f"impossible flower code {f!r} in flowers[{k}] (f1-f8)")
    if len(set(flowers)) != len(flowers):
        raise fail("字段 flowers 有重复的花牌", "field flowers holds a flower twice")

    opts: dict[str, Any] = {}
    for key in _BOOL_FIELDS:
        if key in data:
            if not isinstance(data[key], bool):
                raise fail(f"字段 {key} 须为 true 或 false", f"field {key} must be true or false")
            opts[key] = data[key]
    for key, choices in _CHOICE_FIELDS.items():
        if key in data:
            val = data[key]
            if not any(val is c or (type(val) is type(c) and val == c) for c in choices):
                shown = "、".join("null" if c is None else str(c) for c in choices)
                raise fail(f"字段 {key} 须为 {shown} 之一（得到 {val!r}）", f"field {key} must be one of {shown} (got {val!r})")
            opts[key] = val
    seat = data.get("seat", 1)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 4:
        raise fail(f"字段 seat 须为 1–4 的整数（得到 {seat!r}）", f"field seat must be an integer 1-4 (got {seat!r})")
    streak = data.get("dealer_streak", 0)
    if isinstance(streak, bool) or not isinstance(streak, int) or not 0 <= streak <= MAX_STREAK:
        raise fail(f"字段 dealer_streak 须为 0–{MAX_STREAK} 的整数（得到 {streak!r}）",
                    f"field dealer_streak must be an integer 0-{MAX_STREAK} (got {streak!r})")
    if "note" in data and not isinstance(data["note"], str):
        raise fail("字段 note 须为字符串", "field note must be a string")

    count = len(concealed) + 3 * len(melds)
    if count != 17:
        raise fail(f"牌数不对：{count} 张（应为 17 张，杠按 3 张计，不含花牌）",
                    f"wrong tile count: {count} (need 17; a kan counts as 3, flowers not counted)")
    every = concealed + [t for m in melds for t in m.tiles]
    over = sorted((t for t, n in Counter(every).items() if n > 4), key=INDEX.__getitem__)
    if over:
        t = over[0]
        raise fail(f"同一张牌超过 4 张：{tile_name(t)}（{t}）{Counter(every)[t]} 张",
                    f"more than 4 of tile {t}: {Counter(every)[t]}")
    if win not in concealed:
        raise fail(f"winning_tile {win} 不在 concealed 中（concealed 须含胡牌那张）",
                    f"field winning_tile {win} is not in concealed (concealed must include it)")

    hand = Hand(tuple(concealed), tuple(melds), tuple(flowers), win, seat=seat,
                dealer_streak=streak, **opts)
    _check_situation(hand, "rob_case" in data)
    return hand


def _check_situation(h: Hand, rob_case_given: bool) -> None:
    """Reject flag combinations the rules make impossible, naming the field."""
    def bad(zh: str, en: str) -> None:
        raise fail(zh, en)

    # The Chinese half names the situation as a player says it (the calculator shows it); the
    # English half names the JSON fields (the API's readers need them).
    if h.after_kan and not h.self_drawn:
        bad("杠上开花须自摸", "field after_kan needs self_drawn true")
    if h.after_kan and not h.flowers and not any(m.type in ("kan", "ankan") for m in h.melds):
        bad("杠上开花须有杠或花牌（补上的牌才是杠上的牌）", "field after_kan needs a kan, an ankan or a flower")
    if h.robbing_kan and h.self_drawn:
        bad("抢杠胡不能是自摸", "field robbing_kan cannot go with self_drawn")
    if h.dealer and h.from_dealer:
        bad("庄付只用于闲家胡牌（胡牌者不能是庄家）", "field from_dealer is for a non-dealer's win only")
    if h.declared == "天听" and h.dealer:
        bad("天听只限闲家", "field declared 天听 is for a non-dealer only")
    if h.declared and h.open_melds:
        bad(f"{h.declared}须门清（不得有吃、碰、明杠）", f"field declared {h.declared} needs no chi/pon/kan melds")
    if h.timing == "天胡" and not (h.dealer and h.self_drawn and h.declared is None):
        bad("天胡须是庄家自摸，且未报听", "field timing 天胡 needs dealer and self_drawn true, no declared")
    if h.timing == "地胡" and h.dealer:
        bad("地胡只限闲家", "field timing 地胡 is for a non-dealer only")
    if h.timing in ("天胡", "地胡") and h.melds:
        bad(f"{h.timing}时不得有副露或暗杠", f"field timing {h.timing} needs no melds")
    if h.timing == "人胡" and h.declared != "地听":
        bad("人胡须先报地听", "field timing 人胡 needs declared 地听")
    if h.flower_win and len(h.flowers) != 8:
        bad(f"{h.flower_win}须持全部 8 张花牌（只有 {len(h.flowers)} 张）",
            f"field flower_win needs all 8 flowers (flowers has {len(h.flowers)})")
    if rob_case_given and h.flower_win != "七抢一":
        bad("七抢一的情形只用于七抢一", "field rob_case is for flower_win 七抢一 only")
    if h.at_deal and not h.flower_win:
        bad("配牌花胡须是八仙过海或七抢一", "field at_deal is for a flower win only")
