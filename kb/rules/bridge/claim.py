"""Law 70: a contested claim: the director's procedure, an outstanding trump, a line of play the
claimer did not state."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.errors import KbError
from kb.rules.bridge.cards import Result, cids, parse_bool

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
            parts.append("对手手中尚有一张将牌，但" + "、".join(lacking) + "：三项须同时具备，不因该将牌给对方牌墩（70C）")
    new_accepted: bool | None = None
    if new:
        new_accepted = False
        clauses.append("70D")
        parts.append("声称者在原说明以外又提出新的成功线路，而原说明的正常打法成功机会较少：裁判不予接受（70D）")
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
