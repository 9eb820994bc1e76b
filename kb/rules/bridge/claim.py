"""Law 70: a contested claim (the director's procedure, an outstanding trump, a line of play the
claimer did not state); Laws 69B and 71: an acquiescence withdrawn, a concession cancelled."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import Result, cids, parse_bool, parse_choice
from kb.rules.bridge.declare import Field, Ruling

CLAIM_CLAUSES = cids("70A", "70B1", "70B2", "70B3", "70C", "70C1", "70C2", "70C3", "70D", "70E")

PROCEDURE = ("裁判先要求声称者复述其声称时所作的说明（70B1），再要求所有赛员将剩余牌张摊在桌面上（70B2），"
             "然后听取对方的异议（70B3）；任何不确定因素应对声称者不利（70A）")


@dataclass(frozen=True)
class ClaimRuling(Result):
    """What the director does with the points in dispute."""

    trump_trick_to_opponents: bool | None = None   # 70C: None when no trump is outstanding
    new_line_accepted: bool | None = None           # 70D: None when the claimer proposes none
    unstated_line_accepted: bool | None = None      # 70E: None when the claim rests on none


def contested_claim(outstanding_trump: Any = False, trump_mentioned: Any = False, claimer_may_be_unaware: Any = False,
                    trick_could_be_lost: Any = False, new_line: Any = False, unstated_line: Any = False,
                    opponent_showed_out: Any = False, any_normal_play_shows_out: Any = False,
                    irrational_otherwise: Any = False) -> ClaimRuling:
    """A claim the opponents dispute. ``outstanding_trump``: an opponent still holds a trump
    (70C: ``trump_mentioned``, ``claimer_may_be_unaware``, ``trick_could_be_lost`` by any normal
    play); ``new_line``: the claimer now proposes a successful line his statement did not embrace
    (70D); ``unstated_line``: the claim needs an unstated finesse or drop, a particular opponent
    holding a particular card (70E: accepted only if ``opponent_showed_out`` in the suit before the
    claim, ``any_normal_play_shows_out`` later, or ``irrational_otherwise``)."""
    trump = parse_bool(outstanding_trump, "outstanding_trump")
    flags = {name: parse_bool(value, name) for name, value in (
        ("trump_mentioned", trump_mentioned), ("claimer_may_be_unaware", claimer_may_be_unaware),
        ("trick_could_be_lost", trick_could_be_lost))}
    new = parse_bool(new_line, "new_line")
    unstated = parse_bool(unstated_line, "unstated_line")
    showed = {name: parse_bool(value, name) for name, value in (
        ("opponent_showed_out", opponent_showed_out), ("any_normal_play_shows_out", any_normal_play_shows_out),
        ("irrational_otherwise", irrational_otherwise))}
    if not trump and any(flags.values()):
        raise KbError(f"{next(k for k, v in flags.items() if v)}: 只在 outstanding_trump 为 true 时适用（70C）")
    if not unstated and any(showed.values()):
        raise KbError(f"{next(k for k, v in showed.items() if v)}: 只在 unstated_line 为 true 时适用（70E）")
    parts = [PROCEDURE]
    clauses = ["70A", "70B1", "70B2", "70B3"]
    to_opponents: bool | None = None
    if trump:
        clauses += ["70C", "70C1", "70C2", "70C3"]
        to_opponents = not flags["trump_mentioned"] and flags["claimer_may_be_unaware"] and flags["trick_could_be_lost"]
        if to_opponents:
            parts.append("对手手中尚有一张将牌，声称者未说明该将牌（70C1），声称时可能未觉察（70C2），且在某种正常打法下"
                         "可能在该将牌上失墩（70C3）：裁判应据此给对方一墩或数墩")
        else:
            lacking = [text for key, text in (("trump_mentioned", "声称者已说明该将牌（70C1不成立）"),
                                              ("claimer_may_be_unaware", "声称者不可能未觉察该将牌（70C2不成立）"),
                                              ("trick_could_be_lost", "任何正常打法下都不会在该将牌上失墩（70C3不成立）"))
                       if (flags[key] if key == "trump_mentioned" else not flags[key])]
            parts.append("对手手中尚有一张将牌，但" + "、".join(lacking) + "：70C的三项须同时具备，不按70C给对方牌墩；"
                         "裁判按声称者的说明裁决，如所述路线会输给该将牌，该墩仍判给对方（70A）")
    new_accepted: bool | None = None
    if new:
        new_accepted = False
        clauses.append("70D")
        parts.append("声称者在原说明以外又提出新的成功线路，而另有成功机会较少的正常打法（不论是否说明过）：裁判不予接受（70D）")
    unstated_accepted: bool | None = None
    if unstated:
        clauses.append("70E")
        unstated_accepted = any(showed.values())
        why = [text for key, text in (("opponent_showed_out", "声称前该对手在该花色中已未跟牌"),
                                      ("any_normal_play_shows_out", "此后以任何正常打法该对手都将跟不出该花色"),
                                      ("irrational_otherwise", "不采用此打法是不合理的")) if showed[key]]
        parts.append("声称者未曾说明、基于某对手持有某一特定牌张的成功打法（飞牌或跌落），"
                     + (f"因{'、'.join(why)}，可以接受（70E）" if unstated_accepted else "裁判不予接受（70E）"))
    return ClaimRuling(clauses=cids(*clauses), explanation="；".join(parts) + "。", trump_trick_to_opponents=to_opponents,
                       new_line_accepted=new_accepted, unstated_line_accepted=unstated_accepted)


CONCESSION_CLAUSES = cids("68B", "69A", "69B", "71", "71A", "71B", "71C")
KINDS = ("concession", "acquiescence")
KIND_NAMES = {"concession": "承认输掉牌墩", "acquiescence": "同意（默认）对方的声称"}


@dataclass(frozen=True)
class ConcessionRuling(Result):
    """Whether a concession is cancelled (71), or an acquiescence in a claim withdrawn (69B)."""

    cancelled: bool = False
    rule: str | None = None          # the clause that cancels it, or None


def concession(kind: Any, trick_already_won: Any = False, no_legal_play_loses: Any = False,
               no_normal_play_loses: Any = False, contract_already_decided: Any = False,
               within_correction_period: Any = True, before_next_call: Any = True) -> ConcessionRuling:
    """A player conceded a trick (``kind`` "concession", 71) or agreed to the opponents' claim of it
    (``acquiescence``, 69B), and now says it could not have been lost: ``trick_already_won`` (his
    side had won it), ``no_legal_play_loses`` (71A: no legal play of the remaining cards loses it),
    ``no_normal_play_loses`` (71C, 69B: no normal play does), ``contract_already_decided``
    (71B: declarer conceded defeat of a contract already made, or a defender the making of one
    already defeated). ``within_correction_period``: raised within 79C's time; ``before_next_call``:
    before his side called on a later board and before the round ended (71C)."""
    what = parse_choice(kind, "kind", KINDS)
    won = parse_bool(trick_already_won, "trick_already_won")
    legal = parse_bool(no_legal_play_loses, "no_legal_play_loses")
    normal = parse_bool(no_normal_play_loses, "no_normal_play_loses")
    decided = parse_bool(contract_already_decided, "contract_already_decided")
    in_time = parse_bool(within_correction_period, "within_correction_period")
    early = parse_bool(before_next_call, "before_next_call")
    if legal and not normal:
        raise KbError("no_normal_play_loses: 任何合法打法都不会失掉的牌墩，任何正常打法也不会失掉，应同为 true")
    late = "但已过第79条C款规定的更正时限，不能取消" if not in_time else ""
    if what == "acquiescence":
        if decided:
            raise KbError("contract_already_decided: 只用于承认（71B）；同意对方声称的撤销见69B")
        if won or normal:
            why = "原已默认的失墩实际上本方已赢得" if won else "该失墩在剩余牌张中以任何正常打法不可能丢失"
            if late:
                return ConcessionRuling(clauses=cids("69A", "69B"), explanation=f"{why}，{late}（69B），默认成立（69A）。")
            return ConcessionRuling(clauses=cids("69B"), cancelled=True, rule="69B",
                                    explanation=f"在第79条C款规定的更改时限内，{why}：可撤销对对方声称的默认，该副牌重新记分（69B）。")
        return ConcessionRuling(clauses=cids("69A", "69B"),
                                explanation="该失墩以某种正常打法有可能丢失，不能撤销默认（69B）；默认成立，以声称的墩数记分（69A）。")
    reasons = [(rule, text) for rule, cond, text in (
        ("71A", won or legal, "所承认的失墩实际上已为本方所得到" if won else "在剩余的牌张中以任何合法的打法该墩均不会丢失"),
        ("71B", decided, "庄家对已经完成的定约承认失败（或防家对已被击败的定约承认完成）"),
        ("71C", normal and not (won or legal), "所承认的牌墩在剩余牌张中以任何正常打法均不可能丢失")) if cond]
    if not reasons:
        return ConcessionRuling(clauses=cids("68B", "71", "71A", "71C"),
                                explanation="该墩并非本方已赢得，以某种正常打法也有可能丢失（71A、71C均不适用）：承认一经作出，"
                                            "即告成立（71），按承认的墩数记分。")
    rule, text = reasons[0]
    if late:
        return ConcessionRuling(clauses=cids("71", rule), explanation=f"{text}，{late}（71）；承认成立。")
    if rule == "71C" and not early:
        return ConcessionRuling(clauses=cids("71", "71C"),
                                explanation=f"{text}，但承认方在下一副牌中作出叫牌或该轮比赛结束以后才提出：不取消（71C）；承认成立。")
    if rule == "71B":
        return ConcessionRuling(clauses=cids("71", rule), cancelled=True, rule=rule,
                                explanation=f"{text}：裁判应取消该承认（71B），按定约已完成（或已被击败）记分。")
    when = "承认方在本方对下一副牌叫牌或该轮比赛结束以前提出，" if rule == "71C" else ""
    return ConcessionRuling(clauses=cids("71", rule), cancelled=True, rule=rule,
                            explanation=f"{text}，{when}裁判应取消该承认（{rule}），该墩不算输掉。")


WHAT_COUNTS_CLAUSES = cids("68", "68A", "68B", "68C", "68D", "69A", "70", "71", "48A", "49", "50", "50B")
ACTS = ("states_tricks_won", "states_tricks_lost", "suggests_curtailing", "shows_cards", "abandons_hand")
ACT_NAMES = {"states_tricks_won": "说本方将赢得若干墩", "states_tricks_lost": "说本方将输掉若干墩",
             "suggests_curtailing": "建议缩短打牌过程", "shows_cards": "亮出手中的牌",
             "abandons_hand": "放弃他的一手牌"}


@dataclass(frozen=True)
class ClaimKind(Result):
    """Whether a statement or act is a claim, a concession, or neither, and what follows (68, 69)."""

    kind: str = "none"               # "claim" | "concession" | "none"
    play_ceases: bool = False


def claim_or_concession(act: Any, current_trick_only: Any = False, clearly_not_a_claim: Any = False,
                        defender_partner_objects: Any = False, disputed: Any = False,
                        by_defender: Any = False) -> ClaimKind:
    """What a player said or did (``act``, one of ACTS): a claim (68A), a concession (68B), or
    neither. ``current_trick_only``: it concerned only the trick in progress (68: not a claim or
    concession); ``clearly_not_a_claim``: he showed his cards or proposed to curtail play but
    evidently did not mean to claim (68A); ``defender_partner_objects``: a defender conceded and his
    partner objected at once (68B); ``disputed``: an opponent (or dummy) disputes it (68D);
    ``by_defender``: the player is a defender (cards he shows without claiming are penalty cards, 49)."""
    what = parse_choice(act, "act", ACTS)
    assert what is not None
    current = parse_bool(current_trick_only, "current_trick_only")
    not_meant = parse_bool(clearly_not_a_claim, "clearly_not_a_claim")
    objects = parse_bool(defender_partner_objects, "defender_partner_objects")
    dispute = parse_bool(disputed, "disputed")
    defender = parse_bool(by_defender, "by_defender")
    if not_meant and what not in ("suggests_curtailing", "shows_cards"):
        raise KbError("clearly_not_a_claim: 只用于 suggests_curtailing、shows_cards（68A：除非他显然不打算声称）")
    if objects and what not in ("states_tricks_lost", "abandons_hand"):
        raise KbError("defender_partner_objects: 只用于承认（states_tricks_lost、abandons_hand，68B）")
    did = ACT_NAMES[what]
    if current:
        return ClaimKind(clauses=cids("68"), explanation="赛员所说所为只涉及当前牌墩：不是声称或承认——构成声称或承认的"
                                                          "声明或行动，只能涉及当前牌墩以后的牌墩（68），打牌照常进行。")
    if not_meant:
        cards = ("他是防家，亮出的牌成为罚张（49），按第50条处理；亮出两张或更多时，所有罚张均成为重罚张（50B）"
                 if defender else "庄家暴露的牌张不受判罚（48A）") \
            if what == "shows_cards" else ""
        return ClaimKind(clauses=cids("68A", *((["49", "50", "50B"] if defender else ["48A"]) if cards else [])),
                         explanation=f"赛员{did}，但显然不打算声称：不属声称（68A），打牌照常进行" + (f"；{cards}" if cards else "") + "。")
    if what in ("states_tricks_won", "suggests_curtailing", "shows_cards"):
        kind, rule = "claim", "68A"
        text = f"赛员{did}：属于声称（68A）；声称的同时应说明打牌次序（68C）"
    else:
        kind, rule = "concession", "68B"
        if objects:
            return ClaimKind(clauses=cids("68B"),
                             explanation=f"防家{did}，而其同伴立即反对：该承认不能成立；必须立即召请裁判，可应用第16条非法信息（68B）。")
        text = f"赛员{did}：属于承认（68B）"
    then = ("任一赛员（包括明手）有异议，必须立即召请裁判，应用第70条、71条，裁判到达前不得采取行动（68D）" if dispute else
            "如获得对方默认，应用第69条：默认方在下一副牌中叫牌或该轮结束前未提出异议，默认成立，以声称或承认的墩数记分（69A）"
            + ("；承认仍可能按第71条取消" if kind == "concession" else ""))
    later = ["70", "71"] if dispute else ["69A"] + (["71"] if kind == "concession" else [])
    return ClaimKind(clauses=cids(rule, *(["68C"] if kind == "claim" else []), "68D", *later),
                     kind=kind, play_ceases=True,
                     explanation=f"{text}；打牌即告停止，此后的打牌无效（68D）；{then}。")


def claim_or_concession_situation(i: dict) -> str:
    act = prose.value(ACT_NAMES, i["act"], "act")
    if i.get("current_trick_only"):      # 这墩是我的: about the trick in progress, not the later ones
        act = "说当前这一墩是他的" if i["act"] == "states_tricks_won" else act + "，只涉及当前牌墩"
    parts = [("一名防家" if i.get("defender_partner_objects") or i.get("by_defender") else "一名赛员") + act]
    parts += prose.flagged(i, (("clearly_not_a_claim", "从情况看他显然不打算声称"), ("defender_partner_objects", "其同伴立即反对"),
                          ("disputed", "对方有异议")))
    return "，".join(parts) + "。"


CLAIM_OR_CONCESSION = Ruling(
    "claim-or-concession", claim_or_concession, WHAT_COUNTS_CLAUSES,
    "亮牌、说“剩下的都是我的”、放弃一手牌：是否构成声称或承认，之后怎么办（第68–69条）",
    (Field("act", "choice", "赛员的言行", ACT_NAMES),
     Field("current_trick_only", "bool", "只涉及当前牌墩"),
     Field("clearly_not_a_claim", "bool", "他显然不打算声称"),
     Field("defender_partner_objects", "bool", "防家承认时其同伴立即反对"),
     Field("disputed", "bool", "对方（或明手）有异议"),
     Field("by_defender", "bool", "他是防家")),
    situation=claim_or_concession_situation)


def contested_claim_situation(i: dict) -> str:
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


CONTESTED_CLAIM = Ruling(
    "contested-claim", contested_claim, CLAIM_CLAUSES,
    "有争议的声称：裁判的程序、外面还有一张将牌、声称者未说明的打法（第70条）",
    (Field("outstanding_trump", "bool", "对手手中尚有一张将牌"),
     Field("trump_mentioned", "bool", "声称者说明了该将牌"),
     Field("claimer_may_be_unaware", "bool", "声称者可能未觉察该将牌"),
     Field("trick_could_be_lost", "bool", "正常打法下可能在该将牌上失墩"),
     Field("new_line", "bool", "声称者事后提出新的打牌路线"),
     Field("unstated_line", "bool", "声称依赖未说明的飞牌或跌落"),
     Field("opponent_showed_out", "bool", "声称前该对手在该花色已未跟牌"),
     Field("any_normal_play_shows_out", "bool", "以后任何正常打法该对手都将跟不出"),
     Field("irrational_otherwise", "bool", "不采用此打法是不合理的")),
    situation=contested_claim_situation)


def concession_situation(i: dict) -> str:
    did = "一名赛员承认输掉一墩" if i["kind"] == "concession" else "一名赛员同意了对方对一墩的声称"
    if i.get("contract_already_decided"):      # 71B: the concession is of the contract's result
        did = "庄家已完成定约，却承认定约失败（或防家已击败定约，却承认定约完成）"
    facts = prose.flagged(i, (("trick_already_won", "该墩实际上本方已经赢得"),
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


CONCESSION = Ruling(
    "concession", concession, CONCESSION_CLAUSES,
    "承认输掉了不会输的牌墩、同意了对方的声称：能否取消（第69、71条）",
    (Field("kind", "choice", "承认还是同意对方的声称", KIND_NAMES),
     Field("trick_already_won", "bool", "该墩实际上已为本方赢得"),
     Field("no_legal_play_loses", "bool", "任何合法打法都不会失掉该墩"),
     Field("no_normal_play_loses", "bool", "任何正常打法都不会失掉该墩"),
     Field("contract_already_decided", "bool", "定约的成败已定，却承认了相反的结果"),
     Field("within_correction_period", "bool", "在第79条C款的更正时限内"),
     Field("before_next_call", "bool", "在本方对下一副牌叫牌、该轮结束之前")),
    situation=concession_situation)
