"""Stage 4: segmentation of each witness into the work's own hierarchy.

The output is one Segment per node per witness: that witness's heading and
text for the node, with provenance and a note for everything recovered from
elsewhere (a lost law number, a missing heading, a clause letter inferred
from the curated outline).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Segment:
    """One witness's reading of one node (law, clause, item, sub-item, section)."""

    work: str
    cite: str                   # compact citation / id local part: "45C4b", "patterns.13"
    sigil: str
    source: str
    title: str                  # the witness's heading as written ("" if none)
    text: str                   # the witness's own text, children excluded
    lines: tuple[int, int]
    notes: list[dict] = field(default_factory=list)
    footnotes: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)   # mahjong: citation, level, parent, tai
