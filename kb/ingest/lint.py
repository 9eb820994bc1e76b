"""The corpus lint (`kb check --lint`): what a careful editor would mark in every record, both editions.

Rules (each finding names its rule, record, field and the text it found):

- ``script``: a character the edition's script should not contain (Traditional in Simplified,
  Simplified in Traditional), 著 in Simplified running text where 着 is meant, and what the
  curated usage rules (kb/data/hans-usage.tsv, kb/data/hant-usage.tsv) replace: conversion
  residue of witness 000 (资讯, 程式) and mainland usage in the Taiwan edition (信息, 舍牌, “”);
- ``brackets``: an unbalanced （）()「」“”『』〔〕 pair;
- ``ascii-punct``: ASCII punctuation in Chinese text (, ; : ( ) -- …);
- ``space``: a space beside a Chinese character or punctuation mark;
- ``clause-letter``: a lowercase clause letter (c款) or a clause letter glued to a law (第45条c);
- ``sentence-end``: a text that ends without closing punctuation, unless a note says the witness
  breaks off there;
- ``note``: a note its own record contradicts (无从补出 with nothing left lost, or with the lost
  number spelled elsewhere in the record; 仅此一本/没有其他抄本 with several witnesses).

A finding is explained by a line of kb/data/lint-exceptions.tsv (rule, record, the exact text
found, the reason); an exception that explains nothing is itself a finding.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import opencc

from kb.core.curated import Table, read_table
from kb.core.records import LOST_MARK, Record
from kb.ingest.normalise import usage_table

EXCEPTIONS = Table("lint-exceptions.tsv", ("rule", "record", "match", "reason"),
                   unique=("rule", "record", "match"),
                   enums={"rule": ("script", "brackets", "ascii-punct", "space", "clause-letter",
                                   "sentence-end", "note")})

_CJK = r"\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_PAIRS = {"（": "）", "(": ")", "「": "」", "“": "”", "『": "』", "〔": "〕", "【": "】"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_ZHE = re.compile(r"(?<![显卓昭])著(?![名作录称述])")     # 著名/显著/著作 keep 著
_ASCII_PUNCT = re.compile(rf"--|[,;!?\"'\[\]]|(?<=[{_CJK}])[:.()]|[:.()](?=[{_CJK}])")
_SPACE = re.compile(rf"(?<=[{_CJK}])[ \u3000\t]+|[ \u3000\t]+(?=[{_CJK}])")
_CLAUSE_LETTER = re.compile(r"[a-h](?=\s*款)|(?<=条)[a-h](?![a-z])")
_END = "。；：！？）」』…"
_BREAKS_OFF = ("中断", "未完")


@dataclass(frozen=True)
class Finding:
    rule: str
    record: str
    field: str
    match: str
    message: str

    def line(self) -> str:
        return f"lint: [{self.rule}] {self.record} {self.field}: {self.message} «{self.match}»"


@cache
def _opencc(config: str) -> opencc.OpenCC:
    return opencc.OpenCC(config)


def _fields(rec: Record) -> Iterator[tuple[str, str, str]]:
    """(field, edition, text) for every text a reader sees of one record."""
    from kb.ingest.normalise import to_hant
    yield "title_hans", "hans", rec.title_hans
    yield "text_hans", "hans", rec.text_hans
    yield "title_hant", "hant", rec.title_hant
    yield "text_hant", "hant", rec.text_hant
    for i, heading in enumerate(rec.heading):      # "第三节 不足叫牌": the space separates the label
        title = heading.split(" ", 1)[-1]
        yield f"heading[{i}]", "hans", title
        yield f"heading[{i}]_hant", "hant", to_hant(title)
    for i, note in enumerate(rec.footnotes):
        yield f"footnote[{i}]_hans", "hans", note.get("text_hans", "")
        yield f"footnote[{i}]_hant", "hant", note.get("text_hant", "")


@cache
def _usage(edition: str) -> tuple[tuple[str, str, str], ...]:
    table = usage_table(edition)
    key = table.columns[0]
    return tuple((row[key], row["usual_form"], row["why"]) for row in read_table(table))


def _script(edition: str, text: str) -> Iterator[tuple[str, str]]:
    """Usage-rule forms first; a single character only where no usage rule already covers it."""
    usual = {u for _, u, _ in _usage(edition)}
    covered: set[int] = set()
    for form, right, why in _usage(edition):
        for m in re.finditer(re.escape(form), text):
            covered.update(range(m.start(), m.end()))
            yield form, f"应作“{right}”：{why}"
    convert = _opencc("t2s" if edition == "hans" else "s2tw")
    other = "繁体" if edition == "hans" else "簡體"
    for m in re.finditer(r"[\u4e00-\u9fff]", text):
        ch = m.group(0)
        if m.start() not in covered and ch not in usual and convert.convert(ch) != ch:
            yield text[max(0, m.start() - 1):m.end() + 1], f"{other}字“{ch}”（应作“{convert.convert(ch)}”）"
    if edition == "hans":
        for m in _ZHE.finditer(text):
            if m.start() not in covered:
                yield text[max(0, m.start() - 1):m.end() + 1], "简体正文以“着”作助词/动词，“著”只用于著名、显著、著作"


def _brackets(text: str) -> Iterator[tuple[str, str]]:
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(text):
        if ch in _PAIRS and not (ch == "“" and stack and stack[-1][0] == "“"):
            stack.append((ch, i))
        elif ch in _CLOSERS:
            if stack and stack[-1][0] == _CLOSERS[ch]:
                stack.pop()
            else:
                yield text[max(0, i - 8):i + 1], f"“{ch}”没有与之配对的“{_CLOSERS[ch]}”"
    for ch, i in stack:
        yield text[i:i + 10], f"“{ch}”没有闭合"


def _breaks_off(rec: Record) -> bool:
    return any(n.get("kind") == "loss" and any(w in n.get("what", "") for w in _BREAKS_OFF) for n in rec.notes)


def _record_findings(rec: Record) -> Iterator[Finding]:
    broken = _breaks_off(rec)       # a witness that stops mid-sentence leaves its bracket open
    for field, edition, text in _fields(rec):
        if not text:
            continue
        found: list[tuple[str, str, str]] = []
        found += [("script", m, msg) for m, msg in _script(edition, text)]
        found += [("brackets", m, msg) for m, msg in _brackets(text) if not (broken and msg.endswith("没有闭合"))]
        found += [("ascii-punct", m.group(0), "中文里的 ASCII 标点") for m in _ASCII_PUNCT.finditer(text)]
        found += [("space", text[max(0, m.start() - 3):m.end() + 3], "中文里的空格") for m in _SPACE.finditer(text)]
        found += [("clause-letter", text[max(0, m.start() - 3):m.end() + 1], "款字母应为大写")
                  for m in _CLAUSE_LETTER.finditer(text)]
        for rule, match, msg in found:
            yield Finding(rule, rec.id, field, match, msg)
    yield from _sentence_end(rec)
    yield from _notes(rec)


def _sentence_end(rec: Record) -> Iterator[Finding]:
    text = rec.text_hans
    if not text or text[-1] in _END:
        return
    if _breaks_off(rec):
        return
    yield Finding("sentence-end", rec.id, "text_hans", text[-12:], "正文结尾没有句末标点，也没有说明抄本在此中断的注")


def _notes(rec: Record) -> Iterator[Finding]:
    whole = rec.title_hans + "\n" + rec.text_hans
    for note in rec.notes:
        what = note.get("what", "")
        if "无从补出" in what and LOST_MARK in what:
            if LOST_MARK not in whole:
                yield Finding("note", rec.id, "notes", what[:24], "注称有佚失无从补出，但此条已无佚失标记")
            for m in re.finditer(rf"(.{{1,2}}){LOST_MARK}(.{{1,2}})", whole):
                a, b = m.group(1), m.group(2)
                spelled = re.search(re.escape(a) + r"[0-9一二三四五六七八九十]" + re.escape(b), whole)
                if spelled:
                    yield Finding("note", rec.id, "notes", spelled.group(0),
                                  f"注称“{m.group(0)}”无从补出，但本条自己写作“{spelled.group(0)}”")
        if ("没有其他抄本" in what or "仅此一本" in what) and len({w.sigil for w in rec.witnesses}) > 1:
            yield Finding("note", rec.id, "notes", what[:24], "注称没有其他抄本，但此条有多个抄本")
        if note.get("kind") == "restoration":
            field = rec.title_hans if note.get("where") == "title" else rec.text_hans
            a, b = note["span"]
            if "〔" not in field[a:b]:
                yield Finding("note", rec.id, "notes", field[a:b], "补出说明的位置上没有编者补出的〔〕")


def findings(records: Iterable[Record]) -> list[Finding]:
    """Every finding over the records, before exceptions."""
    return [f for rec in records for f in _record_findings(rec)]


def run_lint(records: Iterable[Record], root: Path | None = None) -> list[Finding]:
    """The findings no line of kb/data/lint-exceptions.tsv explains, and every unused exception."""
    rows = read_table(EXCEPTIONS, root)
    used: set[int] = set()
    out: list[Finding] = []
    for f in findings(records):
        hit = next((i for i, r in enumerate(rows)
                    if (r["rule"], r["record"], r["match"]) == (f.rule, f.record, f.match)), None)
        if hit is None:
            out.append(f)
        else:
            used.add(hit)
    for i, row in enumerate(rows):
        if i not in used:
            out.append(Finding(row["rule"], row["record"], "-", row["match"],
                               f"{row.where}: exception explains no finding (remove it)"))
    return out
