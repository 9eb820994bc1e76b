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
from collections.abc import Callable
from typing import Any

from kb.errors import KbError
from kb.records import Record
from kb.rules.bridge.cards import SEAT_NAMES, SUIT_NAMES, parse_card
from kb.rules.mahjong.tiles import tile_name

Examples = dict[str, list[str]]

# -- bridge ------------------------------------------------------------------------------------

BRIDGE_LABELS = {
    "hand": "手中的牌", "led_suit": "本墩引牌花色", "card": "打出或暴露的牌",
    "leader": "引牌者", "cards_in_order": "按出牌顺序的四张牌", "trump": "将牌",
    "call": "庄家的指定", "dummy_cards": "明手的牌", "current_trick_cards": "本墩已打出的牌",
    "dummy_plays_fourth": "明手为第4家出牌", "previous_trick_winning_suit": "上一墩赢墩牌的花色",
    "inadvertent": "因疏忽而暴露", "count_of_penalty_cards": "同时暴露的牌数",
    "penalty_cards": "罚张", "kind": "罚张种类", "turn": "出牌时机", "suits": "庄家指名的花色",
    "declarer_option": "庄家的选择", "revoke_trick": "藏牌所在的墩", "offender": "违规者",
    "declarer": "庄家", "events": "藏牌以后发生的事", "illegal_inquiry": "违规询问对方是否藏牌",
    "revoke_trick_winner": "赢得藏牌墩的一家", "later_tricks_won": "违规方此后赢得的墩",
    "second_revoke_same_suit": "同一花色第二次藏牌",
    "offender_won_later_with_legal_card": "违规者以合法牌张赢得后来的牌墩",
}
TURNS = {"offender": "轮到违规者出牌", "partner_lead": "轮到违规者的同伴引牌"}
OPTIONS = {"require": "要求引出罚张花色", "forbid": "禁止引出罚张花色", "none": "对引牌不加限制"}
KINDS = {"major": "重罚张", "minor": "轻罚张"}
ACTIONS = {"lead": "引牌", "play": "出牌", "claim": "作出摊牌声明", "name": "指明要打的牌"}


def cards(codes: list[str]) -> str:
    return " ".join(parse_card(c, "card").label for c in codes) or "（无）"


def suit(code: str | None) -> str:
    return "无将" if code is None or code == "NT" else SUIT_NAMES[code]


def seat(code: str) -> str:
    return SEAT_NAMES[code]


def event(ev: dict) -> str:
    trick = f"第{ev['trick']}墩" if "trick" in ev else ""
    if ev["action"] == "name":
        return f"{seat(ev['seat'])}{'的' + trick if trick else ''}牌已被指明"
    return f"{seat(ev['seat'])}{trick}{ACTIONS[ev['action']]}"


def bridge_value(key: str, value: Any) -> str:
    """An input value for a person: cards as ♠A, seats as 北家, flags as 是/否."""
    if isinstance(value, bool):
        return "是" if value else "否"
    if key in ("hand", "cards_in_order", "dummy_cards", "current_trick_cards", "penalty_cards"):
        return cards(value)
    if key == "card":
        return parse_card(value, key).label
    if key in ("led_suit", "previous_trick_winning_suit", "trump"):
        return suit(value)
    if key == "suits":
        return "、".join(suit(s) for s in value)
    if key in ("leader", "offender", "declarer", "revoke_trick_winner"):
        return seat(value)
    if key == "events":
        return "；".join(event(e) for e in value) or "（无）"
    if key == "later_tricks_won":
        return "、".join(f"第{n}墩" for n in value) or "（无）"
    if key == "revoke_trick":
        return f"第{value}墩"
    if key == "turn":
        return TURNS[value]
    if key == "declarer_option":
        return OPTIONS[value]
    if key == "kind":
        return KINDS[value]
    if key == "call":
        return f"“{value}”"
    return str(value)


def _led(i: dict) -> str:
    return f"本墩首引{suit(i['led_suit'])}" if i.get("led_suit") else "轮到他首引"


def _void(i: dict) -> str:
    """"，没有红心" when the hand holds no card of the suit led."""
    led = i.get("led_suit")
    if not led or not i.get("hand") or any(parse_card(c, "card").suit == led for c in i["hand"]):
        return ""
    return f"，没有{suit(led)}"


def _legal_cards(i: dict) -> str:
    return f"{_led(i)}；手中有 {cards(i['hand'])}{_void(i)}。"


def _trick_winner(i: dict) -> str:
    from kb.rules.bridge.cards import next_seat
    plays = "、".join(f"{seat(next_seat(i['leader'], k))}{parse_card(c, 'card').label}"
                      for k, c in enumerate(i["cards_in_order"]))
    trump = "无将定约" if suit(i.get("trump")) == "无将" else f"将牌为{suit(i['trump'])}"
    return f"{trump}，{seat(i['leader'])}首引；依次打出：{plays}。"


def _designate(i: dict) -> str:
    parts = [f"明手有 {cards(i['dummy_cards'])}"]
    if i.get("current_trick_cards"):
        parts.append(f"本墩已打出 {cards(i['current_trick_cards'])}，明手第{len(i['current_trick_cards']) + 1}家出牌")
    elif i.get("led_suit"):
        parts.append(f"本墩首引{suit(i['led_suit'])}")
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
    return f"防守方{how}暴露了{parse_card(i['card'], 'card').label}{many}。"


def _penalty_card_obligations(i: dict) -> str:
    kind = KINDS[i["kind"]] if i.get("kind") else ("轻罚张" if i.get("inadvertent") else "罚张")
    parts = [f"防守方一家有{kind} {cards(i['penalty_cards'])} 摊在桌上"]
    parts.append(TURNS[i["turn"]])
    if i.get("led_suit"):
        parts.append(f"本墩首引{suit(i['led_suit'])}")
    if i.get("hand"):
        parts.append(f"{'同伴' if i['turn'] == 'partner_lead' else '违规者'}手中有 {cards(i['hand'])}{_void(i)}")
    if i.get("declarer_option") and i.get("suits"):
        verb = {"require": "要求引出", "forbid": "禁止引出"}.get(i["declarer_option"], "指名")
        parts.append(f"庄家{verb}{'、'.join(suit(s) for s in i['suits'])}")
    elif i.get("declarer_option"):
        parts.append(f"庄家{OPTIONS[i['declarer_option']]}")
    return "，".join(parts) + "。"


def _is_revoke(i: dict) -> str:
    return f"本墩首引{suit(i['led_suit'])}，一家手中有 {cards(i['hand'])}，打出了{parse_card(i['card'], 'card').label}。"


def _revoke_established(i: dict) -> str:
    parts = [f"{seat(i['offender'])}在第{i['revoke_trick']}墩藏牌"]
    if i.get("declarer"):
        parts.append(f"庄家为{seat(i['declarer'])}")
    parts.append(("此后：" + "；".join(event(e) for e in i["events"])) if i.get("events") else "此后尚无人出牌")
    if i.get("illegal_inquiry"):
        parts.append("有人违规询问对方是否藏牌")
    return "，".join(parts) + "。"


def _revoke_adjustment(i: dict) -> str:
    parts = [f"{seat(i['offender'])}在第{i['revoke_trick']}墩藏牌，该墩由{seat(i['revoke_trick_winner'])}赢得"]
    if i.get("declarer"):
        parts.append(f"庄家为{seat(i['declarer'])}")
    later = i.get("later_tricks_won", [])
    parts.append(f"违规方此后赢得{'、'.join(f'第{n}墩' for n in later)}" if later else "违规方此后未再赢墩")
    if i.get("second_revoke_same_suit"):
        parts.append("这是同一花色的第二次藏牌")
    if i.get("offender_won_later_with_legal_card"):
        parts.append("违规者后来以合法打出的牌赢得牌墩")
    return "，".join(parts) + "。"


SITUATIONS: dict[str, Callable[[dict], str]] = {
    "legal_cards": _legal_cards, "trick_winner": _trick_winner, "designate": _designate,
    "penalty_card_kind": _penalty_card_kind, "penalty_card_obligations": _penalty_card_obligations,
    "is_revoke": _is_revoke, "revoke_established": _revoke_established, "revoke_adjustment": _revoke_adjustment,
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
        how = f"{'自摸' if hand.get('self_drawn') else '胡他人打出的'}{tile_name(hand['winning_tile'])}" \
            if hand.get("winning_tile") else ("自摸" if hand.get("self_drawn") else "胡他人打出的牌")
        extras = [hand["timing"]] if hand.get("timing") else []
        extras += [name for key, name in (("after_kan", "杠上开花"), ("last_tile", "海底"), ("robbing_kan", "抢杠"))
                   if hand.get(key)]
        if extras:
            how += f"（{'、'.join(extras)}）"
    if hand.get("from_dealer") and not hand.get("dealer"):
        how += "，由庄家付"
    return "，".join(first) + "。" + "；".join(held) + "；" + how + "。"


def mahjong_ruling(result: dict) -> str:
    items = "、".join(f"{i['name']} {i['tai']}台 ⟦{i['clause']}⟧" for i in result.get("items", [])) or "无可计之台"
    out = f"计台：{items}，共 **{result.get('total')}** 台。"
    excluded = "；".join(f"{e['name']}（{e['why']}）" for e in result.get("excluded", []))
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
        situation = mahjong_situation(ex["hand"])
        ruling = mahjong_ruling(result)
        table = data_table(ex["hand"], MAHJONG_LABELS, mahjong_value, ex["title"])
    else:
        describe = SITUATIONS.get(ex["function"])
        if describe is None:
            raise KbError(f"worked example '{ex['title']}': no wording for rules function {ex['function']} "
                          "in kb/site/examples_text.py")
        situation = describe(ex["input"])
        ruling = _md(result.get("explanation", ""))
        table = data_table(ex["input"], BRIDGE_LABELS, bridge_value, ex["title"])
    cites = " ".join(f"⟦{c}⟧" for c in (result.get("clauses") or [ex["clause"]]))
    body = [f"**情形**　{_md(situation)}", f"**裁定**　{ruling}", f"**依据**　{cites}",
            '??? abstract "牌例明细"\n' + "\n".join(f"    {row}" for row in table)]
    return f'!!! example "算例：{ex["title"]}"\n' + "\n\n".join(_indent(b) for b in body) + "\n"


def reading_block(reading: dict) -> str:
    """How the scoring code reads a clause, for people: code-level asides (「字段 from_dealer」,
    「（lilgu: false 可停用）」) are dropped, a field name left in the text becomes its Chinese label."""
    text = re.sub(r"[，、]?\s*字段\s*[A-Za-z_]+", "", reading["reading"])
    text = re.sub(r"（[^（）]*\b[a-z_]+\s*:\s*(?:true|false|null|\d+)[^（）]*）", "", text)
    fields = "|".join(sorted(MAHJONG_LABELS, key=len, reverse=True))
    text = re.sub(rf"(?<![A-Za-z_])({fields})(?![A-Za-z_])", lambda m: f"「{MAHJONG_LABELS[m.group(1)]}」", text)
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
