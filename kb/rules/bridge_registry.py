"""The bridge rule functions by name, and calling one with a JSON object of its parameters."""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from kb.errors import KbError
from kb.rules.bridge_cards import Result
from kb.rules.bridge_dummy import designate
from kb.rules.bridge_penalty import penalty_card_kind, penalty_card_obligations
from kb.rules.bridge_play import legal_cards, trick_winner
from kb.rules.bridge_revoke import is_revoke, revoke_adjustment, revoke_established

FUNCTIONS: dict[str, Callable[..., Result]] = {
    f.__name__: f for f in (
        legal_cards, trick_winner, is_revoke, revoke_established, revoke_adjustment,
        penalty_card_kind, penalty_card_obligations, designate,
    )
}


def call(name: str, data: Any, where: str = "input") -> Result:
    """Call the function ``name`` with the keys of ``data`` as keyword arguments, checked first."""
    func = FUNCTIONS.get(name)
    if func is None:
        raise KbError(f"function: 未知函数 {name!r}（可用：{'、'.join(FUNCTIONS)}）")
    if not isinstance(data, dict):
        raise KbError(f"{where}: 应为 JSON 对象")
    params = inspect.signature(func).parameters
    for key in data:
        if key not in params:
            raise KbError(f"{where}.{key}: {name} 没有这个字段（可用：{'、'.join(params)}）")
    for key, param in params.items():
        if param.default is inspect.Parameter.empty and key not in data:
            raise KbError(f"{where}.{key}: 缺少必需字段")
    return func(**data)
