"""Where each record lives on the site: page (docs-relative .md path) and anchor.

Bridge records: one page per law and work (cbr1999/law-45.md), anchor = the compact
citation (#45C4b), which is the clause's permalink. Laws held by both translations
also get a side-by-side page (compare/law-45.md). Mahjong records: grouped on a
few pages by kb/data/mahjong/sections.tsv, anchor = the id's local part with
dots as hyphens (#patterns-13).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from kb.core import works
from kb.core.records import Record

WORK_TITLES = {w.id: (w.title_hans, w.title_hant) for w in works.all_works()}
MAHJONG_PAGES = {
    "patterns": ("计台名堂与台数", "計台名堂與台數"),
    "terms": ("基本名称与胡牌", "基本名稱與胡牌"),
    "procedure": ("行牌程序", "行牌程序"),
    "penalties": ("违规与罚则", "違規與罰則"),
}


@dataclass(frozen=True)
class Place:
    page: str       # docs-relative path, e.g. "cbr1999/law-45.md"
    anchor: str     # e.g. "45C4b"


def anchor_of(rec: Record) -> str:
    local = rec.id.split(":", 1)[1]
    return local.replace(".", "-")


class Layout:
    """The site's pages and the one canonical place of every record."""

    def __init__(self, records: list[Record]):
        self.records = records
        # What both editions' pages are made from and costs to work out (the rules catalogue).
        self.memo: dict[str, Any] = {}
        self.by_id = {r.id: r for r in records}
        section_page = {(w.id, row["slug"]): row["page"]
                        for w in works.of_kind("sectioned") for row in works.sections(w.id)}
        self.pages: dict[str, list[Record]] = defaultdict(list)
        self.place: dict[str, Place] = {}
        kinds = {w.id: w.kind for w in works.all_works()}
        for rec in records:
            if (kinds.get(rec.work) or works.get(rec.work).kind) == "sectioned":
                page = f"{rec.work}/{section_page[(rec.work, rec.path[0])]}.md"
            else:
                page = f"{rec.work}/law-{rec.law}.md"
            self.pages[page].append(rec)
            self.place[rec.id] = Place(page, anchor_of(rec))
        # Indexes, so that no page has to look through every record.
        self.by_work: dict[str, list[Record]] = defaultdict(list)
        self.by_work_law: dict[tuple[str, int | None], list[Record]] = defaultdict(list)
        self.holders: dict[int, set[str]] = defaultdict(set)     # law number -> works holding the law
        self.parents: set[str] = {rec.parent for rec in records if rec.parent}   # records with clauses under them
        for rec in records:
            self.by_work[rec.work].append(rec)
            self.by_work_law[(rec.work, rec.law)].append(rec)
            if rec.law is not None and rec.level == "law":
                self.holders[rec.law].add(rec.work)
        twins = {w.id: w.twin for w in works.all_works()}
        self.compared = sorted(law for law, held in self.holders.items()
                               if any((twins[w] if w in twins else works.twin_of(w)) in held for w in held))
        self.compared_set = set(self.compared)

    def laws(self, work: str) -> list[Record]:
        return [r for r in self.by_work.get(work, ()) if r.level == "law"]

    def href(self, from_page: str, target_id: str) -> str | None:
        """A docs-relative link from one page to a record, or None if there is no such record."""
        place = self.place.get(target_id)
        if place is None:
            return None
        if place.page == from_page:
            return f"#{place.anchor}"
        return f"{relative(from_page, place.page)}#{place.anchor}"


def relative(from_page: str, to_page: str) -> str:
    """Relative path between two docs pages (both docs-relative .md paths)."""
    src = from_page.split("/")[:-1]
    dst = to_page.split("/")
    common = 0
    while common < len(src) and common < len(dst) - 1 and src[common] == dst[common]:
        common += 1
    return "/".join([".."] * (len(src) - common) + dst[common:])
