"""The one error type the command line turns into a one-line message, and how that line is printed."""
from __future__ import annotations

import sys
import unicodedata
from typing import TextIO


class KbError(Exception):
    """A problem with the input (a source, a query, a field), reported as one line.

    The message names the file (and line), the query or the field at fault.
    Line breaks quoted from the input are shown as \\n, so the message stays one line.
    """

    def __init__(self, message: str):
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(ch: str) -> str:
    """One character as an error line shows it: itself, or escaped if a terminal would act on it."""
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:          # a byte that was not UTF-8 (surrogateescape): the byte
        return f"\\x{code - 0xDC00:02x}"
    category = unicodedata.category(ch)
    if category in ("Cc", "Cs", "Zl", "Zp") or 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
    return ch


def escape_controls(text: str) -> str:
    """``text`` with control characters (ESC, BEL, …), line breaks, bidi overrides and undecodable
    bytes written as escapes (\\x1b, \\n, \\xff): what is quoted from bad input cannot act on a terminal."""
    return "".join(_shown(ch) for ch in text)


def error_line(label: str, message: object) -> str:
    """The one line a kb command prints for bad input: ``kb show: 错误：…``, control characters escaped."""
    return escape_controls(f"{label}: 错误：{message}")


def print_error(label: str, message: object, stream: TextIO | None = None) -> None:
    """Print ``error_line(label, message)`` on ``stream`` (stderr)."""
    print(error_line(label, message), file=stream or sys.stderr)
