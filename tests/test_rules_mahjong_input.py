"""Mahjong: one-line notation, settlement (who pays whom) and the command line."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from kb.core.errors import KbError
from kb.rules.mahjong.cli import main
from kb.rules.mahjong.examples import check_settlements
from kb.rules.mahjong.notation import parse_line, tiles
from kb.rules.mahjong.scoring import score
from kb.rules.mahjong.settlement import settle

PLAIN = "123m456m789m234p678p55s"


@pytest.mark.parametrize("text, want", [
    ("123m", ["1m", "2m", "3m"]),
    ("11z77z", ["E", "E", "C", "C"]),
    ("5z6z7z", ["P", "F", "C"]),                       # 白 发 中
    ("一万九索五筒", ["1m", "9s", "5p"]),
    ("一萬九條東南西北中發白", ["1m", "9s", "E", "S", "W", "N", "C", "F", "P"]),
])
def test_tiles(text, want):
    assert tiles(text, "t") == want


@pytest.mark.parametrize("text, match", [
    ("123", "缺少花色"), ("8z", "1z–7z"), ("m", "前没有数字"), ("12x", "无法识别的牌「x」"), ("0m", "无法识别"),
])
def test_tiles_bad(text, match):
    with pytest.raises(KbError, match=match):
        tiles(text, "t")


def test_line_equals_json():
    line = parse_line("123m456p789s5566z6z 碰111s 自摸 门风南 连2 庄")
    assert line["melds"] == [{"type": "pon", "tiles": ["1s", "1s", "1s"]}]
    assert line["winning_tile"] == "F" and line["self_drawn"] and line["seat"] == 2
    assert line["dealer_streak"] == 2 and line["dealer"]
    as_json = {"concealed": ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "P", "P", "F", "F", "F"],
               "melds": [{"type": "pon", "tiles": ["1s"] * 3}], "winning_tile": "F", "self_drawn": True, "seat": 2,
               "dealer_streak": 2, "dealer": True, "flowers": []}
    assert score(line) == score(as_json)


def test_line_flowers_and_explicit_winning_tile():
    line = parse_line(f"{PLAIN} 花春梅 胡2p")
    assert line["flowers"] == ["f1", "f5"] and line["winning_tile"] == "2p"


@pytest.mark.parametrize("line, match", [
    ("", "没有暗牌"), (f"{PLAIN} {PLAIN}", "暗牌只能写一段"), (f"{PLAIN} 连x", "连N"), (f"{PLAIN} 门风中", "风位"),
    ("1" * 500 + "m", "过长"),
])
def test_line_bad(line, match):
    with pytest.raises(KbError, match=match):
        parse_line(line)


# ---------------------------------------------------------------- settlement

def pay(result):
    return [(p["payer"], p["di"], p["tai"]) for p in result["payments"]]


def test_discard_win_the_discarder_pays_alone():
    r = settle(parse_line(PLAIN), "下家", "对家")
    assert pay(r) == [("对家", 1, 2)] and "twmj16:deal-in" in r["clauses"]
    assert any("未明言" in s for s in r["silent"])


def test_dealer_discards_pays_dealer_tai():
    # 作庄「胡放皆加计1台」, 连N拉N「庄家连N闲家一律拉N」
    assert pay(settle(parse_line(PLAIN + " 连2"), "上家", "上家")) == [("上家", 1, 2 + 1 + 4)]


def test_self_drawn_three_pay_dealer_extra_only_between_dealer_and_winner():
    r = settle(parse_line(PLAIN + " 自摸 连1"), "对家")
    assert pay(r) == [("下家", 1, 4), ("对家", 1, 4 + 3), ("上家", 1, 4)]
    dealer_wins = settle(parse_line(PLAIN + " 自摸 连1"), "本家")
    assert {t for _, _, t in pay(dealer_wins)} == {4 + 3}


def test_streak_marker_collect_low_pay_high():
    # 连庄示记：所示低于实际 → 庄家胡牌以所示计收，放铳或他人自摸时以实际计付
    assert pay(settle(parse_line(PLAIN + " 连3"), "本家", "下家", streak_shown=1)) == [("下家", 1, 2 + 1 + 2)]
    assert pay(settle(parse_line(PLAIN + " 连3"), "下家", "下家", streak_shown=1)) == [("下家", 1, 2 + 1 + 6)]


@pytest.mark.parametrize("kw, match", [
    ({"dealer": "东家"}, "dealer"), ({"dealer": "下家"}, "discarder"),
    ({"dealer": "下家", "discarder": "本家"}, "discarder"), ({"dealer": "下家", "discarder": "下家", "streak_shown": 10**9},
                                                          "streak_shown"),
])
def test_settle_bad(kw, match):
    with pytest.raises(KbError, match=match):
        settle(parse_line(PLAIN), **kw)


def test_settlement_examples():
    done = check_settlements()
    assert len(done) >= 3 and any(ex.get("near_miss") for ex in done)


# ---------------------------------------------------------------- command line

def run(monkeypatch, capsys, argv, stdin=""):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_hand_option_and_stdin_line(monkeypatch, capsys):
    code, out, _ = run(monkeypatch, capsys, ["score", "--hand", PLAIN + " 自摸", "--json"])
    assert code == 0 and json.loads(out)["total"] == 4
    code, out, _ = run(monkeypatch, capsys, ["score", "-"], PLAIN + "\n")
    assert code == 0 and "合计：2 台" in out


def test_cli_settle(monkeypatch, capsys):
    code, out, _ = run(monkeypatch, capsys, ["settle", "-"], json.dumps({"hand": PLAIN, "dealer": "下家",
                                                                         "discarder": "对家"}))
    assert code == 0 and "对家付 1 底 2 台" in out and "条文未定" in out


@pytest.mark.parametrize("argv, stdin", [
    (["score", "-"], "123m\n456m\n"), (["score", "--hand", "123x"], ""), (["score"], ""),
    (["score", "-"], '{"concealed": ' + "1" * 5000 + "}"), (["settle", "-"], '{"hand": "123m"}'),
])
def test_cli_bad_one_line(monkeypatch, capsys, argv, stdin):
    code, out, err = run(monkeypatch, capsys, argv, stdin)
    assert code == 2 and not out and err.count("\n") == 1 and "Traceback" not in err


def test_help_documents_the_notation():
    out = subprocess.run([sys.executable, "-m", "kb.app.cli", "mahjong", "score", "--help"], capture_output=True,
                         text=True).stdout
    assert "123m456p789s11z" in out and "一万" in out and "东 南 西 北" in out
    from kb.rules.mahjong.notation import SITUATIONS
    assert all(word in out for word in SITUATIONS)              # every situation the line takes


def test_kb_rules_list_json():
    out = subprocess.run([sys.executable, "-m", "kb.app.cli", "rules", "list", "--json"], capture_output=True, text=True)
    data = json.loads(out.stdout)
    assert out.returncode == 0 and any(e["command"] == "kb bridge insufficient-bid" and "cbr1999:27B1a" in e["clauses"]
                                       for e in data)


def test_eight_immortals_three_pay_even_without_self_drawn():
    # patterns.29「取得全部8张花牌时，应补牌并胡牌，三家赔付，计八仙过海8台1底」
    hand = {"concealed": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s 7s 9s E S W".split(), "winning_tile": "W",
            "flowers": [f"f{i}" for i in range(1, 9)], "flower_win": "八仙过海"}
    assert pay(settle(hand, "下家")) == [("下家", 1, 9), ("对家", 1, 8), ("上家", 1, 8)]
    with pytest.raises(KbError, match="没有放铳者"):
        settle(hand, "下家", "对家")


def test_line_names_every_situation_in_either_script():
    """天听 … 七抢一, 配牌: the situations the JSON hand has, typed as players say them."""
    from kb.rules.mahjong.notation import SITUATIONS
    assert parse_line(f"{PLAIN} 天胡")["timing"] == "天胡"
    assert parse_line(f"{PLAIN} 地聽 人胡").items() >= {"declared": "地听", "timing": "人胡"}.items()
    assert parse_line(f"{PLAIN} 八仙過海 配牌").items() >= {"flower_win": "八仙过海", "at_deal": True}.items()
    assert parse_line(f"{PLAIN} 七搶一")["flower_win"] == "七抢一"
    for word in SITUATIONS:
        parse_line(f"{PLAIN} {word}")          # every word the calculator offers is one the line takes


@pytest.mark.parametrize("extra, match", [
    ("自摸 杠上", "杠上开花须有杠或花牌"),            # no kong, no flower: no replacement tile was drawn
    ("抢杠 自摸", "抢杠胡不能是自摸"),
])
def test_impossible_situations_are_told_in_words(extra, match):
    with pytest.raises(KbError, match=match) as err:
        settle(parse_line(f"{PLAIN} {extra}"), "下家", None if "自摸" in extra else "对家")
    assert "after_kan" not in str(err.value).split(" / ")[0] and "self_drawn" not in str(err.value).split(" / ")[0]


def test_dealer_clauses_are_cited_only_when_a_payment_counts_them():
    """作庄 (patterns.9) when the dealer's side pays or wins; 连庄 (patterns.10) only with a streak counted."""
    alone = settle(parse_line(PLAIN), "下家", "对家")          # 对家 discards, 下家 deals: no dealer side
    assert "twmj16:patterns.9" not in alone["clauses"] and "twmj16:patterns.10" not in alone["clauses"]
    dealer_pays = settle(parse_line(PLAIN), "对家", "对家")
    assert "twmj16:patterns.9" in dealer_pays["clauses"] and "twmj16:patterns.10" not in dealer_pays["clauses"]
    streak = settle(parse_line(f"{PLAIN} 连2"), "对家", "对家")
    assert {"twmj16:patterns.9", "twmj16:patterns.10"} <= set(streak["clauses"])


# --- issue #37: the winning tile apart (胡X), the last discard (河底), a dealer not given ----------------

def test_winning_tile_apart_is_added_to_the_concealed_tiles():
    """What a player types: the 16 tiles before the win, and 胡X for the tile that won."""
    apart = parse_line("123m456p789s5566z 胡6z 碰111s 自摸")
    written = parse_line("123m456p789s5566z6z 碰111s 自摸")
    assert apart == written and apart["winning_tile"] == "F"
    assert score(apart) == score(written)
    # 17 tiles and 胡X: the tile named is one of them (胡5z: won on 白, not on the last-written 发)
    named = parse_line("123m456p789s5566z6z 胡5z 碰111s")
    assert named["winning_tile"] == "P" and len(named["concealed"]) == 14


@pytest.mark.parametrize("line", ["123m456p789s556z 胡6z 碰111s", "123m456p789s5566z66z 胡6z 碰111s"])
def test_winning_tile_apart_with_a_wrong_count_says_what_to_write(line):
    with pytest.raises(KbError, match=r"牌数不对：胡发之外有 1[58] 张.*写 胡X 时，暗牌与副露写胡牌前的 16 张"):
        parse_line(line)


def test_help_examples_score_as_written():
    """Every example line of --help is read as the help says (the 胡X one too)."""
    import re

    from kb.rules.mahjong.cli import NOTATION_HELP
    examples = re.findall(r'--hand "([^"]+)"', NOTATION_HELP)
    assert len(examples) >= 2 and any("胡" in e for e in examples)
    assert "胡X（胡的那张，并入暗牌）" in NOTATION_HELP
    totals = {score(parse_line(e))["total"] for e in examples}
    assert len(totals) == 1           # the same hand, written both ways


def test_a_win_on_the_last_discard_is_scored_without_tai_for_it(monkeypatch, capsys):
    """河底 (the last tile, discarded): a hand like any other; 海底捞月 is for the drawn tile only."""
    result = settle(parse_line(f"{PLAIN} 海底"), "下家", "对家")
    plain = settle(parse_line(PLAIN), "下家", "对家")
    assert result["payments"] == plain["payments"]
    assert not any(i["clause"] == "twmj16:patterns.25" for i in result["score"]["items"])
    said = [e for e in result["score"]["excluded"] if e["clause"] == "twmj16:patterns.25"]
    assert len(said) == 1 and "河底" in said[0]["why"] and "不另计台" in said[0]["why"]
    drawn = score(parse_line(f"{PLAIN} 海底 自摸"))
    assert any(i["clause"] == "twmj16:patterns.25" for i in drawn["items"])
    assert not any(e["clause"] == "twmj16:patterns.25" for e in drawn["excluded"])
    code, out, err = run(monkeypatch, capsys, ["score", "--hand", f"{PLAIN} 海底"])
    assert code == 0 and not err and "不计：" in out and "河底" in out


def test_a_dealer_not_given_is_said_to_be_assumed(monkeypatch, capsys):
    """With only 自摸 chosen, the answer says who it took to deal, before it says who pays."""
    result = settle(parse_line(f"{PLAIN} 自摸"))
    assert result["assumed"] and result["explanation"].startswith("未给出庄家：按下家为庄家计（本家门风北）")
    assert result["payments"] == settle(parse_line(f"{PLAIN} 自摸"), "下家")["payments"]
    by_seat = settle(parse_line(f"{PLAIN} 自摸 门风南"))          # 南: the dealer is the winner's 上家
    assert by_seat["explanation"].startswith("未给出庄家：由本家门风南推得上家为庄家。")
    assert settle(parse_line(f"{PLAIN} 自摸"), "对家")["assumed"] == []
    code, out, err = run(monkeypatch, capsys, ["settle", "-"], json.dumps({"hand": f"{PLAIN} 自摸"}))
    assert code == 0 and not err and out.startswith("未给出庄家")
    from kb.rules.api import _settle
    assert _settle({"hand": f"{PLAIN} 自摸"})["assumed"] == result["assumed"]
