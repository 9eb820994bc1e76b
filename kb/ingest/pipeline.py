"""The ingest pipeline, in the one place that names the stage order.

    sources → adapters → normalise → segment → collate → settle → invariants   (ingest: the witnesses
                                                                                 into records)
            → link (xref) → twins → subjects → concordance              (STAGES: each returns new records)

`run` is the whole floor: its records are what the build writes to records.jsonl, the
contract every output (search index, site, rules pages) reads as written.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

from kb.core import works
from kb.core.errors import KbError
from kb.core.records import Record
from kb.ingest.adapters import Adapted, adapt
from kb.ingest.collate import collate_bridge, collate_mahjong
from kb.ingest.concordance import attach_concordance
from kb.ingest.invariants import check_corpus
from kb.ingest.link import link_records
from kb.ingest.segment import bridge, mahjong
from kb.ingest.segment.outline import load_outline
from kb.ingest.settle import settle_readings
from kb.ingest.sources import load_manifest
from kb.ingest.subjects import attach_subjects
from kb.ingest.twins import attach_twins, twin_ids


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
    return Corpus(settle_readings(records, twin_ids(records)), adapted)


# The enrichment stages after collation, in order: each takes the records and returns new ones
# (a stage never changes the records it is given).
STAGES: tuple[tuple[str, Callable[[list[Record]], list[Record]]], ...] = (
    ("link", link_records),
    ("twins", attach_twins),
    ("subjects", attach_subjects),
    ("concordance", attach_concordance),
)


def run(folder: Path | None = None, timed: Callable[[str], AbstractContextManager] | None = None) -> Corpus:
    """Every ingest stage in order: the witnesses, collated and checked, then STAGES.

    ``timed(name)`` (optional) wraps each stage, for the build's per-stage times."""
    timed = timed or (lambda name: nullcontext())
    with timed("ingest"):
        corpus = ingest(folder)
        check_corpus(corpus)
    records = corpus.records
    for name, stage in STAGES:
        with timed(name):
            records = stage(records)
    return replace(corpus, records=records)


def stage_names() -> Iterator[str]:
    yield "ingest"
    for name, _ in STAGES:
        yield name
