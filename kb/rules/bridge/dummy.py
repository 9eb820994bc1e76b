"""Law 46B: which card of dummy an incomplete or erroneous designation means."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    RANKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    Card,
    Result,
    cids,
    disjoint,
    labels,
    parse_bool,
    parse_cards,
    parse_strain,
    parse_suit,
    sort_cards,
    winning_index,
)
from kb.rules.bridge.declare import Field, Ruling
from kb.rules.bridge.play import legal_set

DESIGNATE_CLAUSES = cids("46A", "46B", "46B1", "46B2", "46B3a", "46B3b", "46B4", "46B5", "44C")

# 46B「或其他类似的字句」: words directors hear at the table, longest first within each list.
_ANY_WORDS = ("随你便", "隨你便", "随便", "隨便", "随你", "隨你", "随意", "隨意", "任意", "任何", "都行", "都可以",
              "ANYTHING", "WHATEVER", "ANY")
_HIGH_WORDS = ("最大", "最高", "赢它", "贏它", "赢下", "贏下", "拿下", "吃下", "WINIT", "TAKEIT", "HIGH", "TOP", "WIN",
               "大", "高")
_LOW_WORDS = ("最小", "最低", "SMALL", "LOW", "小", "低")
_SUIT_WORDS = {
    "黑桃": "S", "红心": "H", "红桃": "H", "方块": "D", "方片": "D", "梅花": "C", "草花": "C",
    "紅心": "H", "紅桃": "H", "方塊": "D", "SPADES": "S", "SPADE": "S", "HEARTS": "H", "HEART": "H",
    "DIAMONDS": "D", "DIAMOND": "D", "CLUBS": "C", "CLUB": "C", **SUIT_SYMBOLS,
}
_FILLER = re.compile(r"[\s，,。.！!、]|一张|一張|打|出|张|張|的|牌|PLAY|THE|OF|明手")
_RANK_WORDS = {"10": "T", "十": "T", "ACE": "A", "KING": "K", "QUEEN": "Q", "JACK": "J", "TEN": "T",
               "老K": "K"}


@dataclass(frozen=True)
class Designation(Result):
    """The card a designation stands for, or who must now designate."""

    card: str | None = None
    rule: str = ""                      # the clause applied, e.g. "46B1"
    void: bool = False                  # 46B4: the designation has no effect
    declarer_must_designate: bool = False
    designated_by: str = "declarer"     # "declarer" | "defender" (46B5)
    candidates: tuple[str, ...] = ()    # the cards the next designation may choose from
    legal: bool | None = None           # whether ``card`` may legally be played (44C)


@dataclass(frozen=True)
class _Call:
    kind: str                           # "any" | "high" | "low" | "rank" | "suit" | "card"
    suit: str | None = None
    rank: int | None = None


def parse_call(call: Any) -> _Call:
    """Read declarer's words: 大/小/高/低, a suit (黑桃, S, ♠), a rank (Q, 10), both, or 随便."""
    if not isinstance(call, str) or not call.strip():
        raise KbError(f"call: 应为庄家说的话（如 大、小、黑桃、Q、黑桃Q、随便），收到 {call!r}")
    text = _FILLER.sub("", call.strip().upper())
    if any(text.startswith(w) for w in _ANY_WORDS):
        return _Call("any")
    kind = None
    for name, words in (("high", _HIGH_WORDS), ("low", _LOW_WORDS)):
        for word in words:
            if text.startswith(word) or text.endswith(word):
                kind = name
                text = text[len(word):] if text.startswith(word) else text[: -len(word)]
                break
        if kind:
            break
    suit = None
    for word, letter in _SUIT_WORDS.items():
        if word in text:
            suit, text = letter, text.replace(word, "", 1)
            break
    else:
        letters = [ch for ch in text if ch in "SHDC"]
        if len(letters) == 1:
            suit, text = letters[0], text.replace(letters[0], "", 1)
    if kind:
        if text:
            raise KbError(f"call: 无法识别的打牌指示 {call!r}")
        return _Call(kind, suit)
    rank_text = _RANK_WORDS.get(text, text)
    if len(rank_text) == 1 and rank_text in RANKS:
        rank = RANKS.index(rank_text) + 2
        return _Call("card" if suit else "rank", suit, rank)
    if not text and suit:
        return _Call("suit", suit)
    raise KbError(f"call: 无法识别的打牌指示 {call!r}")


def designate(call: Any, dummy_cards: Any, led_suit: Any = None, dummy_plays_fourth: Any = None,
              current_trick_cards: Any = None, trump: Any = None,
              previous_trick_winning_suit: Any = None) -> Designation:
    """The card of dummy meant by ``call`` under 46B (46B1 大/小, 46B2 suit only, 46B3 rank only,
    46B4 card not held, 46B5 随便). ``current_trick_cards`` are the cards already played to the
    trick, lead first (``dummy_plays_fourth`` defaults to "three cards given");
    ``previous_trick_winning_suit`` is the suit in which dummy won the last trick."""
    dummy = parse_cards(dummy_cards, "dummy_cards", min_len=1)
    trick = parse_cards([] if current_trick_cards is None else current_trick_cards,
                        "current_trick_cards", max_len=3)
    disjoint([("dummy_cards", dummy), ("current_trick_cards", trick)])
    led = parse_suit(led_suit, "led_suit", optional=True)
    if trick:
        if led is not None and led != trick[0].suit:
            raise KbError(f"led_suit: 与本墩首张 {trick[0].label} 的花色不一致")
        led = trick[0].suit
    if dummy_plays_fourth is None:
        fourth = len(trick) == 3
    else:
        fourth = parse_bool(dummy_plays_fourth, "dummy_plays_fourth")
        if fourth and len(trick) != 3:
            raise KbError(f"current_trick_cards: 明手第4家出牌时应给出本墩已打出的3张牌，收到 {len(trick)} 张")
        if not fourth and len(trick) == 3:
            raise KbError("dummy_plays_fourth: 本墩已打出3张牌，明手是第4家，不能为 false")
    if fourth and led is None:
        raise KbError("led_suit: 明手第4家出牌时必须有引牌花色")
    strain = parse_strain(trump, "trump")
    prev = parse_suit(previous_trick_winning_suit, "previous_trick_winning_suit", optional=True)
    what = parse_call(call)
    legal = sort_cards(legal_set(dummy, led))
    legal_ids = tuple(str(c) for c in legal)
    def done(rule: str, card: Card | None, text: str, *more: str, **kw: Any) -> Designation:
        ok = None if card is None else card in legal
        if ok is False:
            text += f"但明手有{SUIT_NAMES[led]}，此牌不是合法牌张，须跟牌（44C）。"  # type: ignore[index]
            more += ("44C",)
        head = ("46B",) if rule.startswith("46B") else ()
        return Designation(clauses=cids(*head, rule, *more), explanation=text, card=None if card is None
                           else str(card), rule=rule, legal=ok, **kw)

    def void(reason: str, *more: str) -> Designation:
        return done("46B4", None, f"{reason}，指定无效，庄家可重新指定打明手任何合法牌张（46B4）："
                    f"{labels(legal)}。", *more, void=True, declarer_must_designate=True,
                    candidates=legal_ids)

    if what.kind == "any":
        return done("46B5", None, f"庄家说“{call}”，未指定花色与牌点，任一防家可指定明手打哪张牌（46B5）："
                    f"{labels(legal)}。", designated_by="defender", candidates=legal_ids)
    if what.kind == "card":
        card = Card(what.rank, what.suit)  # type: ignore[arg-type]
        if card not in dummy:
            return void(f"明手没有庄家所指定的{card.label}")
        return done("46A", card, f"庄家清楚地说出了花色及牌点，明手打出{card.label}（46A）。")
    if what.kind in ("high", "low"):
        suit = what.suit or led
        if suit is None:
            return done("46A", None, f"明手引牌时庄家只说“{call}”而未说花色，指示不完全，庄家须说出花色及牌点（46A）。",
                        "46B1", declarer_must_designate=True, candidates=legal_ids)
        held = sorted((c for c in dummy if c.suit == suit), key=lambda c: c.rank)
        if not held:
            return void(f"明手没有{SUIT_NAMES[suit]}，“{call}”所指的牌不存在", "46B1")
        if what.kind == "low":
            return done("46B1", held[0], f"庄家说“{call}”，视为指定{SUIT_NAMES[suit]}中最小的牌{held[0].label}（46B1）。")
        if fourth:
            winners = [c for c in held if winning_index(trick + [c], strain) == 3]
            if winners:
                return done("46B1", winners[0], f"明手为第4家打牌，庄家说“{call}”，视为指定{SUIT_NAMES[suit]}中"
                            f"能赢得此墩的最小牌{winners[0].label}（46B1）。")
            return done("46B1", held[-1], f"明手为第4家打牌，但{SUIT_NAMES[suit]}中没有能赢得此墩的牌，"
                        f"“{call}”按本义视为该花色中最大的牌{held[-1].label}（46B1）。")
        return done("46B1", held[-1], f"庄家说“{call}”，视为指定{SUIT_NAMES[suit]}中最大的牌{held[-1].label}（46B1）。")
    if what.kind == "suit":
        suit = what.suit
        held = sorted((c for c in dummy if c.suit == suit), key=lambda c: c.rank)
        if not held:
            return void(f"明手没有{SUIT_NAMES[suit]}", "46B2")  # type: ignore[index]
        return done("46B2", held[0], f"庄家只指定了{SUIT_NAMES[suit]}而未指定牌点，视为该花色中最小的牌"  # type: ignore[index]
                    f"{held[0].label}（46B2）。")
    # rank only (46B3)
    rank_label = "10" if what.rank == 10 else RANKS[what.rank - 2]  # type: ignore[operator]
    if led is None and prev is not None and Card(what.rank, prev) in dummy:  # type: ignore[arg-type]
        card = Card(what.rank, prev)  # type: ignore[arg-type]
        return done("46B3a", card, f"明手引牌，庄家只说“{call}”：明手上一墩在{SUIT_NAMES[prev]}中赢墩，"
                    f"且有该花色的{rank_label}，视为指定{card.label}（46B3(a)）。")
    matching = [c for c in legal if c.rank == what.rank]
    lead_note = "（明手上一墩赢墩的花色中没有此牌点，46B3(a)不适用）" if led is None and prev else ""
    if len(matching) == 1:
        return done("46B3b", matching[0], f"庄家只说牌点“{call}”{lead_note}，明手仅有一张该牌点的合法牌张，"
                    f"必须打出{matching[0].label}（46B3(b)）。")
    if len(matching) >= 2:
        return done("46B3b", None, f"庄家只说牌点“{call}”{lead_note}，明手有{len(matching)}张该牌点的合法牌张"
                    f"（{labels(matching)}），庄家必须指定打哪一张（46B3(b)）。",
                    declarer_must_designate=True, candidates=tuple(str(c) for c in matching))
    held = [c for c in dummy if c.rank == what.rank]
    if held:
        return void(f"明手的{labels(held)}都不能合法打出（须跟{SUIT_NAMES[led]}，44C），"  # type: ignore[index]
                    f"“{call}”没有可打的牌", "46B3b", "44C")
    return void(f"明手没有牌点为{rank_label}的牌", "46B3b")


def designate_situation(i: dict) -> str:
    parts = [f"明手有 {prose.cards(i['dummy_cards'])}"]
    if i.get("current_trick_cards"):
        parts.append(f"本墩已打出 {prose.cards(i['current_trick_cards'])}，明手第{len(i['current_trick_cards']) + 1}家出牌")
    elif i.get("led_suit"):
        parts.append(f"本墩引出{prose.suit(i['led_suit'])}")
    else:
        parts.append("由明手引牌")
    if i.get("previous_trick_winning_suit"):
        parts.append(f"上一墩以{prose.suit(i['previous_trick_winning_suit'])}赢得")
    if "trump" in i:
        parts.append("无将定约" if prose.suit(i["trump"]) == "无将" else f"将牌为{prose.suit(i['trump'])}")
    return "，".join(parts) + f"；庄家说：“{i['call']}”。"


DESIGNATE = Ruling(
    "designate", designate, DESIGNATE_CLAUSES,
    "庄家对明手不完全或错误的打牌指示指的是哪张牌（第46条）",
    (Field("call", "word", "庄家的指定"),
     Field("dummy_cards", "cards", "明手的牌"),
     Field("led_suit", "led", "本墩引牌花色"),
     Field("dummy_plays_fourth", "bool", "明手为第4家出牌"),
     Field("current_trick_cards", "cards", "本墩已打出的牌"),
     Field("trump", "trump", "将牌"),
     Field("previous_trick_winning_suit", "suit", "上一墩赢墩牌的花色")),
    situation=designate_situation)
