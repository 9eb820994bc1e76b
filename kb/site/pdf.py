"""The print editions: one PDF per work and script, printed by Chromium from the built site.

Why Chromium (through Playwright) rather than WeasyPrint: the PDF is the page the reader sees,
laid out by the same engine and the same stylesheets (mkdocs-material, reading.css, print.css),
with no second renderer to keep in step; Chromium embeds the (subset) fonts, keeps the text
searchable, writes a tagged PDF and makes the bookmarks from the headings (one per law and
clause). Needs Chromium (/usr/bin/chromium, or $KB_CHROMIUM) and a CJK font (fonts-noto-cjk).

For each work, the article of its index page and of each of its pages, in the book's order, is
concatenated into one print-only HTML file (links inside the work become links inside the PDF;
links elsewhere become plain text), printed to ``SITE/<script>/pdf/<work>-<script>.pdf``.
"""
from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urljoin

from kb.core import works
from kb.core.errors import KbError
from kb.core.records import read_jsonl
from kb.site.layout import WORK_TITLES, Layout

SCRIPTS = ("hans", "hant")
LANG = {"hans": "zh-Hans", "hant": "zh-Hant"}
STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]+)"')
ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
LINK = re.compile(r'<a ([^>]*?)href="([^"]*)"([^>]*)>')


def chromium() -> str:
    return os.environ.get("KB_CHROMIUM") or "/usr/bin/chromium"


def require_tools() -> str:
    """One line, and no PDF, when Chromium or a CJK font is missing; else the CJK fonts found
    (fontconfig's families and files, part of each PDF's cache key)."""
    if not Path(chromium()).is_file():
        raise KbError(f"the PDF editions need Chromium at {chromium()} (Debian: apt-get install chromium; "
                      "or set KB_CHROMIUM)")
    found = _cjk_fonts()
    if not found.strip():
        raise KbError("the PDF editions need a CJK font, and fontconfig finds none for Chinese "
                      "(Debian: apt-get install fonts-noto-cjk)")
    return found


def pdf_name(work: str, script: str) -> str:
    return f"{work}-{script}.pdf"


def pdf_href(work: str, script: str) -> str:
    """The link to a work's PDF from the work's index page (SITE/<script>/<work>/)."""
    return f"../pdf/{pdf_name(work, script)}"


def work_pages(layout: Layout, work: str) -> list[str]:
    """The work's pages (docs-relative .md paths) in the book's order, its index page first."""
    pages = [f"{work}/index.md"]
    for rec in layout.records:
        if rec.work == work and layout.place[rec.id].page not in pages:
            pages.append(layout.place[rec.id].page)
    return pages


def url_of(page: str) -> str:
    """Site URL path (from the edition's root) of a docs page: cbr1999/law-45.md -> /cbr1999/law-45/."""
    return "/" + (page[: -len("index.md")] if page.endswith("index.md") else page[:-3] + "/")


def section_id(page: str) -> str:
    return "page-" + re.sub(r"[^A-Za-z0-9]+", "-", url_of(page)).strip("-")


def print_html(site: Path, script: str, work: str, pages: list[str]) -> str:
    """One HTML document holding the articles of a work's pages, for Chromium to print."""
    urls = {url_of(p): p for p in pages}
    parts = []
    for page in pages:
        file = site / script / url_of(page).strip("/") / "index.html"
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise KbError(f"{file}: cannot read the built page for the PDF ({exc.strerror})") from None
        m = ARTICLE.search(text)
        if m is None:
            raise KbError(f"{file}: no <article> in the built page")
        parts.append(f'<section class="kb-print-page" id="{section_id(page)}">\n'
                     f"{_clean(m.group(1), url_of(page), urls, contents=page == pages[0])}\n</section>")
    root = (site / script).resolve().as_uri() + "/"
    links = [root + css for css in stylesheets(site, script, pages[0])]
    title = html.escape(WORK_TITLES[work][0 if script == "hans" else 1])
    head = "".join(f'<link rel="stylesheet" href="{href}">\n' for href in links)
    return (f'<!doctype html>\n<html lang="{LANG[script]}" data-md-color-scheme="default">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{title}</title>\n{head}</head>\n<body class=\"kb-print\">\n"
            f'<div class="md-content"><div class="md-content__inner md-typeset">\n'
            + "\n".join(parts) + "\n</div></div>\n</body>\n</html>\n")


def stylesheets(site: Path, script: str, page: str) -> list[str]:
    """The stylesheets the built page links (the theme's, then ours, fingerprinted), as paths from
    the edition's root: the PDF is laid out by the same rules as the page. One that is not in the
    site is an error (a PDF printed without its print rules would look like a screen dump)."""
    file = site / script / url_of(page).strip("/") / "index.html"
    found = []
    for href in STYLESHEET.findall(file.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", href):
            continue
        path = urljoin(url_of(page), href).lstrip("/")
        if not (site / script / path).is_file():
            raise KbError(f"{file}: its stylesheet {href} is not in the site")
        found.append(path)
    if not any(p.startswith("assets/print.") for p in found):
        raise KbError(f"{file}: links no print stylesheet (assets/print.*.css)")
    return found


def _clean(article: str, here: str, urls: dict[str, str], contents: bool = False) -> str:
    """Drop what only the screen needs; links into the work point inside the PDF, others are plain text.
    On the contents page (the work's index) only the title is a heading, so the bookmarks are the laws'."""
    if contents:
        article = re.sub(r"<h([2-6])([^>]*)>(.*?)</h\1>", r'<p class="kb-contents-head"\2>\3</p>', article, flags=re.S)
    article = re.sub(r'<a class="headerlink"[^>]*>.*?</a>', "", article)
    article = re.sub(r'<p><a href="[^"#]*compare/[^"]*">[^<]*</a></p>', "", article)

    def link(m: re.Match[str]) -> str:
        before, href, after = m.groups()
        if href.startswith("#"):
            return m.group(0)
        target = urljoin(here, href)
        path, _, frag = target.partition("#")
        if path in urls:
            return f'<a {before}href="#{frag or section_id(urls[path])}"{after}>'
        return f"<a {before}{after}>".replace("  ", " ")
    return LINK.sub(link, article)


RADICALS = re.compile("[\u2e80-\u2fdf]")
# CJK Radicals Supplement forms that Noto CJK draws with the same glyph as an ideograph (NFKC
# covers the Kangxi radicals, not these): after the Unicode Character Database's
# EquivalentUnifiedIdeograph.txt.
SUPPLEMENT = dict(zip(
    "⺊⺒⺓⺔⺖⺗⺘⺛⺝⺠⺡⺢⺣⺤⺦⺧⺨⺩⺫⺬⺭⺯⺰⺳⺹⺻⺼⺾⺿⻀⻁⻂⻃⻄⻅⻆⻈⻉⻋⻌⻍⻎⻏⻐⻑⻒⻓⻔⻖⻗⻘⻙⻚⻛⻜⻝⻟⻠⻢⻣⻤⻥⻦⻧⻨⻩⻪⻫⻬⻭⻮⻯⻰⻱⻲⻳",
    "卜巳幺彑忄心扌旡月民氵氺灬爫丬牛犭王罒示礻糸纟网耂聿肉艹艹艹虎衤覀西见角讠贝车辶辶辶阝钅長镸长门阝雨青韦页风飞食飠饣马骨鬼鱼鸟卤麦黄黾斉齐歯齿竜龙龜亀龟"))
BFCHAR = re.compile(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")
BFRANGE = re.compile(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")


def unicode_of(cmap: str) -> dict[int, str]:
    """A ToUnicode CMap's mapping: character code -> text."""
    out: dict[int, str] = {}
    for block in re.findall(r"beginbfrange(.*?)endbfrange", cmap, re.S):
        for lo, hi, start in BFRANGE.findall(block):
            first = int(start, 16)
            for k, code in enumerate(range(int(lo, 16), int(hi, 16) + 1)):
                out[code] = chr(first + k)
    for block in re.findall(r"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, text in BFCHAR.findall(block):
            out[int(code, 16)] = bytes.fromhex(text).decode("utf-16-be")
    return out


def cmap_text(mapping: dict[int, str]) -> str:
    """A ToUnicode CMap (bfchar entries only) for a mapping."""
    items = sorted(mapping.items())
    chunks = [items[i:i + 100] for i in range(0, len(items), 100)]
    body = "".join(f"{len(c)} beginbfchar\n" + "".join(f"<{code:04X}> <{text.encode('utf-16-be').hex().upper()}>\n"
                                                       for code, text in c) + "endbfchar\n" for c in chunks)
    return ("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
            "/CIDSystemInfo\n<<  /Registry (Adobe)\n/Ordering (UCS)\n/Supplement 0\n>> def\n"
            "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
            "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n" + body
            + "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n")


def ideograph(text: str) -> str:
    """The ideograph a radical form stands for (unchanged if it is none); a radical with no
    known ideograph is an error, since the site's text has none."""
    import unicodedata
    if not RADICALS.search(text):
        return text
    out = "".join(SUPPLEMENT.get(ch, ch) for ch in unicodedata.normalize("NFKC", text))
    if RADICALS.search(out):
        raise KbError(f"PDF text map: no ideograph known for the radical form {out!r} (add it to SUPPLEMENT in kb/site/pdf.py)")
    return out


OBJ = re.compile(rb"(\d+) 0 obj\s*<<(.*?)>>\s*stream\r?\n", re.S)
LENGTH = re.compile(rb"/Length (\d+)(?! \d+ R)")
TO_UNICODE = re.compile(rb"/ToUnicode (\d+) 0 R")
TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref\s*(\d+)\s*%%EOF\s*$", re.S)


def _xref(data: bytes, pdf: Path) -> dict[int, int]:
    """Object number -> byte offset, from the PDF's classic cross-reference table (Chromium's kind)."""
    m = TRAILER.search(data[-4096:])
    if m is None or not data[int(m.group(2)):].startswith(b"xref"):
        raise KbError(f"{pdf}: no classic cross-reference table at the end (an unexpected PDF from Chromium)")
    offsets: dict[int, int] = {}
    lines = iter(data[int(m.group(2)) + 4:].split(b"trailer", 1)[0].split())
    for first in lines:
        count = int(next(lines))
        for num in range(int(first), int(first) + count):
            offset, _gen, kind = next(lines), next(lines), next(lines)
            if kind == b"n":
                offsets[num] = int(offset)
    return offsets


def fix_text_map(pdf: Path) -> int:
    """Make the PDF's text read as the page does: Noto CJK draws 手 and the Kangxi radical ⼿ with one
    glyph, and Chromium's ToUnicode maps such glyphs to the radical, so 明手 would extract (and
    search) as 明⼿. Map those codes to the ideograph (NFKC), as an incremental update that appends
    the corrected ToUnicode streams (the rest of the file is not rewritten). Returns how many
    ToUnicode maps were fixed."""
    import zlib
    data = pdf.read_bytes()
    offsets = _xref(data, pdf)
    trailer = TRAILER.search(data[-4096:])
    assert trailer is not None                      # _xref checked it
    update: list[bytes] = []
    entries: list[tuple[int, int]] = []
    for num in sorted({int(n) for n in TO_UNICODE.findall(data)}):
        m = OBJ.match(data, offsets.get(num, -1)) if num in offsets else None
        length = LENGTH.search(m.group(2)) if m else None
        if m is None or length is None or int(m.group(1)) != num:
            raise KbError(f"{pdf}: ToUnicode object {num} is not a stream with a direct /Length")
        raw = data[m.end():m.end() + int(length.group(1))]
        cmap = (zlib.decompress(raw) if b"/FlateDecode" in m.group(2) else raw).decode("latin-1")
        mapping = unicode_of(cmap)
        if not RADICALS.search("".join(mapping.values())):
            continue
        body = zlib.compress(cmap_text({code: ideograph(text) for code, text in mapping.items()}).encode("latin-1"))
        entries.append((num, len(data) + sum(len(u) for u in update)))
        update.append(b"%d 0 obj\n<</Filter /FlateDecode /Length %d>>\nstream\n" % (num, len(body))
                      + body + b"\nendstream\nendobj\n")
    if not entries:
        return 0
    xref_at = len(data) + sum(len(u) for u in update)
    table = b"xref\n" + b"".join(b"%d 1\n%010d 00000 n \n" % entry for entry in entries)
    fields = re.sub(rb"/Prev \d+", b"", trailer.group(1)).strip()
    tail = b"trailer\n<<%s\n/Prev %s>>\nstartxref\n%d\n%%%%EOF\n" % (fields, trailer.group(2), xref_at)
    with pdf.open("ab") as out:
        out.write(b"".join(update) + table + tail)
    return len(entries)


FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555;">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


CACHE_KEEP = 24   # PDFs kept in the cache (the oldest used go first)


def _cache_key(site_dir: Path, script: str, html_text: str, fonts: str) -> str:
    """What a PDF depends on: its print HTML (with the site's own path taken out), the stylesheets'
    bytes, the print options and this module, the Chromium binary and the CJK ``fonts`` found."""
    h = hashlib.sha256()
    root = (site_dir / script).resolve().as_uri() + "/"
    h.update(html_text.replace(root, "ROOT/").encode("utf-8"))
    for href in sorted(set(re.findall(r'<link rel="stylesheet" href="([^"]+)"', html_text))):
        path = site_dir / script / href.replace(root, "", 1)
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(Path(__file__).read_bytes())
    binary = Path(chromium()).stat()
    h.update(f"{chromium()} {binary.st_size} {binary.st_mtime_ns}\0{fonts}".encode())
    return h.hexdigest()


def _cjk_fonts() -> str:
    fc = shutil.which("fc-list")
    return subprocess.run([fc, ":lang=zh", "family", "file"], capture_output=True, text=True).stdout if fc else ""


def _store(cache: Path, key: str, pdf: Path) -> None:
    """Put a printed PDF in the cache (written aside, then renamed) and trim the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f".{key}.{os.getpid()}.tmp"
    shutil.copyfile(pdf, tmp)
    tmp.replace(cache / f"{key}.pdf")
    kept = sorted(cache.glob("*.pdf"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[CACHE_KEEP:]:
        old.unlink(missing_ok=True)


def build_pdfs(site_dir: Path, out_dir: Path, cache: Path | None = None) -> list[Path]:
    """Print every work in both scripts from the built site in ``site_dir``, reading the records
    in ``out_dir/records.jsonl``; the PDFs go to ``site_dir/<script>/pdf/``. Returns their paths.

    With a ``cache`` folder, a PDF whose inputs (see _cache_key) were printed before is copied
    from it instead of printed again, and each new print is added to it."""
    fonts = require_tools()
    layout = Layout(list(read_jsonl(out_dir / "records.jsonl")))
    jobs, done = [], []
    for script in SCRIPTS:
        for work in works.all_works():
            source = out_dir / "print" / f"{work.id}-{script}.html"
            source.parent.mkdir(parents=True, exist_ok=True)
            pages = [p for p in work_pages(layout, work.id)        # the pages the site has for the work
                     if (site_dir / script / url_of(p).strip("/") / "index.html").is_file()]
            if not pages:
                continue
            text = print_html(site_dir, script, work.id, pages)
            source.write_text(text, encoding="utf-8")
            target = site_dir / script / "pdf" / pdf_name(work.id, script)
            target.parent.mkdir(parents=True, exist_ok=True)
            key = _cache_key(site_dir, script, text, fonts) if cache is not None else ""
            hit = cache / f"{key}.pdf" if cache is not None else None
            if hit is not None and hit.is_file():
                shutil.copyfile(hit, target)
                os.utime(hit)                                      # recently used: kept longest
                done.append(target)
            else:
                jobs.append((source, target, key))
    if jobs:     # playwright is imported only to print (0.1 s)
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium(), headless=True,
                                            args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
                page = browser.new_page()
                for source, target, _ in jobs:
                    page.goto(source.resolve().as_uri(), wait_until="load")
                    page.pdf(path=str(target), format="A4", prefer_css_page_size=True, outline=True, tagged=True,
                             display_header_footer=True, header_template="<span></span>", footer_template=FOOTER)
                browser.close()
        except PlaywrightError as exc:
            raise KbError(f"printing the PDF editions with Chromium failed: {str(exc).splitlines()[0]}") from None
    for _, target, key in jobs:
        fix_text_map(target)
        if cache is not None:
            _store(cache, key, target)
        done.append(target)
    return done
