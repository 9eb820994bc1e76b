"""The rules commands' and the rules API's JSON input: kb/core/inputs.py's reader and limits, plus the
one shape every rules question takes (a JSON object)."""
from __future__ import annotations

from typing import Any

from kb.core.errors import KbError
from kb.core.inputs import load_json as parse_json
from kb.core.inputs import read_text

__all__ = ["MAX_INPUT", "TOO_LARGE", "parse_json", "read_object", "read_text"]

MAX_INPUT = 64_000          # bytes of a request body to kb serve (a rules question): the one body limit
TOO_LARGE = f"body: 超过 {MAX_INPUT} 字节"   # the 413's message, wherever the limit is met


def read_object(name: str) -> dict[str, Any]:
    """One JSON object from FILE or stdin (``-``)."""
    label = "stdin" if name == "-" else name
    data = parse_json(read_text(name), label)
    if not isinstance(data, dict):
        raise KbError(f"{label}: 应为一个 JSON 对象")
    return data
