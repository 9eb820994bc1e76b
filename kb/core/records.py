"""Clause records: the contract between the ingest stages and everything after them.

A record is one addressable unit of a work: a law, a lettered clause, a numbered
item or an (a) sub-item (bridge), or a section / item (mahjong). Records are
exported as JSON Lines; later stages (cross-references, index, site, rules)
read them and never re-parse the raw texts.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# The mark for a digit or clause letter a witness lost (第□条□款): every stage reads it from here.
LOST_MARK = "□"


@dataclass
class Witness:
    """One witness's reading of a record, with provenance."""

    source: str                 # source file name, e.g. "000_bd8d544e65d63b09.txt"
    sigil: str                  # "000"
    lines: list[int]            # [first, last], 1-based lines of the source file
    text: str                   # the witness's own text (after damage repair, before OpenCC)
    title: str = ""             # the witness's own heading, if it has one


@dataclass
class Record:
    id: str                     # "cbr1999:45C4b", "twmj16:patterns.13"
    work: str                   # "cbr1999" | "laws1997" | "twmj16"
    citation: str               # human form: "45C4(b)", "计台名堂 13"
    level: str                  # "law" | "clause" | "item" | "subitem" | "section"
    parent: str | None
    order: int                  # position in reading order within the work
    law: int | None = None      # bridge only
    path: list[str] = field(default_factory=list)   # ["45", "C", "4", "b"]
    title_hans: str = ""
    title_hant: str = ""
    text_hans: str = ""         # the record's own text, children excluded
    text_hant: str = ""
    witnesses: list[Witness] = field(default_factory=list)
    variants: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)
    footnotes: list[dict[str, Any]] = field(default_factory=list)
    heading: list[str] = field(default_factory=list)  # chapter/part/section titles above a law
    tai: str | None = None      # mahjong scoring items: the 台 value as the text gives it ("16", "2N")
    refs: list[dict[str, Any]] = field(default_factory=list)
    cited_by: list[str] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)  # the editors' index terms (kb/data/subjects/)
    questions: list[str] = field(default_factory=list)  # questions it answers, as asked (kb/data/questions/)
    english: list[str] = field(default_factory=list)   # what English speakers call it (kb/data/english/)
    twin: str | None = None     # the same clause in the twin translation (kb/ingest/twins.py)
    # what the Laws in force (2017) made of it: {code, citation, change, authority} (kb/ingest/concordance.py)
    concordance: list[dict[str, str]] = field(default_factory=list)

    @property
    def fragment(self) -> bool:
        """A law a witness kept only a fragment of (kb/ingest/segment/bridge.py notes it: 第26条's end)."""
        return any(n.get("kind") == "fragment" for n in self.notes)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Record:
        data = dict(obj)
        data["witnesses"] = [Witness(**w) for w in data.get("witnesses", [])]
        return cls(**data)


def write_jsonl(records: Iterable[Record], path: Path) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec.to_json(), ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> Iterator[Record]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield Record.from_json(json.loads(line))
