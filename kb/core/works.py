"""The works registry (kb/data/works.toml): every stage asks it which rule books exist.

A work is a rule book: its stable id (the prefix of its record ids), its kind (which
segmenter reads it), its titles, how it names a law, its witnesses in order of trust, and
the work that translates the same original with the same lettering (its twin).
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from kb.core.curated import DATA_DIR, Row, Table, read_entries, read_table
from kb.core.errors import KbError

if TYPE_CHECKING:
    from kb.core.records import Record

KINDS = ("bridge", "sectioned")
_FIELDS = ("id", "kind", "title_hans", "title_hant", "law_label", "witnesses", "twin", "outline")
_OPTIONAL = ("game_names", "query_names", "short_hans", "short_hant")


@dataclass(frozen=True)
class Work:
    id: str
    kind: str
    title_hans: str
    title_hant: str
    law_label: str              # "第{n}条" / "规则{n}"; "" for a sectioned work
    witnesses: tuple[str, ...]  # sigils, most trusted first
    twin: str                   # "" when no other work shares the lettering
    outline: str                # kb/data-relative path of the outline or section table
    game_names: tuple[str, ...] = ()   # words a question names the book's game by (桥牌, mahjong)
    query_names: tuple[str, ...] = ()  # what a question names this very book by (laws1997, 1997版)
    short_hans: str = ""               # a short name, beside a page's title (中国规则 1999); else the title
    short_hant: str = ""

    def title(self, script: str) -> str:
        return self.title_hant if script == "hant" else self.title_hans

    def short(self, script: str) -> str:
        """The short name of the book, shown beside a page's title (the title if it has none)."""
        return (self.short_hant if script == "hant" else self.short_hans) or self.title(script)

    def law_name(self, law: int | str) -> str:
        """第45条 / 规则45: how this work names one of its laws."""
        return self.law_label.format(n=law)


def registry_path() -> Path:
    """kb/data/works.toml, or $KB_WORKS (a test's synthetic registry)."""
    return Path(os.environ.get("KB_WORKS") or DATA_DIR / "works.toml")


@lru_cache(maxsize=4)
def _load(path: Path) -> tuple[Work, ...]:
    entries = read_entries(path, "work")
    works: list[Work] = []
    for i, entry in enumerate(entries, 1):
        where = f"{path}: work #{i}"
        unknown = sorted(set(entry) - set(_FIELDS) - set(_OPTIONAL))
        if unknown:
            raise KbError(f"{where}: unknown field '{unknown[0]}'")
        for key in _FIELDS:
            value = entry.get(key)
            if key == "witnesses":
                if not (isinstance(value, list) and value and all(isinstance(v, str) and v for v in value)):
                    raise KbError(f"{where}: field 'witnesses' must be a non-empty list of sigils")
            elif not isinstance(value, str):
                raise KbError(f"{where}: field '{key}' is missing or not a string")
        if not entry["id"].isascii() or not entry["id"].isidentifier():
            raise KbError(f"{where}: id '{entry['id']}' must be an ASCII identifier")
        if entry["kind"] not in KINDS:
            raise KbError(f"{where}: kind '{entry['kind']}' is not one of {', '.join(KINDS)}")
        if entry["kind"] == "bridge" and "{n}" not in entry["law_label"]:
            raise KbError(f"{where}: a bridge work's law_label must contain {{n}}")
        names = entry.get("game_names", [])
        if not (isinstance(names, list) and all(isinstance(v, str) and v.strip() for v in names)):
            raise KbError(f"{where}: field 'game_names' must be a list of words")
        for key in ("short_hans", "short_hant"):
            if not isinstance(entry.get(key, ""), str):
                raise KbError(f"{where}: field '{key}' must be a string")
        own = entry.get("query_names", [])
        if not (isinstance(own, list) and all(isinstance(v, str) and v and not any(c.isspace() for c in v) for v in own)):
            # search finds a name with or without a space before its number (laws 1997): written without
            raise KbError(f"{where}: field 'query_names' must be a list of names without spaces")
        works.append(Work(**{**entry, "witnesses": tuple(entry["witnesses"]), "game_names": tuple(names),
                             "query_names": tuple(own)}))
    ids = [w.id for w in works]
    for w in works:
        if ids.count(w.id) > 1:
            raise KbError(f"{path}: work '{w.id}' is listed twice")
        if w.twin and (w.twin not in ids or get_from(works, w.twin).twin != w.id):
            raise KbError(f"{path}: work '{w.id}': twin '{w.twin}' must be a work whose twin is '{w.id}'")
    return tuple(works)


def get_from(works: list[Work] | tuple[Work, ...], work_id: str) -> Work:
    for w in works:
        if w.id == work_id:
            return w
    raise KbError(f"unknown work '{work_id}' (known: {', '.join(w.id for w in works)})")


def all_works() -> tuple[Work, ...]:
    """Every work, in the registry's order (which is the reading order of the site)."""
    return _load(registry_path())


def work_ids() -> tuple[str, ...]:
    return tuple(w.id for w in all_works())


def get(work_id: str) -> Work:
    return get_from(all_works(), work_id)


def of_kind(kind: str) -> tuple[Work, ...]:
    return tuple(w for w in all_works() if w.kind == kind)


def twin_of(work_id: str) -> str | None:
    """The other translation with the same lettering, or None."""
    return get(work_id).twin or None


def family(work_id: str) -> str:
    """The family of rule books a work belongs to: a work and its twin are one (named by the
    first of the two ids), so a question about the game finds either translation."""
    return min(work_id, twin_of(work_id) or work_id)


def game_names() -> dict[str, str]:
    """Each word that names a book's game in a question (the registry's game_names), and the
    family of the book it names."""
    out: dict[str, str] = {}
    for w in all_works():
        for name in w.game_names:
            if out.setdefault(name, family(w.id)) != family(w.id):
                raise KbError(f"{registry_path()}: game name '{name}' is given to two families of works")
    return out


def query_names() -> dict[str, str]:
    """Each name a question gives one book by (the registry's query_names, folded to lower case),
    and the book's id."""
    out: dict[str, str] = {}
    for w in all_works():
        for name in w.query_names:
            if out.setdefault(name.lower(), w.id) != w.id:
                raise KbError(f"{registry_path()}: query name '{name}' is given to two works")
    return out


def holdings(records: Iterable[Record]) -> str:
    """What the knowledge base holds, in one Simplified sentence for a reader who found nothing
    (Law 16 is not here): each work of the registry that has records, with its laws as runs of
    numbers, a law of which a witness kept only a fragment named apart (第27–71条，另有第26条的残句).
    """
    held: dict[str, set[int]] = {}
    fragments: dict[str, set[int]] = {}
    for r in records:
        held.setdefault(r.work, set())
        if r.law is None:
            continue
        held[r.work].add(r.law)
        if r.level == "law" and r.fragment:
            fragments.setdefault(r.work, set()).add(r.law)
    parts = []
    for w in all_works():
        if w.id not in held:
            continue
        whole = held[w.id] - fragments.get(w.id, set())
        text = w.title_hans + (w.law_name(_runs(whole)) if whole and w.law_label else "")
        if fragments.get(w.id) and w.law_label:
            text += "，另有" + w.law_name(_runs(fragments[w.id])) + "的残句"
        parts.append(text)
    return "本库收录：" + "；".join(parts) + "。"


def _runs(numbers: set[int]) -> str:
    """27–28、30、45: consecutive numbers as one run."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return "、".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


SITE_PAGES = ("terms", "patterns", "procedure", "penalties")


def sections(work_id: str) -> list[Row]:
    """A sectioned work's section table: heading, slug (stable id), citation name, site page."""
    work = get(work_id)
    if work.kind != "sectioned":
        raise KbError(f"work '{work_id}' is a {work.kind} work and has no section table")
    table = Table(work.outline, ("heading", "slug", "citation", "page"), unique=("slug",),
                  enums={"page": SITE_PAGES})
    rows = read_table(table)
    headings = [r["heading"] for r in rows]
    for row in rows:
        if headings.count(row["heading"]) > 1:
            raise KbError(f"{row.where}: heading '{row['heading']}' repeats")
    return rows
