"""Witness 003: an outline of the section with `|` table debris, then the text.

The outline (law and clause titles) is kept as `toc` blocks: it is evidence for
headings the text part lost, never clause text. The `|` cells are dropped.
"""
from __future__ import annotations

import re

from kb.ingest.adapters.model import Adapted, Block
from kb.ingest.sources import Source

TABLE_DEBRIS = re.compile(r"^[\s|]*$")
# The text part begins at the first clause line with its text on the next line:
# "A．牌面向下的首攻" after the outline's bare "A." cells.
TEXT_CLAUSE = re.compile(r"^[A-H][．.、]\s*\S")
SECTION = re.compile(r"^第[一二三四五六七八九十]+[章节部]")


def adapt(source: Source, text: str) -> Adapted:
    out = Adapted(source, [])
    lines = text.split("\n")
    kept = [(n, ln.strip()) for n, ln in enumerate(lines, 1) if ln.strip()]
    debris = [n for n, ln in enumerate(lines, 1) if ln.strip() and TABLE_DEBRIS.match(ln)]
    if debris:
        out.log("table debris removed", (debris[0], debris[-1]), f"{len(debris)} '|' lines")
    kept = [(n, ln) for n, ln in kept if not TABLE_DEBRIS.match(ln)]
    start = next((i for i, (_, ln) in enumerate(kept) if TEXT_CLAUSE.match(ln)), len(kept))
    # Chapter/part/section headings just before the first clause belong to the text part.
    while start > 0 and SECTION.match(kept[start - 1][1]):
        start -= 1
    for i, (n, line) in enumerate(kept):
        out.blocks.append(Block(line, (n, n), kind="toc" if i < start else "text"))
    return out
