"""The ingest pipeline: sources → adapters → segmentation → collation → records."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kb import works
from kb.adapters import Adapted, adapt
from kb.collate import collate_bridge, collate_mahjong
from kb.errors import KbError
from kb.records import Record
from kb.segment import bridge, mahjong
from kb.segment.outline import load_outline
from kb.sources import load_manifest


@dataclass
class Corpus:
    records: list[Record]
    adapted: list[Adapted] = field(default_factory=list)


def ingest(folder: Path | None = None, outline_dir: Path | None = None) -> Corpus:
    """Run every ingest stage over every work in the registry; raises KbError on any bad input.

    A work the registry lists but no source provides is an error: a missing witness file
    must never turn into a silently missing rule book.
    """
    sources = load_manifest(folder)
    adapted = [adapt(s, s.read()) for s in sources]
    records: list[Record] = []
    for work in works.all_works():
        mine = [a for a in adapted if a.source.work == work.id]
        if not mine:
            raise KbError(f"kb/data/works.toml: work '{work.id}' has no source in the manifest")
        if work.kind == "bridge":
            outline = load_outline(work.id, outline_dir / f"{work.id}.tsv" if outline_dir else None)
            segments = [seg for a in mine for seg in bridge.segment(a, outline, work.id)]
            records += collate_bridge(work.id, outline, segments)
        else:
            segments = [seg for a in mine for seg in mahjong.segment(a, work.id)]
            records += collate_mahjong(work.id, segments)
    return Corpus(records, adapted)
