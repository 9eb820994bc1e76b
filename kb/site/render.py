"""Markdown for the site's pages, in either script, from the records."""
from __future__ import annotations

import functools
import html
import itertools
import json
import posixpath
import re
from collections.abc import Callable

from kb.core import works
from kb.core.records import LOST_MARK, Record
from kb.ingest.concordance import UNCITED, changed_below, codes, display_citation, in_force_label, in_force_words
from kb.ingest.normalise import to_hant, ui_text
from kb.site.example_html import example_html
from kb.site.layout import MAHJONG_PAGES, WORK_TITLES, Layout, anchor_of, relative
from kb.site.mkdocs_hooks import SLOT
from kb.site.pdf import pdf_href

HEADING_LEVEL = {"law": 1, "section": 2, "clause": 2, "item": 3, "subitem": 4}
MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
# Plain text that reads the same as Markdown (escaped) and as HTML (escaped): no character that
# Markdown would treat differently from its escaped form, no indent, no line break, no entity.
_NOT_PLAIN = re.compile(r"[\\`<>|~&{}\n\r\t]|  |^\s")

# Worked examples: clause id -> markdown blocks (Simplified), filled in by the rules stage.
Examples = dict[str, list[str]]

# Marks on the 出处 summary, so that editors find the clauses with variants or recovered text.
MARKS = {"variant": "有异文", "recovery": "有补出", "loss": "有缺文", "emendation": "有校改",
         "repair": "有修复", "fragment": "残篇", "settled": "有校定"}
START_CHARS = 12        # how much of a witness's reading its 出处 line quotes, to find it in the file
# What 〔 〕 and □ mean, said under the clauses of a page that has them (and under search results)
LEGEND = {"〔": "〔 〕：所据抄本在此处缺字，由编者补出（依据见该款的“出处”）；带“？”的是推测，不作链接。",
          LOST_MARK: f"{LOST_MARK}：所据抄本失去了此处的条款号，无从补出，不作链接。"}
NOTE_KINDS = {"recovery": "补出", "loss": "缺文", "emendation": "校改", "repair": "修复", "fragment": "残篇",
              "settled": "校定"}      # settled: the reading most witnesses (or the twin translation) agree on


class Renderer:
    def __init__(self, layout: Layout, script: str, examples: Examples | None = None,
                 slots: dict[str, str] | None = None, pdf: bool = False):
        self.layout = layout
        self.pdf = pdf          # the build prints the PDF editions (kb build --pdf): link them
        self.script = script
        self.examples = examples or {}
        # With ``slots``, a record's body (text, backlinks, footnotes, provenance) is written as
        # HTML into it, and the Markdown holds the slot's name (kb/site/mkdocs_hooks.py puts the
        # HTML in its place): the bodies are most of a page, and Markdown is slow at them.
        self.slots = slots
        self._slot_names = itertools.count(len(slots or ()))
        self.works = {w.id: w for w in works.all_works()}
        self.codes = codes()
        self.changed_below = changed_below(layout.records)   # a changed rule under them: said in their line

    # -- script ----------------------------------------------------------------------------
    def t(self, simplified: str) -> str:
        """Text written in Simplified (UI words, the editors' notes) in this edition's script."""
        return ui_text(simplified, self.script)

    def rule_text(self, simplified: str) -> str:
        """A piece of the rules' text (a variant reading) in this edition's script, converted as
        the records' text is (to_hant), not as the interface's wording (to_hant_ui)."""
        return simplified if self.script == "hans" else to_hant(simplified)

    def field(self, rec: Record, name: str) -> str:
        return getattr(rec, f"{name}_{self.script}")

    # -- pieces ----------------------------------------------------------------------------
    def slot(self, html_block: str) -> str:
        """A paragraph of Markdown that stands for a block of HTML (see ``slots``)."""
        assert self.slots is not None
        name = SLOT.format(next(self._slot_names))
        self.slots[name] = html_block
        return f"{name}\n"

    def text_with_refs(self, rec: Record, page: str) -> str:
        """The record's text in Markdown, each resolved reference a link, the others marked."""
        def link(piece: str, href: str, target: str, note: str = "", next_to: bool = False) -> str:
            title = self.t(self.layout.by_id[target].citation) + note
            return f'[{piece}]({href} "{html.escape(target)} {html.escape(title)}")' + ("{: .kb-ref-next }" if next_to else "")
        return self._with_refs(rec, page, escape, link)

    def _in_twin(self, rec: Record, ref: dict) -> str | None:
        """For a law this translation does not hold (``external``), the same clause (else its law)
        in the twin translation, which letters the same Laws alike, if the site has it."""
        twin = self.works[rec.work].twin
        if not twin or ref["status"] != "external" or ref.get("law") is None:
            return None
        for cited in (ref.get("wanted"), str(ref["law"])):
            if cited and f"{twin}:{cited}" in self.layout.place:
                return f"{twin}:{cited}"
        return None

    def _with_refs(self, rec: Record, page: str, esc: Callable[..., str],
                   link: Callable[..., str]) -> str:
        """The record's text, escaped by ``esc``, with ``link(piece, href, target)`` for each
        resolved reference (and, with a note, for a law only the twin translation holds) and a
        marked span for the others (external, lost, unresolved). A link right after another
        (牌面包赔: 牌面, then 包赔) is marked ``next_to``, so the two do not read as one."""
        text = self.field(rec, "text")
        out, pos, linked_to = [], 0, -1
        for ref in sorted(rec.refs, key=lambda r: r["span"][0]):
            a, b = ref["span"]
            if a < pos:
                continue
            out.append(esc(text[pos:a]))
            piece = esc(text[a:b])
            target = ref.get("target")
            href = self.layout.href(page, target) if target and ref["status"] == "resolved" else None
            note = ""
            if not (href and target) and (twin := self._in_twin(rec, ref)) is not None:   # a place on the site
                href, target, note = self.layout.href(page, twin), twin, self.t("（本译本未收此条，链接到另一译本）")
            if href and target:
                out.append(link(piece, href, target, note, next_to=a == linked_to))
                linked_to = b
            else:
                why = {"external": self.t("本库未收此条"), "lost": self.t("原文数字已佚，无法确定所指"),
                       "conjecture": self.t("编者推测的条号：未见1997年规则原文，故不链接"),
                       "unresolved": self.t("无法解析")}.get(ref["status"], ref["status"])
                out.append(f'<span class="kb-ref kb-{ref["status"]}" title="{why}">{piece}</span>')
            pos = b
        out.append(esc(text[pos:]))
        return "".join(out)

    def heading(self, rec: Record, level: int | None = None) -> str:
        level = level or HEADING_LEVEL.get(rec.level, 2)
        title = escape(self.field(rec, "title"))
        work = self.works[rec.work]
        if work.kind == "sectioned":
            label = title or escape(self.t(rec.citation))
            if rec.level != "section" and title:
                label = f"{rec.path[-1]}. {title}" if len(rec.path) == 2 else f"{'.'.join(rec.path[1:])} {title}"
            elif rec.level != "section":
                label = escape(self.t(rec.citation))   # 诈胡 1, not a bare 1: a reader landing here sees whose
        elif rec.level == "law" and rec.law is not None:
            label = self.t(work.law_name(rec.law)) + f" {title}"
        else:
            label = f"{rec.citation} {title}".strip()
        tai = f' <span class="kb-tai">{rec.tai}{self.t("台")}</span>' if rec.tai else ""
        return f"{'#' * level} {label}{tai} {{ #{self.layout.place[rec.id].anchor} }}\n"

    def cited_by(self, rec: Record, page: str) -> list[tuple[str, str]]:
        """(label, href) of each record citing ``rec`` that has a place on the site: its citation,
        and in a sectioned book, whose citations are numbers (计台名堂 18), its title too."""
        links = []
        for cid in rec.cited_by:
            src = self.layout.by_id.get(cid)
            href = self.layout.href(page, cid)
            if src and href:
                cite = self.t(src.citation)
                title = self.field(src, "title") if self.works[src.work].kind == "sectioned" else ""
                links.append((cite if not title or title in cite else f"{cite} {title}", href))
        return links

    def provenance(self, rec: Record, esc: Callable[[str], str], code: Callable[[str], str]) -> list[str]:
        """The lines behind the 出处 marker: witnesses with their lines, variants, notes."""
        details = []
        for w in rec.witnesses:
            span = f"{w.lines[0]}" if w.lines[0] == w.lines[1] else f"{w.lines[0]}–{w.lines[1]}"
            # the witness as the editors' notes name it (抄本004), where its reading begins (its
            # own words, a string to find in the file: a line of witness 000 or 002 holds many
            # clauses), then the file it is kept in
            start = "".join((w.text or "").split())[:START_CHARS]
            begins = f"，{self.t('原文')}「{esc(start)}…」" if start else ""   # as written there, in its script
            details.append(f"{self.t('出处')}：{self.t('抄本')} {esc(w.sigil)} {self.t('第')} {span} {self.t('行')}"
                           f"{begins}（{self.t('文件')} {code(w.source)}）")
        for v in rec.variants:
            # the readings as normalised (the witness's own script is in the line above), so in
            # this edition's script like the text they differ in
            readings = " ｜ ".join(f"{esc(sigil)}：{esc(self.rule_text(t)) or '∅'}" for sigil, t in v["readings"].items())
            details.append(f"{self.t('异文')}：{readings}（{esc(self.rule_text(v['context']))}）")
        for n in rec.notes:     # the editors' words, in this edition's script
            gap = " " if n["from"][:1].isascii() else ""      # 据1997年…, 据 Laws 1997…
            # its authority as a sentence of its own (a parenthesis round it nested the
            # authority's own: （据 1997年规则结构中的位置（本库的条款大纲））)
            details.append(f"{self.t(NOTE_KINDS.get(n['kind'], '注'))}：{esc(self.t(n['what'].rstrip('。')))}。"
                           f"{self.t('据')}{gap}{esc(self.t(n['from']))}")
        if rec.concordance:     # what the line under the clause rests on (the editor's reading, in English)
            first = rec.concordance[0]
            details.append(f"{esc(first['code'])} {self.t('版对照的依据')}：{esc(first['authority'])}")
        return details

    def in_force(self, rec: Record) -> str:
        """One line under a clause: its citation in the code in force and how the rule changed, linked
        to the public text of that law (marked so the eye catches a changed rule); "" if not mapped."""
        if not rec.concordance:
            return ""
        first = rec.concordance[0]
        code = self.codes[first["code"]]
        change = first["change"]
        label = self.t(in_force_label(first["code"]))
        # a heading (no text of its own, clauses under it): its class is that of what stands under it
        # (the words are kb/ingest/concordance.py's, as beside a search result: in_force_text)
        words = in_force_words(change, not rec.text_hans and rec.id in self.layout.parents,
                               rec.id in self.changed_below)
        if change in UNCITED:
            said = self.t(words)
        else:
            links = "、".join(f'<a class="kb-in-force-ref" href="{html.escape(code.law_url(e["citation"]), quote=True)}">'
                             f"{_text(display_citation(e['citation']))}</a>" for e in rec.concordance)
            said = f"{links}，{self.t(words)}"
        mark = '<span class="kb-in-force-mark" aria-hidden="true">⚠</span> ' if change == "changed" else ""
        return f'<p class="kb-in-force kb-in-force-{change}">{mark}{label}：{said}</p>'

    def code_note(self, work: str) -> str:
        """Above a bridge book's pages: which code it translates, and that another is in force."""
        mapped = [c for c in self.codes.values() if c.in_force]
        if not mapped or not any(r.concordance for r in self.layout.by_work.get(work, ())):
            return ""
        code = mapped[0]
        words = (f"本书译自 1997 年版规则；裁判现依{code.name_hans}。每款下注明它在 {code.id} 版中的条款，"
                 "⚠ 标出规定有实质变化之处。")
        return f'<p class="kb-code-note">{_text(self.t(words))}</p>\n'

    def badge(self, rec: Record) -> str:
        """The marks on the 出处 marker: a variant, a restoration, ..."""
        marks = ([MARKS["variant"]] if rec.variants else []) + list(dict.fromkeys(
            MARKS[n["kind"]] for n in rec.notes if n["kind"] in MARKS))
        return "".join(f' <span class="kb-mark">{self.t(m)}</span>' for m in marks)

    def footnotes(self, rec: Record, markdown: bool) -> list[str]:
        """Each of the record's footnotes as its paragraph: in Markdown's raw HTML (escaped for
        Markdown, ``markdown="1"``), or as the HTML Markdown makes of it."""
        esc, attr = (escape, ' markdown="1"') if markdown else (_text, "")
        return [f'<p class="kb-footnote"{attr}>{self.t("脚注")} [{f["n"]}]：{esc(f["text_" + self.script])}</p>'
                for f in rec.footnotes]

    def meta(self, rec: Record, page: str) -> str:
        """Backlinks and footnotes in view; sources, variants and notes behind one small 出处 marker."""
        lines = [self.in_force(rec) + "\n"] if rec.concordance else []
        links = [f"[{escape(label)}]({href})" for label, href in self.cited_by(rec, page)]
        if links:
            lines.append(f'<p class="kb-cited-by" markdown="1">{self.t("被引用")}：{" · ".join(links)}</p>\n')
        lines += [f"{note}\n" for note in self.footnotes(rec, markdown=True)]
        details = self.provenance(rec, escape, lambda s: f"`{s}`")
        if details:
            lines.append(f'<details class="kb-prov" markdown="1">\n<summary>{self.t("出处")}{self.badge(rec)}</summary>\n\n'
                         + "".join(f"- {d}\n" for d in details) + "\n</details>\n")
        return "\n".join(lines)

    def record_block(self, rec: Record, page: str, level: int | None = None) -> str:
        """One record: heading, text, backlinks, provenance and worked examples, wrapped so that the
        whole clause is highlighted when its anchor is the target (kb/site clause.js adds the copy button)."""
        cite = html.escape(self.citation(rec), quote=True)
        kind = "kb-clause kb-fragment" if rec.fragment else "kb-clause"    # its text begins mid-sentence
        examples = [self.clause_links(self.t(block), page) for block in self.examples.get(rec.id, [])]
        if self.slots is not None and self.plain(rec):
            body = self.body_html(rec, page)
            parts = [self.slot(f'<div class="{kind}" data-cite="{cite}" data-level="{rec.level}">'),
                     self.heading(rec, level)]
            if examples:
                parts += [self.slot(body)] if body else []
                for e in examples:       # as HTML where example_html reads the block, else Markdown
                    done = example_html(e, functools.partial(page_url, page))
                    parts.append(self.slot(done) if done is not None else e.rstrip("\n") + "\n")
                parts.append(self.slot("</div>"))
            else:
                parts.append(self.slot(f"{body}\n</div>" if body else "</div>"))
            return "\n".join(parts)
        parts = [self.heading(rec, level)]
        body = self.text_with_refs(rec, page)
        if body:
            parts.append(body + "\n")
        meta = self.meta(rec, page)
        if meta:
            parts.append(meta)
        parts += examples
        return (f'<div class="{kind}" data-cite="{cite}" data-level="{rec.level}" markdown="1">\n\n' + "\n".join(parts)
                + "\n</div>\n")

    def plain(self, rec: Record) -> bool:
        """Whether every text of the record that its body shows is plain (see _NOT_PLAIN), so that
        ``body_html`` makes of it what Markdown would."""
        f = self.script
        strings = [rec.text_hans if f == "hans" else rec.text_hant, rec.title_hans if f == "hans" else rec.title_hant,
                   rec.citation]
        strings += [n["text_" + f] for n in rec.footnotes]
        strings += [w.source for w in rec.witnesses]
        for v in rec.variants:
            strings += [v["context"], *v["readings"], *v["readings"].values()]
        for n in rec.notes:
            strings += [n["what"], n["from"], n["kind"]]
        for ref in rec.refs:
            target = ref.get("target")
            if target:
                strings.append(target)
                if target in self.layout.by_id:
                    strings.append(self.layout.by_id[target].citation)
        for cid in rec.cited_by:
            if cid in self.layout.by_id:
                strings.append(self.layout.by_id[cid].citation)
        strings += [e["authority"] for e in rec.concordance]
        return not any(_NOT_PLAIN.search(x) for x in strings if x)

    def body_html(self, rec: Record, page: str) -> str:
        """The HTML that Markdown makes of ``text_with_refs`` and ``meta`` of a plain record."""
        out = []
        text = self.text_html(rec, page)
        if text:
            out.append(f"<p>{text}</p>")
        if rec.concordance:
            out.append(self.in_force(rec))
        links = [f'<a href="{page_url(page, href)}">{_text(label)}</a>' for label, href in self.cited_by(rec, page)]
        if links:
            out.append(f'<p class="kb-cited-by">{self.t("被引用")}：{" · ".join(links)}</p>')
        out += self.footnotes(rec, markdown=False)
        details = self.provenance(rec, _text, lambda s: f"<code>{_text(s)}</code>")
        if details:
            out.append(f'<details class="kb-prov">\n<summary>{self.t("出处")}{self.badge(rec)}</summary>\n<ul>\n'
                       + "".join(f"<li>{d}</li>\n" for d in details) + "</ul>\n</details>")
        return "\n".join(out)

    def text_html(self, rec: Record, page: str) -> str:
        """The HTML of ``text_with_refs`` (a plain record's), without the paragraph around it."""
        def link(piece: str, href: str, target: str, note: str = "", next_to: bool = False) -> str:
            title = html.escape(f"{target} {self.t(self.layout.by_id[target].citation)}{note}")
            cls = 'class="kb-ref-next" ' if next_to else ""      # where Markdown's attr_list puts it
            return f'<a {cls}href="{page_url(page, href)}" title="{title}">{piece}</a>'
        return self._with_refs(rec, page, _text, link)

    def citation(self, rec: Record) -> str:
        """How a person cites the record: 67B1(b), 第67条, 计台名堂 13."""
        if rec.level == "law" and rec.law is not None:
            return self.t(self.works[rec.work].law_name(rec.law))
        return self.t(rec.citation)

    def clause_links(self, text: str, page: str) -> str:
        """Turn ⟦record id⟧ markers (worked examples) into links to the clauses."""
        def link(m: re.Match[str]) -> str:
            rid = m.group(1)
            href = self.layout.href(page, rid)
            if href is None:
                return rid
            return f"[{escape(self.t(self.layout.by_id[rid].citation))}]({href})"
        return re.sub(r"⟦([^⟧]+)⟧", link, text)

    # -- pages -----------------------------------------------------------------------------
    def book_head(self, work: str) -> str:
        """Front matter naming the page's rule book (the window's title and the header show it; and,
        for a translation whose laws' titles its twin shares, the header beside the page's title),
        and the book's name above the text, printed."""
        w = self.works[work]
        meta = {"book": w.title(self.script)}
        if w.twin:     # the header's short name, where another book has the same titles
            meta["book_short"] = w.short(self.script)
        return front_matter(**meta) + f'<p class="kb-book">{escape(w.title(self.script))}</p>\n'

    def law_page(self, page: str, records: list[Record]) -> str:
        law = records[0]
        head = "".join(f'<p class="kb-heading">{escape(self.t(h))}</p>\n' for h in law.heading)
        out = [self.book_head(law.work) + head, self.code_note(law.work)]
        if law.fragment:
            # said above the text, which begins mid-sentence: what is kept, and why no more is
            what = next(n["what"] for n in law.notes if n.get("kind") == "fragment")
            rest = ("另一译本载有本条全文，见对照页。" if law.law in self.layout.compared_set else
                    "本库的其他来源也不载本条，全文无从补出；引用本条的条款列在下方“被引用”。")
            out.append(f'!!! warning "{self.t("残篇")}"\n    {escape(self.t(f"本条不全。{what}。{rest}"))}\n')
        if law.law in self.layout.compared_set:
            # a link to another page (not in print), a button a thumb finds above the title
            out.append(f'[{self.t("与另一译本对照")}]({relative(page, f"compare/law-{law.law}.md")}){{: .kb-compare-link }}\n'
                       "{: .kb-print-hide }\n")
        out += [self.record_block(r, page) for r in records]
        # the brackets and the lost mark explained once per page that has them, under its clauses
        said = [self.t(words) for mark, words in LEGEND.items()
                if any(mark in (r.title_hans or "") + (r.text_hans or "") for r in records)]
        if said:
            out.append(f'<p class="kb-footnote kb-legend">{escape("".join(said))}</p>\n')
        return "\n".join(out)

    def work_index(self, work: str, subjects: str | None = None) -> str:
        out = [front_matter(title=self.t(WORK_TITLES[work][0])), f"# {self.t(WORK_TITLES[work][0])}\n",
               self.code_note(work), self.pdf_link(work), self.subjects_link(subjects)]
        for law in self.layout.laws(work):
            for h in law.heading:
                out.append(f"\n## {escape(self.t(h))}\n")
            name = self.works[work].law_name(law.law or "")
            frag = self.t("（残篇）") if law.fragment else ""
            out.append(f"- [{self.t(name)} {escape(self.field(law, 'title'))}{frag}](law-{law.law}.md)")
        return "\n".join(out) + "\n"

    def subjects_link(self, page: str | None) -> str:
        """The link from a work's index page to its subject index (``page``, work-relative), if any."""
        if page is None:
            return ""
        return f"[{self.t('索引：按常用说法查条款')}]({page})\n"

    def pdf_link(self, work: str) -> str:
        """The link from a work's index page to its print edition (kb/site/pdf.py writes it after mkdocs),
        where the build prints one."""
        if not self.pdf:
            return ""
        offline = self.t("离线时打不开打印版：这台设备还没有存下它。联网时打开一次，之后离线也能打开。")
        download = self.t("离线包不含打印版（PDF）：请在联网时从网站下载。")
        return (f'<p class="kb-pdf kb-print-hide"><a href="{pdf_href(work, self.script)}" type="application/pdf" '
                f'data-msg-offline="{offline}" data-msg-file="{download}">{self.t("打印版（PDF）")}</a></p>\n')

    def compare_index(self) -> str:
        """The list of the comparison pages: each law both translations hold, with its title."""
        names = "、".join(self.t(WORK_TITLES[w][0]) for w in self.pair(self.layout.compared[0]))
        out = [front_matter(title=self.t("两译本对照")), f"# {self.t('两译本对照')}\n",
               self.t(f"{names}都收录的各条，逐款并列：") + "\n"]
        for law in self.layout.compared:
            first = self.layout.by_id[f"{self.pair(law)[0]}:{law}"]
            out.append(f"- [{self.t(f'第{law}条')} {escape(self.field(first, 'title'))}](law-{law}.md)")
        return "\n".join(out) + "\n"

    def compare_page(self, law: int) -> str:
        """The two translations of one law, clause by clause, in two columns (stacked on a phone)."""
        page = f"compare/law-{law}.md"
        pair = self.pair(law)
        rows = self.compare_rows(law, pair)
        first = next(r for cells in rows.values() for r in cells.values() if r is not None and r.level == "law")
        names = {w: self.t(WORK_TITLES[w][0]) for w in pair}
        slots = self.slots is not None and not any(_NOT_PLAIN.search(n) for n in names.values())
        # the window's title and the header say it is the comparison, not the law of one book
        out = [front_matter(title=self.t(f"第{law}条对照")),
               f"# {self.t(f'第{law}条对照')}：{escape(self.field(first, 'title'))} {{ #{law} }}\n"]
        if slots:
            out.append(self.slot('<div class="kb-pair kb-pair-head">\n'
                                 + "".join(f"<div>\n<p><strong>{names[w]}</strong></p>\n</div>\n" for w in pair)
                                 + "</div>"))
        else:
            out.append('<div class="kb-pair kb-pair-head" markdown="1">\n'
                       + "".join(f'<div markdown="1">\n**{names[w]}**\n</div>\n' for w in pair)
                       + "</div>\n")
        for anchor, row in rows.items():
            present = [r for r in row.values() if r is not None]
            if present[0].level == "law":
                heading = ""
            else:
                depth = {"clause": 2, "item": 3, "subitem": 4}.get(present[0].level, 2)
                cited = " / ".join(dict.fromkeys(r.citation for r in present))
                if anchor != anchor_of(present[0]):      # a citation the other translation uses for another clause
                    only = next(w for w in pair if row[w] is not None)
                    cited += f" · {self.t('仅见于')}{escape(names[only])}"
                heading = f"{'#' * depth} {cited} {{ #{anchor} }}\n"
            if slots and all(self.plain(r) for r in present):
                out.append(heading + self.slot(self.pair_html(page, [(names[w], row[w]) for w in pair])))
                continue
            cells = []
            for w in pair:
                label = f'<p class="kb-pair-label">{names[w]}</p>\n'   # which translation, where the head row is hidden
                rec = row[w]
                if rec is None:
                    cells.append(f'<div markdown="1">\n{label}<p class="kb-missing">{self.t("此译本无此款")}</p>\n</div>\n')
                    continue
                href = self.layout.href(page, rec.id)
                body = self.text_with_refs(rec, page)
                notes = "".join(f"\n{note}\n" for note in self.footnotes(rec, markdown=True))
                cells.append(f'<div markdown="1">\n{label}\n**[{rec.citation}]({href})** {escape(self.field(rec, "title"))}\n\n'
                             + (f"{body}\n" if body else "") + notes + "</div>\n")
            out.append(heading + '<div class="kb-pair" markdown="1">\n' + "".join(cells) + "</div>\n")
        return "\n".join(out)

    def compare_rows(self, law: int, pair: tuple[str, str]) -> dict[str, dict[str, Record | None]]:
        """The rows of a compare page, in the law's order: anchor -> each translation's clause.

        A clause of the first translation and its twin (the records' ``twin``) share a row, whose
        anchor is the first one's citation (#43B2a); a clause of the second translation that is
        no one's twin gets a row of its own (#47F-laws1997 where the first has a 47F)."""
        left, right = pair
        mine = {w: list(self.layout.by_work_law.get((w, law), ())) for w in pair}
        by_id = {r.id: r for w in pair for r in mine[w]}
        keyed: list[tuple[list[tuple[int, str]], str, dict[str, Record | None]]] = []
        used: set[str] = set()
        for rec in mine[left]:
            mate = by_id.get(rec.twin) if rec.twin else None
            if mate is not None:
                used.add(mate.id)
            keyed.append((_path_key(rec), anchor_of(rec), {left: rec, right: mate}))
        taken = {anchor for _, anchor, _ in keyed}
        for rec in mine[right]:
            if rec.id not in used:
                anchor = anchor_of(rec) if anchor_of(rec) not in taken else f"{anchor_of(rec)}-{right}"
                keyed.append((_path_key(rec), anchor, {left: None, right: rec}))
        keyed.sort(key=lambda k: k[0])
        return {anchor: row for _, anchor, row in keyed}

    def pair_html(self, page: str, cells: list[tuple[str, Record | None]]) -> str:
        """The HTML that Markdown makes of a row of the compare page (plain records)."""
        out = ['<div class="kb-pair">']
        for name, rec in cells:
            label = f'<p class="kb-pair-label">{name}</p>'
            if rec is None:
                out.append(f'<div>\n{label}\n<p class="kb-missing">{self.t("此译本无此款")}</p>\n</div>')
                continue
            href = page_url(page, self.layout.href(page, rec.id) or "")
            body = self.text_html(rec, page)
            notes = "".join(f"{note}\n" for note in self.footnotes(rec, markdown=False))   # they belong to its wording
            out.append(f'<div>\n{label}\n<p><strong><a href="{href}">{_text(rec.citation)}</a></strong> '
                       f'{_text(self.field(rec, "title"))}</p>\n' + (f"<p>{body}</p>\n" if body else "") + notes + "</div>")
        return "\n".join(out) + "\n</div>"

    def pair(self, law: int) -> tuple[str, str]:
        """The two translations (twin works, in registry order) that both hold this law."""
        held = self.layout.holders.get(law, set())
        for w in works.all_works():
            if w.id in held and w.twin in held:
                return (w.id, w.twin)
        raise ValueError(f"law {law} is not held by two twin works")

    def mahjong_index(self, work: str, subjects: str | None = None) -> str:
        page = f"{work}/index.md"
        out = [front_matter(title=self.t(WORK_TITLES[work][0])), f"# {self.t(WORK_TITLES[work][0])}\n",
               self.pdf_link(work), self.subjects_link(subjects)]
        patterns = [r for r in self.layout.by_work.get(work, ())
                    if r.work == work and r.path[0] == "patterns" and len(r.path) == 2]
        if patterns:
            out += [f"## {self.t('计台名堂一览')} {{ #patterns-table }}\n",
                    f"| {self.t('编号')} | {self.t('名堂')} | {self.t('台数')} | {self.t('条文')} |",
                    "| ---: | --- | ---: | --- |"]
        for rec in patterns:
            href = self.layout.href(page, rec.id)
            out.append(f"| {rec.path[1]} | {escape(self.field(rec, 'title'))} | {rec.tai or '—'} "
                       f"| [{escape(self.t(rec.citation))}]({href}) |")
        out.append("")
        pages = {p.split("/")[-1][:-3] for p in self.layout.pages if p.startswith(f"{work}/")}
        for key, (hans, hant) in MAHJONG_PAGES.items():
            if key in pages:
                out.append(f"- [{hans if self.script == 'hans' else hant}]({key}.md)")
        return "\n".join(out) + "\n"

    def mahjong_page(self, page: str, records: list[Record]) -> str:
        key = page.split("/")[-1][:-3]
        title = MAHJONG_PAGES[key][0 if self.script == "hans" else 1]
        out = [self.book_head(page.split("/")[0]), f"# {title}\n"]
        out += [self.record_block(r, page) for r in records]
        return "\n".join(out)


def _path_key(rec: Record) -> list[tuple[int, str]]:
    """Reading order of a clause within its law: 45C before 45C4 before 45C4b, 9 before 10."""
    return [(len(p), p.zfill(3)) for p in rec.path[1:]]


def front_matter(**meta: str) -> str:
    """A page's front matter for mkdocs: its ``title`` (the browser's tab and the header), where it
    is not the H1's text; its rule ``book`` and ``book_short`` (kb/site/theme's header and title)."""
    return "---\n" + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in meta.items()) + "---\n"


_SLOT_RUN = re.compile(r"^kbslot\d+\n(?:\nkbslot\d+\n)+", re.M)


def merge_slots(markdown: str, slots: dict[str, str]) -> str:
    """Runs of slot paragraphs (a clause's end, the next clause's start) made one slot: Markdown
    spends as much on a slot paragraph as on any other, and the HTML is the same (paragraphs are
    joined by a line break)."""
    def merge(m: re.Match[str]) -> str:
        names = m.group(0).split()
        slots[names[0]] = "\n".join(slots.pop(n) if i else slots[n] for i, n in enumerate(names))
        return names[0] + "\n"
    return _SLOT_RUN.sub(merge, markdown)


def _text(plain: str) -> str:
    """Plain text (see _NOT_PLAIN) as Markdown makes it in HTML."""
    return plain.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def page_url(page: str, href: str) -> str:
    """A docs-relative link (``law-46.md#46A``) from a page as mkdocs writes it (``../law-46/#46A``),
    with directory URLs."""
    path, _, anchor = href.partition("#")
    if not path:
        return href
    return _page_dir_url(page, path) + (f"#{anchor}" if anchor else "")


@functools.lru_cache(maxsize=4096)
def _page_dir_url(page: str, path: str) -> str:
    """The directory URL of docs page ``path`` (relative to ``page``) as seen from ``page``."""
    here = url_of(page)
    there = url_of(posixpath.normpath(posixpath.join(posixpath.dirname(page), path)))
    rel = posixpath.relpath(there or ".", here or ".")
    return "./" if rel == "." else rel + "/"


def url_of(page: str) -> str:
    """The directory URL of a docs page: a/b.md → a/b/, a/index.md → a/, index.md → ''."""
    stem = page[:-3]
    if stem == "index" or stem.endswith("/index"):
        return stem[:-5]
    return stem + "/"


def escape(text: str) -> str:
    """Plain text for Markdown: special characters escaped, nothing else touched."""
    return MD_SPECIAL.sub(r"\\\1", text)
