"""The search page in headless Chromium, against a real `kb serve` on 127.0.0.1.

Needs Debian's chromium (/usr/bin/chromium; scripts/test installs it) and the playwright
Python package, driving that chromium (playwright's own browser downloads are never used).
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).resolve()
SITE = BUILD.parent / "site"
CHROMIUM = os.environ.get("KB_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 15_000


def _why_no_browser() -> str | None:
    if not os.path.exists(CHROMIUM):
        return f"no chromium at {CHROMIUM} (scripts/test installs Debian's chromium with apt-get)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is missing ({exc}); run scripts/test"
    return None


WHY = _why_no_browser()
if WHY:
    print(f"test_e2e_browser: skipped: {WHY}", file=sys.stderr)
pytestmark = pytest.mark.skipif(WHY is not None, reason=WHY or "")


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read().decode("utf-8"))


@contextlib.contextmanager
def kb_serve(*args: str) -> Iterator[str]:
    """`kb serve --port 0 ARGS` in a subprocess; yields its base URL (http://127.0.0.1:PORT)."""
    code = "import sys; from kb.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONUNBUFFERED="1", KB_BUILD_DIR=str(BUILD))
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", "0", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    found: dict[str, str] = {}

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+)/hans/", line)
            if m and "url" not in found:
                found["url"] = m.group(1)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 300  # a stale build is rebuilt first
    while "url" not in found and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        if "url" not in found:
            pytest.fail("kb serve did not print its URL:\n" + "".join(lines[-30:]))
        yield found["url"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server():
    with kb_serve() as url:
        yield url


@pytest.fixture(scope="module")
def static_site():
    """The built site on a plain static file server (no API): what a static host gives."""
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="zh-TW")
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
    results = get_json(f"{server}/api/search?{qs}")
    assert results, q
    return results[0]  # type: ignore[index,return-value]


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
    page.wait_for_function("document.getElementById('kb-search').dataset.state === 'done'")
    assert page.input_value("#kb-q") == "明手建议"
    assert page.locator("#kb-results li").count() >= 1
    page.wait_for_function("new URLSearchParams(location.search).get('q') === '明手建议'")


def test_shared_url_runs_the_search(server, page):
    q = "第64条B款"
    page.goto(f"{server}/hans/search/?" + urllib.parse.urlencode({"q": q, "work": "cbr1999"}))
    link = page.locator("#kb-results li a.kb-result-cite").first
    link.wait_for()
    assert link.inner_text() == "64B"
    assert page.input_value("#kb-q") == q and page.input_value("#kb-work") == "cbr1999"
    # Material's own search dialog (which also reads ?q=) stays closed, and q stays in the URL.
    page.wait_for_function("new URLSearchParams(location.search).get('q') !== null")
    assert not page.evaluate("document.getElementById('__search').checked")
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert params == {"q": [q], "work": ["cbr1999"]}
    works = page.locator("#kb-results .kb-result-work").all_inner_texts()
    assert works and set(works) == {"中国桥牌竞赛规则（1999）"}


def test_work_filter_changes_results_and_url(server, page):
    page.goto(f"{server}/hans/search/?q=%E7%8A%AF%E8%A7%84")  # 犯规
    page.locator("#kb-results li").first.wait_for()
    page.select_option("#kb-work", "twmj16")
    page.wait_for_function("new URLSearchParams(location.search).get('work') === 'twmj16'")
    page.wait_for_function("document.getElementById('kb-search').dataset.state === 'done'")
    hrefs = page.locator("#kb-results a.kb-result-cite").evaluate_all("els => els.map(e => e.href)")
    assert hrefs and all("/hans/twmj16/" in h for h in hrefs)


def test_typed_html_is_shown_as_text(server, page):
    q = '<img src=x onerror="window.__xss=1">藏牌<script>window.__xss=2</script>'
    page.goto(f"{server}/hans/search/")
    page.fill("#kb-q", q)
    page.press("#kb-q", "Enter")
    page.wait_for_function("['done', 'error'].includes(document.getElementById('kb-search').dataset.state)")
    assert page.evaluate("window.__xss") is None
    assert page.locator("#kb-search img, #kb-search script").count() == 0
    assert q in page.inner_text("#kb-status")
    tags = page.locator("#kb-results .kb-result-snippet *").evaluate_all("els => els.map(e => e.tagName)")
    assert set(tags) <= {"MARK"}


def test_static_hosting_offers_the_builtin_search(static_site, page):
    page.goto(f"{static_site}/hant/search/")
    page.locator("#kb-offline").wait_for(state="visible")
    assert "檢索服務暫時無法連接" in page.inner_text("#kb-offline")
    page.fill("#kb-q", "藏牌")
    page.press("#kb-q", "Enter")
    page.wait_for_function("document.getElementById('kb-search').dataset.state === 'offline'")
    builtin = page.locator("#kb-builtin")
    assert "藏牌" in builtin.inner_text()
    assert builtin.get_attribute("href").endswith("/hant/?q=" + urllib.parse.quote("藏牌"))
    assert page.locator("#kb-results li").count() == 0
    builtin.click()
    page.wait_for_function("document.getElementById('__search').checked")
    box = page.locator("input[data-md-component=search-query]")
    assert box.input_value() == "藏牌"


def test_api_failure_is_reported(server, page):
    page.route("**/api/search?*", lambda route: route.abort())
    page.goto(f"{server}/hans/search/?q=%E6%98%8E%E6%89%8B")  # 明手
    page.locator("#kb-offline").wait_for(state="visible")
    assert "检索服务暂时无法连接" in page.inner_text("#kb-offline")


def test_concurrent_requests_agree(server):
    queries = ["藏牌", "罰張", "明手建议", "第64条B款", "字一色", "越序首引", "诈胡", "防守人"]
    expected = {q: get_json(f"{server}/api/search?" + urllib.parse.urlencode({"q": q, "limit": 20}))
                for q in queries}

    def one(i: int) -> bool:  # every (q, limit) is new to the server: no cached answers
        q, limit = queries[i % len(queries)], 1 + i // len(queries)
        got = get_json(f"{server}/api/search?" + urllib.parse.urlencode({"q": q, "limit": limit}))
        return got == expected[q][:limit]

    with ThreadPoolExecutor(16) as pool:
        assert all(pool.map(one, range(len(queries) * 20)))


def test_worker_processes_give_the_same_answers(server):
    queries = ["藏牌", "罰張", "第64条B款", "字一色"]
    expected = {q: get_json(f"{server}/api/search?" + urllib.parse.urlencode({"q": q})) for q in queries}
    with kb_serve("--workers", "2", "--cache-size", "0") as url:
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda q: get_json(f"{url}/api/search?" + urllib.parse.urlencode({"q": q})),
                                queries * 8))
    assert got == [expected[q] for q in queries * 8]
