"""The browser's search engine (docs/assets/kb-engine.js, run in node) reads queries as the server does:
citations, the words and grams of a text (jieba's route over the search lexicon), and the ranking."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kb.app import build as b
from kb.search import analyze, search
from kb.search.citations import split_citations
from kb.search.lexicon import Lexicon

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")


@pytest.fixture(autouse=True)
def _node_is_installed() -> None:
    """The engine runs in node; without node every test here fails (never a silent skip)."""
    if NODE is None:
        pytest.fail("node is not installed (apt-get install nodejs)")

FORMS = [
    "45C4(b)", "45C4b", "第45条C款4(b)", "第45條C款4項（b）", "规则47E2", "規則45C4(b)", "Law 64B", "laws 45C4(b)",
    "第六十四条", "第64条B款6", "64条B款", "第十二墩", "三条", "计台名堂13", "計台名堂第13項", "名堂 36",
    "第64条 藏牌", "藏牌 64B 罚墩", "ＬＡＷ　６４Ｂ", "第九十四条", "第0条", "99A", "第45条C款4项b", "45C9",
    "明手建议", "64A2", "law64", "第一百条", "名堂100", "L58B2", "l 64", "all 5 cards",
    "47.E.2", "45-C-4-b", "45.C.4(b)", "45", " 64 ", "45 46", "3.5", "1.2.a",
    "Law 47 E 2", "第47条 E 2", "第64条B6", "第45条C款4(b)", " -45", ":45", "law 64 a player", "47 e 2",
    "Law 45 C 4 b", "law 45 c 4 b", "45 C 4 b", "45 c 4 b", "45 C4b", "45-c-4-b", "Law 45 C 4 a player", "45 c",
]

SCRIPT = r"""
const fs = require("fs"), path = require("path");
const [engine, edition] = process.argv.slice(1);
const KbEngine = require(engine);
const load = (rel) => { let d; new Function("kbIndexChunk", fs.readFileSync(path.join(edition, rel), "utf8"))((n, x) => { d = x; }); return Promise.resolve(d); };
const meta = fs.readdirSync(path.join(edition, "idx")).find((f) => /^meta\./.test(f));
KbEngine.open("idx/" + meta, load).then((e) => {
  const forms = JSON.parse(fs.readFileSync(0, "utf8"));
  console.log(JSON.stringify(forms.map((q) => { const [c, rest] = e.splitCitations(q);
    return [c.map((x) => [x.law, x.path, x.start, x.end, x.work]), rest]; })));
});
"""


# What the engine computes for each input: "cite" (citations), "analyze" (words, bigrams,
# unigrams), "search" (results), "answer" (the results' ids and the not-held note), "full" (the
# whole answer) or "codes" (the citations by the 2017 numbers).
RUN = r"""
const fs = require("fs"), path = require("path");
const [engine, edition, what] = process.argv.slice(1);
const KbEngine = require(engine);
const load = (rel) => { let d; new Function("kbIndexChunk", fs.readFileSync(path.join(edition, rel), "utf8"))((n, x) => { d = x; }); return Promise.resolve(d); };
const meta = fs.readdirSync(path.join(edition, "idx")).find((f) => /^meta\./.test(f));
KbEngine.open("idx/" + meta, load).then(async (e) => {
  const inputs = JSON.parse(fs.readFileSync(0, "utf8")), out = [];
  for (const q of inputs) {
    if (what === "analyze") {
      const a = await e.complete(() => e.analyze(q), []);
      out.push([a.words.map((w) => w[0]), a.bigrams, a.unigrams]);
    } else if (what === "answer") {
      const a = await e.answer(q, { limit: 10 });
      out.push([a.results.map((r) => [r.id, r.score, r.twins.map((t) => t.id)]), a.not_held]);
    } else if (what === "full") out.push(await e.answer(q, { limit: 10 }));
    else if (what === "codes") {
      const [c, spans, rest] = await e.complete(() => e.splitCodes(q), []);
      out.push([c.map((x) => [x.law, x.path, x.start, x.end, x.text]), spans, rest]);
    } else out.push(await e.search(q, { limit: 10 }));
  }
  console.log(JSON.stringify(out));
});
"""
QUERIES = ["罚张", "什么是罚张", "明手指出藏牌", "連莊拉莊", "第64条 藏牌", "藏牌成立但不判罚的情况", "对方不同意声称",
           "revoke", "lead out of turn", '"重罚张必须"', "12墩", "要胡同一张", "定约人 从明手打牌", "字一色",
           "被罚不叫", "64A2", "第六十四条", "計台名堂第13項", "防家把A露出来了", "qwxzv 龘",
           '"lead out of turn"', "暗攻", "藏牌成立了罚几墩", "penalty card", '"超过七线"', "叫了七线以上",
           "眼牌可以看别人的牌吗", "第45条 别人的牌", "law 70 claim", "64A 藏牌", "dummy's rights",
           "庄家只说“草花”没说几", "dummy left the table", "Defender dropped two cards accidentally",
           "revoked twice penalties", "declarer's cards mistakenly exposed", "bidding passes doubled",
           "第7副北家叫低了，东家没注意直接叫了", "没跟出被抓到罚几墩", "defender doesn’t play his penalty card",
           "what counts as a revoke", "can I ask to see the cards of the trick just played?",
           "桥牌里明手是什么意思", "麻将里说的牌面是什么意思", "麻将", "桥牌 麻将 罚则", "bridge dummy", "麻将 45C",
           "laws1997 16", "laws1997 47E2", "LAWS 1997 规则45", "1997版47条", "另一譯本 藏牌", "1999版 藏牌",
           "cbr1999 laws1997 45", "twmj16 字一色", "45", "47.E.2", "laws1997-45", "cbr1999:45", "Law 62 D 1",
           "多摸了一张", "64B6", "43B2a", "Law 45 C 4 b", "45 c 4 b",
           "2017 27B1b", "新規則 27B", "2017版27条", "2017版99条", "2017 43B3 明手"]
# Issue 36 item 4: citations by the 2017 numbers, every form, both scripts, none held, unreadable
CODE_QUERIES = ["2017 27B1b", "2017版27条", "2017年版第27条B款", "新规则 27B", "新版 64A", "Law 27B1(b) 2017",
                "2017 Laws 27B1b", "2017版第27條", "新規則 27B", "2017年版第27條B款", "２０１７版 第６４條", "2017 27D",
                "2017 63B", "2017 45C4b", "laws1997 2017 45C4b", "新规则 47F2", "2017 43B3", "2017 17D3", "2017版第5条",
                "2017 Law 1", "2017版9条", "2017 56", "2017版99条", "2017 27Z", "新规则 94", "新版 27Z1",
                "新规则 27B 叫品不足", "2017 27 2017 64", "2017年 改了什么", "第2017条", "27B1b", "63B",
                "2017版第16条 犹豫", "桥牌 2017 45C"]


@pytest.fixture(scope="module")
def built():
    return b.ensure_built(None, need_site=True)


@pytest.fixture(scope="module")
def site(built):
    return b.site_dir(built)


def run_node(site: Path, forms: list[str], what: str = "cite", edition: str = "hans") -> list:
    script = SCRIPT if what == "cite" else RUN
    proc = subprocess.run([str(NODE), "-e", script, str(ROOT / "docs" / "assets" / "kb-engine.js"), str(site / edition), what],
                          input=json.dumps(forms), capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_citations_are_read_as_the_server_reads_them(site):
    got = run_node(site, FORMS)
    for form, (cites, rest) in zip(FORMS, got):
        want_cites, want_rest = split_citations(form)
        want = [[c.law, list(c.path), c.start, c.end, c.work] for c in want_cites]
        assert cites == want, form
        assert rest == want_rest, form


def test_text_is_cut_as_the_server_cuts_it(built, site):
    """Words (jieba's maximum-probability route over the lexicon, negators joined) and grams."""
    from kb.core.records import read_jsonl

    lex = Lexicon.load(built / "index" / "lexicon.json")
    texts = QUERIES + [r.text_hans for r in read_jsonl(built / "records.jsonl")][::7]
    got = run_node(site, texts, "analyze")
    for text, (words, bigrams, unigrams) in zip(texts, got):
        a = analyze(text, lex)
        assert (words, bigrams, unigrams) == ([w for w, _, _ in a.words], a.bigrams, a.unigrams), text


@pytest.mark.parametrize("edition", ["hans", "hant"])
def test_results_are_the_servers(built, site, edition):
    """Same results, twins and scores as kb.search's engine (the ranking is ported, not approximated)."""
    got = run_node(site, QUERIES, "search", edition)
    for q, results in zip(QUERIES, got):
        want = search(q, limit=10, script=edition, records_path=built / "records.jsonl", index_dir=built / "index")
        assert [(r["id"], [t["id"] for t in r["twins"]], r["score"]) for r in results] == \
            [(r["id"], [t["id"] for t in r["twins"]], r["score"]) for r in want], q
        assert [(r["citation"], r["title"]) for r in results] == [(r["citation"], r["title"]) for r in want], q
        assert [r.get("under") for r in results] == [r.get("under") for r in want], q   # the clause above each


@pytest.mark.parametrize("edition", ["hans", "hant"])
def test_the_note_on_what_no_book_holds_is_the_servers(built, site, edition):
    """Issue 35: for every question of the benchmark sets (those the books answer: no note) and
    every matter outside the books (questions.outside_questions: a note; every outside set of bench/), the site's engine
    gives the answer's note, the same top ten with the same scores and twins, and withholds the same
    results as kb.search's: every question, in both editions (not a sample)."""
    from questions import answered_questions, every_outside_question, outside_questions

    from kb.search.engine import SearchEngine
    engine = SearchEngine.open(built / "records.jsonl", built / "index")
    asked = every_outside_question() + answered_questions()
    got = run_node(site, asked, "answer", edition)
    for q, (results, note) in zip(asked, got):
        want = engine.answer(q, limit=10, script=edition)
        assert note == want["not_held"], q
        assert results == [[r["id"], r["score"], [t["id"] for t in r["twins"]]] for r in want["results"]], q
    assert all(note for _, note in got[:len(outside_questions())])


def test_2017_citations_are_read_as_the_server_reads_them(site):
    from kb.search.citations import split_codes

    got = run_node(site, CODE_QUERIES + FORMS, "codes")
    for q, (cites, spans, rest) in zip(CODE_QUERIES + FORMS, got):
        want_cites, want_spans, want_rest = split_codes(q)
        assert cites == [[c.law, list(c.path), c.start, c.end, c.text] for c in want_cites], q
        assert spans == [list(x) for x in want_spans] and rest == want_rest, q


@pytest.mark.parametrize("edition", ["hans", "hant"])
def test_2017_citations_are_answered_as_the_server_answers(built, site, edition):
    """The same clauses first, with the same line under each, and the same note, in both editions."""
    from kb.search.engine import SearchEngine
    engine = SearchEngine.open(built / "records.jsonl", built / "index")
    got = run_node(site, CODE_QUERIES, "full", edition)
    for q, answer in zip(CODE_QUERIES, got):
        want = engine.answer(q, limit=10, script=edition)
        assert [(r["id"], r["score"], [t["id"] for t in r["twins"]], r.get("in_force")) for r in answer["results"]] == \
            [(r["id"], r["score"], [t["id"] for t in r["twins"]], r.get("in_force")) for r in want["results"]], q
        assert answer["not_held"] == want["not_held"], q
    firsts = {q: a["results"][0]["id"] for q, a in zip(CODE_QUERIES, got) if a["results"]}
    assert firsts["2017 27B1b"] == firsts["新規則 27B"] == "cbr1999:27B" and firsts["2017版第27條"] == "cbr1999:27"
    assert all(a["results"][0].get("in_force") for q, a in zip(CODE_QUERIES, got) if q.startswith("2017 2") and a["results"])


def test_the_definition_patterns_are_the_engines():
    """The browser's copy of engine.defines' patterns: each one defines, a plain mention does not."""
    from kb.search.engine import defines
    from kb.site.static_search import DEFINES_AFTER, DEFINES_BEFORE

    def doc(text: str) -> dict:
        return {"title_hans": "", "text_hans": text}

    for before in DEFINES_BEFORE:
        assert defines(doc(f"甲{before}罚张。"), "罚张"), before
    for after in DEFINES_AFTER:
        assert defines(doc(f"甲罚张{after}乙。"), "罚张"), after
    assert not defines(doc("甲说罚张乙。"), "罚张")


@pytest.mark.parametrize("edition", ["hans", "hant"])
def test_a_lead_in_shows_its_clauses_in_the_browser_too(built, site, edition):
    """64A (当藏牌成立时：) shows 64A1 and 64A2 after it, in the site's results as in the API's."""
    got = run_node(site, ["64A"], "search", edition)[0][0]
    want = search("64A", limit=1, script=edition, records_path=built / "records.jsonl", index_dir=built / "index")[0]
    assert got["id"] == want["id"] == "cbr1999:64A"
    assert got["snippet"] == want["snippet"] and "64A1" in got["snippet"] and "64A2" in got["snippet"]
