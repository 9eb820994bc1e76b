"""Witness 001: the mahjong rules, as a bulleted list scraped from a symbol font.

Damage undone here: `l ` bullets (a symbol-font bullet that became the letter l);
the HTML entity split across two lines (`l&nbs` / `p;`); items broken across
lines (a line that starts neither a bullet nor a numbered item continues the one
before). ASCII punctuation is left to the mahjong segmenter.
"""
from __future__ import annotations

import re

from kb.core.errors import KbError
from kb.ingest.adapters.model import Adapted, Block
from kb.ingest.sources import Source

BULLET = re.compile(r"^l\s+(?=\S)")
SPLIT_ENTITY = re.compile(r"^l&nbs$")
ENTITY_TAIL = re.compile(r"^p;\s*")
ITEM = re.compile(r"^\d{1,2}\.\s")


def adapt(source: Source, text: str) -> Adapted:
    out = Adapted(source, [])
    lines = text.split("\n")
    pending_entity = 0
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if SPLIT_ENTITY.match(line):
            pending_entity = n
            continue
        if pending_entity:
            if not ENTITY_TAIL.match(line):
                raise KbError(f"{source.path}:{pending_entity}: broken HTML entity 'l&nbs' not followed by 'p;'")
            out.log("split HTML entity rejoined as a bullet", (pending_entity, n), "l&nbs / p;")
            out.blocks.append(Block(ENTITY_TAIL.sub("", line), (pending_entity, n), label="section"))
            pending_entity = 0
            continue
        if BULLET.match(line):
            out.blocks.append(Block(BULLET.sub("", line), (n, n), label="section"))
        elif ITEM.match(line):
            out.blocks.append(Block(line, (n, n), label="item"))
        elif out.blocks:
            prev = out.blocks[-1]
            prev.text += line
            prev.lines = (prev.lines[0], n)
            out.log("line break inside an item rejoined", (n - 1, n), line[:12])
        else:
            raise KbError(f"{source.path}:{n}: text before the first bullet: '{line[:20]}'")
    if pending_entity:
        raise KbError(f"{source.path}:{pending_entity}: broken HTML entity 'l&nbs' at the end")
    if not any(b.label == "section" for b in out.blocks):
        raise KbError(f"{source.path}:1: no bulleted sections found")
    return out
