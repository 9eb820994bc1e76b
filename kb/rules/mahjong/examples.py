"""Worked examples: hands (examples.json) and settlements (settlement_examples.json), checked on every build."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kb.core.errors import KbError
from kb.rules.inputs import parse_json
from kb.rules.mahjong.hand import COUNTING, FLOWER_REPLACEMENT, WIN, WINNING_FORM, clause, fail
from kb.rules.mahjong.notation import parse_line
from kb.rules.mahjong.patterns import PATTERNS
from kb.rules.mahjong.scoring import score
from kb.rules.mahjong.settlement import settle

EXAMPLES_PATH = Path(__file__).with_name("examples.json")
SETTLEMENT_PATH = Path(__file__).with_name("settlement_examples.json")


def load_examples(path: Path | str | None = None) -> list[dict[str, Any]]:
    """The worked examples (a JSON list); KbError if the file is missing or malformed."""
    p = Path(path) if path is not None else EXAMPLES_PATH
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise fail(f"读不到例题文件 {p}", f"cannot read examples file {p}: {exc.strerror}") from None
    data = parse_json(text, str(p))
    if not isinstance(data, list):
        raise fail(f"例题文件 {p} 须为列表", f"examples file {p} must hold a list")
    return data


def known_clauses() -> set[str]:
    """Clause ids this module may cite."""
    ids = {p.clause for p in PATTERNS} | {clause("30.1"), clause("30.2")}
    return ids | {COUNTING, WINNING_FORM, WIN, FLOWER_REPLACEMENT}


def hand_of(given: Any) -> Any:
    """A hand as JSON, or as one line of notation (kb.rules.mahjong.notation)."""
    return parse_line(given) if isinstance(given, str) else given


def check_examples(path: Path | str | None = None) -> list[dict[str, Any]]:
    """Score every worked example; return them with results, or raise KbError naming a mismatch.

    An example matches when its total is equal and its item names agree as a multiset.
    """
    out = []
    clauses = known_clauses()
    for k, ex in enumerate(load_examples(path), 1):
        title = ex.get("title", "?") if isinstance(ex, dict) else "?"
        label = f"例题 {k}「{title}」"
        if not isinstance(ex, dict) or not {"title", "clause", "hand", "expect"} <= set(ex) \
                or not isinstance(ex["expect"], dict) or not {"total", "items"} <= set(ex["expect"]):
            raise fail(f"{label} 缺少 title/clause/hand/expect(total, items)",
                       f"example {k} lacks title/clause/hand/expect(total, items)")
        if ex["clause"] not in clauses:
            raise fail(f"{label} 引用了未知条款 {ex['clause']}", f"example {k} cites unknown clause {ex['clause']}")
        try:
            result = score(hand_of(ex["hand"]))
        except KbError as exc:
            raise KbError(f"{label}：{exc}") from None
        got_names = [i["name"] for i in result["items"]]
        want = ex["expect"]
        if result["total"] != want["total"] or Counter(got_names) != Counter(want["items"]):
            raise fail(
                f"{label} 不符：预期 {want['total']} 台 {want['items']}，算得 {result['total']} 台 {got_names}",
                f"example {k} mismatch: expected {want['total']}, got {result['total']}")
        out.append({**ex, "result": result})
    return out


def check_settlements(path: Path | str | None = None) -> list[dict[str, Any]]:
    """Settle every settlement example; ``expect.payments`` is ``[[payer, 底, 台], ...]``."""
    out = []
    for k, ex in enumerate(load_examples(path or SETTLEMENT_PATH), 1):
        title = ex.get("title", "?") if isinstance(ex, dict) else "?"
        label = f"结算例 {k}「{title}」"
        if not isinstance(ex, dict) or not {"title", "clause", "input", "expect"} <= set(ex) <= {
                "title", "clause", "input", "expect", "near_miss"} \
                or not isinstance(ex["input"], dict) or not isinstance(ex["expect"], dict):
            raise KbError(f"{label}: 须含 title、clause、input、expect（可选 near_miss）")
        data = dict(ex["input"])
        data["hand"] = hand_of(data.get("hand"))
        try:
            result = settle(**data)
        except TypeError as exc:
            raise KbError(f"{label}.input: {exc}") from None
        except KbError as exc:
            raise KbError(f"{label}: {exc}") from None
        got = [[p["payer"], p["di"], p["tai"]] for p in result["payments"]]
        if got != ex["expect"].get("payments"):
            raise KbError(f"{label}: 预期 {ex['expect'].get('payments')}，算得 {got}")
        if ex["clause"] not in result["clauses"]:
            raise KbError(f"{label}.clause: {ex['clause']} 不在结果依据 {result['clauses']} 中")
        out.append({**ex, "result": result})
    return out
