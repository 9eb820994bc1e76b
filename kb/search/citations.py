"""Recognise clause citations in a query: 45C4(b), 第45條C款4（b）, 规则47E2, Law 64B, 第六十四条 ...

A citation is returned as a ``Cite`` (law number and record path, ["45", "C", "4", "b"]
as in the records) with its span in the query, so the rest of the query can be searched
as words. "第十二墩" and other ordinals that are not followed by 条 are not citations.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from kb.search.analysis import fold

MAX_LAW = 93          # the 1997 Laws have 93 laws
MAX_PATTERN = 99      # mahjong scoring items (计台名堂 1-36)
MIN_BARE_LAW = 10     # 六十四条 / 64条 without 第 is a law; 三条 (a tile) is not

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100}
_CN_NUM = "[零〇一二两三四五六七八九十百]+"


def chinese_number(text: str) -> int | None:
    """Value of a Chinese numeral up to the hundreds (六十四 -> 64, 十二 -> 12), else None."""
    if not text:
        return None
    total, digit = 0, None
    for ch in text:
        if ch in _CN_DIGITS:
            if digit is not None:  # 六四: read digit by digit
                digit = digit * 10 + _CN_DIGITS[ch]
            else:
                digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            total += (1 if digit is None else digit) * _CN_UNITS[ch]
            digit = None
        else:
            return None
    return total + (digit or 0)


@dataclass(frozen=True)
class Cite:
    """One citation found in a query."""

    law: int | None                 # bridge law number; None for mahjong
    path: tuple[str, ...]           # ("45", "C", "4", "b") or ("patterns", "13")
    start: int = 0                  # span in the query
    end: int = 0
    text: str = ""                  # the matched text
    work: str | None = None         # set when the form names the work (计台名堂 -> twmj16)

    @property
    def suffix(self) -> str:
        """The part of a record id after ``work:`` ("45C4b", "patterns.13")."""
        if self.law is None:
            return ".".join(self.path)
        return "".join(self.path)

    @property
    def pathkey(self) -> str:
        """Prefix of the indexed path key: "45/C/" matches 45C and everything under it."""
        return "".join(p + "/" for p in self.path)

    def __str__(self) -> str:
        if self.law is None:
            return " ".join(self.path)
        s = "".join(self.path[:3])
        if len(self.path) > 3:
            s += "(" + "".join(self.path[3:]) + ")"
        return s


LEADING = ":：/-.,，、"   # what may stand between a book's name and a law number alone (not part of the citation)
# the sub-clause after an item: (b), b, or b after a space when no word of letters follows
# (Law 45 C 4 b is 45C4(b); in Law 45 C 4 a player, "a" is a word)
_SUB = (r"(?:\s*\(\s*(?P<sub>[a-h])\s*\)|(?P<sub2>[a-h])(?![0-9A-Za-z])"
        r"|\s+(?P<sub3>[a-h])(?![0-9A-Za-z])(?!\s+[A-Za-z]))")
# a spaced clause letter: a capital, or a lower-case one an item number follows (45 c 4 b;
# law 64 a player: a word)
_SPACED_CLAUSE = r"(?P<clause>[A-L]|[a-l](?=\s*\d))"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # 第47条 E 2, 第64条B6: a capital clause letter without 款
    ("zh", re.compile(
        r"(?:(?P<di>第)\s*)?(?P<num>\d{1,3}|" + _CN_NUM + r")\s*[条條]\s*(?P<clause>[A-L])(?!\s*款)"
        r"(?:\s*(?P<item>\d{1,2})" + _SUB + r"?)?(?![0-9A-Za-z])")),
    # 第45条C款4(b), 第45條C款4項(b), 45条E款, 第六十四条, 第64条B款6
    ("zh", re.compile(
        r"(?:(?P<di>第)\s*)?(?P<num>\d{1,3}|" + _CN_NUM + r")\s*[条條]"
        r"(?:\s*(?:第\s*)?(?P<clause>[A-La-l])\s*款"
        r"(?:\s*(?:第\s*)?(?P<item>\d{1,2})\s*[项項]?" + _SUB + r"?)?)?")),
    # 规则47E2, 規則45C4(b), 规则 64, 法则62 (a reader's word for the Laws)
    ("rule", re.compile(
        r"(?:规则|規則|法则|法則)\s*(?P<num>\d{1,3})(?:\s*(?P<clause>[A-La-l])"
        r"(?:\s*(?P<item>\d{1,2})" + _SUB + r"?)?)?(?![0-9])")),
    # Law 47 E 2, law 62 D 1, law 45 c 4 b: spaced (law 64 a player: a word)
    ("law", re.compile(
        r"(?<![A-Za-z])(?:[Ll][Aa][Ww][Ss]?|L)\s*(?P<num>\d{1,3})\s+" + _SPACED_CLAUSE +
        r"(?:\s*(?P<item>\d{1,2})" + _SUB + r"?)?(?![0-9A-Za-z])")),
    # Law 64B, law 64, Laws 45C4(b), L58B2
    ("law", re.compile(
        r"(?<![A-Za-z])(?:laws?|l)\s*(?P<num>\d{1,3})(?:(?P<clause>[A-La-l])"
        r"(?:(?P<item>\d{1,2})" + _SUB + r"?)?)?(?![0-9A-Za-z])", re.I)),
    # 45C4(b), 45C4b, 64B6, 47E
    ("bare", re.compile(
        r"(?<![0-9A-Za-z])(?P<num>\d{1,2})(?P<clause>[A-La-l])"
        r"(?:(?P<item>\d{1,2})" + _SUB + r"?)?(?![0-9A-Za-z])")),
    # 64 A 2, 45 C 4 (b), 45 c 4 b: spaced, with a capital clause letter, or a lower-case one an
    # item number follows (45 a day: words)
    ("bare", re.compile(
        r"(?<![0-9A-Za-z])(?P<num>\d{1,2})\s+" + _SPACED_CLAUSE +
        r"(?:\s*(?P<item>\d{1,2})" + _SUB + r"?)?(?![0-9A-Za-z])")),
    # 47.E.2, 45-C-4-b, 45.C.4(b): dotted or dashed
    ("bare", re.compile(
        r"(?<![0-9A-Za-z.])(?P<num>\d{1,2})[.-](?P<clause>[A-La-l])(?:[.-](?P<item>\d{1,2})"
        r"(?:[.-](?P<sub2>[a-h])|\s*\(\s*(?P<sub>[a-h])\s*\))?)?(?![0-9A-Za-z])")),
    # 计台名堂 13, 計台名堂第13項, 名堂13
    ("mj", re.compile(r"(?:计台)?名堂\s*(?:第\s*)?(?P<num>\d{1,2})\s*[项項]?")),
    # 45: a question that is a law number and nothing else (after a book's name: laws1997-45, cbr1999:45)
    ("whole", re.compile(r"^[\s" + re.escape(LEADING) + r"]*(?P<num>\d{1,2})\s*$")),
]


def _cite_from(kind: str, m: re.Match[str]) -> Cite | None:
    raw = m.group("num")
    num = int(raw) if raw.isdigit() else chinese_number(raw)
    if num is None:
        return None
    if kind == "mj":
        if not 1 <= num <= MAX_PATTERN:
            return None
        return Cite(None, ("patterns", str(num)), m.start(), m.end(), m.group(0), "twmj16")
    if kind == "zh" and not m.group("di") and not m.group("clause") and num < MIN_BARE_LAW:
        # Without 第 or a 款, only a law number of two digits: 三条 and 9条 are mahjong tiles.
        return None
    if not 1 <= num <= MAX_LAW:
        return None
    path = [str(num)]
    if kind != "whole" and m.group("clause"):
        path.append(m.group("clause").upper())
        if m.group("item"):
            path.append(str(int(m.group("item"))))
            groups = m.groupdict()
            sub = groups.get("sub") or groups.get("sub2") or groups.get("sub3")
            if sub:
                path.append(sub.lower())
    return Cite(num, tuple(path), m.start(), m.end(), m.group(0).strip())


def work_names_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern finding any of the names a question gives a book by (works.query_names), longest
    first, in a folded query: letters in either case, a space allowed where letters meet digits
    (laws 1997), and a name beginning or ending in a letter or digit not inside a longer run of them
    (1997 in 19970 is not a name)."""
    alts = []
    for name in sorted(set(names), key=lambda n: (-len(n), n)):
        body = "".join(re.escape(a) + (r"\s*" if b and a.isalnum() and b.isalnum() and a.isdigit() != b.isdigit()
                                       and a.isascii() and b.isascii() else "")
                       for a, b in zip(name, [*name[1:], ""]))
        head = "(?<![0-9A-Za-z])" if name[0].isascii() and name[0].isalnum() else ""
        tail = "(?![0-9A-Za-z])" if name[-1].isascii() and name[-1].isalnum() else ""
        alts.append(head + body + tail)
    return re.compile("|".join(alts), re.I) if alts else None


def split_work(query: str, pattern: re.Pattern[str] | None, names: dict[str, str]) -> tuple[str | None, str]:
    """The book a query names (laws1997 47E2, 1997版47条), if it names exactly one, and the query with
    every name blanked out (same length: citations' spans still index it)."""
    if pattern is None:
        return None, query
    text = fold(query)
    found: set[str] = set()
    out = list(query)
    for m in pattern.finditer(text):
        found.add(names["".join(m.group(0).split()).lower()])
        out[m.start():m.end()] = " " * (m.end() - m.start())
    if not found:
        return None, query
    return (next(iter(found)) if len(found) == 1 else None), "".join(out)


def parse_citation(query: str) -> list[Cite]:
    """Every citation in ``query``, in order of appearance (spans index the original query)."""
    return split_citations(query)[0]


def split_citations(query: str) -> tuple[list[Cite], str]:
    """The citations in ``query`` and the query with them blanked out (the remaining words)."""
    text = fold(query)  # fullwidth and Traditional folded; same length as the query
    taken = [False] * len(text)
    cites: list[Cite] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(taken[m.start():m.end()]):
                continue
            cite = _cite_from(kind, m)
            if cite is None:
                continue
            start, end = m.start(), m.end()
            while end > start and text[end - 1].isspace():
                end -= 1
            while start < end and (text[start].isspace() or text[start] in LEADING):
                start += 1
            cite = Cite(cite.law, cite.path, start, end, query[start:end], cite.work)
            cites.append(cite)
            for i in range(start, end):
                taken[i] = True
    cites.sort(key=lambda c: c.start)
    rest = "".join(" " if taken[i] else ch for i, ch in enumerate(query))
    return cites, " ".join(rest.split())


# A citation by the numbers of the code in force (the 2017 Laws: kb/data/concordance/codes.toml), not
# the books' own: a marker just before it (2017 27B1b, 2017版27条, 2017年版第27条B款, 2017 Laws 27B1b,
# 新规则 27B, 新版 64A; folded: 新規則, 第27條) or just after it (Law 27B1(b) 2017). A marker with no
# citation beside it is an ordinary word (2017年 改了什么); one followed by a number that is no
# citation (2017版99条, 2017 27Z) is an attempt at one, answered as such (kb/search/inforce.py).
CODE_NAME = "2017"
CODE_MARK = re.compile(r"(?<![0-9A-Za-z])2017(?![0-9])(?:\s*年)?(?:\s*版本?)?(?:\s*的)?(?:\s*(?:桥牌)?(?:规则|法则))?"
                       r"|新(?:版本?(?:的)?(?:规则|法则)?|规则?|法则)")
# what may stand between a marker and its citation
CODE_GAP = re.compile(r"[\s" + re.escape(LEADING) + r"]*")
# a number after a marker that no citation pattern read: what was typed, to the next space
CODE_ATTEMPT = re.compile(r"[\s" + re.escape(LEADING) + r"]*(?P<attempt>(?:第\s*)?(?:(?:laws?|l)\s*)?\d[^\s]*)", re.I)
# after a marker, a law number the books' patterns do not read as one: of one digit without 第 (2017版9条;
# the books' 9条 is a mahjong tile), or alone among other words (2017 27 2017 64)
CODE_LAW = re.compile(r"[\s" + re.escape(LEADING) + r"]*(?:第\s*)?(?P<num>\d{1,2})(?:\s*[条條])?"
                      r"(?=$|[\s,，、。;；:：?？!！)）])")


def split_codes(query: str) -> tuple[list[Cite], list[tuple[int, int]], str]:
    """The citations ``query`` makes by the code in force's numbers (CODE_MARK), the spans of the
    attempts at one that are no citation, and the query with both and their markers blanked out
    (same length: the books' own citations are read from it next). A query without a marker
    beside a citation or a number is returned as it is."""
    text = fold(query)
    marks = [(m.start(), m.end()) for m in CODE_MARK.finditer(text)]
    if not marks:
        return [], [], query
    blanked = list(query)
    for a, b in marks:
        blanked[a:b] = " " * (b - a)
    cites = split_citations("".join(blanked))[0]
    codes: list[Cite] = []
    attempts: list[tuple[int, int]] = []
    out = list(query)
    used: set[int] = set()

    def blank(a: int, b: int) -> None:
        out[a:b] = " " * (b - a)

    for a, b in marks:
        after = next((k for k, c in enumerate(cites) if k not in used and c.start >= b
                      and CODE_GAP.fullmatch(text, b, c.start)), None)
        before = None
        if after is None and CODE_ATTEMPT.match(text, b) is None:
            before = next((k for k, c in enumerate(cites) if k not in used and c.end <= a
                           and CODE_GAP.fullmatch(text, c.end, a)), None)
        k = after if after is not None else before
        if k is not None:
            used.add(k)
            c = cites[k]
            codes.append(Cite(c.law, c.path, c.start, c.end, c.text))
            blank(a, b)
            blank(c.start, c.end)
            continue
        law = CODE_LAW.match(text, b)
        if law is not None and 1 <= int(law.group("num")) <= MAX_LAW:
            start, end = law.start("num"), law.end()
            num = int(law.group("num"))
            codes.append(Cite(num, (str(num),), start, end, query[start:end]))
            blank(a, end)
            continue
        m = CODE_ATTEMPT.match(text, b)
        if m is not None:
            attempts.append((a, m.end("attempt")))
            blank(a, m.end("attempt"))
    codes.sort(key=lambda c: c.start)
    return codes, attempts, "".join(out)


# The grammar under public names (mirrored by the site's browser engine).
CITATION_PATTERNS = _PATTERNS
CITATION_LEADING = LEADING
CN_DIGITS = _CN_DIGITS
CN_UNITS = _CN_UNITS
