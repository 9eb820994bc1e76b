"""Reading one JSON input for the rules CLIs: a file or stdin, with one-line errors for any fault."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kb.errors import KbError

MAX_INPUT = 64_000          # characters: a hand or a bridge situation is a few hundred


def read_text(name: str) -> str:
    """The text of FILE, or of stdin for ``-``."""
    label = "stdin" if name == "-" else name
    try:
        text = sys.stdin.read(MAX_INPUT + 1) if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise KbError(f"{label}: 无法读取：{exc.strerror}") from None
    except UnicodeDecodeError:
        raise KbError(f"{label}: 不是 UTF-8 文本") from None
    if len(text) > MAX_INPUT:
        raise KbError(f"{label}: 输入过长（上限 {MAX_INPUT} 字符）")
    return text


def parse_json(text: str, label: str) -> Any:
    """JSON text → data; malformed, too deep or a number too long is one KbError naming ``label``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise KbError(f"{label}:{exc.lineno}: 不是合法的 JSON（{exc.msg}）") from None
    except RecursionError:
        raise KbError(f"{label}: JSON 嵌套过深") from None
    except ValueError as exc:                       # e.g. an integer of thousands of digits
        raise KbError(f"{label}: 不是可接受的 JSON（{str(exc).splitlines()[0]}）") from None


def read_object(name: str) -> dict[str, Any]:
    """One JSON object from FILE or stdin."""
    label = "stdin" if name == "-" else name
    data = parse_json(read_text(name), label)
    if not isinstance(data, dict):
        raise KbError(f"{label}: 应为一个 JSON 对象")
    return data
