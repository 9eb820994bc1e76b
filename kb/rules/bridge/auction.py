"""Laws 27–32: the insufficient bid and calls out of rotation.

Calls: ``1C``…``7NT`` (strains C D H S NT, also ♣♦♥♠ and 梅花/方块/红心/黑桃/无将), ``P``/``PASS``/不叫,
``X``/加倍, ``XX``/再加倍. Laws 16, 23 and 25, which these clauses refer to, lie outside the corpus
(cbr1999 holds Laws 27–71, and of Law 26 only its last words); a ruling names them without linking. Where a Law leaves a matter to
the director (27B1(b), 30B3, 55C …) the ruling says so and names the clause.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.calls import STRAIN_NAMES, STRAINS, Call, parse_call
from kb.rules.bridge.cards import SEAT_NAMES, Result, cids, next_seat, parse_bool, parse_seat, partner
from kb.rules.bridge.declare import Field, Ruling

INSUFFICIENT_BID_CLAUSES = cids("27A", "27B", "27B1a", "27B1b", "27B2", "27B3", "27C")
OUT_OF_ROTATION_CLAUSES = cids("28A", "28B", "29A", "29B", "29C", "30A", "30B1", "30B2a", "30B2b", "30B3",
                               "30C", "31A1", "31A2a", "31A2b", "31B", "32A", "32B1", "32B2")
OUTSIDE = "（第{}条不在本库所收的第27–71条之内）"
LAW_26 = "（第26条本库仅存其结尾残篇）"
LAWS_23_26 = "（第23条不在本库所收的第27–71条之内；第26条本库仅存其结尾残篇）"


def lowest_sufficient(over: Call, strain: str) -> Call | None:
    """The lowest bid in ``strain`` that is sufficient over ``over``; None above 7."""
    level = over.level if STRAINS.index(strain) > STRAINS.index(over.strain) else over.level + 1
    return Call("bid", level, strain) if level <= 7 else None


@dataclass(frozen=True)
class AuctionRuling(Result):
    """What happens after an irregular call: whether it stands, what the offender and partner must do."""

    stands: bool = False                     # the call stands as if legal (accepted / treated in rotation)
    offender_must: str = ""                  # the offender's obligation, in words
    partner_must_pass: str = "none"          # "none" | "once" | "throughout"
    lead_penalties: bool = False             # Law 26 lead penalties may apply
    director_judgement: tuple[str, ...] = ()  # clauses where the director decides
    options: tuple[str, ...] = ()            # choices still open, in words


def insufficient_bid(bid: Any, previous_bid: Any, accepted: Any = False, correction: Any = None,
                     conventional: Any = False, out_of_rotation: Any = False) -> AuctionRuling:
    """Law 27. ``bid`` was made over ``previous_bid`` but is not higher. ``accepted``: the offender's
    LHO called over it (27A); ``correction``: the call substituted (a bid, P, X or XX); ``conventional``:
    the insufficient bid or its substitute is or may be conventional (27B1(a) then fails)."""
    made = parse_call(bid, "bid", bid_only=True)
    over = parse_call(previous_bid, "previous_bid", bid_only=True)
    if made.rank() > over.rank():
        raise KbError(f"bid: {made.label} 高于 {over.label}，不是不足叫牌")
    situation = f"在{over.label}之后叫{made.label}，为不足叫牌"
    if parse_bool(out_of_rotation, "out_of_rotation"):
        return AuctionRuling(clauses=cids("27C", "31A1", "31B"), explanation=f"{situation}，且为越序叫牌：应用第31条（27C）。"
                             "请用 call-out-of-rotation 判定。", options=("按第31条处理",))
    conv = parse_bool(conventional, "conventional")
    lowest = lowest_sufficient(over, made.strain)
    lowest_text = lowest.label if lowest else "无（已超过7阶）"
    if parse_bool(accepted, "accepted"):
        if correction is not None:
            raise KbError("correction: 不足叫牌已被接受（27A），不能再更正")
        return AuctionRuling(clauses=cids("27A"), stands=True,
                             explanation=f"{situation}；违规者的下家接续叫牌，不足叫牌即被接受，视同合法叫牌（27A）。")
    if correction is None:
        opts = (f"更正为同一定约名目的最低足够叫牌{lowest_text}：如两者无可置疑地都不是约定叫牌，视同未曾违例，"
                f"叫牌继续（27B1(a)），但裁判认为不足叫牌传递的信息损害了非违规方时判给调整分（27B1(b)）",
                "更正为其他足够叫牌或不叫：违规者的同伴此后必须永远不叫（27B2），并可能有引牌限制" + LAW_26,
                "以加倍或再加倍更正：该叫无效而须另行更正，同伴此后必须永远不叫（27B3）")
        return AuctionRuling(clauses=cids("27B", "27B1a", "27B1b", "27B2", "27B3"), options=opts,
                             explanation=f"{situation}，下家未接受：违规者必须更正为足够叫牌或不叫（27B）。可选："
                                         + "；".join(opts) + "。", director_judgement=cids("27B1b"))
    fix = parse_call(correction, "correction")
    if fix.kind in ("X", "XX"):
        return AuctionRuling(clauses=cids("27B3"), offender_must="另以足够叫牌或不叫更正",
                             partner_must_pass="throughout", lead_penalties=True,
                             explanation=f"{situation}，违规者以{fix.label}更正：该叫予以取消，须另以足够叫牌或不叫更正；"
                                         f"违规者的同伴此后轮到他叫牌时必须永远不叫（27B3）；强制不叫损害非违规方时参阅"
                                         f"第23条，并可应用第26条的引牌限制{LAWS_23_26}。")
    if fix.kind == "bid" and fix.rank() <= over.rank():
        raise KbError(f"correction: {fix.label} 仍不足以高过 {over.label}，更正须为足够叫牌或不叫（27B）")
    if fix == lowest and not conv:
        return AuctionRuling(clauses=cids("27B1a", "27B1b"), stands=True, director_judgement=cids("27B1b"),
                             explanation=f"{situation}，更正为同一定约名目的最低足够叫牌{fix.label}，两者都不是约定叫牌："
                                         f"视同未曾违例，叫牌继续，不判罚（27B1(a)）；但如裁判判定该不足叫牌传递的信息"
                                         f"足以损害非违规方，应判给调整分（27B1(b)，由裁判判断）。")
    why = ("不足叫牌或其替代叫牌可能是约定叫牌" if fix == lowest else
           f"更正为{fix.label}而不是同一定约名目的最低足够叫牌{lowest_text}")
    return AuctionRuling(clauses=cids("27B2"), partner_must_pass="throughout", lead_penalties=True,
                         explanation=f"{situation}，{why}：违规者的同伴此后轮到他叫牌时必须永远不叫（27B2）；"
                                     f"强制不叫损害非违规方时参阅第23条，并可应用第26条的引牌限制{LAWS_23_26}。")


def _relation(offender: str, turn: str) -> str:
    if turn == offender:
        raise KbError("turn: 轮到违规者本人叫牌时叫牌不是越序叫牌")
    if turn == partner(offender):
        return "partner"
    return "rho" if next_seat(turn) == offender else "lho"


_REL_NAMES = {"rho": "上家", "partner": "同伴", "lho": "下家"}


def call_out_of_rotation(offender: Any, turn: Any, call: Any, called_over_by: Any = None,
                         rho_must_pass: Any = False, bid_made_before: Any = False, offender_called_before: Any = False,
                         conventional: Any = False, rho_next_call: Any = None,
                         offender_next_call: Any = None) -> AuctionRuling:
    """Laws 28–32: ``offender`` made ``call`` when it was ``turn``'s turn. ``called_over_by``: the seat
    that called next before a ruling (28B the player in turn, 29A the offender's LHO);
    ``rho_must_pass``: the offender's RHO was compelled to pass (28A); ``bid_made_before``: a bid had
    been made in the auction (30A vs 30B); ``offender_called_before``: the offender had already called
    (31B/30B3: a change of call, Law 25); ``rho_next_call``: what the RHO then calls (P, a bid, X, XX) —
    it decides 31A and 32B; ``offender_next_call``: the offender's call after an RHO's call (31A2)."""
    off = parse_seat(offender, "offender")
    tn = parse_seat(turn, "turn")
    assert off is not None and tn is not None
    what = parse_call(call, "call")
    rel = _relation(off, tn)
    verb = what.label if what.kind != "bid" else f"叫{what.label}"
    situation = f"轮到{SEAT_NAMES[tn]}（违规者的{_REL_NAMES[rel]}）叫牌时，{SEAT_NAMES[off]}越序{verb}"
    if parse_bool(rho_must_pass, "rho_must_pass"):
        if rel != "rho":
            raise KbError("rho_must_pass: 只适用于轮到违规者上家叫牌时（28A）")
        return AuctionRuling(clauses=cids("28A"), stands=True,
                             explanation=f"{situation}；上家受罚必须不叫，在其不叫叫出前的抢先叫牌视同依序叫牌（28A）。")
    over = parse_seat(called_over_by, "called_over_by", optional=True)
    if over is not None:
        if over == tn:
            if rel == "partner":
                raise KbError("called_over_by: 28B 只适用于轮到叫牌的是违规者的对手；同伴接着叫牌不在第28条之内")
            return AuctionRuling(clauses=cids("28B"), stands=True,
                                 explanation=f"{situation}；轮到叫牌的{SEAT_NAMES[tn]}在判罚前径行叫牌，越序叫牌视同依序叫牌，"
                                             f"非违规方丧失处罚权，叫牌继续（28B）。")
        if over == next_seat(off):
            return AuctionRuling(clauses=cids("29A"), stands=True,
                                 explanation=f"{situation}；违规者的下家{SEAT_NAMES[over]}接着叫牌，处罚权丧失，越序叫牌被接受（29A）。")
        raise KbError(f"called_over_by: {SEAT_NAMES[over]}不是轮到叫牌者，也不是违规者的下家")
    head = f"{situation}：越序叫牌予以取消，由{SEAT_NAMES[tn]}依序叫牌，违规者轮到时可作合法叫牌，但受以下罚则的限制（29B）；"
    conv = parse_bool(conventional, "conventional")
    called_before = parse_bool(offender_called_before, "offender_called_before")
    rho_call = None if rho_next_call is None else parse_call(rho_next_call, "rho_next_call")
    if offender_next_call is not None and (rho_call is None or rho_call.kind == "P" or what.kind != "bid"):
        raise KbError("offender_next_call: 只在上家有叫牌行动后、对越序实质叫牌适用（31A2）")
    if rho_call is not None and rel != "rho":
        raise KbError("rho_next_call: 只在轮到违规者上家叫牌时有意义（31A、32B）")
    extra = ("越序叫牌为约定叫牌，判罚针对其关联的定约名目而不是叫出的名目（29C）。" if conv and what.kind == "bid" else "")
    more = ("29C",) if extra else ()
    if what.kind == "P":
        if conv:
            return AuctionRuling(clauses=cids("29B", "30C", "31A1", "31B"), explanation=head + "该不叫为约定性不叫，不用第30条，按第31条处理（30C）。")
        bid_made = parse_bool(bid_made_before, "bid_made_before")
        if rel == "lho" and (called_before or bid_made):
            rule = ("30B3",) if bid_made else ()
            return AuctionRuling(clauses=cids("29B", *rule), director_judgement=cids("29B", *rule),
                                 explanation=head + f"违规者此前已叫过牌，于下家叫牌时越序不叫视同更改叫牌，应用第25条"
                                 f"{'（30B3）' if bid_made else ''}{OUTSIDE.format(25)}。")
        if not bid_made:
            return AuctionRuling(clauses=cids("29B", "30A"), offender_must="该轮轮到他叫牌时必须不叫",
                                 explanation=head + "有赛员实质叫牌前越序不叫：违规者该轮轮到他叫牌时必须不叫（30A）。")
        if rel == "rho":
            return AuctionRuling(clauses=cids("29B", "30B1"), offender_must="轮到他叫牌时必须不叫一轮",
                                 explanation=head + "有赛员实质叫牌后于上家叫牌时越序不叫：违规者轮到他叫牌时必须不叫一轮（30B1）。")
        return AuctionRuling(clauses=cids("29B", "30B2a", "30B2b"), offender_must="此后轮到他叫牌时必须永远不叫",
                             explanation=head + "有赛员实质叫牌后于同伴叫牌时越序不叫：违规者此后必须永远不叫（30B2(a)）；"
                                         "同伴可作任何足够叫牌或不叫，但该轮不能加倍或再加倍（30B2(b)）。")
    if what.kind == "bid":
        if rel == "rho":
            if rho_call is None:
                return AuctionRuling(clauses=cids("29B", "31A1", "31A2a", "31A2b", *more), explanation=head + extra +
                                     "取决于上家的叫牌：上家不叫，违规者必须重复原叫品，不判罚（31A1）；上家作出实质叫牌、加倍或"
                                     "再加倍，违规者可作任何合法叫牌，重复原定约名目则同伴须不叫一轮（31A2(a)），否则同伴须永远不叫"
                                     f"并可有引牌判罚（31A2(b)）{LAW_26}。",
                                     options=("上家不叫（31A1）", "上家有叫牌行动（31A2）"))
            if rho_call.kind == "P":
                return AuctionRuling(clauses=cids("29B", "31A1", *more), offender_must=f"重复{what.label}",
                                     explanation=head + extra + f"上家不叫：违规者必须重复原越序叫品{what.label}，如合法则不判罚（31A1）。")
            nxt = None if offender_next_call is None else parse_call(offender_next_call, "offender_next_call")
            if nxt is not None:
                said = f"上家叫{rho_call.label}，违规者接着{nxt.label if nxt.kind != 'bid' else '叫' + nxt.label}："
                if nxt.kind == "bid" and nxt.strain == what.strain:
                    return AuctionRuling(clauses=cids("29B", "31A2a", *more), partner_must_pass="once",
                                         explanation=head + extra + said + f"重复原越序时的定约名目{STRAIN_NAMES[what.strain]}，"
                                         "违规者的同伴在该轮轮到他叫牌时必须不叫（31A2(a)）。")
                return AuctionRuling(clauses=cids("29B", "31A2b", *more), partner_must_pass="throughout", lead_penalties=True,
                                     explanation=head + extra + said + f"未重复原越序的定约名目{STRAIN_NAMES[what.strain]}，"
                                     f"违规者的同伴此后轮到他叫牌时必须永远不叫，并可应用引牌判罚（31A2(b)）{LAW_26}。")
            return AuctionRuling(clauses=cids("29B", "31A2a", "31A2b", *more), lead_penalties=True,
                                 offender_must="可作任何合法叫牌",
                                 explanation=head + extra + f"上家叫{rho_call.label}：违规者可作任何合法叫牌；如重复原定约名目"
                                 f"{STRAIN_NAMES[what.strain]}，同伴该轮须不叫（31A2(a)），否则同伴此后须永远不叫，并可应用引牌判罚"
                                 f"（31A2(b)）{LAW_26}。", options=("重复原定约名目", "不重复原定约名目"))
        if rel == "lho" and called_before:
            return AuctionRuling(clauses=cids("29B", "31B"), director_judgement=cids("31B"),
                                 explanation=head + f"违规者此前已叫过牌，于下家叫牌时越序实质叫牌视同更改叫牌，应用第25条（31B）{OUTSIDE.format(25)}。")
        return AuctionRuling(clauses=cids("29B", "31B", *more), partner_must_pass="throughout", lead_penalties=True,
                             explanation=head + extra + f"于{_REL_NAMES[rel]}叫牌时越序实质叫牌：违规者的同伴此后轮到他叫牌时必须永远不叫，"
                             f"并可应用引牌判罚（31B）；强制不叫损害非违规方时参阅第23条{LAWS_23_26}。")
    # double or redouble (Law 32)
    if rel == "partner":
        return AuctionRuling(clauses=cids("29B", "32A"), partner_must_pass="throughout", lead_penalties=True,
                             explanation=head + f"于同伴叫牌时越序{what.label}：违规者的同伴此后必须永远不叫（32A）；"
                             f"强制不叫损害非违规方时参阅第23条，并可应用引牌判罚{LAWS_23_26}。")
    if rel == "rho":
        if rho_call is None:
            return AuctionRuling(clauses=cids("29B", "32B1", "32B2"), explanation=head +
                                 f"取决于上家：上家不叫，违规者必须重复{what.label}，不判罚（32B1）；上家叫牌，违规者可作任何合法叫牌，"
                                 "同伴此后须永远不叫（32B2）。", options=("上家不叫（32B1）", "上家叫牌（32B2）"))
        if rho_call.kind == "P":
            return AuctionRuling(clauses=cids("29B", "32B1"), offender_must=f"重复{what.label}",
                                 explanation=head + f"上家不叫：违规者必须重复越序的{what.label}，不判罚（32B1）；"
                                 f"如该{what.label}不能成立，应用第36条。")
        return AuctionRuling(clauses=cids("29B", "32B2"), partner_must_pass="throughout", lead_penalties=True,
                             explanation=head + f"上家叫{rho_call.label}：违规者可作任何合法叫牌，其同伴此后必须永远不叫（32B2）。")
    return AuctionRuling(clauses=cids("29B"), director_judgement=cids("29B"),
                         explanation=head + f"于下家叫牌时越序{what.label}：第32条A、B款未规定此情形；违规者如此前已叫过牌，"
                         f"视同更改叫牌（第25条）{OUTSIDE.format(25)}，由裁判依第29条B款及第25条判定。")


def insufficient_bid_situation(i: dict) -> str:
    first = f"前一叫品为{prose.call(i['previous_bid'], 'previous_bid')}，违规者接着叫{prose.call(i['bid'], 'bid')}（不足叫牌）"
    parts = [first + ("，而且未轮到他叫牌" if i.get("out_of_rotation") else "")]
    if i.get("accepted"):
        parts.append("他的下家随即接续叫牌")
    elif i.get("correction"):
        parts.append(f"下家没有接受，违规者更正为{prose.call(i['correction'], 'correction')}")
    else:
        parts.append("下家没有接受，违规者尚未更正")
    if i.get("conventional"):
        parts.append("该不足叫牌或更正的叫牌可能是约定叫牌")
    return "；".join(parts) + "。"


INSUFFICIENT_BID = Ruling(
    "insufficient-bid", insufficient_bid, INSUFFICIENT_BID_CLAUSES,
    "不足叫牌：被接受、更正为最低足够叫牌或其他叫牌的后果（第27条）",
    (Field("bid", "call", "不足叫牌"),
     Field("previous_bid", "call", "前一叫品"),
     Field("accepted", "bool", "违规者的下家已接续叫牌"),
     Field("correction", "call", "违规者更正的叫牌"),
     Field("conventional", "bool", "可能为约定叫牌"),
     Field("out_of_rotation", "bool", "同时为越序叫牌")),
    situation=insufficient_bid_situation)


def call_out_of_rotation_situation(i: dict) -> str:
    off, turn = prose.seat(i["offender"]), prose.seat(i["turn"])
    rel = "同伴" if i["turn"] == partner(i["offender"]) else ("上家" if next_seat(i["turn"]) == i["offender"] else "下家")
    parts = []
    if i.get("bid_made_before"):
        parts.append("此前已有赛员实质叫牌")
    if i.get("offender_called_before"):
        parts.append(f"{off}此前已叫过牌")
    if i.get("rho_must_pass"):
        parts.append(f"{turn}（{off}的上家）受罚必须不叫，在他叫出不叫之前，{off}抢先{prose.called(i['call'], 'call')}")
    else:
        parts.append(f"应轮到{turn}（{off}的{rel}）叫牌，{off}越序{prose.called(i['call'], 'call')}")
    if i.get("conventional"):
        parts.append("该叫为约定叫牌")
    if i.get("called_over_by"):
        over = i["called_over_by"]
        who = "轮到叫牌的" if over == i["turn"] else ("违规者的下家" if over == next_seat(i["offender"]) else "")
        parts.append(f"裁定之前，{who}{prose.seat(over)}接着叫了牌")
    if i.get("rho_next_call"):
        parts.append(f"随后{turn}{prose.called(i['rho_next_call'], 'rho_next_call')}")
    if i.get("offender_next_call"):
        parts.append(f"{off}接着{prose.called(i['offender_next_call'], 'offender_next_call')}")
    return "；".join(parts) + "。"


CALL_OUT_OF_ROTATION = Ruling(
    "call-out-of-rotation", call_out_of_rotation, OUT_OF_ROTATION_CLAUSES,
    "越序叫牌（不叫、实质叫牌、加倍或再加倍）：取消、接受与对违规方的限制（第28–32条）",
    (Field("offender", "seat", "越序叫牌者"),
     Field("turn", "seat", "应轮到叫牌的一家"),
     Field("call", "call", "越序的叫牌"),
     Field("called_over_by", "seat", "裁定前接着叫牌的一家"),
     Field("rho_must_pass", "bool", "违规者的上家受罚必须不叫"),
     Field("bid_made_before", "bool", "此前已有实质叫牌"),
     Field("offender_called_before", "bool", "违规者此前已叫过牌"),
     Field("conventional", "bool", "越序叫牌为约定叫牌"),
     Field("rho_next_call", "call", "违规者的上家随后的叫牌"),
     Field("offender_next_call", "call", "违规者随后的叫牌")),
    situation=call_out_of_rotation_situation)
