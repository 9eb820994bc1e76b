"""Law 44: the sequence of play, following suit and who wins a trick."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    SEAT_NAMES,
    SUIT_NAMES,
    Card,
    Result,
    cids,
    labels,
    next_seat,
    parse_cards,
    parse_seat,
    parse_strain,
    parse_suit,
    sort_cards,
    winning_index,
)
from kb.rules.bridge.declare import Field, Ruling

LEGAL_CARDS_CLAUSES = cids("44A", "44C", "44D")
TRICK_WINNER_CLAUSES = cids("44B", "44E", "44F", "44G")


@dataclass(frozen=True)
class LegalCards(Result):
    """The cards a player may lead or play to the current trick."""

    cards: tuple[str, ...] = ()
    must_follow: bool = False


@dataclass(frozen=True)
class TrickOutcome(Result):
    """The winner of a completed trick and the next leader."""

    winner: str = ""
    winning_card: str = ""
    trumped: bool = False
    next_leader: str = ""


def legal_set(hand: list[Card], led_suit: str | None) -> list[Card]:
    """The cards of ``hand`` playable under Law 44 alone (no penalties)."""
    if led_suit is None:
        return list(hand)
    follow = [c for c in hand if c.suit == led_suit]
    return follow or list(hand)


def legal_cards(hand: Any, led_suit: Any = None) -> LegalCards:
    """Cards ``hand`` may play: any card when leading (44A), the led suit if held (44C), else any (44D)."""
    cards = parse_cards(hand, "hand", min_len=1)
    led = parse_suit(led_suit, "led_suit", optional=True)
    legal = sort_cards(legal_set(cards, led))
    if led is None:
        clauses = cids("44A")
        text = f"引牌者可引出手中任何一张牌（44A）：{labels(legal)}。"
        must = False
    elif any(c.suit == led for c in cards):
        clauses = cids("44C")
        text = (f"手中有{SUIT_NAMES[led]}，必须跟{SUIT_NAMES[led]}（44C，跟牌的义务最为优先）："
                f"{labels(legal)}。")
        must = True
    else:
        clauses = cids("44D")
        text = f"手中没有{SUIT_NAMES[led]}，不能跟牌，可打出任何一张牌（44D）。"
        must = False
    return LegalCards(clauses=clauses, explanation=text, cards=tuple(str(c) for c in legal),
                      must_follow=must)


def trick_winner(leader: Any, cards_in_order: Any, trump: Any = None) -> TrickOutcome:
    """Winner of a four-card trick played in order from ``leader``: highest trump (44E),
    else highest card of the suit led (44F); the winner leads next (44G)."""
    lead_seat = parse_seat(leader, "leader")
    assert lead_seat is not None
    cards = parse_cards(cards_in_order, "cards_in_order")
    if len(cards) != 4:
        raise KbError(f"cards_in_order: 一墩牌由4家各打一张构成（44B），收到 {len(cards)} 张")
    strain = parse_strain(trump, "trump")
    best = winning_index(cards, strain)
    winner = next_seat(lead_seat, best)
    card = cards[best]
    trumped = strain is not None and any(c.suit == strain for c in cards)
    led = cards[0].suit
    if trumped:
        rule, clause = f"此墩含有将牌，{card.label}是最大的将牌", "44E"
    else:
        rule, clause = f"此墩不含将牌，{card.label}是引牌花色{SUIT_NAMES[led]}中最大的牌", "44F"
    plays = "、".join(f"{SEAT_NAMES[next_seat(lead_seat, i)]}{c.label}" for i, c in enumerate(cards))
    text = (f"{plays}：{rule}，{SEAT_NAMES[winner]}赢得此墩（{clause}），"
            f"并由{SEAT_NAMES[winner]}引下一墩（44G）。")
    return TrickOutcome(clauses=cids("44B", clause, "44G"), explanation=text, winner=winner,
                        winning_card=str(card), trumped=trumped, next_leader=winner)


def legal_cards_situation(i: dict) -> str:
    return f"{prose.led(i)}；手中有 {prose.cards(i['hand'])}{prose.void(i)}。"


LEGAL_CARDS = Ruling(
    "legal-cards", legal_cards, LEGAL_CARDS_CLAUSES,
    "哪些牌可以引出或跟出（第44条）",
    (Field("hand", "cards", "手中的牌"),
     Field("led_suit", "led", "本墩引牌花色")),
    situation=legal_cards_situation)


def trick_winner_situation(i: dict) -> str:
    plays = "、".join(f"{prose.seat(next_seat(i['leader'], k))}{prose.card(c)}" for k, c in enumerate(i["cards_in_order"]))
    trump = "无将定约" if prose.suit(i.get("trump")) == "无将" else f"将牌为{prose.suit(i['trump'])}"
    return f"{trump}，{prose.seat(i['leader'])}引牌；依次打出：{plays}。"


TRICK_WINNER = Ruling(
    "trick-winner", trick_winner, TRICK_WINNER_CLAUSES,
    "一墩牌由谁赢得、谁引下一墩（第44条）",
    (Field("leader", "seat", "引牌者"),
     Field("cards_in_order", "cards", "按出牌顺序的四张牌"),
     Field("trump", "trump", "将牌")),
    situation=trick_winner_situation)
