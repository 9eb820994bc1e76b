"""What no rule book here holds, and the note a search gives about it (kb/data/search/outside.tsv).

A director who asks about hesitation (Law 16), an appeal (Law 92) or the shuffle (Law 6), or a
player who asks about riichi mahjong, gets the nearest clauses the books do hold, and beside them
the note that the question may concern a matter that is not here, so that a clause about
something else is not taken for the answer (``concerns``, ``not_held``). A question nothing held
matches well enough (engine.py's WEAK_COVERAGE) gets the note and no results. The note is part of
the search's answer (``SearchEngine.answer``): ``kb search``, its JSON, the API and the site's
engine (docs/assets/kb-engine.js, from the table as ``site_table`` writes it into the static
index) give the same. The build checks that no law of the table is held and that no word of the
table stands in the held clauses of its game (``check_outside``).
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.core.curated import Table, read_table
from kb.core.errors import KbError
from kb.core.records import Record
from kb.core.works import family, game_names, get, of_kind, work_ids
from kb.ingest.normalise import to_hans, ui_text
from kb.search.analysis import normalize, search_form, strip_controls
from kb.search.citations import MAX_LAW, Cite

OTHER_GAME = "-"   # the game column of a game no book here plays (poker, chess): no family of books
TABLE = Table("search/outside.tsv", ("matter", "game", "title", "words", "named"), optional=("words", "named"),
              unique=("matter",), may_be_empty=("words", "named"))


@dataclass(frozen=True)
class OutsideMatter:
    """One matter no book holds: a law of the 1997 Laws (``law``) or a game or variant, the
    family of books that would hold it, its title and the words a question about it uses."""

    matter: str
    law: int | None
    family: str
    title: str
    words: tuple[str, ...]
    where: str                       # file:line of its row
    named: tuple[str, ...] = ()      # words that count only in a question naming the game

    def asked(self, held: set[str], families: set[str]) -> bool:
        """Whether a question holding the words ``held`` (``words_in``) and naming the games of
        ``families`` asks about the matter."""
        return any(w in held for w in self.words) or \
            (self.family in families and any(w in held for w in self.named))

    def all_words(self) -> tuple[str, ...]:
        return self.words + self.named

    def label(self) -> str:
        """How the note names it (Simplified): 第16条（非法信息）, or the matter's title."""
        return f"第{self.law}条（{self.title}）" if self.law is not None else self.title

    def as_json(self, script: str = "hans") -> dict[str, Any]:
        """The matter as an answer names it: {matter, law (or null), title in ``script``}."""
        return {"matter": self.matter, "law": self.law, "title": ui_text(self.title, script)}


@functools.cache
def outside_matters(root: Path | None = None) -> tuple[OutsideMatter, ...]:
    """The rows of kb/data/search/outside.tsv (under ``root``, kb/data by default), checked."""
    games = _games()
    out = []
    for row in read_table(TABLE, root):
        matter = row["matter"]
        law = int(matter) if re.fullmatch(r"[1-9]\d?", matter) else None
        if law is None and not re.fullmatch(r"[a-z][a-z-]*", matter):
            raise KbError(f"{row.where}: column 'matter' is '{matter}', not a law number or a lower-case name")
        if law is not None and law > MAX_LAW:
            raise KbError(f"{row.where}: law {law}: the 1997 Laws have {MAX_LAW} laws")
        if row["game"] != OTHER_GAME and row["game"] not in games:
            raise KbError(f"{row.where}: column 'game' is '{row['game']}', not a game of kb/data/works.toml "
                          f"({', '.join(sorted(games))})")
        words = tuple(row.get("words").split("、")) if row.get("words") else ()
        named = tuple(row.get("named").split("、")) if row.get("named") else ()
        for w in words + named:
            if not w or w != w.lower() or to_hans(w) != w or normalize(w) != w or w != w.strip():
                raise KbError(f"{row.where}: word '{w}' is not a Simplified, lower-case word")
        fam = "" if row["game"] == OTHER_GAME else games[row["game"]]
        out.append(OutsideMatter(matter, law, fam, row["title"], words, row.where, named))
    return tuple(out)


def found(word: str, text: str) -> bool:
    """Whether ``word`` stands in ``text`` (both in search form); a word beginning or ending with
    a Latin letter only as a whole word (imp is not in impossible)."""
    if word not in text:
        return False
    if not (word[0].isascii() and word[0].isalpha()) and not (word[-1].isascii() and word[-1].isalpha()):
        return True
    head = "(?<![a-z])" if word[0].isascii() and word[0].isalpha() else ""
    tail = "(?![a-z])" if word[-1].isascii() and word[-1].isalpha() else ""
    return re.search(head + re.escape(word) + tail, text) is not None


def bridge_works() -> tuple[str, ...]:
    """The ids of the works lettered after the Laws of Duplicate Bridge (the table's numbering)."""
    return tuple(w.id for w in of_kind("bridge"))


def held_text(r: Record) -> str:
    """What a clause says, as a question's words are compared with it: its title, text, subject
    terms, questions and English phrases (search form)."""
    return search_form("\n".join([r.title_hans or "", r.text_hans or "", *r.subjects, *r.questions, *r.english]))


def check_outside(records: Iterable[Record], root: Path | None = None) -> None:
    """Fail if a law of the table is held by a bridge book, or a word of the table stands in a held
    clause (a word counting only when the game is named: in a held clause of that game's books):
    the note would then be untrue, or said of a question the books answer."""
    records = list(records)
    bridge = set(bridge_works())
    held = {(r.law, r.work) for r in records if r.work in bridge and r.law is not None}
    texts = [(family(r.work), r.id, held_text(r)) for r in records]
    for o in outside_matters(root):
        for law, work in sorted(held):
            if law == o.law:
                raise KbError(f"{o.where}: law {o.law} is held by {work} ({get(work).title_hans}); "
                              f"it cannot be listed as outside the knowledge base")
        for w in o.all_words():
            for fam, rid, text in texts:
                if (w in o.words or fam == o.family) and found(w, text):
                    raise KbError(f"{o.where}: word '{w}' stands in {rid}, a clause the books hold; "
                                  f"a question it answers would be told it is not held")


@functools.cache
def _games() -> dict[str, str]:
    """works.game_names, read once."""
    return game_names()


@functools.cache
def _all_words() -> tuple[str, ...]:
    """Every word of the table, once."""
    return tuple(dict.fromkeys(w for o in outside_matters() for w in o.all_words()))


def words_in(normal: str) -> set[str]:
    """The words of the table that a question (in search form) holds."""
    return {w for w in _all_words() if w in normal and found(w, normal)}


def named_families(normal: str) -> set[str]:
    """The families of books whose game a question (in search form) names (桥牌, mahjong)."""
    return {fam for name, fam in _games().items() if found(name, normal)}


def concerns(q: str, cites: Iterable[Cite] = (), work: str | None = None,
             law_range: tuple[int, int] | None = None) -> list[OutsideMatter]:
    """The matters of the table that question ``q`` may concern: by its words, or by a citation of a
    listed law (``cites``, the query's citations). None of another game than the one the search is
    limited to (``work``; ``law_range`` limits it to bridge), or than the games the question names."""
    normal = normalize(strip_controls(q))      # as the search reads it (a lone surrogate would stop OpenCC)
    named = named_families(normal)
    limited = family(work) if work is not None else (family(bridge_works()[0]) if law_range else None)
    cited = {c.law for c in cites if c.law is not None}
    held = words_in(normal)
    out = []
    for o in outside_matters():
        if limited is not None and o.family != limited or named and o.family not in named:
            continue
        if o.law in cited or o.asked(held, named):
            out.append(o)
    return out


def claimed(word: str, normal: str, matters: Iterable[OutsideMatter]) -> bool:
    """Whether a word of the question (``word``) is part of one of the matters' words that the
    question (``normal``) holds: 发牌机 names Law 6's matter, so 机 is no evidence that a held
    clause answers."""
    return any(word in w and found(w, normal) for o in matters for w in o.all_words())


NOTICE = "此问可能涉及{what}，本库未收录；下列是本库所收最接近的条款，未必适用。"
NOTICE_NONE = "此问可能涉及{what}，本库未收录；本库所收的条款中没有与此问相符的。"
NOTICE_WEAK = "本库所收的条款中没有与此问相符的：此问所说的可能不在本库所收的规则之内。"
BRIDGE_LAWS = "桥牌规则"


def what(matters: list[OutsideMatter]) -> str:
    """What the note says the question may concern: 桥牌规则第16条（非法信息）、日本麻将（立直麻将）."""
    laws = [o.label() for o in matters if o.law is not None]
    parts = ([BRIDGE_LAWS + "、".join(laws)] if laws else []) + [o.label() for o in matters if o.law is None]
    return "、".join(parts)


def not_held(matters: list[OutsideMatter], shown: bool, weak: bool, script: str = "hans") -> dict[str, Any] | None:
    """The answer's note: ``matters`` the question may concern (``concerns``), whether results are
    shown, whether they were withheld as matching the question too little (``weak``); None when
    there is nothing to say. Its text is in ``script``."""
    if not matters and not weak:
        return None
    if matters:
        text = (NOTICE if shown else NOTICE_NONE).format(what=what(matters))
    else:
        text = NOTICE_WEAK
    return {"matters": [o.as_json(script) for o in matters], "weak": weak, "text": ui_text(text, script)}


def site_table(script: str) -> dict[str, Any]:
    """The table as the site's engine reads it (kb-engine.js, in the static index's meta): each
    matter's family, law, label in the edition's script and words; the game names with their
    families; the notes in the edition's script."""
    return {
        "matters": [[o.matter, o.law, o.family, ui_text(o.title, script), ui_text(o.label(), script),
                     list(o.words), list(o.named)]
                    for o in outside_matters()],
        "games": sorted([name, fam] for name, fam in game_names().items()),
        "bridge": family(bridge_works()[0]),
        "workFamily": {w: family(w) for w in work_ids()},
        "notice": ui_text(NOTICE, script), "none": ui_text(NOTICE_NONE, script),
        "weak": ui_text(NOTICE_WEAK, script), "laws": ui_text(BRIDGE_LAWS, script),
    }


def table_text() -> str:
    """Every word and title of the table (the static index's fold table must hold their characters)."""
    return "\n".join(w for o in outside_matters() for w in (o.title, o.label(), *o.all_words())) + \
        "\n" + "\n".join([NOTICE, NOTICE_NONE, NOTICE_WEAK, BRIDGE_LAWS])
