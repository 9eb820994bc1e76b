"""Law 67: a defective trick — a player omitted to play to a trick, or played too many cards."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    SUIT_NAMES,
    Result,
    cids,
    disjoint,
    labels,
    parse_bool,
    parse_card,
    parse_cards,
    parse_choice,
    parse_int,
    parse_suit,
    sort_cards,
)
from kb.rules.bridge.declare import Field, Ruling
from kb.rules.bridge.play import legal_set

FAULT_NAMES = {"omitted": "漏打（未对该墩出牌）", "extra": "多打（对该墩打出两张或更多）"}
DEFECTIVE_CLAUSES = cids("67A", "67A1", "67A2", "67B", "67B1a", "67B1b", "67B2", "64", "45E", "58B")


@dataclass(frozen=True)
class DefectiveRuling(Result):
    """How a defective trick is put right and whether a revoke penalty may follow."""

    corrected_by: str = ""                     # "play_card" | "45E_or_58B" | "face_card" | "withdraw"
    legal_cards: tuple[str, ...] = ()          # the cards the offender may put into the trick
    keep: str | None = None                    # 67B2: the card left as played
    withdrawn: tuple[str, ...] = ()
    revoke: bool = False                       # 67B1(b): deemed a revoke, Law 64 may cost a trick


def defective_trick(trick: Any, fault: Any, discovered_after_next_trick: Any, led_suit: Any, hand: Any = None,
                    cards_in_trick: Any = None, exposed: Any = None) -> DefectiveRuling:
    """``fault`` ``omitted`` (the offender played no card to ``trick``) or ``extra`` (he played two or
    more: ``cards_in_trick``, of which ``exposed`` was the one seen, if known).
    Before both sides played to the next trick → 67A (play a legal card; extra cards under 45E / 58B);
    after → 67B: an omitted card is faced now, of the led suit if held (67B1(a)), otherwise any card and
    a revoke is deemed (67B1(b), Law 64); extra cards are withdrawn, keeping the exposed one or, if the
    director cannot tell, the highest card that could legally be played (67B2)."""
    t = parse_int(trick, "trick", 1, 13)
    what = parse_choice(fault, "fault", tuple(FAULT_NAMES))
    after = parse_bool(discovered_after_next_trick, "discovered_after_next_trick")
    if after and t == 13:
        raise KbError("discovered_after_next_trick: 第13墩之后没有下一墩")
    led = parse_suit(led_suit, "led_suit")
    assert led is not None
    when = "双方均已对下一墩出牌后" if after else "双方对下一墩出牌前"
    if what == "omitted":
        cards = parse_cards(hand, "hand", min_len=1)
        if cards_in_trick is not None or exposed is not None:
            raise KbError("cards_in_trick: 漏打牌张时不应给出")
        legal = sort_cards(legal_set(cards, led))
        ids = tuple(str(c) for c in legal)
        situation = f"第{t}墩（引牌花色{SUIT_NAMES[led]}）违规者漏打一张牌，{when}被指出"
        if not after:
            return DefectiveRuling(clauses=cids("67A", "67A1"), corrected_by="play_card", legal_cards=ids,
                                   explanation=f"{situation}：必须改正，违规者补打一张合法牌张（67A1）：{labels(legal)}。")
        if any(c.suit == led for c in cards):
            return DefectiveRuling(clauses=cids("67B", "67B1a"), corrected_by="face_card", legal_cards=ids,
                                   explanation=f"{situation}：裁判要求他立即亮出一张牌放入该墩（不改变原赢墩者）；他有"
                                               f"{SUIT_NAMES[led]}，必须选一张该花色的牌，不判罚（67B1(a)）：{labels(legal)}。")
        return DefectiveRuling(clauses=cids("67B", "67B1b", "64"), corrected_by="face_card", legal_cards=ids, revoke=True,
                               explanation=f"{situation}：他没有{SUIT_NAMES[led]}，可选任一牌张放入该墩（不改变原赢墩者），"
                                           f"但视为在该墩已构成藏牌，按第64条可能受到一墩的处罚（67B1(b)）。")
    many = parse_cards(cards_in_trick, "cards_in_trick", min_len=2, max_len=4)
    if hand is not None:
        disjoint([("cards_in_trick", many), ("hand", parse_cards(hand, "hand"))])
    situation = f"第{t}墩（引牌花色{SUIT_NAMES[led]}）违规者多打了牌（{labels(many)}），{when}被指出"
    if not after:
        return DefectiveRuling(clauses=cids("67A", "67A2", "45E", "58B"), corrected_by="45E_or_58B",
                               explanation=f"{situation}：必须改正（67A2）——五张牌的牌墩按第45条E款，一手同时打出多张牌按第58条B款处理。")
    shown = None if exposed is None else parse_card(exposed, "exposed")
    if shown is not None and shown not in many:
        raise KbError(f"exposed: {shown.label} 不在 cards_in_trick 中")
    if shown is None:
        legal = legal_set(many, led)
        shown = max(legal, key=lambda c: c.rank)
        how = (f"裁判无法确定哪一张暴露，指定违规者将其中可合法打出的最大牌张{shown.label}留作打出牌张（67B2）")
        judged = cids("67B2")
    else:
        how = f"将在该墩中暴露的{shown.label}留作打出牌张（67B2）"
        judged = ()
    back = [c for c in many if c != shown]
    return DefectiveRuling(clauses=cids("67B", "67B2"), corrected_by="withdraw", keep=str(shown),
                           withdrawn=tuple(str(c) for c in sort_cards(back)),
                           explanation=f"{situation}：裁判检查已打出的牌张，违规者收回多余的{labels(sort_cards(back))}，{how}；"
                                       f"收回的牌张视为始终在他手中，较早牌墩中的未跟牌可能构成藏牌（67B2）。"
                                       + ("" if not judged else ""))


def defective_trick_situation(i: dict) -> str:
    when = "双方均已对下一墩出牌后" if i.get("discovered_after_next_trick") else "双方对下一墩出牌之前"
    head = f"第{i['trick']}墩引出{prose.suit(i['led_suit'])}，"
    if i["fault"] == "omitted":
        return head + f"一家没有对该墩出牌（漏打），{when}被指出；他手中有 {prose.cards(i['hand'])}{prose.void(i)}。"
    many = i.get("cards_in_trick", [])
    seen = f"，其中暴露的是{prose.card(i['exposed'])}" if i.get("exposed") else ""
    return head + f"一家对该墩打出了{prose.count(many)}张牌 {prose.cards(many)}{seen}，{when}被指出。"


DEFECTIVE_TRICK = Ruling(
    "defective-trick", defective_trick, DEFECTIVE_CLAUSES,
    "有缺陷的牌墩：漏打或多打一张牌的改正与后果（第67条）",
    (Field("trick", "int", "有缺陷的牌墩", unit="第{}墩"),
     Field("fault", "choice", "缺陷", FAULT_NAMES),
     Field("discovered_after_next_trick", "bool", "双方均已对下一墩出牌后才发现"),
     Field("led_suit", "led", "本墩引牌花色"),
     Field("hand", "cards", "违规者手中的牌"),
     Field("cards_in_trick", "cards", "违规者放入该墩的牌"),
     Field("exposed", "card", "暴露的牌")),
    situation=defective_trick_situation)
