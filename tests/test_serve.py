"""The search service (kb serve): JSON API, validation, hostile input, static site."""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
import starlette.testclient as starlette_testclient  # noqa: E402

from kb.app.build import load_records  # noqa: E402
from kb.app.serve import create_app, record_url  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("KB_BUILD_DIR", ROOT / "build")).absolute()
WORKS = {"cbr1999", "laws1997", "twmj16"}

HOSTILE = [
    "", " ", "\t\n", "，。！？", "!!!???", "……", '"', '"藏牌', "「藏牌", "(((", "))", "[藏牌", "{}",
    "AND", "OR", "NOT", "藏牌 AND", "AND OR NOT", "NOT 藏牌", "*", "藏*", "?", "~2", "^3",
    "title:藏牌", "id:cbr1999:63A", "work:twmj16", "text:", ":", "::::", "a" * 10_000, "藏 " * 5_000, "藏" * 3_000,
    "\x00", "藏\x00牌", "\x1b[31m藏牌", "\u200b\u200e", "\uffff", "\U0010fffe", "\ufeff藏牌",
    "<script>alert(1)</script>", '<img src=x onerror="alert(1)">藏牌', "</mark><script>x</script>",
    "&lt;mark&gt;", "'; DROP TABLE records; --", "../../etc/passwd", "%00", "第第第条", "45C4(b)(",
    "第999条", "0", "-1", "45Z9z", "twmj16:", "cbr1999:45C4b", "💀🀄", "罰張" * 300,
]


@pytest.fixture(scope="module")
def client():
    app = create_app(BUILD)
    with starlette_testclient.TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def answer(client, **params) -> dict:
    """The API's answer: {"results": [...], "not_held": {...} or null}."""
    r = client.get("/api/search", params=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"results", "not_held"}, body
    return body


def search(client, **params) -> list[dict]:
    return answer(client, **params)["results"]


def assert_safe_snippets(results: list[dict]) -> None:
    for r in results:
        bare = re.sub(r"</?mark>", "", r["snippet"])
        assert "<" not in bare and ">" not in bare, r["snippet"]


def test_results_are_kb_search_json_plus_url(client):
    from kb.search.cli import main as kb_search

    for q in ("藏牌", "罰張", "明手建议", "第64条B款", "字一色"):
        out = io.StringIO()
        assert kb_search(["--json", "--records", str(BUILD / "records.jsonl"), "--index", str(BUILD / "index"),
                          "--limit", "10", q], stdout=out) == 0
        expected = json.loads(out.getvalue())["results"]
        got = search(client, q=q)
        def without_urls(r: dict) -> dict:
            return {k: ([without_urls(t) for t in v] if k == "twins" else v) for k, v in r.items() if k != "url"}
        assert [without_urls(r) for r in got] == expected
        assert all(set(r) - {"tai", "under"} == {"id", "citation", "work", "title", "score", "snippet", "twins", "url"}
                   for r in got)
        assert all(r["work"] == "twmj16" and r["tai"] for r in got if "tai" in r)   # a scoring item's 台
        assert all(t["url"] and t["url"].split("#")[1] == t["id"].split(":")[1] for r in got for t in r["twins"])


def test_the_answer_says_what_no_book_holds(client):
    """Issue 35: the API's answer carries the note kb search gives, for every matter outside the
    books (questions.outside_questions), in the script asked for; none for a held matter."""
    from questions import outside_questions

    from kb.search.cli import main as kb_search

    questions = outside_questions()
    for q in questions:
        out = io.StringIO()
        assert kb_search(["--json", "--records", str(BUILD / "records.jsonl"), "--index", str(BUILD / "index"),
                          q], stdout=out) == 0
        note = answer(client, q=q)["not_held"]
        assert note is not None and note == json.loads(out.getvalue())["not_held"], q
    assert answer(client, q="屏风", script="hant")["not_held"]["text"].startswith("此問可能涉及屏風")
    assert answer(client, q="藏牌")["not_held"] is None
    doc = client.get("/api/openapi.json").json()
    ok = doc["paths"]["/api/search"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/Answer"} and "not_held" in doc["components"]["schemas"]["Answer"]["required"]


def test_first_hit_for_hidden_card(client):
    first = search(client, q="藏牌")[0]
    assert first["work"] == "cbr1999" and "藏牌" in first["title"]
    assert first["id"].split(":")[1][:2] in {"61", "62", "63", "64"}
    assert "<mark>藏牌</mark>" in first["snippet"]


def test_first_hit_for_citation(client):
    first = search(client, q="第64条B款")[0]
    assert first["id"] == "cbr1999:64B"
    assert first["url"] == "cbr1999/law-64/#64B"


def test_url_is_the_clause_permalink(client):
    results = search(client, q="字一色", limit=5)
    hit = next(r for r in results if r["id"] == "twmj16:patterns.13")
    assert hit["url"] == "twmj16/patterns/#patterns-13"
    for r in search(client, q="明手", limit=50):
        page, anchor = r["url"].split("#")
        html = (BUILD.parent / "site" / "hans" / page / "index.html").read_text(encoding="utf-8")
        assert f'id="{anchor}"' in html, r["url"]


def test_record_url():
    assert record_url("cbr1999/law-45.md", "45C4b") == "cbr1999/law-45/#45C4b"
    assert record_url("twmj16/patterns.md", "patterns-13") == "twmj16/patterns/#patterns-13"
    assert record_url("twmj16/index.md", "x") == "twmj16/#x"


def test_script_follows_the_edition(client):
    hant = search(client, q="罚张", script="hant", limit=3)
    hans = search(client, q="罰張", script="hans", limit=3)
    assert any("罰張" in r["snippet"] for r in hant)
    assert any("罚张" in r["snippet"] for r in hans)


def test_work_filter(client):
    for work in WORKS:
        results = search(client, q="犯规", work=work, limit=50)
        assert results and {r["work"] for r in results} == {work}
    assert {r["work"] for r in search(client, q="防守人 攻牌", work="laws1997")} == {"laws1997"}


def test_the_book_being_read_leads_a_clause_and_its_twin(client):
    assert [(r["id"], r["twins"][0]["id"]) for r in search(client, q="47E2")[:1]] == [("cbr1999:47E2", "laws1997:47E2")]
    assert [(r["id"], r["twins"][0]["id"]) for r in search(client, q="47E2", lead="laws1997")[:1]] == \
        [("laws1997:47E2", "cbr1999:47E2")]
    # a clause without a twin is not moved; the order of the results is the same
    plain, led = search(client, q="犯规", limit=20), search(client, q="犯规", limit=20, lead="laws1997")
    assert [r["score"] for r in plain] == [r["score"] for r in led]


def test_limit(client):
    assert len(search(client, q="牌", limit=3)) == 3
    assert len(search(client, q="牌", limit=1)) == 1
    assert len(search(client, q="牌", limit=50)) == 50
    assert len(search(client, q="牌")) == 10


@pytest.mark.parametrize("params", [
    {}, {"q": ""}, {"q": "   "}, {"q": "\x00\x01"}, {"q": "牌" * 1001}, {"q": "牌", "work": "cbr2000"},
    {"q": "牌", "work": "CBR1999"}, {"q": "牌", "limit": "0"}, {"q": "牌", "limit": "51"},
    {"q": "牌", "limit": "-1"}, {"q": "牌", "limit": "1.5"}, {"q": "牌", "limit": "abc"},
    {"q": "牌", "limit": "1e1"}, {"q": "牌", "limit": "５"}, {"q": "牌", "script": "latin"},
    {"q": "牌", "lead": "cbr2000"},
])
def test_bad_arguments_are_400_json(client, params):
    r = client.get("/api/search", params=params)
    assert r.status_code == 400
    body = r.json()
    assert set(body) == {"error"} and body["error"]


def test_the_api_takes_the_engines_query_limits_and_words(client):
    """One definition (kb.search.request): what kb search refuses, the API refuses in the same words."""
    from kb.core.errors import KbError
    from kb.search.cli import main as kb_search
    from kb.search.request import MAX_PHRASES, MAX_QUERY_CHARS, MAX_TERMS, check_query

    assert client.get("/api/search", params={"q": "牌" * MAX_QUERY_CHARS}).status_code == 200
    assert client.get("/api/search", params={"q": "牌" * 500 + "\x00" * 100}).status_code == 200
    for q in ("牌" * (MAX_QUERY_CHARS + 1), " ".join(f'"藏牌{i}"' for i in range(MAX_PHRASES + 1)),
              " ".join("牌" for _ in range(MAX_TERMS + 1))):
        r = client.get("/api/search", params={"q": q})
        with pytest.raises(KbError) as refused:
            check_query(q, "查询（q）")
        assert r.status_code == 400 and r.json()["error"] == str(refused.value), r.json()
        with pytest.raises(KbError) as said:
            check_query(q)
        out, err = io.StringIO(), io.StringIO()
        assert kb_search(["--records", str(BUILD / "records.jsonl"), "--index", str(BUILD / "index"), q],
                         stdout=out, stderr=err) == 2
        assert str(said.value) in err.getvalue() and str(said.value)[2:] == str(refused.value)[5:], err.getvalue()


def test_control_characters_are_what_the_engine_makes_of_them(client):
    from kb.search.engine import SearchEngine

    engine = SearchEngine.open(BUILD / "records.jsonl", BUILD / "index")
    for q in ("藏\x00牌\x07", "\x1b藏牌\u200b", "明手\t\t防家"):
        assert [r["id"] for r in search(client, q=q)] == [r["id"] for r in engine.search(q)], q


@pytest.mark.parametrize("q", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_queries_never_5xx(client, q):
    for extra in ({}, {"work": "twmj16", "limit": "50"}, {"script": "hant"}):
        r = client.get("/api/search", params={"q": q, **extra})
        assert r.status_code in (200, 400), (q[:50], r.status_code, r.text[:200])
        body = r.json()
        if r.status_code == 200:
            assert isinstance(body["results"], list)
            assert_safe_snippets(body["results"])
        else:
            assert set(body) == {"error"}
        assert "<script" not in r.text and "<img" not in r.text


@pytest.mark.parametrize("raw", ["q=%ED%A0%80", "q=%FF%FE", "q=%E8%97", "q=%", "q=%zz", "q", "q=&q=",
                                 "q=%E8%97%8F%E7%89%8C&limit=", "q=" + "%E8%97%8F" * 5_000, "q=\u85cf"])
def test_malformed_query_strings_never_5xx(client, raw):
    r = client.get("/api/search?" + raw)
    assert r.status_code in (200, 400), (raw[:40], r.status_code, r.text[:200])
    assert set(r.json()) in ({"results", "not_held"}, {"error"})


@pytest.mark.parametrize("raw, name", [("q=%ff%fe", "q"), ("q=%ED%A0%80", "q"), ("q=%E8%97", "q"),
                                       ("q=%E8%97%8F&work=%ff", "work"), ("q=%E8%97%8F&laws=6%ff", "laws")])
def test_a_parameter_that_is_not_utf8_is_400_naming_it(client, raw, name):
    r = client.get("/api/search?" + raw)
    assert r.status_code == 400 and set(r.json()) == {"error"}
    message = r.json()["error"]
    assert message.startswith(f"{name} is not UTF-8 text") and "\n" not in message, message


def test_html_in_the_query_is_never_echoed(client):
    for q in ("<script>alert(1)</script>藏牌", "<b>罚张</b>", '"><svg onload=alert(1)>明手'):
        r = client.get("/api/search", params={"q": q})
        assert r.status_code == 200
        assert "<script" not in r.text and "<b>" not in r.text and "<svg" not in r.text
        assert_safe_snippets(r.json()["results"])
    r = client.get("/api/clause/<script>alert(1)</script>")
    assert r.status_code == 404 and "<script" not in r.text
    r = client.get("/<script>alert(1)</script>")
    assert r.status_code == 404 and "<script>" not in r.text and "&lt;script&gt;" in r.text


def test_snippets_escape_everything_but_mark(client):
    for q in ("藏牌", "罰張", "牌", "第45条", "计台名堂", "字一色", "明手 建议", '"不判罚"'):
        for script in ("hans", "hant"):
            assert_safe_snippets(search(client, q=q, script=script, limit=50))


def test_clause_is_kb_show_json(client):
    records = {r.id: r for r in load_records(BUILD)}
    for rid in ("cbr1999:45C4b", "laws1997:41", "twmj16:patterns.13", "twmj16:wrong-kan.2.1"):
        r = client.get(f"/api/clause/{rid}")
        assert r.status_code == 200
        assert r.json() == json.loads(json.dumps(records[rid].to_json(), ensure_ascii=False))
    assert client.get("/api/clause/cbr1999%3A45C4b").json()["citation"] == "45C4(b)"


@pytest.mark.parametrize("path", ["/api/clause/cbr1999:99Z", "/api/clause/45C4b", "/api/clause/%00",
                                  "/api/nothing", "/api/search/extra"])
def test_unknown_api_paths_are_404_json(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert set(r.json()) == {"error"}


def test_wrong_method_is_405_json(client):
    r = client.post("/api/search", params={"q": "藏牌"})
    assert r.status_code == 405 and set(r.json()) == {"error"}


def test_openapi(client):
    r = client.get("/api/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.")
    assert {"/api/search", "/api/clause/{id}"} <= set(doc["paths"])
    params = {p["name"]: p for p in doc["paths"]["/api/search"]["get"]["parameters"]}
    assert params["q"]["required"] and params["work"]["schema"]["enum"] == ["cbr1999", "laws1997", "twmj16"]
    assert params["limit"]["schema"]["maximum"] == 50


def test_health(client):
    body = client.get("/api/health").json()
    assert body["status"] == "ok" and body["records"] > 400


def test_root_redirects_to_the_simplified_edition(client):
    r = client.get("/", follow_redirects=False)
    assert r.status_code in (301, 302, 307, 308) and r.headers["location"] == "/hans/"


def test_static_pages(client):
    r = client.get("/hans/")
    assert r.status_code == 200 and "牌规知识库" in r.text
    assert r.headers["x-content-type-options"] == "nosniff"
    r = client.get("/hant/search/")
    assert r.status_code == 200 and 'id="kb-search"' in r.text and "搜尋" in r.text
    r = client.get("/hans/search/")
    script = re.search(r'src="\.\./(assets/kb\.[0-9a-f]+\.js)"', r.text)   # the site's fingerprinted kb.js
    assert r.status_code == 200 and "检索" in r.text and script
    r = client.get(f"/hans/{script.group(1)}")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    r = client.get("/hans/cbr1999/law-45/")
    assert r.status_code == 200 and 'id="45C4b"' in r.text
    r = client.get("/hant/search", follow_redirects=False)
    assert r.status_code in (301, 302, 307, 308) and r.headers["location"].endswith("/hant/search/")


@pytest.mark.parametrize("path", ["/nothing", "/hans/nothing/", "/hans/../../etc/passwd",
                                  "/hans/%2e%2e/%2e%2e/pyproject.toml", "/favicon.ico.bak"])
def test_unknown_pages_are_a_404_page(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert 'href="/hans/"' in r.text and 'href="/hant/"' in r.text


def test_a_busy_port_is_one_clear_error():
    from kb.app.serve import listen
    from kb.core.errors import KbError

    busy = listen("127.0.0.1", 0)
    try:
        with pytest.raises(KbError, match=r"cannot listen on 127\.0\.0\.1:\d+ \(Address already in use\)"):
            listen("127.0.0.1", busy.getsockname()[1])
    finally:
        busy.close()


def test_search_filtered_by_law_range(client):
    r = client.get("/api/search", params={"q": "藏牌", "laws": "61-64"})
    assert r.status_code == 200
    assert r.json()["results"] and all(61 <= int(x["citation"][:2]) <= 64 for x in r.json()["results"])
    for bad in ("x", "64-61", "1-2-3"):
        r = client.get("/api/search", params={"q": "藏牌", "laws": bad})
        assert r.status_code == 400 and "laws" in r.json()["error"]
