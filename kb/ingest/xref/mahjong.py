"""Mahjong (twmj16) references by name: 不计门清, 加计不求.自摸, 视同相公, 依喊碰未碰处罚 ...

A term links to the clause that defines it (curated in ``kb/data/xref/mahjong_terms.tsv``).
Only reference-like uses are reported: a ``bare`` term anywhere, a ``context`` term after
a pointer word or inside such a list. Never a clause's reference to itself (or to the
clause it sits in), never the term in a definition heading (门清1台 :) or in a defining
phrase (是为天听, 合称"门清一摸三").

``find_item_references`` adds the few references between items of one numbered list
(则同（1）, 依方式（1）, 前项).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kb.core.errors import KbError
from kb.ingest.xref.models import Ref, fold

__all__ = ["Term", "load_terms", "find_term_references", "find_item_references", "TERMS_PATH"]

TERMS_PATH = Path(__file__).resolve().parents[2] / "data" / "xref" / "mahjong_terms.tsv"

# Pointer words: the term right after one of these is a reference.
_TRIGGERS = ("不计", "加计", "另计", "改计", "仍计", "计", "视同", "视为", "同", "依", "判",
             "合称", "称", "含", "非", "得胡")
# 视同被抢花者放铳: 视同 may be followed by a short 被…者 before the term
_GAP_AFTER_SHITONG = re.compile(r"视同被[^\s,，.。;；、:：()]{1,4}者$")
# Words that define rather than cite the term that follows (possibly after a quote)
_DEFINERS = ("是为", "是谓", "谓之", "称为", "又名")
_QUOTES = "\"'“”‘’「」『』"
# list members: a tight separator binds (含独听.自摸共3台); after a loose one the member must
# end at a boundary (不计天听, 门清, ... but not 不计天听, 胡牌仍有效)
_TIGHT_SEP = re.compile(r"[、./]|或|和|及|与")
_LOOSE_SEP = re.compile(r"\s*[,，、]\s*")
_AFTER_MEMBER = re.compile(r"(?:$|[\s、.,，;；。:：()/]|\d|或|和|及|与|等)")
_HEADING_PREFIX = re.compile(r"\s*(?:l\s|l&nbsp;|p;|\d{1,2}[.、])?\s*")
_HEADING_SUFFIX = re.compile(r"[^:：\n，。,;；]{0,12}[:：]")


@dataclass(frozen=True)
class Term:
    term: str
    target: str
    bare: bool = False


@lru_cache(maxsize=8)
def load_terms(path: Path = TERMS_PATH) -> tuple[Term, ...]:
    """Read the curated term table (term<TAB>clause id[<TAB>bare|context])."""
    terms: list[Term] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if len(cols) not in (2, 3) or not cols[0] or ":" not in cols[1]:
            raise KbError(f"{path.name}:{n}: expected term<TAB>clause id[<TAB>mode]")
        mode = cols[2].strip() if len(cols) == 3 else "context"
        if mode not in ("context", "bare"):
            raise KbError(f"{path.name}:{n}: unknown mode {mode!r} (context|bare)")
        terms.append(Term(fold(cols[0].strip()), cols[1].strip(), mode == "bare"))
    return tuple(terms)


def _is_self(target: str, self_id: str | None) -> bool:
    return self_id is not None and (self_id == target or self_id.startswith(target + "."))


def _in_heading(t: str, start: int, end: int) -> bool:
    line_start = t.rfind("\n", 0, start) + 1
    return (_HEADING_PREFIX.fullmatch(t, line_start, start) is not None
            and _HEADING_SUFFIX.match(t, end) is not None)


def _defining(t: str, start: int) -> bool:
    return t[max(0, start - 4):start].rstrip(_QUOTES + " ").endswith(_DEFINERS)


def _triggered(t: str, start: int, end: int) -> bool:
    head = t[max(0, start - 12):start].rstrip(_QUOTES)
    if head.endswith(_TRIGGERS) or _GAP_AFTER_SHITONG.search(head):
        return True
    return head.endswith("与") and t.startswith("合称", end)       # 与门清合称


def find_term_references(text: str, self_id: str | None, *,
                         terms: tuple[Term, ...] | None = None,
                         exists: Callable[[str], bool] | None = None) -> list[Ref]:
    """Named references in a twmj16 clause text, as resolved :class:`Ref` objects.

    ``self_id`` is the citing record's id: references to it (or to a clause containing
    it) are dropped. With ``exists``, a target missing from the corpus gives ``unresolved``.
    """
    table = terms if terms is not None else load_terms()
    t = fold(text)
    by_first: dict[str, list[Term]] = {}
    for term in sorted(table, key=lambda x: -len(x.term)):
        by_first.setdefault(term.term[0], []).append(term)

    # longest term at every position
    cands: list[tuple[int, int, Term]] = []
    for i, ch in enumerate(t):
        for term in by_first.get(ch, ()):
            if t.startswith(term.term, i):
                cands.append((i, i + len(term.term), term))
                break
    # a term inside a longer term is part of that name
    cands = [c for c in cands
             if not any(o is not c and o[0] <= c[0] and c[1] <= o[1] and o[1] - o[0] > c[1] - c[0]
                        for o in cands)]

    accepted: list[tuple[int, int, Term]] = []
    prev_end = -1
    for start, end, term in cands:
        if _in_heading(t, start, end) or _defining(t, start):
            continue
        ok = term.bare or _triggered(t, start, end)
        if not ok and prev_end >= 0:
            gap = t[prev_end:start]
            ok = bool(_TIGHT_SEP.fullmatch(gap)
                      or (_LOOSE_SEP.fullmatch(gap) and _AFTER_MEMBER.match(t, end)))
        if not ok:
            continue
        if accepted and start < accepted[-1][1]:
            continue                                            # overlaps the previous link
        accepted.append((start, end, term))
        prev_end = end if not term.bare else -1

    refs: list[Ref] = []
    for start, end, term in accepted:
        if _is_self(term.target, self_id):
            continue
        if exists is not None and not exists(term.target):
            refs.append(Ref(text[start:end], (start, end), None, "unresolved", wanted=term.target))
        else:
            refs.append(Ref(text[start:end], (start, end), term.target, "resolved"))
    return refs


# 同（1） / 依方式（1）: item N of the same list; 前项: the item before this one
_ITEM_REF = re.compile(r"(?<=同)\s*[(（]\s*(?P<n>\d{1,2})\s*[)）]|方式\s*[(（]\s*(?P<m>\d{1,2})\s*[)）]|前项")


def find_item_references(text: str, self_id: str | None, *,
                         exists: Callable[[str], bool] | None = None) -> list[Ref]:
    """References to a sibling item of a numbered twmj16 list, relative to ``self_id``
    (e.g. ``twmj16:wrong-kan.3.2``): 则同（1） -> ``wrong-kan.3.1``; 前项 -> ``wrong-kan.1.1``
    from ``wrong-kan.1.2``. Only from inside a numbered item; never to itself."""
    if not self_id or "." not in self_id:
        return []
    parent, own = self_id.rsplit(".", 1)
    if not own.isdigit():
        return []
    refs: list[Ref] = []
    t = fold(text)
    for m in _ITEM_REF.finditer(t):
        start = m.start()
        while t[start].isspace():
            start += 1
        n = m.group("n") or m.group("m")
        num = int(n) if n else int(own) - 1
        if num < 1 or num == int(own):
            continue
        target = f"{parent}.{num}"
        if exists is not None and not exists(target):
            refs.append(Ref(text[start:m.end()], (start, m.end()), None, "unresolved",
                            wanted=target))
        else:
            refs.append(Ref(text[start:m.end()], (start, m.end()), target, "resolved"))
    return refs
