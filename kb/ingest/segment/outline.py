"""The curated outline of a bridge work (kb/data/outline/WORK.tsv).

Each line: CITATION<TAB>TITLE[<TAB>ALT|ALT…] (TITLE "-" when no witness has a
heading), or a heading line =chapter|part|section<TAB>LABEL<TAB>TITLE.
Titles are Simplified, exactly as the witnesses write them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kb.core import works
from kb.core.curated import DATA_DIR, read_lines, split_line
from kb.core.errors import KbError

CITE = re.compile(r"^(\d{1,2})(?:([A-H])(?:(\d{1,2})([a-e])?)?)?$")
LEVELS = ("law", "clause", "item", "subitem")


@dataclass
class Node:
    cite: str
    titles: list[str]           # preferred first; empty when no heading
    law: int
    path: list[str]
    line: int
    headings: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, label, title) before a law

    @property
    def level(self) -> str:
        return LEVELS[len(self.path) - 1]

    @property
    def parent(self) -> str | None:
        return "".join(self.path[:-1]) or None


def citation_label(path: list[str]) -> str:
    """45C4b -> 45C4(b): the form people cite."""
    out = "".join(path[:3])
    if len(path) > 3:
        out += f"({path[3]})"
    return out


def split_cite(cite: str) -> list[str]:
    m = CITE.match(cite)
    if not m:
        raise ValueError(cite)
    return [g for g in m.groups() if g]


def load_outline(work: str, path: Path | None = None) -> list[Node]:
    """A bridge work's outline (its file named in kb/data/works.toml), every line checked."""
    path = path or DATA_DIR / works.get(work).outline
    lines = read_lines(path)
    nodes: list[Node] = []
    seen: set[str] = set()
    pending: list[tuple[str, str, str]] = []
    for n, line in enumerate(lines, 1):
        raw = split_line(line)
        if raw is None:
            continue
        cells = [c.strip() for c in raw]
        if len(cells) > 3:
            raise KbError(f"{path}:{n}: expected at most 3 tab-separated columns, got {len(cells)}")
        if cells[0].startswith("="):
            if len(cells) != 3 or cells[0][1:] not in ("chapter", "part", "section"):
                raise KbError(f"{path}:{n}: heading lines are =chapter|part|section<TAB>LABEL<TAB>TITLE")
            pending.append((cells[0][1:], cells[1], cells[2]))
            continue
        if len(cells) < 2:
            raise KbError(f"{path}:{n}: expected CITATION<TAB>TITLE")
        try:
            parts = split_cite(cells[0])
        except ValueError:
            raise KbError(f"{path}:{n}: bad citation '{cells[0]}'") from None
        if cells[0] in seen:
            raise KbError(f"{path}:{n}: citation '{cells[0]}' listed twice")
        if len(parts) > 1 and "".join(parts[:-1]) not in seen:
            raise KbError(f"{path}:{n}: '{cells[0]}' comes before its parent")
        seen.add(cells[0])
        titles = [] if cells[1] == "-" else [cells[1]]
        if len(cells) > 2 and cells[2]:
            titles += [t for t in cells[2].split("|") if t and t != "-"]
        node = Node(cells[0], titles, int(parts[0]), parts, n)
        if pending:
            if node.level != "law":
                raise KbError(f"{path}:{n}: a chapter/part/section heading must come before a law")
            node.headings, pending = pending, []
        nodes.append(node)
    if not nodes:
        raise KbError(f"{path}: the outline is empty")
    return nodes
