"""Markdown for the site's pages, in either script, from the records."""
from __future__ import annotations

import html
import json
import re

from kb import works
from kb.normalise import to_hant
from kb.records import Record
from kb.site.layout import MAHJONG_PAGES, WORK_TITLES, Layout, relative
from kb.site.pdf import pdf_href

HEADING_LEVEL = {"law": 1, "section": 2, "clause": 2, "item": 3, "subitem": 4}
MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")

# Worked examples: clause id -> markdown blocks (Simplified), filled in by the rules stage.
Examples = dict[str, list[str]]

# Marks on the 出处 summary, so that editors find the clauses with variants or recovered text.
MARKS = {"variant": "有异文", "recovery": "有补出", "loss": "有缺文", "emendation": "有校改",
         "repair": "有修复", "fragment": "残篇"}
NOTE_KINDS = {"recovery": "补出", "loss": "缺文", "emendation": "校改", "repair": "修复", "fragment": "残篇"}


class Renderer:
    def __init__(self, layout: Layout, script: str, examples: Examples | None = None):
        self.layout = layout
        self.script = script
        self.examples = examples or {}

    # -- script ----------------------------------------------------------------------------
    def t(self, simplified: str) -> str:
        """UI text, written in Simplified, in this edition's script."""
        return simplified if self.script == "hans" else to_hant(simplified)

    def field(self, rec: Record, name: str) -> str:
        return getattr(rec, f"{name}_{self.script}")

    # -- pieces ----------------------------------------------------------------------------
    def switch(self, page: str) -> str:
        """A link to the same page in the other edition (kb.js carries the #anchor along)."""
        other = "hant" if self.script == "hans" else "hans"
        label = "繁體" if other == "hant" else "简体"
        url = page[:-3] + "/" if not page.endswith("index.md") else page[: -len("index.md")]
        depth = url.count("/")
        href = "../" * (depth + 1) + f"{other}/{url}"
        return (f'<div class="kb-switch" markdown="0" data-search-exclude><a class="kb-switch-link" href="{href}">'
                f'{label}</a></div>\n')

    def text_with_refs(self, rec: Record, page: str) -> str:
        text = self.field(rec, "text")
        out, pos = [], 0
        for ref in sorted(rec.refs, key=lambda r: r["span"][0]):
            a, b = ref["span"]
            if a < pos:
                continue
            out.append(escape(text[pos:a]))
            piece = escape(text[a:b])
            target = ref.get("target")
            href = self.layout.href(page, target) if target and ref["status"] == "resolved" else None
            if href and target:
                title = self.layout.by_id[target].citation
                out.append(f'[{piece}]({href} "{html.escape(target)} {html.escape(title)}")')
            else:
                why = {"external": self.t("本库未收此条"), "lost": self.t("原文数字已佚，无法确定所指"),
                       "unresolved": self.t("无法解析")}.get(ref["status"], ref["status"])
                out.append(f'<span class="kb-ref kb-{ref["status"]}" title="{why}">{piece}</span>')
            pos = b
        out.append(escape(text[pos:]))
        return "".join(out)

    def heading(self, rec: Record, level: int | None = None) -> str:
        level = level or HEADING_LEVEL.get(rec.level, 2)
        title = escape(self.field(rec, "title"))
        work = works.get(rec.work)
        if work.kind == "sectioned":
            label = title or escape(self.t(rec.citation))
            if rec.level != "section" and title:
                label = f"{rec.path[-1]}. {title}" if len(rec.path) == 2 else f"{'.'.join(rec.path[1:])} {title}"
            elif rec.level != "section":
                label = ".".join(rec.path[1:])
        elif rec.level == "law" and rec.law is not None:
            label = self.t(work.law_name(rec.law)) + f" {title}"
        else:
            label = f"{rec.citation} {title}".strip()
        tai = f' <span class="kb-tai">{rec.tai}{self.t("台")}</span>' if rec.tai else ""
        return f"{'#' * level} {label}{tai} {{ #{self.layout.place[rec.id].anchor} }}\n"

    def meta(self, rec: Record, page: str) -> str:
        """Backlinks and footnotes in view; sources, variants and notes behind one small 出处 marker."""
        lines = []
        if rec.cited_by:
            links = []
            for cid in rec.cited_by:
                src = self.layout.by_id.get(cid)
                href = self.layout.href(page, cid)
                if src and href:
                    links.append(f"[{escape(self.t(src.citation))}]({href})")
            if links:
                lines.append(f'<p class="kb-cited-by" markdown="1">{self.t("被引用")}：{" · ".join(links)}</p>\n')
        for f in rec.footnotes:
            lines.append(f'<p class="kb-footnote" markdown="1">{self.t("脚注")} [{f["n"]}]：'
                         f'{escape(f["text_" + self.script])}</p>\n')
        details = []
        for w in rec.witnesses:
            span = f"{w.lines[0]}" if w.lines[0] == w.lines[1] else f"{w.lines[0]}–{w.lines[1]}"
            details.append(f"- {self.t('出处')}：`{w.source}` {self.t('第')} {span} {self.t('行')}")
        for v in rec.variants:
            readings = " ｜ ".join(f"{sigil}：{escape(t) or '∅'}" for sigil, t in v["readings"].items())
            details.append(f"- {self.t('异文')}：{readings}（{escape(v['context'])}）")
        for n in rec.notes:
            details.append(f"- {self.t(NOTE_KINDS.get(n['kind'], '注'))}：{escape(n['what'])}（{self.t('据')} {escape(n['from'])}）")
        if details:
            marks = ([MARKS["variant"]] if rec.variants else []) + list(dict.fromkeys(
                MARKS[n["kind"]] for n in rec.notes if n["kind"] in MARKS))
            badge = "".join(f' <span class="kb-mark">{self.t(m)}</span>' for m in marks)
            lines.append(f'<details class="kb-prov" markdown="1">\n<summary>{self.t("出处")}{badge}</summary>\n\n'
                         + "".join(f"{d}\n" for d in details) + "\n</details>\n")
        return "\n".join(lines)

    def record_block(self, rec: Record, page: str, level: int | None = None) -> str:
        """One record: heading, text, backlinks, provenance and worked examples, wrapped so that the
        whole clause is highlighted when its anchor is the target (kb/site clause.js adds the copy button)."""
        parts = [self.heading(rec, level)]
        body = self.text_with_refs(rec, page)
        if body:
            parts.append(body + "\n")
        meta = self.meta(rec, page)
        if meta:
            parts.append(meta)
        for block in self.examples.get(rec.id, []):
            parts.append(self.clause_links(self.t(block), page))
        cite = html.escape(self.citation(rec), quote=True)
        return (f'<div class="kb-clause" data-cite="{cite}" data-level="{rec.level}" markdown="1">\n\n' + "\n".join(parts)
                + "\n</div>\n")

    def citation(self, rec: Record) -> str:
        """How a person cites the record: 67B1(b), 第67条, 计台名堂 13."""
        if rec.level == "law" and rec.law is not None:
            return self.t(works.get(rec.work).law_name(rec.law))
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
    def law_page(self, page: str, records: list[Record]) -> str:
        law = records[0]
        head = "".join(f'<p class="kb-heading">{escape(self.t(h))}</p>\n' for h in law.heading)
        out = [self.switch(page), head]
        if law.law in self.layout.compared:
            out.append(f'[{self.t("与另一译本对照")}]({relative(page, f"compare/law-{law.law}.md")})\n')
        out += [self.record_block(r, page) for r in records]
        return "\n".join(out)

    def work_index(self, work: str) -> str:
        page = f"{work}/index.md"
        out = [front_matter(self.t(WORK_TITLES[work][0])), self.switch(page), f"# {self.t(WORK_TITLES[work][0])}\n",
               self.pdf_link(work)]
        for law in self.layout.laws(work):
            for h in law.heading:
                out.append(f"\n## {escape(self.t(h))}\n")
            name = works.get(work).law_name(law.law or "")
            frag = self.t("（残篇）") if any(n["kind"] == "fragment" for n in law.notes) else ""
            out.append(f"- [{self.t(name)} {escape(self.field(law, 'title'))}{frag}](law-{law.law}.md)")
        return "\n".join(out) + "\n"

    def pdf_link(self, work: str) -> str:
        """The link from a work's index page to its print edition (kb/site/pdf.py writes it after mkdocs)."""
        return (f'<p class="kb-pdf kb-print-hide"><a href="{pdf_href(work, self.script)}" type="application/pdf">'
                f'{self.t("打印版（PDF）")}</a></p>\n')

    def compare_page(self, law: int) -> str:
        """The two translations of one law, clause by clause, in two columns (stacked on a phone)."""
        page = f"compare/law-{law}.md"
        pair = self.pair(law)
        recs = {w: {r.id.split(":", 1)[1]: r for r in self.layout.records if r.work == w and r.law == law}
                for w in pair}
        paths = {local: r.path for w in pair for local, r in recs[w].items()}
        order = sorted(paths, key=lambda local: [(len(p), p.zfill(3)) for p in paths[local][1:]])
        first = next(recs[w][str(law)] for w in pair if str(law) in recs[w])
        names = {w: self.t(WORK_TITLES[w][0]) for w in pair}
        out = [self.switch(page), f"# {self.t(f'第{law}条对照')}：{escape(self.field(first, 'title'))} {{ #{law} }}\n",
               '<div class="kb-pair kb-pair-head" markdown="1">\n'
               + "".join(f'<div markdown="1">\n**{names[w]}**\n</div>\n' for w in pair)
               + "</div>\n"]
        for local in order:
            if local == str(law):
                heading = ""
            else:
                any_rec = next(recs[w][local] for w in pair if local in recs[w])
                depth = {"clause": 2, "item": 3, "subitem": 4}.get(any_rec.level, 2)
                heading = f"{'#' * depth} {any_rec.citation} {{ #{local} }}\n"
            cells = []
            for w in pair:
                label = f'<p class="kb-pair-label">{names[w]}</p>\n'   # which translation, where the head row is hidden
                rec = recs[w].get(local)
                if rec is None:
                    cells.append(f'<div markdown="1">\n{label}<p class="kb-missing">{self.t("此译本无此款")}</p>\n</div>\n')
                    continue
                href = self.layout.href(page, rec.id)
                body = self.text_with_refs(rec, page)
                cells.append(f'<div markdown="1">\n{label}\n**[{rec.citation}]({href})** {escape(self.field(rec, "title"))}\n\n'
                             + (f"{body}\n" if body else "") + "</div>\n")
            out.append(heading + '<div class="kb-pair" markdown="1">\n' + "".join(cells) + "</div>\n")
        return "\n".join(out)

    def pair(self, law: int) -> tuple[str, str]:
        """The two translations (twin works, in registry order) that both hold this law."""
        held = {r.work for r in self.layout.records if r.law == law and r.level == "law"}
        for w in works.all_works():
            if w.id in held and w.twin in held:
                return (w.id, w.twin)
        raise ValueError(f"law {law} is not held by two twin works")

    def mahjong_index(self, work: str) -> str:
        page = f"{work}/index.md"
        out = [front_matter(self.t(WORK_TITLES[work][0])), self.switch(page), f"# {self.t(WORK_TITLES[work][0])}\n",
               self.pdf_link(work)]
        patterns = [r for r in self.layout.records
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
        out = [self.switch(page), f"# {title}\n"]
        out += [self.record_block(r, page) for r in records]
        return "\n".join(out)


def front_matter(title: str) -> str:
    """The page's title for mkdocs (its first element is the edition switch, not the H1)."""
    return f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n"


def escape(text: str) -> str:
    """Plain text for Markdown: special characters escaped, nothing else touched."""
    return MD_SPECIAL.sub(r"\\\1", text)
