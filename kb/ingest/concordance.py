"""Stage: the concordance. Each clause of a bridge book gains `concordance`: what the code in force
(the 2017 Laws) made of it.

The books translate the 1997 Laws; directors now rule by the 2017 Laws. An editor reads each
clause's words beside the 2017 text and records, per clause, the 2017 citation(s) it became and how:

    same      the same rule
    reworded  the same effect in new words, or under a new letter or number
    changed   a different rectification, condition or scope: a director rules differently
    removed   no 2017 counterpart
    unmapped  the texts read do not settle it (shown so; never a guess presented as a mapping)

A clause is classed by what its own words state (a lead-in such as 63A 如有下列情况，藏牌成立： is
`same` as 2017 63A "A revoke becomes established:"), its sub-clauses by theirs, each on its own row.

Data: ``kb/data/concordance/<work>.tsv`` (optional per work; where present it covers every record
of the work), ``id<TAB>citation<TAB>change<TAB>authority``: the 2017 citation compact as the records'
ids are (27B1b; several separated by ``,``; empty exactly when removed or unmapped) and the
authority (the 2017 page and words read, and the 1997 text read against). The codes are declared in
``kb/data/concordance/codes.toml``. The site shows each clause's entries in one line under it, and search
answers a citation by the 2017 numbers with the records naming it, showing the same line
(``in_force_text``; kb/search/inforce.py).
"""
from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kb.core import works
from kb.core.curated import DATA_DIR, Table, read_table
from kb.core.errors import KbError
from kb.core.records import Record

CHANGES = ("same", "reworded", "changed", "removed", "unmapped")
UNCITED = ("removed", "unmapped")
CODE = "2017"
CITATION = re.compile(r"\d{1,2}(?:[A-Z](?:\d{1,2}[a-z]?)?)?")
# How the code in force changed a clause, in words (Simplified): the one wording of the change
# classes, said under each clause on the site and beside a search result found by its 2017 citation
IN_FORCE_WORDS = {"same": "规定相同", "reworded": "规定相同，措辞或编号有变", "changed": "规定有实质变化",
                  "removed": "已无此规定", "unmapped": "对应条款尚待核定"}
HEADING_CHANGED = "其下有规定变化"   # a heading (no text of its own) whose class is that of a clause under it
BELOW_CHANGED = "；其下有规定变化"   # after the words of a clause whose own rule did not change but one under it did
# An authority is plain text, shown as written in both editions' 出处 (no markup characters, no runs of spaces)
UNPLAIN = re.compile(r"[\\`<>|~&{}]|\s\s")


@dataclass(frozen=True)
class Code:
    """A code of the Laws the books are mapped to."""

    id: str
    name_hans: str
    name_en: str
    in_force: bool
    url: str

    def law_url(self, citation: str) -> str:
        """The public text of the law a citation is in: 27B1b -> its law 27's page."""
        m = re.match(r"\d+", citation)
        if m is None:
            raise KbError(f"concordance: '{citation}' names no law")
        return self.url.format(law=int(m.group()))


def table(work_id: str) -> Table:
    return Table(f"concordance/{work_id}.tsv", ("id", "citation", "change", "authority"), unique=("id",),
                 enums={"change": CHANGES}, may_be_empty=("citation",))


def codes(root: Path | None = None) -> dict[str, Code]:
    path = (root or DATA_DIR) / "concordance" / "codes.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return {cid: Code(cid, c["name_hans"], c["name_en"], bool(c["in_force"]), c["url"])
                for cid, c in data["code"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KbError(f"{path}: {exc}") from None


def attach_concordance(records: list[Record], root: Path | None = None) -> list[Record]:
    """New records, each clause of a work with a concordance file carrying its rows' entries."""
    if CODE not in codes(root):
        raise KbError(f"kb/data/concordance/codes.toml: no code '{CODE}'")
    found: dict[str, list[dict[str, str]]] = {}
    for work in works.all_works():
        t = table(work.id)
        if not t.file(root).is_file():
            continue
        mine = {r.id for r in records if r.work == work.id}
        for row in read_table(t, root):
            found[row["id"]] = _entries(row["id"], row["citation"], row["change"], row["authority"], row.where, mine,
                                        work.id)
        missing = [rid for rid in (r.id for r in records if r.work == work.id) if rid not in found]
        if missing:
            raise KbError(f"{t.file(root)}: {len(missing)} records of '{work.id}' have no row, first '{missing[0]}' "
                          "(a clause not settled is a row with change 'unmapped')")
    return [replace(rec, concordance=found.get(rec.id, [])) for rec in records]


def _entries(rid: str, cell: str, change: str, authority: str, where: str, mine: set[str],
             work: str) -> list[dict[str, str]]:
    if rid not in mine:
        raise KbError(f"{where}: no record '{rid}' in work '{work}'")
    if not authority.strip():
        raise KbError(f"{where}: '{rid}' has no authority")
    bad = UNPLAIN.search(authority)
    if bad:
        raise KbError(f"{where}: '{rid}': its authority holds {bad.group(0)!r}: write it as plain text (→ for ->, and for &)")
    cites = [c.strip() for c in cell.split(",")] if cell.strip() else []
    if change in UNCITED and cites:
        raise KbError(f"{where}: '{rid}' is {change} but names a 2017 citation ({cell})")
    if change not in UNCITED and not cites:
        raise KbError(f"{where}: '{rid}' is {change} but names no 2017 citation")
    for c in cites:
        if not CITATION.fullmatch(c):
            raise KbError(f"{where}: '{c}' is not a compact citation (like 27B1b)")
    base = {"code": CODE, "change": change, "authority": authority.strip()}
    return [{**base, "citation": c} for c in cites] or [{**base, "citation": ""}]


def display_citation(compact: str) -> str:
    """A compact citation as people write it: 27B1b -> 27B1(b), 45C -> 45C."""
    return re.sub(r"(\d[A-Z]\d{1,2})([a-z])$", r"\1(\2)", compact)


def in_force_words(change: str, heading: bool = False, below: bool = False) -> str:
    """What the code in force made of a clause, in words (Simplified): 规定有实质变化; for a bare
    heading (no text of its own, clauses under it) classed changed, 其下有规定变化; for a clause whose
    own words carry over but a clause under it changed (``below``: 64A 当藏牌成立时：), 规定相同；其下有规定变化,
    so a director reading it does not take the clauses under it for unchanged."""
    if heading and change == "changed":
        return HEADING_CHANGED
    return IN_FORCE_WORDS[change] + (BELOW_CHANGED if below and change != "changed" else "")


def changed_below(records: Iterable[Any]) -> set[str]:
    """The ids of the clauses with a clause under them (at any depth) whose rule changed: records
    as objects or dicts with ``id``, ``parent`` and ``concordance``."""
    def get(r: Any, key: str) -> Any:
        return r.get(key) if isinstance(r, dict) else getattr(r, key)
    records = list(records)
    parent = {get(r, "id"): get(r, "parent") for r in records}
    out: set[str] = set()
    for r in records:
        if any(e["change"] == "changed" for e in get(r, "concordance") or []):
            up, seen = parent.get(get(r, "id")), set()
            while up and up not in seen:
                seen.add(up)
                out.add(up)
                up = parent.get(up)
    return out


def in_force_label(code: str) -> str:
    """How a line names the code: 2017 版."""
    return f"{code} 版"


def in_force_text(entries: list[dict[str, str]], heading: bool = False, below: bool = False) -> str:
    """The line under a clause as plain text (Simplified), as the site shows it without its links:
    2017 版：27B1(a)，规定有实质变化; 2017 版：已无此规定; "" for a clause with no entries."""
    if not entries:
        return ""
    first = entries[0]
    words = in_force_words(first["change"], heading, below)
    cites = "、".join(display_citation(e["citation"]) for e in entries if e["citation"])
    said = f"{cites}，{words}" if first["change"] not in UNCITED and cites else words
    return f"{in_force_label(first['code'])}：{said}"
