"""The catalogue of encoded rulings: command, one-line description, clauses covered, worked examples.

Read by ``kb rules list`` and by the site's catalogue page (kb/site/rules_pages.py); built from the
bridge registry and the mahjong pattern data, so it cannot list a ruling that is not there.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from kb.rules.bridge.registry import RULINGS
from kb.rules.mahjong.hand import COUNTING, FLOWER_REPLACEMENT, WIN, WINNING_FORM, clause
from kb.rules.mahjong.patterns import PATTERNS
from kb.rules.mahjong.settlement import SETTLEMENT_CLAUSES


@dataclass(frozen=True)
class Entry:
    """One encoded ruling."""

    command: str
    summary: str
    clauses: tuple[str, ...]
    examples: int = 0
    near_misses: int = 0
    fields: tuple[str, ...] = ()             # the JSON input's fields, optional ones in brackets

    def laws(self) -> list[int]:
        """The bridge Laws (numbers) whose clauses the entry cites."""
        found = {int(m.group(1)) for c in self.clauses if (m := re.match(r"cbr1999:(\d+)", c))}
        return sorted(found)

    def to_json(self) -> dict[str, Any]:
        return {"command": self.command, "summary": self.summary, "clauses": list(self.clauses),
                "laws": self.laws(), "examples": self.examples, "near_misses": self.near_misses,
                "fields": list(self.fields)}


def entries(with_examples: bool = True) -> list[Entry]:
    """Every ruling, bridge first; ``with_examples`` counts the worked examples (runs them)."""
    counts: Counter[str] = Counter()
    near: Counter[str] = Counter()
    mahjong_n = settle_n = 0
    settle_near = mahjong_near = 0
    if with_examples:
        from kb.rules.bridge.examples import check_examples
        from kb.rules.mahjong.examples import check_examples as mahjong_examples
        from kb.rules.mahjong.examples import check_settlements
        for ex in check_examples():
            counts[ex["function"]] += 1
            near[ex["function"]] += bool(ex.get("near_miss"))
        done = mahjong_examples()
        mahjong_n, mahjong_near = len(done), sum(1 for ex in done if ex.get("near_miss"))
        settled = check_settlements()
        settle_n, settle_near = len(settled), sum(1 for ex in settled if ex.get("near_miss"))
    out = [Entry(f"kb bridge {r.command}", r.summary, r.clauses, counts[r.name], near[r.name], r.fields)
           for r in RULINGS]
    pattern_ids = tuple(p.clause for p in PATTERNS) + (clause("30.1"), clause("30.2"), COUNTING, WINNING_FORM, WIN,
                                                         FLOWER_REPLACEMENT)
    out.append(Entry("kb mahjong score", "一手胡牌的台数：36 个计台名堂逐项计台、不另计与理由（计台名堂、台数计算准则）",
                     pattern_ids, mahjong_n, mahjong_near, ("concealed", "winning_tile", "[melds]", "[flowers]",
                                                            "[self_drawn]", "…（或一行写法）")))
    out.append(Entry("kb mahjong settle", "胡牌结算：自摸、放铳、庄家与连庄时谁付给胡牌者多少（底与台），条文未定之处明示",
                     SETTLEMENT_CLAUSES, settle_n, settle_near, ("hand", "dealer", "[discarder]", "[streak_shown]")))
    return out


def format_text(items: list[Entry]) -> str:
    """The catalogue for a person: command, description, clause ids, example count."""
    lines = []
    for e in items:
        shown = "、".join(e.clauses) if len(e.clauses) <= 12 else "、".join(e.clauses[:12]) + f" 等 {len(e.clauses)} 条"
        lines.append(f"{e.command}\n  {e.summary}\n  字段：{' '.join(e.fields)}\n  条款：{shown}\n"
                     f"  算例：{e.examples}（近似情形 {e.near_misses}）")
    return "\n".join(lines)
