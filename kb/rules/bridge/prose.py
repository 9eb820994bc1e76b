"""The words the rulings' prose is made of: cards as ♠A, seats as 北家, suits as 红心, calls as 1红心.

A ruling's situation (what its worked examples say happened, kb/rules/bridge/declare.py) and its
answer are written with these, so a card, a seat or a call reads the same everywhere.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kb.core.errors import KbError
from kb.rules.bridge.calls import parse_call
from kb.rules.bridge.cards import SEAT_NAMES, SUIT_NAMES, parse_card, parse_seat


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


def event(ev: dict, words: Mapping[str, str]) -> str:
    """One thing that happened (a seat's action, at a trick or none), in the action's declared words."""
    trick = f"第{ev['trick']}墩" if "trick" in ev else ""
    if ev["action"] == "name":
        return f"{seat(ev['seat'])}{'的' + trick if trick else ''}牌已被指明"
    return f"{seat(ev['seat'])}{trick}{words[ev['action']]}"


def flagged(i: dict, said: tuple[tuple[str, str], ...]) -> list[str]:
    """The words of each flag of ``i`` that is set, in the order given."""
    return [text for key, text in said if i.get(key)]


def led(i: dict) -> str:
    return f"本墩引出{suit(i['led_suit'])}" if i.get("led_suit") else "轮到他引牌"


def void(i: dict, hand: str = "hand") -> str:
    """"，没有红心" when the hand holds no card of the suit led."""
    led_suit = i.get("led_suit")
    if not led_suit or not i.get(hand) or any(parse_card(c, "card").suit == led_suit for c in i[hand]):
        return ""
    return f"，没有{suit(led_suit)}"


def value(words: Mapping[str, str], code: Any, key: str) -> str:
    """The declared words of a choice's code (an undeclared code is an error, never shown as code)."""
    if code not in words:
        raise KbError(f"{key}: 值 {code!r} 没有声明的说法")
    return words[code]
