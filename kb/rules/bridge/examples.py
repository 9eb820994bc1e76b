"""Worked examples (examples.json, and those a ruling declares beside it): run each through its ruling and
check the result; near misses marked."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kb.core.errors import KbError
from kb.rules.bridge.registry import RULINGS, call

EXAMPLES_PATH = Path(__file__).with_name("examples.json")
FIELDS = ("title", "clause", "function", "input", "expect")
OPTIONAL = ("near_miss",)          # true for a case just outside the rule the title names
_CLAUSE_ID = re.compile(r"cbr1999:\d+[A-Z]?\d*[a-z]?")


def _on_page(page: str, clause: str) -> bool:
    """True if ``clause`` is ``page`` or lies under it (``cbr1999:64`` holds ``cbr1999:64A1``)."""
    if not clause.startswith(page):
        return False
    rest = clause[len(page):]
    return not rest or not (rest[0].isdigit() and page[-1].isdigit())


def check_examples(path: Path | str | None = None) -> list[dict[str, Any]]:
    """Run every example; raise KbError naming the first example whose result differs from ``expect``.

    Returns the examples with their full ``result`` added, for the site to show."""
    file = Path(path) if path is not None else EXAMPLES_PATH
    try:
        examples = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KbError(f"{file}: 无法读取：{exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise KbError(f"{file}:{exc.lineno}: 不是合法的 JSON（{exc.msg}）") from None
    if not isinstance(examples, list):
        raise KbError(f"{file}: 应为例题的列表")
    sources = [f"{file.name} 例题 {i + 1}" for i in range(len(examples))]
    if path is None:            # and the examples each ruling declares beside it (Ruling.examples)
        for ruling in RULINGS:
            examples += [{**ex, "function": ruling.name} for ex in ruling.examples]
            sources += [f"{ruling.command} 的算例 {i + 1}" for i in range(len(ruling.examples))]
    out = []
    for i, ex in enumerate(examples):
        where = sources[i]
        if not isinstance(ex, dict):
            raise KbError(f"{where}: 应为对象")
        for key in FIELDS:
            if key not in ex:
                raise KbError(f"{where}.{key}: 缺少字段")
        extra = set(ex) - set(FIELDS) - set(OPTIONAL)
        if extra:
            raise KbError(f"{where}.{sorted(extra)[0]}: 未知字段")
        if not isinstance(ex.get("near_miss", False), bool):
            raise KbError(f"{where}.near_miss: 应为 true 或 false")
        title, clause = ex["title"], ex["clause"]
        where = f"{where.rsplit(' ', 1)[0]}「{title}」"
        if not isinstance(clause, str) or not _CLAUSE_ID.fullmatch(clause):
            raise KbError(f"{where}.clause: 应为条款编号，如 cbr1999:64A1，收到 {clause!r}")
        if not isinstance(ex["expect"], dict) or not ex["expect"]:
            raise KbError(f"{where}.expect: 应为非空对象")
        try:
            result = call(ex["function"], ex["input"], where=f"{where}.input").to_dict()
        except KbError as exc:
            raise KbError(f"{where}: {exc}") from None
        for key, want in ex["expect"].items():
            if key not in result:
                raise KbError(f"{where}.expect.{key}: 结果中没有这个字段")
            if result[key] != want:
                raise KbError(f"{where}: {key} 应为 {want!r}，实际为 {result[key]!r}")
        if not any(_on_page(clause, c) for c in result["clauses"]):
            raise KbError(f"{where}.clause: 结果依据的条款 {result['clauses']} 中没有 {clause}")
        out.append({**ex, "result": result})
    return out
