"""Tests for kb.rules.mahjong: 台湾十六张麻将计台 (twmj16 计台名堂 1–36)."""
from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.core.errors import KbError
from kb.rules.mahjong import hand as mahjong
from kb.rules.mahjong.cli import main
from kb.rules.mahjong.examples import check_examples, known_clauses, load_examples
from kb.rules.mahjong.hand import clause, parse_hand
from kb.rules.mahjong.patterns import PATTERNS
from kb.rules.mahjong.scoring import EXCLUSIONS, INTERPRETATIONS, score
from kb.rules.mahjong.tiles import TILES, chow_tiles, expand

ALL8 = [f"f{i}" for i in range(1, 9)]
NOWIN = "1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s 7s 9s E S W"


def H(conc: str, win: str, melds: tuple[tuple[str, str], ...] = (), **kw: Any) -> dict[str, Any]:
    """A hand dict from compact tile text."""
    hand: dict[str, Any] = {"concealed": expand(conc), "winning_tile": win,
                            "melds": [{"type": t, "tiles": expand(x)} for t, x in melds]}
    hand.update(kw)
    return hand


# 吃 123m; 456m 789p 23s+4s 567s 55p: waits 1s/4s, nothing else scores
PLAIN = dict(conc="456m 789p 234s 567s 55p", win="4s", melds=(("chi", "123m"),))
PLAIN_PON = dict(conc="456m 789p 234s 567s 55p", win="4s", melds=(("pon", "222m"),))
MQ = dict(conc="123m 456m 789m 234p 567s EE", win="4p")          # 门清, pair of 东, waits 1p/4p
FIVE_OPEN = (("chi", "123m"), ("chi", "456m"), ("pon", "999p"), ("chi", "234s"), ("chi", "678s"))
HONOR_XSX = dict(conc="EEE CCC FFF PP", win="F", melds=(("pon", "SSS"), ("pon", "WWW")))


def names(result: dict[str, Any]) -> list[str]:
    return [i["name"] for i in result["items"]]


def clauses(result: dict[str, Any]) -> set[str]:
    return {i["clause"] for i in result["items"]}


def excluded(result: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["why"] for e in result["excluded"]}


# --------------------------------------------------------------------------- the 36 patterns

CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "1": (H("123m 456m 789p 234s 55p", "4s", (("pon", "EEE"),)),
          H("123m 456m 789p 234s 55p", "4s", (("pon", "NNN"),))),
    "2": (H("123m 456m 789p 234s 55p", "4s", (("pon", "CCC"),)),
          H("123m 456m 789p 234s CC", "4s", (("pon", "555p"),))),
    "3": (H(**MQ), H("456m 789m 234p 567s EE", "4p", (("chi", "123m"),))),
    "4": (H(**MQ, self_drawn=True), H(**PLAIN, self_drawn=True)),
    "5": (H("EE", "E", FIVE_OPEN), H("EE", "E", FIVE_OPEN[:4] + (("ankan", "9999s"),))),
    "6": (H("EE", "E", FIVE_OPEN, self_drawn=True), H("EE", "E", FIVE_OPEN)),
    "7": (H("456m 789m 234p 567s 99s", "4p", (("chi", "123m"),)),
          H("456m 789m 234p 567s 99s", "4p", (("chi", "123m"),), self_drawn=True)),
    "8": (H("555s 777s 333m 22p", "3m", (("pon", "111m"), ("pon", "999p"))),
          H("555s 777s 333m 22p", "3m", (("pon", "111m"), ("chi", "789p")))),
    "9": (H(**PLAIN_PON, dealer=True), H(**PLAIN_PON)),
    "10": (H(**PLAIN_PON, dealer=True, dealer_streak=2), H(**PLAIN_PON, dealer_streak=2)),
    "11": (H("456m 789p 234s 567s 55p", "5p", (("pon", "222m"),)), H(**PLAIN_PON)),
    "12": (H(**PLAIN_PON, robbing_kan=True), H(**PLAIN_PON)),
    "13": (H(**HONOR_XSX), H("EEE CCC FFF PP", "F", (("pon", "SSS"), ("pon", "111m")))),
    "14": (H("456s 789s 234s 678s 55s", "2s", (("pon", "111s"),)),
           H("456s 789s 234s 678s EE", "2s", (("pon", "111s"),))),
    "15": (H("456s 789s 234s 678s EE", "2s", (("pon", "111s"),)),
           H("456s 789s 234s 678s 55s", "2s", (("pon", "111s"),))),
    "16": (H("111m 555p 999s 234s 66m", "4s", (("chi", "789m"),)),
           H("111m 555p 345s 234s 66m", "4s", (("chi", "789m"),))),
    "17": (H("555p 777p 999s 222s 66m", "2s", (("chi", "123m"),), self_drawn=True),
           H("555p 777p 999s 222s 66m", "2s", (("chi", "123m"),))),
    "18": (H("111m 555p 777p 999s 222s 66m", "2s", self_drawn=True),
           H("111m 555p 777p 999s 222s 66m", "2s")),
    "19": (H("WWW NNN 234m 55p", "4m", (("pon", "EEE"), ("pon", "SSS"))),
           H("WWW NN 234m 567p", "4m", (("pon", "EEE"), ("pon", "SSS")))),
    "20": (H("WWW NN 234m 567p", "4m", (("pon", "EEE"), ("pon", "SSS"))),
           H("WWW 55p 234m 567p", "4m", (("pon", "EEE"), ("pon", "SSS")))),
    "21": (H("PPP 234m 567p 99s", "4m", (("pon", "CCC"), ("pon", "FFF"))),
           H("PP 234m 567p 789s", "4m", (("pon", "CCC"), ("pon", "FFF")))),
    "22": (H("PP 234m 567p 789s", "4m", (("pon", "CCC"), ("pon", "FFF"))),
           H("99s 234m 567p 789s", "4m", (("pon", "CCC"), ("pon", "FFF")))),
    "23": (H(**PLAIN, self_drawn=True), H(**PLAIN)),
    # 杠上开花 needs a replacement tile: a kong's or a flower's (one flower in both, so only 24 differs)
    "24": (H(**PLAIN, self_drawn=True, after_kan=True, flowers=["f1"]), H(**PLAIN, self_drawn=True, flowers=["f1"])),
    "25": (H(**PLAIN, self_drawn=True, last_tile=True), H(**PLAIN, self_drawn=True)),
    "26": (H(**PLAIN, flowers=["f1"]), H(**PLAIN, flowers=["f2"])),
    "27": (H(NOWIN, "W", flowers=ALL8, flower_win="八仙过海"), H(**PLAIN, flowers=ALL8)),
    "28": (H(NOWIN, "W", flowers=ALL8, flower_win="八仙过海", at_deal=True),
           H(NOWIN, "W", flowers=ALL8, flower_win="八仙过海")),
    "29": (H(NOWIN, "W", flowers=ALL8, flower_win="八仙过海"), H(NOWIN, "W", flowers=ALL8, flower_win="七抢一")),
    "30.1": (H(NOWIN, "W", flowers=ALL8, flower_win="七抢一"), H(NOWIN, "W", flowers=ALL8, flower_win="八仙过海")),
    "30.2": (H(NOWIN, "W", flowers=ALL8, flower_win="七抢一", rob_case=2),
             H(NOWIN, "W", flowers=ALL8, flower_win="七抢一", rob_case=1)),
    "31": (H(**MQ, declared="天听"), H(**MQ, declared="地听")),
    "32": (H(**MQ, declared="地听"), H(**MQ)),
    "33": (H(**MQ, timing="天胡", dealer=True, self_drawn=True), H(**MQ, dealer=True, self_drawn=True)),
    "34": (H(**MQ, timing="地胡"), H(**MQ)),
    "35": (H(**MQ, timing="人胡", declared="地听"), H(**MQ, declared="地听")),
    "36": (H("11m 22m 55p 66p 99s 33s EE 777m", "7m"),
           H("11m 22m 33m 44m 55m 66m 77m 888m", "8m", lilgu=False)),
}


def test_cases_cover_all_36_patterns() -> None:
    covered = {n.split(".")[0] for n in CASES}
    assert covered == {str(p.number) for p in PATTERNS} == {str(n) for n in range(1, 37)}


@pytest.mark.parametrize("number", list(CASES))
def test_pattern_hit_and_near_miss(number: str) -> None:
    hit, miss = CASES[number]
    judged = score(hit)      # 花胡 (27) is judged, then counted through its form (29/30): listed as excluded
    assert clause(number) in clauses(judged) | {e["clause"] for e in judged["excluded"]}
    assert clause(number) not in clauses(score(miss))


def test_patterns_cite_clauses() -> None:
    assert [p.number for p in PATTERNS] == list(range(1, 37))
    for p in PATTERNS:
        assert p.clause == f"twmj16:patterns.{p.number}"
        assert p.name and callable(p.award)
    for rule in EXCLUSIONS:
        assert rule.clause in known_clauses()


def test_interpretations_cite_known_clauses() -> None:
    assert len(INTERPRETATIONS) >= 10
    for reading in INTERPRETATIONS:
        assert reading["clause"] in known_clauses()
        assert reading["reading"].endswith("。")
    assert any(r["clause"] == clause(2) for r in INTERPRETATIONS)


# --------------------------------------------------------------------------- values and exclusions

def test_wind_pung_seat_and_round() -> None:
    base = ("123m 456m 789p 234s 55p", "4s")
    assert score(H(*base, (("pon", "EEE"),)))["total"] == 2              # 门风东 + 圈风东
    assert score(H(*base, (("pon", "SSS"),), seat=2))["total"] == 1      # 开门序 2 = 南
    assert score(H(*base, (("pon", "WWW"),), round_wind="W"))["total"] == 1  # 只合圈序
    assert score(H(*base, (("pon", "NNN"),)))["total"] == 0


def test_menqing_yimosan() -> None:
    r = score(H(**MQ, self_drawn=True))
    assert r["total"] == 3 and names(r) == ["门清", "不求·自摸"]
    assert "自摸" in excluded(r)


def test_ziyise_not_duiduihu_and_minus_four() -> None:
    r = score(H(**HONOR_XSX))
    assert "对对胡" in excluded(r) and "字一色" in excluded(r)["对对胡"]
    assert "字一色并存减台" in names(r)
    assert r["total"] == 2 + 16 - 4 + 4
    big = score(H("EEE SSS CCC FF", "C", (("pon", "WWW"), ("pon", "NNN"))))
    assert big["total"] == 16 + 16 - 4 + 1
    assert Counter(names(big)) == Counter(["字一色", "字一色并存减台", "大四喜", "箭字坎"])


def test_five_concealed_pungs_not_menqing_nor_duiduihu() -> None:
    r = score(H("111m 555p 777p 999s 222s 66m", "6m"))
    assert "五暗坎" in names(r) and {"门清", "对对胡"} <= set(excluded(r))
    assert r["total"] == 13 + 1                     # + 独听
    drawn = score(H("111m 555p 777p 999s 222s 66m", "2s", self_drawn=True))
    assert drawn["total"] == 13 + 2 and "不求·自摸" in names(drawn)


def test_tianhu_not_menqing_yimosan() -> None:
    r = score(H(**MQ, timing="天胡", dealer=True, self_drawn=True))
    assert {"门清", "不求·自摸", "自摸"} <= set(excluded(r))
    assert r["total"] == 16 + 1


def test_dasanyuan_not_dragon_pungs() -> None:
    r = score(CASES["21"][0])
    assert r["total"] == 8 and "箭字坎" not in names(r)
    assert sum(1 for e in r["excluded"] if e["name"] == "箭字坎") == 3


def test_quanqiu_plus_dutin() -> None:
    r = score(H("EE", "E", FIVE_OPEN))
    assert names(r) == ["全求", "独听"] and r["total"] == 3
    half = score(H("EE", "E", FIVE_OPEN, self_drawn=True))
    assert Counter(names(half)) == Counter(["半求", "独听", "自摸"]) and half["total"] == 3


@pytest.mark.parametrize("hand", [
    H("456m 789m 234p 567s EE", "4p", (("chi", "123m"),)),                    # 字 as the pair
    H("456m 789m 234p 567s 99s", "4p", (("chi", "123m"),), flowers=["f2"]),    # a flower
    H("456m 789m 234p 567s 99s", "4p", (("pon", "111m"),)),                    # a pung
    H("456m 789m 234p 567s 99s", "3p", (("chi", "123m"),)),                    # 卡张: 独听
    H("456m 789m 234p 567s 99s", "4p", (("chi", "123m"),), self_drawn=True),   # 自摸
], ids=["honor", "flower", "pung", "single-wait", "self-drawn"])
def test_pinghu_conditions(hand: dict[str, Any]) -> None:
    assert "平胡" not in names(score(hand))


def test_pinghu_with_menqing() -> None:
    r = score(H("123m 456m 789m 234p 567s 99s", "4p"))
    assert names(r) == ["门清", "平胡"] and r["total"] == 3


def test_flowers_by_seat_flower_kong_and_all_eight() -> None:
    two = H(**PLAIN, flowers=["f2", "f6"])
    assert score(two)["total"] == 0
    assert score({**two, "seat": 2})["total"] == 2
    kong = score(H(**PLAIN, flowers=["f5", "f6", "f7", "f8", "f1"]))
    assert Counter(names(kong)) == Counter(["花杠", "花牌"]) and kong["total"] == 3
    full = score(H(**PLAIN, flowers=ALL8))
    assert names(full) == ["满花"] and full["total"] == 8


def test_flower_win_counts_hand_only_on_kong_replacement() -> None:
    plain = H(**PLAIN, flowers=ALL8, flower_win="八仙过海", self_drawn=True)
    assert score(plain)["total"] == 8 and score(plain)["form"].startswith("花胡")
    kong = score({**plain, "after_kan": True})
    assert kong["total"] == 8 + 2 and "满花" in excluded(kong)
    assert clause("30.2") in clauses(score(H(NOWIN, "W", flowers=ALL8, flower_win="七抢一", rob_case=2)))


def test_dealer_and_streak() -> None:
    assert score(H(**PLAIN_PON, dealer=True, dealer_streak=2))["total"] == 1 + 4
    r = score(H(**PLAIN_PON, from_dealer=True, dealer_streak=1))
    assert names(r) == ["作庄", "连1拉1"] and r["total"] == 3


def test_declarations() -> None:
    assert score(H(**MQ, declared="天听", self_drawn=True))["total"] == 8 + 2
    r = score(H(**MQ, timing="地胡", declared="天听", self_drawn=True))
    assert r["total"] == 16 + 2 and {"天听", "门清"} <= set(excluded(r))
    assert score(H(**MQ, timing="人胡", declared="地听"))["total"] == 8


def test_lilgu_with_honor_pung_and_one_suit() -> None:
    r = score(H("11s 22s 44s 55s 77s 88s 99s EEE", "E"))
    assert r["form"] == "呖咕呖咕"
    assert Counter(names(r)) == Counter(["风字坎", "凑一色", "呖咕呖咕（选用）"]) and r["total"] == 14
    with pytest.raises(KbError, match="不成胡"):
        score(H("11s 22s 44s 55s 77s 88s 99s EEE", "E", lilgu=False))


# --------------------------------------------------------------------------- decomposition and waits

def test_decomposition_takes_higher_score() -> None:
    r = score(H("111m 222m 333m 456p 789p 77s", "7s", self_drawn=True))
    assert "三暗坎" in names(r) and r["total"] == 1 + 2 + 1 + 2
    kinds = Counter(g["kind"] for g in r["groups"])
    assert kinds["坎"] == 3


def test_winning_discard_placed_to_keep_concealed_pung() -> None:
    r = score(H("1111m 23m 555p 777p 999s 66s", "1m"))
    assert "四暗坎" in names(r) and r["total"] == 1 + 5


def test_discard_completes_exposed_pung() -> None:
    drawn = score(H("111s 555s 777s 99m", "7s", (("pon", "222m"), ("pon", "444p")), self_drawn=True))
    won = score(H("111s 555s 777s 99m", "7s", (("pon", "222m"), ("pon", "444p"))))
    assert "三暗坎" in names(drawn) and "三暗坎" not in names(won)
    assert drawn["total"] == 4 + 2 + 1 and won["total"] == 4


@pytest.mark.parametrize("hand, waits", [
    (H(**PLAIN), ["1s", "4s"]),
    (H("456m 789p 678m 123s 33s", "3s", (("pon", "222m"),)), ["3s"]),       # 单钓 = 边张: 一洞
    (H("456m 789m 123s 33345p", "5p", (("pon", "EEE"),)), ["2p", "4p", "5p"]),
    (H("456m 789m 123s 33345p", "5p", (("ankan", "2222p"),)), ["4p", "5p"]),  # 2p: all four held
    (H("123m 456m 789m 234p 567s 55p", "5p"), ["2p", "5p"]),
])
def test_waits(hand: dict[str, Any], waits: list[str]) -> None:
    r = score(hand)
    assert r["waits"] == waits
    assert ("独听" in names(r)) == (len(waits) == 1)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("hand, needle", [
    ([], "JSON 对象"),
    (H(**PLAIN) | {"concealed": expand("456m 789p 234s 567s 5p")}, "16"),
    (H(**PLAIN) | {"concealed": expand("456m 789p 234s 567s 55p 11s")}, "19"),
    (H(**PLAIN) | {"concealed": expand("456m 789p 234s 567s 5p") + ["0m"]}, "'0m'"),
    (H(**PLAIN) | {"concealed": expand("456m 789p 234s 567s 5p") + ["Z"]}, "'Z'"),
    (H(**PLAIN) | {"concealed": expand("456m 789p 234s 567s 5p") + ["f1"]}, "flowers"),
    (H(**PLAIN) | {"winning_tile": "10s"}, "'10s'"),
    (H("11111m 234p 567s 9s 55p", "1m", (("chi", "123m"),)), "1m"),
    (H("1111m 234p 567s 99s 55p", "5p", (("ankan", "1111m"),)), "1m"),
    (H(NOWIN, "W"), "not a winning hand"),
    (H(**PLAIN) | {"seat": 5}, "seat"),
    (H(**PLAIN) | {"seat": "1"}, "seat"),
    (H(**PLAIN) | {"seat": True}, "seat"),
    (H(**PLAIN) | {"self_drawn": "yes"}, "self_drawn"),
    (H(**PLAIN) | {"round_wind": "X"}, "round_wind"),
    (H(**PLAIN) | {"declared": "听"}, "declared"),
    (H(**PLAIN) | {"dealer_streak": -1}, "dealer_streak"),
    (H(**PLAIN) | {"rob_case": 1.0}, "rob_case"),
    (H(**PLAIN) | {"colour": "red"}, "colour"),
    (H(**PLAIN) | {"melds": "123m"}, "melds"),
    (H(**PLAIN) | {"melds": [{"type": "gang", "tiles": expand("123m")}]}, "melds[0].type"),
    (H(**PLAIN) | {"melds": [{"type": "chi", "tiles": expand("124m")}]}, "melds[0].tiles"),
    (H(**PLAIN) | {"melds": [{"type": "kan", "tiles": expand("111m")}]}, "melds[0].tiles"),
    (H(**PLAIN) | {"flowers": ["f9"]}, "flowers[0]"),
    (H(**PLAIN) | {"flowers": ["f1", "f1"]}, "flowers"),
    (H(**PLAIN) | {"winning_tile": "9s"}, "winning_tile"),
    ({"concealed": expand("456m 789p 234s 567s 55p")}, "winning_tile"),
    (H(**PLAIN, after_kan=True), "after_kan"),
    (H(**PLAIN, robbing_kan=True, self_drawn=True), "robbing_kan"),
    (H(**PLAIN, dealer=True, from_dealer=True), "from_dealer"),
    (H(**PLAIN, declared="地听"), "declared"),
    (H(**MQ, declared="天听", dealer=True), "declared"),
    (H(**MQ, timing="天胡"), "timing"),
    (H(**MQ, timing="人胡"), "timing"),
    (H(NOWIN, "W", flowers=ALL8[:7], flower_win="八仙过海"), "flower_win"),
    (H(NOWIN, "W", flowers=ALL8, flower_win="八仙过海", rob_case=2), "rob_case"),
])
def test_bad_input_is_one_line_kberror(hand: Any, needle: str) -> None:
    with pytest.raises(KbError) as info:
        score(hand)
    message = str(info.value)
    assert needle in message and "\n" not in message and " / " in message


def test_wrong_count_message_is_bilingual() -> None:
    with pytest.raises(KbError, match=r"牌数不对：16 张.* / wrong tile count: 16"):
        score(H(**PLAIN) | {"concealed": expand("456m 789p 234s 567s 5p")})


def test_parse_hand_defaults() -> None:
    h = parse_hand(H(**MQ))
    assert (h.seat, h.round_wind, h.self_drawn, h.lilgu, h.seat_wind) == (1, "E", False, True, "E")


# --------------------------------------------------------------------------- examples

def test_examples_all_pass_and_cover_every_pattern() -> None:
    results = check_examples()
    assert len(results) >= 40
    scored = {i["clause"] for ex in results for i in ex["result"]["items"] + ex["result"]["excluded"]
              if ex["clause"] == i["clause"]}
    for n in range(1, 37):
        wanted = {clause("30.1"), clause("30.2")} if n == 30 else {clause(n)}
        assert wanted <= scored, f"no example scores pattern {n}"
    titles = {ex["title"] for ex in results}
    assert any("门清一摸三" in t for t in titles) and any("连2拉2" in t for t in titles)
    assert any("大四喜" in t and "字一色" in t for t in titles) and any("三暗坎" in t and "对对胡" in t for t in titles)


def test_wrong_example_fails(tmp_path: Any) -> None:
    examples = load_examples()
    bad = [dict(examples[0], title="故意写错的例题", expect={"total": 99, "items": ["风字坎"]})]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(KbError, match="故意写错的例题"):
        check_examples(path)
    wrong_items = [dict(examples[0], title="项目不符", expect={"total": 2, "items": ["箭字坎"]})]
    path.write_text(json.dumps(wrong_items, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(KbError, match="项目不符"):
        check_examples(path)


@pytest.mark.parametrize("content, needle", [
    ("[{\"title\": \"缺项\"}]", "缺项"),
    ("not json", "JSON"),
    ("{}", "列表"),
])
def test_malformed_examples_fail(tmp_path: Any, content: str, needle: str) -> None:
    path = tmp_path / "ex.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(KbError, match=needle):
        check_examples(path)


def test_example_with_unknown_clause_or_bad_hand_fails(tmp_path: Any) -> None:
    ex = load_examples()[0]
    path = tmp_path / "ex.json"
    path.write_text(json.dumps([dict(ex, clause="twmj16:patterns.99")]), encoding="utf-8")
    with pytest.raises(KbError, match="patterns.99"):
        check_examples(path)
    path.write_text(json.dumps([dict(ex, title="坏手牌", hand={"concealed": []})], ensure_ascii=False), encoding="utf-8")
    with pytest.raises(KbError, match="坏手牌"):
        check_examples(path)


# --------------------------------------------------------------------------- command line

def test_cli_table_and_json(tmp_path: Any, capsys: Any) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(H(**HONOR_XSX)), encoding="utf-8")
    assert main(["score", str(path)]) == 0
    out = capsys.readouterr().out
    assert "字一色" in out and "twmj16:patterns.13" in out and "合计：18 台" in out and "不计" in out
    assert main(["score", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 18


def test_cli_accepts_leading_mahjong_word(tmp_path: Any, capsys: Any) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(H(**MQ)), encoding="utf-8")
    assert main(["mahjong", "score", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 1


def test_cli_stdin(monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(H(**MQ, self_drawn=True))))
    assert main(["score", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 3


@pytest.mark.parametrize("argv, content", [
    (["score", "{path}"], "{not json"),
    (["score", "{path}"], json.dumps(H(NOWIN, "W"))),
    (["score", "{path}"], json.dumps({"concealed": 3, "winning_tile": "1m"})),
    (["score", "/nonexistent/hand.json"], None),
    (["scor", "{path}"], "{}"),
    ([], None),
])
def test_cli_bad_input_one_line_exit_2(tmp_path: Any, capsys: Any, argv: list[str], content: str | None) -> None:
    path = tmp_path / "hand.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main([a.replace("{path}", str(path)) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err


# --------------------------------------------------------------------------- properties

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_result(result: dict[str, Any]) -> None:
    assert isinstance(result["total"], int) and result["total"] >= 0
    assert result["total"] == sum(i["tai"] for i in result["items"])
    assert {i["clause"] for i in result["items"]} <= known_clauses()


@FAST
@given(st.data())
def test_random_multisets_score_or_kberror(data: st.DataObject) -> None:
    tiles = data.draw(st.lists(st.sampled_from(TILES), min_size=17, max_size=17))
    hand = {"concealed": tiles, "winning_tile": data.draw(st.sampled_from(tiles)),
            "self_drawn": data.draw(st.booleans()), "seat": data.draw(st.integers(1, 4)),
            "round_wind": data.draw(st.sampled_from("ESWN")), "dealer": data.draw(st.booleans()),
            "flowers": data.draw(st.lists(st.sampled_from([f"f{i}" for i in range(1, 9)]), unique=True))}
    try:
        result = score(hand)
    except KbError as exc:
        assert "\n" not in str(exc)
        return
    _check_result(result)


_SETS = [("chow", f"{n}{s}") for s in "mps" for n in range(1, 8)] + [("pung", t) for t in TILES]


@FAST
@given(st.data())
def test_random_winning_hands_score(data: st.DataObject) -> None:
    sets = data.draw(st.lists(st.sampled_from(_SETS), min_size=5, max_size=5))
    pair = data.draw(st.sampled_from(TILES))
    n_melds = data.draw(st.integers(0, 5))
    melds, concealed = [], [pair, pair]
    for k, (kind, tile) in enumerate(sets):
        tiles = chow_tiles(tile) if kind == "chow" else [tile] * 3
        if k < n_melds:
            mtype = "chi" if kind == "chow" else data.draw(st.sampled_from(["pon", "kan", "ankan"]))
            melds.append({"type": mtype, "tiles": tiles + ([tile] if mtype in ("kan", "ankan") else [])})
        else:
            concealed += tiles
    hand = {"concealed": concealed, "melds": melds, "winning_tile": data.draw(st.sampled_from(concealed)),
            "self_drawn": data.draw(st.booleans())}
    if max(Counter(concealed + [t for m in melds for t in m["tiles"]]).values()) > 4:
        with pytest.raises(KbError):
            score(hand)
        return
    result = score(hand)
    _check_result(result)
    assert len(result["waits"]) >= 1 and hand["winning_tile"] in result["waits"]


_JUNK = st.recursive(st.none() | st.booleans() | st.integers(-3, 20) | st.text(max_size=3)
                     | st.sampled_from(list(TILES) + ["f1", "天听", "七抢一", "chi", "ankan"]),
                     lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                     max_leaves=12)


@FAST
@given(st.dictionaries(st.sampled_from(sorted(mahjong.KNOWN_FIELDS)), _JUNK, max_size=8))
def test_junk_fields_only_raise_kberror(hand: dict[str, Any]) -> None:
    try:
        _check_result(score(hand))
    except KbError:
        pass


# --- who sits where: the winner's seat follows from who deals ---------------------------------

@pytest.mark.parametrize("dealer, wind", [("本家", "东"), ("上家", "南"), ("对家", "西"), ("下家", "北")])
def test_the_winners_seat_wind_follows_from_the_dealer(dealer, wind):
    """The dealer is 东 (开门序 1) and play runs to each one's 下家: a pung of the winner's own
    seat wind scores 1台 合开门序 whoever deals (the page once kept 东 whatever the dealer)."""
    from kb.rules.mahjong.notation import parse_line
    from kb.rules.mahjong.settlement import settle
    code = {"东": "1z", "南": "2z", "西": "3z", "北": "4z"}[wind]
    out = settle(parse_line(f"{code * 3}123m456p78s99s9s 吃234m 圈风东"), dealer, discarder="对家")
    winds = [i for i in out["score"]["items"] if i["clause"] == clause(1)]
    assert winds and winds[0]["detail"].startswith(f"{wind}坎：合开门序"), out["score"]["items"]


def test_a_seat_that_contradicts_the_dealer_is_one_line():
    from kb.rules.mahjong.notation import parse_line
    from kb.rules.mahjong.settlement import settle
    with pytest.raises(KbError, match="下家为庄家时，本家门风为北（开门序 4），手牌却写南（开门序 2）"):
        settle(parse_line("222z123m456p78s99s9s 吃234m 门风南"), "下家", discarder="对家")


@pytest.mark.parametrize("line, message", [
    ("123m 碰123s", "碰须为三张相同的牌（收到 一索 二索 三索）"),
    ("123m 吃135s", "吃须为三张同花色连续的牌（收到 一索 三索 五索）"),
    ("123m 杠777s", "杠须为四张相同的牌（收到 七索 七索 七索）"),
    ("123m456p 自模", "无法识别的牌「自」"),
])
def test_a_line_names_its_mistake_in_words(line, message):
    from kb.rules.mahjong.notation import parse_line
    with pytest.raises(KbError, match=message):
        parse_line(line)
