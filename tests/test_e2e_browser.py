"""The search page in headless Chromium, against a real `kb serve` on 127.0.0.1.

Needs Debian's chromium (/usr/bin/chromium; scripts/test installs it) and the playwright
Python package, driving that chromium (playwright's own browser downloads are never used).
"""
from __future__ import annotations

import json
import os
import re
import sys
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from kbbrowser import kb_serve, no_browser

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).absolute()
SITE = BUILD.parent / "site"
TIMEOUT_MS = 15_000


WHY = no_browser()


@pytest.fixture(autouse=True)
def _a_browser_is_installed() -> None:
    """A missing browser fails every test here (never a silent skip)."""
    if WHY:
        pytest.fail(WHY)


def query_of(url: str) -> dict[str, list[str]]:
    """A page URL's query parameters (waited on from Python: kb serve's CSP forbids eval in the page)."""
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read().decode("utf-8"))


# A page runs without the site's service worker unless its test is marked service_worker (one
# about offline use or the worker itself): the worker's first-visit download of the whole edition
# (292 files, 7.5 MB) in every fresh context cost each test seconds of CPU, and on a loaded machine
# held a navigation back past the timeout.

@pytest.fixture
def page(browser, request):
    allowed = request.node.get_closest_marker("service_worker") is not None
    context = browser.new_context(locale="zh-TW", service_workers="allow" if allowed else "block")
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    yield pg
    context.close()
    assert not errors, errors


def expected_first(server: str, q: str, script: str) -> dict:
    qs = urllib.parse.urlencode({"q": q, "script": script, "limit": 20})
    results = get_json(f"{server}/api/search?{qs}")["results"]  # type: ignore[index]
    assert results, q
    return results[0]  # type: ignore[no-any-return]


@pytest.mark.parametrize("q", ["藏牌", "罰張"])
def test_type_search_click_lands_on_the_clause(server, page, q):
    first = expected_first(server, q, "hant")
    page.goto(f"{server}/hant/search/")
    page.fill("#kb-q", q)
    page.press("#kb-q", "Enter")
    link = page.locator("#kb-results li a.kb-result-cite").first
    link.wait_for()
    assert link.inner_text() == first["citation"]
    assert page.locator("#kb-results li").count() >= 1
    assert page.locator("#kb-results li").first.locator("mark").count() >= 1
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)["q"] == [q]
    link.click()
    page.wait_for_url(re.compile(r".*#.+"))
    path, anchor = first["url"].split("#")
    assert urllib.parse.urlsplit(page.url).path == f"/hant/{path}"
    assert page.evaluate("location.hash") == f"#{anchor}"
    assert page.evaluate("id => !!document.getElementById(id)", anchor)


def test_typing_alone_searches(server, page):
    page.goto(f"{server}/hans/search/")
    page.locator("#kb-q").press_sequentially("明手建议", delay=30)
    page.wait_for_selector("#kb-results[data-kb-state=done]")
    assert page.input_value("#kb-q") == "明手建议"
    assert page.locator("#kb-results li").count() >= 1
    page.wait_for_url(lambda url: query_of(url).get("q") == ["明手建议"])


def test_shared_url_runs_the_search(server, page):
    q = "第64条B款"
    page.goto(f"{server}/hans/search/?" + urllib.parse.urlencode({"q": q, "work": "cbr1999"}))
    link = page.locator("#kb-results li a.kb-result-cite").first
    link.wait_for()
    assert link.inner_text() == "64B"
    assert page.input_value("#kb-q") == q and page.input_value("#kb-work") == "cbr1999"
    # q stays in the URL (no built-in search dialog takes it away).
    page.wait_for_url(lambda url: "q" in query_of(url))
    assert page.locator("[data-md-component=search]").count() == 0
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert params == {"q": [q], "work": ["cbr1999"]}
    works = page.locator("#kb-results .kb-result-work").all_inner_texts()
    assert works and set(works) == {"中国桥牌竞赛规则（1999）"}


def test_work_filter_changes_results_and_url(server, page):
    page.goto(f"{server}/hans/search/?q=%E7%8A%AF%E8%A7%84")  # 犯规
    page.locator("#kb-results li").first.wait_for()
    page.select_option("#kb-work", "twmj16")
    page.wait_for_url(lambda url: query_of(url).get("work") == ["twmj16"])
    page.wait_for_selector("#kb-results[data-kb-state=done]")
    hrefs = page.locator("#kb-results a.kb-result-cite").evaluate_all("els => els.map(e => e.href)")
    assert hrefs and all("/hans/twmj16/" in h for h in hrefs)


def test_typed_html_is_shown_as_text(server, page):
    q = '<img src=x onerror="window.__xss=1">藏牌<script>window.__xss=2</script>'
    page.goto(f"{server}/hans/search/")
    page.fill("#kb-q", q)
    page.press("#kb-q", "Enter")
    page.wait_for_selector("#kb-results[data-kb-state=done], #kb-results[data-kb-state=error]", state="attached")
    assert page.evaluate("window.__xss") is None
    assert page.locator("#kb-search img, #kb-search script").count() == 0
    assert q in page.inner_text("#kb-status")
    tags = page.locator("#kb-results .kb-result-snippet *").evaluate_all("els => els.map(e => e.tagName)")
    assert set(tags) <= {"MARK"}


def test_header_box_under_kb_serve_gives_the_api_ranking(server, page):
    page.set_viewport_size({"width": 1280, "height": 900})
    expected = [r["id"] for r in get_json(f"{server}/api/search?" + urllib.parse.urlencode(
        {"q": "明手建议", "limit": 8, "script": "hans"}))["results"]]  # type: ignore[index]
    page.goto(f"{server}/hans/cbr1999/law-43/")
    page.fill(".kb-hsearch-input", "明手建议")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    got = page.locator(".kb-hsearch [data-kb-id]").evaluate_all("els => els.map(e => e.dataset.kbId)")
    assert got == expected


def test_api_failure_falls_back_to_the_static_index(server, page):
    page.route("**/api/search?*", lambda route: route.abort())
    page.goto(f"{server}/hans/search/?q=%E6%98%8E%E6%89%8B")  # 明手
    page.wait_for_selector("#kb-results[data-kb-state=done]")
    assert page.locator("#kb-results [data-kb-id]").count() >= 3


def test_a_stalled_api_gives_way_to_the_static_index(server, page):
    """A venue network that never answers /api/search: the header says it is searching, and after
    the page's wait the site's own engine answers (kb.js API_WAIT_MS)."""
    page.route("**/api/search?*", lambda route: None)          # never answered
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}/hans/cbr1999/law-61/")
    page.evaluate("sessionStorage.clear()")
    page.fill(".kb-hsearch-input", "藏牌")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=searching]", state="attached")
    assert "正在检索" in page.inner_text(".kb-hsearch-status")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached", timeout=10_000)
    assert page.locator(".kb-hsearch [data-kb-id]").count() >= 3
    assert page.inner_text(".kb-hsearch-status").strip() == ""


def test_api_and_static_index_agree_on_first_results(server, page):
    """The page asks the API under kb serve and its own engine elsewhere: same first answers."""
    for q in ("藏牌", "第64条B款", "字一色", "明手建议"):
        first = expected_first(server, q, "hans")
        page.goto(f"{server}/hans/search/?" + urllib.parse.urlencode({"q": q}))
        page.wait_for_selector("#kb-results[data-kb-state=done]")
        assert page.locator("#kb-results [data-kb-id]").first.get_attribute("data-kb-id") == first["id"], q
    page.route("**/api/search?*", lambda route: route.abort())
    page.evaluate("sessionStorage.clear()")
    for q in ("藏牌", "第64条B款", "字一色", "明手建议"):
        first = expected_first(server, q, "hans")
        page.goto(f"{server}/hans/search/?" + urllib.parse.urlencode({"q": q}))
        page.wait_for_selector("#kb-results[data-kb-state=done]")
        assert page.locator("#kb-results [data-kb-id]").first.get_attribute("data-kb-id") == first["id"], q


def test_concurrent_requests_agree(server):
    queries = ["藏牌", "罰張", "明手建议", "第64条B款", "字一色", "越序首引", "诈胡", "防守人"]
    expected = {q: get_json(f"{server}/api/search?" + urllib.parse.urlencode({"q": q, "limit": 20}))
                for q in queries}

    def one(i: int) -> bool:  # every (q, limit) is new to the server: no cached answers
        q, limit = queries[i % len(queries)], 1 + i // len(queries)
        got = get_json(f"{server}/api/search?" + urllib.parse.urlencode({"q": q, "limit": limit}))
        return got == {"results": expected[q]["results"][:limit], "not_held": None}  # type: ignore[index]

    with ThreadPoolExecutor(16) as pool:
        assert all(pool.map(one, range(len(queries) * 20)))


def test_worker_processes_give_the_same_answers(server):
    queries = ["藏牌", "罰張", "第64条B款", "字一色"]
    expected = {q: get_json(f"{server}/api/search?" + urllib.parse.urlencode({"q": q})) for q in queries}
    with kb_serve(BUILD, "--workers", "2", "--cache-size", "0") as url:
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda q: get_json(f"{url}/api/search?" + urllib.parse.urlencode({"q": q})),
                                queries * 8))
    assert got == [expected[q] for q in queries * 8]


# --- the site's own search without the API, offline, from disk; the weight of a page ----------------

STATIC_TOP3 = {
    "第64条": {"cbr1999:64"},
    "64A2": {"cbr1999:64A2"},
    "罚张": {"cbr1999:45C5", "laws1997:45C5", "cbr1999:50", "cbr1999:50A"},
    "明手指出藏牌": {"cbr1999:43A1b", "laws1997:43A1b"},
    "連莊拉莊": {"twmj16:patterns.10"},
}


def top_ids(page, scope: str = "#kb-results") -> list[str]:
    page.wait_for_selector(f"{scope}[data-kb-results][data-kb-state=done]", state="attached")
    return page.locator(f"{scope} [data-kb-id]").evaluate_all("els => els.map(e => e.dataset.kbId)")


@pytest.mark.parametrize("q", list(STATIC_TOP3))
def test_static_hosting_search_page_finds_the_clause(static_site, page, q):
    page.goto(f"{static_site}/hans/search/?" + urllib.parse.urlencode({"q": q}))
    ids = top_ids(page)
    assert STATIC_TOP3[q] & set(ids[:3]), (q, ids[:5])
    first = page.locator("#kb-results a.kb-result-cite").first
    assert first.get_attribute("href").startswith(f"{static_site}/hans/") and "#" in first.get_attribute("href")
    assert page.locator("#kb-results .kb-result-snippet").count() >= 1
    assert "出处" not in page.inner_text("#kb-results")          # clause text, not provenance


def test_a_sub_clause_result_reads_with_the_clause_it_stands_under(static_site, page):
    """64B6 (在第十二墩的藏牌。) is one of the cases 64B does not penalise: its result says so, with
    64B's lead-in, in the Traditional edition's script; a law's own clauses name the law."""
    page.goto(f"{static_site}/hant/search/?" + urllib.parse.urlencode({"q": "64B6"}))
    assert top_ids(page)[0] == "cbr1999:64B6"
    under = page.locator("#kb-results li.kb-result").first.locator(".kb-result-under")
    assert under.inner_text().startswith("64B 不判罰") and under.inner_text().endswith("但不判罰：")
    assert under.evaluate("(p, s) => p.previousElementSibling.className", None) == "kb-result-head"
    # a section whose title begins with its citation is named once (计台名堂、台数与定义, not 计台名堂 计台名堂、…)
    page.goto(f"{static_site}/hans/search/?" + urllib.parse.urlencode({"q": "计台名堂 23"}))
    assert top_ids(page)[0] == "twmj16:patterns.23"
    cite = page.locator("#kb-results li.kb-result").first.locator(".kb-result-under-cite").inner_text()
    assert cite == "计台名堂、台数与定义", cite


def test_static_hosting_header_box_on_a_law_page(static_site, page):
    page.set_viewport_size({"width": 1280, "height": 900})
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{static_site}/hant/cbr1999/law-61/")
    page.wait_for_load_state("load")
    assert not [u for u in requested if "/idx/" in u or "kb-engine" in u], "index fetched before any search"
    page.fill(".kb-hsearch-input", "罰張")
    ids = top_ids(page, ".kb-hsearch ol")
    assert STATIC_TOP3["罚张"] & set(ids[:3]), ids[:5]
    assert any("/idx/meta." in u for u in requested) and any("/idx/p" in u for u in requested)
    shards = [u for u in requested if re.search(r"/idx/p\d+\.", u)]
    total = len(list((SITE / "hant" / "idx").glob("p*.js")))
    assert 0 < len(shards) <= total // 2, "a query loads only the shards of its terms"
    page.press(".kb-hsearch-input", "Enter")
    page.wait_for_url(re.compile(r".*/hant/search/\?q="), wait_until="commit")   # the results are waited for below
    assert STATIC_TOP3["罚张"] & set(top_ids(page)[:3])
    assert not [u for u in requested if "/api/" in u], "a static host was asked for the API"


def test_the_arrow_keys_walk_the_header_results(static_site, page):
    """On a laptop: ↓ from the box to the first result and on, ↑ back into the box, Enter opens."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{static_site}/hans/cbr1999/law-45/")
    page.fill(".kb-hsearch-input", "藏牌的成立")
    ids = top_ids(page, ".kb-hsearch ol")
    focused = "() => document.activeElement.getAttribute('data-kb-id') || document.activeElement.className"
    page.keyboard.press("ArrowDown")
    assert page.evaluate(focused) == ids[0]
    page.keyboard.press("ArrowDown")
    assert page.evaluate(focused) == ids[1]
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert "kb-hsearch-input" in page.evaluate(focused)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    anchor = ids[0].split(":")[1]
    page.wait_for_url(re.compile(rf".*#{anchor}$"))


def test_the_header_box_leads_with_the_book_being_read(static_site, page):
    """On a page of the other translation, its clause leads a clause and its twin, in the header
    box and on the search page it opens."""
    page.goto(f"{static_site}/hans/laws1997/law-47/")
    page.fill(".kb-hsearch-input", "规则47E2")
    assert top_ids(page, ".kb-hsearch ol")[0] == "laws1997:47E2"
    page.press(".kb-hsearch-input", "Enter")
    # (the search page may rewrite its address once it has read it: the order of its parameters is no matter)
    page.wait_for_url(re.compile(r".*/hans/search/\?(?=.*\bq=)(?=.*\blead=laws1997\b)"), wait_until="commit")
    assert top_ids(page)[0] == "laws1997:47E2"
    page.goto(f"{static_site}/hans/cbr1999/law-47/")
    page.fill(".kb-hsearch-input", "规则47E2")
    assert top_ids(page, ".kb-hsearch ol")[0] == "cbr1999:47E2"


def test_the_script_switch_keeps_the_question_and_the_anchor(static_site, page):
    """简体/繁體 on the search page opens the same search in the other script; on a clause page,
    the same clause."""
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("罚张") + "&work=cbr1999")
    first = top_ids(page)[:3]
    page.click("a.kb-switch-link")
    page.wait_for_url(re.compile(r".*/hant/search/\?q=%E7%BD%9A%E5%BC%A0&work=cbr1999$"))
    assert top_ids(page)[:3] == first
    assert page.input_value("#kb-q") == "罚张"
    page.goto(f"{static_site}/hans/cbr1999/law-45/#45C4b")
    page.click("a.kb-switch-link")
    page.wait_for_url(re.compile(r".*/hant/cbr1999/law-45/#45C4b$"))
    # read on from there (or from the top of the page): the switch opens the clause being read
    page.evaluate("document.getElementById('45F').scrollIntoView()")
    page.evaluate("window.scrollBy(0, 10)")
    page.click("a.kb-switch-link")
    page.wait_for_url(re.compile(r".*/hans/cbr1999/law-45/#45F$"))
    page.goto(f"{static_site}/hans/cbr1999/law-47/")
    page.click("a.kb-switch-link")
    page.wait_for_url(re.compile(r".*/hant/cbr1999/law-47/$"))
    # a heading clause landed on, with its first clause just under it, is the one kept
    for path, anchor in (("cbr1999/law-45/", "45C4"), ("cbr1999/law-45/", "45C"), ("compare/law-47/", "47E2")):
        page.goto(f"{static_site}/hans/{path}#{anchor}")
        page.wait_for_timeout(100)
        page.click("a.kb-switch-link")
        page.wait_for_url(re.compile(rf".*/hant/{path}#{anchor}$"))


def test_the_contents_list_marks_the_clause_landed_on(static_site, page):
    """On a desktop, the theme's contents list beside the text marks the clause the link opened,
    not the one before it."""
    for path, anchor in (("cbr1999/law-47/", "47E"), ("cbr1999/law-64/", "64B6"), ("laws1997/law-45/", "45C4")):
        page.goto(f"{static_site}/hans/{path}#{anchor}")
        page.wait_for_function("() => document.querySelector('.md-nav--secondary .md-nav__link--active')")
        page.wait_for_timeout(300)
        href = page.eval_on_selector(".md-nav--secondary .md-nav__link--active", "a => a.getAttribute('href')")
        assert href == f"#{anchor}", (path, anchor, href)


def test_a_result_cited_by_its_title_shows_it_once(static_site, page):
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("诈胡"))
    assert top_ids(page)[0] == "twmj16:false-win"
    head = page.locator("#kb-results .kb-result-head").first
    assert head.locator(".kb-result-cite").inner_text() == "诈胡" and head.locator(".kb-result-title").count() == 0


def test_print_view_has_no_links_to_other_pages(static_site, page):
    """Printed, a law page is the law: no switch, no link to the comparison page."""
    page.goto(f"{static_site}/hans/cbr1999/law-45/")
    compare = page.locator("a[href*='compare/law-45']")
    assert compare.count() == 1 and compare.is_visible()
    book = page.locator(".kb-book")
    assert book.is_hidden()                 # the header names the book on screen
    page.emulate_media(media="print")
    assert compare.is_hidden() and page.locator("a.kb-switch-link").is_hidden()
    assert book.is_visible() and book.inner_text() == "中国桥牌竞赛规则（1999）"
    # a clause's citation once, in its heading, not again in the margin
    assert page.evaluate("getComputedStyle(document.querySelector('.kb-clause[data-cite]'), '::before').content") == "none"


def test_the_search_page_says_when_there_are_more_and_shows_them(static_site, page):
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("明手"))
    first = top_ids(page)
    assert len(first) == 20 and "前 20 条结果" in page.inner_text("#kb-status")
    page.click("#kb-more")
    page.wait_for_function("document.querySelectorAll('#kb-results > li').length > 20")
    page.wait_for_selector("#kb-results[data-kb-state=done]")
    more = top_ids(page)
    assert len(more) == 40 and more[:20] == first
    # a new question starts again at one page
    page.fill("#kb-q", "字一色")
    page.press("#kb-q", "Enter")
    page.wait_for_function("document.querySelectorAll('#kb-results > li').length < 20")
    assert "前" not in page.inner_text("#kb-status") and page.locator("#kb-more").is_hidden()


def test_a_conjectured_number_explains_itself_when_tapped(static_site, page):
    page.goto(f"{static_site}/hans/cbr1999/law-31/")
    ref = page.locator(".kb-clause[data-cite='31B'] .kb-ref.kb-conjecture").first
    assert "推测" in ref.get_attribute("title") and ref.evaluate("e => e.tagName") == "SPAN"
    ref.click()
    assert "推测" in page.locator(".kb-clause[data-cite='31B'] .kb-ref-note").first.inner_text()


def test_the_colour_scheme_chosen_in_one_edition_holds_in_the_other(static_site, page):
    scheme = "() => document.body.getAttribute('data-md-color-scheme')"
    page.goto(f"{static_site}/hans/cbr1999/law-45/")
    assert page.evaluate(scheme) == "default"
    page.evaluate("() => document.querySelector('input[data-md-color-scheme=slate]').click()")
    page.wait_for_function(f"() => ({scheme[6:]}) === 'slate'")
    page.goto(f"{static_site}/hant/compare/law-45/")
    assert page.evaluate(scheme) == "slate"


def test_zero_results_finish_too(static_site, page):
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("qwxzv 龘"))
    assert top_ids(page) == []
    assert "没有找到" in page.inner_text("#kb-status")


def test_nothing_found_says_which_laws_are_here(static_site, page):
    """第16条 is not in these books: both search boxes say which laws are, in the edition's script."""
    page.goto(f"{static_site}/hant/search/?q=" + urllib.parse.quote("第16條"))
    assert top_ids(page) == []
    status = page.inner_text("#kb-status")
    assert "沒有找到" in status and "本庫收錄：中國橋牌競賽規則（1999）第27–71條，另有第26條的殘句；" in status
    assert "範圍" not in status          # no scope was set: no advice to widen it
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("第16条") + "&work=twmj16")
    assert top_ids(page) == [] and "去掉范围限制" in page.inner_text("#kb-status")
    page.goto(f"{static_site}/hans/cbr1999/law-45/")
    page.fill(".kb-hsearch-input", "Law 16")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    status = page.inner_text(".kb-hsearch-status")
    assert status.startswith("没有找到相关条款。本库收录：中国桥牌竞赛规则（1999）第27–71条，另有第26条的残句；1997 年桥牌规则")


def test_results_with_restored_or_lost_numbers_say_what_the_marks_mean(static_site, page):
    """〔 〕 and □ in a result read like a fault at the table: under results that show them, what
    they mean (as under a law page's clauses), in the edition's script; none under results without."""
    page.goto(f"{static_site}/hant/search/?q=" + urllib.parse.quote("越序不叫"))
    assert top_ids(page)
    legend = page.inner_text("#kb-search .kb-legend")
    assert legend.startswith("〔 〕：所據抄本在此處缺字，由編者補出") and "□：所據抄本失去了此處的條款號" in legend
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("明手"))
    assert top_ids(page) and page.locator("#kb-search .kb-legend").is_hidden()
    page.goto(f"{static_site}/hans/cbr1999/law-45/")
    page.fill(".kb-hsearch-input", "越序不叫")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    assert "由编者补出" in page.inner_text(".kb-hsearch-panel .kb-legend")


def test_a_question_about_a_law_not_held_says_so_with_its_results(static_site, page):
    """Hesitation is Law 16's, not held: the results (the nearest clauses held) come with a notice
    that says so, in the edition's script, in both search boxes; a mahjong question has none."""
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("同伴想了很久才不叫，我还能加叫吗"))
    assert top_ids(page)
    assert page.inner_text("#kb-status .kb-outside") == \
        "此问可能涉及桥牌规则第16条（非法信息），本库未收录；下列是本库所收最接近的条款，未必适用。"
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("藏牌转移几墩"))
    assert top_ids(page) and page.locator("#kb-status .kb-outside").count() == 0
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("犹豫了才喊碰") + "&work=twmj16")
    assert top_ids(page) and page.locator("#kb-status .kb-outside").count() == 0
    page.goto(f"{static_site}/hant/cbr1999/law-45/")
    page.fill(".kb-hsearch-input", "旁觀者講話怎麼辦")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    assert "可能涉及橋牌規則第76條（旁觀者），本庫未收錄" in page.inner_text(".kb-hsearch-status .kb-outside")
    # a question nothing held matches (a dealing machine: Law 6's matter) gets the note, no results
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("电脑发牌机"))
    assert top_ids(page) == []
    assert page.inner_text("#kb-status .kb-outside") == \
        "此问可能涉及桥牌规则第6条（洗牌与发牌），本库未收录；本库所收的条款中没有与此问相符的。"


def test_a_2017_citation_shows_its_clause_with_the_line_in_both_boxes(static_site, page):
    """Issue 36 item 4: 2017 27B1(b) is mapped by no clause, 27B is: the search page leads with 27B, the
    line under it as on its page, and the note; the header box of a Traditional page reads 新規則 27B."""
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("2017 27B1b"))
    assert top_ids(page)[0] == "cbr1999:27B"
    first = page.locator("#kb-results li.kb-result").first
    assert first.locator(".kb-result-in-force").inner_text() == "⚠ 2017 版：27B，规定有实质变化"
    assert "kb-in-force-changed" in first.locator(".kb-result-in-force").get_attribute("class")
    assert page.inner_text("#kb-status .kb-outside") == \
        "本库所收的 1997 年版条款中没有直接对应「2017 版 27B1(b)」的；下列是对应「2017 版 27B」的条款。"
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("27B1b"))       # the book's own 27B1(b)
    assert top_ids(page)[0] == "cbr1999:27B1b" and page.locator("#kb-results .kb-result-in-force").count() == 0
    page.goto(f"{static_site}/hant/cbr1999/law-45/")
    page.fill(".kb-hsearch-input", "新規則 27B")
    assert top_ids(page, ".kb-hsearch ol")[0] == "cbr1999:27B"
    assert page.locator(".kb-hsearch ol .kb-result-in-force").first.inner_text() == "⚠ 2017 版：27B，規定有實質變化"
    page.goto(f"{static_site}/hans/search/?q=" + urllib.parse.quote("2017版99条"))
    assert top_ids(page) == []
    assert page.inner_text("#kb-status .kb-outside").startswith("「2017版99条」不是 2017 年版规则的条款号")


def test_the_api_answer_carries_the_2017_line_to_the_boxes(server, page):
    page.goto(f"{server}/hans/search/?q=" + urllib.parse.quote("2017版27条"))
    assert top_ids(page)[0] == "cbr1999:27"
    assert page.locator("#kb-results .kb-result-in-force").first.inner_text() == "⚠ 2017 版：27，其下有规定变化"
    page.goto(f"{server}/hans/twmj16/")
    page.fill(".kb-hsearch-input", "2017 56")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    assert page.inner_text(".kb-hsearch-status .kb-outside").startswith(
        "本库所收的 1997 年版条款中没有对应「2017 版第56条」的")


def test_the_api_answer_carries_the_note_to_both_boxes(server, page):
    """Under kb serve the boxes show the API's answer: its note too (riichi mahjong is not here)."""
    page.goto(f"{server}/hans/search/?q=" + urllib.parse.quote("日本麻将立直的规则"))
    assert top_ids(page) == []
    assert page.inner_text("#kb-status .kb-outside").startswith("此问可能涉及日本麻将（立直麻将），本库未收录")
    page.goto(f"{server}/hans/twmj16/")
    page.fill(".kb-hsearch-input", "比赛用的屏风")
    page.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    assert page.inner_text(".kb-hsearch-status .kb-outside").startswith("此问可能涉及屏风（由主办单位规定）")


# The page is controlled by its edition's worker (which has cached the edition when it takes
# control), not by the site root's (which only answers for the root page).
EDITION_WORKER = ("navigator.serviceWorker.controller !== null && navigator.serviceWorker.controller.scriptURL"
                  ".endsWith('/' + location.pathname.split('/')[1] + '/sw.js')")


def test_offline_after_one_visit(static_site, browser):
    context = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{static_site}/hans/cbr1999/")
        page.wait_for_function(EDITION_WORKER, timeout=60_000)
        # the reader is told, once, that the edition is now kept on this device
        page.locator(".kb-notice", has_text="这台设备已存下本版").wait_for()
        # it never takes a tap meant for what lies beneath it, and goes at the reader's next key or tap
        assert page.locator(".kb-notice").evaluate("e => getComputedStyle(e).pointerEvents") == "none"
        page.keyboard.press("Shift")
        page.locator(".kb-notice").wait_for(state="detached", timeout=1000)
        # the print edition's link tells its size (a PDF is not part of the offline cache)
        page.locator('a[type="application/pdf"]', has_text="MB").wait_for()
        # the whole edition is cached once the worker is active and controls the page
        context.set_offline(True)
        page.goto(f"{static_site}/hans/cbr1999/")
        page.click('a[type="application/pdf"]')
        page.wait_for_selector(".kb-notice")
        assert "离线时打不开打印版" in page.inner_text(".kb-notice") and page.url.endswith("/hans/cbr1999/")
        page.goto(f"{static_site}/hans/cbr1999/law-62/")         # never visited
        assert page.locator("[id='62A']").count() == 1
        page.goto(f"{static_site}/hans/")                        # the home page says so too
        page.locator(".kb-offline-state", has_text="这台设备已存下本版").wait_for()
        page.goto(f"{static_site}/hans/cbr1999/law-62/")
        page.click(".kb-hsearch-open")
        page.fill(".kb-hsearch-input", "明手指出藏牌")
        assert STATIC_TOP3["明手指出藏牌"] & set(top_ids(page, ".kb-hsearch ol")[:3])
        page.goto(f"{static_site}/hans/search/?q=64A2")
        assert top_ids(page)[0] == "cbr1999:64A2"
        # the Traditional edition was never opened on this device: the switch says so and stays
        page.goto(f"{static_site}/hans/cbr1999/law-62/")
        page.click("a.kb-hswitch")
        page.wait_for_selector(".kb-notice")
        assert "离线时打不开繁体版" in page.inner_text(".kb-notice")
        assert page.url.endswith("/hans/cbr1999/law-62/")
        # once it was opened online, the switch opens it offline too
        context.set_offline(False)
        page.goto(f"{static_site}/hant/cbr1999/law-45/")
        page.wait_for_function(EDITION_WORKER, timeout=60_000)
        context.set_offline(True)
        page.goto(f"{static_site}/hans/cbr1999/law-62/#62A")
        page.click("a.kb-hswitch")
        page.wait_for_url(re.compile(r".*/hant/cbr1999/law-62/#62A$"))
        assert page.locator("[id='62A']").count() == 1
        # the site's root opens offline too, at the edition this device read last
        page.goto(f"{static_site}/")
        page.wait_for_url(re.compile(r".*/hant/$"))
        assert page.locator("h1").count() >= 1
    finally:
        context.close()


def test_file_download_opens_from_disk(browser, tmp_path):
    import zipfile
    with zipfile.ZipFile(SITE / "paigui-kb-offline.zip") as zf:
        zf.extractall(tmp_path)
    root = tmp_path / "paigui-kb"
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto((root / "hans" / "cbr1999" / "law-45" / "index.html").as_uri() + "#45C4b")
        assert page.locator("[id='45C4b']").count() == 1
        page.locator("a[href='../law-47/index.html#47E']").first.click()
        page.wait_for_url(re.compile(r".*/law-47/index\.html#47E$"))
        page.fill(".kb-hsearch-input", "64A2")
        assert top_ids(page, ".kb-hsearch ol")[0] == "cbr1999:64A2"
        page.locator(".kb-hsearch [data-kb-id='cbr1999:64A2']").click()
        page.wait_for_url(re.compile(r"^file:.*/law-64/index\.html#64A2$"))
        page.goto((root / "index.html").as_uri())
        page.wait_for_url(re.compile(r".*/(hans|hant)/index\.html$"))
    finally:
        context.close()
    assert not errors, errors


def test_the_site_opened_from_disk_follows_its_links_to_pages(browser):
    """The built site itself opened from disk (file://, not the offline zip): a link to a page opens
    the page, not the browser's listing of its folder (kb.js points folder links at index.html)."""
    context = browser.new_context(locale="zh-CN", viewport={"width": 412, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto((SITE / "hans" / "cbr1999" / "index.html").resolve().as_uri())
        page.locator(".md-content a[href$='law-45/index.html']").first.click()
        page.wait_for_url(re.compile(r"^file:.*/cbr1999/law-45/index\.html$"))
        assert page.locator("[id='45C4b']").count() == 1
        page.locator(".md-content a[href*='law-47/index.html#']").first.click()
        page.wait_for_url(re.compile(r"^file:.*/law-47/index\.html#47[A-Z]"))
    finally:
        context.close()
    assert not errors, errors


def test_cold_law_page_on_a_phone_is_light(browser):
    sys.path.insert(0, str(ROOT / "bench"))
    from page_weight import measure, serve
    with serve(SITE, compress=True) as base:
        got = measure(browser, base, "hans", "cbr1999/law-45/")
    cold_bytes, cold_requests = got["cold"]
    assert cold_bytes <= 200 * 1024, got
    assert got["warm"][0] < cold_bytes / 3, got


def test_typed_html_is_text_in_the_static_engine_too(static_site, page):
    # tag words no clause holds outweigh 藏牌: nothing held matches, and the note (text) says so
    q = "<img src=x onerror=window.__xss=1>藏牌<script>window.__xss=2</script>"
    page.goto(f"{static_site}/hans/search/")
    page.fill("#kb-q", q)
    page.press("#kb-q", "Enter")
    assert top_ids(page) == []
    assert page.evaluate("window.__xss") is None
    assert page.locator("#kb-search img, #kb-search script").count() == 0
    assert q in page.inner_text("#kb-status") and "没有与此问相符的" in page.inner_text("#kb-status .kb-outside")
    q = "<b onclick=window.__xss=3>藏牌</b> 明手 罚张<script>window.__xss=4</script>"
    page.fill("#kb-q", q)
    page.press("#kb-q", "Enter")
    assert top_ids(page)
    assert page.evaluate("window.__xss") is None
    assert page.locator("#kb-search img, #kb-search script, #kb-status b").count() == 0
    tags = page.locator("#kb-results .kb-result-snippet *").evaluate_all("els => els.map(e => e.tagName)")
    assert set(tags) == {"MARK"}


def test_header_result_on_this_page_closes_the_panel(static_site, page):
    """On a phone, tapping a result on the page being read scrolls to the clause and the panel
    goes away (it covered the clause); each result says which rule book it is from."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{static_site}/hans/cbr1999/law-64/")
    page.click(".kb-hsearch-open")
    page.fill(".kb-hsearch-input", "64A2")
    assert top_ids(page, ".kb-hsearch ol")[0] == "cbr1999:64A2"
    assert "中国桥牌竞赛规则" in page.locator(".kb-hsearch .kb-result-work").first.inner_text()
    page.locator(".kb-hsearch [data-kb-id='cbr1999:64A2']").click()
    page.wait_for_function("() => location.hash === '#64A2'")
    assert page.locator(".kb-hsearch-panel").is_hidden()
    box = page.locator("[id='64A2']").bounding_box()
    assert box is not None and 0 <= box["y"] < 844


def test_subject_index_letter_bar_marks_the_letter_being_read(static_site, page):
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{static_site}/hans/cbr1999/subjects/#letter-L")
    page.wait_for_function("() => document.querySelector('.kb-letters a[aria-current]') !== null")
    current = page.locator(".kb-letters a[aria-current]")
    assert current.count() == 1 and current.inner_text() == "L"
    box, bar = current.bounding_box(), page.locator(".kb-letters").bounding_box()
    assert box and bar and bar["x"] <= box["x"] and box["x"] + box["width"] <= bar["x"] + bar["width"] + 1   # in view
    page.evaluate("() => document.getElementById('letter-Z').scrollIntoView()")
    page.wait_for_function("() => document.querySelector('.kb-letters a[aria-current]').textContent === 'Z'")
    # the bar is one row that scrolls sideways: its edge fades on the side where more letters wait
    page.wait_for_function("() => document.querySelector('.kb-letters').classList.contains('kb-more-left')")
    assert "kb-more-right" not in page.get_attribute(".kb-letters", "class")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate("() => { document.querySelector('.kb-letters').scrollLeft = 0; }")
    page.wait_for_function("() => document.querySelector('.kb-letters').classList.contains('kb-more-right')")
    assert "kb-more-left" not in page.get_attribute(".kb-letters", "class")


def test_search_that_cannot_load_its_index_says_why_in_chinese(static_site, browser):
    """A device that never kept the edition (no service worker here), now offline: the header box
    and the search page say in words why nothing can be searched, not a URL that failed."""
    context = browser.new_context(locale="zh-CN", viewport={"width": 390, "height": 844}, service_workers="block")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{static_site}/hans/cbr1999/law-45/")
        context.set_offline(True)
        page.click(".kb-hsearch-open")
        page.fill(".kb-hsearch-input", "藏牌")
        page.wait_for_selector(".kb-hsearch ol[data-kb-state=error]", state="attached")
        status = page.inner_text(".kb-hsearch-status")
        assert "检索索引没能载入" in status and "http" not in status and "cannot" not in status
    finally:
        context.close()
