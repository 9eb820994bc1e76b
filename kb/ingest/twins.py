"""Stage: twins. Each clause of a translation gains `twin`, the same clause in its twin translation.

Two works are twins when they translate the same original (kb/data/works.toml), and a clause's
twin is, as a rule, the clause with the same citation: cbr1999:45C4b and laws1997:45C4b. Where
the two translations letter a law differently, kb/data/twins.tsv says which clauses correspond
(an editor's reading of the texts, checked against the 1997 Laws): one row per clause,
``id<TAB>twin``, the twin being ``-`` where the other translation has no such clause. A row
pairs both ways; the clauses it names are then paired by it alone.

Search (one result per clause and its twin), the comparison pages and the benchmark all read
`twin` from the records; nothing after this stage pairs clauses by their citation.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kb.core import works
from kb.core.curated import Table, read_table
from kb.core.errors import KbError
from kb.core.records import Record

TABLE = Table("twins.tsv", ("id", "twin"), unique=("id",))
NONE = "-"


def attach_twins(records: list[Record], root: Path | None = None) -> list[Record]:
    """New records, each with its ``twin`` (None where its translation has no twin or no such clause)."""
    twins = twin_ids(records, root)
    return [replace(rec, twin=twins[rec.id]) for rec in records]


def twin_ids(records: list[Record], root: Path | None = None) -> dict[str, str | None]:
    """Each record's twin id (None where its translation has no twin or no such clause)."""
    by_id = {r.id: r for r in records}
    fixed: dict[str, str | None] = {}
    for row in read_table(TABLE, root):
        rid, other = row["id"], row["twin"]
        rec = by_id.get(rid)
        if rec is None:
            raise KbError(f"{row.where}: no record '{rid}'")
        twin_work = works.twin_of(rec.work)
        if twin_work is None:
            raise KbError(f"{row.where}: work '{rec.work}' has no twin translation")
        if other != NONE:
            mate = by_id.get(other)
            if mate is None or mate.work != twin_work:
                raise KbError(f"{row.where}: no record '{other}' in work '{twin_work}'")
        for a, b in ((rid, None if other == NONE else other), (other, rid)):
            if a == NONE:
                continue
            if a in fixed and fixed[a] != b:
                raise KbError(f"{row.where}: '{a}' is paired twice")
            fixed[a] = b
    return {rec.id: _twin(rec, fixed, by_id) for rec in records}


def _twin(rec: Record, fixed: dict[str, str | None], by_id: dict[str, Record]) -> str | None:
    twin_work = works.twin_of(rec.work)
    if twin_work is None:
        return None
    if rec.id in fixed:
        return fixed[rec.id]
    same = f"{twin_work}:{rec.id.split(':', 1)[1]}"
    return same if same in by_id and same not in fixed else None
