"""Worked examples of the rules module, executed at build time and embedded in the site.

Each example runs through the rules code (kb/rules); a result that differs from the
example's expectation fails the build with a KbError naming the example. Clause ids
in a block are written ⟦id⟧ and turned into links by the site renderer.
"""
from __future__ import annotations

import json
from typing import Any

from kb.errors import KbError
from kb.records import Record


def site_examples(records: list[Record]) -> dict[str, list[str]]:
    """Clause id -> Markdown blocks (Simplified) showing each verified example."""
    from kb.rules.bridge.examples import check_examples as bridge_check
    from kb.rules.mahjong.examples import check_examples as mahjong_check
    from kb.rules.mahjong.examples import check_settlements
    from kb.rules.mahjong.scoring import INTERPRETATIONS
    ids = {r.id for r in records}
    out: dict[str, list[str]] = {}
    for reading in INTERPRETATIONS:       # where the text can be read two ways: say which reading the code takes
        if reading["clause"] not in ids:
            raise KbError(f"mahjong reading of {reading['name']} cites {reading['clause']}, which is not a record")
        out.setdefault(reading["clause"], []).append(
            f'!!! info "本库的读法（计台代码据此）"\n    {reading["reading"]}\n')
    blocks = ([(ex, _bridge_block(ex)) for ex in bridge_check()] + [(ex, _mahjong_block(ex)) for ex in mahjong_check()]
              + [(ex, _settle_block(ex)) for ex in check_settlements()])
    for ex, block in blocks:
        clause = ex["clause"]
        if clause not in ids:
            raise KbError(f"worked example '{ex['title']}' cites {clause}, which is not a record")
        out.setdefault(clause, []).append(block)
    return out


def _cites(result: dict[str, Any], fallback: str) -> str:
    return " ".join(f"⟦{c}⟧" for c in (result.get("clauses") or [fallback]))


def _frame(ex: dict[str, Any], summary: str, cites: str, command: str, given: Any) -> str:
    near = "（近似情形）" if ex.get("near_miss") else ""
    if isinstance(given, str):
        code, lang = given, "text"
    else:
        code, lang = json.dumps(given, ensure_ascii=False), "json"
    return (f'!!! example "算例{near}：{ex["title"]}"\n'
            f"    {summary}\n\n"
            f"    依据：{cites}（构建时已由规则代码核验）\n\n"
            f'    ??? quote "输入（可用 `{command}` 复算）"\n'
            f"        ```{lang}\n        {code}\n        ```\n")


def _bridge_block(ex: dict[str, Any]) -> str:
    from kb.rules.bridge.registry import command_of
    result = ex["result"]
    return _frame(ex, result["explanation"], _cites(result, ex["clause"]),
                  f"kb bridge {command_of(ex['function'])} -", ex["input"])


def _mahjong_block(ex: dict[str, Any]) -> str:
    from kb.rules.mahjong.examples import hand_of
    result = ex["result"]
    return _frame(ex, _mahjong_summary(hand_of(ex["hand"]), result), "", "kb mahjong score -", ex["hand"]) \
        .replace("    依据：（构建时已由规则代码核验）\n\n", "    （构建时已由规则代码核验）\n\n")


def _settle_block(ex: dict[str, Any]) -> str:
    result = ex["result"]
    summary = result["explanation"] + "\n\n    条文未定：" + "".join(result["silent"])
    return _frame(ex, summary, _cites(result, ex["clause"]), "kb mahjong settle -", ex["input"])


def _mahjong_summary(hand: dict, result: dict) -> str:
    from kb.rules.mahjong.tiles import tile_name
    concealed = " ".join(tile_name(t) for t in hand.get("concealed", []))
    kinds = {"chi": "吃", "pon": "碰", "kan": "明杠", "ankan": "暗杠"}
    melds = "；".join(f"{kinds.get(m['type'], m['type'])} {''.join(tile_name(t) for t in m['tiles'])}"
                     for m in hand.get("melds", []))
    flowers = " ".join(tile_name(t) for t in hand.get("flowers", []))
    how = "自摸" if hand.get("self_drawn") else "胡他人舍牌"
    parts = [f"暗牌：{concealed}"] + ([f"副露：{melds}"] if melds else []) + ([f"花牌：{flowers}"] if flowers else [])
    parts.append(f"胡 {tile_name(hand['winning_tile'])}（{how}）" if hand.get("winning_tile") else how)
    items = "、".join(f"{i['name']} {i['tai']}台 ⟦{i['clause']}⟧" for i in result.get("items", [])) or "无"
    excluded = "；".join(f"{e['name']}（{e['why']}）" for e in result.get("excluded", []))
    return ("；".join(parts) + f"。\n\n    计台：{items}，共 **{result.get('total')}** 台。"
            + (f"\n\n    不另计：{excluded}。" if excluded else ""))
