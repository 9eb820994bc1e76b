"""Invariants checked after ingest, so that damage passes no longer once a source's sha is re-pinned.

- each witness yields the records (and laws) the manifest expects of it
  (``expect_records``, ``expect_laws`` in kb/sources/manifest.toml).

(The mahjong 台 each scoring clause states is checked against the rules as code by
kb.rules.check, on the records file: this floor knows nothing of the rules.)
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from kb.core.errors import KbError


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
