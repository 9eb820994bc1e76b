"""Worked examples in words: the situation, the ruling and its clauses, the details for people.

The examples and their verified results come from the rules stage (kb/rules, checked as the
build runs: a wrong example fails the build). This module only words them for the site: a
sentence or two for the situation (from the example's input), the ruling (the rules code's own
explanation or the 台 items), the clauses as ⟦id⟧ markers (turned into links by the renderer),
and a collapsed table of every input field under a Chinese label. A field without a label here
fails the build, so no code field name reaches a page.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from kb.core.errors import KbError
from kb.core.records import Record
from kb.rules.bridge.auction import parse_call
from kb.rules.bridge.cards import SEAT_NAMES, SUIT_NAMES, next_seat, parse_card, parse_seat, partner, seat_and_role
from kb.rules.bridge.claim import ACT_NAMES
from kb.rules.bridge.fields import ACTIONS, CHOSEN, DUMMY_ACTIONS, KINDS, OPTIONS, PREMATURE_OPTIONS, TURNS, kind, label, words_of
from kb.rules.mahjong.examples import hand_of
from kb.rules.mahjong.tiles import tile_name

Examples = dict[str, list[str]]

# -- bridge ------------------------------------------------------------------------------------

def cards(codes: list[str]) -> str:
    return " ".join(parse_card(c, "card").label for c in codes) or "（无）"


def card(code: str) -> str:
    return parse_card(code, "card").label


def suit(code: str | None) -> str:
    return "无将" if code is None or code == "NT" else SUIT_NAMES[code]


def seat(code: str) -> str:
    return SEAT_NAMES[str(parse_seat(code, "seat"))]


def count(items: list) -> str:
    """两、三 … for a few cards, digits beyond."""
    return "一两三四五六七八九"[len(items) - 1] if 0 < len(items) < 10 else str(len(items))


def call(code: str, key: str) -> str:
    """A call as the rulings word it: 1红心, 3无将, 不叫, 加倍, 再加倍."""
    return parse_call(code, key).label


def called(code: str, key: str) -> str:
    """A call as what a player did: 叫1红心, 不叫, 加倍."""
    c = parse_call(code, key)
    return f"叫{c.label}" if c.kind == "bid" else c.label


def word(words: dict[str, str], value: Any, key: str) -> str:
    if value not in words:
        raise KbError(f"worked example: value {value!r} of input field {key} has no wording in kb/site/examples_text.py")
    return words[value]


def event(ev: dict) -> str:
    trick = f"第{ev['trick']}墩" if "trick" in ev else ""
    if ev["action"] == "name":
        return f"{seat(ev['seat'])}{'的' + trick if trick else ''}牌已被指明"
    return f"{seat(ev['seat'])}{trick}{ACTIONS[ev['action']]}"


def bridge_value(function: str, key: str, value: Any) -> str:
    """An input value for a person: cards as ♠A, seats as 北家, calls as 1红心, flags as 是/否."""
    k = kind(function, key)
    if isinstance(value, bool):
        return "是" if value else "否"
    if k == "cards":
        return cards(value)
    if k == "card":
        return card(value)
    if k == "led" and value is None:
        return "无（他引牌）"
    if k in ("suit", "trump", "led"):
        return suit(value)
    if k == "suits":
        return "、".join(suit(s) for s in value)
    if k == "seat":
        return seat(value)
    if k == "call":
        return call(value, key)
    if k == "events":
        return "；".join(event(e) for e in value) or "（无）"
    if k == "ints":
        return "、".join(f"第{n}墩" for n in value) or "（无）"
    if key in ("revoke_trick", "trick"):
        return f"第{value}墩"
    if k == "choice":
        return word(words_of(function, key) or {}, value, key)
    if k == "word":
        return f"“{value}”"
    return str(value)


def _led(i: dict) -> str:
    return f"本墩引出{suit(i['led_suit'])}" if i.get("led_suit") else "轮到他引牌"


def _void(i: dict, hand: str = "hand") -> str:
    """"，没有红心" when the hand holds no card of the suit led."""
    led = i.get("led_suit")
    if not led or not i.get(hand) or any(parse_card(c, "card").suit == led for c in i[hand]):
        return ""
    return f"，没有{suit(led)}"


def _legal_cards(i: dict) -> str:
    return f"{_led(i)}；手中有 {cards(i['hand'])}{_void(i)}。"


def _trick_winner(i: dict) -> str:
    plays = "、".join(f"{seat(next_seat(i['leader'], k))}{card(c)}" for k, c in enumerate(i["cards_in_order"]))
    trump = "无将定约" if suit(i.get("trump")) == "无将" else f"将牌为{suit(i['trump'])}"
    return f"{trump}，{seat(i['leader'])}引牌；依次打出：{plays}。"


def _designate(i: dict) -> str:
    parts = [f"明手有 {cards(i['dummy_cards'])}"]
    if i.get("current_trick_cards"):
        parts.append(f"本墩已打出 {cards(i['current_trick_cards'])}，明手第{len(i['current_trick_cards']) + 1}家出牌")
    elif i.get("led_suit"):
        parts.append(f"本墩引出{suit(i['led_suit'])}")
    else:
        parts.append("由明手引牌")
    if i.get("previous_trick_winning_suit"):
        parts.append(f"上一墩以{suit(i['previous_trick_winning_suit'])}赢得")
    if "trump" in i:
        parts.append("无将定约" if suit(i["trump"]) == "无将" else f"将牌为{suit(i['trump'])}")
    return "，".join(parts) + f"；庄家说：“{i['call']}”。"


def _penalty_card_kind(i: dict) -> str:
    how = "因疏忽" if i.get("inadvertent") else "并非因疏忽（如越序引牌）"
    many = f"（同时暴露了 {i['count_of_penalty_cards']} 张牌）" if i.get("count_of_penalty_cards", 1) > 1 else ""
    return f"防守方{how}暴露了{card(i['card'])}{many}。"


def _penalty_card_obligations(i: dict) -> str:
    kind = KINDS[i["kind"]] if i.get("kind") else ("轻罚张" if i.get("inadvertent") else "罚张")
    parts = [f"防守方一家有{kind} {cards(i['penalty_cards'])} 摊在桌上"]
    parts.append(TURNS[i["turn"]])
    if i.get("led_suit"):
        parts.append(f"本墩引出{suit(i['led_suit'])}")
    if i.get("hand"):
        parts.append(f"{'同伴' if i['turn'] == 'partner_lead' else '违规者'}手中有 {cards(i['hand'])}{_void(i)}")
    if i.get("declarer_option") and i.get("suits"):
        verb = {"require": "要求引出", "forbid": "禁止引出"}.get(i["declarer_option"], "指名")
        parts.append(f"庄家{verb}{'、'.join(suit(s) for s in i['suits'])}")
    elif i.get("declarer_option"):
        parts.append(f"庄家{OPTIONS[i['declarer_option']]}")
    return "，".join(parts) + "。"


def _is_revoke(i: dict) -> str:
    led = i.get("led_suit")
    verb = "打出" if led else "引出"
    # a card the penalty requires may be a penalty card face up on the table: he holds it, not in his hand
    has = "持有" if i.get("required_cards") else "手中有"
    parts = [f"本墩引出{suit(led)}，一家{has} {cards(i['hand'])}" if led else f"一家引牌，{has} {cards(i['hand'])}"]
    if i.get("required_cards"):
        parts.append(f"罚则要求他打出{cards(i['required_cards'])}{'中的一张' if len(i['required_cards']) > 1 else ''}")
    if i.get("required_suit"):
        parts.append(f"罚则要求他{verb}{suit(i['required_suit'])}")
    return "，".join(parts) + f"；他{verb}了{card(i['card'])}。"


def _revoke_established(i: dict) -> str:
    parts = [f"{seat(i['offender'])}在第{i['revoke_trick']}墩藏牌"]
    if i.get("declarer"):
        parts.append(f"庄家为{seat(i['declarer'])}")
    parts.append(("此后：" + "；".join(event(e) for e in i["events"])) if i.get("events") else "此后尚无人出牌")
    if i.get("illegal_inquiry"):
        parts.append("藏牌是以违反第61条B款的方式指出的（如防家询问同伴是否藏牌）")
    if i.get("hands_returned"):
        parts.append("四手牌已收回牌套")
    return "，".join(parts) + "。"


def _revoke_adjustment(i: dict) -> str:
    parts = [f"{seat(i['offender'])}在第{i['revoke_trick']}墩藏牌，该墩由{seat(i['revoke_trick_winner'])}赢得"]
    if i.get("declarer"):
        parts.append(f"庄家为{seat(i['declarer'])}")
    later = i.get("later_tricks_won", [])
    parts.append(f"违规方此后赢得{'、'.join(f'第{n}墩' for n in later)}" if later else "违规方此后未再赢墩")
    parts += _flagged(i, (("second_revoke_same_suit", "这是同一花色的第二次藏牌"),
                          ("offender_won_later_with_legal_card", "违规者后来用藏牌时本可合法打出的牌张赢得一墩"),
                          ("faced_card", "藏牌出于摊在桌面上的牌（罚张、摊牌者或明手的牌）"),
                          ("after_next_deal_call", "非违规方已对下一副牌叫牌后才指出"),
                          ("after_round_end", "一轮结束后才指出")))
    return "，".join(parts) + "。"


def _flagged(i: dict, said: tuple[tuple[str, str], ...]) -> list[str]:
    """The words of each flag of ``i`` that is set, in the order given."""
    return [text for key, text in said if i.get(key)]


def _insufficient_bid(i: dict) -> str:
    first = f"前一叫品为{call(i['previous_bid'], 'previous_bid')}，违规者接着叫{call(i['bid'], 'bid')}（不足叫牌）"
    parts = [first + ("，而且未轮到他叫牌" if i.get("out_of_rotation") else "")]
    if i.get("accepted"):
        parts.append("他的下家随即接续叫牌")
    elif i.get("correction"):
        parts.append(f"下家没有接受，违规者更正为{call(i['correction'], 'correction')}")
    else:
        parts.append("下家没有接受，违规者尚未更正")
    if i.get("conventional"):
        parts.append("该不足叫牌或更正的叫牌可能是约定叫牌")
    return "；".join(parts) + "。"


def _call_out_of_rotation(i: dict) -> str:
    off, turn = seat(i["offender"]), seat(i["turn"])
    rel = "同伴" if i["turn"] == partner(i["offender"]) else ("上家" if next_seat(i["turn"]) == i["offender"] else "下家")
    parts = []
    if i.get("bid_made_before"):
        parts.append("此前已有赛员实质叫牌")
    if i.get("offender_called_before"):
        parts.append(f"{off}此前已叫过牌")
    if i.get("rho_must_pass"):
        parts.append(f"{turn}（{off}的上家）受罚必须不叫，在他叫出不叫之前，{off}抢先{called(i['call'], 'call')}")
    else:
        parts.append(f"应轮到{turn}（{off}的{rel}）叫牌，{off}越序{called(i['call'], 'call')}")
    if i.get("conventional"):
        parts.append("该叫为约定叫牌")
    if i.get("called_over_by"):
        over = i["called_over_by"]
        who = "轮到叫牌的" if over == i["turn"] else ("违规者的下家" if over == next_seat(i["offender"]) else "")
        parts.append(f"裁定之前，{who}{seat(over)}接着叫了牌")
    if i.get("rho_next_call"):
        parts.append(f"随后{turn}{called(i['rho_next_call'], 'rho_next_call')}")
    if i.get("offender_next_call"):
        parts.append(f"{off}接着{called(i['offender_next_call'], 'offender_next_call')}")
    return "；".join(parts) + "。"


def _lead_out_of_turn(i: dict) -> str:
    off, decl, right = i["leader"], i["declarer"], i["correct_leader"]
    dummy = partner(decl)
    if right == decl:
        due = "本墩应从庄家手中引牌"
    elif right == dummy:
        due = f"本墩应从明手（{seat(dummy)}）引牌"
    else:
        due = f"首引应由{seat(right)}作出" if i.get("opening_lead") else f"本墩应由{seat(right)}引牌"
    parts = [f"{seat(decl)}为庄家，{due}"]
    if off == decl:
        did, chooser = f"庄家却从自己手中引出{card(i['card'])}", "防家"
    elif off == dummy:
        did, chooser = f"庄家却从明手（{seat(off)}）引出{card(i['card'])}", "防家"
    else:
        did, chooser = f"{seat(off)}（防家）越序牌面向上引出{card(i['card'])}", "庄家"
    parts[0] += "，" + did
    if i.get("declarer_may_have_seen_dummy"):
        parts.append("庄家可能已看到明手的牌")
    if i.get("declarer_began_facing"):
        parts.append("庄家已开始摊牌，暴露了牌张")
    if i.get("played_by"):
        parts.append(f"裁定之前，{seat(i['played_by'])}已接着出牌")
    if i.get("choice"):
        parts.append(f"{chooser}选择{word(CHOSEN, i['choice'], 'choice')}")
    return "；".join(parts) + "。"


def _premature_play(i: dict) -> str:
    off, mate = i["offender"], partner(i["offender"])
    parts = [f"本墩引出{suit(i['led_suit'])}，防家{seat(off)}在同伴{seat(mate)}出牌之前过早打出{card(i['card'])}"]
    if i.get("declarer_and_dummy_played"):
        parts[0] += "，此时庄家与明手均已对本墩出牌"
    option = i.get("declarer_option")
    if option == "forbid" and i.get("forbidden_suit"):
        parts.append(f"庄家禁止{seat(mate)}打出{suit(i['forbidden_suit'])}")
    elif option:
        parts.append(f"庄家选择{word(PREMATURE_OPTIONS, option, 'declarer_option').replace('同伴', seat(mate))}")
    if i.get("partner_hand"):
        parts.append(f"{seat(mate)}手中有 {cards(i['partner_hand'])}{_void(i, 'partner_hand')}")
    return "；".join(parts) + "。"


def _simultaneous_play(i: dict) -> str:
    if i["kind"] == "two_players":
        return "两名赛员同时出牌：一家合法引牌或出牌的同时，另一家也引牌或出牌。"
    many, seen = i.get("cards", []), i.get("visible", [])
    who = "防家" if i.get("defender") else ("庄家（或明手）" if len(seen) > 1 else "一名赛员")
    parts = [f"{who}一次打出{count(many)}张牌 {cards(many)}，其中能看到的是 {cards(seen)}"]
    if i.get("designated"):
        parts.append(f"他指定打出{card(i['designated'])}")
    if i.get("discovered_after_next_trick"):
        parts.append("双方均已对下一墩出牌后才发现")
    return "；".join(parts) + "。"


def _defective_trick(i: dict) -> str:
    when = "双方均已对下一墩出牌后" if i.get("discovered_after_next_trick") else "双方对下一墩出牌之前"
    head = f"第{i['trick']}墩引出{suit(i['led_suit'])}，"
    if i["fault"] == "omitted":
        return head + f"一家没有对该墩出牌（漏打），{when}被指出；他手中有 {cards(i['hand'])}{_void(i)}。"
    many = i.get("cards_in_trick", [])
    seen = f"，其中暴露的是{card(i['exposed'])}" if i.get("exposed") else ""
    return head + f"一家对该墩打出了{count(many)}张牌 {cards(many)}{seen}，{when}被指出。"


def bridge_ruling(text: str) -> str:
    """The rules code's explanation, without its pointers to other CLI commands (「请用 defective-trick 判定」)."""
    return re.sub(r"请用 [a-z][a-z-]* 判定。", "", re.sub(r"——请用 [a-z][a-z-]* 判定。", "。", text))


def _dummy_rights(i: dict) -> str:
    before = "明手此前已违反第43条A款2的一项限制；" if i.get("after_breach") else ""
    drawn = "另一赛员已指出违规后，" if i.get("attention_drawn") else ""
    revoked = "，庄家确已藏牌" if i.get("declarer_revoked") else ""
    did = word(DUMMY_ACTIONS, i["action"], "action")
    if i.get("after_breach") and i["action"] == "point_out_during_play":
        did = "在打牌过程中首先指出防守方的违规"              # 43B3: the defenders' irregularity, dummy first
    if i.get("after_breach") and i["action"] == "ask_declarer_revoke":
        did = "最先询问庄家是否藏牌"
    if i.get("after_breach") and i["action"] == "prevent_irregularity":
        did = "提醒庄家不要从错误方位引牌"                   # 43B2(a) is about that warning only
    return f"{before}{drawn}明手{did}{revoked}。"


def _exposed_card(i: dict) -> str:
    who = seat_and_role(str(parse_seat(i["exposed_by"], "exposed_by")), str(parse_seat(i["declarer"], "declarer")))
    if i.get("faced_hand"):
        return f"{who}" + ("在对方牌面向上的越序首引之后立刻" if i.get("after_opening_lead_out_of_turn") else "在打牌过程中") \
            + "摊开手中的牌。"
    how = "因疏忽暴露（如不慎掉落）了" if i.get("inadvertent", True) else "有意亮出了"
    return f"{who}{how}{card(i['card'])}。"


def _contested_claim(i: dict) -> str:
    parts = ["一家作出声称，对方有异议，召请裁判"]
    if i.get("outstanding_trump"):
        parts.append("对手手中尚有一张将牌，声称者" + ("说明了" if i.get("trump_mentioned") else "未说明")
                     + "该将牌" + ("，可能并未觉察" if i.get("claimer_may_be_unaware") else "")
                     + ("，在某种正常打法下可能在该将牌上失墩" if i.get("trick_could_be_lost") else "，任何正常打法都不会在该将牌上失墩"))
    if i.get("new_line"):
        parts.append("声称者事后提出原说明以外的另一条成功路线，而另有一种成功机会较少的正常打法")
    if i.get("unstated_line"):
        parts.append("声称要成功须飞牌或跌落（某对手持有某张牌），声称者未曾说明"
                     + ("；声称前该对手在该花色已未跟牌" if i.get("opponent_showed_out") else "")
                     + ("；以后任何正常打法该对手都将跟不出该花色" if i.get("any_normal_play_shows_out") else "")
                     + ("；不采用此打法是不合理的" if i.get("irrational_otherwise") else "")
                     + ("" if any(i.get(k) for k in ("opponent_showed_out", "any_normal_play_shows_out",
                                                      "irrational_otherwise")) else "；没有第70条E款所列的例外"))
    return "；".join(parts) + "。"


def _concession(i: dict) -> str:
    did = "一名赛员承认输掉一墩" if i["kind"] == "concession" else "一名赛员同意了对方对一墩的声称"
    if i.get("contract_already_decided"):      # 71B: the concession is of the contract's result
        did = "庄家已完成定约，却承认定约失败（或防家已击败定约，却承认定约完成）"
    facts = _flagged(i, (("trick_already_won", "该墩实际上本方已经赢得"),
                         ("no_legal_play_loses", "剩余牌张任何合法打法都不会失掉该墩")))
    if i.get("no_normal_play_loses") and not i.get("no_legal_play_loses"):
        facts.append("剩余牌张任何正常打法都不会失掉该墩（某种不正常的打法才会）")
    if not facts and not i.get("contract_already_decided"):
        facts.append("该墩并非本方已赢得，以某种正常打法也有可能失掉")
    when = []
    if i.get("within_correction_period") is False:
        when.append("已过第79条C款的更正时限才提出")
    if i.get("before_next_call") is False:
        when.append("本方已对下一副牌叫牌后才提出")
    normal_only = i.get("no_normal_play_loses") and not (i.get("trick_already_won") or i.get("no_legal_play_loses")
                                                          or i.get("contract_already_decided"))
    in_time = "；在本方对下一副牌叫牌、该轮结束之前提出" if normal_only and i["kind"] == "concession" \
        else "；在第79条C款的更正时限内提出"
    return did + "".join(f"；{f}" for f in facts[:1]) + "".join(f"，{f}" for f in facts[1:]) \
        + (f"；{'，'.join(when)}" if when else in_time) + "。"


def _claim_or_concession(i: dict) -> str:
    act = word(ACT_NAMES, i["act"], "act")
    if i.get("current_trick_only"):      # 这墩是我的: about the trick in progress, not the later ones
        act = "说当前这一墩是他的" if i["act"] == "states_tricks_won" else act + "，只涉及当前牌墩"
    parts = [("一名防家" if i.get("defender_partner_objects") or i.get("by_defender") else "一名赛员") + act]
    parts += _flagged(i, (("clearly_not_a_claim", "从情况看他显然不打算声称"), ("defender_partner_objects", "其同伴立即反对"),
                          ("disputed", "对方有异议")))
    return "，".join(parts) + "。"


SITUATIONS: dict[str, Callable[[dict], str]] = {
    "legal_cards": _legal_cards, "trick_winner": _trick_winner, "designate": _designate,
    "penalty_card_kind": _penalty_card_kind, "penalty_card_obligations": _penalty_card_obligations,
    "is_revoke": _is_revoke, "revoke_established": _revoke_established, "revoke_adjustment": _revoke_adjustment,
    "insufficient_bid": _insufficient_bid, "call_out_of_rotation": _call_out_of_rotation,
    "lead_out_of_turn": _lead_out_of_turn, "premature_play": _premature_play,
    "simultaneous_play": _simultaneous_play, "defective_trick": _defective_trick,
    "dummy_rights": _dummy_rights, "exposed_card": _exposed_card, "contested_claim": _contested_claim,
    "concession": _concession, "claim_or_concession": _claim_or_concession,
}

# -- mahjong -----------------------------------------------------------------------------------

MAHJONG_LABELS = {
    "concealed": "手中的牌（含胡牌）", "melds": "副露（吃、碰、杠）", "flowers": "花牌",
    "winning_tile": "胡的牌", "self_drawn": "自摸", "seat": "开门序（门风）", "round_wind": "圈风",
    "dealer": "胡牌者是庄家", "from_dealer": "由庄家付台（放铳或自摸分摊）", "dealer_streak": "庄家连庄次数",
    "after_kan": "杠上开花（补牌胡）", "last_tile": "海底（最后一张牌胡）", "robbing_kan": "抢杠胡",
    "declared": "听牌宣告", "timing": "天胡、地胡或人胡", "flower_win": "花胡",
    "rob_case": "七抢一的情形", "at_deal": "配牌时即成花胡", "lilgu": "采用呖咕呖咕", "note": "附注",
}
MELDS = {"chi": "吃", "pon": "碰", "kan": "明杠", "ankan": "暗杠"}
WINDS = "东南西北"


def tiles(codes: list[str]) -> str:
    return " ".join(tile_name(t) for t in codes) or "（无）"


def mahjong_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if key in ("concealed", "flowers"):
        return tiles(value)
    if key == "winning_tile":
        return tile_name(value)
    if key == "melds":
        return "；".join(f"{MELDS[m['type']]} {''.join(tile_name(t) for t in m['tiles'])}" for m in value) or "（无）"
    if key == "seat":
        return f"第{value}家（{WINDS[value - 1]}风）"
    if key == "round_wind":
        return f"{tile_name(value)}风圈"
    if key == "dealer_streak":
        return f"{value} 次"
    if key == "rob_case":
        return f"第{value}种"
    return str(value)


def mahjong_situation(hand: dict) -> str:
    seat = hand.get("seat", 1)
    who = "胡牌者是庄家" if hand.get("dealer") else f"胡牌者开门序第{seat}家（{WINDS[seat - 1]}风位）"
    if hand.get("dealer") and hand.get("dealer_streak"):
        who += f"，已连庄 {hand['dealer_streak']} 次"
    first = [who + (f"，{tile_name(hand['round_wind'])}风圈" if "round_wind" in hand else "")]
    if hand.get("declared"):
        first.append(f"已宣告{hand['declared']}")
    held = [f"手中：{tiles(hand.get('concealed', []))}"]
    if hand.get("melds"):
        held.append(f"副露：{mahjong_value('melds', hand['melds'])}")
    if hand.get("flowers"):
        held.append(f"花牌：{tiles(hand['flowers'])}")
    if hand.get("flower_win"):
        how = f"以{hand['flower_win']}花胡" + ("（配牌时即成）" if hand.get("at_deal") else "")
    else:
        # 抢杠 wins the tile another player adds to his 碰, not a discard
        source = "自摸" if hand.get("self_drawn") else ("抢他人加杠的" if hand.get("robbing_kan") else "胡他人打出的")
        how = f"{source}{tile_name(hand['winning_tile'])}" if hand.get("winning_tile") else \
            ("自摸" if hand.get("self_drawn") else source + "牌")
        extras = [hand["timing"]] if hand.get("timing") else []
        extras += [name for key, name in (("after_kan", "杠上开花"), ("last_tile", "海底"))
                   if hand.get(key)]
        if extras:
            how += f"（{'、'.join(extras)}）"
    if hand.get("from_dealer") and not hand.get("dealer"):
        how += "，由庄家付"
    return "，".join(first) + "。" + "；".join(held) + "；" + how + "。"


def mahjong_ruling(result: dict) -> str:
    items = "、".join(f"{i['name']} {i['tai']}台 ⟦{i['clause']}⟧" for i in result.get("items", [])) or "无可计之台"
    out = f"计台：{items}，共 **{result.get('total')}** 台。"
    # one entry per kind, as the calculator shows it (大三元 drops three 箭字坎: 箭字坎 ×3)
    kinds = Counter((e["name"], e["why"]) for e in result.get("excluded", []))
    excluded = "；".join(f"{name}{f' ×{n}' if n > 1 else ''}（{why}）" for (name, why), n in kinds.items())
    return out + (f"不另计：{excluded}。" if excluded else "")


# -- blocks ------------------------------------------------------------------------------------

def data_table(given: dict, labels: dict[str, str], value: Callable[[str, Any], str], title: str) -> list[str]:
    """The example's input, every field under its Chinese label (an unlabelled field is an error)."""
    rows = []
    for key, v in given.items():
        if key not in labels:
            raise KbError(f"worked example '{title}': input field {key} has no Chinese label in kb/site/examples_text.py")
        rows.append(f"| {labels[key]} | {_md(value(key, v))} |")
    return ["| 项目 | 内容 |", "| --- | --- |", *rows]


def block(ex: dict) -> str:
    """One verified example as a Markdown admonition, in Simplified; clauses as ⟦id⟧ markers."""
    result = ex.get("result", {})
    if "hand" in ex:
        hand = hand_of(ex["hand"])
        situation = mahjong_situation(hand)
        ruling = mahjong_ruling(result)
        table = data_table(hand, MAHJONG_LABELS, mahjong_value, ex["title"])
    else:
        fn = ex["function"]
        describe = SITUATIONS.get(fn)
        if describe is None:
            raise KbError(f"worked example '{ex['title']}': no wording for rules function {fn} "
                          "in kb/site/examples_text.py")
        labels = {key: label(fn, key) for key in ex["input"]}
        table = data_table(ex["input"], labels, lambda key, v: bridge_value(fn, key, v), ex["title"])
        situation = describe(ex["input"])
        ruling = _md(bridge_ruling(result.get("explanation", "")))
    cites = " ".join(f"⟦{c}⟧" for c in (result.get("clauses") or [ex["clause"]]))
    body = [f"**情形**　{_md(situation)}", f"**裁定**　{ruling}", f"**依据**　{cites}\n{{: .kb-basis }}",
            '??? abstract "牌例明细"\n' + "\n".join(f"    {row}" for row in table)]
    return f'!!! example "算例：{ex["title"]}"\n' + "\n\n".join(_indent(b) for b in body) + "\n"


def reading_block(reading: dict) -> str:
    """How the scoring code reads a clause, for people: code-level asides (「字段 from_dealer」,
    「（lilgu: false 可停用）」) are dropped, a field name left in the text becomes its Chinese label."""
    text = re.sub(r"[，、]?\s*字段\s*[A-Za-z_]+", "", reading["reading"])
    text = re.sub(r"（[^（）]*\b[a-z_]+\s*:\s*(?:true|false|null|\d+)[^（）]*）", "", text)
    fields = "|".join(sorted(MAHJONG_LABELS, key=len, reverse=True))
    text = re.sub(rf"(?<![A-Za-z_])({fields})(?![A-Za-z_])", lambda m: f"「{MAHJONG_LABELS[m.group(1)]}」", text)
    text = re.sub(r"「([^「」]+)」（\1）", r"「\1」", text)   # a gloss that now repeats its label
    text = re.sub(r"\s*为\s*true", "成立", re.sub(r"\s*为\s*false", "不成立", text))
    text = re.sub(r"\bpatterns\.(\d+(?:\.\d+)?)", r"计台名堂 \1", text)
    return f'!!! info "本库的读法"\n    {_md(text)}（计台依此读法）\n'


def site_examples(records: list[Record]) -> Examples:
    """Clause id -> Markdown blocks (Simplified): the readings the scoring takes, then each verified example."""
    from kb.rules.bridge.examples import check_examples as bridge_check
    from kb.rules.mahjong import INTERPRETATIONS
    from kb.rules.mahjong import check_examples as mahjong_check
    ids = {r.id for r in records}
    out: Examples = {}
    for reading in INTERPRETATIONS:
        if reading["clause"] not in ids:
            raise KbError(f"mahjong reading of {reading['name']} cites {reading['clause']}, which is not a record")
        out.setdefault(reading["clause"], []).append(reading_block(reading))
    for ex in bridge_check() + mahjong_check():
        if ex["clause"] not in ids:
            raise KbError(f"worked example '{ex['title']}' cites {ex['clause']}, which is not a record")
        out.setdefault(ex["clause"], []).append(block(ex))
    return out


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines())


def _md(text: str) -> str:
    """Escape what Markdown would read as markup (tables, emphasis), keeping ⟦id⟧ markers."""
    for ch in "\\`*_[]<>|":
        text = text.replace(ch, "\\" + ch)
    return text
