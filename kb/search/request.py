"""What a search asks, validated once for every caller (kb search, the API, the site's server).

The query's limits are defined here and nowhere else: the engine checks them on every search
(``check_query``, through kb.search.parse.clean_query), and ``kb serve`` calls the same function
before a search is queued, so that the CLI and the API refuse the same queries with the same words.
"""
from __future__ import annotations

import re
from typing import Any

from kb.core.errors import KbError, escape_controls
from kb.search.analysis import strip_controls

MAX_QUERY_CHARS = 1000   # characters of one query, as typed
MAX_PHRASES = 4          # quoted phrases in one query (each a required match)
MAX_TERMS = 32           # whitespace-separated terms in one query (a phrase's words included)
# a quoted phrase, in any of the quotation marks the query grammar takes (kb.search.parse)
PHRASE_RE = re.compile(r'"([^"]*)"|“([^”]*)”|「([^」]*)」|『([^』]*)』|《([^》]*)》')


def check_query(q: Any, name: str = "查询") -> str:
    """The query with control characters replaced by spaces, if it is text within the limits;
    else KbError naming ``name`` (the API says 查询（q）) and, for a costly one, the query."""
    if not isinstance(q, str):
        raise KbError(f"{name}须为文本")
    if len(q) > MAX_QUERY_CHARS:
        raise KbError(f"{name}过长：{len(q)} 个字符（至多 {MAX_QUERY_CHARS}）")
    bad = next((ch for ch in q if "\udc80" <= ch <= "\udcff"), None)
    if bad is not None:       # bytes that were not UTF-8 (a shell's $'\xff', kept by surrogateescape)
        raise KbError(f"{name}「{escape_controls(q)}」不是 UTF-8 文本（含无法解读的字节 {escape_controls(bad)}）")
    text = strip_controls(q)
    phrases = sum(1 for _ in PHRASE_RE.finditer(text))
    terms = len(text.split())
    if phrases > MAX_PHRASES or terms > MAX_TERMS:
        shown = " ".join(text.split())
        shown = shown if len(shown) <= 40 else shown[:40] + "…"
        what = f"{phrases} 个带引号的短语（至多 {MAX_PHRASES} 个）" if phrases > MAX_PHRASES \
            else f"{terms} 个词（至多 {MAX_TERMS} 个）"
        raise KbError(f"{name}「{shown}」含 {what}")
    return text


def parse_law_range(text: str | None) -> tuple[int, int] | None:
    """'61-64' -> (61, 64); '45' -> (45, 45); None -> None. Bad input raises KbError."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d{1,2})\s*(?:[-–~至到]\s*(\d{1,2}))?\s*", text)
    if not m:
        raise KbError(f"--laws takes N or N-M (law numbers), not {text!r}")
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if lo > hi:
        raise KbError(f"--laws {text!r}: the first law is after the last")
    return lo, hi
