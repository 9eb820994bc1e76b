"""A bridge ruling is declared once, beside its function (kb/rules/bridge/declare.py), and everything
that shows it or asks for it is made from that declaration: the site's form and field guide, the
API and its OpenAPI schema, ``kb bridge COMMAND`` and its --help, the catalogue. A ruling made up
here, registered for the test alone, appears in all of them; and a choice's code has one wording,
the declared one, which the answers and the worked examples' prose use."""
from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from kb.core.errors import KbError
from kb.rules.bridge import prose
from kb.rules.bridge.cards import Result, cids, parse_bool, parse_cards, parse_choice, parse_seat
from kb.rules.bridge.declare import Field, Ruling
from kb.rules.bridge.examples import check_examples
from kb.rules.bridge.registry import BY_COMMAND, BY_NAME, RULINGS, registered

KB = Path(__file__).resolve().parent.parent / "kb"
BRIDGE = check_examples()

# -- a ruling made up for the test --------------------------------------------------------------

TOY_COLOURS = {"red": "红色的玩具", "blue": "蓝色的玩具"}


def toy_ruling(seat: Any, colour: Any, held: Any = None, fast: Any = False) -> Result:
    """A made-up ruling: who plays which toy."""
    who = parse_seat(seat, "seat")
    what = parse_choice(colour, "colour", tuple(TOY_COLOURS))
    cards = parse_cards(held or [], "held")
    assert who is not None and what is not None
    return Result(clauses=cids("44A"), explanation=f"{prose.seat(who)}拿{TOY_COLOURS[what]}"
                  + ("，很快" if parse_bool(fast, "fast") else "") + f"，手中 {len(cards)} 张牌（44A）。")


TOY = Ruling(
    "toy-ruling", toy_ruling, cids("44A"), "玩具裁定：谁拿哪个玩具（测试用）",
    (Field("seat", "seat", "拿玩具的一家"),
     Field("colour", "choice", "玩具的颜色", TOY_COLOURS),
     Field("held", "cards", "玩具旁边的牌"),
     Field("fast", "bool", "拿得很快")),
    situation=lambda i: f"{prose.seat(i['seat'])}伸手拿{prose.value(TOY_COLOURS, i['colour'], 'colour')}。",
    examples=({"title": "东家拿蓝色的玩具", "clause": "cbr1999:44A", "input": {"seat": "E", "colour": "blue"},
               "expect": {"clauses": ["cbr1999:44A"]}},))


@pytest.fixture
def toy():
    with registered(TOY) as ruling:
        yield ruling
    assert "toy-ruling" not in BY_COMMAND and TOY not in RULINGS


@pytest.fixture(scope="module")
def layout(corpus):
    from kb.site.layout import Layout
    return Layout(list(corpus.records))


def _form_of(page: str) -> dict[str, list[dict[str, Any]]]:
    m = re.search(r'data-form="([^"]*)"', page)
    assert m, "no data-form"
    return json.loads(html.unescape(m.group(1)))


def test_a_declared_ruling_is_in_the_form_the_schema_the_api_and_the_cli(toy, layout, capsys, tmp_path):
    from kb.app.serve import openapi_schema
    from kb.rules.api import routes
    from kb.rules.bridge.cli import main as bridge_cli
    from kb.rules.catalogue import entries
    from kb.site.render import Renderer
    from kb.site.rules_pages import bridge_page

    # the site's helper: the question in the list, each field in the form (calculator.js draws it from
    # data-form), its label and choices in the edition's script
    for script, label, words in (("hans", "玩具的颜色", "红色的玩具"), ("hant", "玩具的顏色", "紅色的玩具")):
        page = bridge_page(Renderer(layout, script))
        assert '<option value="toy-ruling">' in page, script
        asked = {f["name"]: f for f in _form_of(page)["toy-ruling"]}
        assert list(asked) == ["seat", "colour", "held", "fast"]
        assert asked["colour"]["label"] == label and asked["colour"]["kind"] == "choice"
        assert asked["colour"]["choices"][0] == ["red", words]
        assert asked["seat"]["choices"][0][0] == "N" and "KH" in asked["held"]["json"]
        assert asked["held"]["optional"] and asked["fast"] == {**asked["fast"], "kind": "bool", "default": False}
        # its worked example, declared with it, is run by the build and offered under the question
        worked = json.loads(html.unescape(re.search(r'data-worked="([^"]*)"', page).group(1)))["toy-ruling"]
        assert [w["title"] for w in worked] == [r.t("东家拿蓝色的玩具") for r in [Renderer(layout, script)]]
        assert worked[0]["situation"].startswith(Renderer(layout, script).t("东家伸手拿"))

    # the OpenAPI description: a path for the command, its body the declared fields
    schema = openapi_schema()
    post = schema["paths"]["/api/rules/bridge/toy-ruling"]["post"]
    body = schema["components"]["schemas"][post["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                                           .rsplit("/", 1)[1]]
    assert body["required"] == ["seat", "colour"] and body["additionalProperties"] is False
    assert body["properties"]["colour"]["enum"] == ["red", "blue"] and body["properties"]["colour"]["title"] == "玩具的颜色"
    assert body["properties"]["seat"]["enum"] == ["N", "E", "S", "W"]
    assert body["properties"]["fast"] == {**body["properties"]["fast"], "type": "boolean", "default": False}
    assert "红色的玩具" in body["properties"]["colour"]["description"]

    # the API answers it
    client = TestClient(Starlette(routes=[Mount("/api/rules", routes=routes())]))
    answer = client.post("/api/rules/bridge/toy-ruling", json={"seat": "E", "colour": "blue"})
    assert answer.status_code == 200 and answer.json()["explanation"].startswith("东家拿蓝色的玩具")
    assert client.post("/api/rules/bridge/toy-ruling", json={"seat": "E"}).status_code == 400

    # kb bridge toy-ruling --help lists each field with the values it takes; the command runs it
    assert bridge_cli(["bridge", "toy-ruling", "--help"]) == 0
    shown = capsys.readouterr().out
    for f in TOY.inputs:
        assert f"{f.name}：{f.label}" in shown, f.name
    assert "red（红色的玩具）、blue（蓝色的玩具）" in shown and "N（北家）" in shown and "（可省略，默认 false）" in shown
    assert bridge_cli(["bridge", "--help"]) == 0 and "toy-ruling" in capsys.readouterr().out
    given = tmp_path / "toy.json"
    given.write_text(json.dumps({"seat": "N", "colour": "red", "fast": True}), encoding="utf-8")
    assert bridge_cli(["bridge", "toy-ruling", str(given)]) == 0
    assert capsys.readouterr().out.startswith("北家拿红色的玩具，很快")

    # the catalogue lists it with its fields
    listed = {e.command: e for e in entries(with_examples=False)}
    assert listed["kb bridge toy-ruling"].fields == ("seat", "colour", "[held]", "[fast]")


def test_a_worked_example_of_a_declared_ruling_is_told_in_its_words(toy):
    from kb.site.examples_text import block
    ex = {"title": "玩具", "clause": "cbr1999:44A", "function": "toy_ruling", "input": {"seat": "S", "colour": "red"},
          "result": toy_ruling("S", "red").to_dict()}
    told = block(ex)
    assert "**情形**　南家伸手拿红色的玩具。" in told and "| 玩具的颜色 | 红色的玩具 |" in told


def test_a_declaration_must_match_its_function():
    with pytest.raises(KbError, match="一一对应"):
        Ruling("toy", toy_ruling, cids("44A"), "x", (Field("seat", "seat", "一家"),), situation=str)
    with pytest.raises(KbError, match="未知的字段种类"):
        Ruling("toy", toy_ruling, cids("44A"), "x", (Field("seat", "place", "一家"), *TOY.inputs[1:]), situation=str)
    with pytest.raises(KbError, match="words"):
        Ruling("toy", toy_ruling, cids("44A"), "x", (TOY.inputs[0], Field("colour", "choice", "颜色"), *TOY.inputs[2:]),
               situation=str)
    with registered(TOY), pytest.raises(KbError, match="已有裁定使用"), registered(TOY):
        pass


def test_every_ruling_of_the_package_is_declared_and_found():
    """Every ruling function of kb/rules/bridge is in the registry through its module's declaration,
    and every worked example's input is what the declared schema describes."""
    assert len(RULINGS) >= 19 and all(BY_NAME[r.name] is r for r in RULINGS)
    for ex in BRIDGE:
        schema = BY_NAME[ex["function"]].schema()
        assert set(schema["required"]) <= set(ex["input"]) <= set(schema["properties"]), ex["title"]
        for key, value in ex["input"].items():
            prop = schema["properties"][key]
            if "enum" in prop:
                assert value in prop["enum"], (ex["title"], key, value)


# -- one wording per code -------------------------------------------------------------------------

def _mappings() -> list[tuple[str, str, dict[str, str]]]:
    """(ruling, field, words) of every declared field with words (a choice's codes, what happened after a revoke)."""
    return [(r.name, f.name, dict(f.words)) for r in RULINGS for f in r.inputs if f.words]


def _wordings(codes: set[str]) -> list[str]:
    """Every dict written in kb/ that words each of ``codes`` in Chinese (a wording of the codes)."""
    found = []
    for path in sorted(KB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Dict) or len(node.keys) < 2:
                continue
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            values = [v for v in node.values if isinstance(v, (ast.Constant, ast.JoinedStr))]
            if len(keys) != len(node.keys) or set(keys) != codes or len(values) != len(node.values):
                continue
            text = " ".join(ast.unparse(v) for v in values)
            if re.search(r"[\u4e00-\u9fff]", text):
                found.append(f"{path.relative_to(KB.parent)}:{node.lineno}")
    return found


def test_every_code_is_worded_once_where_its_ruling_declares_it():
    """A choice's codes have one wording, written once (kb/site kept its own, so a revoke's lead
    was 引牌 in the form and 引出 in the answer): no other dict in kb/ words them."""
    seen: set[tuple[str, ...]] = set()
    for name, key, words in _mappings():
        codes = tuple(sorted(words))
        if codes in seen:
            continue
        seen.add(codes)
        module = BY_NAME[name].function.__module__.replace(".", "/") + ".py"
        found = _wordings(set(codes))
        assert len(found) == 1 and found[0].startswith(module), (name, key, found)


def test_the_answers_and_the_prose_word_codes_in_their_declared_words(monkeypatch):
    """With each declared word marked (〈引牌〉), the answers that name a code (what happened after a
    revoke, declarer's choice under 57, what a player said or did under 68) and the worked examples'
    situations show the marks, and with the marks taken out nothing has changed: the words come
    from the declaration alone."""
    before = {ex["title"]: (BY_NAME[ex["function"]].situation(ex["input"]), ex["result"]["explanation"]) for ex in BRIDGE}
    assert not any("〈" in t or "〉" in t for pair in before.values() for t in pair)
    mappings = _mappings()
    for name, key, words in mappings:
        declared = BY_NAME[name].field(key).words
        assert isinstance(declared, dict)
        for code, word in words.items():
            monkeypatch.setitem(declared, code, f"〈{word}〉")
    shown: set[tuple[str, str, str]] = set()
    for ex in check_examples():
        ruling = BY_NAME[ex["function"]]
        said, answer = ruling.situation(ex["input"]), ex["result"]["explanation"]
        for name, key, words in mappings:
            shown |= {(name, key, where) for where, text in (("situation", said), ("answer", answer))
                      for w in words.values() if f"〈{w}〉" in text}
        assert [t.replace("〈", "").replace("〉", "") for t in (said, answer)] == list(before[ex["title"]]), ex["title"]
    named = {("revoke_established", "events", "answer"), ("premature_play", "declarer_option", "answer"),
             ("claim_or_concession", "act", "answer"), ("revoke_established", "events", "situation"),
             ("lead_out_of_turn", "choice", "situation"), ("penalty_card_obligations", "turn", "situation"),
             ("dummy_rights", "action", "situation"), ("claim_or_concession", "act", "situation")}
    assert named <= shown, named - shown


def test_what_happened_after_a_revoke_reads_alike_in_the_answer_the_prose_and_the_form():
    """The issue's own case: a revoke's later lead is one word (引牌) in the form, the worked example
    and the answer."""
    ruling = BY_NAME["revoke_established"]
    words = ruling.field("events").words
    assert words is not None and words["lead"] == "引牌"
    form = {f["name"]: f for f in ruling.form([])}["events"]
    assert ["lead", "引牌"] in form["actions"]
    checked = 0
    for ex in BRIDGE:
        if ex["function"] != "revoke_established" or ex["result"].get("established_by") is None:
            continue
        events = ex["input"]["events"]
        by = ex["result"]["established_by"]
        told = prose.event(events[by], words)
        assert told in ruling.situation(ex["input"]) and told in ex["result"]["explanation"], ex["title"]
        assert "引出第" not in ex["result"]["explanation"]
        checked += 1
    assert checked >= 3
