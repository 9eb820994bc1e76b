"""Invariants checked after ingest, so that damage passes no longer once a source's sha is re-pinned.

- each witness yields the records (and laws) the manifest expects of it
  (``expect_records``, ``expect_laws`` in kb/sources/manifest.toml);
- each mahjong scoring pattern's 台 in the text is the 台 the rules module encodes.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from kb import works
from kb.errors import KbError


def check_corpus(corpus: Any) -> None:
    """KbError on the first broken invariant, naming the witness or the clause."""
    per_witness: dict[str, Counter] = {}      # by source file: a sigil may recur in another work
    for rec in corpus.records:
        for w in rec.witnesses:
            c = per_witness.setdefault(w.source, Counter())
            c["records"] += 1
            if rec.level == "law":
                c["laws"] += 1
    for a in corpus.adapted:
        src = a.source
        for key, (lo, hi) in src.expect.items():
            what = key.removeprefix("expect_")
            got = per_witness.get(src.file, Counter())[what]
            if not lo <= got <= hi:
                want = str(lo) if lo == hi else f"{lo}–{hi}"
                raise KbError(f"{src.path.name}: witness {src.sigil}: expected {want} {what}, got {got} "
                              "(kb/sources/manifest.toml)")
    _check_mahjong_tai(corpus.records)


def _check_mahjong_tai(records: list[Any]) -> None:
    """The 台 each scoring clause states must be the one the rules' pattern table encodes."""
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
