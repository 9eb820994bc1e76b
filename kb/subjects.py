"""Stage: the subject index. Each record gains `subjects`, the editors' index terms for it.

A subject index is what a law book has at its back: the words readers look things up by,
each pointing at the clauses that answer it. Ours is written per clause, in the words
people use rather than the rule book's own (亮出来 for 暴露, 认输 for 承认, 梦家 for 明手,
revoke for 藏牌), so a question in a director's own words finds its clause. Search indexes
the terms as a field of their own; the site lists them in each work's index page.

Data: ``kb/data/subjects/<work>.tsv`` (optional per work), one row per record:
``id<TAB>term、term、…`` in Simplified characters. An id not among the records, a term
given twice, or an empty term is an error naming the file and line.
"""
from __future__ import annotations

from pathlib import Path

from kb import works
from kb.curated import Table, read_table
from kb.errors import KbError
from kb.records import Record

SEPARATOR = "、"


def table(work_id: str) -> Table:
    """The subject table of one work (its file may be absent: a work without an index)."""
    return Table(f"subjects/{work_id}.tsv", ("id", "terms"), unique=("id",))


def attach_subjects(records: list[Record], root: Path | None = None) -> None:
    """Set every record's ``subjects`` from its work's subject table (under ``root``, default kb/data)."""
    by_id = {r.id: r for r in records}
    for rec in records:
        rec.subjects = []
    for work in works.all_works():
        t = table(work.id)
        if not t.file(root).is_file():
            continue
        for row in read_table(t, root):
            rid = row["id"]
            target = by_id.get(rid)
            if target is None or target.work != work.id:
                raise KbError(f"{row.where}: no record '{rid}' in work '{work.id}'")
            terms = [s.strip() for s in row["terms"].split(SEPARATOR)]
            if any(not s for s in terms):
                raise KbError(f"{row.where}: an empty term (two {SEPARATOR} in a row, or one at an end)")
            seen: set[str] = set()
            for s in terms:
                if s in seen:
                    raise KbError(f"{row.where}: term '{s}' is given twice")
                seen.add(s)
            target.subjects = terms

