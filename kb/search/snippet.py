"""Result snippets: the clause text around the query's words, with the words marked."""
from __future__ import annotations

import bisect
import html
import re
from collections.abc import Iterable
from functools import lru_cache

from kb.search.analysis import normalize

SNIPPET_CHARS = 120


_SPECIAL = re.compile("[&<>\"']")


@lru_cache(maxsize=2048)
def normal_form(display: str) -> tuple[str, bool]:
    """The normalized text, and whether the display text holds a character HTML escapes."""
    return normalize(display), _SPECIAL.search(display) is not None


def mark_order(terms: Iterable[str]) -> tuple[str, ...]:
    """Terms once each, longest first, then in a fixed order (a longer term is marked before its parts)."""
    return tuple(sorted(set(terms), key=lambda t: (-len(t), t)))


def _plain(s: str) -> str:
    return s


def highlight(display: str, terms: Iterable[str], width: int = SNIPPET_CHARS, *,
              ordered: bool = False, normalized: tuple[str, bool] | None = None) -> str:
    """HTML snippet of ``display`` with each term occurrence in <mark>; everything escaped.

    Terms are normalized strings; they are found in ``normalize(display)``, which has
    the same length, so the marks fall on the text as shown (Traditional or Simplified).
    ``ordered``: the terms are already in ``mark_order`` (and none is empty); ``normalized``:
    ``normal_form(display)``, if the caller keeps it.
    """
    if not display:
        return ""
    norm, special = normalized or normal_form(display)
    esc = html.escape if special else _plain
    taken = bytearray(len(norm))
    spans: list[tuple[int, int]] = []
    for t in (terms if ordered else mark_order(t for t in terms if t)):
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
        lo = _window(spans, len(display), width)
        hi = lo + width
    out: list[str] = ["…"] if lo > 0 else []
    pos = lo
    for s, e in spans:
        if s >= lo and e <= hi:
            out.append(esc(display[pos:s]))
            out.append("<mark>" + esc(display[s:e]) + "</mark>")
            pos = e
    out.append(esc(display[pos:hi]))
    if hi < len(display):
        out.append("…")
    return "".join(out)


def _window(spans: list[tuple[int, int]], length: int, width: int) -> int:
    """The start of the ``width`` characters holding the most marks (the first such, near a mark)."""
    best_lo, best_n = 0, -1
    starts = [a for a, _ in spans]
    for s, _ in spans:
        cand = max(0, min(s - width // 6, length - width))
        # spans are sorted and disjoint: those from cand on, ending by cand + width
        first = bisect.bisect_left(starts, cand)
        n = 0
        for _, b in spans[first:]:
            if b > cand + width:
                break
            n += 1
        if n > best_n:
            best_lo, best_n = cand, n
    return best_lo


def outline(children: list[tuple[str, str]]) -> str:
    """What a heading with no text of its own shows as its snippet: its clauses, each citation and
    title (27A 不足叫牌被接受；27B 不足叫牌不被接受)."""
    return "；".join(f"{c} {t}".strip() for c, t in children)


def shown_text(text: str, children: list[tuple[str, str]]) -> str:
    """What a result shows of a clause with clauses under it (``children``: citation and title of
    each): a heading with no text, its clauses; a lead-in ending in a colon, itself and then its
    clauses (当藏牌成立时：64A1 违规者赢得藏牌墩；64A2 …), so the answer's place shows; else its text."""
    if not children:
        return text
    if not text:
        return outline(children)
    if text.rstrip().endswith(("：", ":")):
        return text.rstrip() + outline(children)
    return text


def under(citation: str, title: str, text: str) -> dict[str, str]:
    """What a result says of the clause its clause stands under (43B2(a) under 43B2): that
    clause's citation, its title (none when it is cited by it), the name a reader sees (citation
    and title; a title that begins with the citation alone: 计台名堂、台数与定义), and its text when
    that is a lead-in ending in a colon, whose sentence the clause finishes (明手有违反了上述A款2
    所列的限制后，……即：): a sub-clause never reads without its condition."""
    text = (text or "").strip()
    title = "" if title == citation else title or ""
    name = title if title.startswith(citation) else " ".join(filter(None, (citation, title)))
    return {"citation": citation, "title": title, "name": name,
            "text": text if text.endswith(("：", ":")) else ""}


def plain_snippet(snippet: str) -> str:
    """A snippet without <mark> tags and entities, for people at a terminal."""
    return html.unescape(snippet.replace("<mark>", "").replace("</mark>", ""))
