"""Issue 36, item 4: search by the 2017 numbers. A citation marked as the 2017 Laws' (2017 27B1b, 2017版27条,
新规则 27B, Law 27B1(b) 2017, in either script) finds the books' clauses that became that 2017 clause first,
each with the line the site shows under it; a 2017 citation no clause here became is said so, never guessed;
a plain citation keeps meaning the book's own clause. On the real records (the session's build)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from kb.app import build as b
from kb.ingest.concordance import changed_below, in_force_text
from kb.ingest.normalise import ui_text
from kb.search.citations import split_codes
from kb.search.engine import SearchEngine
from kb.search.inforce import path_of


@pytest.fixture(scope="module")
def engine(session_build) -> SearchEngine:
    return SearchEngine.open(session_build / "records.jsonl", session_build / "index")


@pytest.fixture(scope="module")
def recs(session_build) -> dict:
    from kb.core.records import read_jsonl
    return {r.id: r for r in read_jsonl(session_build / "records.jsonl")}


# query, the clause first, the 2017 citation above the one asked that it was found by (None: by itself)
FORMS = [
    ("2017 27B1b", "cbr1999:27B", "27B"),            # 2017's 27B1(b) (comparable call) is mapped by no row: 27B is
    ("2017版27条", "cbr1999:27", None),
    ("2017年版第27条B款", "cbr1999:27B", None),
    ("新规则 27B", "cbr1999:27B", None),
    ("新版 64A", "cbr1999:64A", None),
    ("Law 27B1(b) 2017", "cbr1999:27B", "27B"),
    ("2017 Laws 27B1b", "cbr1999:27B", "27B"),
    ("2017版第27條", "cbr1999:27", None),
    ("新規則 27B", "cbr1999:27B", None),
    ("2017年版第27條B款", "cbr1999:27B", None),
    ("２０１７版 第６４條", "cbr1999:64", None),
    ("2017 27D", "cbr1999:27B1b", None),              # 1997 27B1(b)'s adjusted score is 2017's 27D
    ("2017 63B", "cbr1999:63C", None),                # 1997 63C (the correction period) is 2017's 63B
    ("2017 27A2", "cbr1999:27C", None),
    ("2017 45C4b", "cbr1999:45C4b", None),
    ("laws1997 2017 45C4b", "laws1997:45C4b", None),  # the other translation named: its clause leads
    ("新规则 47F2", "cbr1999:47F", None),              # both translations: 47F and its twin laws1997:47G
    ("2017 17D3", "cbr1999:34", None),                # 1997 Law 34 is in 2017's Law 17
]


@pytest.mark.parametrize("q, first, nearest", FORMS)
@pytest.mark.parametrize("script", ["hans", "hant"])
def test_each_form_finds_the_clause_that_became_it_first(engine, recs, q, first, nearest, script):
    a = engine.answer(q, limit=10, script=script)
    top = a["results"][0]
    assert top["id"] == first, (q, [r["id"] for r in a["results"]])
    rec = recs[first]
    heading = not rec.text_hans and any(r.parent == rec.id for r in recs.values())
    # the line the site shows under the clause, in the answer's script
    assert top["in_force"] == {"code": "2017", "citations": [e["citation"] for e in rec.concordance],
                               "change": rec.concordance[0]["change"],
                               "text": ui_text(in_force_text(rec.concordance, heading,
                                                             rec.id in changed_below(recs.values())), script)}
    if nearest is None:
        assert a["not_held"] is None, q
    else:
        (note,) = a["not_held"]["codes"]
        assert note["nearest"] == nearest and note["citation"] == "27B1b"
        assert a["not_held"]["text"] == note["text"] == ui_text(
            "本库所收的 1997 年版条款中没有直接对应「2017 版 27B1(b)」的；下列是对应「2017 版 27B」的条款。", script)
    if nearest is None:     # every clause it found became that 2017 clause or one under it
        asked = split_codes(q)[0][0].path
        for r in a["results"]:
            if "in_force" in r:
                assert any(path_of(c)[:len(asked)] == asked for c in r["in_force"]["citations"]), (q, r["id"])


def test_both_translations_of_a_clause_come_as_one_result_with_the_twin(engine):
    top = engine.search("2017 47F2")[0]
    assert top["id"] == "cbr1999:47F" and [t["id"] for t in top["twins"]] == ["laws1997:47G"]
    top = engine.search("2017 45C4b", lead="laws1997")[0]
    assert top["id"] == "laws1997:45C4b" and [t["id"] for t in top["twins"]] == ["cbr1999:45C4b"]


def test_a_twin_leads_only_if_it_became_the_2017_clause_too(engine):
    """2017 43B3 is cbr1999's 43B3 and laws1997's 43B2 (and 43B2(a)): laws1997:43B2 is not replaced by its
    twin cbr1999:43B2, which became 2017's 43B2 only."""
    got = engine.search("2017 43B3")
    assert [r["id"] for r in got] == ["cbr1999:43B3", "laws1997:43B2"]
    assert [t["id"] for t in got[0]["twins"]] == ["laws1997:43B2a"]
    assert got[1]["in_force"]["citations"] == ["43B2", "43B3"]


def test_a_law_leads_with_its_own_record_then_its_clauses_in_2017_order(engine):
    got = engine.search("2017版27条", limit=20)
    assert [r["id"] for r in got] == ["cbr1999:27", "cbr1999:27A", "cbr1999:27C", "cbr1999:27B", "cbr1999:27B1",
                                      "cbr1999:27B1a", "cbr1999:27B2", "cbr1999:27B3", "cbr1999:27B1b"]
    assert got[0]["in_force"]["text"] == "2017 版：27，其下有规定变化"        # the heading's line, as on its page
    assert [r["in_force"]["citations"][0] for r in got] == ["27", "27A1", "27A2", "27B", "27B1a", "27B1a", "27B2",
                                                            "27B3", "27D"]


def test_a_plain_citation_keeps_meaning_the_books_own(engine):
    for q, first in (("27B1b", "cbr1999:27B1b"), ("63B", "cbr1999:63B"), ("第27条", "cbr1999:27"), ("64A", "cbr1999:64A")):
        a = engine.answer(q)
        assert a["results"][0]["id"] == first and a["not_held"] is None, q
        assert not any("in_force" in r for r in a["results"]), q
    # a 2017 that cites nothing is a word, as before
    assert split_codes("2017年 改了什么") == ([], [], "2017年 改了什么")
    assert split_codes("第2017条") == ([], [], "第2017条")


@pytest.mark.parametrize("q, said", [
    ("2017版第5条", "2017 版第5条"),      # 2017 Laws 1-25: outside the books entirely
    ("2017 Law 1", "2017 版第1条"),
    ("2017版9条", "2017 版第9条"),
    ("2017 56", "2017 版第56条"),         # no row names a 2017 Law 56 (1997 56 is not settled)
    ("2017年版第23条", "2017 版第23条"),   # the comparable call: new in 2017's numbering here
])
@pytest.mark.parametrize("script", ["hans", "hant"])
def test_a_2017_citation_no_clause_here_became_is_said_so_never_guessed(engine, q, said, script):
    a = engine.answer(q, script=script)
    assert a["results"] == []
    (note,) = a["not_held"]["codes"]
    assert note["nearest"] is None and note["citation"] == re.sub(r"\D", "", said.split("版")[1])
    assert a["not_held"]["text"] == ui_text(f"本库所收的 1997 年版条款中没有对应「{said}」的（对照表未列：它可能是 "
                                            "2017 年新增的，或在本库未收的条文之内）。", script)
    assert a["not_held"]["matters"] == []     # not the 1997 Laws outside the books (outside.tsv): 2017's numbers


@pytest.mark.parametrize("q", ["2017版99条", "2017 27Z", "新规则 94", "2017版第99条B款", "新版 27Z1"])
def test_a_bad_2017_citation_gets_an_honest_answer(engine, q):
    a = engine.answer(q)
    assert a["results"] == []
    (note,) = a["not_held"]["codes"]
    assert note["citation"] is None and note["asked"] == q
    assert note["text"] == f"「{q}」不是 2017 年版规则的条款号（如 27B1(b)、第27条B款；共 93 条）。"
    assert engine.answer(q, script="hant")["not_held"]["text"].endswith("共 93 條）。")


def test_words_with_a_2017_citation_come_after_its_clauses(engine):
    got = engine.search("新规则 27B 叫品不足")
    assert [r["id"] for r in got[:2]] == ["cbr1999:27B", "cbr1999:27B1"]
    assert "in_force" in got[0]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kb.app.cli", "search", *args], capture_output=True, text=True)


def test_kb_search_shows_the_line_and_the_note(session_build):
    out = cli("2017 27B1b")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "本库所收的 1997 年版条款中没有直接对应「2017 版 27B1(b)」的；下列是对应「2017 版 27B」的条款。"
    assert lines[1].startswith("1. cbr1999 27B · 不足叫牌不被接受 · 2017 版：27B，规定有实质变化 · ")
    out = cli("--script", "hant", "新規則 27B")
    assert "1. cbr1999 27B · 不足叫牌不被接受 · 2017 版：27B，規定有實質變化 · " in out.stdout
    answer = json.loads(cli("--json", "2017版第27條").stdout)
    assert answer["results"][0]["in_force"]["text"] == "2017 版：27，其下有規定變化"
    for bad in ("2017版99条", "2017 27Z"):
        out = cli(bad)
        assert out.returncode == 0 and not out.stderr and "不是 2017 年版规则的条款号" in out.stdout, bad
        assert "Traceback" not in out.stdout + out.stderr


def test_the_api_carries_the_line_and_the_note(session_build):
    import starlette.testclient as starlette_testclient

    from kb.app.serve import create_app
    with starlette_testclient.TestClient(create_app(session_build), base_url="http://127.0.0.1") as c:
        got = c.get("/api/search", params={"q": "新版 64A"})
        bad = c.get("/api/search", params={"q": "2017版99条", "script": "hant"})
        doc = c.get("/api/openapi.json").json()
    assert got.status_code == 200
    top = got.json()["results"][0]
    assert top["id"] == "cbr1999:64A" and top["url"] == "cbr1999/law-64/#64A"
    # 64A's own words (当藏牌成立时：) carry over; 64A2 under it changed, and its line says so
    assert top["in_force"]["text"] == "2017 版：64A，规定相同；其下有规定变化"
    assert bad.status_code == 200 and bad.json()["results"] == []
    assert bad.json()["not_held"]["codes"][0]["citation"] is None
    schema = doc["components"]["schemas"]
    assert "in_force" in schema["Result"]["properties"] and "codes" in schema["Answer"]["properties"]["not_held"]["properties"]


def test_the_line_is_the_one_under_the_clause_on_its_page(session_build, recs):
    """One wording: a result's line is the text of the paragraph the site shows under the clause."""
    site = b.site_dir(session_build)
    parents = {r.parent for r in recs.values() if r.parent}
    below = changed_below(recs.values())
    for work in ("cbr1999", "laws1997"):
        laws = sorted({r.law for r in recs.values() if r.work == work and r.law is not None})
        for law in laws:
            mine = sorted((r for r in recs.values() if r.work == work and r.law == law), key=lambda r: r.order)
            for edition in ("hans", "hant"):
                html = (site / edition / work / f"law-{law}" / "index.html").read_text(encoding="utf-8")
                shown = [re.sub(r"<[^>]+>", "", x).replace("⚠ ", "")
                         for x in re.findall(r'<p class="kb-in-force [^"]*">(.*?)</p>', html, re.S)]
                assert shown == [ui_text(in_force_text(r.concordance, not r.text_hans and r.id in parents,
                                                       r.id in below), edition)
                                 for r in mine], (work, law, edition)
