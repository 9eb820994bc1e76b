"""The question sets the tests about what no book holds read (issue 35): questions about matters
outside the books, and the benchmark's questions the books answer."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE_QUESTIONS = Path(__file__).parent / "fixtures" / "outside_questions.txt"
OUTSIDE_SETS = ("outside3.tsv",)


def outside_questions() -> list[str]:
    """Questions about matters no book holds: tests/fixtures/outside_questions.txt, then each frozen
    benchmark set of them that the note covers whole (bench/outside3.tsv, written blind)."""
    lines = OUTSIDE_QUESTIONS.read_text(encoding="utf-8").splitlines()
    for name in OUTSIDE_SETS:
        lines += [line.split("\t")[0] for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines()]
    return list(dict.fromkeys(line.strip() for line in lines if line.strip() and not line.startswith("#")))


def every_outside_question() -> list[str]:
    """outside_questions, then the questions of every other outside set of bench/ (the note may miss
    some of them: the engines must still agree on each)."""
    lines = [line.split("\t")[0] for path in sorted((ROOT / "bench").glob("outside*.tsv"))
             for line in path.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
    return list(dict.fromkeys([*outside_questions(), *lines]))


def answered_questions() -> list[str]:
    """Every question of the benchmark sets that the books answer (each has a graded answer): the
    tuning sets and every held-out set."""
    files = [ROOT / "bench" / "queries.tsv", *sorted((ROOT / "bench").glob("tuning*.tsv")),
             *sorted((ROOT / "bench").glob("heldout*.tsv"))]
    return list(dict.fromkeys(line.split("\t")[0] for path in files
                              for line in path.read_text(encoding="utf-8").splitlines()
                              if line.strip() and not line.startswith("#") and line.split("\t")[2].strip()))
