"""The calculators' API (/api/rules/...), on an app made of its routes alone."""
from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from kb.rules.api import routes


@pytest.fixture(scope="module")
def client():
    return TestClient(Starlette(routes=[Mount("/api/rules", routes=routes())]))


def test_bridge_ruling(client):
    r = client.post("/api/rules/bridge/revoke-established", json={"revoke_trick": 12, "offender": "E", "events": [],
                                                                  "illegal_inquiry": True})
    assert r.status_code == 200 and r.json()["penalty_applies"] is False and "cbr1999:64B6" in r.json()["clauses"]


def test_mahjong_score_line_and_json(client):
    r = client.post("/api/rules/mahjong/score", json={"line": "123m456m789m234p678p55s 自摸"})
    assert r.status_code == 200 and r.json()["total"] == 4
    assert all(i["clause"].startswith("twmj16:") for i in r.json()["items"])


def test_settle(client):
    r = client.post("/api/rules/mahjong/settle", json={"hand": "123m456m789m234p678p55s", "dealer": "下家",
                                                        "discarder": "对家"})
    assert r.status_code == 200 and r.json()["payments"][0]["payer"] == "对家"


@pytest.mark.parametrize("path, body, status", [
    ("/api/rules/bridge/nope", "{}", 404),
    ("/api/rules/bridge/legal-cards", "{bad", 400),
    ("/api/rules/bridge/legal-cards", '{"hand": ["ZZ"]}', 400),
    ("/api/rules/mahjong/score", '{"line": "123x"}', 400),
    ("/api/rules/mahjong/score", "[" * 70000, 413),
    ("/api/rules/mahjong/score", '{"concealed": ' + "9" * 5000 + "}", 400),
    ("/api/rules/mahjong/settle", '{"hand": "123m"}', 400),
    ("/api/rules/mahjong/score", '{"line": "123m\\ud800"}', 400),        # a lone surrogate: not text
])
def test_bad_requests(client, path, body, status):
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == status and "error" in r.json()


def test_catalogue(client):
    data = client.get("/api/rules/catalogue").json()
    assert any(e["command"] == "kb mahjong settle" for e in data)


def test_traditional_script(client):
    r = client.post("/api/rules/mahjong/score?script=hant", json={"line": "123m456m789m234p678p55s 自摸"})
    assert [i["name"] for i in r.json()["items"]] == ["門清", "不求·自摸", "獨聽"]
    assert r.json()["items"][0]["clause"] == "twmj16:patterns.3"
    assert client.post("/api/rules/mahjong/score?script=x", json={}).status_code == 400


def test_the_openapi_description_has_every_ruling_with_its_declared_fields():
    from kb.app.serve import openapi_schema
    from kb.rules.bridge.registry import RULINGS
    doc = openapi_schema()
    for ruling in RULINGS:
        post = doc["paths"][f"/api/rules/bridge/{ruling.command}"]["post"]
        ref = post["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        body = doc["components"]["schemas"][ref]
        assert list(body["properties"]) == [f.name for f in ruling.inputs]
        assert body["required"] == [f.name for f in ruling.inputs if not f.optional]
        assert post["summary"] == ruling.summary
    choice = doc["components"]["schemas"]["Bridge_lead_out_of_turn"]["properties"]["choice"]
    assert choice["enum"] == ["accept", "declarer_faces_hand", "withdraw", None] and choice["default"] is None
    assert "/api/rules/catalogue" in doc["paths"] and "/api/search" in doc["paths"]
