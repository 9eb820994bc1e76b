"""JSON API for the calculators: ``/api/rules/...`` (mounted by kb/app/serve.py).

``GET  /api/rules/catalogue``            every encoded ruling (as ``kb rules list --json``, without counts)
``POST /api/rules/bridge/{command}``     body: the ruling's JSON object → its result (``kb bridge COMMAND --json``)
``POST /api/rules/mahjong/score``        body: a hand as JSON, or ``{"line": "123m…"}`` → ``kb mahjong score --json``
``POST /api/rules/mahjong/settle``       body: as ``kb mahjong settle`` → payments
``?script=hant`` gives every text of the answer in Traditional script.
Bad input is a 400 with ``{"error": one line}``; an unknown command a 404; a body over
``kb.rules.inputs.MAX_INPUT`` bytes a 413 naming it. :func:`openapi` describes these routes for
/api/openapi.json, each bridge ruling's body from its declaration.
"""
from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kb.core.errors import KbError
from kb.rules.bridge.registry import BY_COMMAND, RULINGS, call
from kb.rules.catalogue import entries
from kb.rules.inputs import MAX_INPUT, TOO_LARGE, parse_json
from kb.rules.mahjong.notation import parse_line
from kb.rules.mahjong.scoring import score
from kb.rules.mahjong.settlement import settle


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> Any:
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_INPUT):
        raise _TooLarge
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_INPUT:
            raise _TooLarge
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KbError("body: 不是 UTF-8 文本") from None
    return parse_json(text, "body")


class _TooLarge(Exception):
    pass


def _hand(data: Any) -> Any:
    if isinstance(data, dict) and set(data) == {"line"}:
        if not isinstance(data["line"], str):
            raise KbError("line: 应为一行手牌文字")
        return parse_line(data["line"])
    return data


def _settle(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not set(data) <= {"hand", "dealer", "discarder", "streak_shown"} \
            or "hand" not in data:
        raise KbError("body: 应为 JSON 对象，含 hand（可选 dealer、discarder、streak_shown；未给 dealer 时按门风推定，否则按下家为庄）")
    hand = data["hand"]
    return settle(**{**data, "hand": parse_line(hand) if isinstance(hand, str) else hand})


def _hant(value: Any) -> Any:
    """Every string of a result in Traditional script (the hant edition's calculators)."""
    from kb.ingest.normalise import to_hant
    if isinstance(value, str):
        return to_hant(value)
    if isinstance(value, list):
        return [_hant(v) for v in value]
    if isinstance(value, dict):
        return {k: v if k in ("clause", "clauses", "tiles", "waits") else _hant(v) for k, v in value.items()}
    return value


async def _run(request: Request, work: Any) -> Response:
    script = request.query_params.get("script", "hans")
    if script not in ("hans", "hant"):
        return _error(400, "script: 应为 hans 或 hant")
    try:
        data = await _body(request)
        result = await run_in_threadpool(work, data)
        if script == "hant":
            result = await run_in_threadpool(_hant, result)
    except _TooLarge:
        return _error(413, TOO_LARGE)
    except KbError as exc:
        return _error(400, str(exc) if script == "hans" else _hant(str(exc)))
    return JSONResponse(result)


async def bridge(request: Request) -> Response:
    ruling = BY_COMMAND.get(request.path_params["command"])
    if ruling is None:
        return _error(404, f"no ruling {request.path_params['command']!r} (see /api/rules/catalogue)")
    return await _run(request, lambda data: call(ruling.name, data, where="body").to_dict())


async def mahjong_score(request: Request) -> Response:
    return await _run(request, lambda data: score(_hand(data)))


async def mahjong_settle(request: Request) -> Response:
    return await _run(request, _settle)


async def catalogue(request: Request) -> Response:
    return JSONResponse([e.to_json() for e in entries(with_examples=False)])


def routes() -> list[Route]:
    """The routes, relative to the mount point ``/api/rules``."""
    return [
        Route("/catalogue", catalogue, methods=["GET"]),
        Route("/bridge/{command}", bridge, methods=["POST"]),
        Route("/mahjong/score", mahjong_score, methods=["POST"]),
        Route("/mahjong/settle", mahjong_settle, methods=["POST"]),
    ]


def openapi() -> dict[str, Any]:
    """The OpenAPI paths and component schemas of these routes (under ``/api/rules``): one path per
    bridge ruling, its body the ruling's declared fields (kb/rules/bridge/declare.py)."""
    script = {"name": "script", "in": "query", "schema": {"type": "string", "enum": ["hans", "hant"], "default": "hans"},
              "description": "script of every text of the answer"}
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    answer = {"type": "object", "required": ["clauses", "explanation"], "additionalProperties": True,
              "properties": {"clauses": {"type": "array", "items": {"type": "string", "examples": ["cbr1999:44C"]}},
                             "explanation": {"type": "string"}}}
    paths: dict[str, Any] = {"/api/rules/catalogue": {"get": {
        "summary": "Every encoded ruling: command, summary, clauses, laws, input fields",
        "responses": {"200": {"description": "the catalogue", "content": {"application/json": {
            "schema": {"type": "array", "items": {"type": "object"}}}}}}}}}
    schemas: dict[str, Any] = {"RulingAnswer": answer}
    for ruling in RULINGS:
        name = "Bridge_" + ruling.name
        schemas[name] = ruling.schema()
        paths[f"/api/rules/bridge/{ruling.command}"] = {"post": {
            "summary": ruling.summary, "operationId": f"bridge_{ruling.name}", "tags": ["bridge"],
            "description": f"kb bridge {ruling.command}; clauses: {'、'.join(ruling.clauses)}",
            "parameters": [script],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{name}"}}}},
            "responses": {"200": {"description": "the ruling: its clauses and explanation, with what it decides",
                                  "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RulingAnswer"}}}},
                          "400": {"description": "bad input (the field named)", **error},
                          "413": {"description": "a body over 64 KB", **error}}}}
    return {"paths": paths, "schemas": schemas}
