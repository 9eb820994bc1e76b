"""Laws a question may concern that no bridge book here holds (kb/data/search/outside.tsv).

A director who asks about hesitation (Law 16) or an appeal (Law 92) gets the nearest clauses
the books do hold; above them, the search says that the question may concern a law that is not
here, so that a clause about something else is not taken for the answer. ``kb search`` says it
from here; the site's search (kb.js) from the same table, written into each edition's pages
(``site_table``); the build checks that no law of the table is held (``check_outside``).
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kb.core.curated import Table, read_table
from kb.core.errors import KbError
from kb.core.records import Record
from kb.core.works import family, game_names, get, of_kind
from kb.ingest.normalise import to_hans, ui_text
from kb.search.analysis import strip_controls

TABLE = Table("search/outside.tsv", ("law", "title", "words"), unique=("law",))


@dataclass(frozen=True)
class OutsideLaw:
    """One law no bridge book holds: its number, title and the words a question about it uses."""

    law: int
    title: str
    words: tuple[str, ...]
    where: str                       # file:line of its row

    def label(self) -> str:
        """How the notice names it (Simplified): 第16条（非法信息）."""
        return f"第{self.law}条（{self.title}）"


@functools.cache
def outside_laws(root: Path | None = None) -> tuple[OutsideLaw, ...]:
    """The rows of kb/data/search/outside.tsv (under ``root``, kb/data by default), checked."""
    out = []
    for row in read_table(TABLE, root):
        if not re.fullmatch(r"[1-9]\d?", row["law"]):
            raise KbError(f"{row.where}: column 'law' is '{row['law']}', not a law number")
        words = tuple(row["words"].split("、"))
        for w in words:
            if not w or w != w.lower() or to_hans(w) != w:
                raise KbError(f"{row.where}: word '{w}' is not a Simplified, lower-case word")
        out.append(OutsideLaw(int(row["law"]), row["title"], words, row.where))
    return tuple(out)


def bridge_works() -> tuple[str, ...]:
    """The ids of the works lettered after the Laws of Duplicate Bridge (the table's numbering)."""
    return tuple(w.id for w in of_kind("bridge"))


def check_outside(records: Iterable[Record], root: Path | None = None) -> None:
    """Fail if a law of the table is held by a bridge book: the notice would then be untrue."""
    bridge = set(bridge_works())
    held = {(r.law, r.work) for r in records if r.work in bridge and r.law is not None}
    for o in outside_laws(root):
        for law, work in sorted(held):
            if law == o.law:
                raise KbError(f"{o.where}: law {o.law} is held by {work} ({get(work).title_hans}); "
                              f"it cannot be listed as outside the knowledge base")


def other_games() -> tuple[str, ...]:
    """The words that name a game other than bridge (麻将, mahjong: the registry's game_names)."""
    bridge = {family(w) for w in bridge_works()}
    return tuple(sorted(name for name, fam in game_names().items() if fam not in bridge))


def concerns(q: str, work: str | None = None) -> list[OutsideLaw]:
    """The laws of the table that question ``q`` may concern: none when the search is limited to
    a book that is not bridge's (``work``) or the question names another game."""
    if work is not None and work not in bridge_works():
        return []
    folded = to_hans(strip_controls(q)).lower()      # as the search reads it (a lone surrogate would stop OpenCC)
    if any(name in folded for name in other_games()):
        return []
    return [o for o in outside_laws() if any(w in folded for w in o.words)]


def notice(found: list[OutsideLaw]) -> str:
    """The notice above the results (Simplified), or "" if the question concerns no such law."""
    if not found:
        return ""
    return NOTICE.format(laws="、".join(o.label() for o in found))


NOTICE = "此问可能涉及桥牌规则{laws}，本库未收录；下列是本库所收最接近的条款，未必适用。"


def site_table(script: str) -> dict:
    """The table as the site's search reads it (kb.js): the bridge works, the other games' names,
    and each law's label in the edition's script with its words, names in both scripts (a query
    is matched in lower case)."""
    laws = []
    for o in outside_laws():
        words = sorted({w for word in o.words for w in (word, ui_text(word, "hant").lower())})
        laws.append([ui_text(o.label(), script), words])
    games = sorted({w for name in other_games() for w in (name, ui_text(name, "hant").lower())})
    return {"works": list(bridge_works()), "games": games, "laws": laws, "notice": ui_text(NOTICE, script)}
