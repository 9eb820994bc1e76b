"""Fingerprints of the published text: a change to what a clause reads never passes silently.

A source's sha256 in kb/sources/manifest.toml pins its bytes, but a maintainer re-pins it when a
source is replaced; a one-character damage then builds, and the clause's text changes with only
a variant to show for it. kb/data/fingerprints.tsv pins, for every record, the reading text the
site shows: ``id<TAB>hans<TAB>hant``, the first ``DIGITS`` hex digits of the sha256 of its
Simplified reading (title, text and footnotes, ``reading``) and of its Traditional one (the
Traditional is made from the Simplified, but by OpenCC and kb/data/hant-usage.tsv, which can
change on their own).

The build (kb/app/build.py) calls ``check_fingerprints`` on the records it made: a record whose
reading differs from its row, a record with no row, a row with no record fail the build with one
line naming the first of them (what changed, where the previous build shows the old text), unless

- the difference is what the record's emendations in kb/data/emendations.tsv do: undoing some of
  them gives the pinned reading (a reviewed emendation is a reviewed change of the text), or
- a maintainer re-fingerprints: ``kb accept`` (kb/app/accept.py) rewrites the file from the
  records (``accept``), listing every change for review, and the file is committed.

A work with no row at all (a new rule book) fails the build with a line that says to run
``kb accept``. ``$KB_FINGERPRINTS`` names another file (a test's or a synthetic corpus's).
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kb.core.curated import DATA_DIR, Row, Table, read_table
from kb.core.errors import KbError
from kb.core.records import Record, read_jsonl

DIGITS = 12
COLUMNS = ("id", "hans", "hant")
HEADER = """\
# Fingerprints of the published text, one row per record: id<TAB>hans<TAB>hant, the first {digits}
# hex digits of the sha256 of the record's Simplified reading (title, text, footnotes) and of its
# Traditional one. Written by `kb accept`, which lists every change; review that list, then commit
# this file. The build fails on any record whose reading differs, unless an emendation in
# kb/data/emendations.tsv explains the difference (kb/ingest/fingerprints.py).
"""
EXCERPT = 6             # characters of context either side of a change, in a message


def path() -> Path:
    """kb/data/fingerprints.tsv, or $KB_FINGERPRINTS."""
    return Path(os.environ.get("KB_FINGERPRINTS") or DATA_DIR / "fingerprints.tsv")


def shown(where: Path) -> str:
    """A path as a message names it: relative to the checkout when inside it."""
    try:
        return str(where.relative_to(DATA_DIR.parent.parent))
    except ValueError:
        return str(where)


def reading(rec: Record, script: str) -> list[tuple[str, str]]:
    """The fields of the record's reading in one script, as (name, text)."""
    fields = [(f"title_{script}", getattr(rec, f"title_{script}")), (f"text_{script}", getattr(rec, f"text_{script}"))]
    fields += [(f"footnote {f.get('n', i + 1)}", f.get(f"text_{script}", "")) for i, f in enumerate(rec.footnotes)]
    return fields


def digest(fields: Iterable[tuple[str, str]]) -> str:
    """The fingerprint of a reading's fields (DIGITS hex digits of the sha256 of their texts)."""
    return hashlib.sha256("\x1f".join(text for _, text in fields).encode("utf-8")).hexdigest()[:DIGITS]


def digests(rec: Record) -> tuple[str, str]:
    """A record's fingerprints, as its row holds them: (Simplified, Traditional)."""
    return digest(reading(rec, "hans")), digest(reading(rec, "hant"))


@dataclass(frozen=True)
class Change:
    """One record whose reading is not what the fingerprint file pins."""

    id: str
    kind: str                   # "changed" | "new" | "gone"
    where: str                  # its row (file:line); the file, for a new record
    record: Record | None = None        # as built now (None: gone)
    old: Record | None = None           # with the pinned reading: the previous build's, or one the
                                        # witnesses give back (_from_witnesses); None if neither
    pinned: tuple[str, str] = ("", "")  # the row's fingerprints
    explained: bool = False             # changed only by the record's emendations

    def what(self) -> str:
        """What changed, briefly: the first differing field, old → new, around the difference."""
        if self.kind == "gone":
            return "no longer built"
        assert self.record is not None
        if self.kind == "new":
            return f"reads 「{_start(self.record)}」"
        by = ", by an emendation in kb/data/emendations.tsv" if self.explained else ""
        if self.old is None:
            which = "" if digests(self.record)[0] != self.pinned[0] else \
                "the Traditional text only (OpenCC or kb/data/hant-usage.tsv), "
            return f"{which}now 「{_start(self.record)}」{by} (no earlier build shows the old text)"
        for (name, was), (_, now) in zip(_all_fields(self.old), _all_fields(self.record)):
            if was != now:
                a, b = excerpt(was, now)
                return f"{name} 「{a}」 → 「{b}」{by}"
        return f"footnotes {len(self.old.footnotes)} → {len(self.record.footnotes)}{by}"


def _all_fields(rec: Record) -> list[tuple[str, str]]:
    """Every field of a record's reading, Simplified then Traditional."""
    return reading(rec, "hans") + reading(rec, "hant")


def _start(rec: Record) -> str:
    """How the record's reading begins (title：text), for a record with nothing to compare with."""
    text = rec.title_hans + ("：" if rec.title_hans and rec.text_hans else "") + rec.text_hans
    return text[:2 * EXCERPT] + ("…" if len(text) > 2 * EXCERPT else "")


def excerpt(was: str, now: str) -> tuple[str, str]:
    """The two readings around their first difference: …context, the differing part, context…"""
    head = 0
    while head < min(len(was), len(now)) and was[head] == now[head]:
        head += 1
    tail = 0
    while tail < min(len(was), len(now)) - head and was[-1 - tail] == now[-1 - tail]:
        tail += 1
    start = max(0, head - EXCERPT)

    def cut(s: str) -> str:
        end = min(len(s), len(s) - tail + EXCERPT, head + 3 * EXCERPT)
        return ("…" if start else "") + s[start:end] + ("…" if end < len(s) else "")
    return cut(was), cut(now)


def _rows() -> tuple[str, dict[str, Row]]:
    """The fingerprint file as a message names it, and its rows by record id (none if it is missing)."""
    where = path()
    if not where.is_file():
        return shown(where), {}
    return shown(where), {row["id"]: row for row in read_table(Table(where.name, COLUMNS, unique=("id",)),
                                                                  where.parent)}


def _line(name: str, row: Row) -> str:
    return f"{name}:{row.where.rpartition(':')[2]}"


def _previous(previous: Path | None) -> dict[str, Record]:
    """The previous build's records (its text passed the fingerprints then), or none."""
    if previous is None or not previous.is_file():
        return {}
    try:
        return {r.id: r for r in read_jsonl(previous)}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def compare(records: list[Record], previous: Path | None = None) -> list[Change]:
    """Every record whose reading differs from the fingerprint file, in reading order, then the rows
    of records no longer built. ``previous``: the records file of the previous build, for the old
    text (taken only where its reading is the pinned one)."""
    name, rows = _rows()
    old: dict[str, Record] | None = None
    changes = []
    for rec in records:
        row = rows.get(rec.id)
        if row is None:
            changes.append(Change(rec.id, "new", name, rec))
            continue
        pinned = (row["hans"], row["hant"])
        if digests(rec) == pinned:
            continue
        if old is None:
            old = _previous(previous)
        was = old.get(rec.id)
        if was is None or digests(was) != pinned:
            was = _from_witnesses(rec, pinned)
        changes.append(Change(rec.id, "changed", _line(name, row), rec, was, pinned,
                              explained=_emended_from(rec, pinned)))
    built = {r.id for r in records}
    changes += [Change(rid, "gone", _line(name, row)) for rid, row in rows.items() if rid not in built]
    return changes


def check_fingerprints(records: list[Record], previous: Path | None = None) -> None:
    """KbError, one line, on the first record whose reading its fingerprint does not pin (see above)."""
    changes = [c for c in compare(records, previous) if not c.explained]
    if not changes:
        return
    name, rows = _rows()
    commit = f"run `kb accept` and commit {name}"
    pinned_works = {rid.partition(":")[0] for rid in rows}
    unpinned = [w for w in dict.fromkeys(r.work for r in records) if w not in pinned_works]
    if unpinned:
        n = sum(r.work == unpinned[0] for r in records)
        raise KbError(f"{name}: work '{unpinned[0]}' has no fingerprints: review the text of its {n} records, "
                      f"then {commit}")
    first = changes[0]
    more = f" (and {len(changes) - 1} more)" if len(changes) > 1 else ""
    if first.kind == "gone":
        raise KbError(f"{first.where}: record {first.id} is no longer built{more}; if that is right, {commit}")
    if first.kind == "new":
        raise KbError(f"{first.id}: a new record, not in {name} ({first.what()}){more}; review it, then {commit}")
    raise KbError(f"{first.id}: published text changed: {first.what()} ({first.where} pins the old){more}; "
                  f"if the change is right, add an emendation to kb/data/emendations.tsv or {commit}")


def accept(records: list[Record], previous: Path | None = None) -> list[Change]:
    """Rewrite the fingerprint file from ``records`` (atomically) and return what changed."""
    changes = compare(records, previous)
    where = path()
    lines = [HEADER.format(digits=DIGITS)] + ["\t".join((rec.id, *digests(rec))) + "\n" for rec in records]
    tmp = where.with_name(f".{where.name}.tmp-{os.getpid()}")
    try:
        tmp.write_text("".join(lines), encoding="utf-8")
        os.replace(tmp, where)
    finally:
        tmp.unlink(missing_ok=True)
    return changes


def _from_witnesses(rec: Record, pinned: tuple[str, str]) -> Record | None:
    """The pinned reading, where another witness's reading of a character or few, put in place of the
    published one, gives it (a damage to the witness the text is taken from: the old text even
    without an earlier build); else None."""
    from kb.ingest.normalise import to_hans, to_hant
    from kb.ingest.settle import LOST_DIGITS, Alignment
    for field in ("text", "title"):
        published = getattr(rec, f"{field}_hans")
        own = [(w.sigil, to_hans(getattr(w, field))) for w in rec.witnesses]
        own = [(sigil, t) for sigil, t in own if t]
        strip = bool(own) and own[0][0] in LOST_DIGITS
        for sigil, theirs in own[1:]:
            al = Alignment(published, theirs, strip or sigil in LOST_DIGITS)
            for start, end in al.substitutions():
                other = al.reads(start, end)
                if other is None:
                    continue
                candidate = published[:start] + other + published[end:]
                was = dataclasses.replace(rec, **{f"{field}_hans": candidate, f"{field}_hant": to_hant(candidate)})
                if digests(was)[0] == pinned[0]:
                    return was
    return None


def _emended_from(rec: Record, pinned: tuple[str, str]) -> bool:
    """Whether undoing some of the record's emendations gives the pinned reading: the change is
    what a reviewed emendation (kb/data/emendations.tsv) does."""
    from kb.ingest.collate import EMENDATIONS
    from kb.ingest.normalise import to_hant
    work, _, cite = rec.id.partition(":")
    rows = [(r["wrong"], r["right"]) for r in read_table(EMENDATIONS) if r["work"] == work and r["citation"] == cite]
    for n in range(1, len(rows) + 1):
        for chosen in itertools.combinations(rows, n):
            for joined in _undone(rec.title_hans + "\x00" + rec.text_hans, chosen):
                title, _, text = joined.partition("\x00")
                hans = [("title", title), ("text", text)] + reading(rec, "hans")[2:]
                hant = [("title", to_hant(title)), ("text", to_hant(text))] + reading(rec, "hant")[2:]
                if (digest(hans), digest(hant)) == pinned:
                    return True
    return False


def _undone(joined: str, rows: tuple[tuple[str, str], ...]) -> Iterator[str]:
    """``joined`` with each emendation (wrong, right) undone, at each place it could have been made."""
    if not rows:
        yield joined
        return
    (wrong, right), rest = rows[0], rows[1:]
    start = joined.find(right)
    while start >= 0:
        yield from _undone(joined[:start] + wrong + joined[start + len(right):], rest)
        start = joined.find(right, start + 1)
