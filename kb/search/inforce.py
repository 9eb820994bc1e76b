"""Search by the numbers of the code in force: 2017 27B1b finds the books' clauses that became 2017's 27B1(b).

The books translate the 1997 Laws; directors know the 2017 numbers. Each bridge record carries its
``concordance`` (kb/ingest/concordance.py: the 2017 citation(s) it became and how), and the index
stores it. A citation marked as 2017's (citations.split_codes) is looked up in the map from each
2017 citation to the records naming it (``CodeMap``), never in the books' own numbering:

* the records naming that very citation, in book order; then those naming a citation under it
  (2017版27条: the law's own record first, then those of 27A1, 27A2, 27B …, in 2017's order);
* else, when a citation above it is named (2017 27B1b: 27B1 is not, 27B is), the records naming
  the nearest such one, and the answer says that the citation itself has no counterpart here;
* else nothing, and the answer says so: a 2017 law or clause no row names (2017 Laws 1–25 are
  outside the books; a clause new in 2017), never a guessed clause.

A result found so shows its line as the site shows it under the clause (``line``: the words are
kb/ingest/concordance.py's ``in_force_text``). The site's engine (docs/assets/kb-engine.js) reads
the same map (``CodeMap.site_table``) and the same lines and notes from the static index.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from kb.ingest.concordance import CODE, in_force_label, in_force_text
from kb.ingest.normalise import ui_text
from kb.search.citations import CODE_NAME, Cite

if CODE_NAME != CODE:   # the query grammar's marker names the code the concordance maps to
    raise ImportError(f"citations.CODE_NAME {CODE_NAME!r} is not the concordance's code {CODE!r}")

EXACT, BELOW, NEAREST = 100.0, 10.0, 50.0     # scores, as engine._by_citation gives the books' own
_COMPACT = re.compile(r"(\d{1,2})(?:([A-Z])(?:(\d{1,2})([a-z])?)?)?")

# The answer's note (not_held.text) for a 2017 citation no record answers exactly (Simplified)
NOTICE_NEAREST = "本库所收的 1997 年版条款中没有直接对应「{cite}」的；下列是对应「{nearest}」的条款。"
NOTICE_NONE = "本库所收的 1997 年版条款中没有对应「{cite}」的（对照表未列：它可能是 2017 年新增的，或在本库未收的条文之内）。"
NOTICE_UNREAD = "「{text}」不是 2017 年版规则的条款号（如 27B1(b)、第27条B款；共 93 条）。"
LAW_LABEL = "{label}第{law}条"      # 2017 版第27条
CLAUSE_LABEL = "{label} {cite}"      # 2017 版 27B1(b)


def path_of(compact: str) -> tuple[str, ...]:
    """A compact citation's path: 27B1b -> ("27", "B", "1", "b")."""
    m = _COMPACT.fullmatch(compact)
    if m is None:
        raise ValueError(f"not a compact citation: {compact!r}")
    return tuple(p for p in m.groups() if p)


def pathkey(path: Sequence[str]) -> str:
    return "".join(p + "/" for p in path)


def _order(path: tuple[str, ...]) -> tuple[Any, ...]:
    """2017's order of citations: numbers as numbers (27B2 before 27B10)."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in path)


def shown(path: Sequence[str]) -> str:
    """A path as people write it: 27B1(b)."""
    return "".join(path[:3]) + ("(" + "".join(path[3:]) + ")" if len(path) > 3 else "")


def label(path: Sequence[str], script: str = "hans") -> str:
    """How a note names a 2017 citation: 2017 版第27条, 2017 版 27B1(b) (the words in ``script``)."""
    tmpl = ui_text(LAW_LABEL if len(path) == 1 else CLAUSE_LABEL, script)
    return tmpl.format(label=ui_text(in_force_label(CODE), script), law=path[0], cite=shown(path))


class CodeMap:
    """Each 2017 citation the records name, with the records naming it (by their number in
    ``concordances``, in the order ``rank`` gives them: the books' order), in 2017's order."""

    def __init__(self, concordances: Sequence[Sequence[dict[str, str]]], rank: Callable[[int], Any]):
        named: dict[tuple[str, ...], list[int]] = {}
        for n, entries in enumerate(concordances):
            for e in entries:
                if e.get("code") == CODE and e.get("citation"):
                    docs = named.setdefault(path_of(e["citation"]), [])
                    if n not in docs:
                        docs.append(n)
        self.keys = [(pathkey(p), sorted(named[p], key=rank)) for p in sorted(named, key=_order)]
        self.exact = dict(self.keys)

    def find(self, cite: Cite) -> tuple[list[tuple[int, float]], tuple[str, ...] | None]:
        """The records a 2017 citation finds, with their scores, and the citation above it they were
        found by (None when found by the citation itself or not found)."""
        key = pathkey(cite.path)
        hits = [(n, EXACT) for n in self.exact.get(key, [])]
        hits += [(n, BELOW) for k, docs in self.keys if k != key and k.startswith(key) for n in docs]
        if hits:
            return hits, None
        for k in range(len(cite.path) - 1, 0, -1):
            docs = self.exact.get(pathkey(cite.path[:k]))
            if docs:
                return [(n, NEAREST) for n in docs], cite.path[:k]
        return [], None

    def ranked(self, cites: Sequence[Cite], allowed: Callable[[int], bool] | None) -> list[tuple[int, float]]:
        """The records the citations find, each once, best first (the filters applied)."""
        out: list[tuple[int, float]] = []
        seen: set[int] = set()
        for c in cites:
            for n, score in self.find(c)[0]:
                if n not in seen and (allowed is None or allowed(n)):
                    seen.add(n)
                    out.append((n, score))
        return out

    def site_table(self) -> list[list[Any]]:
        """The map as the site's engine reads it: [[pathkey, [record numbers]], …] in 2017's order."""
        return [[k, list(docs)] for k, docs in self.keys]


def line(entries: Sequence[dict[str, str]], heading: bool, script: str, below: bool = False) -> dict[str, Any] | None:
    """What a result found by a 2017 citation shows of its concordance: {code, citations (compact),
    change, text (the line under the clause on the site, in ``script``; ``below``: a clause under it
    changed)}; None without entries."""
    if not entries:
        return None
    return {"code": entries[0]["code"], "citations": [e["citation"] for e in entries if e["citation"]],
            "change": entries[0]["change"], "text": ui_text(in_force_text(list(entries), heading, below), script)}


def notes(code_map: CodeMap, cites: Sequence[Cite], unread: Sequence[str], script: str) -> list[dict[str, Any]]:
    """For each 2017 citation not answered by itself, and each attempt at one that is none (as
    typed), what the answer says: {code, asked, citation (compact; null: no citation), nearest
    (compact, or null), text}."""
    out: list[dict[str, Any]] = []
    for c in cites:
        hits, nearest = code_map.find(c)
        if hits and nearest is None:
            continue
        if hits and nearest is not None:
            text = ui_text(NOTICE_NEAREST, script).format(cite=label(c.path, script), nearest=label(nearest, script))
        else:
            text = ui_text(NOTICE_NONE, script).format(cite=label(c.path, script))
        out.append({"code": CODE, "asked": c.text, "citation": "".join(c.path),
                    "nearest": "".join(nearest) if nearest else None, "text": text})
    for asked in unread:
        out.append({"code": CODE, "asked": asked, "citation": None, "nearest": None,
                    "text": ui_text(NOTICE_UNREAD, script).format(text=asked)})
    return out


def with_notes(held: dict[str, Any] | None, said: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The answer's not_held with the notes on 2017 citations (``notes``) first in its text and
    under ``codes``."""
    if not said:
        return held
    text = "".join(s["text"] for s in said)
    if held is None:
        return {"matters": [], "weak": False, "text": text, "codes": said}
    return {**held, "text": text + held["text"], "codes": said}


def site_texts(script: str) -> dict[str, Any]:
    """The notes' and labels' words in an edition's script, and the scores, for the site's engine."""
    return {"nearest": ui_text(NOTICE_NEAREST, script), "none": ui_text(NOTICE_NONE, script),
            "unread": ui_text(NOTICE_UNREAD, script), "law": ui_text(LAW_LABEL, script),
            "clause": ui_text(CLAUSE_LABEL, script), "label": ui_text(in_force_label(CODE), script), "code": CODE,
            "scores": [EXACT, BELOW, NEAREST]}


def table_text() -> str:
    """Every word of the notes (the static index's fold table must hold their characters)."""
    return "\n".join([NOTICE_NEAREST, NOTICE_NONE, NOTICE_UNREAD, LAW_LABEL, CLAUSE_LABEL])
