"""``kb serve``: the built site and a JSON search API, with Starlette on uvicorn.

    kb serve [--host 127.0.0.1] [--port 8000] [--cache-size N] [--workers N]
    (--port 0 picks a free port)

Routes:
    GET /api/search?q=&work=&limit=&script=   results as ``kb search --json`` prints
                                              them, each with a ``url`` (edition-relative)
    GET /api/clause/{id}                      the record as ``kb show ID --json`` prints it
    GET /api/health                           {"status": "ok", "records": N}
    GET /api/openapi.json                     the OpenAPI description of the above
    GET /                                     redirect to /hans/
    GET /hans/..., /hant/...                  the built site (directory -> index.html)

One search engine (one whoosh index, opened at start-up) serves every request; the
engine serialises its whoosh calls, and requests run it in the threadpool. Answers
are cached by their normalised arguments (the index never changes while serving).
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import socket
import sys
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kb import works
from kb.errors import KbError

WORKS = works.work_ids()
SCRIPTS = ("hans", "hant")
MAX_QUERY_CHARS = 500
MAX_LIMIT = 50
DEFAULT_LIMIT = 10
CACHE_SIZE = 4096
DEFAULT_PORT = 8000
_LIMIT_RE = re.compile(r"[0-9]{1,4}")


class BadRequest(Exception):
    """A request argument that cannot be used; its message goes back as {"error": ...}."""


def clean_query(raw: str | None) -> str:
    """The query with control/format characters removed and whitespace collapsed."""
    if raw is None:
        raise BadRequest("q is required")
    text = "".join(ch for ch in raw if ch.isspace() or unicodedata.category(ch)[0] != "C")
    text = " ".join(text.split())
    if not text:
        raise BadRequest("q must not be empty")
    if len(text) > MAX_QUERY_CHARS:
        raise BadRequest(f"q is too long: {len(text)} characters (at most {MAX_QUERY_CHARS})")
    return text


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
    from kb.search.cli import parse_law_range
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


def record_url(page: str, anchor: str) -> str:
    """Edition-relative URL of a record: cbr1999/law-45.md + 45C4b -> cbr1999/law-45/#45C4b."""
    if page == "index.md" or page.endswith("/index.md"):
        path = page[: -len("index.md")]
    else:
        path = page[: -len(".md")] + "/"
    return f"{path}#{anchor}"


class Service:
    """The records by id, their site URLs, the search engine and an answer cache."""

    def __init__(self, out: Path, cache_size: int = CACHE_SIZE):
        from kb.build import load_records, site_dir
        from kb.search.query import SearchEngine
        from kb.site.layout import Layout

        self.out = out
        self.site = site_dir(out)
        records = load_records(out)
        self.records = {r.id: r for r in records}
        layout = Layout(records)
        self.urls = {rid: record_url(p.page, p.anchor) for rid, p in layout.place.items()}
        self.engine = SearchEngine.open(out / "records.jsonl", out / "index")
        self.engine.search("藏牌 明手", limit=1)  # load jieba's dictionary before the first request
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._cache_lock = threading.Lock()

    def close(self) -> None:
        self.engine.close()

    def cached(self, key: tuple[Any, ...]) -> bytes | None:
        with self._cache_lock:
            body = self._cache.get(key)
            if body is not None:
                self._cache.move_to_end(key)
            return body

    def search_body(self, key: tuple[Any, ...]) -> bytes:
        """The JSON answer for a validated (q, work, limit, script, laws); KbError -> BadRequest."""
        body = self.cached(key)
        if body is not None:
            return body
        q, work, limit, script, laws = key
        try:
            results = self.engine.search(q, limit=limit, work=work, script=script, law_range=laws)
        except KbError as exc:
            raise BadRequest(" ".join(str(exc).split())) from None
        for r in results:
            r["url"] = self.urls.get(r["id"])
        body = json.dumps(results, ensure_ascii=False).encode("utf-8")
        if self.cache_size > 0:
            with self._cache_lock:
                self._cache[key] = body
                if len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return body

    def clause(self, rid: str) -> dict[str, Any] | None:
        rec = self.records.get(rid)
        return None if rec is None else rec.to_json()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


NOT_FOUND_PAGE = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>404 · 牌规知识库</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>404</h1><p>找不到该页面 · 找不到該頁面：<code>{path}</code></p>
<p><a href="/hans/">简体版</a> · <a href="/hant/">繁體版</a></p></body></html>
"""


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if request.url.path.startswith("/api/") or status != 404:
        message = {404: "not found", 405: "method not allowed"}.get(status, "error")
        headers = getattr(exc, "headers", None)
        return JSONResponse({"error": message}, status_code=status, headers=headers)
    return HTMLResponse(NOT_FOUND_PAGE.format(path=html.escape(request.url.path)), status_code=404)


async def _server_error(request: Request, exc: Exception) -> Response:
    return _error(500, "internal error")


class SecurityHeaders:
    """Adds nosniff and a referrer policy to every response (pure ASGI, no buffering)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def openapi_schema() -> dict[str, Any]:
    """The OpenAPI 3.1 description of the JSON API."""
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
                ],
                "responses": {
                    "200": {"description": "results, best first", "content": {"application/json": {
                        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Result"}}}}},
                    "400": err("a missing, empty or too long q; an unknown work; a bad limit, script or laws"),
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
            "/api/health": {"get": {"summary": "Liveness and record count", "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"status": {"type": "string"},
                                                     "records": {"type": "integer"}}}}}}}}},
        },
        "components": {"schemas": {
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
                       }},
            "Record": {"type": "object", "required": ["id", "work", "citation", "level"],
                       "description": "a clause record (see kb/records.py)",
                       "additionalProperties": True},
        }},
    }


def create_app(out: Path | None = None, *, cache_size: int = CACHE_SIZE) -> Starlette:
    """The ASGI app for a build directory (built first if missing or stale)."""
    from kb.build import ensure_built
    from kb.rules import api as rules_api

    out = ensure_built(out, need_site=True)
    service = Service(out, cache_size)
    schema = json.dumps(openapi_schema(), ensure_ascii=False).encode("utf-8")

    async def api_search(request: Request) -> Response:
        params = request.query_params
        try:
            key = (clean_query(params.get("q")), parse_choice("work", params.get("work"), WORKS),
                   parse_limit(params.get("limit")), parse_choice("script", params.get("script"), SCRIPTS),
                   parse_laws(params.get("laws")))
            body = service.cached(key)
            if body is None:
                body = await run_in_threadpool(service.search_body, key)
        except BadRequest as exc:
            return _error(400, str(exc))
        return Response(body, media_type="application/json")

    async def api_clause(request: Request) -> Response:
        rec = service.clause(request.path_params["id"])
        if rec is None:
            return _error(404, "no such clause")
        return JSONResponse(rec)

    async def api_health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "records": len(service.records)})

    async def api_openapi(request: Request) -> Response:
        return Response(schema, media_type="application/json")

    async def root(request: Request) -> Response:
        return RedirectResponse("/hans/", status_code=302)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            service.close()

    app = Starlette(
        routes=[
            Route("/api/search", api_search, methods=["GET"]),
            Route("/api/clause/{id}", api_clause, methods=["GET"]),
            Route("/api/health", api_health, methods=["GET"]),
            Route("/api/openapi.json", api_openapi, methods=["GET"]),
            Route("/", root, methods=["GET"]),
            Mount("/api/rules", routes=rules_api.routes()),
            Mount("/", app=StaticFiles(directory=service.site, html=True)),
        ],
        exception_handlers={HTTPException: _http_error, 500: _server_error},
        lifespan=lifespan,
    )
    app.add_middleware(SecurityHeaders)
    app.state.service = service
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


SERVER_OPTIONS: dict[str, Any] = dict(log_level="warning", access_log=False, lifespan="on",
                                      timeout_graceful_shutdown=5)


def announce(url: str) -> None:
    print(f"牌规知识库: {url}/hans/", flush=True)
    print(f"  繁體版 {url}/hant/ · API {url}/api/openapi.json · Ctrl-C 停止", flush=True)


def serve_one(sock: socket.socket, cache_size: int) -> None:
    """One process: the app in this process, on uvicorn."""
    import uvicorn

    url = base_url(sock)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                announce(url)

    app = create_app(cache_size=cache_size)
    Server(uvicorn.Config(app, **SERVER_OPTIONS)).run(sockets=[sock])


def worker_app() -> Starlette:
    """The app of one worker process (``--workers N``), configured by the supervisor's environment."""
    return create_app(Path(os.environ["KB_SERVE_BUILD_DIR"]),
                      cache_size=int(os.environ.get("KB_SERVE_CACHE_SIZE", CACHE_SIZE)))


def serve_workers(sock: socket.socket, cache_size: int, workers: int) -> None:
    """N worker processes sharing the socket, each with its own index searcher and cache."""
    import uvicorn
    from uvicorn.supervisors.multiprocess import Multiprocess

    from kb.build import ensure_built

    out = ensure_built(None, need_site=True)  # build once, here, not in every worker
    os.environ["KB_SERVE_BUILD_DIR"] = str(out)
    os.environ["KB_SERVE_CACHE_SIZE"] = str(cache_size)
    config = uvicorn.Config("kb.serve:worker_app", factory=True, workers=workers,
                            timeout_worker_healthcheck=30, **SERVER_OPTIONS)

    class Supervisor(Multiprocess):
        def init_processes(self) -> None:
            super().init_processes()
            if all(p.wait_until_ready(config.timeout_worker_healthcheck, self.should_exit)
                   for p in self.processes):
                announce(base_url(sock))

    Supervisor(config, sockets=[sock]).run()


def main(argv: list[str]) -> int:
    """Entry point of ``kb serve``."""
    p = argparse.ArgumentParser(prog="kb serve", description="Serve the built site and the search API.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--cache-size", type=int, default=CACHE_SIZE, metavar="N",
                   help=f"search answers kept in memory (default {CACHE_SIZE}; 0: none)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes (default 1; each holds its own searcher)")
    args = p.parse_args(argv)
    if not 0 <= args.port <= 65535:
        p.error(f"--port must be from 0 to 65535, not {args.port}")
    if args.cache_size < 0:
        p.error("--cache-size must not be negative")
    if not 1 <= args.workers <= 32:
        p.error("--workers must be from 1 to 32")
    sock = listen(args.host, args.port)  # fail fast; connections wait in the backlog meanwhile
    try:
        if args.workers == 1:
            serve_one(sock, args.cache_size)
        else:
            serve_workers(sock, args.cache_size, args.workers)
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
