"""Laws 48–49: a card exposed by declarer (or dummy), declarer facing his hand, a defender's exposed card."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import Result, cids, parse_bool, parse_card, parse_seat, role, seat_and_role
from kb.rules.bridge.declare import Field, Ruling
from kb.rules.bridge.penalty import kind_of

EXPOSED_CLAUSES = cids("48A", "48B1", "48B2", "49", "50", "50B", "54", "54A", "68", "68A", "45C2")


@dataclass(frozen=True)
class ExposedRuling(Result):
    """What an exposed card (or faced hand) becomes."""

    penalty_card: bool = False
    kind: str | None = None          # "minor" | "major" for a defender's card
    treated_as: str | None = None    # "claim" (48B2, Law 68) or "opening_lead_out_of_turn" (48B1, Law 54)


def exposed_card(exposed_by: Any, declarer: Any, card: Any = None, inadvertent: Any = True,
                 faced_hand: Any = False, after_opening_lead_out_of_turn: Any = False) -> ExposedRuling:
    """``exposed_by`` exposed ``card`` (``inadvertent``: dropped or shown by accident), or, with
    ``faced_hand``, declarer spread his whole hand (``after_opening_lead_out_of_turn``: just after
    a defender's face-up opening lead out of turn, 48B1). ``declarer``: the contract's declarer."""
    who = parse_seat(exposed_by, "exposed_by")
    decl = parse_seat(declarer, "declarer")
    assert who is not None and decl is not None
    faced = parse_bool(faced_hand, "faced_hand")
    after_lead = parse_bool(after_opening_lead_out_of_turn, "after_opening_lead_out_of_turn")
    inad = parse_bool(inadvertent, "inadvertent")
    if after_lead and not faced:
        raise KbError("after_opening_lead_out_of_turn: 只在 faced_hand 为 true 时适用（48B1）")
    played_as = role(who, decl)
    seat = seat_and_role(who, decl)
    if faced:
        if who != decl:
            raise KbError("faced_hand: 第48条B款只说庄家摊牌；防家摊牌是声称或承认（第68条）")
        if after_lead:
            return ExposedRuling(clauses=cids("48B1", "54", "54A"), treated_as="opening_lead_out_of_turn",
                                 explanation=f"{seat}在对方牌面向上的越序首引后摊开手中的牌：应用第54条（48B1）——"
                                             "他摊了牌，即成为明手，原明手成为庄家（54A）。")
        return ExposedRuling(clauses=cids("48B2", "68", "68A"), treated_as="claim",
                             explanation=f"{seat}在对方越序首引后立刻摊牌以外的时间摊出手中的牌：被认为是作出声称或承认，"
                                         "应用第68条（48B2；他显然不打算声称的除外，68A）。")
    if card is None:
        raise KbError("card: 应给出暴露的牌（或 faced_hand 为 true）")
    c = parse_card(card, "card")
    if played_as != "defender":
        if played_as == "declarer" and inad:
            after, extra = "；庄家不慎掉落的牌张，不要求强制打出", []
        elif played_as == "declarer":       # shown on purpose: not a penalty card, but it may be a played card
            after, extra = ("；但庄家从手中抽出的牌，牌面向上碰到或几乎碰到桌面，或停留在看来已经打出的位置上，"
                            "则必须打出（45C2）"), ["45C2"]
        else:
            after, extra = "", []
        return ExposedRuling(clauses=cids("48A", *extra),
                             explanation=f"{seat}暴露的{c.label}不受判罚，庄家和明手的牌张永远不会成为罚张（48A）{after}。")
    kind, why = kind_of(c, inad, 1)
    return ExposedRuling(clauses=cids("49", "50", "50B"), penalty_card=True, kind=kind,
                         explanation=f"{seat}暴露的{c.label}成为罚张（49），按第50条处理：{why}。")


def exposed_card_situation(i: dict) -> str:
    who = seat_and_role(str(parse_seat(i["exposed_by"], "exposed_by")), str(parse_seat(i["declarer"], "declarer")))
    if i.get("faced_hand"):
        return f"{who}" + ("在对方牌面向上的越序首引之后立刻" if i.get("after_opening_lead_out_of_turn") else "在打牌过程中") \
            + "摊开手中的牌。"
    how = "因疏忽暴露（如不慎掉落）了" if i.get("inadvertent", True) else "有意亮出了"
    return f"{who}{how}{prose.card(i['card'])}。"


EXPOSED_CARD = Ruling(
    "exposed-card", exposed_card, EXPOSED_CLAUSES,
    "暴露的牌：庄家、明手的牌不受判罚，防家的牌成为罚张；庄家摊牌（第48–49条）",
    (Field("exposed_by", "seat", "暴露牌张的一家"),
     Field("declarer", "seat", "庄家"),
     Field("card", "card", "暴露的牌"),
     Field("inadvertent", "bool", "因疏忽而暴露（如不慎掉落）"),
     Field("faced_hand", "bool", "庄家摊开手中的牌"),
     Field("after_opening_lead_out_of_turn", "bool", "在对方越序首引之后")),
    situation=exposed_card_situation)
