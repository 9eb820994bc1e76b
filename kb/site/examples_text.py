"""Worked examples in words: the situation, the ruling and its clauses, the details for people.

The examples and their verified results come from the rules stage (kb/rules, checked as the
build runs: a wrong example fails the build). This module only sets them out for the site: a
sentence or two for the situation (a bridge ruling's own prose, declared beside it in kb/rules/bridge;
for mahjong, from the hand), the ruling (the rules code's own explanation or the 台 items), the
clauses as ⟦id⟧ markers (turned into links by the renderer), and a collapsed table of every input
field under its Chinese label (a bridge field's label and the words of its values are its
ruling's declaration, kb/rules/bridge/declare.py), so no code field name reaches a page.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from kb.core.errors import KbError
from kb.core.records import Record
from kb.rules.bridge.registry import BY_NAME
from kb.rules.mahjong.examples import hand_of
from kb.rules.mahjong.tiles import tile_name

Examples = dict[str, list[str]]

# -- bridge ------------------------------------------------------------------------------------

def bridge_ruling(text: str) -> str:
    """The rules code's explanation, without its pointers to other CLI commands (「请用 defective-trick 判定」)."""
    return re.sub(r"请用 [a-z][a-z-]* 判定。", "", re.sub(r"——请用 [a-z][a-z-]* 判定。", "。", text))


# -- mahjong -----------------------------------------------------------------------------------

MAHJONG_LABELS = {
    "concealed": "手中的牌（含胡牌）", "melds": "副露（吃、碰、杠）", "flowers": "花牌",
    "winning_tile": "胡的牌", "self_drawn": "自摸", "seat": "开门序（门风）", "round_wind": "圈风",
    "dealer": "胡牌者是庄家", "from_dealer": "由庄家付台（放铳或自摸分摊）", "dealer_streak": "庄家连庄次数",
    "after_kan": "杠上开花（补牌胡）", "last_tile": "海底（最后一张牌胡）", "robbing_kan": "抢杠胡",
    "declared": "听牌宣告", "timing": "天胡、地胡或人胡", "flower_win": "花胡",
    "rob_case": "七抢一的情形", "at_deal": "配牌时即成花胡", "lilgu": "采用呖咕呖咕", "note": "附注",
}
MELDS = {"chi": "吃", "pon": "碰", "kan": "明杠", "ankan": "暗杠"}
WINDS = "东南西北"


def tiles(codes: list[str]) -> str:
    return " ".join(tile_name(t) for t in codes) or "（无）"


def mahjong_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    if key in ("concealed", "flowers"):
        return tiles(value)
    if key == "winning_tile":
        return tile_name(value)
    if key == "melds":
        return "；".join(f"{MELDS[m['type']]} {''.join(tile_name(t) for t in m['tiles'])}" for m in value) or "（无）"
    if key == "seat":
        return f"第{value}家（{WINDS[value - 1]}风）"
    if key == "round_wind":
        return f"{tile_name(value)}风圈"
    if key == "dealer_streak":
        return f"{value} 次"
    if key == "rob_case":
        return f"第{value}种"
    return str(value)


def mahjong_situation(hand: dict) -> str:
    seat = hand.get("seat", 1)
    who = "胡牌者是庄家" if hand.get("dealer") else f"胡牌者开门序第{seat}家（{WINDS[seat - 1]}风位）"
    if hand.get("dealer") and hand.get("dealer_streak"):
        who += f"，已连庄 {hand['dealer_streak']} 次"
    first = [who + (f"，{tile_name(hand['round_wind'])}风圈" if "round_wind" in hand else "")]
    if hand.get("declared"):
        first.append(f"已宣告{hand['declared']}")
    held = [f"手中：{tiles(hand.get('concealed', []))}"]
    if hand.get("melds"):
        held.append(f"副露：{mahjong_value('melds', hand['melds'])}")
    if hand.get("flowers"):
        held.append(f"花牌：{tiles(hand['flowers'])}")
    if hand.get("flower_win"):
        how = f"以{hand['flower_win']}花胡" + ("（配牌时即成）" if hand.get("at_deal") else "")
    else:
        # 抢杠 wins the tile another player adds to his 碰, not a discard
        source = "自摸" if hand.get("self_drawn") else ("抢他人加杠的" if hand.get("robbing_kan") else "胡他人打出的")
        how = f"{source}{tile_name(hand['winning_tile'])}" if hand.get("winning_tile") else \
            ("自摸" if hand.get("self_drawn") else source + "牌")
        extras = [hand["timing"]] if hand.get("timing") else []
        extras += [name for key, name in (("after_kan", "杠上开花"), ("last_tile", "海底"))
                   if hand.get(key)]
        if extras:
            how += f"（{'、'.join(extras)}）"
    if hand.get("from_dealer") and not hand.get("dealer"):
        how += "，由庄家付"
    return "，".join(first) + "。" + "；".join(held) + "；" + how + "。"


def mahjong_ruling(result: dict) -> str:
    items = "、".join(f"{i['name']} {i['tai']}台 ⟦{i['clause']}⟧" for i in result.get("items", [])) or "无可计之台"
    out = f"计台：{items}，共 **{result.get('total')}** 台。"
    # one entry per kind, as the calculator shows it (大三元 drops three 箭字坎: 箭字坎 ×3)
    kinds = Counter((e["name"], e["why"]) for e in result.get("excluded", []))
    excluded = "；".join(f"{name}{f' ×{n}' if n > 1 else ''}（{why}）" for (name, why), n in kinds.items())
    return out + (f"不另计：{excluded}。" if excluded else "")


# -- blocks ------------------------------------------------------------------------------------

def data_table(given: dict, labels: dict[str, str], value: Callable[[str, Any], str], title: str) -> list[str]:
    """The example's input, every field under its Chinese label (an unlabelled field is an error)."""
    rows = []
    for key, v in given.items():
        if key not in labels:
            raise KbError(f"worked example '{title}': input field {key} has no Chinese label in kb/site/examples_text.py")
        rows.append(f"| {labels[key]} | {_md(value(key, v))} |")
    return ["| 项目 | 内容 |", "| --- | --- |", *rows]


def block(ex: dict) -> str:
    """One verified example as a Markdown admonition, in Simplified; clauses as ⟦id⟧ markers."""
    result = ex.get("result", {})
    if "hand" in ex:
        hand = hand_of(ex["hand"])
        situation = mahjong_situation(hand)
        ruling_text = mahjong_ruling(result)
        table = data_table(hand, MAHJONG_LABELS, mahjong_value, ex["title"])
    else:
        ruling = BY_NAME.get(ex["function"])
        if ruling is None:
            raise KbError(f"worked example '{ex['title']}': no bridge ruling {ex['function']} declared")
        labels = {key: ruling.field(key).label for key in ex["input"]}
        table = data_table(ex["input"], labels, lambda key, v: ruling.field(key).value_words(v), ex["title"])
        situation = ruling.situation(ex["input"])
        ruling_text = _md(bridge_ruling(result.get("explanation", "")))
    cites = " ".join(f"⟦{c}⟧" for c in (result.get("clauses") or [ex["clause"]]))
    body = [f"**情形**　{_md(situation)}", f"**裁定**　{ruling_text}", f"**依据**　{cites}\n{{: .kb-basis }}",
            '??? abstract "牌例明细"\n' + "\n".join(f"    {row}" for row in table)]
    return f'!!! example "算例：{ex["title"]}"\n' + "\n\n".join(_indent(b) for b in body) + "\n"


def reading_block(reading: dict) -> str:
    """How the scoring code reads a clause, for people: code-level asides (「字段 from_dealer」,
    「（lilgu: false 可停用）」) are dropped, a field name left in the text becomes its Chinese label."""
    text = re.sub(r"[，、]?\s*字段\s*[A-Za-z_]+", "", reading["reading"])
    text = re.sub(r"（[^（）]*\b[a-z_]+\s*:\s*(?:true|false|null|\d+)[^（）]*）", "", text)
    fields = "|".join(sorted(MAHJONG_LABELS, key=len, reverse=True))
    text = re.sub(rf"(?<![A-Za-z_])({fields})(?![A-Za-z_])", lambda m: f"「{MAHJONG_LABELS[m.group(1)]}」", text)
    text = re.sub(r"「([^「」]+)」（\1）", r"「\1」", text)   # a gloss that now repeats its label
    text = re.sub(r"\s*为\s*true", "成立", re.sub(r"\s*为\s*false", "不成立", text))
    text = re.sub(r"\bpatterns\.(\d+(?:\.\d+)?)", r"计台名堂 \1", text)
    return f'!!! info "本库的读法"\n    {_md(text)}（计台依此读法）\n'


def site_examples(records: list[Record]) -> Examples:
    """Clause id -> Markdown blocks (Simplified): the readings the scoring takes, then each verified example."""
    from kb.rules.bridge.examples import check_examples as bridge_check
    from kb.rules.mahjong import INTERPRETATIONS
    from kb.rules.mahjong import check_examples as mahjong_check
    ids = {r.id for r in records}
    out: Examples = {}
    for reading in INTERPRETATIONS:
        if reading["clause"] not in ids:
            raise KbError(f"mahjong reading of {reading['name']} cites {reading['clause']}, which is not a record")
        out.setdefault(reading["clause"], []).append(reading_block(reading))
    for ex in bridge_check() + mahjong_check():
        if ex["clause"] not in ids:
            raise KbError(f"worked example '{ex['title']}' cites {ex['clause']}, which is not a record")
        out.setdefault(ex["clause"], []).append(block(ex))
    return out


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines())


def _md(text: str) -> str:
    """Escape what Markdown would read as markup (tables, emphasis), keeping ⟦id⟧ markers."""
    for ch in "\\`*_[]<>|":
        text = text.replace(ch, "\\" + ch)
    return text
