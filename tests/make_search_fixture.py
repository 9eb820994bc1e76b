"""Regenerate tests/fixtures/search_records.jsonl from the build: every record, only the fields search reads.

    .venv/bin/kb build && .venv/bin/python tests/make_search_fixture.py
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ("id", "work", "citation", "level", "parent", "order", "law", "path",
          "title_hans", "title_hant", "text_hans", "text_hant", "subjects", "questions", "english", "twin", "tai")


def main() -> None:
    src = ROOT / "build" / "records.jsonl"
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = ROOT / "tests" / "fixtures" / "search_records.jsonl"
    out.write_text("".join(json.dumps({k: r.get(k) for k in FIELDS}, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    print(f"{out}: {len(rows)} records")


if __name__ == "__main__":
    main()
