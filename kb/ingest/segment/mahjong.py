"""Segment the mahjong rules (twmj16) into sections and numbered items.

Every bulleted heading is a section (its id from kb/data/mahjong/sections.tsv);
numbered lines are items, nested when a list restarts at 1 under an item
(七抢一's two cases; 错杠之处理 nests two levels). Scoring items carry their 台.
"""
from __future__ import annotations

import re

from kb.core.errors import KbError
from kb.core.works import sections
from kb.ingest.adapters import Adapted
from kb.ingest.segment import Segment

SECTION = re.compile(r"^(?P<title>[^:：]{1,16}?)\s*[:：]\s*")
ITEM = re.compile(r"^(?P<n>\d{1,2})\.\s*")
SCORING = re.compile(r"^(?P<name>[^:：]+?)\s*(?:(?P<tai>\d+N?|\d*N)台)?\s*[:：]\s*")
ITEM_TITLE = re.compile(r"^(?P<title>[^:：,，.。;；()（）]{1,10})\s*[:：]\s*")


def segment(adapted: Adapted, work: str) -> list[Segment]:
    src = adapted.source
    slugs = {row["heading"]: (row["slug"], row["citation"]) for row in sections(work)}
    segments: list[Segment] = []
    section: tuple[str, str] | None = None
    stack: list[int] = []           # numbering at each nesting level
    for block in adapted.blocks:
        if block.kind != "text":
            continue
        where = f"{src.path}:{block.lines[0]}"
        if block.label == "section":
            m = SECTION.match(block.text)
            if not m:
                raise KbError(f"{where}: section heading without ':' ('{block.text[:16]}')")
            title = m.group("title").strip()
            if title not in slugs:
                raise KbError(f"{where}: section '{title}' has no id in kb/data/mahjong/sections.tsv")
            slug, short = slugs[title]
            section, stack = (slug, short), []
            segments.append(Segment(work, slug, src.sigil, src.file, title, block.text[m.end():].strip(),
                                    block.lines, extra={"citation": short, "level": "section", "parent": None}))
            continue
        if section is None:
            raise KbError(f"{where}: numbered item before any section")
        m = ITEM.match(block.text)
        if m is None:
            raise KbError(f"{where}: not a numbered item")
        n = int(m.group("n"))
        if n == 1:                  # a list starts: one level deeper (七抢一's cases, 错杠之处理)
            stack.append(1)
        else:                       # the next item of this list or of an enclosing one
            while stack and stack[-1] != n - 1:
                stack.pop()
            if not stack:
                raise KbError(f"{where}: item {n} does not continue any list")
            stack[-1] = n
        path = [str(x) for x in stack]
        body = block.text[m.end():]
        title, tai = "", None
        if section[0] == "patterns" and len(path) == 1:
            sm = SCORING.match(body)
            if not sm:
                raise KbError(f"{where}: scoring item {n} has no 'name [N台] :' heading")
            title, tai, body = sm.group("name").strip(), sm.group("tai"), body[sm.end():]
            if tai is None:
                first = re.search(r"(\d+)台", body)
                tai = first.group(1) if first else None
        else:
            tm = ITEM_TITLE.match(body)
            if tm:
                title, body = tm.group("title").strip(), body[tm.end():]
        local = f"{section[0]}.{'.'.join(path)}"
        parent = f"{section[0]}.{'.'.join(path[:-1])}" if len(path) > 1 else section[0]
        segments.append(Segment(work, local, src.sigil, src.file, title, body.strip(), block.lines,
                                extra={"citation": f"{section[1]} {'.'.join(path)}", "tai": tai,
                                       "level": "item" if len(path) == 1 else "subitem", "parent": parent}))
    seen: set[str] = set()
    for seg in segments:
        if seg.cite in seen:
            raise KbError(f"{src.path}:{seg.lines[0]}: id twmj16:{seg.cite} occurs twice")
        seen.add(seg.cite)
    return segments
