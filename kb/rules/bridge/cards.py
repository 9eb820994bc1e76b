"""Bridge notation: cards, suits, strains and seats, parsed and checked field by field.

Cards are rank + suit: ranks ``2-9 T J Q K A`` (``10`` accepted for ``T``), suits
``S H D C`` (``♠ ♥ ♦ ♣`` accepted). Seats are ``N E S W`` in clockwise order; the
partnerships are N-S and E-W. A strain is a suit or ``NT``.
Every parser raises :class:`KbError` with a one-line message naming the field.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

from kb.core.errors import KbError

WORK = "cbr1999"
RANKS = "23456789TJQKA"
SUITS = "SHDC"
SEATS = "NESW"
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
SUIT_NAMES = {"S": "黑桃", "H": "红心", "D": "方块", "C": "梅花"}
# a suit as players write it in words (红桃 and 草花 too), and the Traditional characters folded first
SUIT_WORDS = {**{name: code for code, name in SUIT_NAMES.items()}, "红桃": "H", "草花": "C"}
_TRADITIONAL = str.maketrans("紅塊無將", "红块无将")


def fold_words(text: str) -> str:
    """``text`` with the Traditional characters of suit and strain names in Simplified (紅心 → 红心)."""
    return text.translate(_TRADITIONAL)
SUIT_GLYPHS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SEAT_NAMES = {"N": "北家", "E": "东家", "S": "南家", "W": "西家"}
SEAT_WORDS = {name[0]: code for code, name in SEAT_NAMES.items()}     # 北 → N (東 is folded to 东 first)
HONOUR_MIN = RANKS.index("T") + 2      # 10: "9或9以下" is below honour rank


def cid(clause: str) -> str:
    """The record id of a clause of the work, e.g. ``cid("64A1") == "cbr1999:64A1"``."""
    return f"{WORK}:{clause}"


def cids(*clauses: str) -> tuple[str, ...]:
    """Record ids for several clauses, in the order given, without repeats."""
    return tuple(dict.fromkeys(cid(c) for c in clauses))


class Card(NamedTuple):
    """A playing card; ``rank`` runs 2..14 (ace high)."""

    rank: int
    suit: str

    def __str__(self) -> str:
        return RANKS[self.rank - 2] + self.suit

    @property
    def label(self) -> str:
        """The card for a Chinese reader, e.g. ``♠10``."""
        r = "10" if self.rank == 10 else RANKS[self.rank - 2]
        return SUIT_GLYPHS[self.suit] + r

    @property
    def honour(self) -> bool:
        """True for 10, J, Q, K, A (50B: a card above 9 is an honour)."""
        return self.rank >= HONOUR_MIN


def parse_card(value: Any, field: str) -> Card:
    """A card from ``"AS"``, ``"10h"``, ``"Q♠"`` (or ``"♠Q"``), ``"黑桃Q"`` (or ``"紅心10"``); anything else is a
    KbError naming ``field``."""
    if not isinstance(value, str):
        raise KbError(f"{field}: 应为牌的字符串（如 AS、10H），收到 {type(value).__name__}")
    text = fold_words(value.strip().upper().replace(" ", ""))
    for word, code in SUIT_WORDS.items():              # 黑桃Q, Q黑桃, 紅心10: the suit in words
        if text.startswith(word):
            text = text[len(word):] + code
        elif text.endswith(word):
            text = text[:-len(word)] + code
    if len(text) >= 2 and text[0] in SUIT_SYMBOLS:      # ♠10, the form labels use
        text = text[1:] + text[0]
    if len(text) >= 2:
        rank_text, suit_text = text[:-1], text[-1]
        suit = SUIT_SYMBOLS.get(suit_text, suit_text)
        if rank_text == "10":
            rank_text = "T"
        if len(rank_text) == 1 and rank_text in RANKS and suit in SUITS:
            return Card(RANKS.index(rank_text) + 2, suit)
    raise KbError(f"{field}: 无法识别的牌 {value!r}（应为点数+花色，如 AS、10H、♠Q、黑桃Q）")


def parse_cards(value: Any, field: str, *, min_len: int = 0, max_len: int = 13) -> list[Card]:
    """A list of distinct cards (a hand, a trick)."""
    if not isinstance(value, list):
        raise KbError(f"{field}: 应为牌的列表，收到 {type(value).__name__}")
    cards = [parse_card(v, f"{field}[{i}]") for i, v in enumerate(value)]
    seen: set[Card] = set()
    for i, card in enumerate(cards):
        if card in seen:
            raise KbError(f"{field}[{i}]: 重复的牌 {card.label}")
        seen.add(card)
    if not min_len <= len(cards) <= max_len:
        want = f"{min_len}" if min_len == max_len else f"{min_len}–{max_len}"
        raise KbError(f"{field}: 应有 {want} 张牌，收到 {len(cards)} 张")
    return cards


def disjoint(groups: Iterable[tuple[str, list[Card]]]) -> None:
    """No card may sit in two places at once (a hand and a trick, two hands)."""
    where: dict[Card, str] = {}
    for field, cards in groups:
        for card in cards:
            if card in where:
                raise KbError(f"{field}: {card.label} 已出现在 {where[card]} 中，同一张牌不能出现两次")
            where[card] = field


def parse_suit(value: Any, field: str, *, optional: bool = False) -> str | None:
    """A suit letter from ``S H D C`` or ``♠ ♥ ♦ ♣``; ``None`` allowed if ``optional``."""
    if value is None and optional:
        return None
    suit = _suit_letter(value)
    if suit is None:
        raise KbError(f"{field}: 无法识别的花色 {value!r}（应为 S、H、D、C 或 ♠♥♦♣）")
    return suit


def _suit_letter(value: Any) -> str | None:
    """``S H D C`` from a letter or a suit symbol, else None."""
    if isinstance(value, str):
        text = value.strip().upper()
        text = SUIT_SYMBOLS.get(text, text)
        if text in SUITS and len(text) == 1:
            return text
    return None


def parse_strain(value: Any, field: str) -> str | None:
    """A trump suit, or ``None`` for no trumps (``"NT"`` or JSON null)."""
    if value is None or (isinstance(value, str) and value.strip().upper() in ("NT", "N")):
        return None
    suit = _suit_letter(value)
    if suit is None:
        raise KbError(f"{field}: 无法识别的定约花色 {value!r}（应为 S、H、D、C 或 NT）")
    return suit


def parse_seat(value: Any, field: str, *, optional: bool = False) -> str | None:
    """A seat: the letter ``N E S W`` or its name, ``北 东 南 西`` (東), with or without 家."""
    if value is None and optional:
        return None
    if isinstance(value, str):
        text = value.strip().upper().replace("東", "东")
        text = SEAT_WORDS.get(text.removesuffix("家") if len(text) == 2 else text, text)
        if len(text) == 1 and text in SEATS:
            return text
    raise KbError(f"{field}: 无法识别的方位 {value!r}（应为 N、E、S、W 或 北、东、南、西）")


def parse_bool(value: Any, field: str) -> bool:
    """A JSON boolean, nothing else (no 0/1, no strings)."""
    if not isinstance(value, bool):
        raise KbError(f"{field}: 应为 true 或 false，收到 {value!r}")
    return value


def parse_int(value: Any, field: str, lo: int, hi: int) -> int:
    """An integer in ``lo..hi`` (booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise KbError(f"{field}: 应为整数，收到 {value!r}")
    if not lo <= value <= hi:
        raise KbError(f"{field}: 应在 {lo}–{hi} 之间，收到 {value}")
    return value


def parse_choice(value: Any, field: str, choices: tuple[str, ...], *, optional: bool = False) -> str | None:
    """One of a fixed set of strings."""
    if value is None and optional:
        return None
    if isinstance(value, str) and value in choices:
        return value
    raise KbError(f"{field}: 应为 {'、'.join(choices)} 之一，收到 {value!r}")


def partner(seat: str) -> str:
    """The seat across the table."""
    return SEATS[(SEATS.index(seat) + 2) % 4]


ROLE_NAMES = {"declarer": "庄家", "dummy": "明手", "defender": "防家"}


def role(seat: str, declarer: str) -> str:
    """``declarer``, ``dummy`` or ``defender``: what the player at ``seat`` is in the play."""
    if seat == declarer:
        return "declarer"
    return "dummy" if seat == partner(declarer) else "defender"


def seat_and_role(seat: str, declarer: str) -> str:
    """The seat as a ruling names it, with what the player is: 东家（防家）."""
    return f"{SEAT_NAMES[seat]}（{ROLE_NAMES[role(seat, declarer)]}）"


def side(seat: str) -> str:
    """The partnership of a seat: ``"NS"`` or ``"EW"``."""
    return "NS" if seat in "NS" else "EW"


SIDE_NAMES = {"NS": "南北方", "EW": "东西方"}


def next_seat(seat: str, steps: int = 1) -> str:
    """The seat ``steps`` places to the left (clockwise)."""
    return SEATS[(SEATS.index(seat) + steps) % 4]


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Suits in the order S H D C, high cards first."""
    return sorted(cards, key=lambda c: (SUITS.index(c.suit), -c.rank))


def labels(cards: Iterable[Card]) -> str:
    """Cards for a Chinese reader, space separated; ``无`` if none."""
    text = " ".join(c.label for c in cards)
    return text or "无"


def winning_index(cards: list[Card], trump: str | None) -> int:
    """Index of the card winning a (possibly partial) trick; the first card is the lead (44E, 44F)."""
    best = 0
    for i, card in enumerate(cards[1:], start=1):
        top = cards[best]
        if card.suit == top.suit:
            if card.rank > top.rank:
                best = i
        elif card.suit == trump:
            best = i
    return best


# a sub-item cited in the compact form (43B2a), which people write 43B2(a)
_COMPACT_SUB_ITEM = re.compile(r"(?<![0-9A-Za-z])(\d{2}[A-E]\d)([a-c])(?![0-9A-Za-z])")


@dataclass(frozen=True)
class Result:
    """Base of every rule result: the clause ids it rests on and a Chinese explanation (its
    citations as people write them, 43B2(a), as the clause links show them)."""

    clauses: tuple[str, ...]
    explanation: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "explanation", _COMPACT_SUB_ITEM.sub(r"\1(\2)", self.explanation))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: tuples become lists; clauses and explanation come last."""
        data = asdict(self)
        out = {f.name: _plain(data[f.name]) for f in fields(self) if f.name not in ("clauses", "explanation")}
        out["clauses"] = list(self.clauses)
        out["explanation"] = self.explanation
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
