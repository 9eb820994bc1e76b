"""Scoring a hand: every layout judged on the 36 patterns, exclusions applied, the best total kept."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.rules.mahjong.hand import COUNTING, FLOWER_REPLACEMENT, WINNING_FORM, clause, fail, parse_hand
from kb.rules.mahjong.layouts import Layout, hand_waits, layouts
from kb.rules.mahjong.patterns import PATTERNS, Item, name, tai


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
    Exclusion(4, 23, "不求·自摸已含自摸（必然并存，仅计较高者）", COUNTING),
    Exclusion(29, 27, "花胡之形式为八仙过海，同一 8 台不重复计", clause(27)),
    Exclusion(30, 27, "花胡之形式为七抢一，同一 8 台不重复计", clause(27)),
)

# Interpretive choices beyond single patterns.
_GENERAL_READINGS = (
    {"clause": COUNTING, "name": "台数计算准则",
     "reading": "牌张可有多种组法时，逐一计台，取总台数最高的一种（同分取先得者）；「特别注明」的加计（全求加独听、半求含独听自摸、杠上开花与海底捞月加计自摸、作庄加计、门清一摸三、天听等加计不求·自摸）照明文累计。"},
    {"clause": WINNING_FORM, "name": "胡牌型态",
     "reading": "17 张不含花牌与杠牌逾张：每副杠只算 3 张，作一副坎子；八仙过海与七抢一之手牌亦须足 17 张，但不必成胡。"},
    {"clause": FLOWER_REPLACEMENT, "name": "补花",
     "reading": "补花于杠尾补牌，补得之牌成胡亦为杠上开花（after_kan）。"},
)

INTERPRETATIONS: list[dict[str, str]] = [
    {"clause": p.clause, "name": p.name, "reading": p.reading} for p in PATTERNS if p.reading
] + list(_GENERAL_READINGS)

ADJUST_ZI = "字一色并存减台"
# A win on the last discard (河底, last_tile without self_drawn) is a hand like any other: 海底捞月
# is for the drawn last tile only (patterns.25「摸海底牌而成胡」), and the text names no 台 for it.
LAST_DISCARD = 25
LAST_DISCARD_WHY = "胡的是最后一张打出的牌（河底），不是摸得的海底牌：本规则无此名堂，不另计台"


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
        items.insert(pos, Item(13, ADJUST_ZI, -4, clause(13), f"字一色含{with_}，累计后减除 4 台"))
    return Scored(lay, items, excluded)


FORM_NAMES = {"standard": "一般", "lilgu": "呖咕呖咕", "flower": "花胡（暗牌不计）"}
KIND_NAMES = {"chow": "顺", "pung": "坎", "kong": "杠"}
PAIR_NAMES = ("将", "对")        # a standard hand's pair; each pair of 呖咕呖咕


def _groups_json(lay: Layout) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for g in lay.sets:
        out.append({"kind": KIND_NAMES[g.kind], "tiles": g.tiles, "source": g.source,
                    "concealed": g.concealed, "winning": g.winning})
    for p in lay.pairs:
        out.append({"kind": PAIR_NAMES[0] if lay.form == "standard" else PAIR_NAMES[1], "tiles": [p, p], "source": "hand",
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
        raise fail("不成胡：无法组成五副顺子/坎子/杠子与一对将", "not a winning hand: no decomposition into five sets and a pair")
    w = hand_waits(h) if lays[0].counted else []
    for lay in lays:
        lay.waits = w
    best = max((_judge(lay) for lay in lays), key=lambda s: s.total)
    excluded = list(best.excluded)
    if h.last_tile and not h.self_drawn:
        excluded.append({"name": name(LAST_DISCARD), "tai": tai(LAST_DISCARD), "why": LAST_DISCARD_WHY,
                         "clause": clause(LAST_DISCARD)})
    return {
        "total": best.total,
        "items": [i.to_json() for i in best.items],
        "excluded": excluded,
        "form": FORM_NAMES[best.layout.form],
        "groups": _groups_json(best.layout),
        "waits": list(w),
    }


