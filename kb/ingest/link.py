"""Stage: cross-references. Every record gains `refs` and every target its `cited_by`."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from kb.core.records import Record
from kb.ingest.xref import record_refs


def link_records(records: list[Record]) -> list[Record]:
    """New records with every reference found, resolved and recorded, and the backlinks filled
    (the records given are left as they are)."""
    known = {r.id for r in records}.__contains__
    records = [replace(rec, refs=[_restored(ref.to_json(), rec) for ref in record_refs(rec, known)], cited_by=[])
               for rec in records]
    by_id = {r.id: r for r in records}
    for rec in records:
        for ref in rec.refs:
            target = ref.get("target")
            if ref["status"] == "resolved" and target in by_id and rec.id not in by_id[target].cited_by \
                    and target != rec.id:
                by_id[target].cited_by.append(rec.id)
    return records


def _restored(ref: dict[str, Any], rec: Record) -> dict[str, Any]:
    """A reference the editor restored (kb/data/restorations.tsv) says so: `restored` with its
    citation, authority and confidence; a `likely` one is a conjecture, shown but never linked."""
    for note in rec.notes:
        if note.get("kind") != "restoration" or note.get("where") != "text":
            continue
        a, b = note["span"]
        if not (a < ref["span"][1] and ref["span"][0] < b):
            continue
        ref["restored"] = {"citation": note["citation"], "authority": note["from"],
                           "confidence": note["confidence"]}
        ref.setdefault("wanted", note["citation"])
        if note["confidence"] != "sure":
            ref["status"] = "conjecture"
            ref["target"] = None
            ref.pop("coarser", None)
    return ref
