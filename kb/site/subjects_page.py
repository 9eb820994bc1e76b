"""A work's subject index page (索引): its records' subject terms in pinyin order, each linking
to the clauses it names.

The terms are the editors' (kb/subjects.py): the words readers look a clause up by. A work
lists its own terms and, for a translation with a twin, its twin clause's terms at its own
clause (the two translations answer the same questions). Letters group the terms
by the first letter of their pinyin (Latin terms by their own first letter), as a Chinese
book's index does; in the Traditional edition the terms are shown converted, in the same order.
"""
from __future__ import annotations

import functools
import html
import importlib.util
import json
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

from kb import works
from kb.errors import KbError
from kb.records import Record
from kb.site.layout import WORK_TITLES
from kb.site.render import Renderer, escape, front_matter, page_url

PAGE = "subjects.md"
OTHER = "#"   # the group of terms that start with neither a letter nor an ideograph


_PIECES = re.compile(r"[\x00-\x7f]+|.")   # a run of ASCII (spelt as it is) or one character


@functools.cache
def readings() -> dict[str, str]:
    """pypinyin's table of each character's readings (code point -> "zhòng,chóng"), read from its
    data file: importing pypinyin itself would load its phrase dictionary too (0.2 s), unused here."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        raise KbError("pypinyin is not installed (the subject index pages sort by it): run scripts/serve or pip install -e .")
    path = Path(list(spec.submodule_search_locations)[0]) / "pinyin_dict.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise KbError(f"{path}: cannot read pypinyin's reading table ({exc})") from None


@functools.cache
def syllable(ch: str) -> str:
    """A character's pinyin without tones (its first reading: 重 zhong, 藏 cang), or the character
    itself, lowercased, if it is not an ideograph."""
    known = readings().get(str(ord(ch)))
    if not known:
        return ch.lower()
    first = unicodedata.normalize("NFD", known.split(",")[0])
    return "".join(c for c in first if not unicodedata.combining(c))


@functools.cache
def sort_key(term: str) -> tuple[str, tuple[str, ...], str]:
    """(letter, pinyin syllables, term): pinyin order, Latin terms among them by their spelling."""
    syllables = tuple(syllable(p) if len(p) == 1 and not p.isascii() else p.lower() for p in _PIECES.findall(term))
    head = syllables[0][:1].upper() if syllables else ""
    return (head if "A" <= head <= "Z" else OTHER, syllables, term)


def entries(layout_records: dict[str, Record], work: str) -> dict[str, list[Record]]:
    """Each entry of a work's index with the work's records it names, in reading order: the
    clauses' own titles (罚张的处理 names Law 50) and their subject terms."""
    out: defaultdict[str, list[Record]] = defaultdict(list)
    mine = [r for r in layout_records.values() if r.work == work]
    for rec in sorted(mine, key=lambda r: r.order):
        terms = ([rec.title_hans] if rec.title_hans else []) + [t for t in rec.subjects if t != rec.title_hans]
        other = layout_records.get(rec.twin) if rec.twin else None
        if other is not None:
            terms += [t for t in other.subjects if t not in terms]
        for term in terms:
            out[term].append(rec)
    return dict(out)


def has_subjects(layout_records: dict[str, Record], work: str) -> bool:
    """A work has an index page when its records (or their twins) have subject terms."""
    for rec in layout_records.values():
        if rec.work == work and (rec.subjects or (rec.twin and layout_records[rec.twin].subjects)):
            return True
    return False


def subject_page(r: Renderer, work: str) -> str:
    """The Markdown of ``{work}/subjects.md``."""
    page = f"{work}/{PAGE}"
    terms = entries(r.layout.by_id, work)
    groups: defaultdict[str, list[tuple[tuple[str, tuple[str, ...], str], str]]] = defaultdict(list)
    for term in terms:
        key = sort_key(term)
        groups[key[0]].append((key, term))
    letters = sorted(groups, key=lambda c: (c == OTHER, c))
    title = r.t("索引")
    kinds = ["条款标题", "日常说法", "台湾用语"]
    if works.get(work).twin:
        kinds.append("另一译本的用语")
    if any(t.isascii() for t in terms):
        kinds.append("英文术语")
    out = [front_matter(f"{title} · {r.t(WORK_TITLES[work][0])}"),
           f"# {title}：{escape(r.t(WORK_TITLES[work][0]))}\n",
           r.t(f"查找条款用的词：{'、'.join(kinds)}，按汉语拼音排序，每个词指向回答它的条款。"
               "检索也认得这些词。") + "\n",
           '<nav class="kb-letters" aria-label="' + html.escape(r.t("按字母")) + '">'
           + " ".join(f'<a href="#letter-{c if c != OTHER else "other"}">{c}</a>' for c in letters)
           + "</nav>\n"]
    for c in letters:
        anchor = c if c != OTHER else "other"
        out.append(f"## {c} {{ #letter-{anchor} }}\n")
        items = []
        for _, term in sorted(groups[c]):
            links = []
            for rec in terms[term]:
                href = r.layout.href(page, rec.id)
                label = r.citation(rec)
                title = r.field(rec, "title")
                if title in (label, r.t(term)):   # cited by its own name (解除过水), or the entry is the title
                    title = ""
                if href is None:
                    raise KbError(f"subject index of {work}: record {rec.id} has no page")
                if r.slots is not None:
                    links.append(f'<a href="{html.escape(page_url(page, href))}">{html.escape(label)}</a>'
                                 + (f' <span class="kb-subject-title">{html.escape(title)}</span>' if title else ""))
                else:
                    links.append(f"[{escape(label)}]({href})" + (f" {escape(title)}" if title else ""))
            shown = r.t(term)
            if r.slots is not None:
                items.append(f'<li><span class="kb-subject">{html.escape(shown)}</span> → {"；".join(links)}</li>')
            else:
                items.append(f"- {escape(shown)} → {'；'.join(links)}")
        if r.slots is not None:
            out.append(r.slot('<ul class="kb-subjects">\n' + "\n".join(items) + "\n</ul>\n"))
        else:
            out.append("\n".join(items) + "\n")
    return "\n".join(out) + "\n"
