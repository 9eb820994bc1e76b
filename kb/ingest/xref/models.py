"""The data types of cross-references: a Citation as found, a Ref as resolved; text folding."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kb.core.records import LOST_MARK

__all__ = ["Citation", "Ref", "compact", "record_id", "fold", "LAW_RANGE", "LOST_MARK"]

LAW_RANGE = range(1, 94)          # the 1997 Laws of Duplicate Bridge: Laws 1-93

# An editor's restoration in the reading text: 第〔23〕条 (sure), 第〔23？〕条 (a conjecture).
_RESTORED = re.compile(r"〔([0-9A-Za-z]{1,3})(？?)〕")

_TRAD = str.maketrans({
    "條": "条", "規": "规", "則": "则", "參": "参", "閱": "阅", "見": "见",
    "應": "应", "據": "据", "項": "项", "與": "与",
})


def fold(text: str) -> str:
    """Fold fullwidth ASCII and the ideographic space to ASCII, and a few Traditional
    characters used in citations to Simplified. One character in, one out: offsets into
    the folded text are offsets into ``text``."""
    # the brackets (and a conjecture's ？) of a restored number read as spacing: 第〔23〕条 = 第 23 条
    text = _RESTORED.sub(lambda m: " " + m.group(1) + " " * (len(m.group(0)) - 1 - len(m.group(1))), text)
    out = []
    for ch in text:
        o = ord(ch)
        if 0xFF01 <= o <= 0xFF5E:
            out.append(chr(o - 0xFEE0))
        elif o == 0x3000:
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out).translate(_TRAD)


@dataclass
class Citation:
    """A reference as found in the text, before resolution."""

    text: str                        # the matched text, == source[span[0]:span[1]]
    span: tuple[int, int]
    law: int | None = None           # absolute citations only
    clause: str | None = None        # "A".."H" (upper case)
    item: int | None = None
    sub: str | None = None           # "a".."h"
    relative: str | None = None      # None | "this" (本条) | "above" (上述) | "below" (以下)
    lost: bool = False               # digits/letters dropped in the source
    range_end: str | None = None     # clause ranges: 上述A至E各款 -> clause "A", range_end "E"

    @property
    def compact(self) -> str:
        """Compact citation without the law when relative: "45C4b", "B1a", "(a)"."""
        return compact(self.law, self.clause, self.item, self.sub, self.range_end)


@dataclass
class Ref:
    """A resolved reference: the value of a record's ``refs`` field."""

    text: str
    span: tuple[int, int]
    target: str | None
    status: str                      # "resolved" | "external" | "lost" | "unresolved"
    coarser: bool = False            # target is an ancestor of what was cited
    wanted: str | None = None        # the precise citation when coarser/unresolved/external
    law: int | None = None           # the cited law number, when known
    members: list[str] = field(default_factory=list)   # clause ranges: existing member ids
    restored: dict[str, str] | None = None   # an editor's restoration: citation, authority, confidence

    def to_json(self) -> dict[str, Any]:
        """Dict for the record field ``refs``; optional fields only when set."""
        out: dict[str, Any] = {
            "text": self.text, "span": [self.span[0], self.span[1]],
            "target": self.target, "status": self.status,
        }
        if self.coarser:
            out["coarser"] = True
        if self.wanted is not None:
            out["wanted"] = self.wanted
        if self.law is not None:
            out["law"] = self.law
        if self.members:
            out["members"] = list(self.members)
        if self.restored:
            out["restored"] = dict(self.restored)
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Ref:
        return cls(text=obj["text"], span=(obj["span"][0], obj["span"][1]),
                   target=obj.get("target"), status=obj["status"],
                   coarser=obj.get("coarser", False), wanted=obj.get("wanted"),
                   law=obj.get("law"), members=list(obj.get("members", [])),
                   restored=obj.get("restored"))


def compact(law: int | None, clause: str | None = None, item: int | None = None,
            sub: str | None = None, range_end: str | None = None) -> str:
    """"45C4b"; a clause range "47A-E"; a bare sub-item "(a)"."""
    s = "" if law is None else str(law)
    if clause:
        s += clause + (f"-{range_end}" if range_end else "")
    if item is not None:
        s += str(item)
    if sub:
        s += sub if (clause or item is not None) else f"({sub})"
    return s


def record_id(work: str, path: Sequence[str]) -> str:
    """``record_id("cbr1999", ["45", "C", "4", "b"]) == "cbr1999:45C4b"``."""
    return f"{work}:{''.join(path)}"


