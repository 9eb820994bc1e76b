"""Curated repair tables under kb/data/repairs/ (plain TSV, reviewed like code)."""
from __future__ import annotations

import re
from pathlib import Path

from kb.errors import KbError

DATA = Path(__file__).resolve().parent.parent / "data"


def read_tsv(name: str, columns: int) -> list[tuple[str, ...]]:
    """Rows of a curated TSV file; '#' starts a comment line; \\uXXXX escapes allowed."""
    path = DATA / name
    rows = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise KbError(f"{path}: cannot read: {exc.strerror}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) < columns:
            raise KbError(f"{path}:{n}: expected {columns} tab-separated columns, got {len(cells)}")
        cells = [re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), c) for c in cells]
        rows.append(tuple(cells[:columns]))
    return rows
