"""The ingest pipeline: sources → adapters → segmentation → collation → records."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kb.adapters import Adapted, adapt
from kb.collate import collate_bridge, collate_mahjong
from kb.records import Record
from kb.segment import bridge, mahjong
from kb.segment.outline import load_outline
from kb.sources import load_manifest

BRIDGE_WORKS = ("cbr1999", "laws1997")


@dataclass
class Corpus:
    records: list[Record]
    adapted: list[Adapted] = field(default_factory=list)


def ingest(folder: Path | None = None, outline_dir: Path | None = None) -> Corpus:
    """Run every ingest stage; raises KbError on any bad input."""
    sources = load_manifest(folder)
    adapted = [adapt(s, s.read()) for s in sources]
    records: list[Record] = []
    for work in ("cbr1999", "laws1997", "twmj16"):
        mine = [a for a in adapted if a.source.work == work]
        if not mine:
            continue
        if work in BRIDGE_WORKS:
            outline = load_outline(work, outline_dir / f"{work}.tsv" if outline_dir else None)
            segments = [seg for a in mine for seg in bridge.segment(a, outline, work)]
            records += collate_bridge(work, outline, segments)
        else:
            segments = [seg for a in mine for seg in mahjong.segment(a, work)]
            records += collate_mahjong(work, segments)
    return Corpus(records, adapted)
