"""Bridge law citations: find them in a clause text and resolve them to record ids.

Spans cover the citation proper (规则/第/本条/上述 … up to the last designator), never
the verb before it. A list gives one citation per member; a clause range (上述A至E各款)
is one citation resolved to the law with its member clauses. Damaged text (the ingest
stage's □, or 002's unmarked 第条款) gives ``lost`` citations, never a target.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kb.ingest.xref.models import LAW_RANGE, LOST_MARK, Citation, Ref, compact, fold, record_id

__all__ = ["find_references", "resolve", "resolve_all"]

_W = r"[ \t\r\n]*"                                   # whitespace between tokens (after fold)
_NUM = r"\d(?:[ \t\r\n]*\d){0,2}"                     # law number, may be broken by a line wrap
_SUB = rf"\({_W}(?P<sub>[a-h]){_W}\)"
_UNIT = r"[\d张墩家台人个次副分位点线条%]"            # a digit followed by these is a count
_CL = rf"(?P<cl>[A-H](?![A-Za-z])|[a-h](?={_W}款))"

# 第47条E款2(b) / 规则第90条 / 事16条C款2 / bare 45条E款 (bare: checked by context)
_ABS = re.compile(
    rf"(?P<pre>规则{_W})?(?P<di>第|事)?{_W}(?<!\d)(?P<law>{_NUM}){_W}条"
    rf"(?:{_W}(?P<cl>[A-Ha-h]){_W}款"
    rf"(?:{_W}(?P<item>\d{{1,2}})(?!{_W}{_UNIT})(?:{_W}{_SUB})?)?)?"
    rf"(?:{_W}项)?")
# 规则47E2(a) (the laws1997 style); not 本条规则
_RULE = re.compile(
    rf"(?<!本条)规则{_W}(?P<law>\d{{1,3}})(?!\d)"
    rf"(?:(?P<cl>[A-H])(?![A-Za-z])"
    rf"(?:(?P<item>\d{{1,2}})(?!\d)(?:{_W}{_SUB})?)?)?"
    rf"(?:{_W}项)?")
_REL_PREFIX = r"(?P<rel>本条规则的?|本条的?|上述的?|上面的?|前述的?|以上的?|下述的?|以下的?|下面的?)"
# 本条B款1(a) / 本条规则E2(a)项 / 上面的B项 / 上述A至E各款 / 上述(a)
_REL = re.compile(
    rf"{_REL_PREFIX}{_W}(?:"
    rf"(?P<rcl>[A-H])(?![A-Za-z]){_W}(?:至|到|~|-|–|—){_W}(?P<cl2>[A-H])(?![A-Za-z])(?:{_W}(?:各款|各项|款|项))?"
    rf"|{_CL}(?:{_W}款)?(?:{_W}(?P<item>\d{{1,2}})(?!{_W}{_UNIT})(?:{_W}{_SUB})?)?(?:{_W}项)?"
    rf"|\({_W}(?P<osub>[a-h]){_W}\)(?:{_W}项)?)")
# Damaged text. The ingest stage marks a lost digit or letter with LOST_MARK (第□条□款,
# 本条□款, 以下（□）项); the raw 002 forms without marks (第条款, 参阅条款) are found too.
_L = LOST_MARK
# 第□条□款 / 规则第条 / 第条() / 第45条□款 (a partial loss is still lost); not the heading 第条：
_LOST_ABS = re.compile(
    rf"(?:规则{_W})?第{_W}(?P<law>[\d{_L}]*?){_W}条"
    rf"(?:{_W}(?P<cl>[A-Ha-h{_L}]?){_W}款(?:{_W}(?P<item>[\d{_L}]*))?)?"
    rf"(?:{_W}\({_W}(?P<sub>[a-h{_L}]?){_W}\))?")
# marked, no 第: □条□款 (参阅□条□款, the members of 第□条、□条、□条)
_LOST_MARKED = re.compile(rf"{_L}[{_L} \t]*条(?:{_W}{_L}*{_W}款)?")
# unmarked, only after a citing verb: 参阅条款 / 参阅本条款 / 参阅本章款
_LOST_BARE = re.compile(r"(?:本条|本章)款|条款")
# relative: 上述款 / 本条□款 / 本条(□) / 以下(□)项
_LOST_REL = re.compile(
    rf"(?:上述|下述|以下|本条|本章){_W}{_L}+{_W}款"
    rf"|(?:上述|下述|以下){_W}款"
    rf"|(?:上述|下述|以下|本条){_W}\({_W}{_L}?{_W}\)(?:{_W}项)?")

_VERBS = ("参阅", "参见", "参照", "见", "应用", "按照", "按", "依照", "依据", "依", "根据",
          "适用", "违反", "符合")
_SEP = re.compile(rf"{_W}(?:、|或者|或|以及|及|和|与){_W}")
_CONT_LOST = re.compile(rf"第?[{_L} \t]*条(?:{_W}{_L}*{_W}款)?")
_CONT_LAW = re.compile(rf"(?P<di>第)?{_W}(?<!\d)(?P<law>{_NUM}){_W}条"
                       rf"(?:{_W}(?P<cl>[A-Ha-h]){_W}款"
                       rf"(?:{_W}(?P<item>\d{{1,2}})(?!{_W}{_UNIT})(?:{_W}{_SUB})?)?)?(?:{_W}项)?")
_CONT_RULE = re.compile(rf"(?:规则{_W})?(?P<law>\d{{1,2}})(?!{_W}{_UNIT})(?![A-Za-z])")
_CONT_CL = re.compile(
    rf"{_CL}(?:{_W}款)?(?:{_W}(?P<item>\d{{1,2}})(?!{_W}{_UNIT})(?:{_W}{_SUB})?)?(?:{_W}项)?")
_CONT_ITEM = re.compile(rf"(?P<item>\d{{1,2}})(?!{_W}{_UNIT})(?![A-Za-z])(?:{_W}{_SUB})?(?:{_W}项)?")
_CONT_SUB = re.compile(rf"{_SUB}(?:{_W}项)?")


def _digits(s: str) -> int:
    return int(re.sub(r"\s+", "", s))


def _rel_kind(prefix: str) -> str:
    if prefix.startswith("本"):
        return "this"
    if prefix.startswith(("上", "前", "以上")):
        return "above"
    return "below"


def _preceded_by_verb(t: str, start: int) -> bool:
    head = t[max(0, start - 8):start].rstrip(" \t\r\n")
    return head.endswith(_VERBS)


def _looks_like_heading(t: str, m: re.Match[str]) -> bool:
    """第41条打牌的开始 / 规则44 at the start of a short line: a heading, not a citation."""
    if m.group("cl"):
        return False
    line_start = t.rfind("\n", 0, m.start()) + 1
    if t[line_start:m.start()].strip():
        return False
    end = t.find("\n", m.end())
    rest = t[m.end():] if end < 0 else t[m.end():end]
    return len(rest) <= 30 and not re.search(r"[，。；,;()]", rest) and end >= 0


def _cit(src: str, start: int, end: int, **kw: Any) -> Citation:
    while start < end and src[start].isspace():
        start += 1
    if start > 0 and src[start - 1] == "〔":
        start -= 1                     # the opening bracket of a restored number: 、〔31〕条
    if src[end:end + 1] == "〕" and src.count("〔", start, end) > src.count("〕", start, end):
        end += 1                       # the closing bracket of a restored number: 款〔2〕
    return Citation(text=src[start:end], span=(start, end), **kw)


def _sub(m: re.Match[str]) -> str | None:
    return m.groupdict().get("sub")


def _item(m: re.Match[str]) -> int | None:
    v = m.groupdict().get("item")
    return int(v) if v else None


def _primary(src: str, t: str) -> list[tuple[Citation, re.Match[str] | None]]:
    found: list[tuple[Citation, re.Match[str] | None]] = []
    for m in _ABS.finditer(t):
        if not m.group("di") and not m.group("pre") and not _preceded_by_verb(t, m.start()):
            continue
        if m.group("di") == "第" and not m.group("pre") and _looks_like_heading(t, m):
            continue
        cl = m.group("cl")
        found.append((_cit(src, m.start(), m.end(), law=_digits(m.group("law")),
                           clause=cl.upper() if cl else None, item=_item(m), sub=_sub(m)), m))
    for m in _RULE.finditer(t):
        if _looks_like_heading(t, m):
            continue                   # 规则44 打牌的进程和程序
        found.append((_cit(src, m.start(), m.end(), law=int(m.group("law")),
                           clause=m.group("cl"), item=_item(m), sub=_sub(m)), m))
    for m in _REL.finditer(t):
        kind = _rel_kind(m.group("rel"))
        if m.group("rcl"):
            c = _cit(src, m.start(), m.end(), clause=m.group("rcl"), range_end=m.group("cl2"),
                     relative=kind)
        elif m.group("osub"):
            c = _cit(src, m.start(), m.end(), sub=m.group("osub"), relative=kind)
        else:
            c = _cit(src, m.start(), m.end(), clause=m.group("cl").upper(), item=_item(m),
                     sub=_sub(m), relative=kind)
        found.append((c, m))
    for m in _LOST_ABS.finditer(t):
        if t[m.end():m.end() + 3].lstrip(" \t\r\n")[:1] in (":", "："):
            continue                   # the heading 第条：不足叫牌
        law, cl, item, sub = m.group("law", "cl", "item", "sub")
        damaged = not law or _L in m.group(0) or sub == ""
        if not damaged:
            continue                   # an intact citation: _ABS has it
        found.append((_cit(src, m.start(), m.end(), lost=True,
                           law=int(law) if law and law.isdigit() else None), None))
    for m in _LOST_MARKED.finditer(t):
        found.append((_cit(src, m.start(), m.end(), lost=True), None))
    for m in _LOST_REL.finditer(t):
        found.append((_cit(src, m.start(), m.end(), lost=True), None))
    for m in _LOST_BARE.finditer(t):
        if _preceded_by_verb(t, m.start()) and m.group(0) != "款":
            found.append((_cit(src, m.start(), m.end(), lost=True), None))
    return found


def _continuations(src: str, t: str, first: Citation, taken: list[tuple[int, int]]
                   ) -> list[Citation]:
    """Members after the first one in a list: 第70条、71条 / A款1、2 / C、D或E项 / (a)或(b)."""
    out: list[Citation] = []
    prev = first
    rule_style = t.startswith("规则", first.span[0]) and "条" not in first.text
    while True:
        sep = _SEP.match(t, prev.span[1])
        if not sep:
            break
        pos = sep.end()
        if any(a <= pos < b for a, b in taken):
            break                      # the next member is a citation in its own right
        cit: Citation | None = None
        if prev.lost:
            m = _CONT_LOST.match(t, pos)
            if m and "条" in m.group(0):
                cit = _cit(src, pos, m.end(), lost=True)
        elif prev.range_end:
            break
        else:
            base = dict(law=prev.law, relative=prev.relative)
            tries: list[str] = []
            if prev.sub is not None:
                tries.append("sub")
            if prev.item is not None:
                tries.append("item")
            if prev.clause is not None:
                tries.append("clause")
            if prev.clause is None and prev.item is None and prev.sub is None:
                tries.append("law")
            for kind in tries:
                if kind == "sub":
                    m = _CONT_SUB.match(t, pos)
                    if m:
                        cit = _cit(src, pos, m.end(), clause=prev.clause, item=prev.item,
                                   sub=m.group("sub"), **base)
                elif kind == "item" and prev.clause is not None:
                    m = _CONT_ITEM.match(t, pos)
                    if m:
                        cit = _cit(src, pos, m.end(), clause=prev.clause, item=_item(m),
                                   sub=_sub(m), **base)
                elif kind == "clause":
                    m = _CONT_CL.match(t, pos)
                    if m:
                        cit = _cit(src, pos, m.end(), clause=m.group("cl").upper(),
                                   item=_item(m), sub=_sub(m), **base)
                elif kind == "law" and prev.relative is None:
                    if rule_style:
                        m = _CONT_RULE.match(t, pos)
                        if m:
                            cit = _cit(src, pos, m.end(), law=int(m.group("law")))
                    else:
                        m = _CONT_LAW.match(t, pos)
                        if m:
                            cl = m.group("cl")
                            cit = _cit(src, pos, m.end(), law=_digits(m.group("law")),
                                       clause=cl.upper() if cl else None, item=_item(m),
                                       sub=_sub(m))
                if cit:
                    break
        if cit is None or any(a < cit.span[1] and cit.span[0] < b for a, b in taken):
            break
        out.append(cit)
        taken.append(cit.span)
        prev = cit
    return out


def find_references(text: str) -> list[Citation]:
    """Every law citation in a (Simplified) clause text, in text order, spans disjoint."""
    t = fold(text)
    cands = _primary(text, t)
    # longest match first wins an overlap; then text order
    chosen: list[Citation] = []
    taken: list[tuple[int, int]] = []
    for c, _m in sorted(cands, key=lambda cm: (cm[0].span[0] - cm[0].span[1], cm[0].span[0])):
        if c.span[1] <= c.span[0]:
            continue
        if any(a < c.span[1] and c.span[0] < b for a, b in taken):
            continue
        chosen.append(c)
        taken.append(c.span)
    chosen.sort(key=lambda c: c.span)
    result: list[Citation] = []
    for c in chosen:
        result.append(c)
        result.extend(_continuations(text, t, c, taken))
    result.sort(key=lambda c: c.span)
    return result


def _letters(a: str, b: str) -> list[str]:
    return [chr(o) for o in range(ord(a), ord(b) + 1)]


def resolve(cit: Citation, *, work: str, law: int | None = None,
            path: Sequence[str] = (), exists: Callable[[str], bool],
            external_laws: Iterable[int] = LAW_RANGE) -> Ref:
    """Resolve ``cit`` found in the record ``work``/``law``/``path`` to a :class:`Ref`.

    Only the exact record links: a clause missing from a law the corpus holds is
    ``unresolved`` (a damaged or mistaken citation, never a silent link to an ancestor);
    a clause range links to its law with ``coarser=True`` when every member exists.
    Never guesses: lost digits give ``lost`` with no target.
    """
    def ref(status: str, target: str | None = None, **kw: Any) -> Ref:
        return Ref(text=cit.text, span=cit.span, target=target, status=status, **kw)

    if cit.lost:
        return ref("lost", law=cit.law)        # never a target, even when the law survived
    if cit.relative:
        if law is None:
            return ref("unresolved", wanted=cit.compact)
        lawno = law
    else:
        if cit.law is None:
            return ref("unresolved", wanted=cit.compact)
        lawno = cit.law
    if lawno not in LAW_RANGE:
        return ref("unresolved", wanted=cit.compact, law=lawno)

    # a bare relative sub-item: 上述(a) = a sibling of the citing item
    if cit.relative and cit.clause is None and cit.sub is not None:
        p = list(path)
        cands: list[list[str]] = []
        if len(p) >= 3 and p[2].isdigit():
            cands.append([str(lawno), p[1], p[2], cit.sub])
            if cit.relative == "above" and len(p) == 3 and int(p[2]) > 1:
                cands.append([str(lawno), p[1], str(int(p[2]) - 1), cit.sub])
        for c in cands:
            if exists(record_id(work, c)):
                return ref("resolved", record_id(work, c), law=lawno)
        wanted = "".join(cands[0]) if cands else cit.compact
        return ref("unresolved", wanted=wanted, law=lawno)

    # a clause range: the law, with the existing clauses as members
    if cit.range_end:
        wanted = compact(lawno, cit.clause, range_end=cit.range_end)
        if cit.clause is None or cit.range_end < cit.clause:
            return ref("unresolved", wanted=wanted, law=lawno)
        members = [record_id(work, [str(lawno), c]) for c in _letters(cit.clause, cit.range_end)]
        if exists(record_id(work, [str(lawno)])):
            if not all(exists(m) for m in members):    # a range naming a clause the law lacks
                return ref("unresolved", wanted=wanted, law=lawno)
            return ref("resolved", record_id(work, [str(lawno)]), coarser=True, wanted=wanted,
                       law=lawno, members=members)
        if lawno in set(external_laws):
            return ref("external", wanted=wanted, law=lawno)
        return ref("unresolved", wanted=wanted, law=lawno)

    parts = [str(lawno)]
    if cit.clause:
        parts.append(cit.clause)
        if cit.item is not None:
            parts.append(str(cit.item))
            if cit.sub:
                parts.append(cit.sub)
    wanted = "".join(parts)
    if exists(record_id(work, parts)):
        return ref("resolved", record_id(work, parts), law=lawno)
    if exists(record_id(work, parts[:1])):
        # the law is in the corpus but the cited clause is not: never a silent link to an ancestor
        return ref("unresolved", wanted=wanted, law=lawno)
    if lawno in set(external_laws):
        return ref("external", wanted=wanted, law=lawno)
    return ref("unresolved", wanted=wanted, law=lawno)


def resolve_all(text: str, *, work: str, law: int | None, path: Sequence[str],
                exists: Callable[[str], bool],
                external_laws: Iterable[int] = LAW_RANGE) -> list[Ref]:
    """``find_references`` + ``resolve`` for one bridge record."""
    ext = frozenset(external_laws)
    return [resolve(c, work=work, law=law, path=path, exists=exists, external_laws=ext)
            for c in find_references(text)]


