"""Worked examples of the rules module, executed at build time and embedded in the site.

Each example runs through the rules code (kb/rules); a result that differs from the
example's expectation fails the build with a KbError naming the example. Clause ids
in a block are written ⟦id⟧ and turned into links by the site renderer.
"""
from __future__ import annotations

import json

from kb.errors import KbError
from kb.records import Record


def site_examples(records: list[Record]) -> dict[str, list[str]]:
    """Clause id -> Markdown blocks (Simplified) showing each verified example."""
    ids = {r.id for r in records}
    out: dict[str, list[str]] = {}
    from kb.rules.mahjong import INTERPRETATIONS
    for reading in INTERPRETATIONS:       # where the text can be read two ways: say which reading the code takes
        if reading["clause"] not in ids:
            raise KbError(f"mahjong reading of {reading['name']} cites {reading['clause']}, which is not a record")
        out.setdefault(reading["clause"], []).append(
            f'!!! info "本库的读法（计台代码据此）"\n    {reading["reading"]}\n')
    for checked in _checked():
        clause = checked["clause"]
        if clause not in ids:
            raise KbError(f"worked example '{checked['title']}' cites {clause}, which is not a record")
        out.setdefault(clause, []).append(_block(checked))
    return out


def _checked() -> list[dict]:
    from kb.rules.bridge_examples import check_examples as bridge_check
    from kb.rules.mahjong import check_examples as mahjong_check
    return bridge_check() + mahjong_check()


def _block(ex: dict) -> str:
    result = ex.get("result", {})
    if "hand" in ex:
        summary = _mahjong_summary(ex["hand"], result)
        command = "kb mahjong score -"
        given = ex["hand"]
    else:
        summary = result.get("explanation", "")
        command = f"kb bridge {_bridge_command(ex['function'])} -"
        given = ex["input"]
    cites = " ".join(f"⟦{c}⟧" for c in (result.get("clauses") or [ex["clause"]]))
    code = json.dumps(given, ensure_ascii=False)
    return (f'!!! example "算例：{ex["title"]}"\n'
            f"    {summary}\n\n"
            f"    依据：{cites}（构建时已由规则代码核验）\n\n"
            f'    ??? quote "输入（可用 `{command}` 复算）"\n'
            f"        ```json\n        {code}\n        ```\n")


def _bridge_command(function: str) -> str:
    """The `kb bridge` subcommand that runs a rules function (from the bridge CLI's own table)."""
    from kb.rules.bridge import _DISPATCH
    return next((sub for sub, pairs in _DISPATCH.items() if any(fn == function for _, fn in pairs)), function)


def _mahjong_summary(hand: dict, result: dict) -> str:
    from kb.rules.mahjong_tiles import tile_name
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
