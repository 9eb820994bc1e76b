"""The public registry of bridge rulings: each function with its command, clauses and summary.

Every ``kb bridge`` subcommand is one ruling and takes one JSON shape: the keyword arguments of
its function. The site (kb/site/examples_text.py), the catalogue (kb/rules/catalogue.py), the CLI and the
API read this table; nothing else lists the rulings.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.auction as auction
import kb.rules.bridge.claim as claim
import kb.rules.bridge.defective as defective
import kb.rules.bridge.dummy as dummy
import kb.rules.bridge.dummy_rights as dummy_rights
import kb.rules.bridge.exposed as exposed
import kb.rules.bridge.lead as lead
import kb.rules.bridge.penalty as penalty
import kb.rules.bridge.play as play
import kb.rules.bridge.play_irregular as play_irregular
import kb.rules.bridge.revoke as revoke
from kb.core.errors import KbError
from kb.rules.bridge.cards import Result


@dataclass(frozen=True)
class Ruling:
    """One encoded ruling: its ``kb bridge`` subcommand, function, clause ids and a one-line summary."""

    command: str
    function: Callable[..., Result]
    clauses: tuple[str, ...]
    summary: str

    @property
    def name(self) -> str:
        return self.function.__name__

    @property
    def fields(self) -> tuple[str, ...]:
        """The JSON fields the ruling takes, optional ones in brackets: ``("hand", "[led_suit]")``."""
        params = inspect.signature(self.function).parameters.values()
        return tuple(p.name if p.default is inspect.Parameter.empty else f"[{p.name}]" for p in params)


RULINGS: tuple[Ruling, ...] = (
    Ruling("legal-cards", play.legal_cards, play.LEGAL_CARDS_CLAUSES, "哪些牌可以引出或跟出（第44条）"),
    Ruling("trick-winner", play.trick_winner, play.TRICK_WINNER_CLAUSES, "一墩牌由谁赢得、谁引下一墩（第44条）"),
    Ruling("dummy-rights", dummy_rights.dummy_rights, dummy_rights.DUMMY_RIGHTS_CLAUSES,
           "明手可以做什么、不可以做什么，违反限制的后果（第42–43条）"),
    Ruling("designate", dummy.designate, dummy.DESIGNATE_CLAUSES, "庄家对明手不完全或错误的打牌指示指的是哪张牌（第46条）"),
    Ruling("exposed-card", exposed.exposed_card, exposed.EXPOSED_CLAUSES,
           "暴露的牌：庄家、明手的牌不受判罚，防家的牌成为罚张；庄家摊牌（第48–49条）"),
    Ruling("penalty-card-kind", penalty.penalty_card_kind, penalty.PENALTY_CARD_KIND_CLAUSES,
           "暴露的牌是轻罚张还是重罚张（第50条B款）"),
    Ruling("penalty-card-obligations", penalty.penalty_card_obligations, penalty.PENALTY_CARD_OBLIGATIONS_CLAUSES,
           "罚张对违规者及其同伴出牌的限制与庄家的选择（第50–51条）"),
    Ruling("is-revoke", revoke.is_revoke, revoke.IS_REVOKE_CLAUSES, "打出的牌是否构成藏牌（第61条A款两种情形）"),
    Ruling("revoke-established", revoke.revoke_established, revoke.REVOKE_ESTABLISHED_CLAUSES,
           "藏牌是否成立、是否须改正、是否判罚（第61–64条）"),
    Ruling("revoke-adjustment", revoke.revoke_adjustment, revoke.REVOKE_ADJUSTMENT_CLAUSES,
           "藏牌成立后转移几墩（第64条）"),
    Ruling("insufficient-bid", auction.insufficient_bid, auction.INSUFFICIENT_BID_CLAUSES,
           "不足叫牌：被接受、更正为最低足够叫牌或其他叫牌的后果（第27条）"),
    Ruling("call-out-of-rotation", auction.call_out_of_rotation, auction.OUT_OF_ROTATION_CLAUSES,
           "越序叫牌（不叫、实质叫牌、加倍或再加倍）：取消、接受与对违规方的限制（第28–32条）"),
    Ruling("lead-out-of-turn", lead.lead_out_of_turn, lead.LEAD_OUT_OF_TURN_CLAUSES,
           "越序引牌：接受或收回、庄家摊牌成为明手、由此产生的罚张（第53–56条）"),
    Ruling("premature-play", play_irregular.premature_play, play_irregular.PREMATURE_CLAUSES,
           "防家过早引牌或打牌：罚张与庄家对其同伴的选择（第57条）"),
    Ruling("simultaneous-play", play_irregular.simultaneous_play, play_irregular.SIMULTANEOUS_CLAUSES,
           "同时引牌或打牌、一手同时打出多张牌（第58条）"),
    Ruling("defective-trick", defective.defective_trick, defective.DEFECTIVE_CLAUSES,
           "有缺陷的牌墩：漏打或多打一张牌的改正与后果（第67条）"),
    Ruling("claim-or-concession", claim.claim_or_concession, claim.WHAT_COUNTS_CLAUSES,
           "亮牌、说“剩下的都是我的”、放弃一手牌：是否构成声称或承认，之后怎么办（第68–69条）"),
    Ruling("contested-claim", claim.contested_claim, claim.CLAIM_CLAUSES,
           "有争议的声称：裁判的程序、外面还有一张将牌、声称者未说明的打法（第70条）"),
    Ruling("concession", claim.concession, claim.CONCESSION_CLAUSES,
           "承认输掉了不会输的牌墩、同意了对方的声称：能否取消（第69、71条）"),
)

BY_NAME: dict[str, Ruling] = {r.name: r for r in RULINGS}
BY_COMMAND: dict[str, Ruling] = {r.command: r for r in RULINGS}
FUNCTIONS: dict[str, Callable[..., Result]] = {r.name: r.function for r in RULINGS}
CLAUSES: dict[str, tuple[str, ...]] = {r.name: r.clauses for r in RULINGS}


def command_of(name: str) -> str:
    """The ``kb bridge`` subcommand of a ruling function."""
    return BY_NAME[name].command


def call(name: str, data: Any, where: str = "input") -> Result:
    """Call the ruling ``name`` with the keys of ``data`` as keyword arguments, checked first."""
    ruling = BY_NAME.get(name)
    if ruling is None:
        raise KbError(f"function: 未知函数 {name!r}（可用：{'、'.join(BY_NAME)}）")
    if not isinstance(data, dict):
        raise KbError(f"{where}: 应为 JSON 对象")
    params = inspect.signature(ruling.function).parameters
    for key in data:
        if key not in params:
            raise KbError(f"{where}.{key}: {name} 没有这个字段（可用：{'、'.join(params)}）")
    for key, param in params.items():
        if param.default is inspect.Parameter.empty and key not in data:
            raise KbError(f"{where}.{key}: 缺少必需字段")
    return ruling.function(**data)
