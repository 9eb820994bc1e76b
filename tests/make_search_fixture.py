"""Regenerate tests/fixtures/search_records.jsonl from the build: every record, only the fields search reads.

    .venv/bin/kb build && .venv/bin/python tests/make_search_fixture.py [BUILD_DIR]

tests/test_search_index.py checks that the fixture is what this command makes of the session's build,
so a change to the records that search reads fails until the fixture is regenerated (and reviewed).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "search_records.jsonl"
FIELDS = ("id", "work", "citation", "level", "parent", "order", "law", "path",
          "title_hans", "title_hant", "text_hans", "text_hant", "subjects", "questions", "english", "twin", "tai",
          "concordance")


def projection(records: Path) -> str:
    """The fixture's text for a records file: each record's FIELDS, one JSON object a line."""
    rows = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines() if line.strip()]
    return "".join(json.dumps({k: r.get(k) for k in FIELDS}, ensure_ascii=False) + "\n" for r in rows)


def main(argv: list[str]) -> None:
    build = Path(argv[0]) if argv else ROOT / "build"
    text = projection(build / "records.jsonl")
    FIXTURE.write_text(text, encoding="utf-8")
    print(f"{FIXTURE}: {text.count(chr(10))} records")


if __name__ == "__main__":
    main(sys.argv[1:])
