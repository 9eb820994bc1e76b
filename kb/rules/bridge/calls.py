"""Calls in the auction: ``1C``…``7NT`` (strains C D H S NT, also ♣♦♥♠ and 梅花/方块/红心/黑桃/无将),
``P``/``PASS``/不叫, ``X``/加倍, ``XX``/再加倍 (kb/rules/bridge/auction.py rules on them)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.core.errors import KbError
from kb.rules.bridge.cards import SUIT_SYMBOLS, fold_words

STRAINS = ("C", "D", "H", "S", "NT")
STRAIN_NAMES = {"C": "梅花", "D": "方块", "H": "红心", "S": "黑桃", "NT": "无将"}
_STRAIN_WORDS = {**{v: k for k, v in STRAIN_NAMES.items()}, "草花": "C", "红桃": "H", "N": "NT", "无将": "NT",
                 **SUIT_SYMBOLS}
_CALL_WORDS = {"P": "P", "PASS": "P", "不叫": "P", "X": "X", "加倍": "X", "XX": "XX", "再加倍": "XX"}


@dataclass(frozen=True)
class Call:
    """A call: a bid (level 1–7 and a strain), or pass ``P``, double ``X``, redouble ``XX``."""

    kind: str                   # "bid" | "P" | "X" | "XX"
    level: int = 0
    strain: str = ""

    @property
    def label(self) -> str:
        if self.kind != "bid":
            return {"P": "不叫", "X": "加倍", "XX": "再加倍"}[self.kind]
        return f"{self.level}{STRAIN_NAMES[self.strain]}"

    def rank(self) -> int:
        return (self.level - 1) * 5 + STRAINS.index(self.strain)


def parse_call(value: Any, field: str, *, bid_only: bool = False) -> Call:
    """A call from ``2H``, ``3NT``, ``1♠``, ``2黑桃`` (``1紅心``), ``P``, ``X``, ``XX`` (or 不叫/加倍/再加倍)."""
    if isinstance(value, str):
        text = fold_words(value.strip().upper().replace(" ", ""))     # 1紅心, 3無將
        if text in _CALL_WORDS and not bid_only:
            return Call(_CALL_WORDS[text])
        if len(text) >= 2 and text[0] in "1234567":
            strain = _STRAIN_WORDS.get(text[1:], text[1:])
            if strain in STRAINS:
                return Call("bid", int(text[0]), strain)
    want = "叫品（1C–7NT）" if bid_only else "叫牌（1C–7NT、P、X、XX）"
    raise KbError(f"{field}: 无法识别的{want} {value!r}")
