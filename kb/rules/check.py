"""The records checked against the rules as code, before any output is built from them.

Each mahjong scoring clause must state the 台 the rules' pattern table encodes: a re-pinned but
damaged source (or kb/data/mahjong/patterns.tsv out of step) fails the build here.
"""
from __future__ import annotations

from collections.abc import Iterable

from kb.core import works
from kb.core.errors import KbError
from kb.core.records import Record


def check_records(records: Iterable[Record]) -> None:
    """KbError naming the first clause whose text disagrees with the rules as code."""
    from kb.rules.mahjong.hand import WORK
    from kb.rules.mahjong.patterns import pattern_rows

    if WORK not in works.work_ids():
        return
    by_id = {r.id: r for r in records}
    for p in pattern_rows():
        rec = by_id.get(p["clause"])
        if rec is None:
            raise KbError(f"{p['clause']}: scoring pattern {p['number']} {p['name']} is missing from the records")
        if (rec.tai or "") != p["tai"]:
            raise KbError(f"{p['clause']}: the text gives {p['name']} {rec.tai or 'no '}台, the rules score it "
                          f"{p['tai'] or 'no '}台 (a damaged source, or kb/data/mahjong/patterns.tsv out of step)")
