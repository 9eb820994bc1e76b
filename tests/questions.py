"""The question sets the tests about what no book holds read (issue 35): questions about matters
outside the books, and the benchmark's questions the books answer."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE_QUESTIONS = Path(__file__).parent / "fixtures" / "outside_questions.txt"


def outside_questions() -> list[str]:
    """Questions about matters no book holds (tests/fixtures/outside_questions.txt)."""
    return [line.strip() for line in OUTSIDE_QUESTIONS.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def answered_questions() -> list[str]:
    """Every question of the benchmark sets that the books answer (each has a graded answer): the
    tuning sets and the held-out sets bench/heldout.tsv to heldout9.tsv (the later frozen sets are
    left for evaluating the work afterwards)."""
    files = [ROOT / "bench" / "queries.tsv", *sorted((ROOT / "bench").glob("tuning*.tsv")),
             ROOT / "bench" / "heldout.tsv", *(ROOT / "bench" / f"heldout{i}.tsv" for i in range(2, 10))]
    return list(dict.fromkeys(line.split("\t")[0] for path in files
                              for line in path.read_text(encoding="utf-8").splitlines()
                              if line.strip() and not line.startswith("#") and line.split("\t")[2].strip()))
