"""The search service protects itself: slow and huge requests, overload, costly queries,
hosts, compression, cache and security headers, bounded caches."""
from __future__ import annotations

import base64
import concurrent.futures
import hashlib
import http.client
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kb.app.build import ensure_built, site_dir
from kb.app.serve import Limits, Service, cache_control, create_app

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).absolute()


@pytest.fixture(scope="module")
def client():
    app = create_app(BUILD)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


# --- in process: query cost, hosts, headers, compression -------------------------------


def test_forty_phrases_are_refused_naming_the_query(client):
    q = " ".join(f'"藏牌{i}"' for i in range(40))
    r = client.get("/api/search", params={"q": q})
    assert r.status_code == 400
    assert "40 个带引号的短语（至多 4 个）" in r.json()["error"] and '"藏牌0"' in r.json()["error"]


def test_too_many_terms_are_refused(client):
    r = client.get("/api/search", params={"q": " ".join("藏牌明手罚张"[i % 6] for i in range(60))})
    assert r.status_code == 400 and "60 个词（至多 32 个）" in r.json()["error"]
    assert client.get("/api/search", params={"q": '"明手" "藏牌" 罚张 定约人'}).status_code == 200


def test_unknown_hosts_are_refused(client):
    assert client.get("/hans/", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/hans/", headers={"host": "localhost:8000"}).status_code == 200


def test_redirects_never_echo_the_host(client):
    r = client.get("/hant/search", follow_redirects=False)
    assert r.status_code in (301, 302, 307, 308)
    assert r.headers["location"] == "/hant/search/"
    r = client.get("/hans/cbr1999", headers={"host": "localhost"}, follow_redirects=False)
    assert "localhost" not in r.headers["location"] and r.headers["location"].startswith("/")


def test_security_headers_and_csp_hashes(client):
    r = client.get("/hans/cbr1999/law-45/")
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
    scripts = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>(.*?)</script>", r.text, re.S)
    executable = [body for attrs, body in scripts if "application/json" not in attrs]
    assert executable
    for body in executable:
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
    assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";")[0]


def test_responses_that_are_not_pages_carry_a_short_csp(client):
    page = client.get("/hans/cbr1999/law-45/").headers["content-security-policy"]
    missing = client.get("/hans/no-such-page/")           # an HTML 404 page is a page: its script hashes too
    assert missing.status_code == 404 and missing.headers["content-security-policy"] == page
    for path in ("/hans/sw.js", "/api/health", "/api/search?q=%E8%97%8F%E7%89%8C", "/api/openapi.json"):
        r = client.get(path)
        csp = r.headers["content-security-policy"]
        assert r.status_code == 200 and "text/html" not in r.headers["content-type"], path
        assert len(csp) < 100 < len(page) and "sha256-" not in csp, path
        # nothing inline runs, no plugin, no framing; the service worker may still fetch this origin
        assert "unsafe" not in csp and "default-src 'self'" in csp and "object-src 'none'" in csp, path
        assert "frame-ancestors 'none'" in csp, path
    # a page revalidated keeps its CSP: the browser stores a 304's headers over the cached page's
    first = client.get("/hans/cbr1999/law-45/")
    again = client.get("/hans/cbr1999/law-45/", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and again.headers["content-security-policy"] == page


def test_cache_headers(client):
    assert client.get("/hans/").headers["cache-control"] == "no-cache"
    assets = site_dir(BUILD) / "hans" / "assets"
    hashed = next(p for p in assets.rglob("*") if p.is_file() and re.search(r"\.[0-9a-f]{8,}\.", p.name))
    rel = hashed.relative_to(site_dir(BUILD)).as_posix()
    r = client.get(f"/{rel}")
    assert r.status_code == 200 and r.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert cache_control("/hans/sw.js", 200) == b"no-cache"
    assert cache_control("/hans/search/index.3f9a0b1c2d.json", 200).endswith(b"immutable")
    assert cache_control("/hans/search/search_index.json", 200) == b"no-cache"
    assert client.get("/api/search", params={"q": "藏牌"}).headers["cache-control"] == "public, max-age=60"
    assert client.get("/nothing").headers["cache-control"] == "no-store"


def test_pages_carry_the_api_cookie_and_nothing_else_does(client):
    """kb.js asks /api/search only on a page marked kb-api=1: kb serve marks its pages."""
    page = client.get("/hans/cbr1999/law-45/")
    assert page.status_code == 200 and page.headers["set-cookie"] == "kb-api=1; Path=/; SameSite=Strict"
    for path in ("/api/search?q=%E8%97%8F%E7%89%8C", "/api/health", "/nothing"):
        assert "set-cookie" not in client.get(path).headers, path


def test_gzip(client):
    r = client.get("/hans/cbr1999/law-45/", headers={"accept-encoding": "gzip"})
    assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
    assert r.num_bytes_downloaded < len(r.content) / 3  # r.content is decoded
    r = client.get("/api/search", params={"q": "明手", "limit": "50"}, headers={"accept-encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip" and r.json()


def test_too_many_headers_are_refused(client):
    r = client.get("/hans/", headers={f"x-h{i}": "1" for i in range(120)})
    assert r.status_code == 431


def test_answer_cache_is_bounded_in_bytes():
    import asyncio

    out = ensure_built(BUILD, need_site=True)
    service = Service(out, cache_size=10_000, limits=Limits(cache_bytes=64 * 1024))
    try:
        for q in ["明手", "藏牌", "罚张", "定约人", "防守人", "庄家", "犯规", "字一色", "首引", "牌"]:
            asyncio.run(service.search((q, None, 50, None, None, None)))
            assert service._cache_bytes <= 64 * 1024
            assert service._cache_bytes == sum(len(v) for v in service._cache.values())
        assert len(service._cache) < 10
    finally:
        service.close()


def test_searches_are_refused_while_the_event_loop_lags():
    import asyncio

    from kb.app.serve import Busy

    service = Service(ensure_built(BUILD, need_site=True), cache_size=0)
    try:
        key = ("明手", None, 10, None, None, None)
        service.loop_lag, service.pending = 1.0, 1
        with pytest.raises(Busy):
            asyncio.run(service.search(key))
        service.pending = 0  # one search always proceeds, however late the loop
        assert asyncio.run(service.search(key))
        service.loop_lag, service.pending = 0.0, service.limits.max_pending
        with pytest.raises(Busy):
            asyncio.run(service.search(key))
    finally:
        service.close()


# --- a real server on loopback: slow clients, huge headers, overload --------------------


@pytest.fixture(scope="module")
def server():
    ensure_built(BUILD, need_site=True)
    code = "import sys; from kb.app.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, "--build-dir", str(BUILD), "serve", "--port", "0",
                             "--request-timeout", "1", "--max-searches", "2", "--cache-size", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    port = None
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    while port is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"http://127\.0\.0\.1:(\d+)/hans/", line)
        port = int(m.group(1)) if m else None
    assert port, "kb serve did not start"
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    yield port
    proc.terminate()
    proc.wait(timeout=30)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_half_sent_request_is_cut_off(server):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server)) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert _closed_within(s, 5)
    assert time.monotonic() - started < 4


def test_byte_at_a_time_client_is_cut_off(server):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server)) as s:
        closed = False
        for ch in b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
            try:
                s.sendall(bytes([ch]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(0.1)
            if time.monotonic() - started > 3:
                break
        assert closed or _closed_within(s, 3)
    assert time.monotonic() - started < 6


def test_idle_connection_is_closed(server):
    with socket.create_connection(("127.0.0.1", server)) as s:
        assert _closed_within(s, 5)


def test_huge_header_is_refused(server):
    with socket.create_connection(("127.0.0.1", server)) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 64 * 1024 + b"\r\n\r\n")
        s.settimeout(5)
        reply = s.recv(65536)
        assert reply.startswith(b"HTTP/1.1 431"), reply[:40]
        assert _closed_within(s, 5)
    with socket.create_connection(("127.0.0.1", server)) as s:  # a head that keeps coming
        try:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            for _ in range(64):
                s.sendall(b"X-More: " + b"a" * 1024 + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert _closed_within(s, 5)


def test_still_serving_after_the_abuse(server):
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=10)
    conn.request("GET", "/api/health")
    assert conn.getresponse().status == 200


def test_overload_is_answered_503_quickly(server):
    """Two searches may run or wait; 24 distinct costly queries at once: the rest get a fast 503."""
    def one(i: int) -> tuple[int, str | None, float]:
        q = urllib.parse.quote(f"明手 藏牌 罚张 定约人 防守人 庄家 犯规 首引 {i}")
        conn = http.client.HTTPConnection("127.0.0.1", server, timeout=30)
        started = time.monotonic()
        conn.request("GET", f"/api/search?limit=50&q={q}")
        resp = conn.getresponse()
        resp.read()
        return resp.status, resp.getheader("retry-after"), time.monotonic() - started

    with concurrent.futures.ThreadPoolExecutor(24) as pool:
        results = list(pool.map(one, range(24)))
    statuses = [s for s, _, _ in results]
    assert set(statuses) <= {200, 503} and 503 in statuses and 200 in statuses, statuses
    assert all(retry == "1" for s, retry, _ in results if s == 503)
    assert max(t for s, _, t in results if s == 503) < 2.0


# --- admission: a full admitted set refuses searches before any work -------------------------


def test_a_full_admitted_set_refuses_searches_before_any_work(client):
    gate = client.app.state.admission
    assert gate.active == 0
    gate.active = gate.size
    refused = gate.refused
    try:
        for path in ("/api/search?q=%E8%97%8F%E7%89%8C", "/api/search?q=%FF", "/api/search"):  # not even validated
            r = client.get(path, headers={"host": "evil.example"})
            assert r.status_code == 503 and r.headers["retry-after"] == "1", path
            assert r.json() == {"error": f"busy: {gate.size} searches in progress; retry shortly"}
        health = client.get("/api/health")   # only searches wait for room; each refusal is counted, nothing more
        assert health.status_code == 200 and health.json()["refused"] == refused + 3 == gate.refused
    finally:
        gate.active = 0
    assert client.get("/api/search", params={"q": "藏牌"}).status_code == 200
    assert client.get("/api/search", params={"q": ""}).status_code == 400
    assert gate.active == 0   # every admitted search leaves the set, answered or refused


class _Transport:
    """Enough of an asyncio transport for GuardedProtocol: what it writes, whether it closed."""

    def __init__(self) -> None:
        self.written = b""
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default=None):
        return default

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def test_the_protocol_refuses_a_whole_search_without_parsing_it(client):
    import asyncio

    from uvicorn.server import ServerState

    from kb.app.serve import GuardedProtocol, make_config

    config = make_config(client.app, Limits())
    config.load()
    loop = asyncio.new_event_loop()
    try:
        state = ServerState()
        proto = GuardedProtocol(config=config, server_state=state, app_state={}, _loop=loop)
        transport = _Transport()
        proto.connection_made(transport)  # type: ignore[arg-type]
        gate = client.app.state.admission
        gate.active = gate.size
        try:
            refused = gate.refused
            proto.data_received(b"GET /api/search?q=%E8%97%8F HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert transport.written == gate.wire and not state.tasks and not transport.closed
            assert gate.refused == refused + 1
            assert proto.timeout_keep_alive_task is not None   # an idle connection is still closed in time
            assert transport.written.startswith(b"HTTP/1.1 503 ") and b"\r\nretry-after: 1\r\n" in transport.written
            transport.written = b""
            proto.data_received(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # not a search: parsed
            assert state.tasks and transport.written == b""
            loop.run_until_complete(asyncio.gather(*state.tasks, return_exceptions=True))
            assert transport.written.startswith(b"HTTP/1.1 200 ")
        finally:
            gate.active = 0
        # with room, a search is admitted as its head is parsed (before its task runs), and leaves when answered
        transport.written = b""
        proto.data_received(b"GET /api/search?q=%E8%97%8F%E7%89%8C HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert gate.active == 1 and state.tasks
        loop.run_until_complete(asyncio.gather(*state.tasks, return_exceptions=True))
        assert gate.active == 0 and transport.written.startswith(b"HTTP/1.1 200 "), transport.written[:80]
    finally:
        loop.close()


# --- the search processes: the engine never runs in the server's process ------------------------


def test_searches_run_in_a_search_process_not_in_the_server(client, monkeypatch):
    """A storm of refusals shares the server's interpreter lock only with the event loop: the engine
    is not even called in this process, and searching starts no thread here."""
    from kb.search.engine import SearchEngine

    def not_here(*args, **kwargs):
        raise AssertionError("the engine ran in the server's process")

    monkeypatch.setattr(SearchEngine, "answer", not_here)
    monkeypatch.setattr(SearchEngine, "search", not_here)
    threads = threading.active_count()
    for q in ("藏牌 罚张 明手", "第64条B款", "字一色"):
        r = client.get("/api/search", params={"q": q, "limit": "3"})
        assert r.status_code == 200 and r.json()["results"], q
    assert client.get("/api/search", params={"q": "藏牌", "work": "nowork"}).status_code == 400
    assert threading.active_count() == threads
    pids = client.app.state.service.searchers.pids()
    assert pids and os.getpid() not in pids


def test_a_search_process_that_dies_is_started_again():
    import signal

    app = create_app(BUILD, cache_size=0)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        searchers = app.state.service.searchers
        assert c.get("/api/search", params={"q": "藏牌"}).status_code == 200
        first = searchers.pids()
        os.kill(first[0], signal.SIGKILL)
        deadline = time.monotonic() + 60
        statuses = set()
        while time.monotonic() < deadline:
            r = c.get("/api/search", params={"q": "罚张"})
            statuses.add(r.status_code)
            if r.status_code == 200:
                break
            assert r.status_code == 503 and r.headers["retry-after"] == "1", r.text
            time.sleep(0.2)
        assert 503 in statuses and r.status_code == 200, statuses
        assert searchers.pids() != first and searchers.procs[0].restarts == 1
    assert all(p.proc.poll() is not None for p in searchers.procs)   # ended with the app


def test_the_search_process_answers_each_request_in_order_and_survives_a_failure():
    import io
    import struct

    from kb.app.searcher import ANSWER, BAD_REQUEST, FAILED, serve_searches
    from kb.core.errors import KbError

    class Fake:
        def body(self, key):
            if key[0] == "bad":
                raise KbError("未知的书  'x'   （可用：…）")
            if key[0] == "bug":
                raise ZeroDivisionError
            return ("answer:" + key[0]).encode()

    answers = io.BytesIO()
    serve_searches(Fake(), io.BytesIO(b'["a", null, 10, null, null, null]\n["bad", null, 10, null, null, null]\n'
                                      b'["bug", null, 10, null, null, null]\n["b", null, 10, null, [1, 2], null]\n'),
                   answers)
    data, frames = answers.getvalue(), []
    while data:
        kind, n = struct.unpack(">BI", data[:5])
        frames.append((kind, data[5:5 + n]))
        data = data[5 + n:]
    assert frames == [(ANSWER, b"answer:a"), (BAD_REQUEST, "未知的书 'x' （可用：…）".encode()),
                      (FAILED, b"internal error"), (ANSWER, b"answer:b")]


# --- the one body limit ----------------------------------------------------------------------


def test_a_body_within_the_limit_reaches_the_calculators_and_one_over_it_is_413_naming_it(client):
    from kb.rules.inputs import MAX_INPUT

    hand = '{"line": "123m456m789m234p678p55s 自摸"}'
    r = client.post("/api/rules/mahjong/score", content=hand + " " * (MAX_INPUT - len(hand.encode())),
                    headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.json()["total"] == 4
    for path in ("/api/rules/mahjong/score", "/api/search?q=%E8%97%8F", "/hans/"):
        r = client.post(path, content=b" " * (MAX_INPUT + 1))
        assert r.status_code == 413 and r.json() == {"error": f"body: 超过 {MAX_INPUT} 字节"}, path


def _whole_reply(s: socket.socket) -> bytes:
    """One response: its head and its body (by Content-Length)."""
    s.settimeout(5)
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += s.recv(65536)
    m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", reply)
    while len(reply.split(b"\r\n\r\n", 1)[1]) < (int(m.group(1)) if m else 0):
        reply += s.recv(65536)
    return reply


def test_a_large_body_sent_with_its_head_is_413_not_431(server):
    from kb.rules.inputs import MAX_INPUT

    body = b" " * (MAX_INPUT + 1)
    with socket.create_connection(("127.0.0.1", server)) as s:
        s.sendall(b"POST /api/rules/mahjong/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body)
        reply = _whole_reply(s)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:60]
    assert f"超过 {MAX_INPUT} 字节".encode() in reply
    with socket.create_connection(("127.0.0.1", server)) as s:   # 20 KiB within the limit, in one send
        hand = b'{"line": "123m456m789m234p678p55s"}'
        body = hand + b" " * (20 * 1024)
        s.sendall(b"POST /api/rules/mahjong/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % len(body) + body)
        reply = _whole_reply(s)
    assert reply.startswith(b"HTTP/1.1 200"), reply[:60]


def test_the_guide_quotes_the_body_limit():
    from kb.rules.inputs import MAX_INPUT

    readme = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    said = re.findall(r"body over ([0-9][0-9,_ ]*) ?(?:bytes|KB|KiB)", readme)
    row = next(line for line in readme.splitlines() if line.startswith("| request body |"))
    assert said and all(int(re.sub(r"\D", "", n)) == MAX_INPUT for n in said), said
    assert f"| {MAX_INPUT} bytes |" in row, row


# --- the site's files are served only while their bytes are the build's -----------------------


def test_an_altered_site_file_is_refused_and_named_once_in_the_log(tmp_path):
    import logging

    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Mount

    from kb.app.serve import _http_error, _SiteFiles
    from kb.core.integrity import checksums

    site = tmp_path / "site"
    (site / "hans").mkdir(parents=True)
    page = site / "hans" / "index.html"
    page.write_text("<p>第64条 藏牌</p>", encoding="utf-8")
    (site / "hans" / "kb.js").write_text("var x = 1;", encoding="utf-8")
    recorded = {rel[len("site/"):]: (size, digest) for rel, (size, digest) in checksums(tmp_path, ["site"]).items()}
    app = Starlette(routes=[Mount("/", app=_SiteFiles(directory=site, recorded=recorded))],
                    exception_handlers={HTTPException: _http_error})
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    log = logging.getLogger("uvicorn.error")
    log.addHandler(handler)
    try:
        with TestClient(app, base_url="http://127.0.0.1") as c:
            assert c.get("/hans/").status_code == 200 and c.get("/hans/kb.js").status_code == 200
            page.write_text("<p>第46条 藏牌</p>", encoding="utf-8")   # same size, other bytes
            st = page.stat()
            os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
            for _ in range(3):
                r = c.get("/hans/")
                assert r.status_code == 503 and r.headers["content-type"].startswith("text/html")
                assert "hans/index.html" in r.text and "第46条" not in r.text
            assert len(lines) == 1 and str(page) in lines[0] and "sha256 differs" in lines[0], lines
            assert c.get("/hans/kb.js").status_code == 200       # the others are still served
            (site / "hans" / "extra.js").write_text("alert(1)", encoding="utf-8")
            r = c.get("/hans/extra.js")
            assert r.status_code == 503 and "not part of the build" in lines[-1]
            page.write_text("<p>第64条 藏牌</p>", encoding="utf-8")    # put back: served again
            os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
            assert c.get("/hans/").status_code == 200
    finally:
        log.removeHandler(handler)


def test_the_server_checks_its_site_against_the_build_record(client):
    from kb.app.serve import _SiteFiles

    files = next(r.app for r in client.app.routes if isinstance(getattr(r, "app", None), _SiteFiles))
    assert "hans/index.html" in files.recorded and "hant/search/index.html" in files.recorded
    assert client.get("/hans/").status_code == 200 and files._checked["hans/index.html"][1] is True
