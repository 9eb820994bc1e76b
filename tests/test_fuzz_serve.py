"""Fuzz: over 10,000 generated bad requests to every endpoint of kb serve, in process (httpx2's
ASGI transport): no 5xx, no traceback."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import urllib.parse
from collections import Counter
from pathlib import Path

import httpx2
import pytest

from kb.app.serve import create_app
from kb.rules.bridge.registry import BY_COMMAND

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).absolute()
SEED = 37
PER_KIND = 1600          # requests of each kind below (7 kinds: 11,200 in all; the client refuses a few)

WORDS = ["藏牌", "罰張", "明手", "字一色", "45C4(b)", "第64条B款", "laws1997", "AND", "*", "~", "NOT", "title:",
         "<script>", "</mark>", "%", "&", "=", "+", "#", "?", "..", "/", "\\", "\x00", "\u200b", "\ufeff", "\ud800",
         "\U0010ffff", "🀄", "“", "」", '"', "'", "-", "0", "99", "-1", "1e9", "NaN", "null", "[]", "{}"]
VALUES = ["", " ", "0", "-1", "51", "1.5", "1e1", "５", "abc", "cbr1999", "CBR1999", "twmj16", "laws1997", "hant",
          "hans", "latin", "61-64", "64-61", "1-2-3", "99", "x" * 3000, "%ff", "%ED%A0%80", "%E8%97", "%zz", "%"]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "FOO", "get", "PROPFIND"]
HEADER_NAMES = ["accept-language", "accept-encoding", "content-type", "content-length", "range", "if-none-match",
                "if-modified-since", "cookie", "x-forwarded-for", "transfer-encoding", "expect", "origin", "referer",
                "x-" + "h" * 200]
HEADER_VALUES = ["", "*", "zh-TW;q=abc, ;;;", "gzip;q=-1, br, *;q=2", "bytes=abc", "bytes=999999999-",
                 "bytes=0-1,2-3,4-5,0-0", "bytes=-0", "W/\"x\", *", "Mon, 99 Foo 99999 99:99:99 GMT", "-1",
                 "99999999999999999999", "abc", "chunked", "100-continue", "\xff\xfe", "a" * 4000, "null",
                 "application/json; charset=latin-9", "multipart/form-data; boundary="]


def _text(rnd: random.Random, most: int = 12) -> str:
    return "".join(rnd.choice(WORDS) if rnd.random() < 0.6 else chr(rnd.randrange(0x20, 0x3000))
                   for _ in range(rnd.randrange(0, most)))


def _q(text: str, safe: str = "") -> str:
    """Percent-encoded UTF-8 (a lone surrogate as its three bytes, which are not UTF-8)."""
    return urllib.parse.quote(text.encode("utf-8", "surrogatepass"), safe=safe)


def _quoted_bytes(rnd: random.Random) -> str:
    """Percent-escapes of random bytes (mostly not UTF-8), or of random text."""
    if rnd.random() < 0.5:
        return "".join(f"%{rnd.randrange(256):02X}" for _ in range(rnd.randrange(1, 8)))
    return _q(_text(rnd)) if rnd.random() < 0.7 else rnd.choice(VALUES)


def search_query(rnd: random.Random) -> str:
    """A query string for /api/search with at least one bad or odd parameter."""
    names = ["q", "work", "limit", "script", "laws", "lead", "Q", "q[]", "", "%ff", "limit"]
    parts = []
    for _ in range(rnd.randrange(1, 6)):
        name = rnd.choice(names)
        value = _quoted_bytes(rnd) if rnd.random() < 0.5 else _q(rnd.choice(VALUES), safe="%")
        parts.append(name if rnd.random() < 0.05 else f"{name}={value}")
    if rnd.random() < 0.1:   # too costly by the engine's own limits
        parts.append("q=" + _q(" ".join(f'"{rnd.choice(WORDS)}"' for _ in range(rnd.randrange(5, 40)))))
    return rnd.choice(["&", "&&", ";"]).join(parts)


def static_path(rnd: random.Random) -> str:
    """A path under the site: traversal, encodings, long names, odd bytes."""
    pieces = ["hans", "hant", "..", ".", "", "%2e%2e", "%2F", "%00", "index.html", "404.html", "assets", "sw.js",
              "cbr1999", "law-45", "search", "idx", "x" * rnd.choice([1, 300, 5000]), "%ff%fe", "~", "%5c", "?a=b"]
    return "/" + "/".join(rnd.choice(pieces) if rnd.random() < 0.7 else _quoted_bytes(rnd)
                          for _ in range(rnd.randrange(1, 6)))


def body(rnd: random.Random) -> bytes:
    """A request body for the calculators: broken, odd or hostile JSON, or not UTF-8."""
    kind = rnd.randrange(9)
    if kind == 0:
        return bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 200)))
    if kind == 1:
        return ("[" * rnd.randrange(1, 3000)).encode()
    if kind == 2:
        return json.dumps({"line": _text(rnd, 30)}).encode()
    if kind == 3:
        return ('{"concealed": ' + "9" * rnd.randrange(1, 400) + "}").encode()
    if kind == 4:
        keys = ["hand", "dealer", "discarder", "streak_shown", "line", "seat", "trick", "revoke_trick", "offender",
                "events", "declarer", "contract", "board", "cards", "__proto__", ""]
        values: list = [None, True, -1, 1e308, "N", "东家", [], {}, [[[]]], "x" * 500, 2 ** 70, "123m456m"]
        return json.dumps({rnd.choice(keys): rnd.choice(values) for _ in range(rnd.randrange(0, 6))}).encode()
    if kind == 5:
        return json.dumps(rnd.choice([None, 0, "", [], "null", [1, 2], -0.0])).encode()
    if kind == 6:
        return b'{"hand": "' + _text(rnd).encode("utf-8", "surrogatepass") + b'"'
    if kind == 7:
        return b" " * rnd.choice([0, 70_000])
    return json.dumps({"hand": _text(rnd, 20), "dealer": _text(rnd, 3), "discarder": _text(rnd, 3)}).encode()


def requests(rnd: random.Random):
    """(method, url, headers, body) of every kind, PER_KIND of each."""
    commands = sorted(BY_COMMAND) + ["nope", "%ff", "..", "x" * 300, ""]
    for _ in range(PER_KIND):
        yield "GET", "/api/search?" + search_query(rnd), {}, b""
    for _ in range(PER_KIND):
        yield "GET", "/api/clause/" + rnd.choice([_quoted_bytes(rnd), "cbr1999:" + _quoted_bytes(rnd)]), {}, b""
    for _ in range(PER_KIND):
        yield "GET", static_path(rnd), {}, b""
    for _ in range(PER_KIND):
        path = rnd.choice(["/api/search?q=%E8%97%8F", "/api/clause/cbr1999:45C4b", "/api/health", "/api/openapi.json",
                           "/", "/hans/", "/api/rules/catalogue", "/api/rules/mahjong/score", "/hans/sw.js", "/api/x"])
        yield rnd.choice(METHODS), path, {}, rnd.choice([b"", b"{}", b"\xff"])
    for _ in range(PER_KIND):
        path = rnd.choice(["/", "/hans/", "/hans/cbr1999/law-45/", "/api/search?q=%E7%89%8C", "/api/health",
                           "/hant/search/", "/api/rules/catalogue"])
        headers = {rnd.choice(HEADER_NAMES): rnd.choice(HEADER_VALUES) for _ in range(rnd.randrange(1, 4))}
        yield "GET", path, headers, b""
    for _ in range(PER_KIND):
        script = rnd.choice(["", "?script=hant", "?script=x", "?script=%ff", "?script=hans&script=hant"])
        path = rnd.choice(["/api/rules/mahjong/score", "/api/rules/mahjong/settle",
                           "/api/rules/bridge/" + _q(rnd.choice(commands), safe="%")])
        yield "POST", path + script, {"content-type": rnd.choice(["application/json", "text/plain", ""])}, body(rnd)
    for _ in range(PER_KIND):  # a host not allowed, or none that parses
        yield "GET", rnd.choice(["/hans/", "/api/health"]), {"host": rnd.choice(["evil.example", "127.0.0.1:x", "",
                                                                                  "[::1", "a" * 300])}, b""


@pytest.fixture(scope="module")
def app():
    return create_app(BUILD)


def test_fuzz_every_endpoint_no_5xx_no_traceback(app):
    crashes: list[str] = []
    logged: list[str] = []

    async def watched(scope, receive, send):
        try:
            await app(scope, receive, send)
        except Exception as exc:  # Starlette answers 500 and re-raises: a traceback in a real server's log
            crashes.append(f"{scope.get('method')} {scope.get('path')!r}: {exc!r}")
            raise

    class Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.exc_info or record.levelno >= logging.ERROR:
                logged.append(record.getMessage())

    handler = Catch()
    loggers = [logging.getLogger(), logging.getLogger("uvicorn.error")]
    for log in loggers:
        log.addHandler(handler)

    async def run() -> tuple[Counter[int], list[str], int]:
        statuses: Counter[int] = Counter()
        server_errors: list[str] = []
        sent = 0
        transport = httpx2.ASGITransport(app=watched, raise_app_exceptions=False)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for method, url, headers, content in requests(random.Random(SEED)):
                try:
                    request = client.build_request(method, url, headers=headers, content=content or None)
                except (httpx2.InvalidURL, ValueError, UnicodeError):
                    continue   # the client itself refuses to send it
                r = await client.send(request)
                sent += 1
                statuses[r.status_code] += 1
                if r.status_code >= 500 or b"Traceback (most recent call last)" in r.content:
                    server_errors.append(f"{method} {url[:80]!r} {headers}: {r.status_code} {r.text[:120]!r}")
        return statuses, server_errors, sent

    try:
        statuses, server_errors, sent = asyncio.run(run())
    finally:
        for log in loggers:
            log.removeHandler(handler)
    assert sent >= 10_000, (sent, statuses)
    assert not server_errors and not crashes and not logged, (server_errors[:5], crashes[:5], logged[:5])
    assert {200, 400, 404, 405} <= set(statuses), statuses   # the inputs reached every kind of answer
