"""Result snippets: the clause text around the query's words, with the words marked."""
from __future__ import annotations

import html
from collections.abc import Iterable
from functools import lru_cache

from kb.search.analysis import normalize

SNIPPET_CHARS = 120


@lru_cache(maxsize=2048)
def _normalized(display: str) -> str:
    return normalize(display)


def highlight(display: str, terms: Iterable[str], width: int = SNIPPET_CHARS) -> str:
    """HTML snippet of ``display`` with each term occurrence in <mark>; everything escaped.

    Terms are normalized strings; they are found in ``normalize(display)``, which has
    the same length, so the marks fall on the text as shown (Traditional or Simplified).
    """
    if not display:
        return ""
    norm = _normalized(display)
    taken = bytearray(len(norm))
    spans: list[tuple[int, int]] = []
    for t in sorted({t for t in terms if t}, key=lambda t: (-len(t), t)):   # longest first, then a fixed order
        start = norm.find(t)
        while start >= 0:
            end = start + len(t)
            if not any(taken[start:end]):
                spans.append((start, end))
                taken[start:end] = b"\x01" * (end - start)
            start = norm.find(t, start + 1)
    spans.sort()
    lo, hi = 0, len(display)
    if len(display) > width:
        best_lo, best_n = 0, -1
        for s, _ in spans:
            cand = max(0, min(s - width // 6, len(display) - width))
            n = sum(1 for a, b in spans if a >= cand and b <= cand + width)
            if n > best_n:
                best_lo, best_n = cand, n
        lo, hi = best_lo, best_lo + width
    out: list[str] = ["…"] if lo > 0 else []
    pos = lo
    for s, e in spans:
        if s >= lo and e <= hi:
            out.append(html.escape(display[pos:s]))
            out.append("<mark>" + html.escape(display[s:e]) + "</mark>")
            pos = e
    out.append(html.escape(display[pos:hi]))
    if hi < len(display):
        out.append("…")
    return "".join(out)


def plain_snippet(snippet: str) -> str:
    """A snippet without <mark> tags and entities, for people at a terminal."""
    return html.unescape(snippet.replace("<mark>", "").replace("</mark>", ""))
