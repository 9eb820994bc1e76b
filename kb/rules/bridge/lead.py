"""Laws 53–56: a lead out of turn — accepted or withdrawn, declarer facing his hand, penalty cards."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    SEAT_NAMES,
    Result,
    cids,
    next_seat,
    parse_bool,
    parse_card,
    parse_choice,
    parse_seat,
    partner,
    seat_and_role,
)
from kb.rules.bridge.declare import Field, Ruling

LEAD_OUT_OF_TURN_CLAUSES = cids("53A", "53B", "54", "54A", "54B", "54B1", "54C", "54D", "55A", "55B1", "55B2",
                                "55C", "56", "50D", "50D1", "50D2", "50D2a", "50D2b", "57")
CHOICES = ("accept", "declarer_faces_hand", "withdraw")
# the non-offenders' choice, in the words the form, the worked examples and the answers use
CHOICE_NAMES = {"accept": "接受该引牌", "declarer_faces_hand": "摊牌，自己成为明手", "withdraw": "要求收回该引牌"}


@dataclass(frozen=True)
class LeadRuling(Result):
    """The outcome of a lead out of turn."""

    options: tuple[str, ...] = ()            # the non-offenders' choices still open ("accept" …)
    chosen: str | None = None
    lead_stands: bool = False
    declarer: str = ""                       # who is declarer after the ruling (54A swaps)
    dummy: str = ""
    next_to_play: str = ""                   # who plays next to the trick, or leads
    penalty_cards: tuple[str, ...] = ()      # cards that become major penalty cards (56)
    director_judgement: tuple[str, ...] = ()


def _second_card(seat: str, new_dummy: str, new_declarer: str) -> str:
    """Who plays next after an opening lead out of turn that declarer answered by facing his hand (54A)."""
    if seat == new_dummy:
        return f"第二张牌从{SEAT_NAMES[seat]}（现为明手）的牌中打出，由新庄家{SEAT_NAMES[new_declarer]}指定"
    return f"由{SEAT_NAMES[seat]}接着打牌"


def lead_out_of_turn(leader: Any, correct_leader: Any, declarer: Any, card: Any, opening_lead: Any = False,
                     choice: Any = None, played_by: Any = None, declarer_may_have_seen_dummy: Any = False,
                     declarer_began_facing: Any = False) -> LeadRuling:
    """``leader`` led ``card`` face up when ``correct_leader`` was to lead; ``declarer`` names the contract's
    declarer (dummy is his partner). ``choice``: ``accept`` (53A; 54B at the opening lead),
    ``declarer_faces_hand`` (54A, opening lead only) or ``withdraw`` (54D/56 for a defender, 55B for
    declarer); ``played_by``: a seat that played to the lead before any ruling (53A LHO → accepted;
    53B the offender's RHO → accepted and Law 57)."""
    off = parse_seat(leader, "leader")
    right = parse_seat(correct_leader, "correct_leader")
    decl = parse_seat(declarer, "declarer")
    assert off is not None and right is not None and decl is not None
    if off == right:
        raise KbError("leader: 与 correct_leader 相同，不是越序引牌")
    led = parse_card(card, "card")
    opening = parse_bool(opening_lead, "opening_lead")
    if opening and right != next_seat(decl):
        raise KbError(f"correct_leader: 首引应由庄家的下家{SEAT_NAMES[next_seat(decl)]}作出")
    dummy = partner(decl)
    seen = parse_bool(declarer_may_have_seen_dummy, "declarer_may_have_seen_dummy")
    began = parse_bool(declarer_began_facing, "declarer_began_facing")
    pick = parse_choice(choice, "choice", CHOICES, optional=True)
    by = parse_seat(played_by, "played_by", optional=True)
    defender = off not in (decl, dummy)
    who = seat_and_role(off, decl)
    situation = (f"{'首引' if opening else '本墩'}应由{SEAT_NAMES[right]}引牌，{who}越序引出{led.label}")
    if by is not None:
        if by == next_seat(off):
            # declarer's (or dummy's) lead out of turn is the defenders' to accept or refuse (55A), as 53 says
            law = "53A" if defender else "55A、53A"
            return LeadRuling(clauses=cids("53A") if defender else cids("55A", "53A"), chosen="accept", lead_stands=True,
                              next_to_play=next_seat(by),
                              explanation=f"{situation}；违规引牌者的下家{SEAT_NAMES[by]}接续打牌，越序引牌成为正常引牌（{law}）。",
                              declarer=decl, dummy=dummy)
        if next_seat(by) == off:
            return LeadRuling(clauses=cids("53B", "57"), chosen="accept", lead_stands=True,
                              explanation=f"{situation}；越序引牌者的上家{SEAT_NAMES[by]}针对违规引牌打了牌，越序引牌成立，"
                                          f"并应用第57条（53B）。", declarer=decl, dummy=dummy)
        raise KbError(f"played_by: {SEAT_NAMES[by]}既不是越序引牌者的下家，也不是其上家")
    if not defender:
        if opening:
            raise KbError("opening_lead: 首引由防家作出，庄家或明手不会首引")
        if pick == "declarer_faces_hand":
            raise KbError("choice: 庄家摊牌（54A）只适用于防家的越序首引")
        defenders_turn = right not in (decl, dummy)
        if pick is None:
            return LeadRuling(clauses=cids("55A", "55B1" if defenders_turn else "55B2", "55C"),
                              options=("accept", "withdraw"), director_judgement=cids("55C"), declarer=decl, dummy=dummy,
                              explanation=f"{situation}：任一防家可接受该引牌（55A、53A），或要求收回"
                                          + ("：放回原处，不判罚（55B1）" if defenders_turn else "：收回并从正确方位引牌（55B2）")
                                          + "；如庄家利用由此获得的资讯制定打牌路线，裁判可判给调整分（55C，由裁判判断）。")
        if pick == "accept":
            return LeadRuling(clauses=cids("55A", "53A"), chosen=pick, lead_stands=True, next_to_play=next_seat(off),
                              declarer=decl, dummy=dummy, explanation=f"{situation}；防家接受该引牌，成为正常引牌（55A、53A），由{SEAT_NAMES[next_seat(off)]}接着打牌。")
        rule = "55B1" if defenders_turn else "55B2"
        what = "庄家将错误引出的牌放回原处，不判罚" if defenders_turn else "庄家收回该牌，从正确方位引牌"
        return LeadRuling(clauses=cids(rule, "55C"), chosen=pick, next_to_play=right, director_judgement=cids("55C"),
                          declarer=decl, dummy=dummy, explanation=f"{situation}；防家要求收回：{what}（{rule}），由{SEAT_NAMES[right]}引牌；"
                                              f"如庄家利用由此获得的资讯，裁判可判给调整分（55C，由裁判判断）。")
    # a defender led out of turn
    if opening and (seen or began):
        forced = "庄家可能已看到明手的牌，必须接受该越序首引（54C）" if seen else "庄家已开始摊牌并暴露了牌张，必须摊牌（54A）"
        if began:
            if pick not in (None, "declarer_faces_hand"):
                raise KbError("choice: 庄家已开始摊牌并暴露了牌张，必须摊牌（54A）")
            pick = "declarer_faces_hand"
        else:
            if pick not in (None, "accept"):
                raise KbError("choice: 庄家可能已看到明手的牌，必须接受越序首引（54C）")
            pick = "accept"
        situation += f"；{forced}"
    if pick is None:
        opts = ["accept", "withdraw"] + (["declarer_faces_hand"] if opening else [])
        text = f"{situation}：庄家可接受该引牌（53A" + ("；首引时明手摊牌，第二张牌由庄家手中打出，54B、54B1）" if opening else "）")
        if opening:
            text += "；或庄家摊牌，他成为明手而明手成为庄家（54A）"
        text += (f"；或要求收回：{led.label}成为重罚张（56），由{SEAT_NAMES[right]}引牌，"
                 f"{'其同伴' if right == partner(off) else '引牌者'}引牌时庄家可按第50条D款选择要求或禁止引出该花色，也可不加限制（50D2）。")
        clauses = ["53A"] + (["54B", "54B1", "54A"] if opening else []) + ["56", "50D2"]
        return LeadRuling(clauses=cids(*clauses), options=tuple(opts), declarer=decl, dummy=dummy, explanation=text)
    if pick == "declarer_faces_hand":
        if not opening:
            raise KbError("choice: 庄家摊牌成为明手（54A）只适用于越序首引")
        return LeadRuling(clauses=cids("54A"), chosen=pick, lead_stands=True, declarer=dummy, dummy=decl,
                          next_to_play=next_seat(off),
                          explanation=f"{situation}；庄家摊牌：他成为明手，原明手{SEAT_NAMES[dummy]}成为庄家（54A），"
                                      f"越序首引成立，{_second_card(next_seat(off), decl, dummy)}。")
    if pick == "accept":
        if opening:
            return LeadRuling(clauses=cids("54B", "54B1", "53A") + (cids("54C") if seen else ()), chosen=pick,
                              lead_stands=True, next_to_play=decl, declarer=decl, dummy=dummy,
                              explanation=f"{situation}；庄家接受越序首引（54B、53A）：明手摊牌，该墩第二张牌由庄家{SEAT_NAMES[decl]}"
                                          f"手中打出（54B1）。")
        return LeadRuling(clauses=cids("53A"), chosen=pick, lead_stands=True, next_to_play=next_seat(off), declarer=decl, dummy=dummy,
                          explanation=f"{situation}；庄家接受，越序引牌成为正常引牌（53A），由{SEAT_NAMES[next_seat(off)]}接着打牌。")
    clauses = (["54D"] if opening else []) + ["56", "50D"] + (["50D2a", "50D2b"] if right == partner(off) else ["50D1"])
    return LeadRuling(clauses=cids(*clauses), chosen=pick, next_to_play=right, penalty_cards=(str(led),), declarer=decl, dummy=dummy,
                      explanation=f"{situation}；庄家要求收回{'（54D）' if opening else ''}：{led.label}成为重罚张（56），"
                                  f"应用第50条D款：由{SEAT_NAMES[right]}引牌"
                                  + (f"，庄家可要求或禁止其引出{led.label}的花色（50D2a；如此{led.label}不再是罚张，收回），"
                                     f"也可不加限制，{SEAT_NAMES[right]}可引任何牌张，{led.label}仍为罚张（50D2b）。" if right == partner(off)
                                     else "；该罚张须于第一次合法机会打出（50D1）。"))


def lead_out_of_turn_situation(i: dict) -> str:
    off, decl, right = i["leader"], i["declarer"], i["correct_leader"]
    dummy = partner(decl)
    if right == decl:
        due = "本墩应从庄家手中引牌"
    elif right == dummy:
        due = f"本墩应从明手（{prose.seat(dummy)}）引牌"
    else:
        due = f"首引应由{prose.seat(right)}作出" if i.get("opening_lead") else f"本墩应由{prose.seat(right)}引牌"
    parts = [f"{prose.seat(decl)}为庄家，{due}"]
    if off == decl:
        did, chooser = f"庄家却从自己手中引出{prose.card(i['card'])}", "防家"
    elif off == dummy:
        did, chooser = f"庄家却从明手（{prose.seat(off)}）引出{prose.card(i['card'])}", "防家"
    else:
        did, chooser = f"{prose.seat(off)}（防家）越序牌面向上引出{prose.card(i['card'])}", "庄家"
    parts[0] += "，" + did
    if i.get("declarer_may_have_seen_dummy"):
        parts.append("庄家可能已看到明手的牌")
    if i.get("declarer_began_facing"):
        parts.append("庄家已开始摊牌，暴露了牌张")
    if i.get("played_by"):
        parts.append(f"裁定之前，{prose.seat(i['played_by'])}已接着出牌")
    if i.get("choice"):
        parts.append(f"{chooser}选择{prose.value(CHOICE_NAMES, i['choice'], 'choice')}")
    return "；".join(parts) + "。"


LEAD_OUT_OF_TURN = Ruling(
    "lead-out-of-turn", lead_out_of_turn, LEAD_OUT_OF_TURN_CLAUSES,
    "越序引牌：接受或收回、庄家摊牌成为明手、由此产生的罚张（第53–56条）",
    (Field("leader", "seat", "越序引牌者"),
     Field("correct_leader", "seat", "应当引牌的一家"),
     Field("declarer", "seat", "庄家"),
     Field("card", "card", "越序引出的牌"),
     Field("opening_lead", "bool", "首引"),
     Field("choice", "choice", "非违规方的选择", CHOICE_NAMES),
     Field("played_by", "seat", "裁定前已接着出牌的一家"),
     Field("declarer_may_have_seen_dummy", "bool", "庄家可能已看到明手的牌"),
     Field("declarer_began_facing", "bool", "庄家已开始摊牌")),
    situation=lead_out_of_turn_situation)
