"""Each input field of a bridge ruling: its label, its kind and the codes it takes.

One table serves every place a field is shown or asked for: the worked examples' tables of
input (kb/site/examples_text.py), the field guide and the form of the bridge helper
(kb/site/rules_pages.py, docs/assets/calculator.js). A field's kind says how it is written
in JSON and which control asks for it:

``seat`` N/E/S/W (or 北/东/南/西) · ``suit`` S/H/D/C · ``trump`` a suit or NT · ``led`` a suit, or null when the
player leads · ``suits`` a list of suits · ``card`` "KH" · ``cards`` a list of cards · ``call``
"1H", "P", "X", "XX" · ``word`` declarer's words ("大") · ``int`` a number · ``ints`` a list of
numbers · ``bool`` true/false · ``choice`` one of the field's codes (WORDS) · ``events`` a list
of {"seat", "action", "trick"}.

A field of a ruling without a label or a kind fails the build.
"""
from __future__ import annotations

import inspect
from typing import Any

from kb.core.errors import KbError
from kb.rules.bridge.cards import SEAT_NAMES, SUIT_NAMES
from kb.rules.bridge.claim import ACT_NAMES
from kb.rules.bridge.claim import KIND_NAMES as CONCESSION_KINDS
from kb.rules.bridge.lead import CHOICE_NAMES
from kb.rules.bridge.registry import BY_NAME
from kb.rules.bridge.revoke import ACTIONS as REVOKE_ACTIONS
from kb.rules.bridge.revoke import TRICK_ACTIONS

BRIDGE_LABELS = {   # every input field of every bridge example (LABELS_BY_FUNCTION words a few per ruling)
    "hand": "手中的牌", "led_suit": "本墩引牌花色", "card": "打出或暴露的牌",
    "leader": "引牌者", "cards_in_order": "按出牌顺序的四张牌", "trump": "将牌",
    "call": "庄家的指定", "dummy_cards": "明手的牌", "current_trick_cards": "本墩已打出的牌",
    "dummy_plays_fourth": "明手为第4家出牌", "previous_trick_winning_suit": "上一墩赢墩牌的花色",
    "inadvertent": "因疏忽而暴露", "count_of_penalty_cards": "同时暴露的牌数",
    "penalty_cards": "罚张", "kind": "罚张种类", "turn": "出牌时机", "suits": "庄家指名的花色",
    "declarer_option": "庄家的选择", "revoke_trick": "藏牌所在的墩", "offender": "违规者",
    "declarer": "庄家", "events": "藏牌以后发生的事", "illegal_inquiry": "藏牌是以违反61B的方式指出的",
    "revoke_trick_winner": "赢得藏牌墩的一家", "later_tricks_won": "违规方此后赢得的墩",
    "second_revoke_same_suit": "同一花色第二次藏牌",
    "offender_won_later_with_legal_card": "违规者用藏牌时本可合法打出的牌张在藏牌以后赢墩",
    "faced_card": "藏牌出于摊在桌面上的牌（罚张、摊牌者或明手的牌）", "after_next_deal_call": "下一副已有人叫牌后才指出",
    "after_round_end": "一轮结束后才指出",
    "hands_returned": "四手牌已收回牌套", "required_cards": "罚则要求打出的牌（其中一张）",
    "required_suit": "罚则要求引出或打出的花色",
    "bid": "不足叫牌", "previous_bid": "前一叫品", "accepted": "违规者的下家已接续叫牌",
    "correction": "违规者更正的叫牌", "conventional": "可能为约定叫牌", "out_of_rotation": "同时为越序叫牌",
    "called_over_by": "裁定前接着叫牌的一家", "rho_must_pass": "违规者的上家受罚必须不叫",
    "bid_made_before": "此前已有实质叫牌", "offender_called_before": "违规者此前已叫过牌",
    "rho_next_call": "违规者的上家随后的叫牌", "offender_next_call": "违规者随后的叫牌",
    "correct_leader": "应当引牌的一家", "opening_lead": "首引", "choice": "非违规方的选择",
    "played_by": "裁定前已接着出牌的一家", "declarer_may_have_seen_dummy": "庄家可能已看到明手的牌",
    "declarer_began_facing": "庄家已开始摊牌", "declarer_and_dummy_played": "庄家与明手均已对本墩出牌",
    "forbidden_suit": "庄家禁止的花色", "partner_hand": "违规者同伴手中的牌",
    "cards": "一次打出的牌", "visible": "能看到的牌", "defender": "出牌者为防家", "designated": "指定打出的牌",
    "discovered_after_next_trick": "双方均已对下一墩出牌后才发现", "trick": "有缺陷的牌墩", "fault": "缺陷",
    "cards_in_trick": "违规者放入该墩的牌", "exposed": "暴露的牌",
    "action": "明手的行为", "after_breach": "明手此前已违反43A2的限制", "attention_drawn": "另一赛员已指出违规",
    "declarer_revoked": "庄家确已藏牌", "exposed_by": "暴露牌张的一家", "faced_hand": "庄家摊开手中的牌",
    "after_opening_lead_out_of_turn": "在对方越序首引之后",
    "outstanding_trump": "对手手中尚有一张将牌", "trump_mentioned": "声称者说明了该将牌",
    "claimer_may_be_unaware": "声称者可能未觉察该将牌", "trick_could_be_lost": "正常打法下可能在该将牌上失墩",
    "new_line": "声称者事后提出新的打牌路线", "unstated_line": "声称依赖未说明的飞牌或跌落",
    "opponent_showed_out": "声称前该对手在该花色已未跟牌", "any_normal_play_shows_out": "以后任何正常打法该对手都将跟不出",
    "irrational_otherwise": "不采用此打法是不合理的",
    "trick_already_won": "该墩实际上已为本方赢得", "no_legal_play_loses": "任何合法打法都不会失掉该墩",
    "no_normal_play_loses": "任何正常打法都不会失掉该墩", "contract_already_decided": "定约的成败已定，却承认了相反的结果",
    "within_correction_period": "在第79条C款的更正时限内", "before_next_call": "在本方对下一副牌叫牌、该轮结束之前",
    "act": "赛员的言行", "current_trick_only": "只涉及当前牌墩", "clearly_not_a_claim": "他显然不打算声称",
    "defender_partner_objects": "防家承认时其同伴立即反对", "disputed": "对方（或明手）有异议", "by_defender": "他是防家",
}
LABELS_BY_FUNCTION = {
    "is_revoke": {"hand": "出牌前手中的牌", "card": "打出的牌"},
    "call_out_of_rotation": {"offender": "越序叫牌者", "turn": "应轮到叫牌的一家", "call": "越序的叫牌",
                             "conventional": "越序叫牌为约定叫牌"},
    "lead_out_of_turn": {"leader": "越序引牌者", "card": "越序引出的牌"},
    "premature_play": {"offender": "过早出牌的防家", "card": "过早打出的牌"},
    "simultaneous_play": {"kind": "同时出牌的情形"},
    "defective_trick": {"hand": "违规者手中的牌"},
    "exposed_card": {"card": "暴露的牌", "inadvertent": "因疏忽而暴露（如不慎掉落）"},
    "concession": {"kind": "承认还是同意对方的声称"},
}
TURNS = {"offender": "轮到违规者出牌", "partner_lead": "轮到违规者的同伴引牌"}
OPTIONS = {"require": "要求引出罚张花色", "forbid": "禁止引出罚张花色", "none": "对引牌不加限制"}
KINDS = {"major": "重罚张", "minor": "轻罚张"}
# what happened after a revoke (kb/rules/bridge/revoke.py ACTIONS: every one has its words here)
ACTIONS = {"lead": "引牌", "play": "出牌", "name": "指明要打的牌", "claim": "作出摊牌声明", "concede": "作出承认",
           "acquiesce": "默认了声称或承认"}
if set(ACTIONS) != set(REVOKE_ACTIONS):
    raise KbError("kb/rules/bridge/fields.py: ACTIONS must word every action of kb/rules/bridge/revoke.py, no more")
PREMATURE_OPTIONS = {"highest": "要求同伴打出引牌花色的最大牌张", "lowest": "要求同伴打出引牌花色的最小牌张",
                     "forbid": "禁止同伴打出另一指定花色"}
SIMULTANEOUS = {"two_players": "两名赛员同时出牌", "one_player": "一名赛员一次打出几张牌"}
FAULTS = {"omitted": "漏打（未对该墩出牌）", "extra": "多打（对该墩打出两张或更多）"}
DUMMY_ACTIONS = {
    "give_information": "裁判在场时提供事实或规则的情况", "count_tricks": "计算赢得或失去的牌墩",
    "play_as_directed": "按庄家指示打出明手的牌", "ask_declarer_revoke": "询问未跟牌的庄家是否还有引牌花色",
    "ask_defender_revoke": "询问未跟牌的防家是否还有引牌花色", "prevent_irregularity": "提醒庄家不要违规（如不要从错误方位引牌）",
    "point_out_after_play": "一副牌打完后指出违规", "call_director": "在打牌过程中主动召请裁判",
    "point_out_during_play": "在打牌过程中指出违规", "suggest_play": "建议庄家打哪张牌",
    "exchange_hands": "与庄家交换看牌", "leave_seat": "离开座位看庄家打牌", "look_at_defender": "主动看防家手中的牌",
}
CHOSEN = {"accept": "接受该引牌", "withdraw": "要求收回该引牌", "declarer_faces_hand": "摊牌，自己成为明手"}
# the codes a field takes and what each names (a field of one ruling: WORDS_BY_FUNCTION)
WORDS: dict[str, dict[str, str]] = {"declarer_option": OPTIONS, "kind": KINDS, "choice": CHOICE_NAMES,
                                    "fault": FAULTS, "action": DUMMY_ACTIONS}
WORDS_BY_FUNCTION = {"premature_play": {"declarer_option": PREMATURE_OPTIONS}, "simultaneous_play": {"kind": SIMULTANEOUS},
                     "concession": {"kind": CONCESSION_KINDS}, "claim_or_concession": {"act": ACT_NAMES},
                     "penalty_card_obligations": {"turn": TURNS}}
CARD_LISTS = {"hand", "cards_in_order", "dummy_cards", "current_trick_cards", "penalty_cards", "required_cards",
              "partner_hand", "cards", "visible", "cards_in_trick"}
SUITS = {"previous_trick_winning_suit", "required_suit", "forbidden_suit"}
SEATS = {"leader", "offender", "declarer", "revoke_trick_winner", "correct_leader", "played_by", "called_over_by",
         "exposed_by"}
CALLS = {"bid", "previous_bid", "correction", "rho_next_call", "offender_next_call"}


KIND_BY_NAME: dict[str, str] = {
    **{k: "seat" for k in SEATS}, **{k: "cards" for k in CARD_LISTS}, **{k: "call" for k in CALLS},
    **{k: "suit" for k in SUITS}, "trump": "trump", "led_suit": "led", "suits": "suits",
    "card": "card", "designated": "card", "exposed": "card", "events": "events", "later_tricks_won": "ints",
    "revoke_trick": "int", "trick": "int", "count_of_penalty_cards": "int",
    # flags a ruling requires or leaves open by default (the others are those whose default is true or false)
    "inadvertent": "bool", "discovered_after_next_trick": "bool", "dummy_plays_fourth": "bool",
}
KIND_BY_FUNCTION = {"call_out_of_rotation": {"turn": "seat", "call": "call"}, "designate": {"call": "word"}}


def words_of(function: str, key: str) -> dict[str, str] | None:
    """The codes a ``choice`` field of ``function`` takes, with what each names."""
    return WORDS_BY_FUNCTION.get(function, {}).get(key) or WORDS.get(key)


def label(function: str, key: str) -> str:
    """A field's words (every field has them: a missing one fails the build)."""
    found = LABELS_BY_FUNCTION.get(function, {}).get(key) or BRIDGE_LABELS.get(key)
    if not found:
        raise KbError(f"bridge ruling {function}: input field {key} has no label in kb/rules/bridge/fields.py")
    return found


def kind(function: str, key: str) -> str:
    """How the field ``key`` of ``function`` is written (the module's docstring lists the kinds)."""
    found = KIND_BY_FUNCTION.get(function, {}).get(key) or KIND_BY_NAME.get(key)
    if found:
        return found
    if words_of(function, key) is not None:
        return "choice"
    param = inspect.signature(BY_NAME[function].function).parameters.get(key)
    if param is not None and isinstance(param.default, bool):
        return "bool"
    raise KbError(f"bridge ruling {function}: input field {key} has no kind in kb/rules/bridge/fields.py")


def _pairs(names: dict[str, str]) -> list[list[str]]:
    """[code, words] of each code, in order: what a list to choose from offers."""
    return [[c, n] for c, n in names.items()]


def choices(function: str, key: str) -> list[list[str]] | None:
    """[code, words] for a field asked for by a list to choose from (the JSON null as ""); None otherwise."""
    k = kind(function, key)
    if k == "seat":
        return _pairs(SEAT_NAMES)
    if k in ("suit", "trump", "led"):
        out = _pairs(SUIT_NAMES)
        return out + [["NT", "无将"]] if k == "trump" else [["", "无（他引牌）"]] + out if k == "led" else out
    if k == "choice":
        return _pairs(words_of(function, key) or {})
    return None


def _what(function: str, key: str, samples: list[Any]) -> str:
    """How a field asked for in a text box is written."""
    k = kind(function, key)
    if k == "word":
        return "庄家的原话，如 " + "、".join(f'"{w}"' for w in dict.fromkeys(samples[:3])) if samples else "庄家的原话"
    if k == "int":
        return typed(function, key, samples)
    if k == "events":
        return '事件的列表，如 [{"seat": "W", "action": "play", "trick": 6}]；action：' + \
            "、".join(f"{a}（{n}）" for a, n in ACTIONS.items())
    return {"suits": '花色的列表，如 ["S"]', "cards": '牌的列表，如 ["KH", "7S"]（♥K、♠7；10 写作 10 或 T）',
            "card": '一张牌，如 "KH"（♥K）', "call": '叫牌，如 "1H"、"3NT"、"P"（不叫）、"X"（加倍）、"XX"（再加倍）',
            "ints": "墩号的列表，如 [7, 9]", "bool": "true 或 false"}[k]


# how a text box of each kind is filled in (the form reads it into the JSON the guide describes)
TYPED = {"cards": "用空格分开，如 KH 7S，或 红心K 黑桃7（10 写作 10 或 T）", "card": "如 KH，也可写 ♥K 或 红心K",
         "call": "如 1H 或 1红心、3NT 或 3无将、P（不叫）、X（加倍）、XX（再加倍）", "ints": "墩号，用空格分开，如 7 9",
         "suits": "花色，用空格分开，如 S H（黑桃、红心）"}


def typed(function: str, key: str, samples: list[Any]) -> str:
    """How the text box of a field is filled in; "" for a field asked for by a list or a box to tick."""
    k = kind(function, key)
    if k == "word":
        return "庄家的原话，如 " + "、".join(dict.fromkeys(samples[:3])) if samples else "庄家的原话"
    if k == "int":
        return "数字，如 " + str(samples[0] if samples else 1)
    if k == "events":
        return "每件事一行，按发生的顺序：哪一家、做了什么、在第几墩（声称或承认不属于哪一墩）；没有就不加"
    return TYPED.get(k, "")


def fields(function: str) -> list[tuple[str, bool]]:
    """The input fields of a ruling in the order of its function's parameters, each with whether it may be left out."""
    return [(shown.strip("[]"), shown.startswith("[")) for shown in BY_NAME[function].fields]


def default(function: str, key: str) -> Any:
    """What an optional field is when left out (None for a required one)."""
    value = inspect.signature(BY_NAME[function].function).parameters[key].default
    return None if value is inspect.Parameter.empty else value


def form(function: str, samples: list[dict]) -> list[dict[str, Any]]:
    """The bridge helper's form for a ruling (and its guide to the JSON): each field's name, words,
    kind, whether it may be left out and its default; the choices of a list, or how the field is
    written in JSON and (``hint``) how its text box is filled in. ``samples``: the worked examples' inputs."""
    out = []
    for key, optional in fields(function):
        field: dict[str, Any] = {"name": key, "label": label(function, key), "kind": kind(function, key),
                                 "optional": optional, "default": default(function, key)}
        listed = choices(function, key)
        seen = [s[key] for s in samples if key in s]
        if field["kind"] == "events":     # rows of seat, action and trick
            field["seats"] = _pairs(SEAT_NAMES)
            field["actions"] = _pairs(ACTIONS)
            field["trick_actions"] = list(TRICK_ACTIONS)
        if listed is not None:
            field["choices"] = listed
        else:
            field["json"] = _what(function, key, seen)
            hint = typed(function, key, seen)
            if hint:
                field["hint"] = hint
        out.append(field)
    return out
