"""Reading JSON input for the rules commands (``kb bridge``, ``kb mahjong``) within limits.

A hand or a deal is small: the input may be at most MAX_BYTES, nest at most MAX_DEPTH
arrays/objects and hold numbers of at most MAX_NUMBER_CHARS characters. Beyond that (a
deeply nested document, a 5,000-digit number) the answer is one KbError line naming the
input, never a RecursionError or ValueError traceback.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, NoReturn

from kb.core.errors import KbError

MAX_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 30


def read_text(name: str) -> str:
    """The text of FILE, or of stdin for ``-``; KbError if unreadable, not UTF-8 or too large."""
    label = "stdin" if name == "-" else name
    try:
        if name == "-":
            raw = getattr(sys.stdin, "buffer", None)      # a text stream without bytes (a test's StringIO)
            data = raw.read(MAX_BYTES + 1) if raw is not None else sys.stdin.read(MAX_BYTES + 1).encode("utf-8")
        else:
            with Path(name).open("rb") as fh:
                data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise KbError(f"{label}: 无法读取（{exc.strerror}）") from None
    except ValueError:          # a NUL in the name: no file can have it
        raise KbError(f"{label}: 无法读取（文件名含空字符）") from None
    if len(data) > MAX_BYTES:
        raise KbError(f"{label}: 超过 {MAX_BYTES} 字节；规则的输入是一份小的 JSON 文档")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise KbError(f"{label}: 不是 UTF-8 文本") from None


def check_json_limits(text: str, label: str) -> None:
    """KbError if ``text`` nests deeper than MAX_DEPTH or holds a number longer than MAX_NUMBER_CHARS."""
    depth, in_string, escaped, number = 0, False, False, 0
    line = 1
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch in "0123456789+-.eE":
            number += 1
            if number > MAX_NUMBER_CHARS:
                raise KbError(f"{label}:{line}: 数字长于 {MAX_NUMBER_CHARS} 个字符")
            continue
        number = 0
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise KbError(f"{label}:{line}: JSON 嵌套深于 {MAX_DEPTH} 层")
        elif ch in "]}":
            depth -= 1


def load_json(text: str, label: str) -> Any:
    """Parse ``text`` within the limits; KbError naming ``label`` and the line otherwise."""
    check_json_limits(text, label)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise KbError(f"{label}:{exc.lineno}: 不是有效的 JSON（{exc.msg}）") from None
    _check_text(data, label)
    return data


def _check_text(value: Any, label: str) -> None:
    """KbError if a string of ``value`` holds a lone surrogate (``"\\ud800"``: valid JSON, not text;
    echoed in an error message it could not be written out)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack += list(v)
            stack += v.values()
        elif isinstance(v, list):
            stack += v
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise KbError(f"{label}: 字符串中有孤立的代理码 \\u{ord(v[exc.start]):04x}（不是 Unicode 文本）") from None


def read_json(name: str) -> Any:
    """FILE or ``-`` (stdin) as JSON, within the limits."""
    return load_json(read_text(name), "stdin" if name == "-" else name)


# argparse's usage errors, in the words of the rest of kb's messages
_USAGE_WORDS = (
    (re.compile(r"the following arguments are required: (.+)"), r"缺少参数 \1"),
    (re.compile(r"argument (\S+): invalid choice: (.+?) \(choose from (.+)\)"), r"参数 \1 不能是 \2（可选：\3）"),
    (re.compile(r"argument (\S+): invalid (\w+) value: (.+)"), r"参数 \1 须为 \2，收到 \3"),
    (re.compile(r"argument (\S+): expected one argument"), r"参数 \1 后须有一个值"),
    (re.compile(r"argument (\S+): not allowed with argument (\S+)"), r"参数 \1 不能与 \2 同用"),
    (re.compile(r"unrecognized arguments: (.+)"), r"无法识别的参数 \1"),
    (re.compile(r"argument (\S+): ignored explicit argument (.+)"), r"参数 \1 不带值，收到 \2"),
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are a KbError (one line, in Chinese, printed by the
    command's error handler) instead of argparse's usage dump and exit."""

    def error(self, message: str) -> NoReturn:
        for pattern, words in _USAGE_WORDS:
            if pattern.fullmatch(message):
                message = pattern.sub(words, message).replace("须为 int，", "须为整数，").replace("须为 float，", "须为数，")
                break
        raise KbError(f"命令行参数有误：{message}（{self.prog} --help 列出用法）")
