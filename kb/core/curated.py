"""Curated editorial data under kb/data/: one loader, one comment convention, declared schemas.

Every curated table is a UTF-8 TSV file described by a :class:`Table` (its columns, which of
them may be left out at the end of a row, enumerated values, the unique key). The convention
is the same for every file:

- a line whose first non-blank character is ``#`` is a comment; blank lines are ignored;
- cells are separated by one TAB; a cell that starts with ``#`` ends the row (a tail comment);
- ``\\uXXXX`` in a cell stands for that character (for invisible or confusable ones);
- a row with too few or too many cells, a value outside its enum, a duplicate key or an
  empty required cell is an error naming the file and line.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kb.core.errors import KbError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


@dataclass(frozen=True)
class Table:
    """The declared schema of one curated file."""

    path: str                               # relative to kb/data, e.g. "emendations.tsv"
    columns: tuple[str, ...]
    optional: tuple[str, ...] = ()          # trailing columns a row may leave out
    unique: tuple[str, ...] = ()            # columns that together identify a row
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)
    may_be_empty: tuple[str, ...] = ()      # columns whose cell may be an empty string

    def file(self, root: Path | None = None) -> Path:
        return (root or DATA_DIR) / self.path


@dataclass(frozen=True)
class Row:
    """One data row: cells by column name, and where it came from (file:line)."""

    cells: dict[str, str]
    where: str

    def __getitem__(self, column: str) -> str:
        return self.cells[column]

    def get(self, column: str, default: str = "") -> str:
        return self.cells.get(column) or default


def split_line(line: str) -> list[str] | None:
    """The cells of one line under the convention above, or None for a comment or blank line."""
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    cells: list[str] = []
    for cell in line.rstrip("\r\n").split("\t"):
        if cell.lstrip().startswith("#"):
            break
        cells.append(_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), cell))
    while cells and cells[-1] == "":
        cells.pop()
    return cells


def read_lines(path: Path) -> list[str]:
    """A curated file's lines, or one clear error."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise KbError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise KbError(f"{path}: not UTF-8") from None


def read_entries(path: Path, kind: str) -> list[dict]:
    """The ``[[kind]]`` entries of a TOML file (the works registry, the sources' manifest)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KbError(f"{path}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise KbError(f"{path}: not valid TOML: {exc}") from None
    entries = data.get(kind)
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise KbError(f"{path}: no [[{kind}]] entries")
    return entries


def read_table(table: Table, root: Path | None = None) -> list[Row]:
    """Every row of a curated table, checked against its schema."""
    path = table.file(root)
    rows: list[Row] = []
    seen: dict[tuple[str, ...], str] = {}
    least = len(table.columns) - len(table.optional)
    for n, line in enumerate(read_lines(path), 1):
        cells = split_line(line)
        if cells is None:
            continue
        where = f"{path}:{n}"
        if not least <= len(cells) <= len(table.columns):
            want = str(len(table.columns)) if least == len(table.columns) else f"{least}–{len(table.columns)}"
            raise KbError(f"{where}: expected {want} tab-separated columns "
                          f"({', '.join(table.columns)}), got {len(cells)}")
        row = dict(zip(table.columns, cells))
        for column, value in row.items():
            if not value.strip() and column not in table.may_be_empty:
                raise KbError(f"{where}: column '{column}' is empty")
            allowed = table.enums.get(column)
            if allowed is not None and value not in allowed:
                raise KbError(f"{where}: column '{column}' is '{value}', not one of {', '.join(allowed)}")
        if table.unique:
            key = tuple(row.get(c, "") for c in table.unique)
            if key in seen:
                raise KbError(f"{where}: {'/'.join(table.unique)} '{' '.join(key)}' repeats {seen[key]}")
            seen[key] = where
        rows.append(Row(row, where))
    return rows
