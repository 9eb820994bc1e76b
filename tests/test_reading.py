"""Reading at the table, in the built site: examples in words, compact provenance, languages,
titles, and the PDF editions (text, bookmarks, fonts)."""
from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import pytest

from kb.app import build as b
from kb.core import works
from kb.core.errors import KbError
from kb.rules.bridge import fields as bridge_fields
from kb.site import examples_text
from kb.site.pdf import pdf_name


@pytest.fixture(scope="session")
def built(session_build):
    return session_build, b.site_dir(session_build)


def page(site: Path, edition: str, url: str) -> str:
    return (site / edition / url / "index.html").read_text(encoding="utf-8")


def article_text(html: str) -> str:
    """What a reader sees of the page's article: tags, scripts and attributes dropped."""
    m = re.search(r'<article class="md-content__inner md-typeset">(.*?)</article>', html, re.S)
    assert m, "no article"
    body = re.sub(r"<(script|style)\b.*?</\1>", "", m.group(1), flags=re.S)
    body = re.sub(r'<span class="kb-suit-red">(.)</span>', r"\1", body)     # a red ♥ is read as one with its card
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", body))


def all_pages(site: Path) -> list[Path]:
    return sorted(p for edition in ("hans", "hant") for p in (site / edition).rglob("index.html"))


# -- examples in words -------------------------------------------------------------------------

def test_example_states_the_situation_then_the_ruling(built):
    _, site = built
    text = article_text(page(site, "hans", "cbr1999/law-50"))
    i = text.index("算例：重罚张须于第一次合法机会打出（垫牌）")
    example = text[i:i + 400]
    assert "本墩引出方块" in example and "没有方块" in example           # the situation
    assert example.index("情形") < example.index("裁定") < example.index("须打出♥K") < example.index("依据")
    assert "牌例明细" in example                                       # the data, collapsed, for people


def test_every_worked_example_has_situation_ruling_and_clauses(built):
    _, site = built
    for url in [f"cbr1999/law-{n}" for n in (44, 46, 50, 51, 61, 62, 63, 64)] + ["twmj16/patterns"]:
        html = page(site, "hans", url)
        blocks = re.findall(r'<div class="admonition example">(.*?)</details>\s*</div>', html, re.S)
        assert blocks, url
        for block in blocks:
            assert "情形" in block and "裁定" in block and "依据" in block and "<a href=" in block, (url, block[:120])


def test_no_developer_jargon_in_page_text(built):
    _, site = built
    fields = set(bridge_fields.BRIDGE_LABELS) | set(examples_text.MAHJONG_LABELS)
    word = re.compile(r"(?<![A-Za-z_])(" + "|".join(sorted(fields, key=len, reverse=True)) + r")(?![A-Za-z_])")
    banned = ("构建时已由规则代码核验", "構建時已由規則代碼核驗", "kb bridge", "kb mahjong", "```json", '{"')
    rule_pages = [p for p in all_pages(site) if p.relative_to(site).parts[1] in {w.id for w in works.all_works()} | {"compare"}]
    assert len(rule_pages) > 100
    for path in rule_pages:                  # the rule books' pages (docs/adding-a-work.md is for developers)
        html = path.read_text(encoding="utf-8")
        text = article_text(html)
        for phrase in banned:
            assert phrase not in text, (path, phrase)
        # the provenance notes may quote the English sources ("an insufficient bid"), and the subject
        # index lists the English names of the Laws ("insufficient bid"); the rest may not
        html = re.sub(r'<span class="kb-subject">[^<]*</span>', "", html)
        text = article_text(re.sub(r'<details class="kb-prov">.*?</details>', "", html, flags=re.S))
        found = word.search(text)
        assert found is None, (path, found and found.group(0))


def test_an_input_field_without_a_chinese_label_fails_the_build():
    example = {"title": "新字段", "clause": "cbr1999:44A", "function": "legal_cards",
               "input": {"hand": ["AS"], "new_field": 1}, "result": {"clauses": ["cbr1999:44A"], "explanation": "…"}}
    with pytest.raises(KbError, match="new_field"):
        examples_text.block(example)
    with pytest.raises(KbError, match="no_such_function"):
        examples_text.block({**example, "function": "no_such_function", "input": {"hand": ["AS"]}})


# -- provenance ---------------------------------------------------------------------------------

def test_provenance_is_one_small_marker_per_clause_with_marks(built):
    _, site = built
    html = page(site, "hans", "cbr1999/law-45")
    assert "出处与校勘" not in html and 'class="admonition note"' not in html
    clauses = re.findall(r'<div class="kb-clause".*?(?=<div class="kb-clause"|</article>)', html, re.S)
    assert len(clauses) > 10
    for clause in clauses:
        assert clause.count('<details class="kb-prov">') <= 1
    d45 = next(c for c in clauses if 'id="45D"' in c)
    assert re.search(r"<summary>出处 <span class=\"kb-mark\">有异文</span>", d45)
    assert "004_5298a96e49a6c220.txt" in d45                        # the sources, behind the marker
    b67 = page(site, "hans", "cbr1999/law-67")
    clause = b67[b67.index('id="67B1b"'):]
    assert '<span class="kb-mark">有补出</span>' in clause[:clause.index("</details>")]
    hant = page(site, "hant", "cbr1999/law-45")
    assert "有異文" in hant and "出處" in hant


# -- languages and titles -----------------------------------------------------------------------

def test_html_lang_and_chinese_titles(built):
    _, site = built
    for edition, lang in (("hans", "zh-Hans"), ("hant", "zh-Hant")):
        for path in (site / edition).rglob("index.html"):
            html = path.read_text(encoding="utf-8")
            assert f'<html lang="{lang}"' in html, path
            title = re.search(r"<title>(.*?)</title>", html).group(1)
            assert "Index" not in title, path
    assert "<title>中国桥牌竞赛规则（1999） - 牌规知识库</title>" in page(site, "hans", "cbr1999")
    assert "<title>台灣十六張麻將競賽規則 - 牌規知識庫</title>" in page(site, "hant", "twmj16")


# -- PDF editions -------------------------------------------------------------------------------

def test_a_pdf_of_every_work_in_both_scripts_linked_from_its_index(built):
    _, site = built
    for work in works.all_works():
        for edition in ("hans", "hant"):
            pdf = site / edition / "pdf" / pdf_name(work.id, edition)
            assert pdf.is_file() and pdf.read_bytes()[:5] == b"%PDF-", pdf
            assert pdf.stat().st_size > 50_000, pdf
            assert f'href="../pdf/{pdf_name(work.id, edition)}"' in page(site, edition, work.id)


def outline_titles(reader) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []

    def walk(items, depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                out.append((depth, item.title))
    walk(reader.outline, 0)
    return out


def plain(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("edition", ["hans", "hant"])
def test_pdf_text_is_searchable_with_bookmarks_per_law_and_clause(built, records, edition):
    from pypdf import PdfReader
    _, site = built
    reader = PdfReader(site / edition / "pdf" / pdf_name("cbr1999", edition))
    rec = records["cbr1999:45C4b"]
    text = plain("".join(p.extract_text() for p in reader.pages))
    clause = plain(getattr(rec, f"text_{edition}"))
    assert clause[:40] in text                                   # 45C4(b)'s words, as a reader would search them
    i = text.index(plain(f"45C4(b) {getattr(rec, f'title_{edition}')}"))
    assert clause[:40] in text[i:i + 200]
    assert not re.search("[\u2e80-\u2fdf]", text)               # no radical stand-ins (⼿ for 手)
    titles = outline_titles(reader)
    law = "第45条" if edition == "hans" else "第45條"
    depth_law = next(d for d, t in titles if t.startswith(law))
    depth_clause = next(d for d, t in titles if t.startswith("45C4(b)"))
    assert depth_clause > depth_law                             # clauses nest under their law
    assert sum(1 for _, t in titles if re.match(r"第\d+[条條]", t)) >= 45


def test_pdf_fonts_are_embedded(built):
    from pypdf import PdfReader
    _, site = built
    reader = PdfReader(site / "hans" / "pdf" / pdf_name("twmj16", "hans"))
    for number, pg in enumerate(reader.pages):
        for font in pg["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            assert "/ToUnicode" in font, number
            if font["/Subtype"] == "/Type3":
                continue                                        # glyphs drawn in the PDF itself
            descendant = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            descriptor = descendant["/FontDescriptor"].get_object()
            assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), (number, font["/BaseFont"])


def test_kb_build_needs_no_browser_and_kb_build_pdf_says_so_in_one_line(tmp_path):
    """Without Chromium (KB_CHROMIUM pointing nowhere, none on PATH) `kb build` makes the records,
    the index and both editions, with no PDF and no link to one; `kb build --pdf` is one line, exit 2,
    and leaves that build as it was."""
    import os
    import subprocess
    import sys
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep)
                           if not any((Path(d) / name).exists() for name in ("chromium", "chromium-browser", "chrome")))
    env = {**os.environ, "KB_BUILD_DIR": str(tmp_path / "build"), "KB_CHROMIUM": str(tmp_path / "nowhere"), "PATH": path}
    done = subprocess.run([sys.executable, "-m", "kb.app.cli", "build"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "without the PDF editions" in done.stdout
    site = tmp_path / "site"
    for edition in ("hans", "hant"):
        assert not (site / edition / "pdf").exists()
        for work in works.all_works():
            index = page(site, edition, work.id)
            assert "application/pdf" not in index and "打印版（PDF）" not in index and "打印版（PDF）" not in index
    before = (tmp_path / "build" / "meta.json").read_bytes()
    asked = subprocess.run([sys.executable, "-m", "kb.app.cli", "build", "--pdf"], env=env, capture_output=True, text=True)
    assert asked.returncode == 2 and asked.stderr.count("\n") == 1 and "Traceback" not in asked.stderr
    assert "Chromium" in asked.stderr and str(tmp_path / "nowhere") in asked.stderr
    assert (tmp_path / "build" / "meta.json").read_bytes() == before


def test_text_map_fix_refuses_a_pdf_it_cannot_read(tmp_path):
    """The ToUnicode fix appends an incremental update; a PDF without a classic xref table is one line."""
    from kb.core.errors import KbError
    from kb.site.pdf import fix_text_map
    bad = tmp_path / "x.pdf"
    bad.write_bytes(b"%PDF-1.7\n1 0 obj\n<</Type /Catalog>>\nendobj\nstartxref\n9\n%%EOF\n")
    with pytest.raises(KbError, match=r"x\.pdf: no classic cross-reference table"):
        fix_text_map(bad)


def test_pdf_cache_reuses_a_print_only_for_the_same_inputs(full_build_copy, monkeypatch):
    """The session build filled the cache: the same inputs print nothing and give the same bytes;
    a changed stylesheet is a miss (printing is needed)."""
    import os

    import playwright.sync_api

    from kb.app.build import cache_dir
    from kb.site import pdf

    def no_printing():
        raise AssertionError("Chromium was started")
    monkeypatch.setattr(playwright.sync_api, "sync_playwright", no_printing)
    gen = full_build_copy.resolve()
    cache = cache_dir(full_build_copy) if os.environ.get("KB_CACHE_DIR") else None
    assert cache is not None
    target = gen / "site" / "hans" / "pdf" / pdf_name("cbr1999", "hans")
    before = target.read_bytes()
    target.unlink()
    made = pdf.build_pdfs(gen / "site", gen, cache / "pdf")
    assert target in made and target.read_bytes() == before
    (css,) = (gen / "site" / "hans" / "assets").glob("print.*.css")
    css.write_text(css.read_text(encoding="utf-8") + "\n/* changed */\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="Chromium was started"):
        pdf.build_pdfs(gen / "site", gen, cache / "pdf")


def test_pdf_is_printed_with_the_pages_own_stylesheets(built):
    """The print HTML links the stylesheets the pages link (fingerprinted), print.css among them,
    and every one exists: a PDF printed without them shows the screen's empty provenance bars."""
    import re
    from urllib.parse import unquote, urlparse
    out, site = built
    for edition in ("hans", "hant"):
        html = (out / "print" / f"cbr1999-{edition}.html").read_text(encoding="utf-8")
        links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', html)
        assert any(re.search(r"/assets/print\.[0-9a-f]+\.css$", h) for h in links), links
        # printed in the build's temporary folder: the same files are in the finished site
        assert all((site / unquote(urlparse(h).path).split("/site/", 1)[1]).is_file() for h in links), links
