"""Laws 61–64: what a revoke is, when it is established, and the tricks it costs."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    SEAT_NAMES,
    SIDE_NAMES,
    SUIT_NAMES,
    Result,
    cids,
    labels,
    parse_bool,
    parse_card,
    parse_cards,
    parse_choice,
    parse_int,
    parse_seat,
    parse_suit,
    role,
    side,
    sort_cards,
)
from kb.rules.bridge.declare import Field, Ruling
from kb.rules.bridge.play import legal_set

IS_REVOKE_CLAUSES = cids("61A", "44A", "44C", "44D", "59")
REVOKE_ESTABLISHED_CLAUSES = cids("61B", "62A", "62B1", "50B", "62B2", "62C1", "62C2", "62D1", "62D2", "63A", "63A1", "63A2",
                                  "63A3", "63B", "63C", "64B6", "64C")
REVOKE_ADJUSTMENT_CLAUSES = cids("64A1", "64A2", "64B1", "64B2", "64B3", "64B4", "64B5", "64B6", "64C", "62D1")

ACTIONS = ("lead", "play", "name", "claim", "concede", "acquiesce")
TRICK_ACTIONS = ("lead", "play", "name")        # the actions that belong to a trick (a claim belongs to none)
# what happened after a revoke, in the words the form, the worked examples and the answers use
ACTION_NAMES = {"lead": "引牌", "play": "出牌", "name": "指明要打的牌", "claim": "作出声称", "concede": "作出承认",
                "acquiesce": "默认了声称或承认"}


@dataclass(frozen=True)
class RevokeCheck(Result):
    """Whether a card played is a revoke (61A)."""

    revoke: bool = False


@dataclass(frozen=True)
class RevokeStatus(Result):
    """Whether a revoke is established (63A) and whether it must still be corrected (62A, 62D, 63B)."""

    established: bool = False
    established_by: int | None = None           # index into ``events``
    must_correct: bool = False
    penalty_applies: bool = False              # Law 64 is to be applied
    offender_role: str | None = None


@dataclass(frozen=True)
class RevokeAdjustment(Result):
    """Tricks transferred after an established revoke (64A, 64B), always with 64C."""

    tricks_transferred: int = 0
    rule: str = ""                             # "64A1", "64A2" or the first 64B exception
    exceptions: tuple[str, ...] = ()           # every 64B item that applies
    transferred_to: str = ""                   # "NS" | "EW"
    cap: int = 0                               # tricks the offending side won from the revoke trick on


def is_revoke(hand: Any, led_suit: Any, card: Any, required_cards: Any = None,
              required_suit: Any = None) -> RevokeCheck:
    """61A: a revoke is failing to follow suit as 44 requires, or failing, when able, to lead or play
    a card or suit that the law or the non-offenders' chosen penalty requires.

    ``hand`` holds the player's cards before he played ``card`` (penalty cards included); ``led_suit``
    is null for a lead;
    ``required_cards``: cards one of which he had to play (a major penalty card, 50D1; 57A1/57A2's
    highest or lowest card); ``required_suit``: the suit he had to lead or play (50D2a, 51B)."""
    cards = parse_cards(hand, "hand", min_len=1)
    led = parse_suit(led_suit, "led_suit", optional=True)
    played = parse_card(card, "card")
    if played not in cards:
        raise KbError(f"card: {played.label} 不在 hand 中")
    must = [] if required_cards is None else parse_cards(required_cards, "required_cards", min_len=1)
    for i, c in enumerate(must):
        if c not in cards:
            raise KbError(f"required_cards[{i}]: {c.label} 不在 hand 中")
    suit = parse_suit(required_suit, "required_suit", optional=True)
    where = "引牌" if led is None else f"引牌花色为{SUIT_NAMES[led]}时"
    if led is not None and played.suit != led and any(c.suit == led for c in cards):
        held = " ".join(c.label for c in cards if c.suit == led)
        return RevokeCheck(clauses=cids("61A", "44C"), revoke=True,
                           explanation=f"{where}，手中有{SUIT_NAMES[led]}（{held}）却打出{played.label}，"
                                       f"未按第44条跟牌，构成藏牌（61A）。")
    legal = legal_set(cards, led)
    if must:
        able = [c for c in must if c in legal]
        names = labels(sort_cards(must))
        if able and played not in able:
            return RevokeCheck(clauses=cids("61A"), revoke=True,
                               explanation=f"{where}，罚则要求打出{names}{'中的一张' if len(must) > 1 else ''}，"
                                           f"他本来能够打出却打出{played.label}，构成藏牌（61A）。")
        if not able:
            return RevokeCheck(clauses=cids("61A", "44C", "59"), revoke=False,
                               explanation=f"{where}，罚则要求打出{names}，但跟牌的义务优先（44C），"
                                           f"他无法履行，打出{played.label}不构成藏牌（61A、59）。")
    if suit is not None:
        able = [c for c in legal if c.suit == suit]
        if able and played.suit != suit:
            return RevokeCheck(clauses=cids("61A"), revoke=True,
                               explanation=f"{where}，罚则要求{'引出' if led is None else '打出'}{SUIT_NAMES[suit]}，"
                                           f"他本来能够（持有{labels(sort_cards(able))}）却打出{played.label}，"
                                           f"构成藏牌（61A）。")
        if not able:
            return RevokeCheck(clauses=cids("61A", "59"), revoke=False,
                               explanation=f"{where}，罚则要求{SUIT_NAMES[suit]}，但他{'没有' if not any(c.suit == suit for c in cards) else '不能合法打出'}"
                                           f"{SUIT_NAMES[suit]}，无法履行，打出{played.label}不构成藏牌（61A、59）。")
    if must or suit is not None:
        return RevokeCheck(clauses=cids("61A"), revoke=False,
                           explanation=f"{where}，{played.label}履行了罚则的要求，不构成藏牌（61A）。")
    if led is None:
        return RevokeCheck(clauses=cids("44A", "61A"), revoke=False,
                           explanation=f"{played.label}是引牌，引牌者可引出任何牌张（44A），不构成藏牌（61A）。")
    if played.suit == led:
        return RevokeCheck(clauses=cids("44C", "61A"), revoke=False,
                           explanation=f"{where}，{played.label}跟了引牌花色，不构成藏牌。")
    return RevokeCheck(clauses=cids("44D", "61A"), revoke=False,
                       explanation=f"{where}，手中没有{SUIT_NAMES[led]}，可打任何牌张（44D），{played.label}不构成藏牌。")


def _role(seat: str, declarer: str | None) -> str | None:
    return None if declarer is None else role(seat, declarer)


def _events(events: Any, trick: int, offending: str) -> tuple[int | None, str | None]:
    """Check the events after the revoke; return the index of the first that establishes it and its clause."""
    if not isinstance(events, list):
        raise KbError(f"events: 应为事件列表，收到 {type(events).__name__}")
    if len(events) > 64:
        raise KbError(f"events: 事件过多（{len(events)}），一副牌至多52次出牌")
    by, rule = None, None
    leaders: dict[int, str] = {}
    played: dict[int, set[str]] = {}
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            raise KbError(f"events[{i}]: 应为对象 {{seat, action, trick}}")
        unknown = set(ev) - {"seat", "action", "trick"}
        if unknown:
            raise KbError(f"events[{i}].{sorted(unknown)[0]}: 未知字段")
        seat = parse_seat(ev.get("seat"), f"events[{i}].seat")
        action = parse_choice(ev.get("action"), f"events[{i}].action", ACTIONS)
        assert seat is not None and action is not None
        if action in TRICK_ACTIONS:
            t = parse_int(ev.get("trick"), f"events[{i}].trick", trick, 13)
            if t == trick and action == "lead":
                raise KbError(f"events[{i}].trick: 藏牌墩的引牌在藏牌之前，不能是藏牌后的事件")
            if action == "lead":
                if t in leaders:
                    raise KbError(f"events[{i}]: 第{t}墩已由{SEAT_NAMES[leaders[t]]}引牌，一墩只有一次引牌")
                leaders[t] = seat
            if action in ("lead", "play"):
                seats = played.setdefault(t, set())
                if seat in seats:
                    raise KbError(f"events[{i}]: {SEAT_NAMES[seat]}已对第{t}墩出过牌，每家每墩只出一张")
                seats.add(seat)
            later = t > trick
        else:
            if "trick" in ev:
                raise KbError(f"events[{i}].trick: 声称或承认不属于某一墩，不应给出 trick")
            later = True
        if by is None and later and side(seat) == offending:
            by = i
            rule = {"lead": "63A1", "play": "63A1", "name": "63A2"}.get(action, "63A3")
    return by, rule


TWELFTH = ("第12墩的藏牌成立后不判罚（64B6「在第十二墩的藏牌」），不转移牌墩；"
           "如裁判认为非违规方因此受到损害，应判给调整分（64C）。")


def revoke_established(revoke_trick: Any, offender: Any, events: Any, declarer: Any = None,
                       hands_returned: Any = False, illegal_inquiry: Any = False) -> RevokeStatus:
    """Is the revoke established? 63A1 the offending side leads or plays to a later trick, 63A2 names or
    designates such a card, 63A3 makes or agrees to a claim or concession; 63B an illegal inquiry
    (61B) counts as establishment. A twelfth-trick revoke is corrected even when established until
    the hands are returned (62D1) and never carries a trick penalty (64B6), whatever established it.

    ``events``: what happened after the revoke, in order: ``{"seat", "action", "trick"}`` with action
    ``lead`` / ``play`` / ``name`` (trick required) or ``claim`` / ``concede`` / ``acquiesce``."""
    trick = parse_int(revoke_trick, "revoke_trick", 1, 12)
    off = parse_seat(offender, "offender")
    assert off is not None
    decl = parse_seat(declarer, "declarer", optional=True)
    returned = parse_bool(hands_returned, "hands_returned")
    illegal = parse_bool(illegal_inquiry, "illegal_inquiry")
    role = _role(off, decl)
    by, rule = _events(events, trick, side(off))
    who = SEAT_NAMES[off]
    situation = f"第{trick}墩{who}藏牌"
    twelfth = trick == 12
    if illegal:
        head = f"{situation}，有人以违反第61条B款的方式指出了藏牌："
        if twelfth and returned:
            text = (head + "藏牌按成立处理（63B），但四手牌已收回牌套，不能再改正（62D1）；" + TWELFTH)
            return RevokeStatus(clauses=cids("61B", "63B", "62D1", "64B6", "64C"), explanation=text,
                                established=True, established_by=by, must_correct=False,
                                penalty_applies=False, offender_role=role)
        text = head + "藏牌者必须替换为合法牌张，并按藏牌成立处理（63B）"
        if twelfth:
            text += "；" + TWELFTH
            clauses = ["61B", "63B", "64B6", "64C"]
            if role in (None, "defender"):
                text += "如防家在其同伴打牌前藏牌而同伴持有两种花色，同伴不能选择有可能因看到藏牌而建议打出的牌张（62D2）。"
                clauses.append("62D2")
            return RevokeStatus(clauses=cids(*clauses), explanation=text, established=True, established_by=by,
                                must_correct=True, penalty_applies=False, offender_role=role)
        return RevokeStatus(clauses=cids("61B", "63B"), explanation=text + "，应用第64条处罚。", established=True,
                            established_by=by, must_correct=True, penalty_applies=True, offender_role=role)
    if by is None and returned:
        raise KbError("hands_returned: 四手牌已收回牌套，违规方必已对以后的牌墩出牌，藏牌已成立（63A1）；"
                      "请在 events 中给出违规方的出牌")
    if by is None:
        text = (f"{situation}，尚未成立（违规方未对下一墩引牌或打牌、未指明下一墩的牌、"
                f"未作或默认声称或承认，63A），必须改正（62A）：违规者收回错打的牌张并跟牌；")
        clauses = ["63A", "62A"]
        if role == "defender":
            text += "该牌张是从防家未暴露的手中打出的，成为罚张（62B1），且因改正藏牌而为重罚张（50B）；"
            clauses += ["62B1", "50B"]
        elif role in ("declarer", "dummy"):
            text += "该牌张是从庄家手中或明手打出的，可更换，不判罚（62B2）；"
            clauses.append("62B2")
        else:
            text += "防家从未暴露的手中打出的牌成为重罚张（62B1、50B），庄家、明手或已暴露的牌可更换不罚（62B2）；"
            clauses += ["62B1", "50B", "62B2"]
        text += "非违规方此后接续打出的牌张可收回，不判罚（62C1）；他们收回后，违规者的同伴也可收回其接续打出的牌张，是防家的则成为罚张（62C2）。"
        clauses += ["62C1", "62C2"]
        if twelfth and role in (None, "defender"):
            text += "在第12墩，如防家在其同伴打牌前藏牌而同伴持有两种花色，同伴不能选择有可能因看到藏牌而建议打出的牌张（62D2）。"
            clauses.append("62D2")
        return RevokeStatus(clauses=cids(*clauses), explanation=text, established=False, must_correct=True,
                            penalty_applies=False, offender_role=role)
    ev = events[by]
    ev_text = prose.event(ev, ACTION_NAMES)
    assert rule is not None
    if twelfth and not returned:
        text = (f"{situation}，{ev_text}，藏牌已经成立（{rule}），但在四手牌均收回牌套前发现，必须改正（62D1）；"
                + TWELFTH)
        clauses = [rule, "62D1", "64B6", "64C"]
        if role in (None, "defender"):
            text += "如防家在其同伴打牌前藏牌而同伴持有两种花色，同伴不能选择有可能因看到藏牌而建议打出的牌张（62D2）。"
            clauses.append("62D2")
        return RevokeStatus(clauses=cids(*clauses), explanation=text, established=True, established_by=by,
                            must_correct=True, penalty_applies=False, offender_role=role)
    if twelfth:
        text = (f"{situation}，{ev_text}，藏牌已经成立（{rule}），四手牌已收回牌套，不能再改正（62D1、63C）；"
                + TWELFTH)
        return RevokeStatus(clauses=cids(rule, "62D1", "63C", "64B6", "64C"), explanation=text, established=True,
                            established_by=by, must_correct=False, penalty_applies=False, offender_role=role)
    text = (f"{situation}，{ev_text}，藏牌成立（{rule}）；藏牌一经成立即不得改正，"
            f"该墩牌成为完成牌墩（63C），按第64条处理。")
    return RevokeStatus(clauses=cids(rule, "63C"), explanation=text, established=True,
                        established_by=by, must_correct=False, penalty_applies=True, offender_role=role)


def revoke_adjustment(revoke_trick: Any, revoke_trick_winner: Any, offender: Any, later_tricks_won: Any,
                      offender_won_later_with_legal_card: Any = False, second_revoke_same_suit: Any = False,
                      faced_card: Any = False, declarer: Any = None, after_next_deal_call: Any = False,
                      after_round_end: Any = False) -> RevokeAdjustment:
    """Tricks transferred for an established revoke.

    64A1: the offender won the revoke trick → that trick plus one later trick won by his side.
    64A2: otherwise, if his side won the revoke trick or a later trick → one trick, plus one if the
    offender won a later trick with a card he could legally have played to the revoke trick.
    64B1–B6 → none. Never more than the side won from the revoke trick on. 64C always applies."""
    trick = parse_int(revoke_trick, "revoke_trick", 1, 12)
    winner = parse_seat(revoke_trick_winner, "revoke_trick_winner")
    off = parse_seat(offender, "offender")
    decl = parse_seat(declarer, "declarer", optional=True)
    if not isinstance(later_tricks_won, list):
        raise KbError(f"later_tricks_won: 应为墩号列表，收到 {type(later_tricks_won).__name__}")
    later = [parse_int(t, f"later_tricks_won[{i}]", trick + 1, 13) for i, t in enumerate(later_tricks_won)]
    if len(set(later)) != len(later):
        raise KbError("later_tricks_won: 重复的墩号")
    with_legal = parse_bool(offender_won_later_with_legal_card, "offender_won_later_with_legal_card")
    flags = {
        "64B2": parse_bool(second_revoke_same_suit, "second_revoke_same_suit"),
        "64B3": parse_bool(faced_card, "faced_card"),
        "64B4": parse_bool(after_next_deal_call, "after_next_deal_call"),
        "64B5": parse_bool(after_round_end, "after_round_end"),
    }
    if with_legal and not later:
        raise KbError("offender_won_later_with_legal_card: 违规方在藏牌后没有赢墩（later_tricks_won 为空），"
                      "违规者不可能在藏牌后赢墩")
    assert off is not None and winner is not None
    offending = side(off)
    other = "EW" if offending == "NS" else "NS"
    side_won_revoke = side(winner) == offending
    cap = int(side_won_revoke) + len(later)
    role = _role(off, decl)
    if role == "dummy":
        flags["64B3"] = True
    flags["64B6"] = trick == 12
    who = SEAT_NAMES[off]
    reasons = {
        "64B1": "违规方既未赢得藏牌墩，亦未赢得藏牌以后的牌墩",
        "64B2": "这是同一赛员在同一花色中的第二次藏牌",
        "64B3": "藏牌是未打出暴露在桌面上的牌张或摊牌一家（包括明手）的牌张所造成的",
        "64B4": "非违规方已对下一副牌叫牌后才指出藏牌",
        "64B5": "在一轮结束后才指出藏牌",
        "64B6": "藏牌发生在第十二墩",
    }
    exceptions = [k for k in ("64B1", "64B2", "64B3", "64B4", "64B5", "64B6")
                  if (cap == 0 if k == "64B1" else flags[k])]
    tail = "如裁判认为此处理不足以补偿非违规方所受的损害，应判给调整分（64C）。"
    if exceptions:
        why = "；".join(f"{reasons[k]}（{k}）" for k in exceptions)
        text = f"第{trick}墩{who}的藏牌成立但不判罚：{why}。{tail}"
        twelfth = ["62D1"] if "64B6" in exceptions else []
        if twelfth:
            text += "第12墩的藏牌即使已经成立，在四手牌收回牌套前发现仍须改正（62D1）。"
        return RevokeAdjustment(clauses=cids(*exceptions, "64C", *twelfth), explanation=text, tricks_transferred=0,
                                rule=exceptions[0], exceptions=tuple(exceptions), transferred_to=other,
                                cap=cap)
    if winner == off:
        rule = "64A1"
        count = 1 + (1 if later else 0)
        moved = "藏牌墩及违规方在藏牌以后的一个赢墩一并" if later else "藏牌墩（违规方在藏牌以后没有赢墩）"
        text = f"{who}赢得藏牌墩（第{trick}墩），打牌结束后将{moved}转给{SIDE_NAMES[other]}，共{count}墩（64A1）。"
    else:
        rule = "64A2"
        won = f"其同伴{SEAT_NAMES[winner]}赢得了藏牌墩" if side_won_revoke else "违规方在藏牌以后赢得了牌墩"
        count = 1 + (1 if with_legal else 0)
        text = f"第{trick}墩{who}藏牌，{who}未赢得藏牌墩，{won}，打牌结束后转一墩给{SIDE_NAMES[other]}（64A2）"
        if with_legal:
            text += "；违规者又用藏牌时可合法打出的牌张在藏牌以后赢墩，该墩也须转给非违规方"
        text += "。"
        if count > cap:
            text += f"但违规方自藏牌墩起只赢得{cap}墩，只能转{cap}墩。"
            count = cap
        text += f"共{count}墩。"
    return RevokeAdjustment(clauses=cids(rule, "64C"), explanation=text + tail, tricks_transferred=count,
                            rule=rule, exceptions=(), transferred_to=other, cap=cap)


def is_revoke_situation(i: dict) -> str:
    led = i.get("led_suit")
    verb = "打出" if led else "引出"
    # a card the penalty requires may be a penalty card face up on the table: he holds it, not in his hand
    has = "持有" if i.get("required_cards") else "手中有"
    parts = [f"本墩引出{prose.suit(led)}，一家{has} {prose.cards(i['hand'])}" if led else f"一家引牌，{has} {prose.cards(i['hand'])}"]
    if i.get("required_cards"):
        parts.append(f"罚则要求他打出{prose.cards(i['required_cards'])}{'中的一张' if len(i['required_cards']) > 1 else ''}")
    if i.get("required_suit"):
        parts.append(f"罚则要求他{verb}{prose.suit(i['required_suit'])}")
    return "，".join(parts) + f"；他{verb}了{prose.card(i['card'])}。"


IS_REVOKE = Ruling(
    "is-revoke", is_revoke, IS_REVOKE_CLAUSES,
    "打出的牌是否构成藏牌（第61条A款两种情形）",
    (Field("hand", "cards", "出牌前手中的牌"),
     Field("led_suit", "led", "本墩引牌花色"),
     Field("card", "card", "打出的牌"),
     Field("required_cards", "cards", "罚则要求打出的牌（其中一张）"),
     Field("required_suit", "suit", "罚则要求引出或打出的花色")),
    situation=is_revoke_situation)


def revoke_established_situation(i: dict) -> str:
    parts = [f"{prose.seat(i['offender'])}在第{i['revoke_trick']}墩藏牌"]
    if i.get("declarer"):
        parts.append(f"庄家为{prose.seat(i['declarer'])}")
    parts.append(("此后：" + "；".join(prose.event(e, ACTION_NAMES) for e in i["events"])) if i.get("events") else "此后尚无人出牌")
    if i.get("illegal_inquiry"):
        parts.append("藏牌是以违反第61条B款的方式指出的（如防家询问同伴是否藏牌）")
    if i.get("hands_returned"):
        parts.append("四手牌已收回牌套")
    return "，".join(parts) + "。"


REVOKE_ESTABLISHED = Ruling(
    "revoke-established", revoke_established, REVOKE_ESTABLISHED_CLAUSES,
    "藏牌是否成立、是否须改正、是否判罚（第61–64条）",
    (Field("revoke_trick", "int", "藏牌所在的墩", unit="第{}墩"),
     Field("offender", "seat", "违规者"),
     Field("events", "events", "藏牌以后发生的事", ACTION_NAMES, trick_actions=TRICK_ACTIONS),
     Field("declarer", "seat", "庄家"),
     Field("hands_returned", "bool", "四手牌已收回牌套"),
     Field("illegal_inquiry", "bool", "藏牌是以违反61B的方式指出的")),
    situation=revoke_established_situation)


def revoke_adjustment_situation(i: dict) -> str:
    parts = [f"{prose.seat(i['offender'])}在第{i['revoke_trick']}墩藏牌，该墩由{prose.seat(i['revoke_trick_winner'])}赢得"]
    if i.get("declarer"):
        parts.append(f"庄家为{prose.seat(i['declarer'])}")
    later = i.get("later_tricks_won", [])
    parts.append(f"违规方此后赢得{'、'.join(f'第{n}墩' for n in later)}" if later else "违规方此后未再赢墩")
    parts += prose.flagged(i, (("second_revoke_same_suit", "这是同一花色的第二次藏牌"),
                          ("offender_won_later_with_legal_card", "违规者后来用藏牌时本可合法打出的牌张赢得一墩"),
                          ("faced_card", "藏牌出于摊在桌面上的牌（罚张、摊牌者或明手的牌）"),
                          ("after_next_deal_call", "非违规方已对下一副牌叫牌后才指出"),
                          ("after_round_end", "一轮结束后才指出")))
    return "，".join(parts) + "。"


REVOKE_ADJUSTMENT = Ruling(
    "revoke-adjustment", revoke_adjustment, REVOKE_ADJUSTMENT_CLAUSES,
    "藏牌成立后转移几墩（第64条）",
    (Field("revoke_trick", "int", "藏牌所在的墩", unit="第{}墩"),
     Field("revoke_trick_winner", "seat", "赢得藏牌墩的一家"),
     Field("offender", "seat", "违规者"),
     Field("later_tricks_won", "ints", "违规方此后赢得的墩"),
     Field("offender_won_later_with_legal_card", "bool", "违规者用藏牌时本可合法打出的牌张在藏牌以后赢墩"),
     Field("second_revoke_same_suit", "bool", "同一花色第二次藏牌"),
     Field("faced_card", "bool", "藏牌出于摊在桌面上的牌（罚张、摊牌者或明手的牌）"),
     Field("declarer", "seat", "庄家"),
     Field("after_next_deal_call", "bool", "下一副已有人叫牌后才指出"),
     Field("after_round_end", "bool", "一轮结束后才指出")),
    situation=revoke_adjustment_situation)
