"""Laws 50–51: minor and major penalty cards, and what they oblige offender and partner to do."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import kb.rules.bridge.prose as prose
from kb.core.errors import KbError
from kb.rules.bridge.cards import (
    SUIT_NAMES,
    Card,
    Result,
    cids,
    disjoint,
    labels,
    parse_bool,
    parse_card,
    parse_cards,
    parse_choice,
    parse_int,
    parse_suit,
    sort_cards,
)
from kb.rules.bridge.declare import Field, Ruling
from kb.rules.bridge.play import legal_set

PENALTY_CARD_KIND_CLAUSES = cids("50B")
PENALTY_CARD_OBLIGATIONS_CLAUSES = cids(
    "50C", "50D", "50D1", "50D2", "50D2a", "50D2b", "51A", "51B1a", "51B1b", "51B2a", "51B2b", "44C", "59",
)

TURNS = ("offender", "partner_lead")
OPTIONS = ("require", "forbid", "none")
KINDS = ("minor", "major")
# the words of each code, as the form, the worked examples and the answers say it
KIND_NAMES = {"major": "重罚张", "minor": "轻罚张"}
TURN_NAMES = {"offender": "轮到违规者出牌", "partner_lead": "轮到违规者的同伴引牌"}
OPTION_NAMES = {"require": "要求引出罚张花色", "forbid": "禁止引出罚张花色", "none": "对引牌不加限制"}


@dataclass(frozen=True)
class PenaltyKind(Result):
    """Whether a penalty card is minor or major (50B)."""

    card: str = ""
    kind: str = ""


@dataclass(frozen=True)
class PenaltyObligations(Result):
    """What the offender (at his turn) or his partner (on lead) may and must do."""

    kind: str = ""
    turn: str = ""
    legal_cards: tuple[str, ...] | None = None   # when a hand is given
    must_play: tuple[str, ...] = ()              # penalty cards one of which must be played now
    declarer_designates: bool = False            # declarer picks which penalty card (50D1, 51A)
    barred: tuple[str, ...] = ()                 # cards the offender may not play (50C)
    must_wait_for_declarer: bool = False         # partner may not lead before declarer chooses (50D2)
    declarer_options: tuple[str, ...] = ()       # "require" | "forbid" | "none"
    lead_required: str | None = None
    lead_forbidden: tuple[str, ...] = ()
    withdrawn: tuple[str, ...] = ()              # penalty cards picked up, no longer penalty cards
    remaining: tuple[str, ...] = ()              # penalty cards still on the table


def kind_of(card: Card, inadvertent: bool, count: int) -> tuple[str, str]:
    """Minor or major under 50B (``count``: the defender's penalty cards), and why, in words."""
    if count >= 2:
        return "major", f"该防家共有{count}张罚张（含{card.label}），所有罚张均成为重罚张（50B）"
    if not inadvertent:
        return "major", f"{card.label}是审慎地打出（如越序引牌、改正藏牌）的牌，成为重罚张（50B）"
    if card.honour:
        return "major", f"暴露的{card.label}是大牌（10或以上），成为重罚张（50B）"
    return "minor", f"因疏忽而暴露的一张9或9以下的牌{card.label}，成为轻罚张（50B）"


def penalty_card_kind(card: Any, inadvertent: Any, count_of_penalty_cards: Any = 1) -> PenaltyKind:
    """Minor or major under 50B: one card of 9 or lower exposed inadvertently is minor; an honour,
    a card exposed deliberately, or any card of a defender holding two or more is major."""
    c = parse_card(card, "card")
    inad = parse_bool(inadvertent, "inadvertent")
    count = parse_int(count_of_penalty_cards, "count_of_penalty_cards", 1, 13)
    kind, text = kind_of(c, inad, count)
    return PenaltyKind(clauses=PENALTY_CARD_KIND_CLAUSES, explanation=text + "。", card=str(c), kind=kind)


def _suits_of(cards: list[Card]) -> list[str]:
    return [s for s in "SHDC" if any(c.suit == s for c in cards)]


def _names(suits: list[str] | tuple[str, ...]) -> str:
    return "、".join(SUIT_NAMES[s] for s in suits)


def penalty_card_obligations(penalty_cards: Any, turn: Any, inadvertent: Any = None, kind: Any = None,
                             hand: Any = None, led_suit: Any = None, declarer_option: Any = None,
                             suits: Any = None) -> PenaltyObligations:
    """Obligations from a defender's penalty cards (50C, 50D, 51).

    ``turn`` is ``"offender"`` (the owner plays; ``hand`` = his concealed cards, required) or
    ``"partner_lead"`` (his partner is to lead; ``hand`` = partner's cards, optional).
    The kind comes from ``kind`` or, for a single card, from ``inadvertent`` (50B).
    ``declarer_option`` (``require`` / ``forbid`` / ``none``) and ``suits`` give declarer's choice
    when partner leads against a major penalty card (50D2, 51B)."""
    pcs = parse_cards(penalty_cards, "penalty_cards", min_len=1)
    who = parse_choice(turn, "turn", TURNS)
    given_kind = parse_choice(kind, "kind", KINDS, optional=True)
    if len(pcs) >= 2:
        if given_kind == "minor":
            raise KbError("kind: 一防家有两张或更多罚张时，所有罚张均为重罚张（50B），不能为 minor")
        the_kind = "major"
    elif given_kind is not None:
        if given_kind == "minor" and pcs[0].honour:
            raise KbError(f"kind: {pcs[0].label} 是大牌，不能是轻罚张（50B）")
        if inadvertent is not None and kind_of(pcs[0], parse_bool(inadvertent, "inadvertent"), 1)[0] != given_kind:
            raise KbError(f"kind: 与 inadvertent={str(inadvertent).lower()} 按50B得出的种类不一致")
        the_kind = given_kind
    elif inadvertent is None:
        raise KbError("inadvertent: 只有一张罚张时须给出 inadvertent 或 kind，以区分轻罚张与重罚张（50B）")
    else:
        the_kind = kind_of(pcs[0], parse_bool(inadvertent, "inadvertent"), 1)[0]
    cards = None if hand is None else parse_cards(hand, "hand")
    if cards is not None:
        disjoint([("penalty_cards", pcs), ("hand", cards)])
    if who == "offender":
        if cards is None:
            raise KbError("hand: 违规者出牌时须给出其手中（罚张以外）的牌")
        if declarer_option is not None or suits is not None:
            raise KbError("declarer_option: 庄家对引牌的选择只在违规者同伴引牌时适用（50D2）")
        led = parse_suit(led_suit, "led_suit", optional=True)
        return _offender(pcs, the_kind, cards, led)
    if led_suit is not None:
        raise KbError("led_suit: 同伴引牌时没有引牌花色，应省略 led_suit")
    return _partner_lead(pcs, the_kind, cards, declarer_option, suits)


def _offender(pcs: list[Card], kind: str, hand: list[Card], led: str | None) -> PenaltyObligations:
    legal44 = legal_set(hand + pcs, led)
    follow = led is not None and any(c.suit == led for c in hand + pcs)
    ids = lambda cards: tuple(str(c) for c in sort_cards(cards))  # noqa: E731
    if kind == "minor":
        pc = pcs[0]
        barred = [c for c in hand if c.suit == pc.suit and not c.honour]
        legal = [c for c in legal44 if c not in barred]
        text = (f"轻罚张{pc.label}：打出该罚张前不得打出{SUIT_NAMES[pc.suit]}中9或9以下的其他牌，"
                f"但可打出大牌（50C）。")
        if barred and any(c in legal44 for c in barred):
            text += f"不得打{labels(sort_cards(barred))}。"
        clauses = ["50C"]
        if follow:
            text += f"须先跟{SUIT_NAMES[led]}（44C）。"  # type: ignore[index]
            clauses.append("44C")
        text += f"可打：{labels(sort_cards(legal))}。"
        return PenaltyObligations(clauses=cids(*clauses), explanation=text, kind=kind, turn="offender",
                                  legal_cards=ids(legal), barred=ids(barred), remaining=ids(pcs))
    playable = [c for c in pcs if c in legal44]
    clauses = ["50D1"]
    if playable:
        several = len(playable) >= 2
        text = (f"重罚张必须于第一次合法机会打出，不论引牌、跟牌、垫牌还是将吃（50D1）："
                f"须打出{labels(sort_cards(playable))}{'中的一张' if several else ''}。")
        if several:
            text += "有两张或更多罚张可以合法打出，由庄家指定打哪一张（50D1、51A）。"
            clauses.append("51A")
        return PenaltyObligations(clauses=cids(*clauses), explanation=text, kind=kind, turn="offender",
                                  legal_cards=ids(playable), must_play=ids(playable),
                                  declarer_designates=several, remaining=ids(pcs))
    text = (f"须跟{SUIT_NAMES[led]}（44C）：跟牌的规定比打出重罚张更为优先，"  # type: ignore[index]
            f"罚张{labels(sort_cards(pcs))}仍暴露在桌上，于下一次合法机会打出（50D1）。"
            f"可打：{labels(sort_cards(legal44))}。")
    return PenaltyObligations(clauses=cids("44C", *clauses), explanation=text, kind=kind, turn="offender",
                              legal_cards=ids(legal44), remaining=ids(pcs))


def _partner_lead(pcs: list[Card], kind: str, hand: list[Card] | None, option: Any,
                  suits: Any) -> PenaltyObligations:
    ids = lambda cards: tuple(str(c) for c in sort_cards(cards))  # noqa: E731
    all_ids = ids(pcs)
    if kind == "minor":
        if option is not None or suits is not None:
            raise KbError("declarer_option: 轻罚张不限制同伴的引牌（50C），庄家没有引牌选择")
        text = (f"违规者有轻罚张{pcs[0].label}：轻罚张不限制违规者同伴的引牌，可引任何牌（50C）；但他因看到罚张所获得的信息属非法信息"
                "（参阅第16条A款）。")
        return PenaltyObligations(clauses=cids("50C"), explanation=text, kind=kind, turn="partner_lead",
                                  legal_cards=None if hand is None else ids(hand), remaining=all_ids)
    penalty_suits = _suits_of(pcs)
    single, one_suit = len(pcs) == 1, len(penalty_suits) == 1
    if single:
        req_c, forbid_c = "50D2a", "50D2a"
    elif one_suit:
        req_c, forbid_c = "51B1a", "51B1b"
    else:
        req_c, forbid_c = "51B2a", "51B2b"
    opt = parse_choice(option, "declarer_option", OPTIONS, optional=True)
    if opt is None:
        if suits is not None:
            raise KbError("suits: 只有给出 declarer_option 时才能给出 suits")
        text = (f"同伴有重罚张{labels(sort_cards(pcs))}，轮到他引牌时须等庄家选择后才能引牌（50D2）："
                f"庄家可要求或禁止引出罚张花色（{req_c}{'' if req_c == forbid_c else '、' + forbid_c}），"
                f"或对引牌不加限制（50D2b）。")
        return PenaltyObligations(clauses=cids("50D2", req_c, forbid_c, "50D2b"), explanation=text,
                                  kind=kind, turn="partner_lead", must_wait_for_declarer=True,
                                  declarer_options=OPTIONS, remaining=all_ids)
    if opt == "none":
        if suits is not None:
            raise KbError("suits: 庄家不限制引牌（none）时不应给出 suits")
        text = (f"庄家对引牌不加限制：同伴可引出任何牌张，罚张{labels(sort_cards(pcs))}仍然保持为罚张（50D2b）。")
        return PenaltyObligations(clauses=cids("50D2", "50D2b"), explanation=text, kind=kind,
                                  turn="partner_lead", legal_cards=None if hand is None else ids(hand),
                                  remaining=all_ids)
    chosen = _chosen_suits(suits, penalty_suits, opt, one_suit)
    withdrawn = [c for c in pcs if c.suit in chosen]
    remaining = [c for c in pcs if c.suit not in chosen]
    clauses = ["50D2"]
    if opt == "require":
        suit = chosen[0]
        clauses += [req_c] + (["51B1a"] if req_c == "51B2a" else [])
        text = (f"庄家要求同伴引出{SUIT_NAMES[suit]}（{req_c}）：{labels(sort_cards(withdrawn))}"
                f"不再成为罚张，应收回")
        text += "。" if single else "；违规者对该墩可打出任何合法牌张（51B1(a)）。"
        legal = None
        if hand is not None:
            legal = [c for c in hand if c.suit == suit]
            if not legal:
                text += f"同伴没有{SUIT_NAMES[suit]}，无法履行要求，可打出任何合法牌张（59）。"
                clauses.append("59")
                legal = list(hand)
    else:
        clauses.append(forbid_c)
        lasts = "" if forbid_c == "50D2a" else "（50D2a）"
        text = (f"庄家禁止同伴引出{_names(chosen)}（{forbid_c}），在他保持引牌权时此禁止一直有效{lasts}；"
                f"{labels(sort_cards(withdrawn))}")
        text += ("不再成为罚张，应收回。" if single else
                 "可由违规者收回，违规者对该墩可打出任何合法牌张。")
        if forbid_c != "50D2a":
            clauses.append("50D2a")
        legal = None
        if hand is not None:
            legal = [c for c in hand if c.suit not in chosen]
            if not legal:
                text += "同伴只有被禁止的花色，无法履行，可打出任何合法牌张（59）。"
                clauses.append("59")
                legal = list(hand)
    if remaining:
        text += f"其余罚张{labels(sort_cards(remaining))}仍为罚张。"
    return PenaltyObligations(
        clauses=cids(*clauses), explanation=text, kind=kind, turn="partner_lead",
        legal_cards=None if legal is None else ids(legal),
        lead_required=chosen[0] if opt == "require" else None,
        lead_forbidden=tuple(chosen) if opt == "forbid" else (),
        withdrawn=ids(withdrawn), remaining=ids(remaining))


def _chosen_suits(suits: Any, penalty_suits: list[str], opt: str, one_suit: bool) -> list[str]:
    if suits is None:
        if one_suit:
            return list(penalty_suits)
        raise KbError(f"suits: 罚张有几种花色（{_names(penalty_suits)}），须给出庄家{'要求' if opt == 'require' else '禁止'}的花色")
    if not isinstance(suits, list) or not suits:
        raise KbError(f"suits: 应为花色的非空列表，收到 {suits!r}")
    chosen = [parse_suit(s, f"suits[{i}]") for i, s in enumerate(suits)]
    for i, s in enumerate(chosen):
        if s not in penalty_suits:
            raise KbError(f"suits[{i}]: {SUIT_NAMES[s]}中没有罚张，庄家只能要求或禁止有罚张的花色（50D2a、51B2）")  # type: ignore[index]
    if len(set(chosen)) != len(chosen):
        raise KbError("suits: 重复的花色")
    if opt == "require" and len(chosen) != 1:
        raise KbError(f"suits: 庄家只能要求引出一种花色，收到 {len(chosen)} 种")
    return [s for s in "SHDC" if s in chosen]


def penalty_card_kind_situation(i: dict) -> str:
    how = "因疏忽" if i.get("inadvertent") else "并非因疏忽（如越序引牌）"
    many = f"（同时暴露了 {i['count_of_penalty_cards']} 张牌）" if i.get("count_of_penalty_cards", 1) > 1 else ""
    return f"防守方{how}暴露了{prose.card(i['card'])}{many}。"


PENALTY_CARD_KIND = Ruling(
    "penalty-card-kind", penalty_card_kind, PENALTY_CARD_KIND_CLAUSES,
    "暴露的牌是轻罚张还是重罚张（第50条B款）",
    (Field("card", "card", "打出或暴露的牌"),
     Field("inadvertent", "bool", "因疏忽而暴露"),
     Field("count_of_penalty_cards", "int", "同时暴露的牌数")),
    situation=penalty_card_kind_situation)


def penalty_card_obligations_situation(i: dict) -> str:
    kind = KIND_NAMES[i["kind"]] if i.get("kind") else ("轻罚张" if i.get("inadvertent") else "罚张")
    parts = [f"防守方一家有{kind} {prose.cards(i['penalty_cards'])} 摊在桌上"]
    parts.append(TURN_NAMES[i["turn"]])
    if i.get("led_suit"):
        parts.append(f"本墩引出{prose.suit(i['led_suit'])}")
    if i.get("hand"):
        parts.append(f"{'同伴' if i['turn'] == 'partner_lead' else '违规者'}手中有 {prose.cards(i['hand'])}{prose.void(i)}")
    if i.get("declarer_option") and i.get("suits"):
        named = "、".join(prose.suit(s) for s in i["suits"])     # the declared words, with the suits he named
        option = i["declarer_option"]
        parts.append(f"庄家{OPTION_NAMES[option].replace('罚张花色', named)}" if option in ("require", "forbid")
                     else f"庄家指名{named}")
    elif i.get("declarer_option"):
        parts.append(f"庄家{OPTION_NAMES[i['declarer_option']]}")
    return "，".join(parts) + "。"


PENALTY_CARD_OBLIGATIONS = Ruling(
    "penalty-card-obligations", penalty_card_obligations, PENALTY_CARD_OBLIGATIONS_CLAUSES,
    "罚张对违规者及其同伴出牌的限制与庄家的选择（第50–51条）",
    (Field("penalty_cards", "cards", "罚张"),
     Field("turn", "choice", "出牌时机", TURN_NAMES),
     Field("inadvertent", "bool", "因疏忽而暴露"),
     Field("kind", "choice", "罚张种类", KIND_NAMES),
     Field("hand", "cards", "手中的牌"),
     Field("led_suit", "led", "本墩引牌花色"),
     Field("declarer_option", "choice", "庄家的选择", OPTION_NAMES),
     Field("suits", "suits", "庄家指名的花色")),
    situation=penalty_card_obligations_situation)
