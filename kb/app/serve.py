"""``kb serve``: the built site and a JSON search API, with Starlette on uvicorn.

    kb serve [--host 127.0.0.1] [--port 8000] [--cache-size N] [--workers N]
    (--port 0 picks a free port)

Routes:
    GET /api/search?q=&work=&limit=&script=&lead=   the answer as ``kb search --json`` prints it
                                              them, each with a ``url`` (edition-relative)
    GET /api/clause/{id}                      the record as ``kb show ID --json`` prints it
    GET /api/health                           {"status": "ok", "records": N, "refused": N}
    GET /api/openapi.json                     the OpenAPI description of the above
    GET /                                     redirect to /hans/
    GET /hans/..., /hant/...                  the built site (directory -> index.html)

Searches run in a search process of their own (kb.app.searcher; ``--search-processes N``:
N of them), each with its own engine (one whoosh index, its checksums verified at start-up),
so that they never share the interpreter lock with the event loop that accepts, parses and
refuses requests; at most ``max_pending`` searches are admitted (running or waiting), beyond
that the answer is a prebuilt 503 with Retry-After, decided before any work (see
Admission). Answers are cached in this process by their normalised arguments in an LRU
bounded by entries and bytes (the index never changes while serving).

Protection (see ARCHITECTURE.md, "The search service"): uvicorn's httptools protocol with a bound
on the request head, its keep-alive timeout, a deadline for each request's head and body
(a half-sent request is cut off), uvicorn's connection limit (503 beyond it), one body
limit (kb.rules.inputs.MAX_INPUT, 413), the engine's own query limits
(kb.search.request), an allowed-hosts check, site files served only while their bytes are
the build's, gzip, cache headers, a CSP with the hashes of the site's inline scripts,
frame-ancestors 'none' and nosniff.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import hashlib
import html
import json
import logging
import os
import re
import socket
import stat
import sys
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kb.app.searcher import Refused, SearchProcesses, Unavailable
from kb.app.searcher import record_url as record_url
from kb.core import works
from kb.core.errors import KbError
from kb.core.integrity import sha256_file
from kb.ingest.concordance import CHANGES
from kb.rules.inputs import MAX_INPUT, TOO_LARGE
from kb.search.request import MAX_QUERY_CHARS, check_query
from kb.site.lang import edition_for
from kb.site.offline import SMALL_PAGE, not_found_page

WORKS = works.work_ids()
SCRIPTS = ("hans", "hant")
MAX_LIMIT = 50
DEFAULT_LIMIT = 10
CACHE_SIZE = 4096
CACHE_BYTES = 8 * 1024 * 1024
LAG_TICK = 0.02
LAG_SMOOTHING = 8
SWITCH_INTERVAL = 0.001  # a thread of the server (site files are read on worker threads) hands the lock back this often
DEFAULT_PORT = 8000
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_LIMIT_RE = re.compile(r"[0-9]{1,4}")
_FINGERPRINTED = re.compile(r"\.[0-9a-f]{8,}\.[^/]+$")


@dataclass(frozen=True)
class Limits:
    """What one server process allows; each a ``kb serve`` option."""

    search_processes: int = 1      # processes running searches, each with its own engine
    # searches admitted (running or waiting); beyond: 503 + Retry-After. Deep enough that the search
    # process always has the next search while the event loop, slowed by a storm, takes one in and
    # sends one back (load_bench.py --mode retry-storm: with 16 the storm's admitted throughput was
    # 55-59% of capacity, with 32 to 96 74-77%)
    max_pending: int = 64
    max_loop_lag: float = 0.1      # seconds the event loop may lag before new searches are refused
    request_timeout: float = 10.0  # seconds for a request's headers and body to arrive
    keep_alive: int = 5            # seconds an idle keep-alive connection is kept
    max_header_bytes: int = 16 * 1024
    max_headers: int = 100
    max_connections: int = 512     # uvicorn's limit_concurrency: connections + tasks
    cache_bytes: int = CACHE_BYTES
    allowed_hosts: tuple[str, ...] = field(default=LOCAL_HOSTS)


class BadRequest(Exception):
    """A request argument that cannot be used; its message goes back as {"error": ...}."""


def clean_query(raw: str | None) -> str:
    """``q`` checked by the engine's own rules (kb.search.request.check_query: its length, quoted
    phrases and terms), control characters made spaces and whitespace collapsed (the cache key)."""
    if raw is None:
        raise BadRequest("q is required")
    try:
        text = " ".join(check_query(raw, "查询（q）").split())
    except KbError as exc:
        raise BadRequest(str(exc)) from None
    if not text:
        raise BadRequest("q must not be empty")
    return text


def query_params(scope: Scope) -> dict[str, str]:
    """The query string's parameters (the last of a repeated one); BadRequest naming one that is not UTF-8."""
    from urllib.parse import unquote_to_bytes

    params: dict[str, str] = {}
    for part in scope.get("query_string", b"").split(b"&"):
        if not part:
            continue
        key, _, value = part.partition(b"=")
        try:
            name = unquote_to_bytes(key.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("a parameter's name is not UTF-8 text") from None
        try:
            params[name] = unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest(f"{name[:20]} is not UTF-8 text (percent-encode the query's UTF-8 bytes)") from None
    return params


class Busy(Exception):
    """Too many searches running or waiting: answered 503 with Retry-After."""


class Admission:
    """The admitted set of searches: at most ``size`` /api/search requests inside the app at once.

    A search beyond it is refused before the application does any work: by ``GuardedProtocol``
    when the request came whole in one read (the bytes are never parsed), else by
    ``AdmitSearches``, the outermost middleware (before hosts, routing, parsing, search or
    logging). Either way the answer is the same prebuilt 503 with Retry-After, so a client
    that retries at once costs the event loop a few microseconds; the admitted searches run
    in the search processes, which a storm of refusals never holds up.
    """

    def __init__(self, size: int):
        self.size = size
        self.active = 0
        self.refused = 0  # searches answered 503 since start: the one thing a refusal records (no log line)
        body = json.dumps({"error": f"busy: {size} searches in progress; retry shortly"}).encode()
        self.head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                     (b"retry-after", b"1"), (b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff")]
        self.body = body
        self.wire = (b"HTTP/1.1 503 Service Unavailable\r\n"
                     + b"".join(k + b": " + v + b"\r\n" for k, v in self.head) + b"\r\n" + body)

    @property
    def full(self) -> bool:
        return self.active >= self.size

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The prebuilt 503, as an ASGI app."""
        self.refused += 1
        await send({"type": "http.response.start", "status": 503, "headers": self.head})
        await send({"type": "http.response.body", "body": self.body})


class Admitted:
    """``app`` for a search GuardedProtocol admitted when its head was parsed: it leaves the set when done."""

    def __init__(self, app: ASGIApp, admission: Admission):
        self.app = app
        self.admission = admission

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["kb.admitted"] = True
        try:
            await self.app(scope, receive, send)
        finally:
            self.admission.active -= 1


SEARCH_PATH = "/api/search"


class AdmitSearches:
    """Outermost middleware: a body declared over MAX_INPUT is 413; a search is admitted while the
    set has room, else the prebuilt 503."""

    def __init__(self, app: ASGIApp, admission: Admission):
        self.app = app
        self.admission = admission

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _declared_too_large(scope["headers"]):
            await _error(413, TOO_LARGE)(scope, receive, send)
            return
        if scope["path"] != SEARCH_PATH or scope.get("kb.admitted"):
            await self.app(scope, receive, send)
            return
        gate = self.admission
        if gate.active >= gate.size:
            await gate.refuse(scope, receive, send)
            return
        gate.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            gate.active -= 1


def _declared_too_large(headers: list[tuple[bytes, bytes]]) -> bool:
    """A Content-Length over MAX_INPUT, the one body limit (a body read in chunks meets it in kb.rules.api)."""
    for name, value in headers:
        if name == b"content-length":
            return not value.isdigit() or int(value) > MAX_INPUT
    return False


def find_admission(app: Any) -> Admission | None:
    """The Admission of the kb app inside ``app`` (uvicorn wraps it in its own middleware)."""
    for _ in range(16):
        gate = getattr(getattr(app, "state", None), "admission", None)
        if isinstance(gate, Admission):
            return gate
        app = getattr(app, "app", None)
        if app is None:
            break
    return None


def parse_limit(raw: str | None) -> int:
    """``limit`` as a whole number from 1 to MAX_LIMIT (default DEFAULT_LIMIT)."""
    if raw is None or raw == "":
        return DEFAULT_LIMIT
    if not _LIMIT_RE.fullmatch(raw) or not 1 <= int(raw) <= MAX_LIMIT:
        raise BadRequest(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return int(raw)


def parse_laws(value: str | None) -> tuple[int, int] | None:
    """The laws=N-M filter, validated like kb search --laws."""
    if value is None or value == "":
        return None
    from kb.search.request import parse_law_range
    try:
        return parse_law_range(value)
    except KbError as exc:
        raise BadRequest(str(exc).replace("--laws", "laws")) from None


def parse_choice(name: str, raw: str | None, choices: tuple[str, ...]) -> str | None:
    """An optional argument that must be one of ``choices`` (empty means absent)."""
    if raw is None or raw == "":
        return None
    if raw not in choices:
        raise BadRequest(f"{name} must be one of {', '.join(choices)}")
    return raw


class Service:
    """The records by id, the search processes and an answer cache."""

    def __init__(self, out: Path, cache_size: int = CACHE_SIZE, limits: Limits | None = None):
        from kb.app.build import meta as build_meta
        from kb.app.build import site_dir
        from kb.core.records import read_jsonl

        self.out = out
        self.limits = limits or Limits()
        # the generation resolved now is the one served, by this process and the search processes
        generation = Path(os.path.realpath(out))
        self.searchers = SearchProcesses(generation, self.limits.search_processes)
        try:
            self.site = site_dir(out)
            # the site's files as this build wrote them
            self.site_files = {rel[len("site/"):]: (size, digest) for rel, (size, digest)
                               in (build_meta(out).get("files") or {}).items() if rel.startswith("site/")}
            self.records = {r.id: r for r in read_jsonl(generation / "records.jsonl")}
            self.searchers.wait_ready()
        except BaseException:
            self.searchers.close()
            raise
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._cache_bytes = 0
        self._cache_lock = threading.Lock()
        self.pending = 0  # searches submitted and not finished (changed on the event loop only)
        self.loop_lag = 0.0  # how late the event loop last woke up (see watch_loop)

    async def watch_loop(self) -> None:
        """Measure the event loop's lag every LAG_TICK seconds (smoothed over about LAG_SMOOTHING ticks).

        When requests arrive faster than the loop (which accepts, parses and refuses them) can
        take them, it falls behind and every answer, 503s included, waits. While the loop lags,
        new searches are refused (503) so that it catches up. The smoothing keeps a moment's
        stall (the machine busy elsewhere) from refusing anyone.
        """
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(LAG_TICK)
            lag = loop.time() - started - LAG_TICK
            self.loop_lag += (lag - self.loop_lag) / LAG_SMOOTHING

    def close(self) -> None:
        self.searchers.close()

    async def search(self, key: tuple[Any, ...]) -> bytes:
        """The answer for ``key``: from the cache, or from a search process if there is room (else Busy)."""
        body = self.cached(key)
        if body is not None:
            return body
        if self.pending >= self.limits.max_pending or (self.pending and self.loop_lag > self.limits.max_loop_lag):
            raise Busy()
        self.pending += 1
        try:
            body = await self.searchers.search(key)
        except Refused as exc:
            raise BadRequest(str(exc)) from None
        except Unavailable:
            raise Busy() from None
        finally:
            self.pending -= 1
        self.remember(key, body)
        return body

    def cached(self, key: tuple[Any, ...]) -> bytes | None:
        with self._cache_lock:
            body = self._cache.get(key)
            if body is not None:
                self._cache.move_to_end(key)
            return body

    def remember(self, key: tuple[Any, ...], body: bytes) -> None:
        """Keep an answer in the cache (bounded by entries and bytes; one over 1/16 of the bytes is not kept)."""
        if self.cache_size > 0 and len(body) <= self.limits.cache_bytes // 16:
            with self._cache_lock:
                if key not in self._cache:
                    self._cache[key] = body
                    self._cache_bytes += len(body)
                while len(self._cache) > self.cache_size or self._cache_bytes > self.limits.cache_bytes:
                    self._cache_bytes -= len(self._cache.popitem(last=False)[1])

    def clause(self, rid: str) -> dict[str, Any] | None:
        rec = self.records.get(rid)
        return None if rec is None else rec.to_json()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class DamagedFile(HTTPException):
    """A site file whose bytes are not the build's: refused with 503 (see _SiteFiles)."""

    def __init__(self, rel: str):
        super().__init__(status_code=503, detail=rel)


DAMAGED = ("<p>这一页的文件与构建记录不符（已损坏或被改动），服务器不提供它 · 這一頁的檔案與建置記錄不符，伺服器不提供它："
           "<code>{path}</code></p><p>请管理员重新构建（<code>kb build --force</code>）· 請管理員重新建置</p>"
           '<p><a href="/hans/">简体版首页</a> · <a href="/hant/">繁體版首頁</a></p>')


class _SiteFiles(StaticFiles):
    """The built site, each file served only while its bytes are the build's.

    ``recorded``: the build's {path under the site: (size, sha256)} (meta.json "files"). A file's
    sha256 is computed when it is first served and again whenever its inode, mtime or size
    changes (a stat per request, which StaticFiles makes anyway); a file that differs from the
    record, or that the build did not write, is refused (DamagedFile) and named once in the
    server's log. Its /404.html is for static hosts: here a missing address gets kb serve's own
    answer (the page naming the address; JSON under /api/), so StaticFiles never serves that file.
    """

    def __init__(self, *, directory: Path, recorded: dict[str, tuple[int, str]], html: bool = True):
        super().__init__(directory=directory, html=html)
        self.root = os.path.realpath(directory)
        self.recorded = recorded
        self._checked: dict[str, tuple[tuple[int, int, int], bool]] = {}  # rel -> (ino, mtime, size), intact

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if path.strip("/") == "404.html":
            return "", None
        full_path, st = super().lookup_path(path)
        if st is not None and stat.S_ISREG(st.st_mode):
            rel = os.path.relpath(full_path, self.root).replace(os.sep, "/")
            if not self.intact(rel, full_path, st):
                raise DamagedFile(rel)
        return full_path, st

    def intact(self, rel: str, full_path: str, st: os.stat_result) -> bool:
        """Whether ``rel``'s bytes are the build's (hashed again only when its stat changed)."""
        state = (st.st_ino, st.st_mtime_ns, st.st_size)
        seen = self._checked.get(rel)
        if seen is not None and seen[0] == state:
            return seen[1]
        want = self.recorded.get(rel)
        if want is None:
            why = "not part of the build"
        elif want[0] != st.st_size:
            why = f"{st.st_size} bytes, the build wrote {want[0]}"
        else:
            try:
                why = "" if sha256_file(Path(full_path)) == want[1] else "sha256 differs from the build's record"
            except OSError as exc:
                why = f"cannot read ({exc.strerror})"
        self._checked[rel] = (state, not why)
        if why:
            logging.getLogger("uvicorn.error").error("site file %s: %s; refused (503) until it is rebuilt "
                                                     "(`kb build --force`)", full_path, why)
        return not why


async def _http_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, DamagedFile):
        page = SMALL_PAGE.format(lang="zh", title="503 · 牌规知识库", heading="503",
                                 body=DAMAGED.format(path=html.escape(exc.detail)))
        return HTMLResponse(page, status_code=503)
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if request.url.path.startswith("/api/") or status != 404:
        message = {404: "not found", 405: "method not allowed"}.get(status, "error")
        headers = getattr(exc, "headers", None)
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    return HTMLResponse(not_found_page(request.url.path), status_code=404)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _error(500, "internal error")


_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)([^>]*)>(.*?)</script\s*>", re.S | re.I)
_DATA_SCRIPT = re.compile(r"""type\s*=\s*["']?application/(ld\+)?json""", re.I)


def inline_script_hashes(site: Path) -> list[str]:
    """CSP sources ('sha256-…') of every executable inline script in the built HTML."""
    found: set[str] = set()
    for path in sorted(site.rglob("*.html")):
        for m in _INLINE_SCRIPT.finditer(path.read_text(encoding="utf-8", errors="replace")):
            if not _DATA_SCRIPT.search(m.group(1)):
                digest = base64.b64encode(hashlib.sha256(m.group(2).encode("utf-8")).digest()).decode()
                found.add(f"'sha256-{digest}'")
    return sorted(found)


def content_security_policy(script_hashes: Sequence[str]) -> str:
    """Only this origin's scripts and the built inline ones; WebAssembly allowed (a static search may use it)."""
    return "; ".join([
        "default-src 'self'", "script-src 'self' 'wasm-unsafe-eval' " + " ".join(script_hashes), "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:", "font-src 'self' data:", "connect-src 'self'", "worker-src 'self'",
        "manifest-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'",
        "frame-ancestors 'none'",
    ])


# Every response that is not a page (scripts, styles, data, the API, the service worker): such a
# response runs nothing inline, so the page's script hashes (≈0.7 KB) would be dead weight on each.
# A worker's fetches and a script's own imports stay allowed: the service worker is ruled by this one.
# A 304 carries the full one (it carries no type, and the browser keeps its headers for the cached page).
SHORT_CSP = "default-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"


def cache_control(path: str, status: int) -> bytes:
    """Long-lived for fingerprinted files (a hash in the name), revalidate everything else."""
    if status >= 400 or path == "/api/health":
        return b"no-store"
    if path.startswith("/api/"):
        return b"public, max-age=60"
    if _FINGERPRINTED.search(path) and not path.endswith(".html"):
        return b"public, max-age=31536000, immutable"
    return b"no-cache"


# Marks a page as served with the API beside it: the site's script asks /api/search only then,
# so a static host (no cookie) gets no request it cannot answer (docs/assets/kb.js).
API_COOKIE = b"kb-api=1; Path=/; SameSite=Strict"


class SiteHeaders:
    """Security and cache headers on every response; relative redirects; a header-count limit;
    the API's cookie on pages.

    Pure ASGI (no buffering). Redirect targets never carry the request's Host: an absolute
    Location is cut to its path.
    """

    def __init__(self, app: ASGIApp, csp: str, max_headers: int):
        self.app = app
        self.csp = csp.encode()
        self.short_csp = SHORT_CSP.encode()
        self.max_headers = max_headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(scope["headers"]) > self.max_headers:
            response = JSONResponse({"error": f"more than {self.max_headers} request headers"}, status_code=431)
            await response(scope, receive, send)
            return
        path = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"cache-control"]
                if 300 <= status < 400:
                    headers = [(k, _relative(v) if k.lower() == b"location" else v) for k, v in headers]
                page = any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers)
                if status == 200 and page:
                    headers.append((b"set-cookie", API_COOKIE))
                headers += [
                    (b"cache-control", cache_control(path, status)),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                    (b"x-frame-options", b"DENY"),
                    # a 304's headers replace the cached response's: a page revalidated must keep its own
                    (b"content-security-policy", self.csp if page or status == 304 else self.short_csp),
                ]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _relative(location: bytes) -> bytes:
    """http://host:port/a/b?c -> /a/b?c (a redirect never names the Host it was asked with)."""
    m = re.match(rb"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*", location)
    return (location[m.end():] or b"/") if m else location


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI 3.1 description of the JSON API."""
    from kb.rules.api import openapi as rules_openapi
    rules = rules_openapi()          # the calculators' routes, each bridge ruling's body from its declaration
    error = {"$ref": "#/components/schemas/Error"}
    err = lambda why: {"description": why, "content": {"application/json": {"schema": error}}}  # noqa: E731
    return {
        "openapi": "3.1.0",
        "info": {"title": "牌规知识库 API", "version": "1",
                 "description": "Search the clause records and read one record."},
        "paths": {
            "/api/search": {"get": {
                "summary": "Search the clauses (words, quoted phrases, citations like 45C4(b) or 第64条B款)",
                "parameters": [
                    {"name": "q", "in": "query", "required": True,
                     "schema": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS},
                     "description": "the query; control characters are removed and whitespace collapsed"},
                    {"name": "work", "in": "query", "schema": {"type": "string", "enum": list(WORKS)}},
                    {"name": "limit", "in": "query",
                     "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                                "default": DEFAULT_LIMIT}},
                    {"name": "script", "in": "query", "schema": {"type": "string", "enum": list(SCRIPTS)},
                     "description": "script of titles and snippets (default: that of the query)"},
                    {"name": "laws", "in": "query", "schema": {"type": "string", "pattern": "^\\d{1,2}(-\\d{1,2})?$"},
                     "description": "only bridge laws N to M, e.g. 61-64"},
                    {"name": "lead", "in": "query", "schema": {"type": "string", "enum": list(WORKS)},
                     "description": "the work whose clause leads a clause and its twin (the book being read)"},
                ],
                "responses": {
                    "200": {"description": "the results, best first, and a note on what no book holds",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Answer"}}}},
                    "400": err("a missing, empty or too long q, or one of too many quoted phrases or terms; a "
                               "parameter that is not UTF-8; an unknown work or lead; a bad limit, script or laws"),
                },
            }},
            "/api/clause/{id}": {"get": {
                "summary": "One record by id (cbr1999:45C4b, twmj16:patterns.13)",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {
                    "200": {"description": "the record", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Record"}}}},
                    "404": err("no record with that id"),
                },
            }},
            "/api/health": {"get": {"summary": "Liveness, record count and searches refused as busy", "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {
                        "status": {"type": "string"}, "records": {"type": "integer"},
                        "refused": {"type": "integer",
                                    "description": "searches answered 503 (busy) since the server started"}}}}}}}}},
            **rules["paths"],
        },
        "components": {"schemas": {
            "Answer": {"type": "object", "required": ["results", "not_held"], "properties": {
                "results": {"type": "array", "items": {"$ref": "#/components/schemas/Result"}},
                "not_held": {"type": ["object", "null"], "required": ["matters", "weak", "text"],
                             "description": "the matters no book holds that the question may concern, and "
                                            "whether the results were withheld as matching it too little",
                             "properties": {
                                 "matters": {"type": "array", "items": {"type": "object", "properties": {
                                     "matter": {"type": "string", "examples": ["16", "riichi"]},
                                     "law": {"type": ["integer", "null"]}, "title": {"type": "string"}}}},
                                 "weak": {"type": "boolean"}, "text": {"type": "string"},
                                 "codes": {"type": "array", "description":
                                           "present when the question cites the 2017 Laws (2017 27B1b) by a "
                                           "citation no clause here answers itself: the nearest one above it "
                                           "that one does, or none; or by a number that is no citation",
                                           "items": {"type": "object", "properties": {
                                               "code": {"type": "string", "examples": ["2017"]},
                                               "asked": {"type": "string"},
                                               "citation": {"type": ["string", "null"], "examples": ["27B1b"]},
                                               "nearest": {"type": ["string", "null"], "examples": ["27B"]},
                                               "text": {"type": "string"}}}}}}}},
            "Error": {"type": "object", "required": ["error"],
                      "properties": {"error": {"type": "string"}}},
            "Result": {"type": "object",
                       "required": ["id", "citation", "work", "title", "score", "snippet", "url"],
                       "properties": {
                           "id": {"type": "string", "examples": ["cbr1999:45C4b"]},
                           "citation": {"type": "string", "examples": ["45C4(b)"]},
                           "work": {"type": "string", "enum": list(WORKS)},
                           "title": {"type": "string"},
                           "score": {"type": "number"},
                           "snippet": {"type": "string", "description":
                                       "HTML: escaped text whose only tags are <mark> and </mark>"},
                           "url": {"type": ["string", "null"], "description":
                                   "the clause's permalink relative to an edition root "
                                   "(/hans/ or /hant/), e.g. cbr1999/law-45/#45C4b"},
                           "under": {"type": "object", "required": ["citation", "title", "name", "text"],
                                     "description": "the clause this one stands under: its citation, its title "
                                                    "(empty when cited by it), the name shown (citation and "
                                                    "title) and its text when that is a lead-in ending in a "
                                                    "colon, which this clause finishes",
                                     "properties": {"citation": {"type": "string", "examples": ["43B2"]},
                                                    "title": {"type": "string"},
                                                    "name": {"type": "string", "examples": ["43B2 特别判罚"]},
                                                    "text": {"type": "string"}}},
                           "in_force": {"type": "object", "required": ["code", "citations", "change", "text"],
                                        "description": "present when the clause was found by a 2017 citation "
                                                       "(2017 27B1b, 新规则 27B): what the 2017 Laws made of it, "
                                                       "and the line shown under it on its page",
                                        "properties": {"code": {"type": "string", "examples": ["2017"]},
                                                       "citations": {"type": "array", "items": {"type": "string"},
                                                                     "examples": [["27B1a"]]},
                                                       "change": {"type": "string", "enum": list(CHANGES)},
                                                       "text": {"type": "string",
                                                                "examples": ["2017 版：27B1(a)，规定有实质变化"]}}},
                       }},
            "Record": {"type": "object", "required": ["id", "work", "citation", "level"],
                       "description": "a clause record (see kb/core/records.py)",
                       "additionalProperties": True},
            **rules["schemas"],
        }},
    }


def create_app(out: Path | None = None, *, cache_size: int = CACHE_SIZE,
               limits: Limits | None = None) -> Starlette:
    """The ASGI app for a build directory (built first if missing or stale, its checksums verified)."""
    from kb.app.build import ensure_built
    from kb.rules import api as rules_api

    limits = limits or Limits()
    out = ensure_built(out, need_site=True)
    service = Service(out, cache_size, limits)
    csp = content_security_policy(inline_script_hashes(service.site))
    schema = json.dumps(openapi_schema(), ensure_ascii=False).encode("utf-8")

    async def api_search(request: Request) -> Response:
        try:
            params = query_params(request.scope)
            q = clean_query(params.get("q"))
            key = (q, parse_choice("work", params.get("work"), WORKS),
                   parse_limit(params.get("limit")), parse_choice("script", params.get("script"), SCRIPTS),
                   parse_laws(params.get("laws")), parse_choice("lead", params.get("lead"), WORKS))
            body = await service.search(key)
        except BadRequest as exc:
            return _error(400, str(exc))
        except Busy:
            return JSONResponse({"error": f"busy: {limits.max_pending} searches in progress; retry shortly"},
                                status_code=503, headers={"Retry-After": "1"})
        return Response(body, media_type="application/json")

    async def api_clause(request: Request) -> Response:
        rec = service.clause(request.path_params["id"])
        if rec is None:
            return _error(404, "no such clause")
        return JSONResponse(rec)

    async def api_health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "records": len(service.records), "refused": admission.refused})

    async def api_openapi(request: Request) -> Response:
        return Response(schema, media_type="application/json")

    async def root(request: Request) -> Response:
        """The edition the browser asks for (zh-TW, zh-HK, zh-Hant → /hant/; otherwise /hans/)."""
        edition = edition_for(request.headers.get("accept-language", ""))
        return RedirectResponse(f"/{edition}/", status_code=302, headers={"Vary": "Accept-Language"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        watcher = asyncio.create_task(service.watch_loop())
        try:
            yield
        finally:
            watcher.cancel()
            service.close()

    app = Starlette(
        routes=[
            Route("/api/search", api_search, methods=["GET"]),
            Route("/api/clause/{id}", api_clause, methods=["GET"]),
            Route("/api/health", api_health, methods=["GET"]),
            Route("/api/openapi.json", api_openapi, methods=["GET"]),
            Route("/", root, methods=["GET"]),
            Mount("/api/rules", routes=rules_api.routes()),
            Mount("/", app=_SiteFiles(directory=Path(os.path.realpath(service.site)), recorded=service.site_files)),
        ],
        exception_handlers={HTTPException: _http_error, 500: _server_error},
        lifespan=lifespan,
    )
    # Each added one is outside the last: admission first, then hosts; gzip outside the header middleware.
    app.add_middleware(SiteHeaders, csp=csp, max_headers=limits.max_headers)
    app.add_middleware(GZipMiddleware, minimum_size=500, compresslevel=6)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(limits.allowed_hosts), www_redirect=False)
    admission = Admission(limits.max_pending)
    app.add_middleware(AdmitSearches, admission=admission)
    app.state.service = service
    app.state.admission = admission
    return app


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: a free one); KbError if impossible."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family = infos[0][0]
        return socket.create_server((host, port), family=family, backlog=512)
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        if isinstance(exc, socket.gaierror):
            why = exc.strerror or str(exc)
        raise KbError(f"cannot listen on {host}:{port} ({why})") from None


def base_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
                  b"connection: close\r\ncontent-length: 38\r\n\r\n"
                  b'{"error": "request head is too large"}')


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a bound on each request head and a deadline for each request.

    uvicorn closes idle keep-alive connections, but any byte received cancels that timer,
    and a new connection has none: a client sending a request a byte at a time (or never
    finishing it) would hold its connection forever, and httptools keeps a head of any
    size. Here a deadline starts with the connection and with the first byte of each
    request and is cancelled once the whole request has arrived; when it passes first, the
    connection is closed. More than ``max_header_bytes`` before the head is complete is
    answered 431 and the connection closed.
    """

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        config: Any = self.config
        if not hasattr(config, "kb_admission"):
            config.kb_admission = find_admission(self.app)
        self._admission: Admission | None = config.kb_admission
        self._admitted = None if self._admission is None else Admitted(self.app, self._admission)
        self._refused_at = -1e9
        self._deadline: asyncio.TimerHandle | None = None
        self._in_head = True
        self._head_bytes = 0
        self._head_tail = b""  # the last bytes of the head so far (its end may span two reads)
        self._arm()

    def _arm(self) -> None:
        if self._deadline is None:
            timeout = getattr(self.config, "kb_request_timeout", Limits.request_timeout)
            self._deadline = self.loop.call_later(timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def _refused_whole(self, data: bytes) -> bool:
        """Answer the prebuilt 503 to a search that came whole in ``data`` while the admitted set is full.

        Only for the plain case: the connection idle between requests, one HTTP/1.1 GET of
        /api/search with no body and no Connection or Upgrade header; anything else takes
        the ordinary path (where AdmitSearches refuses it).
        """
        gate = self._admission
        if (gate is None or gate.active < gate.size or not data.startswith(b"GET /api/search")
                or data[15:16] not in (b"?", b" ") or not data.endswith(b"\r\n\r\n")
                or self._head_bytes or (self.cycle is not None and not self.cycle.response_complete)):
            return False
        head = data.lower()
        line_end = head.find(b"\r\n")
        if (head.find(b"\r\n\r\n") != len(head) - 4 or not head.endswith(b" http/1.1", 0, line_end)
                or b"\r\ncontent-length:" in head or b"\r\ntransfer-encoding:" in head
                or b"\r\nconnection:" in head or b"\r\nupgrade:" in head):
            return False
        self.transport.write(gate.wire)
        gate.refused += 1
        self._refused_at = self.loop.time()  # the keep-alive timer counts from here (see timeout_keep_alive_handler)
        if self.timeout_keep_alive_task is None:  # a connection refused at its first request: idle from now
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive,
                                                                self.timeout_keep_alive_handler)
        return True

    def timeout_keep_alive_handler(self) -> None:
        """Close an idle keep-alive connection; one answered by _refused_whole since the timer was set is not idle."""
        idle = self.loop.time() - self._refused_at
        if idle < self.timeout_keep_alive and not self.transport.is_closing():
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive - idle,
                                                                self.timeout_keep_alive_handler)
            return
        super().timeout_keep_alive_handler()

    def data_received(self, data: bytes) -> None:
        if self._in_head and self._refused_whole(data):
            self._disarm()  # a whole request, answered: nothing for the parser
            return
        self._arm()
        if self._in_head:
            # only the head counts: a body sent with it is the body limit's business (413)
            seen = self._head_tail + data
            end = seen.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else end + 4 - len(self._head_tail)
            self._head_tail = seen[-3:] if end < 0 else b""
            if self._head_bytes > getattr(self.config, "kb_max_header_bytes", Limits.max_header_bytes):
                self._disarm()
                self.transport.write(HEAD_TOO_LARGE)
                self.transport.close()
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        """Admission decided here, in the order heads arrive, for a search on an idle connection: into
        the set (Admitted) or the prebuilt 503 (no middleware, no routing); anything else as uvicorn does."""
        self._in_head = False
        self._head_bytes = 0
        self._head_tail = b""
        gate, url, limit = self._admission, self.url, self.limit_concurrency
        if (gate is None or self._admitted is None or not url.startswith(b"/api/search")
                or url[11:12] not in (b"", b"?") or self.parser.should_upgrade()
                or (self.cycle is not None and not self.cycle.response_complete)
                or (limit is not None and (len(self.connections) >= limit or len(self.tasks) >= limit))):
            super().on_headers_complete()
            return
        admitted = gate.active < gate.size
        app, self.app = self.app, (self._admitted if admitted else gate.refuse)
        if admitted:
            gate.active += 1
        try:
            super().on_headers_complete()
        except BaseException:
            if admitted:
                gate.active -= 1
            raise
        finally:
            self.app = app

    def on_message_complete(self) -> None:
        self._in_head = True
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def server_options(limits: Limits) -> dict[str, Any]:
    """uvicorn's own settings for the limits (see ARCHITECTURE.md, "The search service")."""
    return dict(log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5,
                http=GuardedProtocol, timeout_keep_alive=limits.keep_alive, limit_concurrency=limits.max_connections,
                server_header=False)


def make_config(app: Any, limits: Limits, **extra: Any) -> Any:
    import uvicorn

    config = uvicorn.Config(app, **server_options(limits), **extra)
    config.kb_request_timeout = limits.request_timeout  # type: ignore[attr-defined]
    config.kb_max_header_bytes = limits.max_header_bytes  # type: ignore[attr-defined]
    return config


def announce(url: str) -> None:
    print(f"牌规知识库: {url}/hans/", flush=True)
    print(f"  繁體版 {url}/hant/ · API {url}/api/openapi.json · Ctrl-C 停止", flush=True)


def serve_one(sock: socket.socket, cache_size: int, limits: Limits) -> None:
    """One process: the app in this process, on uvicorn."""
    import uvicorn

    url = base_url(sock)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                announce(url)

    app = create_app(cache_size=cache_size, limits=limits)
    settle()
    Server(make_config(app, limits)).run(sockets=[sock])


def worker_app() -> Starlette:
    """The app of one worker process (``--workers N``), configured by the supervisor's environment."""
    limits = json.loads(os.environ["KB_SERVE_LIMITS"])
    limits["allowed_hosts"] = tuple(limits["allowed_hosts"])
    app = create_app(Path(os.environ["KB_SERVE_BUILD_DIR"]),
                     cache_size=int(os.environ.get("KB_SERVE_CACHE_SIZE", CACHE_SIZE)), limits=Limits(**limits))
    settle()
    return app


def settle() -> None:
    """The process as it serves: a short switch interval (the event loop gets the interpreter lock
    often), and everything loaded so far (records, the app) out of the garbage collector's
    sight, so that its passes during a storm of requests scan only what requests made."""
    import gc

    sys.setswitchinterval(SWITCH_INTERVAL)
    gc.collect()
    gc.freeze()


def serve_workers(sock: socket.socket, cache_size: int, workers: int, limits: Limits) -> None:
    """N worker processes sharing the socket, each with its own search processes and cache."""
    from uvicorn.supervisors.multiprocess import Multiprocess

    from kb.app.build import ensure_built

    out = ensure_built(None, need_site=True)  # build once, here, not in every worker
    os.environ["KB_SERVE_BUILD_DIR"] = str(out)
    os.environ["KB_SERVE_CACHE_SIZE"] = str(cache_size)
    os.environ["KB_SERVE_LIMITS"] = json.dumps(asdict(limits))
    config = make_config("kb.app.serve:worker_app", limits, factory=True, workers=workers,
                         timeout_worker_healthcheck=30)

    class Supervisor(Multiprocess):
        def init_processes(self) -> None:
            super().init_processes()
            if all(p.wait_until_ready(config.timeout_worker_healthcheck, self.should_exit)
                   for p in self.processes):
                announce(base_url(sock))

    Supervisor(config, sockets=[sock]).run()


@functools.cache   # a parser is not changed by parsing: one per process
def make_parser() -> argparse.ArgumentParser:
    """The parser of ``kb serve`` (its defaults: ``Limits``)."""
    p = argparse.ArgumentParser(prog="kb serve", description="Serve the built site and the search API.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--cache-size", type=int, default=CACHE_SIZE, metavar="N",
                   help=f"search answers kept in memory (default {CACHE_SIZE}; 0: none)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes (default 1; each with its own search processes)")
    d = Limits()
    p.add_argument("--search-processes", type=int, default=d.search_processes, metavar="N",
                   help=f"processes running searches, per worker, each with its own engine "
                        f"(default {d.search_processes})")
    p.add_argument("--max-searches", type=int, default=d.max_pending, metavar="N",
                   help=f"searches running or waiting, per worker; beyond: 503 + Retry-After (default {d.max_pending})")
    p.add_argument("--max-connections", type=int, default=d.max_connections, metavar="N",
                   help=f"connections and tasks per worker; beyond: 503 (default {d.max_connections})")
    p.add_argument("--request-timeout", type=float, default=d.request_timeout, metavar="S",
                   help=f"seconds for a request's headers and body to arrive (default {d.request_timeout:g})")
    p.add_argument("--allowed-host", action="append", default=[], metavar="HOST",
                   help="a Host name clients may use besides 127.0.0.1, localhost and --host (repeatable)")
    return p


def main(argv: list[str]) -> int:
    """Entry point of ``kb serve``."""
    p = make_parser()
    args = p.parse_args(argv)
    for name in ("max_searches", "max_connections"):
        if not 1 <= getattr(args, name) <= 100_000:
            p.error(f"--{name.replace('_', '-')} must be from 1 to 100000")
    if not 1 <= args.search_processes <= 64:
        p.error("--search-processes must be from 1 to 64")
    if not 0.1 <= args.request_timeout <= 3600:
        p.error("--request-timeout must be from 0.1 to 3600 seconds")
    hosts = tuple(dict.fromkeys([*LOCAL_HOSTS, args.host, *args.allowed_host]))
    limits = Limits(search_processes=args.search_processes, max_pending=args.max_searches,
                    max_connections=args.max_connections, request_timeout=args.request_timeout,
                    allowed_hosts=hosts)
    if not 0 <= args.port <= 65535:
        p.error(f"--port must be from 0 to 65535, not {args.port}")
    if args.cache_size < 0:
        p.error("--cache-size must not be negative")
    if not 1 <= args.workers <= 32:
        p.error("--workers must be from 1 to 32")
    sock = listen(args.host, args.port)  # fail fast; connections wait in the backlog meanwhile
    try:
        if args.workers == 1:
            serve_one(sock, args.cache_size, limits)
        else:
            serve_workers(sock, args.cache_size, args.workers, limits)
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
