"""Worked-example blocks as the HTML Markdown makes of them.

The site puts record bodies in as HTML rather than through Markdown (slots, kb/site/render.py);
worked examples go in the same way: Markdown spent most of its time on their admonitions and
tables. Only the shapes kb/site/examples_text.py writes are converted (an admonition of
paragraphs (one may carry a class: ``{: .kb-basis }``) and one collapsed details block holding a
table, inline text with backslash escapes,
**strong** and links); for anything else ``example_html`` gives None and the block goes through
Markdown as before. tests/test_site.py checks the two give the same HTML on every page.
"""
from __future__ import annotations

import re
from collections.abc import Callable

_HEAD = re.compile(r'!!! ([\w-]+) "(.*)" *')
_DETAILS = re.compile(r'\?\?\? ([\w-]+) "(.*)" *')
# Python-Markdown's backslash escapes (its ESCAPED_CHARS, with the tables extension's |)
_ESCAPED = "\\`*_{}[]()>#+-.!|"
_INLINE = re.compile(r"\\(.)|\*\*([^*]+?)\*\*|\[([^\]\[]*)\]\(([^()\s]+)\)")
_MARKUP = re.compile(r"[\\`*_{}\[\]<>&|~]")     # left after the conversion: Markdown's to read
_ROW = re.compile(r"\|(.*)\|")
_CLASS = re.compile(r"\{: *\.([\w-]+) *\}")
_RULE = re.compile(r"\|(?: *-{3,} *\|)+")


def inline(text: str, url: Callable[[str], str]) -> str | None:
    """The HTML of one line of inline Markdown, or None if it holds markup this does not read."""
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        plain = text[pos:m.start()]
        if _MARKUP.search(plain):
            return None
        out.append(_html(plain))
        pos = m.end()
        if m.group(1) is not None:
            if m.group(1) not in _ESCAPED:
                return None
            out.append(_html(m.group(1)))
        elif m.group(2) is not None:
            inner = inline(m.group(2), url)
            if inner is None or "<" in inner:
                return None
            out.append(f"<strong>{inner}</strong>")
        else:
            label = inline(m.group(3), url)
            if label is None or "<" in label or not m.group(4):
                return None
            out.append(f'<a href="{url(m.group(4))}">{label}</a>')
    rest = text[pos:]
    if _MARKUP.search(rest):
        return None
    out.append(_html(rest))
    return "".join(out)


def example_html(block: str, url: Callable[[str], str]) -> str | None:
    """The HTML of one admonition block (``!!! kind "title"``), or None to leave it to Markdown.
    ``url`` turns a link's docs-relative target into the URL mkdocs writes."""
    lines = block.rstrip("\n").split("\n")
    head = _HEAD.fullmatch(lines[0])
    if head is None:
        return None
    title = inline(head.group(2), url) if head.group(2) else None
    if title is None:
        return None
    out = [f'<div class="admonition {head.group(1)}">', f'<p class="admonition-title">{title}</p>']
    for para in _paragraphs(lines[1:], 4):
        if para is None:
            return None
        details = _DETAILS.fullmatch(para[0])
        if details is None:
            # a paragraph, or a paragraph with attr_list's class line ({: .kb-basis })
            attr = _CLASS.fullmatch(para[1]) if len(para) == 2 else None
            text = inline(para[0], url) if len(para) == 1 or attr else None
            if text is None:
                return None
            out.append(f'<p class="{attr.group(1)}">{text}</p>' if attr else f"<p>{text}</p>")
            continue
        summary = inline(details.group(2), url)
        table = _table(para[1:], url)
        if summary is None or table is None:
            return None
        out += [f'<details class="{details.group(1)}">', f"<summary>{summary}</summary>", *table, "</details>"]
    out.append("</div>")
    return "\n".join(out)


def _paragraphs(lines: list[str], indent: int) -> list[list[str] | None]:
    """The block's paragraphs (runs of lines between blank ones), each line unindented; None for
    a line that is not indented as a block's content must be."""
    paras: list[list[str] | None] = []
    current: list[str] = []
    pad = " " * indent
    for line in lines:
        if not line.strip():
            if current:
                paras.append(current)
                current = []
            continue
        if not line.startswith(pad) or line[indent] == " " and not current:
            return [None]
        current.append(line[indent:])
    if current:
        paras.append(current)
    return paras


def _table(lines: list[str], url: Callable[[str], str]) -> list[str] | None:
    """A details block's table (header, rule, rows, indented four more spaces) as Markdown's tables
    extension writes it."""
    rows = [line[4:] if line.startswith("    ") and line[4:5] != " " else "" for line in lines]
    if len(rows) < 2 or not _RULE.fullmatch(rows[1]):
        return None
    cells: list[list[str]] = []
    for row in [rows[0], *rows[2:]]:
        m = _ROW.fullmatch(row)
        if m is None:
            return None
        parts = [p.strip() for p in re.split(r"(?<!\\)\|", m.group(1))]
        html_cells = []
        for p in parts:
            cell = inline(p, url)
            if cell is None:
                return None
            html_cells.append(cell)
        cells.append(html_cells)
    width = len(cells[0])
    if any(len(c) != width for c in cells) or rows[1].count("|") != width + 1:
        return None
    out = ["<table>", "<thead>", "<tr>", *(f"<th>{c}</th>" for c in cells[0]), "</tr>", "</thead>", "<tbody>"]
    for row_cells in cells[1:]:
        out += ["<tr>", *(f"<td>{c}</td>" for c in row_cells), "</tr>"]
    out += ["</tbody>", "</table>"]
    return out


def _html(plain: str) -> str:
    return plain.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
