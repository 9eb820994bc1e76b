"""Search library: analyzer, citations, synonyms, index freshness, queries, CLI."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from whoosh.query import Phrase

from kb.errors import KbError
from kb.search import cli
from kb.search.analysis import (
    GramTokenizer,
    JiebaTokenizer,
    fold,
    gram_sequence,
    is_traditional,
    normalize,
    word_analyzer,
    words,
)
from kb.search.citations import chinese_number, parse_citation, split_citations
from kb.search.index import META_FILE, build_index, is_fresh, open_index, read_meta
from kb.search.query import SearchEngine, highlight, plain_snippet, search
from kb.search.synonyms import load_synonyms, parse_synonyms

FIXTURE = Path(__file__).parent / "fixtures" / "search_records.jsonl"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("search") / "index"
    build_index(FIXTURE, d)
    return d


@pytest.fixture(scope="module")
def engine(index_dir: Path) -> SearchEngine:
    e = SearchEngine.open(FIXTURE, index_dir)
    yield e
    e.close()


def ids(results: list[dict]) -> list[str]:
    return [r["id"] for r in results]


# --- analyzer -------------------------------------------------------------------------

def test_positions_are_sequential_and_chars_point_into_the_original():
    text = "重罰張必須於第一次合法機會打出，不論是引牌、跟牌、墊牌還是將吃（第４５條）。"
    toks = [(t.text, t.pos, t.startchar, t.endchar)
            for t in word_analyzer()(text, positions=True, chars=True)]
    assert [p for _, p, _, _ in toks] == list(range(len(toks)))
    assert toks[0][0] == "重罚张"                       # user dictionary, folded to Simplified
    for word, _, start, end in toks:
        assert normalize(text[start:end]) == word        # offsets index the Traditional text
    assert not any(w in "，、（）。" for w, *_ in toks)   # punctuation dropped
    assert ("45", ) == tuple(w for w, *_ in toks if w.isdigit())


def test_jieba_tokenizer_with_start_pos_and_no_tokenize():
    toks = [t.pos for t in JiebaTokenizer()("明手 防家", positions=True, start_pos=5)]
    assert toks == [5, 6]
    t = next(iter(JiebaTokenizer()("明手", tokenize=False, positions=True)))
    assert t.text == "明手"


def test_user_dictionary_terms_are_single_tokens():
    for term in ["明手", "藏牌", "罚张", "定约人", "首引", "首攻", "将吃", "垫牌", "门清", "自摸",
                 "杠上开花", "海底捞月", "轻罚张", "重罚张", "越序", "不足叫牌", "牌墩", "防家",
                 "防守人", "庄家", "裁判长", "单钓", "单骑", "卡张", "中洞", "站壁"]:
        assert words(term) == [term], term
    assert words("字一色几台") == ["字一色", "几", "台"]


def test_gram_tokenizer_and_sequence():
    toks = [(t.text, t.pos) for t in GramTokenizer()("藏牌，罚张", positions=True)]
    assert ("藏牌", 0) in toks and ("牌", 1) in toks and ("罚张", 3) in toks  # gap at "，"
    assert gram_sequence("重罚张") == ["重罚", "罚张"]
    assert gram_sequence("第45条") == ["第", "45", "条"]


def test_fold_keeps_length_and_meets_scripts():
    assert fold("第４５條Ｃ款４（ｂ）") == "第45条C款4(b)"
    assert fold("莊家說大") == "庄家说大"
    assert is_traditional("莊家說大") and not is_traditional("庄家说大")
    assert not is_traditional("第４５条")  # fullwidth alone is not Traditional


def test_phrase_query_on_the_word_field(engine: SearchEngine):
    hits = engine.searcher.search(Phrase("text", ["重罚张", "必须"]))
    assert [h["id"] for h in hits] == ["cbr1999:50D1"]


def test_quoted_phrase_is_required_and_exact(engine: SearchEngine):
    assert ids(engine.search('"重罚张必须"')) == ["cbr1999:50D1"]
    assert ids(engine.search('「重罰張必須」')) == ["cbr1999:50D1"]
    # both words occur in 45C5, but not as this phrase
    assert "cbr1999:45C5" in ids(engine.search("重罚张 必须"))
    assert "cbr1999:45C5" not in ids(engine.search('"重罚张必须"'))


# --- script folding -------------------------------------------------------------------

@pytest.mark.parametrize("hant, hans", [
    ("莊家說大", "庄家说大"),
    ("對疏忽指定的改正", "对疏忽指定的改正"),
    ("第十二墩的藏牌怎麼罰", "第十二墩的藏牌怎么罚"),
    ("海底撈月", "海底捞月"),
    ("明手可以看防家的牌嗎", "明手可以看防家的牌吗"),
])
def test_traditional_and_simplified_twins_agree(engine: SearchEngine, hant: str, hans: str):
    a, b = engine.search(hant), engine.search(hans)
    assert a and ids(a)[:1] == ids(b)[:1]
    assert a[0]["snippet"] and b[0]["snippet"]


def test_snippet_follows_the_query_script(engine: SearchEngine):
    r = engine.search("莊家說大")[0]
    assert r["id"] == "cbr1999:46B1"
    assert "<mark>莊家</mark>" in r["snippet"] and r["title"] == "未指定牌點"
    r = engine.search("庄家说大")[0]
    assert "<mark>庄家</mark>" in r["snippet"] and r["title"] == "未指定牌点"
    r = engine.search("庄家说大", script="hant")[0]
    assert "<mark>莊家</mark>" in r["snippet"]


def test_fullwidth_query(engine: SearchEngine):
    assert ids(engine.search("第４５条Ｃ款４（ｂ）"))[:2] == ["cbr1999:45C4b", "laws1997:45C4b"]
    assert engine.search("ｒｅｖｏｋｅ")  # fullwidth Latin folds to a synonym of 藏牌


# --- synonyms -------------------------------------------------------------------------

def test_synonym_groups_load():
    syn = load_synonyms()
    assert "定约人" in syn.expand("庄家") and "庄家" in syn.expand("定约人")
    assert "首攻" in syn.expand("首引") and "单骑" in syn.expand("单钓")
    assert "胡牌" in syn.char_rewrites("和牌")
    with pytest.raises(KbError):
        parse_synonyms("孤\n")


def test_declarer_finds_both_translations(engine: SearchEngine):
    got = ids(engine.search("定约人", limit=20))
    assert any(i.startswith("cbr1999:") for i in got)      # 庄家 clauses
    assert any(i.startswith("laws1997:") for i in got)     # 定约人 clauses
    assert "cbr1999:45B" in ids(engine.search("定约人 从明手打牌"))[:2]


def test_other_synonyms(engine: SearchEngine):
    assert ids(engine.search("首攻 越序"))[:1] == ["cbr1999:48B1"]      # 首引
    assert ids(engine.search("单骑"))[:1] == ["twmj16:patterns.11"]
    assert ids(engine.search("对对和"))[:1] == ["twmj16:patterns.8"]     # 和 -> 胡
    assert ids(engine.search("三暗刻"))[:1] == ["twmj16:patterns.16"]    # 刻 -> 坎
    assert ids(engine.search("防守人 牌张 同伴看到"))[0].endswith(":45C1")


def test_stopword_members_are_not_expanded(engine: SearchEngine):
    group = engine._group("胡")
    assert "和" not in group.strings()


# --- citations ------------------------------------------------------------------------

@pytest.mark.parametrize("q, law, path", [
    ("45C4(b)", 45, ("45", "C", "4", "b")),
    ("45C4b", 45, ("45", "C", "4", "b")),
    ("45c4b", 45, ("45", "C", "4", "b")),
    ("第45条C款4（b）", 45, ("45", "C", "4", "b")),
    ("第45條C款4(b)", 45, ("45", "C", "4", "b")),
    ("第４５条Ｃ款４ （ｂ）", 45, ("45", "C", "4", "b")),
    ("规则47E2", 47, ("47", "E", "2")),
    ("規則47E2", 47, ("47", "E", "2")),
    ("规则45C4（b）", 45, ("45", "C", "4", "b")),
    ("第４５条Ｅ款", 45, ("45", "E")),
    ("45条E款", 45, ("45", "E")),
    ("第六十四条", 64, ("64",)),
    ("第六十四條B款", 64, ("64", "B")),
    ("第64条B款", 64, ("64", "B")),
    ("第64條B款6項", 64, ("64", "B", "6")),
    ("Law 64B", 64, ("64", "B")),
    ("law 64", 64, ("64",)),
    ("Laws 45C4(b)", 45, ("45", "C", "4", "b")),
    ("64B6", 64, ("64", "B", "6")),
])
def test_citation_forms(q: str, law: int, path: tuple[str, ...]):
    (c,) = parse_citation(q)
    assert (c.law, c.path) == (law, path)
    assert q[c.start:c.end].strip() == c.text


def test_citation_with_words_and_non_citations():
    cites, rest = split_citations("第64条 第十二墩")
    assert [(c.law, c.path) for c in cites] == [(64, ("64",))] and rest == "第十二墩"
    cites, rest = split_citations("参阅第４５条Ｃ款４ （ｂ）的规定")
    assert cites[0].suffix == "45C4b" and str(cites[0]) == "45C4(b)" and rest == "参阅 的规定"
    for q in ["第十二墩", "第十二墩的藏牌", "三条", "打出3条", "自摸VS碰牌", "字一色16台",
              "第一百条", "第0条", "Law 200", "45", "明手 AND 防家"]:
        assert parse_citation(q) == [], q
    (mj,) = parse_citation("计台名堂 13")
    assert mj.work == "twmj16" and mj.suffix == "patterns.13"
    assert chinese_number("六十四") == 64 and chinese_number("十二") == 12
    assert chinese_number("九十三") == 93 and chinese_number("墩") is None


def test_citation_query_puts_the_clause_first_in_each_work(engine: SearchEngine):
    for q in ["45C4(b)", "第45條C款4(b)", "Law 45C4b"]:
        assert ids(engine.search(q))[:2] == ["cbr1999:45C4b", "laws1997:45C4b"], q
    got = ids(engine.search("Law 45"))
    assert got[:2] == ["cbr1999:45", "laws1997:45"] and "cbr1999:45C4b" in got
    assert ids(engine.search("规则47E2"))[:2] == ["cbr1999:47E2", "laws1997:47E2"]
    assert ids(engine.search("第六十四条"))[:1] == ["cbr1999:64"]
    assert ids(engine.search("计台名堂 13"))[:1] == ["twmj16:patterns.13"]
    assert ids(engine.search("45C4(b)", work="laws1997")) == ["laws1997:45C4b"]
    # a missing clause falls back to the nearest ancestor
    assert ids(engine.search("45C4(c)"))[:1] == ["cbr1999:45C4"]


def test_citation_and_words(engine: SearchEngine):
    assert ids(engine.search("第64条 第十二墩"))[:1] == ["cbr1999:64B6"]
    assert ids(engine.search("第62条 第十二墩"))[0].startswith("cbr1999:62D")
    # words that match nothing inside the law: the cited clause, then matches elsewhere
    got = ids(engine.search("第64条 字一色"))
    assert got[0] == "cbr1999:64" and "twmj16:patterns.13" in got


# --- ranking and results --------------------------------------------------------------

def test_all_terms_rank_first_and_one_result_per_clause(engine: SearchEngine):
    got = engine.search("明手可以看防家的牌吗", limit=20)
    assert ids(got)[0] in {"cbr1999:43A2c", "laws1997:43A2c"}
    assert len(set(ids(got))) == len(got)
    assert ids(engine.search("重罚张必须打出"))[0] in {"cbr1999:50D1", "cbr1999:45C5"}
    assert ids(engine.search("字一色几台"))[:1] == ["twmj16:patterns.13"]
    assert ids(engine.search("门清一摸三"))[:1] == ["twmj16:patterns.4"]


def test_partial_word_matches_through_grams(engine: SearchEngine):
    got = ids(engine.search("罚张", limit=20))
    assert "cbr1999:50D" in got  # only 重罚张 there


def test_result_shape_and_filters(engine: SearchEngine):
    r = engine.search("明手", limit=3)
    assert len(r) == 3
    assert set(r[0]) == {"id", "citation", "work", "title", "score", "snippet"}
    assert all(x["work"] == "laws1997" for x in engine.search("明手", work="laws1997"))
    got = engine.search("罚张", law_range=(50, 52), limit=50)
    assert got and all(x["id"].startswith("cbr1999:50") for x in got)


def test_highlight_escapes_everything_else():
    assert highlight("a<b>&明手", ["明手"]) == "a&lt;b&gt;&amp;<mark>明手</mark>"
    assert highlight("莊家說", ["庄家"]) == "<mark>莊家</mark>說"
    long = "甲" * 200 + "明手" + "乙" * 200
    snip = highlight(long, ["明手"])
    assert snip.startswith("…") and snip.endswith("…") and "<mark>明手</mark>" in snip
    assert plain_snippet("<mark>a</mark>&amp;b") == "a&b"


# --- bad input ------------------------------------------------------------------------

@pytest.mark.parametrize("q", ["", "   ", "。。。", "？！", "\"", "“”", "*", "?", "()", "[]"])
def test_empty_or_punctuation_query(engine: SearchEngine, q: str):
    assert engine.search(q) == []


@pytest.mark.parametrize("q", [
    "明手 AND 防家", "明手 OR NOT 防家", "title:明手", "明手*", "明?", '"明手', "明手)",
    "(明手 [防家", "text:重罚张 AND (", "明手\x00\x01\x7f防家", "明手\u200b\ud800防家",
    "{明手 TO 防家}", "明手^3", "明手~2", "\\", "<script>明手</script>",
])
def test_query_syntax_is_plain_text(engine: SearchEngine, q: str):
    got = engine.search(q)
    assert isinstance(got, list)
    if "明手" in q:
        assert got


def test_long_query_and_bad_arguments(engine: SearchEngine):
    with pytest.raises(KbError, match="too long"):
        engine.search("明" * 10_000)
    assert isinstance(engine.search("明手防家" * 200), list)   # 800 chars: answered
    for kwargs in [dict(limit=0), dict(limit="3"), dict(work="nope"), dict(script="latin"),
                   dict(law_range=(52, 50)), dict(law_range="50")]:
        with pytest.raises(KbError):
            engine.search("明手", **kwargs)
    with pytest.raises(KbError):
        engine.search(None)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=40))
def test_any_text_answers_or_kberror(engine: SearchEngine, q: str):
    got = engine.search(q)
    assert isinstance(got, list) and len(set(ids(got))) == len(got)


# --- index freshness ------------------------------------------------------------------

def test_stale_index_is_rebuilt(tmp_path: Path):
    records = tmp_path / "records.jsonl"
    shutil.copy(FIXTURE, records)
    index = tmp_path / "index"
    open_index(records, index).close()                       # missing -> built
    assert is_fresh(records, index)
    assert search("独角兽", records_path=records, index_dir=index) == []  # engine cached
    meta = read_meta(index)
    assert meta and meta["count"] == sum(1 for line in FIXTURE.open() if line.strip())

    new = {"id": "cbr1999:99Z", "work": "cbr1999", "citation": "99Z", "level": "clause",
           "parent": None, "order": 999, "law": 99, "path": ["99", "Z"],
           "title_hans": "测试新增条款", "title_hant": "測試新增條款",
           "text_hans": "独角兽条款只在新的记录里。", "text_hant": "獨角獸條款只在新的記錄裡。"}
    with records.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(new, ensure_ascii=False) + "\n")
    assert not is_fresh(records, index)
    # the cached engine notices the changed records and reopens (rebuilding the index)
    assert ids(search("独角兽", records_path=records, index_dir=index)) == ["cbr1999:99Z"]
    assert is_fresh(records, index)
    assert not list(tmp_path.glob(".index.*"))                # no temporary dirs left

    (index / META_FILE).write_text("{broken", encoding="utf-8")
    assert not is_fresh(records, index)
    open_index(records, index).close()
    assert is_fresh(records, index)


def test_index_errors(tmp_path: Path):
    with pytest.raises(KbError, match="not found"):
        open_index(tmp_path / "missing.jsonl", tmp_path / "index")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a:1", "work": "a"}\nnot json\n', encoding="utf-8")
    with pytest.raises(KbError, match=r"bad.jsonl:2"):
        build_index(bad, tmp_path / "index")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(KbError, match="refusing"):
        build_index(FIXTURE, precious)
    assert (precious / "thesis.txt").exists()


# --- CLI ------------------------------------------------------------------------------

def run_cli(args: list[str], index_dir: Path, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["search", *args, "--records", str(FIXTURE), "--index", str(index_dir)],
                    stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_people_and_json(index_dir: Path):
    code, out, err = run_cli(["莊家說大", "--limit", "2"], index_dir)
    assert code == 0 and not err
    assert out.startswith("1. cbr1999 46B1 · 未指定牌點 · ") and "<mark>" not in out
    code, out, _ = run_cli(["--json", "45C4b"], index_dir)
    data = json.loads(out)
    assert code == 0 and [d["id"] for d in data][:2] == ["cbr1999:45C4b", "laws1997:45C4b"]
    code, out, _ = run_cli(["--json", "--work", "twmj16", "自摸"], index_dir)
    assert code == 0 and all(d["work"] == "twmj16" for d in json.loads(out))


def test_cli_stdin_mode(index_dir: Path):
    code, out, err = run_cli(["--json", "-", "--limit", "1"], index_dir,
                             stdin="字一色几台\n\n" + "长" * 5000 + "\n第64条 第十二墩\n")
    lines = out.splitlines()
    assert len(lines) == 4 and all(isinstance(json.loads(x), list) for x in lines)
    assert json.loads(lines[0])[0]["id"] == "twmj16:patterns.13"
    assert json.loads(lines[3])[0]["id"] == "cbr1999:64B6"
    assert code == 2 and err.count("\n") == 1 and "line 3" in err


@pytest.mark.parametrize("args", [[], ["x", "--limit", "0"], ["x", "--limit", "many"],
                                  ["x", "--work", "chess"], ["x", "--script", "latin"],
                                  ["明" * 2000]])
def test_cli_bad_input(index_dir: Path, args: list[str]):
    code, out, err = run_cli(args, index_dir)
    assert code == 2 and not out and err.startswith("kb search: ") and err.count("\n") == 1


def test_cli_missing_records(tmp_path: Path):
    err = io.StringIO()
    code = cli.main(["search", "明手", "--records", str(tmp_path / "none.jsonl"),
                     "--index", str(tmp_path / "ix")], stderr=err)
    assert code == 2 and "records file not found" in err.getvalue()


def test_cli_law_range_filter(capsys):
    from kb.search.cli import main, parse_law_range
    assert parse_law_range("61-64") == (61, 64) and parse_law_range("45") == (45, 45)
    with pytest.raises(KbError):
        parse_law_range("64-61")
    assert main(["--json", "--laws", "61-64", "藏牌"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert results and all(r["citation"][:2] in {"61", "62", "63", "64"} for r in results)
    assert main(["--laws", "abc", "藏牌"]) == 2
