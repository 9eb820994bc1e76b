"""A hand as one line, in the notation players type, turned into the JSON hand ``score`` takes.

Tiles: digits + suit letter, ``m`` 万, ``p`` 筒, ``s`` 索, ``z`` honours (``1z``–``7z`` = 东 南 西 北
白 发 中, the usual order), e.g. ``123m456p789s11z``; or Chinese names: ``一万``…``九万`` (萬),
``一筒``…, ``一索``… (条), ``东 南 西 北 中 发 白`` (東 發 in either script). Flowers: ``春夏秋冬梅兰竹菊``.

A line is sections separated by spaces. The first plain run of tiles is the concealed hand, the
winning tile written last; or, as players often write it, the 16 tiles before the win with the
winning tile apart as ``胡X``, which is then added to the concealed tiles (if the concealed tiles
and melds already make 17, ``胡X`` says which of them won). Other sections:

``吃123m`` ``碰555p`` ``杠7777s`` ``暗杠1111z`` (chi/pon/kan/ankan in letters too) — melds;
``花春夏`` or ``春夏`` — flowers; ``胡5m`` — the winning tile (see above); ``自摸`` — self-drawn;
``庄`` — the winner is the dealer; ``庄付`` — the dealer pays; ``连2`` — dealer streak 2;
``门风南`` / ``圈风东`` — seat and round wind; ``杠上`` ``海底`` ``抢杠`` — how the hand was won;
``天听`` ``地听`` — a declared ready hand; ``天胡`` ``地胡`` ``人胡`` — when it was won; ``八仙过海``
``七抢一`` — a flower win (``配牌``: at the deal).

Example: ``123m456p789s5566z6z 碰111s 自摸 门风南`` (5566z + 6z: 白白发发, won on 发), or the same
hand as ``123m456p789s5566z 胡6z 碰111s 自摸 门风南``.
"""
from __future__ import annotations

from typing import Any

from kb.core.errors import KbError
from kb.ingest.normalise import fold_width
from kb.rules.mahjong.tiles import FLOWERS, WINDS, is_meld, tile_name

_Z = ("E", "S", "W", "N", "P", "F", "C")            # 1z–7z: 东南西北 白发中
_NUM = {c: i for i, c in enumerate("一二三四五六七八九", 1)}
_SUIT_WORDS = {"万": "m", "萬": "m", "筒": "p", "饼": "p", "餅": "p", "索": "s", "条": "s", "條": "s"}
_HONOURS = {"东": "E", "東": "E", "南": "S", "西": "W", "北": "N", "中": "C", "发": "F", "發": "F", "白": "P"}
_FLOWER_CHARS = {c: f for c, f in zip("春夏秋冬梅兰竹菊", FLOWERS)} | {"蘭": "f6"}
_MELDS = {"吃": "chi", "碰": "pon", "明杠": "kan", "杠": "kan", "槓": "kan", "暗杠": "ankan", "暗槓": "ankan",
          "chi": "chi", "pon": "pon", "kan": "kan", "ankan": "ankan"}
_FLAGS = {"自摸": ("self_drawn", True), "庄": ("dealer", True), "莊": ("dealer", True),
          "庄付": ("from_dealer", True), "莊付": ("from_dealer", True), "杠上": ("after_kan", True),
          "槓上": ("after_kan", True), "海底": ("last_tile", True), "抢杠": ("robbing_kan", True),
          "搶槓": ("robbing_kan", True),
          "天听": ("declared", "天听"), "天聽": ("declared", "天听"), "地听": ("declared", "地听"),
          "地聽": ("declared", "地听"), "天胡": ("timing", "天胡"), "地胡": ("timing", "地胡"),
          "人胡": ("timing", "人胡"), "八仙过海": ("flower_win", "八仙过海"), "八仙過海": ("flower_win", "八仙过海"),
          "七抢一": ("flower_win", "七抢一"), "七搶一": ("flower_win", "七抢一"), "配牌": ("at_deal", True)}
# The situations a line can name, in the order the calculator offers them (its toggles; the
# browser reads FLAGS and these from kb/rules/mahjong/browser.py)
SITUATIONS = ("杠上", "海底", "抢杠", "天听", "地听", "天胡", "地胡", "人胡", "八仙过海", "七抢一", "配牌")
FLAGS = _FLAGS
_MELD_SHAPES = {"chi": "吃须为三张同花色连续的牌", "pon": "碰须为三张相同的牌", "kan": "杠须为四张相同的牌",
                "ankan": "暗杠须为四张相同的牌"}
MAX_LINE = 400
DIGITS = "123456789"          # a tile's number (ASCII; fullwidth ones are folded first)


def tiles(text: str, where: str) -> list[str]:
    """Tile codes from ``123m45p`` or Chinese names; KbError naming ``where`` and the bad character."""
    out: list[str] = []
    digits: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in DIGITS:
            digits.append(int(ch))
        elif ch in "mps":
            if not digits:
                raise KbError(f"{where}: 「{ch}」前没有数字（如 123{ch}）")
            out += [f"{d}{ch}" for d in digits]
            digits = []
        elif ch == "z":
            if not digits or any(d > 7 for d in digits):
                raise KbError(f"{where}: 字牌写作 1z–7z（东南西北白发中），收到 {''.join(map(str, digits))}z")
            out += [_Z[d - 1] for d in digits]
            digits = []
        elif ch in _NUM and i + 1 < len(text) and text[i + 1] in _SUIT_WORDS:
            out.append(f"{_NUM[ch]}{_SUIT_WORDS[text[i + 1]]}")
            i += 1
        elif ch in _HONOURS:
            out.append(_HONOURS[ch])
        else:
            raise KbError(f"{where}: 无法识别的牌「{ch}」（数字+m/p/s/z，或一万、五筒、九索、东南西北中发白）")
        i += 1
    if digits:
        raise KbError(f"{where}: 数字 {''.join(map(str, digits))} 后缺少花色字母 m/p/s/z")
    return out


def _flowers(text: str, where: str) -> list[str]:
    out = []
    rest = text
    while rest:
        if rest[0] in _FLOWER_CHARS:
            out.append(_FLOWER_CHARS[rest[0]])
            rest = rest[1:]
        elif rest[:1] == "f" and rest[1:2].isascii() and rest[1:2].isdigit():
            out.append(rest[:2])
            rest = rest[2:]
        else:
            raise KbError(f"{where}: 无法识别的花牌「{rest[0]}」（春夏秋冬梅兰竹菊 或 f1–f8）")
    return out


def parse_line(line: str) -> dict[str, Any]:
    """The JSON hand for one line of notation (see the module docstring)."""
    if len(line) > MAX_LINE:
        raise KbError(f"hand: 一行手牌过长（上限 {MAX_LINE} 字符）")
    line = fold_width(line)       # ４５ｍ as typed on a phone's fullwidth keyboard
    hand: dict[str, Any] = {"melds": [], "flowers": []}
    concealed: list[str] | None = None
    for k, section in enumerate(line.split(), 1):
        where = f"hand 第{k}段「{section}」"
        meld = next((m for m in sorted(_MELDS, key=len, reverse=True) if section.startswith(m)), None)
        if section in _FLAGS:
            key, value = _FLAGS[section]
            hand[key] = value
        elif section.startswith("连") or section.startswith("連"):
            if not (section[1:].isascii() and section[1:].isdigit()) or len(section) > 4:
                raise KbError(f"{where}: 连庄次数写作 连N（N 为 0–99）")
            hand["dealer_streak"] = int(section[1:])
        elif section[:2] in ("门风", "門風", "圈风", "圈風"):
            wind = _HONOURS.get(section[2:])
            if wind not in WINDS:
                raise KbError(f"{where}: 风位须为 东南西北 之一")
            if section[0] == "圈":
                hand["round_wind"] = wind
            else:
                hand["seat"] = WINDS.index(wind) + 1
        elif section.startswith("胡"):
            won = tiles(section[1:], where)
            if len(won) != 1:
                raise KbError(f"{where}: 胡后须为一张牌")
            hand["winning_tile"] = won[0]
        elif meld is not None:
            kind, got = _MELDS[meld], tiles(section[len(meld):], where)
            if not is_meld(kind, got):
                raise KbError(f"{where}: {_MELD_SHAPES[kind]}（收到 {' '.join(map(tile_name, got)) or '没有牌'}）")
            hand["melds"].append({"type": kind, "tiles": got})
        elif section.startswith("花") or section[0] in _FLOWER_CHARS or section[:1] == "f":
            hand["flowers"] += _flowers(section[1:] if section.startswith("花") else section, where)
        elif concealed is None:
            concealed = tiles(section, where)
        else:
            tiles(section, where)       # a word it does not know (自模) is named as such first
            raise KbError(f"{where}: 暗牌只能写一段（副露请加 吃/碰/杠/暗杠）")
    if not concealed:
        raise KbError("hand: 没有暗牌（如 123m456p789s11z）")
    hand["concealed"] = concealed
    if "winning_tile" not in hand:
        hand["winning_tile"] = concealed[-1]
        return hand
    count = len(concealed) + 3 * len(hand["melds"])
    if count == 16:       # 胡X: the tile that completed the hand, not yet written among the concealed tiles
        concealed.append(hand["winning_tile"])
    elif count != 17:     # 17: the concealed tiles hold it already, and 胡X says which one it was
        winning = tile_name(hand["winning_tile"])
        raise KbError(f"hand: 牌数不对：胡{winning}之外有 {count} 张（杠按 3 张计，不含花牌）；写 胡X 时，暗牌与副露写胡牌前的 "
                      f"16 张，胡X 为胡的那张（第 17 张），如 123m456p789s5566z 胡6z 碰111s")
    return hand
