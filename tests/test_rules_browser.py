"""The rules calculators in headless Chromium on a phone viewport (390×844), against `kb serve` and a static host."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from kbbrowser import PHONE, new_page

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).absolute()
SITE = BUILD.parent / "site"      # the session build's site: a test reading it asks for session_build
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
    page.tap('button.kb-tile[data-code="1m"]')
    # each tap shows where it went: the count and the hand stay in the window over the keypad
    count = page.locator(".kb-hand-count").bounding_box()
    assert count and 0 <= count["y"] and count["y"] + count["height"] <= PHONE["viewport"]["height"]
    assert "1/17" in page.inner_text(".kb-hand-count")
    page.tap('[data-act="back"]')
    assert "0/17" in page.inner_text(".kb-hand-count")
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
    # and the total says so: a director reading 合计 alone would undercharge the dealer
    assert ("对家付 5台" if script == "hans" else "對家付 5台") in page.inner_text(".kb-total")
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
    page.click(".kb-br-json summary")          # the JSON box, behind one line under the form
    page.fill("#kb-br-in", '{"revoke_trick": 12, "offender": "E", "events": [], "illegal_inquiry": true}')
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-explanation")
    assert "64B6" in page.inner_text(".kb-explanation")
    assert page.locator(".kb-basis a.kb-clause", has_text="64B6").get_attribute("href").endswith("law-64/#64B6")
    # the JSON's fields are told in words, with the values each takes: dummy's rights by what he did
    page.select_option("#kb-br-q", "dummy-rights")
    page.click(".kb-fields summary")
    assert page.locator(".kb-fields dt").first.inner_text() == "action　明手的行为"
    assert "call_director（在打牌过程中主动召请裁判）" in page.locator(".kb-fields dd").first.inner_text()
    page.fill("#kb-br-in", '{"action": "call_director", "attention_drawn": true}')
    page.tap('[data-act="go"]')
    page.locator(".kb-explanation", has_text="明手可以召请裁判").wait_for()


def test_bridge_helper_form(server, page):
    """Under kb serve a question is asked as a form, one control per field, each by its words:
    every worked example loaded into it reads back as the same input, a situation entered by
    hand gets the ruling the rules code gives, and an error names the field in words."""
    import json

    from kb.rules.bridge.registry import BY_COMMAND, call
    page.goto(f"{server}/hans/rules/bridge/")
    worked = json.loads(page.get_attribute("#kb-br", "data-worked"))
    forms = json.loads(page.get_attribute("#kb-br", "data-form"))
    read = page.evaluate("""() => {
      const q = document.getElementById("kb-br-q"), box = document.querySelector(".kb-br-form"), out = {};
      for (const o of q.options) {
        q.value = o.value; q.dispatchEvent(new Event("change"));
        out[o.value] = [...document.querySelectorAll(".kb-worked-case")].map(b => {
          b.click(); box.dispatchEvent(new Event("change"));       // the form, read back into the JSON box
          return JSON.parse(document.getElementById("kb-br-in").value);
        });
      }
      return out;
    }""")
    assert sum(len(v) for v in read.values()) == sum(len(v) for v in worked.values()) > 100
    for command, examples in worked.items():
        fields = {f["name"]: f for f in forms[command]}
        def meant(data: dict, fields: dict = fields) -> dict:   # a field at its default means what leaving it out means
            return {k: v for k, v in data.items() if not (fields[k]["optional"] and v == fields[k]["default"])}
        for ex, back in zip(examples, read[command]):
            assert meant(back) == meant(ex["input"]), (command, ex["title"])
    # a lead out of turn entered by hand: lists for the seats, a box for the card, a box for the flag;
    # the form starts empty (a worked example's facts left in it would change the ruling unseen)
    page.select_option("#kb-br-q", "lead-out-of-turn")
    assert json.loads(page.input_value("#kb-br-in")) == {} and page.input_value("#kb-br-f-leader") == ""
    assert not page.is_checked("#kb-br-f-opening_lead")
    assert page.locator("label[for=kb-br-f-leader]").inner_text() == "越序引牌者"
    assert "如 KH，也可写 ♥K 或 红心K" in page.locator(".kb-br-field", has=page.locator("#kb-br-f-card")).inner_text()
    page.select_option("#kb-br-f-declarer", "S")
    page.select_option("#kb-br-f-correct_leader", "W")
    page.select_option("#kb-br-f-leader", "E")
    page.fill("#kb-br-f-card", "♦4")
    page.check("#kb-br-f-opening_lead")
    page.select_option("#kb-br-f-choice", "withdraw")
    page.select_option("#kb-br-f-played_by", "")
    page.uncheck("#kb-br-f-declarer_may_have_seen_dummy")
    entered = {"leader": "E", "correct_leader": "W", "declarer": "S", "card": "♦4", "opening_lead": True,
               "choice": "withdraw"}
    assert json.loads(page.input_value("#kb-br-in")) == entered
    page.tap('[data-act="go"]')
    want = call(BY_COMMAND["lead-out-of-turn"].name, entered).explanation
    page.locator(".kb-explanation", has_text=want[:20]).wait_for()
    assert page.inner_text(".kb-explanation") == want
    assert page.locator(".kb-basis a.kb-clause").first.bounding_box()["height"] >= 40   # thumb-sized links
    # a trick said as 第5墩 and declarer's words in quotes are read as meant
    page.select_option("#kb-br-q", "revoke-adjustment")
    page.fill("#kb-br-f-revoke_trick", "第5墩")
    page.fill("#kb-br-f-later_tricks_won", "第7墩 9")
    read = json.loads(page.input_value("#kb-br-in"))
    assert read["revoke_trick"] == 5 and read["later_tricks_won"] == [7, 9]
    # what happened after a revoke: a row per event, not JSON
    page.select_option("#kb-br-q", "revoke-established")
    page.fill("#kb-br-f-revoke_trick", "5")
    page.select_option("#kb-br-f-offender", "E")
    page.tap("#kb-br-f-events .kb-br-add")
    row = page.locator("#kb-br-f-events .kb-br-event").first
    row.locator("select").nth(0).select_option("W")
    row.locator("select").nth(1).select_option("play")
    row.locator("input").fill("第6墩")
    page.tap("#kb-br-f-events .kb-br-add")
    last = page.locator("#kb-br-f-events .kb-br-event").nth(1)
    last.locator("select").nth(0).select_option("E")
    last.locator("select").nth(1).select_option("claim")
    assert last.locator("input").is_hidden()              # a claim belongs to no trick
    assert json.loads(page.input_value("#kb-br-in"))["events"] == [
        {"seat": "W", "action": "play", "trick": 6}, {"seat": "E", "action": "claim"}]
    page.tap('[data-act="go"]')
    page.locator(".kb-explanation", has_text="西家第6墩出牌，藏牌成立（63A1）").wait_for()
    page.locator("#kb-br-f-events .kb-br-del").nth(1).tap()
    assert json.loads(page.input_value("#kb-br-in"))["events"] == [{"seat": "W", "action": "play", "trick": 6}]
    page.select_option("#kb-br-q", "designate")
    page.fill("#kb-br-f-call", "“大”")
    assert json.loads(page.input_value("#kb-br-in"))["call"] == "大"
    page.select_option("#kb-br-q", "lead-out-of-turn")
    page.select_option("#kb-br-f-declarer", "S")
    page.select_option("#kb-br-f-correct_leader", "W")
    page.select_option("#kb-br-f-leader", "E")
    # a card the rules cannot read: the field named by its words, not by its JSON name
    page.fill("#kb-br-f-card", "Z4")
    page.tap('[data-act="go"]')
    error = page.locator(".kb-error")
    error.wait_for()
    assert error.inner_text().startswith("无法裁定：越序引出的牌：无法识别的牌") and "card" not in error.inner_text()
    assert page.locator("#kb-br-f-card").bounding_box()["height"] >= 40     # thumb-sized


@pytest.mark.parametrize("script", ["hans", "hant"])
def test_static_host_bridge_helper_answers_its_worked_examples(static_site, page, script):
    """Without the API the helper says so at once, shows no JSON box it could not rule on, and
    answers each worked example (run by the build, the same answer the API gives)."""
    page.goto(f"{static_site}/{script}/rules/bridge/")
    page.wait_for_selector(".kb-offline")
    assert ("静态网页" if script == "hans" else "靜態網頁") in page.inner_text(".kb-offline")
    page.select_option("#kb-br-q", "revoke-established")
    cases = page.locator("button.kb-worked-case")
    assert cases.count() >= 3
    cases.nth(1).tap()
    page.wait_for_selector(".kb-explanation")
    shown = page.inner_text(".kb-explanation")
    # the situation the ruling answers is stated above it, as on the law pages
    assert page.inner_text(".kb-situation").startswith("情形：") and "藏牌" in page.inner_text(".kb-situation")
    assert shown and page.locator(".kb-basis a.kb-clause").count() >= 1
    assert page.locator("#kb-br-in").is_hidden() and page.locator('[data-act="go"]').is_hidden()
    # the tap targets are thumb-sized
    assert cases.first.bounding_box()["height"] >= 40
    # the answer's ♥ and ♦ are red, as on the law pages (♥K ♥7 in 44A's first example)
    page.select_option("#kb-br-q", "legal-cards")
    page.locator("button.kb-worked-case").first.tap()
    assert page.locator(".kb-explanation .kb-suit-red", has_text="♥").count() == 2
    assert page.locator(".kb-explanation .kb-suit-red").first.evaluate("e => getComputedStyle(e).color") == "rgb(183, 28, 28)"


def test_the_helpers_questions_stand_under_the_books_sections(session_build):
    """19 questions are a long list on a phone: they come in the order of the Laws, under the
    rule book's own section headings (the heading in force at each ruling's leading clause)."""
    text = (SITE / "hans" / "rules" / "bridge" / "index.html").read_text(encoding="utf-8")
    menu = re.search(r'<select id="kb-br-q"[^>]*>(.*?)</select>', text, re.S).group(1)
    groups = {label: re.findall(r'value="([^"]+)"', opts)
              for label, opts in re.findall(r'<optgroup label="([^"]+)">(.*?)</optgroup>', menu)}
    assert list(groups)[:2] == ["不足叫牌", "越序叫牌"] and list(groups)[-1] == "声称和承认"
    assert groups["藏牌"] == ["is-revoke", "revoke-established", "revoke-adjustment"]
    assert groups["越序引牌"] == ["lead-out-of-turn"]
    assert sum(len(v) for v in groups.values()) == 19


def test_catalogue_page_lists_every_ruling(session_build):
    text = (SITE / "hans" / "rules" / "index.html").read_text(encoding="utf-8")
    for command in ("kb bridge insufficient-bid", "kb bridge defective-trick", "kb mahjong settle"):
        assert command in text
    # each under what it answers, in Chinese (the command's name stays its anchor)
    assert re.search(r'<h2 id="kb-bridge-insufficient-bid">不足叫牌', text)
    assert "kb bridge insufficient-bid" in (SITE / "hant" / "rules" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("script", ["hans", "hant"])
def test_bridge_page_worked_answers_are_the_api_answers(session_build, script):
    """The answers a static host shows are what the API gives for the same input and script."""
    import html as html_lib
    import json

    from kb.rules.api import _hant
    from kb.rules.bridge.registry import BY_COMMAND, call
    page = (SITE / script / "rules" / "bridge" / "index.html").read_text(encoding="utf-8")
    worked = json.loads(html_lib.unescape(re.search(r'data-worked="([^"]*)"', page).group(1)))
    assert set(worked) == set(BY_COMMAND) and sum(map(len, worked.values())) >= 90
    for command, cases in worked.items():
        for case in cases:
            result = call(BY_COMMAND[command].name, case["input"]).to_dict()
            if script == "hant":
                result = _hant(result)
            assert (case["explanation"], case["clauses"]) == (result["explanation"], result["clauses"]), case["title"]


def test_mahjong_situations_are_toggles_and_the_hand_survives_back(static_site, page):
    """杠上开花 … 天胡 are toggles above the keypad; the answer restates what was scored; the hand
    and the toggles are still there after a clause is opened and Back pressed; a hand of more
    than 17 tiles says by how many."""
    page.goto(f"{static_site}/hans/rules/mahjong/")
    page.click(".kb-situations summary")
    page.tap('.kb-sit[data-sit="杠上"]')
    assert page.inner_text(".kb-sit-shown") == "杠上开花"
    page.fill("#kb-mj-line", "123m456m789m234p55s 杠7777s")
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-items tr")
    assert "杠上开花" in page.inner_text(".kb-items")
    assert "杠上" in page.inner_text(".kb-used") and "自摸" in page.inner_text(".kb-used")
    page.locator(".kb-items a.kb-clause").first.tap()
    page.wait_for_url(re.compile(r"/twmj16/patterns/#patterns-\d+"))
    page.go_back()
    page.wait_for_selector("#kb-mj-line")
    page.wait_for_function("document.getElementById('kb-mj-line').value !== ''")
    assert page.input_value("#kb-mj-line") == "123m456m789m234p55s 杠7777s"
    assert page.inner_text(".kb-sit-shown") == "杠上开花"
    page.wait_for_selector(".kb-items tr")             # and the answer, worked out again
    assert "杠上开花" in page.inner_text(".kb-items") and "七索" in page.inner_text(".kb-used")
    # what the line itself says (圈风南, 连2) stands over the controls, and is what is restated
    page.fill("#kb-mj-line", "123m456m789m234p55s 杠7777s 圈风南 连2")
    page.tap('[data-act="go"]')
    page.locator(".kb-used", has_text="圈风 南").wait_for()
    assert "连庄 2" in page.inner_text(".kb-used")
    # without a kong or a flower there is no replacement tile: told in words
    page.fill("#kb-mj-line", "123m456m789m234p678p55s")
    page.tap('[data-act="go"]')
    page.locator(".kb-error", has_text="杠上开花须有杠或花牌").wait_for()
    assert "after_kan" not in page.inner_text(".kb-error")
    page.fill("#kb-mj-line", "123m456m789m234p55s 碰111p 碰222p")
    assert "多了 3 张" in page.inner_text(".kb-hand-view")
    # a meld being tapped is a tally, not an error: 碰 and one 南 so far
    page.fill('[data-flag="连"]', "3")
    page.select_option('select[data-pay="how"]', "下家")
    page.tap('[data-act="clear"]')
    page.tap('.kb-kind[data-kind="碰"]')
    page.tap('button.kb-tile[data-code="2z"]')
    tally = page.inner_text(".kb-hand-view")
    assert "1/17" in tally and "碰：南（还差 2 张）" in tally and "须为" not in tally and "没有暗牌" not in tally
    # 清除 began a new hand: 杠上开花 was the last hand's, and is off; so is the streak, and 胡法 is
    # 自摸 again
    assert page.inner_text(".kb-sit-shown") == "无"
    assert page.input_value('[data-flag="连"]') == "0" and page.input_value('[data-pay="how"]') == "自摸"
    assert page.get_attribute('.kb-sit[data-sit="杠上"]', "aria-pressed") == "false"
    # the 碰 complete, the next tap is a concealed tile again, as the 暗牌 key shows
    page.tap('button.kb-tile[data-code="2z"]')
    page.tap('button.kb-tile[data-code="2z"]')
    assert "暗牌" in page.inner_text(".kb-kind.kb-on")
    page.tap('button.kb-tile[data-code="1m"]')
    assert page.input_value("#kb-mj-line") == "1m 碰2z2z2z"
    # a tap on 碰 again starts a new meld, even when the last one is unfinished (trial 12)
    page.tap('[data-act="clear"]')
    page.tap('.kb-kind[data-kind="碰"]')
    page.tap('button.kb-tile[data-code="1z"]')
    page.tap('.kb-kind[data-kind="碰"]')
    page.tap('button.kb-tile[data-code="5z"]')
    assert page.input_value("#kb-mj-line") == "碰1z 碰5z"


def test_the_traditional_keypad_writes_traditional_melds(static_site, page):
    """明槓 and 暗槓 tapped in the Traditional edition write 槓 in the hand's line (not 杠), and the
    page scores it."""
    page.goto(f"{static_site}/hant/rules/mahjong/")
    page.fill("#kb-mj-line", "123m456m789m234p55s")
    page.tap('.kb-kind[data-kind="暗杠"]')
    for _ in range(4):
        page.tap('button.kb-tile[data-code="7s"]')
    assert page.input_value("#kb-mj-line") == "123m456m789m234p55s 暗槓7s7s7s7s"
    page.tap('[data-act="go"]')
    page.locator(".kb-total").wait_for()
    assert "台" in page.inner_text(".kb-total") and page.locator(".kb-error").count() == 0


def test_mahjong_calculator_says_which_dealer_it_assumed(static_site, page):
    """No dealer chosen (the list's first entry): the answer says whom it took to deal (issue #37)."""
    page.goto(f"{static_site}/hans/rules/mahjong/")
    assert page.input_value('select[data-pay="dealer"]') == ""
    page.fill("#kb-mj-line", "123456789m234678p55s")
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-assumed")
    assert page.inner_text(".kb-assumed").startswith("未给出庄家：按下家为庄家计（本家门风北）")
    assert sum("作庄" in x for x in page.locator(".kb-pay li").all_inner_texts()) == 1
    page.select_option('select[data-pay="dealer"]', "对家")
    page.tap('[data-act="go"]')
    page.wait_for_selector(".kb-items tr")
    assert page.locator(".kb-assumed").count() == 0
