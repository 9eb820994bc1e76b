"""JSON API for the calculators: ``/api/rules/...`` (mounted by kb/app/serve.py).

``GET  /api/rules/catalogue``            every encoded ruling (as ``kb rules list --json``, without counts)
``POST /api/rules/bridge/{command}``     body: the ruling's JSON object → its result (``kb bridge COMMAND --json``)
``POST /api/rules/mahjong/score``        body: a hand as JSON, or ``{"line": "123m…"}`` → ``kb mahjong score --json``
``POST /api/rules/mahjong/settle``       body: as ``kb mahjong settle`` → payments
``?script=hant`` gives every text of the answer in Traditional script.
Bad input is a 400 with ``{"error": one line}``; an unknown command a 404; a body over
``kb.rules.inputs.MAX_INPUT`` bytes a 413 naming it.
"""
from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from kb.core.errors import KbError
from kb.rules.bridge.registry import BY_COMMAND, call
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
            or "hand" not in data or "dealer" not in data:
        raise KbError("body: 应为 JSON 对象，含 hand、dealer（可选 discarder、streak_shown）")
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
