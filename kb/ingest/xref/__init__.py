"""Cross-references between clauses: find, resolve, annotate (in the manner of eyecite).

1. ``find_references(text)`` finds every law citation in a Simplified clause text
   (第47条E款2, 规则45C4(b), 本条B款1(a), 上述(a)或(b), damaged 参阅第条款 ...) and
   returns :class:`Citation` objects with spans into ``text``.
2. ``resolve(cit, work=..., law=..., path=..., exists=...)`` turns a citation into a
   :class:`Ref` whose ``target`` is a record id of the citing work, or explains why not
   (``external``, ``lost``, ``unresolved``).
3. ``annotate(text, refs, href)`` wraps resolved references in links.

Modules: :mod:`kb.ingest.xref.models` (Citation, Ref, fold), :mod:`kb.ingest.xref.bridge` (law citations),
:mod:`kb.ingest.xref.mahjong` (references by name), :mod:`kb.ingest.xref.annotate` (links).

Choices:

* Spans cover the citation proper: ``规则``/``第``/``本条``/``上述`` ... up to the last
  designator, never the verb before it (参阅, 按, 应用).
* A list (第70条、71条; 上述A款1、2; 本条规则C、D或E项; 上述(a)或(b)) gives one
  citation per member; later members inherit the earlier member's law/clause/item.
* A clause range (上述A至E各款, 本条规则A到E项) is one citation; it resolves to the law
  record with ``coarser=True``, ``wanted="47A-E"`` and ``members`` = the existing clause ids.
* A law of the 1997 Laws (1-93) that the work's corpus does not hold is ``external`` with
  ``target=None`` and ``law=N`` (no synthetic target id).
* Damaged text: ``□`` (the ingest stage's mark for a lost digit or letter: 第□条□款,
  本条□款, 以下（□）项) or the unmarked 002 forms (第条款, 参阅条款, 第条、条、条) give
  ``lost`` citations: never a target, even when part of the number survived.
* Bare self-references (本条规则 / 本条规定 without a clause) are not reported.
* Chinese-numeral law numbers (第十二条) are not recognised: in these texts 第+Chinese
  numeral counts tricks and cards (第十二墩), and the one 第一条 is a garbled heading.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kb.core import works
from kb.ingest.xref.annotate import annotate
from kb.ingest.xref.bridge import find_references, resolve, resolve_all
from kb.ingest.xref.mahjong import find_item_references, find_term_references
from kb.ingest.xref.models import LAW_RANGE, LOST_MARK, Citation, Ref, compact, fold, record_id

__all__ = [
    "Citation", "Ref", "find_references", "resolve", "resolve_all", "record_refs", "annotate",
    "fold", "record_id", "compact", "find_term_references", "find_item_references", "LAW_RANGE",
    "LOST_MARK",
]


def record_refs(rec: Any, exists: Callable[[str], bool],
                external_laws: Iterable[int] = LAW_RANGE) -> list[Ref]:
    """The ``refs`` of one record (a :class:`kb.core.records.Record` or anything with ``id``,
    ``work``, ``law``, ``path``, ``text_hans``): law citations for a bridge work;
    references by name and between items of one list for a sectioned work."""
    if works.get(rec.work).kind != "bridge":
        refs = (find_term_references(rec.text_hans, rec.id, exists=exists)
                + find_item_references(rec.text_hans, rec.id, exists=exists))
        refs.sort(key=lambda r: r.span)
        return [r for i, r in enumerate(refs) if i == 0 or r.span[0] >= refs[i - 1].span[1]]
    return resolve_all(rec.text_hans, work=rec.work, law=rec.law, path=rec.path,
                       exists=exists, external_laws=external_laws)
