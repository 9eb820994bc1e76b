"""Witness 004: Simplified, fullwidth digits and letters, scraped page by page.

Damage undone here: `downtown` page-break lines; footnotes ([14], [15]) spliced
into the middle of a clause (moved out and attached to the clause that carries
the footnote mark); an unrelated forum post at the end. Fullwidth folding and
OCR slips are left to normalisation and collation.
"""
from __future__ import annotations

import re

from kb.core.errors import KbError
from kb.ingest.adapters.model import Adapted, Block
from kb.ingest.normalise import fold_width
from kb.ingest.sources import Source

PAGE_BREAK = re.compile(r"^\s*downtown\s*$")
FORUM_POST = re.compile(r"^\s*posted \d{2}-\d{2}-\d{4}")
FOOTNOTE_BODY = re.compile(r"^\s*[［\[]([０-９0-9]{1,3})[］\]〕]\s*")
FOOTNOTE_MARK = re.compile(r"[［\[]([０-９0-9]{1,3})[］\]〕]")
LAW_HEADING = re.compile(r"第\s*[0-9０-９]+\s*条")
SENTENCE_END = "。；：！？）)」"


def _first_sentence(text: str) -> int:
    """Index just past the first 。 outside brackets, or len(text)."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "（(":
            depth += 1
        elif ch in "）)":
            depth = max(0, depth - 1)
        elif ch == "。" and depth == 0:
            return i + 1
    return len(text)


def _number(label: str) -> str:
    return str(int(fold_width(label)))


def adapt(source: Source, text: str) -> Adapted:
    out = Adapted(source, [])
    lines = text.split("\n")
    marks: dict[str, int] = {}
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        if PAGE_BREAK.match(line):
            out.log("page-break debris removed", (n, n), line)
            continue
        if FORUM_POST.match(line):
            rest = lines[n - 1:]
            if any(LAW_HEADING.search(r) for r in rest):
                raise KbError(f"{source.path}:{n}: a law heading follows the forum post; refusing to drop it")
            out.log("unrelated forum post removed", (n, len(lines)), f"{len(rest)} lines")
            break
        body = FOOTNOTE_BODY.match(line)
        if body:
            label = _number(body.group(1))
            note = line[body.end():]
            prev = next((b for b in reversed(out.blocks) if b.kind == "text"), None)
            if prev is not None and prev.text and prev.text[-1] not in SENTENCE_END:
                cut = _first_sentence(note)
                note, tail = note[:cut], note[cut:]
                if tail:
                    prev.text += tail
                    prev.lines = (prev.lines[0], n)
                    out.log("footnote spliced into a clause: clause text rejoined", (n, n), tail)
            if label not in marks:
                raise KbError(f"{source.path}:{n}: footnote [{label}] has no mark in the text before it")
            out.blocks.append(Block(note, (n, n), kind="footnote", label=label, anchor=marks[label]))
            out.log("footnote moved out of the clause text", (n, n), f"[{label}]")
            continue
        for m in FOOTNOTE_MARK.finditer(line):
            marks[_number(m.group(1))] = len(out.blocks)
        line = FOOTNOTE_MARK.sub("", line)
        out.blocks.append(Block(line, (n, n)))
    return out
