"""Reading at the table, in Chromium: the clause you came for, copy-citation, notes on tap,
compare labels and tables on a phone (axe-core: test_accessibility_browser.py).

Drives Debian's chromium (/usr/bin/chromium, or $KB_CHROMIUM) through Playwright, against the
built site on a plain static file server.
"""
from __future__ import annotations

import re

import pytest
from kbbrowser import DESKTOP, PHONE, new_page

TOP_OF = "id => document.getElementById(id).getBoundingClientRect().top"
HIGHLIGHTED = ("id => { const c = document.getElementById(id).closest('.kb-clause');"
               " return getComputedStyle(c).backgroundColor; }")


# pages whose book's menu is short (it does not scroll) and long pages far down which a clause lies
@pytest.mark.parametrize("path, anchor", [("hans/laws1997/law-47/", "47E2"), ("hant/twmj16/patterns/", "patterns-25"),
                                          ("hans/compare/law-45/", "45C4b"), ("hans/twmj16/penalties/", "dead-hand")])
def test_landing_on_a_clause_of_any_book_puts_it_at_the_top(browser, static_site, path, anchor):
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/{path}#{anchor}", wait_until="load")
    pg.wait_for_timeout(300)
    header = pg.evaluate("document.querySelector('.md-header').getBoundingClientRect().bottom")
    top = pg.evaluate(TOP_OF, anchor)
    assert header <= top <= header + 40, (path, anchor, header, top)
    # opening and closing the menu leaves the reader where they were
    y = pg.evaluate("window.scrollY")
    pg.click("label.md-header__button[for=__drawer]")
    pg.wait_for_timeout(400)
    pg.evaluate("document.getElementById('__drawer').click()")
    pg.wait_for_timeout(400)
    assert pg.evaluate("window.scrollY") == y
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_landing_on_a_clause_puts_it_at_the_top_highlighted(browser, static_site, device):
    context, pg, errors = new_page(browser, device)
    pg.goto(f"{static_site}/hans/cbr1999/law-67/#67B1b", wait_until="load")
    pg.wait_for_timeout(300)
    header = pg.evaluate("document.querySelector('.md-header').getBoundingClientRect().bottom")
    top = pg.evaluate(TOP_OF, "67B1b")
    assert header <= top <= header + 40, (header, top)            # just below the sticky header
    assert pg.evaluate(HIGHLIGHTED, "67B1b") not in ("rgba(0, 0, 0, 0)", "transparent")
    assert pg.evaluate(HIGHLIGHTED, "67B1a") in ("rgba(0, 0, 0, 0)", "transparent")
    # in-page navigation: the new target is highlighted and at the top, the old one no longer
    pg.evaluate("location.hash = '#67A1'")
    pg.wait_for_timeout(300)
    assert header <= pg.evaluate(TOP_OF, "67A1") <= header + 40
    assert pg.evaluate(HIGHLIGHTED, "67A1") not in ("rgba(0, 0, 0, 0)", "transparent")
    assert pg.evaluate(HIGHLIGHTED, "67B1b") in ("rgba(0, 0, 0, 0)", "transparent")
    context.close()
    assert not errors, errors


def test_a_jump_up_the_page_is_not_covered_by_the_back_to_top_button(browser, static_site):
    """43B2's 上述A款2 jumps up to 43A2: a scroll up, after which the theme shows its back-to-top
    button just below the header, over the clause landed on. It stays away until the reader
    scrolls; the law number stays in the header's page title, the book's short name after it."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/cbr1999/law-43/#43B2", wait_until="load")
    pg.wait_for_timeout(300)
    pg.locator('article a[href="#43A2"]', has_text="上述A款2").first.tap()
    pg.wait_for_timeout(800)
    assert pg.evaluate("location.hash") == "#43A2" and not pg.locator(".md-top").is_visible()
    topic = pg.locator("[data-md-component=header-topic]").inner_text()
    assert topic.startswith("43 明手的限制") and topic.endswith("中国规则 1999"), topic
    pg.mouse.wheel(0, -300)          # the reader's own scroll up: the button is back
    pg.wait_for_timeout(600)
    assert pg.locator(".md-top").is_visible()
    context.close()
    assert not errors, errors


def test_copy_citation_copies_the_citation_and_the_url(browser, static_site):
    context, pg, errors = new_page(browser, PHONE, permissions=["clipboard-read", "clipboard-write"])
    url = f"{static_site}/hans/cbr1999/law-67/"
    pg.goto(url + "#67B1b", wait_until="load")
    button = pg.locator('[id="67B1b"] .kb-cite-btn')
    box = button.bounding_box()
    assert box and box["width"] >= 44 and box["height"] >= 44, box     # sized for a thumb
    button.tap()
    pg.wait_for_function("document.querySelector('[id=\"67B1b\"] .kb-cite-btn').textContent === '已复制'")
    # the book, the clause and its address (the two translations letter their clauses alike)
    assert pg.evaluate("navigator.clipboard.readText()") == f"中国桥牌竞赛规则（1999） 67B1(b) {url}#67B1b"
    # every clause of the page has one
    assert pg.locator(".kb-clause .kb-cite-btn").count() == pg.locator(".kb-clause").count()
    context.close()
    assert not errors, errors


def test_copy_citation_without_the_clipboard_api(browser, static_site):
    """Over plain http on a local network there is no navigator.clipboard: the selection fallback copies."""
    context, pg, errors = new_page(browser, DESKTOP)
    pg.add_init_script("Object.defineProperty(window, 'isSecureContext', {value: false});"
                       "window.__copied = [];"
                       "document.execCommand = function (c) {"
                       " window.__copied.push(document.activeElement.value); return c === 'copy'; };")
    pg.goto(f"{static_site}/hant/cbr1999/law-45/", wait_until="load")
    pg.locator('[id="45C4b"] .kb-cite-btn').click()
    assert pg.evaluate("window.__copied") == [f"中國橋牌競賽規則（1999） 45C4(b) {static_site}/hant/cbr1999/law-45/#45C4b"]
    assert pg.locator('[id="45C4b"] .kb-cite-btn').text_content() == "已複製"
    context.close()
    assert not errors, errors


def test_notes_on_references_show_on_tap(browser, static_site):
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/cbr1999/law-41/", wait_until="load")
    ref = pg.locator(".kb-ref.kb-external").first
    ref.tap()
    note = pg.locator(".kb-ref-note").first
    assert note.is_visible() and "本库未收此条" in note.text_content()
    ref.tap()
    assert pg.locator(".kb-ref-note").count() == 0
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("edition, labels", [("hans", ("中国桥牌竞赛规则（1999）", "1997 年桥牌规则（另一中译本）")),
                                             ("hant", ("中國橋牌競賽規則（1999）", "1997 年橋牌規則（另一中譯本）"))])
def test_compare_labels_visible_on_a_phone(browser, static_site, edition, labels):
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/{edition}/compare/law-45/#45C4b", wait_until="load")
    pair = pg.locator('[id="45C4b"] + .kb-pair')
    shown = [t.strip() for t in pair.locator(".kb-pair-label").all_text_contents()]
    assert shown == list(labels)
    assert all(label.is_visible() for label in pair.locator(".kb-pair-label").all())
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("edition", ["hans", "hant"])
def test_the_script_switch_is_a_thumb_sized_target_on_a_phone(browser, static_site, edition):
    """繁/简 answers a tap anywhere in a 44 px square around its middle, and nothing else of the
    header is under that square."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/{edition}/cbr1999/law-45/", wait_until="load")
    box = pg.locator("a.kb-hswitch").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    hits = pg.evaluate("""([x, y]) => [-22, 0, 21].flatMap(dx => [-22, 0, 21].map(dy =>
        !!(document.elementFromPoint(x + dx, y + dy) || {closest: () => null}).closest('a.kb-hswitch')))""", [x, y])
    assert all(hits), hits
    context.close()
    assert not errors, errors


def test_the_compare_link_is_a_button_on_a_phone(browser, static_site):
    """A law page's way to its two translations side by side is a thumb-sized button, not a
    small line that reads as a breadcrumb."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/cbr1999/law-45/", wait_until="load")
    link = pg.locator("a.kb-compare-link")
    box = link.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
    assert pg.evaluate("getComputedStyle(document.querySelector('a.kb-compare-link')).textDecorationLine") == "none"
    link.click()
    pg.wait_for_url("**/hans/compare/law-45/")
    context.close()
    assert not errors, errors


def test_a_one_line_page_title_takes_one_line_on_a_phone(browser, static_site):
    """The title's ¶ (hover-only, and the page's address is its permalink anyway) no longer wraps
    onto a blank line of its own under a title that fills the width."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/compare/law-45/", wait_until="load")
    lines = pg.evaluate("""() => { const h = document.querySelector('article h1');
        return h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight); }""")
    assert lines < 1.5, lines
    context.close()
    assert not errors, errors


def test_the_mahjong_table_fits_a_phone(browser, static_site):
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/twmj16/", wait_until="load")
    width = pg.evaluate("document.documentElement.clientWidth")
    assert pg.evaluate("document.documentElement.scrollWidth") <= width
    right = pg.evaluate("Math.max(...[...document.querySelectorAll('article table td, article table th')]"
                        ".map(c => c.getBoundingClientRect().right))")
    assert right <= width, (right, width)                      # no column cut off
    context.close()
    assert not errors, errors


def test_all_results_stays_in_reach_in_the_header_box_on_a_phone(browser, static_site):
    """The header box's 全部结果 is at the top of its panel and stays there as the list scrolls
    (the phone's keyboard covers the bottom of the screen)."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/cbr1999/law-45/", wait_until="load")
    pg.click(".kb-hsearch-open")
    pg.fill(".kb-hsearch-input", "清一色几台")
    pg.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    panel, more = pg.locator(".kb-hsearch-panel"), pg.locator(".kb-hsearch-more")
    for scroll in (0, 400):
        panel.evaluate(f"p => {{ p.scrollTop = {scroll}; }}")
        top, link = panel.bounding_box(), more.bounding_box()
        assert top and link and link["y"] - top["y"] < 40 and more.is_visible(), (scroll, top, link)
    assert pg.evaluate("document.querySelector('.kb-hsearch-panel').scrollTop") > 0   # the list did scroll
    context.close()
    assert not errors, errors


def test_a_tap_anywhere_on_a_result_opens_its_clause(browser, static_site):
    """A thumb need not hit the citation: a tap on a result's text opens its clause, a tap on the
    twin's citation opens the twin."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/cbr1999/law-62/", wait_until="load")
    pg.click(".kb-hsearch-open")
    pg.fill(".kb-hsearch-input", "dummy leaves the table")
    pg.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    first = pg.locator(".kb-hsearch-panel li.kb-result").first
    want = first.locator(".kb-result-head a.kb-result-cite").get_attribute("href")
    assert want and "#" in want
    box = first.locator(".kb-result-snippet").bounding_box()
    assert box
    pg.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)   # the text, not the link
    pg.wait_for_url(re.compile(re.escape(want.split("/#")[1]) + "$"))
    assert pg.url.endswith("#" + want.split("#")[1])
    pg.goto(f"{static_site}/hans/cbr1999/law-62/", wait_until="load")
    pg.click(".kb-hsearch-open")
    pg.fill(".kb-hsearch-input", "明手离座")
    pg.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    twin = pg.locator(".kb-hsearch-panel .kb-result-twin a.kb-result-cite").first
    href = twin.get_attribute("href")
    assert href and "laws1997" in href
    box = twin.bounding_box()
    assert box and box["height"] >= 40 and box["width"] >= 40      # a thumb's target, not a 15 px word
    pg.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    pg.wait_for_url(re.compile(".*laws1997.*#.+"))
    context.close()
    assert not errors, errors


def test_back_from_a_result_brings_the_question_back(browser, static_site):
    """A director opens one candidate clause, goes Back, and finds the question and its results
    waiting in the header box; a page reached otherwise starts with an empty box."""
    context, pg, errors = new_page(browser, PHONE)
    start = f"{static_site}/hans/cbr1999/law-62/"
    pg.goto(start, wait_until="load")
    pg.click(".kb-hsearch-open")
    pg.fill(".kb-hsearch-input", "defender dropped a card")
    pg.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    pg.locator(".kb-hsearch-panel a.kb-result-cite").first.click()
    pg.wait_for_url(re.compile(".*#.+"))
    assert not pg.url.startswith(start)
    pg.go_back(wait_until="load")
    pg.wait_for_selector(".kb-hsearch ol[data-kb-state=done]", state="attached")
    assert pg.input_value(".kb-hsearch-input") == "defender dropped a card"
    assert pg.locator(".kb-hsearch-panel").is_visible() and pg.locator(".kb-hsearch-panel li.kb-result").count()
    # the reopened box can be closed with one tap, and the page is there again
    pg.tap(".kb-hsearch-close")
    assert pg.locator(".kb-hsearch-panel").is_hidden() and pg.locator(".kb-hsearch-close").is_hidden()
    assert pg.locator(".kb-hsearch-open").is_visible()
    pg.goto(start, wait_until="load")          # not Back: nothing reopens
    assert pg.input_value(".kb-hsearch-input") == "" and pg.locator(".kb-hsearch-panel").is_hidden()
    context.close()
    assert not errors, errors


def test_the_search_page_on_a_phone_puts_results_under_the_form(browser, static_site):
    """With a question, a phone hides the page's introduction; without one, it is there to read."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/search/", wait_until="load")
    assert pg.locator(".kb-search-intro").is_visible()
    pg.fill("#kb-q", "藏牌")
    pg.press("#kb-q", "Enter")
    pg.wait_for_selector("#kb-results[data-kb-state=done]")
    assert pg.locator(".kb-search-intro").is_hidden()
    first = pg.locator("#kb-results li").first.bounding_box()
    assert first and first["y"] < 844 * 0.6, first                 # the first result in the upper part
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("device", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_menu_opens_at_the_law_being_read(browser, static_site, device):
    """Law 63 is far down its book's menu: the menu shows it without scrolling (a phone's drawer
    when it opens; a desktop's sidebar on load)."""
    context, pg, errors = new_page(browser, device)
    pg.goto(f"{static_site}/hans/cbr1999/law-63/", wait_until="load")
    if device is PHONE:
        pg.click("label.md-header__button[for=__drawer]")
        pg.wait_for_timeout(400)                       # the drawer slides in
    active = pg.locator(".md-sidebar--primary .md-nav--primary .md-nav__link--active >> visible=true").first
    box = active.bounding_box()
    height = pg.evaluate("window.innerHeight")
    assert box and 0 < box["y"] < height - box["height"], (box, height)
    assert active.inner_text().strip().startswith("63")
    context.close()
    assert not errors, errors


def test_a_one_character_reference_is_a_thumb_sized_target(browser, static_site):
    """43B1's 上述A款1、2: the "2" is one character wide; a tap a little past it still follows it."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/hans/cbr1999/law-43/#43B1", wait_until="load")
    link = pg.locator('.kb-clause p a[href="#43A2"]', has_text=re.compile(r"^2$")).first
    box = link.bounding_box()
    assert box and box["width"] < 12
    for dx, dy in ((box["width"] + 4, box["height"] / 2), (-4, box["height"] / 2), (box["width"] / 2, box["height"] + 3)):
        hit = pg.evaluate("([x, y]) => { const a = document.elementFromPoint(x, y).closest('a');"
                          " return a ? a.getAttribute('href') : null; }", [box["x"] + dx, box["y"] + dy])
        assert hit == "#43A2", (dx, dy, hit)
    context.close()
    assert not errors, errors


TARGETS = """() => [...document.querySelectorAll('.md-content a[href], .md-content button, .md-content summary')]
  .filter(a => { const r = a.getBoundingClientRect(); return r.width && r.height && getComputedStyle(a).visibility !== 'hidden'; })
  .map(a => { const r = a.getBoundingClientRect(), st = getComputedStyle(a), after = getComputedStyle(a, '::after');
    const inline = st.display === 'inline';
    const reach = inline && after.content !== 'none' && after.position === 'absolute' ? -parseFloat(after.top) : 0;
    return {text: a.textContent.trim().slice(0, 12), w: r.width, h: r.height, inline, reach}; })"""


@pytest.mark.parametrize("path", ["hans/search/?q=明手", "hans/twmj16/", "hant/twmj16/patterns/", "hans/cbr1999/law-64/",
                                  "hans/rules/", "hant/"])
def test_every_target_is_24_px_on_a_phone_and_a_link_in_text_reaches_past_its_line(browser, static_site, path):
    """WCAG 2.2's 24 px: every link, button and summary of the page's content on a phone is at least
    24 px each way; a link in running text (exempt from that rule) keeps its line and reaches at
    least 0.25 em above and below it for a thumb."""
    context, pg, errors = new_page(browser, PHONE)
    pg.goto(f"{static_site}/{path}", wait_until="load")
    pg.wait_for_timeout(300)
    small = [t for t in pg.evaluate(TARGETS)
             if (t["inline"] and t["reach"] < 4) or (not t["inline"] and (t["w"] < 24 or t["h"] < 24))]
    context.close()
    assert not errors, errors
    assert not small, small[:5]
