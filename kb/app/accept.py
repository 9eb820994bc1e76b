"""`kb accept`: re-fingerprint the published text (kb/data/fingerprints.tsv), listing what changed.

The build refuses a record whose reading differs from its fingerprint (kb/ingest/fingerprints.py).
When the change is right (a source replaced on purpose, a better collation, a new work), a
maintainer runs `kb accept`: it makes the records as the build would (every ingest stage and the
rules' check of the mahjong 台), rewrites the fingerprint file from them and prints each record
whose reading changed (id, old → new around the first difference, as the previous build has the
old text), so the change can be reviewed and the file committed.
"""
from __future__ import annotations

import sys
from pathlib import Path

from kb.app import build as b


def run_accept(build_dir: Path | None) -> int:
    from kb.ingest import fingerprints
    from kb.ingest.pipeline import run
    from kb.rules.check import check_records

    out = b.build_path(build_dir.absolute() if build_dir else b.default_build_dir())
    records = run().records
    check_records(records)
    changes = fingerprints.accept(records, previous=out / "records.jsonl")
    for change in changes:
        print(f"{change.kind}\t{change.id}\t{change.what()}")
    shown = fingerprints.shown(fingerprints.path())
    if changes:
        counts = ", ".join(f"{sum(c.kind == k for c in changes)} {k}" for k in ("changed", "new", "gone")
                           if any(c.kind == k for c in changes))
        print(f"{shown}: {len(records)} records fingerprinted; {counts}: review the list above, then commit it",
              file=sys.stderr)
    else:
        print(f"{shown}: {len(records)} records, every reading as pinned; nothing changed", file=sys.stderr)
    return 0
