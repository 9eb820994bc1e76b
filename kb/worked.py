"""Worked examples of the rules module, executed at build time and embedded in the site.

Each example runs through the rules code; a result that differs from the example's
expectation fails the build (KbError naming the example).
"""
from __future__ import annotations

import html
import json

from kb.records import Record


def site_examples(records: list[Record]) -> dict[str, list[str]]:
    """Clause id -> Markdown blocks (Simplified) showing each verified example."""
    ids = {r.id for r in records}
    out: dict[str, list[str]] = {}
    for checked in _checked():
        clause = checked["clause"]
        if clause not in ids:
            from kb.errors import KbError
            raise KbError(f"worked example '{checked['title']}' cites {clause}, which is not a record")
        out.setdefault(clause, []).append(_block(checked))
    return out


def _checked() -> list[dict]:
    results: list[dict] = []
    try:
        from kb.rules.bridge_examples import check_examples as bridge_check
    except ImportError:
        bridge_check = None
    try:
        from kb.rules.mahjong import check_examples as mahjong_check
    except ImportError:
        mahjong_check = None
    for check in (bridge_check, mahjong_check):
        if check is not None:
            results += check()
    return results


def _block(ex: dict) -> str:
    given = json.dumps(ex.get("input") or ex.get("hand"), ensure_ascii=False)
    result = ex.get("result", {})
    summary = result.get("explanation") or _mahjong_summary(result)
    cites = " ".join(result.get("clauses", [])) or ex["clause"]
    return (f'!!! example "算例：{html.escape(ex["title"])}"\n'
            f"    输入：`{given}`\n\n"
            f"    结果：{summary}\n\n"
            f"    依据：{cites}（构建时已由规则代码核验）\n")


def _mahjong_summary(result: dict) -> str:
    items = "、".join(f"{i['name']} {i['tai']}台" for i in result.get("items", []))
    return f"共 {result.get('total', '?')} 台（{items}）" if result else ""
