"""Stage: the subject index. Each record gains `subjects`, the editors' index terms for it,
`questions`, the questions people ask that it answers, and `english`, what English speakers call
what it governs.

A subject index is what a law book has at its back: the words readers look things up by,
each pointing at the clauses that answer it. Ours is written per clause, in the words
people use rather than the rule book's own (亮出来 for 暴露, 认输 for 承认, 梦家 for 明手,
revoke for 藏牌), so a question in a director's own words finds its clause. Search indexes
the terms as a field of their own; the site lists them in each work's index page.

The questions are the same aid in whole sentences: what a director types when facing the
situation a clause governs (庄家只说了花色没说点数，出哪张). Search indexes them with the
subject terms; the site does not list them.

The English phrases (revoke on the twelfth trick, dummy leaves the table) let a director who types
English find the clause; search indexes them as a field of their own (English words by their
stem), so they neither lengthen nor outweigh the Chinese terms.

Data: ``kb/data/subjects/<work>.tsv`` (optional per work), one row per record:
``id<TAB>term、term、…`` in Simplified characters; ``kb/data/questions/<work>.tsv`` (optional
per work), ``id<TAB>question|question|…``; ``kb/data/english/<work>.tsv`` (optional per work),
``id<TAB>phrase; phrase; …`` in lowercase English. An id not among the records, a term or question
given twice, or an empty one is an error naming the file and line.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kb.core import works
from kb.core.curated import Table, read_table
from kb.core.errors import KbError
from kb.core.records import Record

SEPARATOR = "、"
QUESTION_SEPARATOR = "|"
ENGLISH_SEPARATOR = ";"


def table(work_id: str) -> Table:
    """The subject table of one work (its file may be absent: a work without an index)."""
    return Table(f"subjects/{work_id}.tsv", ("id", "terms"), unique=("id",))


def question_table(work_id: str) -> Table:
    """The question table of one work (its file may be absent)."""
    return Table(f"questions/{work_id}.tsv", ("id", "questions"), unique=("id",))


def english_table(work_id: str) -> Table:
    """The English phrases of one work (its file may be absent)."""
    return Table(f"english/{work_id}.tsv", ("id", "phrases"), unique=("id",))


def attach_subjects(records: list[Record], root: Path | None = None) -> list[Record]:
    """New records, each with its ``subjects``, ``questions`` and ``english`` from its work's tables
    (under ``root``, default kb/data)."""
    records = [replace(rec, subjects=[], questions=[], english=[]) for rec in records]
    by_id = {r.id: r for r in records}
    for work in works.all_works():
        for t, column, attr, separator, kind in (
                (table(work.id), "terms", "subjects", SEPARATOR, "term"),
                (question_table(work.id), "questions", "questions", QUESTION_SEPARATOR, "question"),
                (english_table(work.id), "phrases", "english", ENGLISH_SEPARATOR, "English phrase")):
            if not t.file(root).is_file():
                continue
            for row in read_table(t, root):
                rid = row["id"]
                target = by_id.get(rid)
                if target is None or target.work != work.id:
                    raise KbError(f"{row.where}: no record '{rid}' in work '{work.id}'")
                setattr(target, attr, _items(row[column], separator, kind, row.where))
    return records


def _items(cell: str, separator: str, kind: str, where: str) -> list[str]:
    """The terms (or questions) of one cell: none empty, none twice."""
    items = [s.strip() for s in cell.split(separator)]
    if any(not s for s in items):
        raise KbError(f"{where}: an empty {kind} (two {separator} in a row, or one at an end)")
    seen: set[str] = set()
    for s in items:
        if s in seen:
            raise KbError(f"{where}: {kind} '{s}' is given twice")
        seen.add(s)
    return items

