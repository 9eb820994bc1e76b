"""Law 57 (a defender's premature lead or play) and Law 58 (simultaneous leads or plays)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    SEAT_NAMES,
    SUIT_NAMES,
    Result,
    cids,
    disjoint,
    labels,
    parse_bool,
    parse_card,
    parse_cards,
    parse_choice,
    parse_seat,
    parse_suit,
    partner,
    sort_cards,
)
from kb.rules.bridge.declare import Field, Ruling

PREMATURE_CLAUSES = cids("57A", "57A1", "57A2", "57A3", "57B", "57C", "50", "59")
SIMULTANEOUS_CLAUSES = cids("58A", "58B1", "58B2", "58B3", "58B4", "50", "67")
OPTIONS = ("highest", "lowest", "forbid")
# declarer's choice (57A1–57A3) and the two cases of Law 58, in the words the form, the examples and the answers use
OPTION_NAMES = {"highest": "要求同伴打出引牌花色的最大牌张", "lowest": "要求同伴打出引牌花色的最小牌张",
                "forbid": "禁止同伴打出另一指定花色"}
OPTION_CLAUSES = {"highest": "57A1", "lowest": "57A2", "forbid": "57A3"}
KIND_NAMES = {"two_players": "两名赛员同时出牌", "one_player": "一名赛员一次打出几张牌"}


@dataclass(frozen=True)
class PrematureRuling(Result):
    """Law 57: the penalty card and what declarer may require of the offender's partner."""

    penalty: bool = False
    penalty_card: str | None = None
    options: tuple[str, ...] = ()
    legal_cards: tuple[str, ...] | None = None   # partner's playable cards under declarer's choice


def premature_play(offender: Any, card: Any, led_suit: Any, declarer_and_dummy_played: Any = False,
                   declarer_option: Any = None, forbidden_suit: Any = None, partner_hand: Any = None) -> PrematureRuling:
    """A defender (``offender``) led to the next trick or played ``card`` before his partner played to
    the current trick (led suit ``led_suit``). 57C: no penalty if declarer and dummy had both played
    (or dummy played or suggested a play). Otherwise the card is a penalty card and declarer chooses
    57A1 highest / 57A2 lowest of the suit led / 57A3 forbid another suit; 57B: partner unable → any card."""
    off = parse_seat(offender, "offender")
    assert off is not None
    seat = SEAT_NAMES[off]
    c = parse_card(card, "card")
    led = parse_suit(led_suit, "led_suit")
    assert led is not None
    situation = f"引牌花色为{SUIT_NAMES[led]}，防家{seat}在同伴打牌前过早打出{c.label}"
    if parse_bool(declarer_and_dummy_played, "declarer_and_dummy_played"):
        if declarer_option is not None:
            raise KbError("declarer_option: 57C 情形不判罚，庄家没有选择")
        return PrematureRuling(clauses=cids("57C"), explanation=f"{situation}；但庄家与明手均已对本墩打过牌"
                               "（或明手已自行打牌或违规建议打牌），不判罚（57C）。")
    opt = parse_choice(declarer_option, "declarer_option", OPTIONS, optional=True)
    hand = None if partner_hand is None else parse_cards(partner_hand, "partner_hand", min_len=1)
    if hand is not None:
        disjoint([("card", [c]), ("partner_hand", hand)])
    head = f"{situation}：{c.label}成为罚张（57A；罚张按第50条处理）"
    if opt is None:
        return PrematureRuling(clauses=cids("57A", "57A1", "57A2", "57A3", "50"), penalty=True, penalty_card=str(c),
                               options=OPTIONS, explanation=head + "；庄家可选择" +
                               "，或".join(f"{OPTION_NAMES[o]}（{OPTION_CLAUSES[o]}）" for o in OPTIONS) + "。")
    forb = parse_suit(forbidden_suit, "forbidden_suit", optional=True)
    if opt == "forbid":
        if forb is None or forb == led:
            raise KbError("forbidden_suit: 57A3 须指定引牌花色以外的另一花色")
    elif forb is not None:
        raise KbError("forbidden_suit: 只在 declarer_option 为 forbid 时给出")
    rule = OPTION_CLAUSES[opt]
    text = head + f"；庄家选择{OPTION_NAMES[opt]}（{rule}）" if opt != "forbid" else \
        head + f"；庄家禁止同伴打出{SUIT_NAMES[forb]}（57A3）"    # type: ignore[index]
    if hand is None:
        return PrematureRuling(clauses=cids("57A", rule), penalty=True, penalty_card=str(c), explanation=text + "。")
    follow = sorted((x for x in hand if x.suit == led), key=lambda x: x.rank)
    if opt in ("highest", "lowest"):
        if not follow:
            return PrematureRuling(clauses=cids("57A", rule, "57B", "59"), penalty=True, penalty_card=str(c),
                                   legal_cards=tuple(str(x) for x in sort_cards(hand)),
                                   explanation=text + f"；同伴没有{SUIT_NAMES[led]}，无法履行，可打出任何牌张（57B、59）。")
        pick = follow[-1] if opt == "highest" else follow[0]
        return PrematureRuling(clauses=cids("57A", rule), penalty=True, penalty_card=str(c), legal_cards=(str(pick),),
                               explanation=text + f"：须打出{pick.label}。")
    legal = follow or [x for x in hand if x.suit != forb]
    if not legal:
        return PrematureRuling(clauses=cids("57A", rule, "57B", "59"), penalty=True, penalty_card=str(c),
                               legal_cards=tuple(str(x) for x in sort_cards(hand)),
                               explanation=text + "；同伴只有被禁止的花色，无法履行，可打出任何牌张（57B、59）。")
    return PrematureRuling(clauses=cids("57A", rule), penalty=True, penalty_card=str(c),
                           legal_cards=tuple(str(x) for x in sort_cards(legal)),
                           explanation=text + f"：可打{labels(sort_cards(legal))}。")


@dataclass(frozen=True)
class SimultaneousRuling(Result):
    """Law 58: which card is played and what becomes of the others."""

    played: str | None = None
    withdrawn: tuple[str, ...] = ()
    penalty_cards: tuple[str, ...] = ()
    player_designates: bool = False
    defective_trick: bool = False


def simultaneous_play(kind: Any, visible: Any = None, defender: Any = False, designated: Any = None,
                      discovered_after_next_trick: Any = False, cards: Any = None) -> SimultaneousRuling:
    """``kind``: ``two_players`` — a lead or play made at the same time as a legal one (58A);
    ``one_player`` — one player led or played ``cards`` at once, of which ``visible`` could be seen
    (58B1 one visible: it is played; 58B2 several: he designates one, a defender's others become
    penalty cards). ``discovered_after_next_trick``: both sides had played to the next trick (58B4 → 67)."""
    how = parse_choice(kind, "kind", tuple(KIND_NAMES))
    if how == "two_players":
        return SimultaneousRuling(clauses=cids("58A"), explanation="两名赛员同时出牌：与合法引牌或打牌同时作出的引牌或打牌，"
                                  "视为在其之后的接续行动（58A）。")
    many = parse_cards(cards, "cards", min_len=2)
    seen = parse_cards(visible, "visible", min_len=1)
    for i, v in enumerate(seen):
        if v not in many:
            raise KbError(f"visible[{i}]: {v.label} 不在 cards 中")
    situation = f"一名赛员同时打出{labels(many)}，其中能看到的是{labels(seen)}"
    if parse_bool(discovered_after_next_trick, "discovered_after_next_trick"):
        return SimultaneousRuling(clauses=cids("58B4", "67"), defective_trick=True,
                                  explanation=f"{situation}；双方均已对下一墩出牌后才发现，应用第67条（58B4）——"
                                  "请用 defective-trick 判定。")
    hidden = [x for x in many if x not in seen]
    if len(seen) == 1:
        return SimultaneousRuling(clauses=cids("58B1", "58B3"), played=str(seen[0]), withdrawn=tuple(map(str, hidden)),
                                  explanation=f"{situation}：只有一张可以看到，{seen[0].label}必须打出，其余牌张收回，不判罚（58B1）；"
                                  "对手在收回后接续打出的牌可收回改换，不判罚（58B3）。")
    is_def = parse_bool(defender, "defender")
    pick = None if designated is None else parse_card(designated, "designated")
    if pick is not None and pick not in seen:
        raise KbError(f"designated: {pick.label} 不是能看到的牌")
    rest = [x for x in seen if x != pick]
    text = f"{situation}：有一张以上可以看到，该赛员应指定打出哪一张（58B2）"
    if pick is not None:
        text += f"：打出{pick.label}"
    if is_def:
        text += (f"；他是防家，其余暴露的{labels(rest) if pick else '牌张'}均成为罚张（58B2、第50条）。")
    else:
        text += "；他是庄家（或明手），其余牌张收回，不成为罚张。"
    text += "对手在收回后接续打出的牌可收回改换，不判罚（58B3）。"
    return SimultaneousRuling(clauses=cids("58B2", "58B3", *(("50",) if is_def else ())),
                              played=None if pick is None else str(pick), player_designates=pick is None,
                              withdrawn=tuple(str(x) for x in hidden + ([] if is_def else rest)),
                              penalty_cards=tuple(str(x) for x in rest) if is_def and pick else (),
                              explanation=text)


def premature_play_situation(i: dict) -> str:
    off, mate = i["offender"], partner(i["offender"])
    parts = [f"本墩引出{prose.suit(i['led_suit'])}，防家{prose.seat(off)}在同伴{prose.seat(mate)}出牌之前过早打出{prose.card(i['card'])}"]
    if i.get("declarer_and_dummy_played"):
        parts[0] += "，此时庄家与明手均已对本墩出牌"
    option = i.get("declarer_option")
    if option == "forbid" and i.get("forbidden_suit"):
        parts.append(f"庄家禁止{prose.seat(mate)}打出{prose.suit(i['forbidden_suit'])}")
    elif option:
        parts.append(f"庄家选择{prose.value(OPTION_NAMES, option, 'declarer_option').replace('同伴', prose.seat(mate))}")
    if i.get("partner_hand"):
        parts.append(f"{prose.seat(mate)}手中有 {prose.cards(i['partner_hand'])}{prose.void(i, 'partner_hand')}")
    return "；".join(parts) + "。"


PREMATURE_PLAY = Ruling(
    "premature-play", premature_play, PREMATURE_CLAUSES,
    "防家过早引牌或打牌：罚张与庄家对其同伴的选择（第57条）",
    (Field("offender", "seat", "过早出牌的防家"),
     Field("card", "card", "过早打出的牌"),
     Field("led_suit", "led", "本墩引牌花色"),
     Field("declarer_and_dummy_played", "bool", "庄家与明手均已对本墩出牌"),
     Field("declarer_option", "choice", "庄家的选择", OPTION_NAMES),
     Field("forbidden_suit", "suit", "庄家禁止的花色"),
     Field("partner_hand", "cards", "违规者同伴手中的牌")),
    situation=premature_play_situation)


def simultaneous_play_situation(i: dict) -> str:
    if i["kind"] == "two_players":
        return "两名赛员同时出牌：一家合法引牌或出牌的同时，另一家也引牌或出牌。"
    many, seen = i.get("cards", []), i.get("visible", [])
    who = "防家" if i.get("defender") else ("庄家（或明手）" if len(seen) > 1 else "一名赛员")
    parts = [f"{who}一次打出{prose.count(many)}张牌 {prose.cards(many)}，其中能看到的是 {prose.cards(seen)}"]
    if i.get("designated"):
        parts.append(f"他指定打出{prose.card(i['designated'])}")
    if i.get("discovered_after_next_trick"):
        parts.append("双方均已对下一墩出牌后才发现")
    return "；".join(parts) + "。"


SIMULTANEOUS_PLAY = Ruling(
    "simultaneous-play", simultaneous_play, SIMULTANEOUS_CLAUSES,
    "同时引牌或打牌、一手同时打出多张牌（第58条）",
    (Field("kind", "choice", "同时出牌的情形", KIND_NAMES),
     Field("visible", "cards", "能看到的牌"),
     Field("defender", "bool", "出牌者为防家"),
     Field("designated", "card", "指定打出的牌"),
     Field("discovered_after_next_trick", "bool", "双方均已对下一墩出牌后才发现"),
     Field("cards", "cards", "一次打出的牌")),
    situation=simultaneous_play_situation)
