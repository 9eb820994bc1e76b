"""'Not held' benchmark: how many questions about matters no book holds get the note, and how many
questions the books answer get it wrongly.

    .venv/bin/python bench/outside_bench.py [--records build/records.jsonl] [--index build/index] [--verbose]

Sets: every bench/outside*.tsv (``query<TAB>outside<TAB>topic``; each written blind, frozen once
reported: newest first), against every question of the tuning and held-out sets (``query<TAB>kind<TAB>
judgements``), which the books answer. Per outside set: questions said (the note names a matter, or
the results are withheld as matching nothing held) out of all, and how many by the table's words
(kb/data/search/outside.tsv) and how many by weak coverage alone. ``--verbose`` lists the questions
of the outside sets that get no note (do not tune the table on a set you report as held out).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.search.engine import SearchEngine  # noqa: E402


def rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def number(path: Path) -> int:
    m = re.search(r"(\d+)\.tsv$", path.name)
    return int(m.group(1)) if m else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=Path, default=ROOT / "build" / "records.jsonl")
    ap.add_argument("--index", type=Path, default=ROOT / "build" / "index")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()
    engine = SearchEngine.open(args.records, args.index)
    print(f"{'set':<16}{'n':>4}{'said':>6}{'words':>7}{'weak':>6}")
    for path in sorted(ROOT.glob("bench/outside*.tsv"), key=number, reverse=True):
        qs = rows(path)
        said = words = weak = 0
        missed = []
        for q, *_ in qs:
            note = engine.answer(q)["not_held"]
            if note is None:
                missed.append(q)
                continue
            said += 1
            words += bool(note["matters"])
            weak += not note["matters"]
        print(f"{path.name:<16}{len(qs):>4}{said:>6}{words:>7}{weak:>6}")
        if args.verbose:
            for q in missed:
                print(f"    no note: {q}")
    answered = [ROOT / "bench" / "queries.tsv", *sorted(ROOT.glob("bench/tuning*.tsv")),
                *sorted(ROOT.glob("bench/heldout*.tsv"), key=number)]
    asked = list(dict.fromkeys(r[0] for p in answered for r in rows(p) if len(r) > 2 and r[2].strip()))
    wrong = [q for q in asked if engine.answer(q)["not_held"] is not None]
    print(f"answered questions told 'not held': {len(wrong)} of {len(asked)}")
    for q in wrong:
        print(f"    {q}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
