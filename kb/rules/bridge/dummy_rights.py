"""Laws 42 and 43: what dummy may do, what he may not, and what follows when he does."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import Result, cids, parse_bool, parse_choice
from kb.rules.bridge.declare import Field, Ruling

DUMMY_RIGHTS_CLAUSES = cids("42A1", "42A2", "42A3", "42B", "42B1", "42B2", "42B3", "43A1a", "43A1b", "43A1c", "43A2", "43A2a",
                            "43A2b", "43A2c", "43B1", "43B2a", "43B2b", "43B3", "45F", "61B", "64")

# What dummy did (or wants to do), with the clause that allows or forbids it and its words.
ACTIONS: dict[str, tuple[str, bool, str]] = {
    "give_information": ("42A1", True, "当裁判在场时，明手有权基于事实或规则提供情况"),
    "count_tricks": ("42A2", True, "明手可计算赢得或失去的牌墩"),
    "play_as_directed": ("42A3", True, "明手听从庄家指示打出明手的牌张"),
    "ask_declarer_revoke": ("42B1", True, "庄家未能跟牌时，明手可以询问庄家引牌花色是否仍有牌张"),
    "ask_defender_revoke": ("42B1", False, "明手可以询问庄家是否藏牌，但不得询问防家"),
    "prevent_irregularity": ("42B2", True, "明手可试图防止庄家的任何违规（如提醒他不要从错误方位引牌）"),
    "point_out_after_play": ("42B3", True, "一副牌打完后，明手可指出该副牌曾发生的任何违规"),
    "call_director": ("43A1a", False, "在打牌过程中，除非已有另一赛员指出违规，明手不得主动召请裁判"),
    "point_out_during_play": ("43A1b", False, "在打牌过程中，明手不得指出违规"),
    "suggest_play": ("43A1c", False, "明手不得参与打牌，也不得与庄家进行有关打牌的任何交流"),
    "exchange_hands": ("43A2a", False, "明手不得与庄家交换看牌"),
    "leave_seat": ("43A2b", False, "明手不得离开自己的座位，看庄家打牌"),
    "look_at_defender": ("43A2c", False, "明手不得主动地看任一防家手中的牌张"),
}
# what dummy did, in the words the form and the worked examples use (ACTIONS: what the Law says of it)
ACTION_NAMES = {
    "give_information": "裁判在场时提供事实或规则的情况", "count_tricks": "计算赢得或失去的牌墩",
    "play_as_directed": "按庄家指示打出明手的牌", "ask_declarer_revoke": "询问未跟牌的庄家是否还有引牌花色",
    "ask_defender_revoke": "询问未跟牌的防家是否还有引牌花色", "prevent_irregularity": "提醒庄家不要违规（如不要从错误方位引牌）",
    "point_out_after_play": "一副牌打完后指出违规", "call_director": "在打牌过程中主动召请裁判",
    "point_out_during_play": "在打牌过程中指出违规", "suggest_play": "建议庄家打哪张牌",
    "exchange_hands": "与庄家交换看牌", "leave_seat": "离开座位看庄家打牌", "look_at_defender": "主动看防家手中的牌",
}
SPECIAL = ("exchange_hands", "leave_seat", "look_at_defender")   # 43A2: the breaches 43B2 and 43B3 follow


@dataclass(frozen=True)
class DummyRuling(Result):
    """Whether dummy may do it, and what follows."""

    allowed: bool = False
    rectification: str | None = None      # 43B2a, 43B2b, 43B3 or None


def dummy_rights(action: Any, after_breach: Any = False, attention_drawn: Any = False,
                 declarer_revoked: Any = False) -> DummyRuling:
    """``action``: one of ACTIONS. ``after_breach``: dummy had already broken a 43A2 limitation
    (exchanged hands, left his seat to watch, looked at a defender's hand), after which 43B2 and
    43B3 apply; ``attention_drawn``: another player had drawn attention to an irregularity (dummy may
    then call the director, 43A1a); ``declarer_revoked``: what dummy asked about was a revoke."""
    act = parse_choice(action, "action", tuple(ACTIONS))
    assert act is not None
    breach = parse_bool(after_breach, "after_breach")
    drawn = parse_bool(attention_drawn, "attention_drawn")
    revoked = parse_bool(declarer_revoked, "declarer_revoked")
    if drawn and act != "call_director":
        raise KbError("attention_drawn: 只用于 call_director（43A1a）")
    if revoked and act != "ask_declarer_revoke":
        raise KbError("declarer_revoked: 只用于 ask_declarer_revoke（43B2b）")
    clause, allowed, words = ACTIONS[act]
    if act == "call_director" and drawn:
        return DummyRuling(clauses=cids("43A1a"), allowed=True,
                           explanation="另一赛员已指出违规，明手可以召请裁判（43A1a：除非已有另一赛员指出违规，"
                                       "明手不得主动召请裁判）。")
    if breach and act == "prevent_irregularity":
        return DummyRuling(clauses=cids("43A2", "42B2", "43B2a"), allowed=False, rectification="43B2a",
                           explanation="明手此前已违反第43条A款2的限制：他再提示庄家不要从错误方位引牌，"
                                       "（判罚）任一防家均可指定庄家从某一方位引牌（43B2a）。"
                                       "未违反该限制时，明手可试图防止庄家的违规（42B2）。")
    if breach and act == "ask_declarer_revoke":
        if revoked:
            return DummyRuling(clauses=cids("43A2", "42B1", "43B2b", "61B", "64"), allowed=False, rectification="43B2b",
                               explanation="明手此前已违反第43条A款2的限制，又最先询问庄家的打牌是否构成藏牌，"
                                           "而庄家确已藏牌：庄家必须换出正确的牌张，同时视同藏牌成立，"
                                           "应用第64条判罚（43B2b）。")
        return DummyRuling(clauses=cids("43A2", "42B1", "43B2b", "61B"), allowed=True,
                           explanation="明手可以询问庄家引牌花色是否仍有牌张（42B1、61B）；他此前已违反第43条A款2的"
                                       "限制，如庄家确已藏牌，则须换出正确的牌张，视同藏牌成立（43B2b）；"
                                       "此处庄家并未藏牌，不判罚。")
    if breach and act == "point_out_during_play":
        return DummyRuling(clauses=cids("43A2", "43A1b", "43B3", "43B1"), allowed=False, rectification="43B3",
                           explanation="明手此前已违反第43条A款2的限制，又在打牌过程中首先指出防守方的违规："
                                       "对防守方的违规不应给予判罚；如防守方从其违规中直接获益，裁判应判给双方"
                                       "调整分（43B3）。明手本身的违规，应受到第90条的判罚（43B1）。")
    if allowed:
        # 42B: dummy's limited rights hold only while he keeps within Law 43
        after = {"ask_declarer_revoke": "（但如明手此前违反了第43条A款2的限制，见43B2(b)）",
                 "prevent_irregularity": "（但如明手此前违反了第43条A款2的限制，见43B2(a)）"}.get(act, "")
        return DummyRuling(clauses=cids(clause, *(["42B", "43B2b" if act == "ask_declarer_revoke" else "43B2a"] if after else [])),
                           allowed=True, explanation=f"可以：{words}（{clause}）{after}。")
    if act == "ask_defender_revoke":
        return DummyRuling(clauses=cids("42B1", "61B"), allowed=False,
                           explanation=f"不可以：{words}（42B1；61B只许明手询问庄家）。如防家确已藏牌，仍按第61–64条处理。")
    extra = ""
    if act == "point_out_during_play":
        extra = "他指出的违规仍按规则处理（他此前违反第43条A款2的限制而首先指出防守方违规的，见43B3）。"
    if act == "suggest_play":
        extra = "如明手指示打牌，裁判判断他有无建议庄家打牌的意图，防家因此受到损害时可判给调整分（45F）。"
    if act in SPECIAL:
        extra = "此后他再有第43条B款2所列行为（提示庄家不要从错误方位引牌、最先询问庄家是否藏牌）时另受特别判罚，" \
                "他首先指出防守方的违规时不判罚防守方（43B2、43B3）。"
    clauses = [clause, "43B1"] + (["45F"] if act == "suggest_play" else []) + \
        (["43B3"] if act == "point_out_during_play" else []) + \
        (["43B2a", "43B2b", "43B3"] if act in SPECIAL else [])
    return DummyRuling(clauses=cids(*clauses), allowed=False,
                       explanation=f"不可以：{words}（{clause}）。明手违反第43条A款的限制，应受到第90条的判罚（43B1）。"
                                   + extra)


def dummy_rights_situation(i: dict) -> str:
    before = "明手此前已违反第43条A款2的一项限制；" if i.get("after_breach") else ""
    drawn = "另一赛员已指出违规后，" if i.get("attention_drawn") else ""
    revoked = "，庄家确已藏牌" if i.get("declarer_revoked") else ""
    did = prose.value(ACTION_NAMES, i["action"], "action")
    if i.get("after_breach") and i["action"] == "point_out_during_play":
        did = "在打牌过程中首先指出防守方的违规"              # 43B3: the defenders' irregularity, dummy first
    if i.get("after_breach") and i["action"] == "ask_declarer_revoke":
        did = "最先询问庄家是否藏牌"
    if i.get("after_breach") and i["action"] == "prevent_irregularity":
        did = "提醒庄家不要从错误方位引牌"                   # 43B2(a) is about that warning only
    return f"{before}{drawn}明手{did}{revoked}。"


DUMMY_RIGHTS = Ruling(
    "dummy-rights", dummy_rights, DUMMY_RIGHTS_CLAUSES,
    "明手可以做什么、不可以做什么，违反限制的后果（第42–43条）",
    (Field("action", "choice", "明手的行为", ACTION_NAMES),
     Field("after_breach", "bool", "明手此前已违反43A2的限制"),
     Field("attention_drawn", "bool", "另一赛员已指出违规"),
     Field("declarer_revoked", "bool", "庄家确已藏牌")),
    situation=dummy_rights_situation)
