"""A work's subject index page (索引): its records' subject terms in pinyin order (in the
Traditional edition, 注音 order, as Taiwan's indexes are), each linking to the clauses it names.

The terms are the editors' (kb/ingest/subjects.py): the words readers look a clause up by. A work
lists its own terms and, for a translation with a twin, its twin clause's terms at its own
clause (the two translations answer the same questions). Letters group the terms
by the first letter of their pinyin (Latin terms by their own first letter), as a Chinese
book's index does; in the Traditional edition the terms are shown converted and grouped by the
first 注音 symbol of their first character (Latin terms after them).
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

from kb.core import works
from kb.core.errors import KbError
from kb.core.records import Record
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
def first_reading(ch: str) -> str:
    """A character's first reading, decomposed (its tone and ü's dots as combining marks), or ""."""
    known = readings().get(str(ord(ch)))
    return unicodedata.normalize("NFD", known.split(",")[0]) if known else ""


@functools.cache
def syllable(ch: str) -> str:
    """A character's pinyin without tones (its first reading: 重 zhong, 藏 cang), or the character
    itself, lowercased, if it is not an ideograph."""
    first = first_reading(ch)
    return "".join(c for c in first if not unicodedata.combining(c)) if first else ch.lower()


@functools.cache
def sort_key(term: str) -> tuple[str, tuple[str, ...], str]:
    """(letter, pinyin syllables, term): pinyin order, Latin terms among them by their spelling."""
    syllables = tuple(syllable(p) if len(p) == 1 and not p.isascii() else p.lower() for p in _PIECES.findall(term))
    head = syllables[0][:1].upper() if syllables else ""
    return (head if "A" <= head <= "Z" else OTHER, syllables, term)


# 注音 (Zhuyin) order for the Traditional edition: Taiwan's dictionaries and indexes are ordered
# by it, not by pinyin. The 37 symbols in their order; a syllable is spelt in them from its pinyin.
ZHUYIN = "ㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒㄓㄔㄕㄖㄗㄘㄙㄚㄛㄜㄝㄞㄟㄠㄡㄢㄣㄤㄥㄦㄧㄨㄩ"
LATIN = "A–Z"       # the Traditional index's group of terms spelt in Latin letters (claim, revoke)
_INITIALS = dict(zip(("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x", "r",
                      "z", "c", "s"), "ㄓㄔㄕㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒㄖㄗㄘㄙ"))
_FINALS = {"a": "ㄚ", "o": "ㄛ", "e": "ㄜ", "ê": "ㄝ", "ai": "ㄞ", "ei": "ㄟ", "ao": "ㄠ", "ou": "ㄡ", "an": "ㄢ",
           "en": "ㄣ", "ang": "ㄤ", "eng": "ㄥ", "er": "ㄦ", "ong": "ㄨㄥ", "i": "ㄧ", "ia": "ㄧㄚ", "io": "ㄧㄛ",
           "ie": "ㄧㄝ", "iao": "ㄧㄠ", "iu": "ㄧㄡ", "ian": "ㄧㄢ", "in": "ㄧㄣ", "iang": "ㄧㄤ", "ing": "ㄧㄥ",
           "iong": "ㄩㄥ", "u": "ㄨ", "ua": "ㄨㄚ", "uo": "ㄨㄛ", "uai": "ㄨㄞ", "ui": "ㄨㄟ", "uan": "ㄨㄢ",
           "un": "ㄨㄣ", "uang": "ㄨㄤ", "ü": "ㄩ", "üe": "ㄩㄝ", "ue": "ㄩㄝ", "üan": "ㄩㄢ", "ün": "ㄩㄣ"}
# y- and w- syllables, and er, written as a final alone
_ALONE = {"yi": "i", "ya": "ia", "yo": "io", "ye": "ie", "yao": "iao", "you": "iu", "yan": "ian", "yin": "in",
          "yang": "iang", "ying": "ing", "yong": "iong", "yu": "ü", "yue": "üe", "yuan": "üan", "yun": "ün",
          "wu": "u", "wa": "ua", "wo": "uo", "wai": "uai", "wei": "ui", "wan": "uan", "wen": "un", "wang": "uang",
          "weng": "ong"}


@functools.cache
def zhuyin(py: str) -> str:
    """A pinyin syllable without tone (ü kept: lü) spelt in Zhuyin (zhong -> ㄓㄨㄥ), or "" if it is none."""
    if py in _ALONE:
        return _FINALS[_ALONE[py]]
    initial = next((i for i in _INITIALS if py.startswith(i) and len(py) > len(i)), "")
    rest = py[len(initial):]
    if initial in ("j", "q", "x") and rest[:1] == "u":
        rest = "ü" + rest[1:]                      # ju, que, xuan, jun: ü written as u
    if initial in ("zh", "ch", "sh", "r", "z", "c", "s") and rest == "i":
        return _INITIALS[initial]                  # zhi, si: the initial alone
    final = _FINALS.get(rest)
    return "" if final is None else (_INITIALS[initial] if initial else "") + final


@functools.cache
def syllable_u(ch: str) -> str:
    """A character's first reading without its tone, ü kept (绿 lü), or "" if it has none."""
    first = first_reading(ch)
    return unicodedata.normalize("NFC", "".join(c for c in first if not unicodedata.combining(c) or c == "\u0308"))


_TONES = {"\u0304": 1, "\u0301": 2, "\u030c": 3, "\u0300": 4}


@functools.cache
def tone(ch: str) -> int:
    """A character's tone in its first reading (1–4; 5 for the neutral tone or none)."""
    return next((_TONES[c] for c in first_reading(ch) if c in _TONES), 5)


@functools.cache
def zhuyin_key(term: str) -> tuple[str, tuple[tuple[int, ...], ...], str]:
    """(group, Zhuyin of each syllable as symbol ranks and tone, term): 注音 order, a term's group its first
    symbol; terms starting in Latin letters after them (LATIN), then the rest (OTHER)."""
    parts = _PIECES.findall(term)
    spelt = []
    for piece in parts:
        z = zhuyin(syllable_u(piece)) if len(piece) == 1 and not piece.isascii() else ""
        # a syllable's symbols, then its tone (八 bā before 把 bǎ), as a dictionary orders them
        spelt.append(tuple(ZHUYIN.index(c) for c in z) + (len(ZHUYIN), tone(piece)) if z
                     else (len(ZHUYIN) + 1,) + tuple(map(ord, piece.lower())))
    first = parts[0] if parts else ""
    if first[:1].isascii() and first[:1].isalpha():
        head = LATIN
    elif spelt and spelt[0][0] < len(ZHUYIN):
        head = ZHUYIN[spelt[0][0]]
    else:
        head = OTHER
    return head, tuple(spelt), term


def _group_rank(head: str) -> tuple[int, int]:
    return (0, ZHUYIN.index(head)) if head in ZHUYIN else (1, 0) if head == LATIN else (2, 0)


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


def _anchor(head: str) -> str:
    """A group's anchor: its letter (letter-B), a Zhuyin symbol by its rank (letter-zy01), latin, other."""
    if head in ZHUYIN:
        return f"zy{ZHUYIN.index(head):02d}"
    return {OTHER: "other", LATIN: "latin"}.get(head, head)


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
    # the Simplified edition in pinyin order under letters, the Traditional in 注音 order under its symbols
    zhuyin_order = r.script == "hant"
    groups: defaultdict[str, list[tuple[tuple, str]]] = defaultdict(list)
    for term in terms:
        key: tuple = zhuyin_key(term) if zhuyin_order else sort_key(term)
        groups[key[0]].append((key, term))
    letters = sorted(groups, key=_group_rank) if zhuyin_order else sorted(groups, key=lambda c: (c == OTHER, c))
    title = r.t("索引")
    kinds = ["条款标题", "日常说法", "台湾用语"]
    if works.get(work).twin:
        kinds.append("另一译本的用语")
    if any(t.isascii() for t in terms):
        kinds.append("英文术语")
    out = [front_matter(title=f"{title} · {r.t(WORK_TITLES[work][0])}"),
           f"# {title}：{escape(r.t(WORK_TITLES[work][0]))}\n",
           r.t(f"查找条款用的词：{'、'.join(kinds)}，按{'注音符号' if zhuyin_order else '汉语拼音'}排序，"
               "每个词指向回答它的条款。检索也认得这些词。") + "\n",
           '<nav class="kb-letters" aria-label="' + html.escape(r.t("按注音" if zhuyin_order else "按字母")) + '">'
           + " ".join(f'<a href="#letter-{_anchor(c)}">{c}</a>' for c in letters)
           + "</nav>\n"]
    for c in letters:
        anchor = _anchor(c)
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
