"""The built site: pages, anchors, links, backlinks, variants, both editions, worked examples."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.app import build as b
from kb.core.curated import DATA_DIR
from kb.core.errors import KbError
from kb.site.linkcheck import check_site


@pytest.fixture(scope="session")
def built():
    out = b.ensure_built(None, need_site=True)
    return out, b.site_dir(out)


def page(site: Path, edition: str, url: str) -> str:
    return (site / edition / url / "index.html").read_text(encoding="utf-8")


def test_every_record_has_one_anchor_in_each_edition(built):
    out, site = built
    from kb.core.records import read_jsonl
    from kb.site.layout import Layout
    records = list(read_jsonl(out / "records.jsonl"))
    layout = Layout(records)
    for edition in ("hans", "hant"):
        cache: dict[str, str] = {}
        for rec in records:
            place = layout.place[rec.id]
            url = place.page[:-3]
            html = cache.setdefault(url, page(site, edition, url))
            assert html.count(f'id="{place.anchor}"') == 1, (edition, rec.id)


def test_clause_page_shows_text_links_backlinks_variants_provenance(built):
    _, site = built
    html = page(site, "hans", "cbr1999/law-45")
    assert 'id="45C4b"' in html and "对疏忽指定的改正" in html
    # 45C4(b) cites 47E: a link to that anchor
    assert re.search(r'href="\.\./law-47/#47E"', html)
    # 47C cites 45C4(b): the backlink is shown on 45C4(b)'s page
    assert "被引用" in html and re.search(r'href="\.\./law-47/#47C"', html)
    assert "来" in html and "异文" in html              # 45D: 004 来 / 000 未
    hant = page(site, "hant", "cbr1999/law-45")
    assert "004：來" in hant and "異文" in hant         # the readings in the edition's script, like the text
    assert "出处：抄本 004 第 " in html and "004_5298a96e49a6c220.txt" in html
    # where the reading begins, in the witness's own words: a string to find in a file whose one
    # line holds many clauses (witness 000 has 10 lines, 002 one)
    # (the witness's own script, so Traditional here in the Simplified edition: said to be 原文)
    assert re.search(r"出处：抄本 000 第 9 行，原文「除明手外，其餘賽員打牌時…」", html)
    assert "脚注 [14]" in html


def test_a_law_only_the_other_translation_holds_links_there(built):
    """laws1997 cites 规则50, which it does not hold and cbr1999 (the same Laws, lettered alike)
    does: the reference links to cbr1999's Law 50 and says so; a law neither holds stays unlinked."""
    _, site = built
    html = page(site, "hans", "laws1997/law-45")
    assert re.search(r'<a href="\.\./\.\./cbr1999/law-50/#50" title="cbr1999:50 50（本译本未收此条，链接到另一译本）">'
                     r"规则50</a>", html)
    assert '<span class="kb-ref kb-external" title="本库未收此条">规则16</span>' in page(site, "hans", "laws1997/law-41")
    assert "連結到另一譯本" in page(site, "hant", "laws1997/law-45")


def test_lost_and_external_references_are_not_links(built):
    _, site = built
    html = page(site, "hans", "cbr1999/law-27")
    assert 'class="kb-ref kb-lost"' in html
    html41 = page(site, "hans", "cbr1999/law-41")
    assert re.search(r'<span class="kb-ref kb-external"[^>]*>第20条</span>', html41)


def test_traditional_edition_and_switch(built):
    _, site = built
    hant = page(site, "hant", "cbr1999/law-45")
    assert "對疏忽指定的改正" in hant and 'href="../../../hans/cbr1999/law-45/"' in hant.split("kb-hswitch")[1][:60]
    hans = page(site, "hans", "cbr1999/law-45")
    assert 'class="kb-switch-link kb-hswitch" href="../../../hant/cbr1999/law-45/"' in hans
    # one switch, in the header (in reach wherever the reader is on the page)
    assert hans.count("kb-switch-link") == 1 and 'class="kb-switch"' not in hans
    assert (site / "index.html").is_file()


def test_the_traditional_edition_writes_notes_and_link_titles_in_traditional(built):
    _, site = built
    law27 = page(site, "hant", "cbr1999/law-27")
    assert "編者據1997年規則補出" in law27 and "编者据1997年规则补出" not in law27
    assert "条号" not in law27 and "條號" in law27
    assert "编者据1997年规则补出" in page(site, "hans", "cbr1999/law-27")
    # a cross-reference's tooltip names its target in the edition's script
    titles = [t for p in (site / "hant" / "twmj16").rglob("index.html")
              for t in re.findall(r'<a href="[^"]*" title="(twmj16:[^"]*)"', p.read_text(encoding="utf-8"))]
    assert titles and not [t for t in titles if any(c in t for c in "计铳赔")], titles[:5]


def test_headings_permalinks_and_the_description_speak_the_editions_script(built):
    """No English tooltip on a heading's ¶ (Python-Markdown says "Permanent link"), and the page
    description a search engine or a shared link shows is in the edition's own script."""
    _, site = built
    for edition, title, description in (("hans", "本条链接", "中国桥牌竞赛规则"), ("hant", "本條連結", "中國橋牌競賽規則")):
        for url in ("cbr1999/law-45", "twmj16/patterns", "search"):
            html = page(site, edition, url)
            assert "Permanent link" not in html, (edition, url)
            assert re.search(rf'<meta name="description" content="{description}', html), (edition, url)
        assert f'title="{title}">¶' in page(site, edition, "cbr1999/law-45")


def test_compare_and_mahjong_pages(built):
    _, site = built
    cmp = page(site, "hans", "compare/law-45")
    assert "定约人" in cmp and "庄家" in cmp and 'id="45C4b"' in cmp
    table = page(site, "hans", "twmj16")
    for name in ("风字坎", "字一色", "呖咕呖咕"):
        assert name in table
    assert 'href="patterns/#patterns-13"' in table
    patterns = page(site, "hans", "twmj16/patterns")
    assert "算例" in patterns and "本库的读法" in patterns


def test_a_rule_books_pages_name_the_book(built):
    """The two translations share their laws' titles (45 牌张的打出): a law page names its book in the
    window's title and, printed, above its text; the header names it beside the page's title (short)
    for a book with a twin; a worked example's 依据 line is marked as such (its links are thumb-sized)."""
    import re
    _, site = built
    l97 = page(site, "hans", "laws1997/law-45")
    assert "<title>45 打出的牌张 · 1997 年桥牌规则（另一中译本） - 牌规知识库</title>" in l97
    assert '<p class="kb-book">1997 年桥牌规则（另一中译本）</p>' in l97
    assert '<span class="kb-book-short"> · 1997 另一译本</span>' in l97   # after the title: a phone cuts the end
    cbr = page(site, "hant", "cbr1999/law-45")
    assert "· 中國橋牌競賽規則（1999） - 牌規知識庫</title>" in cbr and " · 中國規則 1999</span>" in cbr
    mj = page(site, "hans", "twmj16/patterns")
    assert "· 台湾十六张麻将竞赛规则 - 牌规知识库</title>" in mj and "kb-book-short" not in mj
    assert re.search(r'<p class="kb-basis"><strong>依据</strong>', mj)
    assert "<title>牌规知识库</title>" in page(site, "hans", "")
    assert "<title>第45條對照 - 牌規知識庫</title>" in page(site, "hant", "compare/law-45")   # both books: the comparison
    assert "Made with" not in l97 and "Made with" not in page(site, "hant", "")   # no English in the footer


def test_previous_and_next_stay_within_the_book(built):
    """The foot of a page leads to the previous and next page of its own book or section: the last
    law of cbr1999 does not lead on to laws1997, nor a book's first page back to the search page."""
    import re
    _, site = built

    def foot(edition: str, url: str) -> dict[str, str]:
        return {side: href for href, side in re.findall(
            r'<a href="([^"]*)" class="md-footer__link md-footer__link--(prev|next)"', page(site, edition, url))}

    assert foot("hans", "cbr1999/law-27") == {"prev": "../law-26/", "next": "../law-28/"}
    assert foot("hans", "cbr1999/law-71") == {"prev": "../law-70/"}
    assert "prev" not in foot("hant", "cbr1999") and "prev" not in foot("hans", "twmj16")
    assert foot("hans", "compare/law-41")["prev"] == "../"
    assert "next" not in foot("hans", "compare/law-47") and foot("hans", "") == {}
    assert foot("hant", "laws1997/law-47") == {"prev": "../law-46/"}


def test_a_static_host_answers_a_missing_page_in_chinese(built):
    """/404.html (what static hosts give for an address with nothing behind it): in both scripts,
    with the way back to each edition; the address asked is read in the browser."""
    _, site = built
    text = (site / "404.html").read_text(encoding="utf-8")
    assert "找不到该页面 · 找不到該頁面" in text and 'href="/hans/"' in text and 'href="/hant/search/"' in text
    assert "location.pathname" in text


def test_worked_examples_on_rule_pages(built):
    _, site = built
    for law in (44, 46, 50, 51, 61, 62, 63, 64):
        assert "算例" in page(site, "hans", f"cbr1999/law-{law}"), law


def test_static_search_index_is_complete_and_checked(built, tmp_path):
    _, site = built
    from kb.site.static_search import INDEX_DIR, index_problems, read_chunk, term_hash
    assert index_problems(site) == []
    for edition in ("hans", "hant"):
        _, meta = read_chunk(next((site / edition / INDEX_DIR).glob("meta.*.js")))
        assert meta["script"] == edition and meta["count"] == len(meta["ids"]) > 400
        lex = meta["lexicon"]["shards"]
        for word in ("明手", "藏牌", "罚张", "定约人"):   # the search lexicon, sharded by first character
            _, words = read_chunk(site / edition / meta["files"][f"l{term_hash(word[0]) % lex}"])
            assert words[word] > 0, word
        assert meta["ranking"]["fusion"] == "sum" and meta["lexicon"]["total"] > 0
        _, shard = read_chunk(site / edition / meta["files"][f"p{term_hash('w:藏牌') % meta['shards']}"])
        docs, n = [], 0
        flat = shard["w"]["藏牌"]
        for k in range(0, len(flat), len(meta["ranking"]["wordFields"]) + 1):
            n += flat[k]
            docs.append(meta["ids"][n])
        assert "cbr1999:61A" in docs
    # the built-in lunr index is gone, and pages do not load any index
    assert not (site / "hans" / "search" / "search_index.json").exists()
    html = page(site, "hans", "cbr1999/law-45")
    assert "idx/" not in html and "kb-engine" not in html and "data-kb-hsearch" in html
    copy = tmp_path / "site"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("*.zip"))
    shard_file = next((copy / "hant" / INDEX_DIR).glob("p3.*.js"))
    shard_file.write_text(shard_file.read_text(encoding="utf-8").replace("0,", "1,", 1), encoding="utf-8")
    next((copy / "hans" / INDEX_DIR).glob("d0.*.js")).unlink()
    problems = index_problems(copy)
    assert any("hant" in p and "p3." in p and "hash" in p for p in problems), problems
    assert any("hans" in p and "d0." in p and "missing" in p for p in problems), problems


def test_assets_are_fingerprinted_and_the_service_worker_lists_the_edition(built):
    _, site = built
    html = page(site, "hans", "cbr1999/law-45")
    assets = re.findall(r'(?:href|src)="[./]*(assets/[^"]+\.(?:js|css))"', html)
    assert assets and all(re.search(r"\.[0-9a-f]{8,}\.(min\.)?(js|css)$", a) for a in assets), assets
    sw = (site / "hans" / "sw.js").read_text(encoding="utf-8")
    files = json.loads(re.search(r"var FILES = (\[.*?\]);", sw).group(1))
    assert "cbr1999/law-45/" in files and "./" in files and any(f.startswith("idx/meta.") for f in files)
    for f in files:
        path = "index.html" if f == "./" else f + "index.html" if f.endswith("/") else f
        assert (site / "hans" / path).is_file(), f
    assert not any(f.endswith(".map") for f in files)


def test_navigation_is_per_rule_book(built):
    """A law page lists its own book's laws; other books are one link each."""
    _, site = built
    html = page(site, "hans", "cbr1999/law-45")
    nav = html[html.index('md-nav--primary'):html.index('md-sidebar--secondary')]
    assert "law-71/" in nav and "laws1997/law-42/" not in nav and "twmj16/penalties/" not in nav
    assert re.search(r'kb-nav-book">\s*<a href="\.\./\.\./laws1997/"', nav)
    mj = page(site, "hans", "twmj16/patterns")
    nav = mj[mj.index('md-nav--primary'):mj.index('md-sidebar--secondary')]
    assert "penalties/" in nav and "law-45/" not in nav


def test_file_flavour_links_end_in_index_html():
    from kb.site.offline import file_html, file_url
    assert file_url("../law-47/#47E") == "../law-47/index.html#47E"
    assert file_url("..") == "../index.html" and file_url(".") == "./index.html"
    assert file_url("search/?q=x") == "search/index.html?q=x"
    for same in ("#45C4b", "https://example.org/a/", "assets/kb.1234567890.css", "mailto:a@b", ""):
        assert file_url(same) == same
    assert file_html('<a href="../x/">x</a><form action="search/">') == \
        '<a href="../x/index.html">x</a><form action="search/index.html">'
    # only whole attribute names: data_src or xhref are not links (a word character before the name)
    assert file_html('<img data_src="a/" xhref="b/" src="c/">') == '<img data_src="a/" xhref="b/" src="c/index.html">'
    assert file_html('href="a/"') == 'href="a/index.html"'


def test_offline_download_is_deflated_at_its_level(built):
    """Each entry at ZIP_LEVEL: zipfile would silently use zlib's default for a ZipInfo entry."""
    import zipfile
    import zlib

    from kb.site.offline import DOWNLOAD, ZIP_LEVEL
    _, site = built
    with zipfile.ZipFile(site / DOWNLOAD) as zf:
        infos = [i for i in zf.infolist() if i.file_size > 10_000][:5]
        assert infos
        for info in infos:
            packer = zlib.compressobj(ZIP_LEVEL, zlib.DEFLATED, -15)
            size = len(packer.compress(zf.read(info)) + packer.flush())
            assert info.compress_type == zipfile.ZIP_DEFLATED and info.compress_size == size, info.filename


def test_the_header_box_speaks_with_the_search_page_words_written_once(built):
    """The header search box's messages come from its form (data-msg-*), in the edition's script;
    what it shares with the search page is the search page's own wording."""
    _, site = built
    assets = (Path(__file__).resolve().parents[1] / "docs" / "assets" / "kb.js").read_text(encoding="utf-8")
    assert not re.search("[\u4e00-\u9fff]", assets.split("function header()")[1].split("function ")[0])
    for edition in ("hans", "hant"):
        law = page(site, edition, "cbr1999/law-45")
        form = re.search(r'<form class="kb-hsearch"[^>]*>', law).group(0)
        msgs = dict(re.findall(r'data-msg-([a-z0-9-]+)="([^"]*)"', form))
        search = page(site, edition, "search")
        shared = dict(re.findall(r'data-msg-([a-z-]+)="([^"]*)"', search.split('id="kb-search"')[1].split(">")[0]))
        assert {"searching", "twin", "more", "none"} <= set(msgs), msgs
        assert msgs["searching"] == shared["searching"] and msgs["twin"] == shared["twin"], edition
    assert "正在搜尋" in msgs["searching"] and msgs["more"] == "全部結果"


def test_theme_script_override_differs_from_the_theme_only_in_its_scope():
    """kb/site/theme/partials/javascripts/base.html is mkdocs-material's own, but for the scope of
    the reader's stored choices (both editions): a theme upgrade that changes the file fails here."""
    import material
    theirs = (Path(material.__file__).parent / "templates" / "partials" / "javascripts" / "base.html").read_text(encoding="utf-8")
    ours = (b.PACKAGE / "site" / "theme" / "partials" / "javascripts" / "base.html").read_text(encoding="utf-8")
    body = theirs.split("-#}\n", 1)[1]
    assert ours.split("-#}\n", 1)[1] == body.replace("d(base_url) }}", 'd(base_url ~ "/..") }}')
    assert ours != theirs


def test_service_worker_downloads_the_edition_unless_the_reader_saves_data(tmp_path):
    """sw.js's install, run in node with a stand-in Cache: every file is fetched, and then the marker
    that says so is kept, except when the browser says Save-Data, when nothing is fetched ahead
    (pages are kept as they are opened) and no marker claims the edition is kept."""
    from kb.site.offline import READY, SERVICE_WORKER
    node = shutil.which("node")
    assert node, "node is not installed (apt-get install nodejs)"
    sw = (SERVICE_WORKER.replace("__VERSION__", '"hans-x"').replace("__PREFIX__", '"kb-hans-"')
          .replace("__READY__", json.dumps(READY)).replace("__FILES__", '["./", "law-45/", "idx/meta.1.js"]')
          .replace("__OFFLINE__", "\"\""))
    script = tmp_path / "run.js"
    script.write_text("""
const saveData = process.argv[2] === "1", handlers = {}, fetched = [];
global.self = { navigator: { connection: { saveData } }, skipWaiting: () => Promise.resolve(),
  addEventListener: (name, fn) => { handlers[name] = fn; }, registration: { scope: "http://x/hans/" },
  clients: { claim: () => Promise.resolve() } };
global.caches = { open: () => Promise.resolve({ addAll: (files) => { fetched.push(...files); return Promise.resolve(); },
                                                put: (url) => { fetched.push("put " + url); return Promise.resolve(); } }),
  keys: () => Promise.resolve([]) };
""" + sw + """
let done;
handlers.install({ waitUntil: (p) => { done = p; } });
done.then(() => console.log(JSON.stringify(fetched)));
""", encoding="utf-8")
    got = {flag: json.loads(subprocess.run([node, str(script), flag], capture_output=True, text=True, check=True).stdout)
           for flag in ("0", "1")}
    assert got == {"0": ["./", "law-45/", "idx/meta.1.js", f"put http://x/hans/{READY}"], "1": []}


def test_mkdocs_failure_reports_mkdocs_own_line():
    from kb.site.build import mkdocs_error
    out = ("\x1b[33m  Warning from the Material for MkDocs team\x1b[0m\n"
           "  MkDocs 2.0 ...\n\x1b[90m  To disable this warning, set NO_MKDOCS_2_WARNING=1.\x1b[0m\n"
           "WARNING -  Doc file 'cbr1999/law-45.md' contains a link 'nowhere.md', but the target is not found.\n"
           "Aborted with 1 warnings in strict mode!\n")
    line = mkdocs_error(out)
    assert line.startswith("WARNING -  Doc file 'cbr1999/law-45.md'") and "\x1b" not in line


def reference_check(site: Path) -> list[str]:
    """The former link checker (html.parser, Path.resolve per link): the verdicts to match."""
    from html.parser import HTMLParser
    from urllib.parse import unquote, urlsplit

    class Page(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.ids: set[str] = set()
            self.links: list[str] = []

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if a.get("id"):
                self.ids.add(a["id"])
            if tag == "a" and a.get("name"):
                self.ids.add(a["name"])
            if tag in ("a", "link") and a.get("href"):
                self.links.append(a["href"])

    pages = {}
    for path in site.rglob("*.html"):
        parser = Page()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.resolve()] = parser
    broken = []
    for path, pg in sorted(pages.items()):
        for href in pg.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
                continue
            if parts.path.startswith("/"):
                target = (site / unquote(parts.path).lstrip("/")).resolve()
                if parts.path.endswith("/") or target.is_dir():
                    target = target / "index.html"
            elif parts.path:
                target = (path.parent / unquote(parts.path)).resolve()
                if parts.path.endswith("/") or target.is_dir():
                    target = target / "index.html"
            else:
                target = path
            rel = path.relative_to(site.resolve())
            if not str(target).startswith(str(site.resolve())):
                broken.append(f"{rel}: {href} (outside the site)")
                continue
            if not target.exists():
                broken.append(f"{rel}: {href} (no such page)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages.get(target).ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{rel}: {href} (no anchor #{unquote(parts.fragment)})")
    return broken


def test_link_checker_passes_and_fails_on_a_planted_broken_link(built, tmp_path):
    _, site = built
    assert check_site(site) == []
    copy = tmp_path / "site"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("*.zip", "idx", "*.map"))
    target = copy / "hans" / "cbr1999" / "law-45" / "index.html"
    html = target.read_text(encoding="utf-8")
    target.write_text(html.replace('href="../law-47/#47E"', 'href="../law-47/#47Z"', 1), encoding="utf-8")
    (copy / "hant" / "index.html").write_text('<a href="nowhere/">x</a>', encoding="utf-8")
    planted = copy / "hans" / "planted.html"
    planted.write_text(
        '<html><body><A NAME="top"></A><p id="a&amp;b">x</p>\n'
        "<a href='#top'>ok</a> <a href=\"#a&amp;b\">ok</a> <a href='#gone'>no anchor</a>\n"
        '<a href="cbr1999/law-45/#45C4b">ok</a> <a href="cbr1999/law-45/#45Q">no anchor</a>\n'
        '<a href="cbr1999/law-45">dir without slash</a> <a href="../../etc/">outside</a>\n'
        '<a href="/hans/cbr1999/law-99/">root-absolute, missing</a> <a href="/hans/">ok</a>\n'
        '<link rel="stylesheet" href="assets/missing.css"> <a href="%E4%B8%8D.html">quoted</a>\n'
        '<!-- <a href="commented/">x</a> --><script>var s = "<a href=\'script/\'>";</script>\n'
        '<a title="a > b" href="twmj16/#patterns-table">ok</a> <a href="twmj16/#nope" title=\'x\'>x</a>\n'
        '<a href="https://example.org/x/">external</a> <a href="mailto:x@y">mail</a> <a href="">empty</a>\n'
        "</body></html>", encoding="utf-8")
    broken = check_site(copy)
    assert any("#47Z" in line and "law-45" in line for line in broken)
    assert any("nowhere/" in line for line in broken)
    assert broken == reference_check(copy)
    assert len([b for b in broken if b.startswith("hans/planted.html")]) == 7, broken


def test_wrong_worked_example_fails_the_build(tmp_path, monkeypatch):
    from kb.rules.bridge import examples as bridge_examples
    from kb.site.examples_text import site_examples
    data = json.loads(bridge_examples.EXAMPLES_PATH.read_text(encoding="utf-8"))
    first = data[0] if isinstance(data, list) else data["examples"][0]
    wrong = json.loads(json.dumps(data))
    w0 = wrong[0] if isinstance(wrong, list) else wrong["examples"][0]
    key = next(iter(w0["expect"]))
    w0["expect"][key] = "不可能的结果"
    path = tmp_path / "bridge_examples.json"
    path.write_text(json.dumps(wrong, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(bridge_examples, "EXAMPLES_PATH", path)
    from kb.ingest.pipeline import ingest
    with pytest.raises(KbError, match=re.escape(first["title"][:10])):
        site_examples(ingest().records)


def test_kb_check_fails_on_a_planted_broken_reference(source_copy, tmp_path):
    text = source_copy.path("004").read_text(encoding="utf-8")
    planted = text.replace("此时应用第５５条。", "此时应用第１２０条。", 1)
    assert planted != text
    source_copy.write("004", planted.encode())
    shutil.copy2(DATA_DIR / "fingerprints.tsv", tmp_path / "fingerprints.tsv")
    env = {"KB_SOURCES_DIR": str(source_copy.folder), "KB_BUILD_DIR": str(tmp_path / "build"),
           "KB_FINGERPRINTS": str(tmp_path / "fingerprints.tsv")}
    import os
    # the changed text is accepted (else the build refuses it: tests/test_fingerprints.py), so kb check
    # reads the reference
    accept = subprocess.run([sys.executable, "-m", "kb.app.cli", "accept"], capture_output=True, text=True,
                            env={**os.environ, **env}, timeout=600)
    assert accept.returncode == 0 and "cbr1999:45E2" in accept.stdout, accept.stderr
    proc = subprocess.run([sys.executable, "-m", "kb.app.cli", "check"], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=600)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "cbr1999:45E2" in lines[0] and "第120条" in lines[0]


def test_a_mkdocs_warning_fails_the_build_with_mkdocs_own_line(built, tmp_path, monkeypatch):
    out, _ = built
    from kb.core.records import read_jsonl
    from kb.site import build as site_build
    root = tmp_path / "root"
    shutil.copytree(site_build.ROOT / "docs", root / "docs")
    shutil.copy2(site_build.ROOT / "mkdocs.yml", root / "mkdocs.yml")
    with (root / "docs" / "index.md").open("a", encoding="utf-8") as fh:
        fh.write("\n[坏链接](nowhere.md)\n")
    monkeypatch.setattr(site_build, "ROOT", root)
    with pytest.raises(KbError) as err:
        site_build.build_site(list(read_jsonl(out / "records.jsonl")), tmp_path / "work",
                                  index_dir=out / "index")
    message = str(err.value)
    assert "mkdocs build of the" in message and "'nowhere.md'" in message and "WARNING" in message
    assert "NO_MKDOCS_2_WARNING" not in message and "\x1b" not in message


def test_service_worker_version_follows_the_files(tmp_path):
    from kb.site.offline import finish_edition
    edition = tmp_path / "hans"
    (edition / "cbr1999" / "law-45").mkdir(parents=True)
    (edition / "index.html").write_text("home", encoding="utf-8")
    (edition / "cbr1999" / "law-45" / "index.html").write_text("45", encoding="utf-8")
    (edition / "x.js.map").write_text("map", encoding="utf-8")
    first = finish_edition(edition)
    sw = (edition / "sw.js").read_text(encoding="utf-8")
    assert f'"hans-{first}"' in sw and '["cbr1999/law-45/", "./"]' in sw
    assert finish_edition(edition) == first
    (edition / "cbr1999" / "law-45" / "index.html").write_text("45, corrected", encoding="utf-8")
    assert finish_edition(edition) != first


def test_example_html_reads_only_what_it_knows():
    from kb.site.example_html import example_html, inline
    url = {"law-64.md#64A1": "../law-64/#64A1"}.get
    block = ('!!! example "算例：甲"\n    **情形**　东家\\*出牌\n\n    **依据**　[64A1](law-64.md#64A1)\n\n'
             '    ??? abstract "牌例明细"\n        | 项目 | 内容 |\n        | --- | --- |\n        | 墩 | 第5墩 \\| 7 |\n')
    assert example_html(block, url) == (
        '<div class="admonition example">\n<p class="admonition-title">算例：甲</p>\n'
        '<p><strong>情形</strong>　东家*出牌</p>\n<p><strong>依据</strong>　<a href="../law-64/#64A1">64A1</a></p>\n'
        '<details class="abstract">\n<summary>牌例明细</summary>\n<table>\n<thead>\n<tr>\n<th>项目</th>\n'
        '<th>内容</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>墩</td>\n<td>第5墩 | 7</td>\n</tr>\n</tbody>\n'
        '</table>\n</details>\n</div>')
    # markup it does not read is left to Markdown
    for text in ("a *b* c", "a_b", "x <y>", "`code`", "a & b", "\\<", "a | b", "[x]"):
        assert inline(text, url) is None, text
    assert example_html("just text", url) is None
    assert example_html('!!! note "t"\n        indented code', url) is None


def test_record_bodies_written_as_html_are_what_markdown_makes(built):
    """The pages' record bodies go in as HTML (slots, kb/site/render.py) rather than through
    Markdown: for every page of both editions that HTML is Markdown's own rendering of the same
    records (links as mkdocs writes them), so the site reads the same either way."""
    import markdown
    import yaml

    from kb.core.records import read_jsonl
    from kb.site.examples_text import site_examples
    from kb.site.layout import Layout
    from kb.site.mkdocs_hooks import fill_slots
    from kb.site.render import Renderer, merge_slots, page_url
    out, _ = built
    records = list(read_jsonl(out / "records.jsonl"))
    layout = Layout(records)
    examples = site_examples(records)   # worked examples go in as HTML too (kb/site/example_html.py)
    config = yaml.safe_load((b.PACKAGE.parent / "mkdocs.yml").read_text(encoding="utf-8"))
    names = [e if isinstance(e, str) else next(iter(e)) for e in config["markdown_extensions"]]
    options = {next(iter(e)): next(iter(e.values())) for e in config["markdown_extensions"] if isinstance(e, dict)}
    md = markdown.Markdown(extensions=names, extension_configs=options)

    def convert(text: str) -> str:
        md.reset()
        return md.convert(text)

    as_html = in_markdown = shown = 0
    for script in ("hans", "hant"):
        pages = {page: (lambda r, page=page, recs=recs: "\n".join(r.record_block(rec, page) for rec in recs))
                 for page, recs in layout.pages.items()}
        pages.update({f"compare/law-{n}.md": (lambda r, n=n: r.compare_page(n)) for n in layout.compared})
        for page, make in pages.items():
            slots: dict[str, str] = {}
            via_markdown = re.sub(r'href="([^"#]+\.md(?:#[^"]*)?)"',
                                  lambda m, page=page: f'href="{page_url(page, m.group(1))}"',
                                  convert(make(Renderer(layout, script, examples))))
            with_slots = merge_slots(make(Renderer(layout, script, examples, slots=slots)), slots)
            assert fill_slots(convert(with_slots), slots) == via_markdown, (script, page)
            as_html += bool(slots)
            in_markdown += with_slots.count("!!! ")
            shown += via_markdown.count('<div class="admonition ')
    assert as_html > len(layout.pages)
    assert shown > 100 and in_markdown == 0     # every example block was written as HTML


def test_a_fragment_law_says_so_before_its_text(built):
    """Law 26 survives as half a sentence: the page says so above it, and why there is no more."""
    _, site = built
    html = page(site, "hans", "cbr1999/law-26")
    note = html.index("本条不全")
    assert note < html.index("得引牌权时") and "全文无从补出" in html[note:note + 300]
    assert "本條不全" in page(site, "hant", "cbr1999/law-26")


def test_the_traditional_edition_uses_taiwan_forms_in_the_theme(built):
    """mkdocs-material's zh-Hant strings have Mainland forms (頁脚, 閲讀); the hant edition uses its zh-TW ones."""
    _, site = built
    html = page(site, "hant", "cbr1999/law-45")
    assert 'aria-label="頁腳"' in html and "頁脚" not in html and 'lang="zh-Hant"' in html
    assert "跳至內容" in html and "跳轉" not in html                      # the skip link (trial 12)


def test_pages_with_restored_numbers_explain_the_brackets(built):
    """〔 〕 (a number the witness lost, restored by the editors) is explained on every page that has one."""
    _, site = built
    html = page(site, "hans", "cbr1999/law-27")
    assert "〔" in html and html.count("kb-legend") == 1 and "由编者补出" in html
    assert "kb-legend" not in page(site, "hans", "cbr1999/law-44")        # none there, no legend
    assert "由編者補出" in page(site, "hant", "cbr1999/law-27")
    # □ (a number lost beyond restoring) is explained with them where a page has one
    import re
    legend = re.findall(r'<p class="kb-footnote kb-legend">(.*?)</p>', html)
    assert legend[0].endswith("不作链接。□：所据抄本失去了此处的条款号，无从补出，不作链接。")
    assert re.findall(r'<p class="kb-footnote kb-legend">(.*?)</p>', page(site, "hans", "cbr1999/law-29")) == \
        ["〔 〕：所据抄本在此处缺字，由编者补出（依据见该款的“出处”）；带“？”的是推测，不作链接。"]


def test_the_traditional_edition_uses_taiwan_interface_wording(built):
    """Each row of kb/data/hant-ui-usage.tsv is used: its Taiwan form is on the hant site's pages
    and its s2tw form is not left in the site's own wording; the rules' text is not touched."""
    from kb.core.curated import read_table
    from kb.ingest.normalise import UI_USAGE
    _, site = built
    pages = [page(site, "hant", p) for p in ("", "cbr1999/law-45", "rules", "rules/bridge", "search", "guide")]
    text = "\n".join(pages)
    for row in read_table(UI_USAGE):
        assert row["usual_form"] in text, (row.where, row["usual_form"])
        assert row["s2tw_form"] not in text.replace(row["usual_form"], ""), (row.where, row["s2tw_form"])


def test_the_users_guide_is_in_both_editions_linked_from_home_and_nav(built):
    """docs/guide.md (written in Simplified) is a page of each edition, in its script and, in the
    Traditional one, Taiwan's words; the home page and every page's navigation link it."""
    _, site = built
    for edition, title, words, not_words in (
            ("hans", "使用指南", ("检索", "离线", "1997 年版", "对照页"), ("搜尋",)),
            ("hant", "使用指南", ("搜尋", "離線", "裝置", "列印", "1997 年版", "對照頁"), ("检索", "檢索", "設備", "打印"))):
        guide = page(site, edition, "guide")
        article = guide[guide.index("<article"):guide.index("</article>")]
        assert "<h1" in article and title in article
        for word in words:
            assert word in article, (edition, word)
        for word in not_words:
            assert word not in article, (edition, word)
        assert re.search(r'href="(\./)?guide/"', page(site, edition, "")), edition       # the home page
        law = page(site, edition, "cbr1999/law-45")
        nav = law[law.index("md-nav--primary"):law.index("md-sidebar--secondary")]
        assert 'href="../../guide/"' in nav, edition
        # the guide's own links reach the pages it describes (kb check holds every link)
        for target in ("search/?q=", "cbr1999/law-45/#45C4b", "compare/law-43/#43B2a", "rules/mahjong/",
                       "rules/bridge/", "cbr1999/subjects/"):
            assert f'href="../{target}' in article, (edition, target)


@pytest.mark.parametrize("worker", ["edition", "root"])
def test_a_page_not_kept_gets_a_page_that_says_so_when_the_network_fails(tmp_path, worker):
    """A venue's Wi-Fi without internet: the browser thinks it is online, the page is not in the
    cache and the fetch fails. The worker answers with a page saying so (503), not the browser's
    error page; a script or image that fails still fails."""
    from kb.site import offline
    node = shutil.which("node")
    assert node, "node is not installed (apt-get install nodejs)"
    if worker == "edition":
        sw = (offline.SERVICE_WORKER.replace("__VERSION__", '"hans-x"').replace("__PREFIX__", '"kb-hans-"')
              .replace("__READY__", json.dumps(offline.READY)).replace("__FILES__", "[]")
              .replace("__OFFLINE__", json.dumps(offline.offline_page("hans", "./"), ensure_ascii=False)))
        scope, page_url = "http://x/hans/", "http://x/hans/pdf/cbr1999-hans.pdf"
    else:
        sw = (offline.ROOT_WORKER.replace("__LANDING__", json.dumps(offline.LANDING, ensure_ascii=False))
              .replace("__OFFLINE__", json.dumps(offline.offline_page(None, "./"), ensure_ascii=False)))
        scope, page_url = "http://x/", "http://x/hant/cbr1999/law-27/"
    script = tmp_path / "run.js"
    script.write_text("""
const handlers = {};
global.self = { navigator: {}, skipWaiting: () => Promise.resolve(), addEventListener: (n, fn) => { handlers[n] = fn; },
  registration: { scope: SCOPE }, clients: { claim: () => Promise.resolve() } };
global.caches = { open: () => Promise.resolve({ match: () => Promise.resolve(undefined), put: () => Promise.resolve() }),
  keys: () => Promise.resolve([]) };
global.fetch = () => Promise.reject(new TypeError("Failed to fetch"));
""".replace("SCOPE", json.dumps(scope)) + sw + """
function ask(url, mode) {
  return new Promise((resolve) => {
    let answered = false;
    handlers.fetch({ request: { method: "GET", url, mode }, respondWith: (p) => { answered = true; p.then(
      (r) => r.text().then((t) => resolve({ status: r.status, text: t })), (e) => resolve({ error: String(e) })); } });
    if (!answered) resolve({ passed: true });         // left to the browser
  });
}
Promise.all([ask(PAGE, "navigate"), ask(ASSET, "no-cors")]).then((r) => console.log(JSON.stringify(r)));
""".replace("PAGE", json.dumps(page_url)).replace("ASSET", json.dumps(scope + "assets/x.js")), encoding="utf-8")
    page_, asset = json.loads(subprocess.run([node, str(script)], capture_output=True, text=True, check=True).stdout)
    assert page_["status"] == 503 and "这一页还没有存到这台设备上" in page_["text"]
    assert f'href="{scope}' in page_["text"] and 'href="./' not in page_["text"]
    if worker == "root":
        assert "這一頁還沒有存到這台裝置上" in page_["text"] and "hans/" in page_["text"] and "hant/" in page_["text"]
    assert "error" in asset or asset == {"passed": True}        # only pages are answered this way


def test_an_untitled_mahjong_item_is_headed_by_its_citation(built):
    """诈胡's numbered items are headed 诈胡 1, 诈胡 2 (a reader landing on one from a search or a
    被引用 link sees whose item it is), not a bare 1; titled items keep their number and title."""
    _, site = built
    for edition, head in (("hans", "诈胡"), ("hant", "詐胡")):
        text = page(site, edition, "twmj16/penalties")
        assert f'<h3 id="false-win-1">{head} 1<a class="headerlink"' in text, edition
    assert not re.search(r'<h[2-6] id="[^"]+">[0-9.]+<a class="headerlink"', page(site, "hans", "twmj16/procedure"))


def test_the_search_page_says_what_the_library_holds(built):
    """A question on a law the library lacks (Law 16) still finds loosely related clauses; the search
    page says, under its results, which laws each book holds and that the others are not searched."""
    out, site = built
    from kb.core import works
    from kb.core.records import read_jsonl
    held = works.holdings(list(read_jsonl(out / "records.jsonl")))
    assert "第27–71条" in held
    assert f'<p class="kb-search-coverage">{held}未收的条款检索不到：问到本库未收的规则' in page(site, "hans", "search")
    assert "检索会说明本库未收录" in page(site, "hans", "search")
    assert '<p class="kb-search-coverage">本庫收錄：中國橋牌競賽規則（1999）第27–71條' in page(site, "hant", "search")


def test_a_link_right_after_another_is_set_apart(built):
    """依牌面包赔 links 牌面 and 包赔, back to back: the second is marked, and set a little apart,
    so the two read as two links rather than one (a link after text is not marked)."""
    _, site = built
    text = page(site, "hans", "twmj16/penalties")
    assert '牌面</a><a class="kb-ref-next" href="#full-liability" title="twmj16:full-liability 包赔">包赔</a>' in text
    assert text.count('class="kb-ref-next"') == text.count('</a><a class="kb-ref-next"')


def test_a_compare_page_keeps_each_clauses_footnotes(built):
    """The 1999 translation puts the face-down opening lead of 45A in a footnote, the 1997 one in
    its text: the compare page shows the footnote in the 1999 column, or the 1999 text would seem
    to lack it."""
    _, site = built
    text = page(site, "hant", "compare/law-45")
    row = re.search(r'<h2 id="45A">.*?</h2>(.*?)<h2 ', text, re.S)
    assert row is not None
    assert '<p class="kb-footnote">腳註 [14]：首引應首先牌面向下放置' in row.group(1)


def test_a_mahjong_clause_names_what_cites_it(built):
    """In a sectioned book a citation is a number (计台名堂 18), so the 被引用 line names each
    citing clause by its title too; a clause cited by its own name (诈胡) is named once."""
    _, site = built
    text = page(site, "hans", "twmj16/patterns")
    assert re.search(r'<p class="kb-cited-by">被引用：.*>计台名堂 18 五暗坎</a>', text)
    labels = re.findall(r">([^<>]+)</a>", " ".join(re.findall(r'<p class="kb-cited-by">.*?</p>', text + page(
        site, "hans", "twmj16/penalties"))))
    assert "诈胡" in labels or any(label.startswith("计台名堂") for label in labels)
    assert not [label for label in labels if len(label.split()) == 2 and label.split()[0] == label.split()[1]]


def test_red_suits_are_marked_in_text_only():
    """♥ and ♦ of a page's text are marked for the style sheet; a tag, an attribute or a script is not touched."""
    from kb.site.mkdocs_hooks import red_suits
    html = ('<p data-x="♥K">北家♥K、东家♠3<a title="♦">♦A</a></p>'
            '<script>var s = "♥";</script><style>p::after { content: "♦"; }</style>♦')
    assert red_suits(html) == (
        '<p data-x="♥K">北家<span class="kb-suit-red">♥</span>K、东家♠3<a title="♦">'
        '<span class="kb-suit-red">♦</span>A</a></p>'
        '<script>var s = "♥";</script><style>p::after { content: "♦"; }</style><span class="kb-suit-red">♦</span>')
    assert red_suits("<p>无将</p>") == "<p>无将</p>"


def test_worked_examples_show_red_suits(built):
    """On a built law page every ♥ and ♦ a reader sees is marked (the style sheet colours them)."""
    from html.parser import HTMLParser
    _, site = built
    page = (site / "hans" / "cbr1999" / "law-44" / "index.html").read_text(encoding="utf-8")

    class Suits(HTMLParser):
        """Counts the suits of text that sits directly in a red mark, and the others."""
        bare = marked = 0
        last = ""

        def handle_starttag(self, tag, attrs):
            self.last = "red" if ("class", "kb-suit-red") in attrs else tag

        def handle_endtag(self, tag):
            self.last = ""

        def handle_data(self, data):
            n = sum(data.count(s) for s in "♥♦")
            if self.last == "red" and data in "♥♦":
                self.marked += n
            elif self.last not in ("script", "style"):
                self.bare += n

    p = Suits()
    p.feed(page)
    assert p.marked >= 10 and p.bare == 0, (p.marked, p.bare)


def test_the_comparison_pages_have_an_index(built):
    """/compare/ lists every law both translations hold, each linking its comparison page."""
    _, site = built
    for edition, word in (("hans", "第45条"), ("hant", "第45條")):
        html = page(site, edition, "compare")
        links = re.findall(r'<a href="(law-\d+/)">([^<]*)</a>', html)
        assert [h for h, _ in links] == [f"law-{n}/" for n in range(41, 48)], links
        assert any(text.startswith(word + " 牌") for h, text in links if h == "law-45/"), links


def test_the_site_and_the_index_are_built_from_the_records_file(session_build, tmp_path):
    """The records file is the contract: a record changed in the file, and nothing else, changes the
    pages that show it and what the index finds (kb.app.build.outputs reads the file as written).
    The change is an index term (the published text itself is pinned by kb/data/fingerprints.tsv)."""
    import json

    from kb.search.engine import SearchEngine
    gen = tmp_path / "gen"
    gen.mkdir()
    edited = []
    for line in (session_build / "records.jsonl").read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if obj["id"] == "cbr1999:45A":
            obj["subjects"] = [*obj["subjects"], "校验用独特词甲乙丙"]
        edited.append(json.dumps(obj, ensure_ascii=False))
    (gen / "records.jsonl").write_text("\n".join(edited) + "\n", encoding="utf-8")
    b.outputs(gen, tmp_path / "cache")
    index_page = gen / "site" / "hans" / "cbr1999" / "subjects" / "index.html"
    assert "校验用独特词甲乙丙" in index_page.read_text(encoding="utf-8")
    assert "校驗用獨特詞甲乙丙" in (gen / "site" / "hant" / "cbr1999" / "subjects" / "index.html").read_text(encoding="utf-8")
    assert "独特词甲乙丙" not in (session_build / "site" / "hans" / "cbr1999" / "subjects" / "index.html").read_text(encoding="utf-8")
    hits = SearchEngine.open(gen / "records.jsonl", gen / "index").search("校验用独特词甲乙丙", limit=3)
    assert hits and hits[0]["id"] == "cbr1999:45A"
