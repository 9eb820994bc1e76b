"""The public registry of bridge rulings: every :class:`~kb.rules.bridge.declare.Ruling` a module of
this package declares.

Every ``kb bridge`` subcommand is one ruling and takes one JSON shape: the keyword arguments of
its function, as its declaration describes them. The site (kb/site/rules_pages.py,
kb/site/examples_text.py), the catalogue (kb/rules/catalogue.py), the CLI and the API read this
table; nothing else lists the rulings, and a new ruling is found here by being declared in its module.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kb.core.errors import KbError
from kb.rules.bridge.cards import Result
from kb.rules.bridge.declare import Field, Ruling

__all__ = ["Field", "Ruling", "RULINGS", "BY_NAME", "BY_COMMAND", "FUNCTIONS", "CLAUSES", "register", "registered",
           "command_of", "call"]

# The catalogue lists the rulings in this order (the order they were first encoded); a ruling not
# named here follows them, in the order of its module and its place there.
ORDER = ("legal-cards", "trick-winner", "dummy-rights", "designate", "exposed-card", "penalty-card-kind",
         "penalty-card-obligations", "is-revoke", "revoke-established", "revoke-adjustment", "insufficient-bid",
         "call-out-of-rotation", "lead-out-of-turn", "premature-play", "simultaneous-play", "defective-trick",
         "claim-or-concession", "contested-claim", "concession")
NOT_RULINGS = ("cli", "registry", "examples", "declare", "prose", "cards", "calls")   # the package's other modules

RULINGS: list[Ruling] = []
BY_NAME: dict[str, Ruling] = {}
BY_COMMAND: dict[str, Ruling] = {}
FUNCTIONS: dict[str, Callable[..., Result]] = {}
CLAUSES: dict[str, tuple[str, ...]] = {}


def _declared() -> list[Ruling]:
    """Every ruling declared at module level in a module of the package, in the catalogue's order."""
    found: list[Ruling] = []
    package = __name__.rpartition(".")[0]
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name in NOT_RULINGS or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        found += [v for v in vars(module).values() if isinstance(v, Ruling) and v not in found]
    rank = {c: i for i, c in enumerate(ORDER)}
    return sorted(found, key=lambda r: rank.get(r.command, len(ORDER)))


def register(ruling: Ruling) -> Ruling:
    """Add a ruling to the registry (the package's own are added when it is first imported)."""
    if ruling.command in BY_COMMAND or ruling.name in BY_NAME:
        raise KbError(f"bridge ruling {ruling.command}: 命令或函数名 {ruling.name} 已有裁定使用")
    RULINGS.append(ruling)
    BY_NAME[ruling.name] = BY_COMMAND[ruling.command] = ruling
    FUNCTIONS[ruling.name] = ruling.function
    CLAUSES[ruling.name] = ruling.clauses
    return ruling


def unregister(ruling: Ruling) -> None:
    RULINGS.remove(ruling)
    for table, key in ((BY_NAME, ruling.name), (BY_COMMAND, ruling.command), (FUNCTIONS, ruling.name),
                       (CLAUSES, ruling.name)):
        del table[key]


@contextmanager
def registered(ruling: Ruling) -> Iterator[Ruling]:
    """The registry with ``ruling`` in it for the duration (a test's own ruling)."""
    register(ruling)
    try:
        yield ruling
    finally:
        unregister(ruling)


for _ruling in _declared():
    register(_ruling)


def command_of(name: str) -> str:
    """The ``kb bridge`` subcommand of a ruling function."""
    return BY_NAME[name].command


def call(name: str, data: Any, where: str = "input") -> Result:
    """Call the ruling ``name`` with the keys of ``data`` as keyword arguments, checked first."""
    ruling = BY_NAME.get(name)
    if ruling is None:
        raise KbError(f"function: 未知函数 {name!r}（可用：{'、'.join(BY_NAME)}）")
    if not isinstance(data, dict):
        raise KbError(f"{where}: 应为 JSON 对象")
    params = inspect.signature(ruling.function).parameters
    for key in data:
        if key not in params:
            raise KbError(f"{where}.{key}: {name} 没有这个字段（可用：{'、'.join(params)}）")
    for key, param in params.items():
        if param.default is inspect.Parameter.empty and key not in data:
            raise KbError(f"{where}.{key}: 缺少必需字段")
    return ruling.function(**data)
