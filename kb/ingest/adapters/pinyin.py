"""Witness 002: one long line, pinyin glued after characters: 時(shí).

Also: mis-decoded runs (curated table), a scraper label in front, and every
Arabic digit stripped (recovered later, never here).
"""
from __future__ import annotations

import re

from kb.core.curated import Table, read_table
from kb.core.errors import KbError
from kb.ingest.adapters.model import Adapted, Block
from kb.ingest.sources import Source

TONES = "āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜüńňǹḿ"
PINYIN = re.compile(rf"(?<=[\u3400-\u9fff])\((?=[a-z{TONES}]*[{TONES}])[a-z{TONES}]{{1,7}}\)")
LABEL = re.compile(r"^\s*【[^】]{1,12}】\s*")
LEFTOVER = re.compile(rf"[\ue000-\uf8ff?]|\([a-z{TONES}]+\)")


REPAIRS = Table("repairs/002-mojibake.tsv", ("wrong", "right", "why"), unique=("wrong",))


def adapt(source: Source, text: str) -> Adapted:
    out = Adapted(source, [])
    lines = text.split("\n")
    repairs = read_table(REPAIRS)
    used: set[str] = set()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        for row in repairs:
            wrong, right = row["wrong"], row["right"]
            count = line.count(wrong)
            if count:
                line = line.replace(wrong, right)
                used.add(wrong)
                out.log("mis-decoded run", (n, n), f"{wrong!r} -> {right} ×{count}")
        line, count = PINYIN.subn("", line)
        if count:
            out.log("pinyin removed", (n, n), f"{count} glued readings")
        label = LABEL.match(line)
        if label:
            out.log("scraper label removed", (n, n), label.group(0).strip())
            line = line[label.end():]
        bad = LEFTOVER.search(line)
        if bad:
            raise KbError(f"{source.path}:{n}: unrepaired damage {bad.group(0)!r} near "
                          f"'{line[max(0, bad.start() - 8):bad.end() + 8]}'")
        if line.strip():
            out.blocks.append(Block(line.strip(), (n, n)))
    for row in repairs:
        if row["wrong"] not in used:
            raise KbError(f"{row.where}: repair {row['wrong']!r} matches nothing in {source.path}")
    return out
