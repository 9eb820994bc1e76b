"""Stage: cross-references. Every record gains `refs` and every target its `cited_by`."""
from __future__ import annotations

from kb.records import Record
from kb.xref import record_refs


def link_records(records: list[Record]) -> None:
    """Find, resolve and record every reference; fill the backlinks."""
    by_id = {r.id: r for r in records}
    for rec in records:
        rec.refs = [ref.to_json() for ref in record_refs(rec, by_id.__contains__)]
        rec.cited_by = []
    for rec in records:
        for ref in rec.refs:
            target = ref.get("target")
            if ref["status"] == "resolved" and target in by_id and rec.id not in by_id[target].cited_by \
                    and target != rec.id:
                by_id[target].cited_by.append(rec.id)
