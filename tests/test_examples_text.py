"""Every worked example in words: each renders, with a situation and a ruling free of code names."""
from __future__ import annotations

import inspect
import re

import pytest

from kb.core.errors import KbError
from kb.ingest.normalise import to_hant
from kb.rules.bridge import fields as bridge_fields
from kb.rules.bridge.examples import check_examples as bridge_examples
from kb.rules.bridge.registry import RULINGS
from kb.rules.mahjong import check_examples as mahjong_examples
from kb.site import examples_text as t

BRIDGE = bridge_examples()
MAHJONG = mahjong_examples()


def sections(block: str) -> dict[str, str]:
    """The 情形 and 裁定 lines of a rendered example block."""
    found = dict(re.findall(r"\*\*(情形|裁定)\*\*　(.*)", block))
    assert set(found) == {"情形", "裁定"}, block[:200]
    return found


def code_words(text: str) -> list[str]:
    """ASCII words a reader would take for code: clause markers, clause numbers like 27B1(b)
    and the declarer's own quoted words (“small club”) aside."""
    text = re.sub(r"⟦[^⟧]*⟧|“[^”]*”", "", text)
    return re.findall(r"[A-Za-z_]{2,}", text)


def test_the_examples_cover_every_bridge_ruling():
    assert {ex["function"] for ex in BRIDGE} >= {"insufficient_bid", "call_out_of_rotation", "lead_out_of_turn",
                                                "premature_play", "simultaneous_play", "defective_trick"}


@pytest.mark.parametrize("ex", BRIDGE + MAHJONG, ids=lambda ex: ex["title"])
def test_every_example_renders_without_code_names(ex):
    block = t.block(ex)
    fields = set(ex.get("input") or t.hand_of(ex["hand"]))
    for name, text in sections(block).items():
        assert text.strip(), (name, ex["title"])
        assert code_words(text) == [], (name, ex["title"], text)
        assert not fields & set(re.findall(r"[A-Za-z_]+", text)), (name, ex["title"], text)
    assert "牌例明细" in block


def test_every_parameter_of_every_ruling_has_a_label_and_every_ruling_a_situation():
    for ruling in RULINGS:
        assert ruling.name in t.SITUATIONS, ruling.name
        for param in inspect.signature(ruling.function).parameters:
            assert code_words(bridge_fields.label(ruling.name, param)) == [], (ruling.name, param)


VALUE_FITS = {   # what a worked example's value of each kind of field looks like
    "seat": lambda v: v in "NESW", "suit": lambda v: v in ("S", "H", "D", "C"),
    "trump": lambda v: v in ("S", "H", "D", "C", "NT", None), "led": lambda v: v in ("S", "H", "D", "C", None),
    "suits": lambda v: isinstance(v, list) and all(s in ("S", "H", "D", "C") for s in v),
    "card": lambda v: isinstance(v, str) and 2 <= len(v) <= 3,
    "cards": lambda v: isinstance(v, list) and all(isinstance(c, str) and 2 <= len(c) <= 3 for c in v),
    "call": lambda v: isinstance(v, str) and re.fullmatch(r"[1-7](?:[SHDC]|NT)|P|X|XX", v) is not None,
    "word": lambda v: isinstance(v, str), "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "ints": lambda v: isinstance(v, list) and all(isinstance(n, int) for n in v),
    "bool": lambda v: isinstance(v, bool), "events": lambda v: isinstance(v, list) and all(isinstance(e, dict) for e in v),
}


def test_every_field_has_a_kind_and_every_example_value_fits_it():
    """The helper's form asks for each field by its kind (a list of seats, a card, a flag …): every
    field of every ruling has one, and every worked example's value is of that kind."""
    for ruling in RULINGS:
        for key, _ in bridge_fields.fields(ruling.name):
            k = bridge_fields.kind(ruling.name, key)
            assert k in VALUE_FITS or k == "choice", (ruling.name, key, k)
    seen = set()
    for ex in BRIDGE:
        for key, value in ex["input"].items():
            k = bridge_fields.kind(ex["function"], key)
            seen.add(k)
            if k == "choice":
                assert value in bridge_fields.words_of(ex["function"], key), (ex["title"], key, value)
            else:
                assert VALUE_FITS[k](value), (ex["title"], key, k, value)
    assert seen == set(VALUE_FITS) | {"choice"}
    # a field's kind is its ruling's: call_out_of_rotation's turn is a seat, not penalty_card_obligations' turn
    assert bridge_fields.kind("call_out_of_rotation", "turn") == "seat"
    assert bridge_fields.kind("penalty_card_obligations", "turn") == "choice"
    assert bridge_fields.kind("designate", "call") == "word" and bridge_fields.kind("call_out_of_rotation", "call") == "call"
    asked = {f["name"]: f for f in bridge_fields.form("call_out_of_rotation", [])}
    assert asked["turn"]["choices"][0] == ["N", "北家"] and asked["call"]["json"].startswith("叫牌，如")
    assert asked["conventional"] == {"name": "conventional", "label": "越序叫牌为约定叫牌", "kind": "bool",
                                     "optional": True, "default": False, "json": "true 或 false"}
    assert asked["call"]["hint"].startswith("如 1H") and asked["call"]["json"].startswith("叫牌，如 \"1H\"")


def test_new_rulings_read_for_a_director():
    def situation(title: str) -> str:
        return sections(t.block(next(ex for ex in BRIDGE if ex["title"] == title)))["情形"]

    assert situation("更正为同一名目的最低足够叫牌：继续叫牌，不判罚") == \
        "前一叫品为1黑桃，违规者接着叫1红心（不足叫牌）；下家没有接受，违规者更正为2红心。"
    assert situation("于上家叫牌时越序加倍，上家不叫：重复加倍，不判罚") == \
        "应轮到北家（东家的上家）叫牌，东家越序加倍；随后北家不叫。"
    assert "东家（防家）越序牌面向上引出♥K" in situation("越序首引，庄家摊牌成为明手")
    assert "庄家却从明手（北家）引出♣Q" in situation("庄家从错误方位引牌，被要求收回：从正确方位引牌")
    assert "东家手中有 ♠A ♣3，没有红心" in situation("同伴无引牌花色，无法履行：可打任何牌")
    assert situation("下一墩后发现多打一张，无法确定暴露哪张：留最大的合法牌") == \
        "第4墩引出梅花，一家对该墩打出了两张牌 ♣Q ♣4，双方均已对下一墩出牌后被指出。"
    assert "罚则要求他引出红心；他引出了♠A" in situation("庄家要求引红心，他有红心却引黑桃，构成藏牌")
    hant = to_hant(situation("庄家从错误方位引牌，被要求收回：从正确方位引牌"))
    assert "莊家卻從明手（北家）引出♣Q" in hant


def test_the_details_table_words_calls_seats_and_choices():
    ex = next(ex for ex in BRIDGE if ex["function"] == "call_out_of_rotation" and ex["input"].get("rho_next_call"))
    block = t.block(ex)
    assert "| 越序叫牌者 | 南家 |" in block and "| 应轮到叫牌的一家 | 东家 |" in block
    assert "| 越序的叫牌 | 1黑桃 |" in block
    ex = next(ex for ex in BRIDGE if ex["function"] == "lead_out_of_turn" and ex["input"].get("choice") == "withdraw")
    assert "| 非违规方的选择 | 要求收回 |" in t.block(ex)
    ex = next(ex for ex in BRIDGE if ex["function"] == "is_revoke" and ex["input"].get("led_suit", "") is None)
    assert "| 本墩引牌花色 | 无（他引牌） |" in t.block(ex)


def test_an_unknown_value_or_a_cli_pointer_never_reaches_a_page():
    ex = next(ex for ex in BRIDGE if ex["function"] == "simultaneous_play")
    with pytest.raises(KbError, match="kind"):
        t.block({**ex, "input": {**ex["input"], "kind": "three_players"}})
    assert t.bridge_ruling("应用第67条（58B4）——请用 defective-trick 判定。") == "应用第67条（58B4）。"
    assert t.bridge_ruling("应用第31条（27C）。请用 call-out-of-rotation 判定。") == "应用第31条（27C）。"


def test_a_reading_says_a_field_once():
    """patterns.tsv glosses a field by its label (dealer_streak（庄家连庄次数）): the field becomes its
    label, and the gloss, which would now repeat it, goes; another gloss stays."""
    block = t.reading_block({"reading": "N 取 dealer_streak（庄家连庄次数）；dealer 为 true（含自摸）"})
    assert "「庄家连庄次数」；" in block and "（庄家连庄次数）" not in block
    assert "「胡牌者是庄家」成立（含自摸）" in block


def test_robbing_a_kong_is_told_as_the_added_tile_not_a_discard():
    """抢杠 wins the tile another player adds to his 碰: the situation does not call it a discard."""
    ex = next(e for e in MAHJONG if e["title"].startswith("抢杠"))
    said = t.mahjong_situation(ex["hand"])
    assert "抢他人加杠的四索" in said and "打出" not in said, said


def test_every_choice_field_offers_exactly_the_codes_its_ruling_takes():
    """The form's lists and the guide offer each ruling's codes from the site's words
    (kb/rules/bridge/fields.py); the ruling itself names the codes it takes when given another (in a
    worked example's situation that reaches the field). A code the rules take but the site does not
    word would be missing from the form unseen."""
    checked = 0
    for ruling in RULINGS:
        inputs = [ex["input"] for ex in BRIDGE if ex["function"] == ruling.name]
        for key, _ in bridge_fields.fields(ruling.name):
            if bridge_fields.kind(ruling.name, key) != "choice":
                continue
            told = []
            for given in inputs:
                try:
                    ruling.function(**{**given, key: "__none__"})
                except KbError as exc:
                    told.append(str(exc))
            named = [m for m in told if m.startswith(f"{key}: 应为 ")]
            assert named, (ruling.name, key, told[:2])
            taken = set(named[0].split("应为 ", 1)[1].split(" 之一")[0].split("、"))
            assert taken == set(bridge_fields.words_of(ruling.name, key) or {}), (ruling.name, key, taken)
            checked += 1
    assert checked >= 10
