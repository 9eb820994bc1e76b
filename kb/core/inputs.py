"""Reading JSON input for the rules commands (``kb bridge``, ``kb mahjong``) within limits.

A hand or a deal is small: the input may be at most MAX_BYTES, nest at most MAX_DEPTH
arrays/objects and hold numbers of at most MAX_NUMBER_CHARS characters. Beyond that (a
deeply nested document, a 5,000-digit number) the answer is one KbError line naming the
input, never a RecursionError or ValueError traceback.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

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
        raise KbError(f"{label}: cannot read ({exc.strerror})") from None
    if len(data) > MAX_BYTES:
        raise KbError(f"{label}: more than {MAX_BYTES} bytes; a rules input is a small JSON document")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise KbError(f"{label}: not UTF-8 text") from None


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
                raise KbError(f"{label}:{line}: a number longer than {MAX_NUMBER_CHARS} characters")
            continue
        number = 0
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise KbError(f"{label}:{line}: JSON nested deeper than {MAX_DEPTH} levels")
        elif ch in "]}":
            depth -= 1


def load_json(text: str, label: str) -> Any:
    """Parse ``text`` within the limits; KbError naming ``label`` and the line otherwise."""
    check_json_limits(text, label)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise KbError(f"{label}:{exc.lineno}: not valid JSON ({exc.msg})") from None
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
                raise KbError(f"{label}: a string holds a lone surrogate \\u{ord(v[exc.start]):04x} "
                              "(not Unicode text)") from None


def read_json(name: str) -> Any:
    """FILE or ``-`` (stdin) as JSON, within the limits."""
    return load_json(read_text(name), "stdin" if name == "-" else name)
