"""Rules as code for 中国桥牌竞赛规则 (1999) (``cbr1999``): Laws 44, 46, 50–51 and 61–64.

Every function returns a result whose ``clauses`` lists the record ids it rests on
(``cbr1999:44C``, ``cbr1999:64A1`` ...) and whose ``explanation`` is a short Chinese text.
Bad input raises :class:`kb.errors.KbError` with a one-line message naming the field.

Notation: cards are rank + suit (``AS``, ``TH`` or ``10H``, ``Q♠``); seats ``N E S W``;
a strain is ``S H D C`` or ``NT``.

Command line: ``bridge SUBCOMMAND FILE [--json]`` where FILE holds one JSON object (``-`` reads
stdin). The keys are the parameters of the function the object selects; the output is the
explanation with its clause ids, or with ``--json`` the full result.

``trick`` (Law 44)
    ``{"leader": "N", "cards_in_order": ["5S", "KS", "2H", "AS"], "trump": "H"}`` → trick_winner;
    ``{"hand": ["AS", "TH", "5H"], "led_suit": "H"}`` (``led_suit`` null or absent when leading)
    → legal_cards.
``revoke`` (Laws 61–64)
    ``{"hand": [...], "led_suit": "H", "card": "AS"}`` → is_revoke (61A);
    ``{"revoke_trick": 5, "offender": "E", "events": [{"seat": "W", "action": "play", "trick": 6}],
    "declarer": "N", "hands_returned": false, "illegal_inquiry": false}`` → revoke_established;
    actions are lead / play / name (with ``trick``) and claim / concede / acquiesce;
    ``{"revoke_trick": 5, "revoke_trick_winner": "E", "offender": "E", "later_tricks_won": [7, 9],
    "offender_won_later_with_legal_card": false, "second_revoke_same_suit": false,
    "faced_card": false, "declarer": "N", "after_next_deal_call": false, "after_round_end": false}``
    → revoke_adjustment.
``penalty-card`` (Laws 50–51)
    ``{"card": "5H", "inadvertent": true, "count_of_penalty_cards": 1}`` → penalty_card_kind;
    ``{"penalty_cards": ["KH"], "turn": "offender" | "partner_lead", "inadvertent": true,
    "kind": "minor" | "major", "hand": [...], "led_suit": "S",
    "declarer_option": "require" | "forbid" | "none", "suits": ["H"]}`` → penalty_card_obligations.
``designate`` (Law 46)
    ``{"call": "大", "dummy_cards": [...], "led_suit": "S", "dummy_plays_fourth": true,
    "current_trick_cards": ["4S", "JS", "2S"], "trump": "H", "previous_trick_winning_suit": "D"}``
    → designate; ``call`` is what declarer said: 大/小/高/低, a suit (黑桃 红心 方块 梅花 草花, S, ♠),
    a rank (Q, 10), suit and rank, or 随便.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kb.errors import KbError
from kb.rules.bridge_cards import Result
from kb.rules.bridge_dummy import DESIGNATE_CLAUSES, designate
from kb.rules.bridge_examples import EXAMPLES_PATH, check_examples
from kb.rules.bridge_penalty import (
    PENALTY_CARD_KIND_CLAUSES,
    PENALTY_CARD_OBLIGATIONS_CLAUSES,
    penalty_card_kind,
    penalty_card_obligations,
)
from kb.rules.bridge_play import LEGAL_CARDS_CLAUSES, TRICK_WINNER_CLAUSES, legal_cards, trick_winner
from kb.rules.bridge_registry import FUNCTIONS, call
from kb.rules.bridge_revoke import (
    IS_REVOKE_CLAUSES,
    REVOKE_ADJUSTMENT_CLAUSES,
    REVOKE_ESTABLISHED_CLAUSES,
    is_revoke,
    revoke_adjustment,
    revoke_established,
)

__all__ = [
    "legal_cards", "trick_winner", "is_revoke", "revoke_established", "revoke_adjustment",
    "penalty_card_kind", "penalty_card_obligations", "designate", "check_examples", "main", "call",
    "FUNCTIONS", "EXAMPLES_PATH", "CLAUSES",
]

CLAUSES: dict[str, tuple[str, ...]] = {
    "legal_cards": LEGAL_CARDS_CLAUSES,
    "trick_winner": TRICK_WINNER_CLAUSES,
    "is_revoke": IS_REVOKE_CLAUSES,
    "revoke_established": REVOKE_ESTABLISHED_CLAUSES,
    "revoke_adjustment": REVOKE_ADJUSTMENT_CLAUSES,
    "penalty_card_kind": PENALTY_CARD_KIND_CLAUSES,
    "penalty_card_obligations": PENALTY_CARD_OBLIGATIONS_CLAUSES,
    "designate": DESIGNATE_CLAUSES,
}

# subcommand → (key that selects the function, function name), first match wins
_DISPATCH: dict[str, list[tuple[str, str]]] = {
    "trick": [("cards_in_order", "trick_winner"), ("hand", "legal_cards")],
    "revoke": [("card", "is_revoke"), ("events", "revoke_established"),
               ("revoke_trick_winner", "revoke_adjustment")],
    "penalty-card": [("penalty_cards", "penalty_card_obligations"), ("card", "penalty_card_kind")],
    "designate": [("call", "designate")],
}


def _read_input(name: str) -> dict[str, Any]:
    label = "stdin" if name == "-" else name
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise KbError(f"{label}: 无法读取：{exc.strerror}") from None
    except UnicodeDecodeError:
        raise KbError(f"{label}: 不是 UTF-8 文本") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise KbError(f"{label}:{exc.lineno}: 不是合法的 JSON（{exc.msg}）") from None
    if not isinstance(data, dict):
        raise KbError(f"{label}: 应为一个 JSON 对象")
    return data


def run(subcommand: str, data: dict[str, Any]) -> Result:
    """Run the function a subcommand's JSON object selects."""
    for key, name in _DISPATCH[subcommand]:
        if key in data:
            return call(name, data)
    keys = "、".join(k for k, _ in _DISPATCH[subcommand])
    raise KbError(f"{subcommand}: 输入须含字段 {keys} 之一")


def render(result: Result) -> str:
    """The default output: the explanation and the clause ids."""
    return f"{result.explanation}\n依据：{'、'.join(result.clauses)}"


def main(argv: list[str]) -> int:
    """``bridge trick|revoke|penalty-card|designate FILE [--json]``; 0 ok, 2 bad input."""
    args_in = list(argv)
    if args_in and args_in[0] == "bridge":
        args_in = args_in[1:]
    parser = argparse.ArgumentParser(prog="kb bridge", description="桥牌规则计算（中国桥牌竞赛规则1999）")
    parser.add_argument("subcommand", choices=sorted(_DISPATCH))
    parser.add_argument("file", help="JSON 输入文件，- 为标准输入")
    parser.add_argument("--json", action="store_true", help="输出完整 JSON 结果")
    try:
        args = parser.parse_args(args_in)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 2
    try:
        result = run(args.subcommand, _read_input(args.file))
    except KbError as exc:
        print(f"错误：{exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
