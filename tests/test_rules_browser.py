"""The rules calculators in headless Chromium on a phone viewport (390×844), against `kb serve` and a static host."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from kbbrowser import PHONE, new_page

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).absolute()
SITE = BUILD.parent / "site"
HAND = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p", "6p", "7p", "8p", "5s", "5s"]


@pytest.fixture
def page(browser):
    context, pg, errors = new_page(browser, PHONE)
    yield pg
    context.close()
    assert not errors, errors


def pick_hand(page) -> None:
    for code in HAND:
        page.tap(f'button.kb-tile[data-code="{code}"]')
    page.select_option('select[data-pay="how"]', "自摸")
    page.select_option('select[data-pay="dealer"]', "对家")


@pytest.mark.parametrize("host", ["kb serve", "static"])
@pytest.mark.parametrize("script, total, name", [("hans", "合计：4台", "门清"), ("hant", "合計：4台", "門清")])
def test_mahjong_calculator_on_a_phone(request, page, host, script, total, name, tmp_path):
    """Under kb serve the API answers; on a static host (and offline) the page scores the hand itself."""
    server = request.getfixturevalue("server" if host == "kb serve" else "static_site")
    page.goto(f"{server}/{script}/rules/mahjong/")
    pick_hand(page)
    assert "17/17" in page.inner_text(".kb-hand-view")            # the hand as tiles, counted
    assert ("西" if script == "hans" else "西") in page.inner_text(".kb-seat")   # 对家 deals: the winner sits 西
    assert ("一万 二万 三万" if script == "hans" else "一萬 二萬 三萬") in page.inner_text(".kb-hand-view")
    if host == "static":
        page.context.set_offline(True)
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-items tr")
    rows = page.locator(".kb-items tr")
    assert rows.count() >= 2
    assert total in page.inner_text(".kb-out") and name in page.inner_text(".kb-items")
    pays = page.locator(".kb-pay li").all_inner_texts()
    assert len(pays) == 3 and sum("1底 5台" in x for x in pays) == 1   # the dealer (对家) pays 4 + 作庄 1
    link = page.locator(".kb-items a.kb-clause").first
    href = link.get_attribute("href")
    assert href and "twmj16/patterns/#patterns-" in href
    page.screenshot(path=str(Path(os.environ.get("KB_SHOTS", tmp_path)) / f"mj-{script}.png"), full_page=True)
    page.context.set_offline(False)
    link.tap()
    page.wait_for_url(re.compile(r"/twmj16/patterns/#patterns-\d+"))
    # nothing wider than the phone
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]


@pytest.mark.parametrize("host", ["kb serve", "static"])
def test_mahjong_calculator_error_is_one_line_in_chinese(request, page, host):
    server = request.getfixturevalue("server" if host == "kb serve" else "static_site")
    page.goto(f"{server}/hans/rules/mahjong/")
    page.fill("#kb-mj-line", "123m")
    assert "3/17" in page.inner_text(".kb-hand-view")
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-error")
    text = page.inner_text(".kb-error")
    assert "牌数不对" in text and "wrong" not in text
    # a meld of the wrong shape is told in words, without the API's field names
    page.fill("#kb-mj-line", "11111m")
    assert "一万已有 5 张" in page.inner_text(".kb-hand-view")
    page.fill("#kb-mj-line", "123m456p789s55s 碰123s")
    page.tap('[data-act="go"]')
    page.locator(".kb-error", has_text="碰须为").wait_for()
    text = page.inner_text(".kb-error")
    assert "碰须为三张相同的牌（收到 一索 二索 三索）" in text and "hand" not in text and "melds" not in text


def test_bridge_helper(server, page):
    page.goto(f"{server}/hans/rules/bridge/")
    page.select_option("#kb-br-q", "revoke-established")
    page.fill("#kb-br-in", '{"revoke_trick": 12, "offender": "E", "events": [], "illegal_inquiry": true}')
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-explanation")
    assert "64B6" in page.inner_text(".kb-explanation")
    assert page.locator(".kb-basis a.kb-clause", has_text="64B6").get_attribute("href").endswith("law-64/#64B6")


def test_static_host_bridge_helper_says_so_at_once(static_site, page):
    page.goto(f"{static_site}/hans/rules/bridge/")
    page.wait_for_selector(".kb-offline")
    assert "静态网页" in page.inner_text(".kb-offline")


def test_catalogue_page_lists_every_ruling():
    text = (SITE / "hans" / "rules" / "index.html").read_text(encoding="utf-8")
    for command in ("kb bridge insufficient-bid", "kb bridge defective-trick", "kb mahjong settle"):
        assert command in text
    assert "kb bridge insufficient-bid" in (SITE / "hant" / "rules" / "index.html").read_text(encoding="utf-8")
