"""The ranking's weights are data (kb/data/search/ranking.toml), read by both engines, learned by
bench/learn_ranking.py; ``kb search --explain`` takes each score apart by them."""
from __future__ import annotations

import io
import json
import math
import sys
from pathlib import Path

import pytest

from kb.core.errors import KbError
from kb.search.engine import SearchEngine
from kb.search.index import IndexData
from kb.search.rank import RANKING, ranking_meta
from kb.search.ranking import NAMES, WEIGHTS_PATH, load_weights, read_specs, write_values

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> IndexData:
    from kb.search.index import open_index
    fixture = Path(__file__).parent / "fixtures" / "search_records.jsonl"
    return open_index(fixture, tmp_path_factory.mktemp("weights") / "index")


@pytest.fixture(scope="module")
def engine(data: IndexData) -> SearchEngine:
    return SearchEngine(data)


# --- the file ----------------------------------------------------------------------------------

def test_every_weight_is_in_the_file_with_its_range_and_doc():
    specs = read_specs()
    assert [s.name for s in specs] == list(NAMES)
    for s in specs:
        assert s.low <= s.hand <= s.high and s.low <= s.value <= s.high and s.doc


def test_the_browser_engine_is_given_the_files_weights(session_build: Path):
    """One source: the static index's meta (site/EDITION/idx/meta.*.js) carries ranking.toml's
    weights, as the server ranks by."""
    import re
    w = load_weights()
    assert RANKING == ranking_meta(w)
    for edition in ("hans", "hant"):
        [chunk] = (session_build.parent / "site" / edition / "idx").glob("meta.*.js")
        body = re.fullmatch(r'kbIndexChunk\("meta",(.*)\);\n?', chunk.read_text(encoding="utf-8"), re.S)
        assert body, chunk
        meta = json.loads(body.group(1))
        assert meta["ranking"] == json.loads(json.dumps(ranking_meta(w))), edition


def _edit(tmp_path: Path, old: str, new: str) -> Path:
    text = WEIGHTS_PATH.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / "ranking.toml"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


@pytest.mark.parametrize("old,new,said", [
    ("[k1]", "[k_one]", "unknown weight [k_one]"),
    ("[b]\nvalue = 0.675", "[b]\nvalue = 'x'", "[b] value must be a number"),
    ('doc = "BM25: how much a long field is discounted"', 'doc = ""', "[b] needs a doc"),
    ("[b]\nvalue = 0.675", "[b]\nvalue = 7", "[b] value 7.0 is outside"),
    ("[b]\nvalue = 0.675", "[b]\nvalue = 0.675\nold = 1", "[b] has an unknown key 'old'"),
    ("[title]\nvalue = 2.5", "[title]\nvalue = nan", "[title] value must be a number"),
    ("[k1]\nvalue = ", "[k1]\nvalue = 1 1", "not valid TOML"),
])
def test_a_bad_weights_file_is_one_line_naming_the_file_and_weight(tmp_path, old, new, said):
    with pytest.raises(KbError) as e:
        read_specs(_edit(tmp_path, old, new))
    msg = str(e.value)
    assert "\n" not in msg and str(tmp_path / "ranking.toml") in msg and said in msg, msg


def test_a_missing_weight_is_named(tmp_path):
    text = WEIGHTS_PATH.read_text(encoding="utf-8")
    start = text.index("[named_penalty]")
    p = tmp_path / "ranking.toml"
    p.write_text(text[:start], encoding="utf-8")
    with pytest.raises(KbError, match=r"weight \[named_penalty\] is missing"):
        read_specs(p)


def test_written_values_read_back_and_keep_the_comments(tmp_path):
    p = tmp_path / "ranking.toml"
    p.write_text(WEIGHTS_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    write_values({"k1": 1.5, "gram_weight": 0.25}, p)
    w = load_weights(p)
    assert w.k1 == 1.5 and w.gram_weight == 0.25 and w.b == load_weights().b
    assert p.read_text(encoding="utf-8").startswith(WEIGHTS_PATH.read_text(encoding="utf-8").split("\n[")[0])


def test_the_weights_are_what_the_engine_ranks_by(data: IndexData, engine: SearchEngine):
    """A weight changed is a ranking changed: the title's boost at zero stops a title from counting."""
    q = "明手的权利"
    plain = SearchEngine(data, weights=load_weights().replace(title=0.0, title_bonus=1.0))
    assert engine.search(q, limit=1)[0]["score"] != plain.search(q, limit=1)[0]["score"]


# --- explain -------------------------------------------------------------------------------------

QUESTIONS = ["明手可以看防家的牌吗", "防家抢先出牌", "藏牌成立后怎么调整", "庄家只说草花没说几", "字一色几台",
             "dummy rights", "什么是罚张", "明手 \"草花\"", "不足叫牌被接受", "停顿很久以后改正"]


def test_explain_takes_each_score_apart_exactly(engine: SearchEngine):
    """Every result the ranking placed by its score is taken apart into parts whose product is that
    score; each word's part is its fields' BM25 and its grams, times its string's weight."""
    by_score = 0
    for q in QUESTIONS:
        plain = engine.search(q)
        explained = engine.explain(q)
        assert [r["id"] for r in explained] == [r["id"] for r in plain], q
        for r in explained:
            assert r["placed"] in {"score", "cited", "cited in 2017", "defines", "under heading", "phrase"}
            x = r["explain"]
            if r["placed"] != "score":
                continue
            by_score += 1
            assert math.isclose(x["score"], r["score"], rel_tol=1e-3), (q, r["id"])
            for g in x["groups"]:
                if g["string"]:
                    assert math.isclose((sum(g["fields"].values()) + g["grams"]) * g["weight"], g["score"])
            assert 0.0 <= x["share"] <= 1.0 and x["family"] in (1.0, load_weights().domain_penalty,
                                                                 load_weights().named_penalty)
    assert by_score >= 50


def test_explain_names_the_rule_that_placed_a_result(engine: SearchEngine):
    assert engine.explain("45C4(b)", limit=1)[0]["placed"] == "cited"
    assert engine.explain("64A 藏牌", limit=1)[0]["placed"] == "cited"
    assert engine.explain("什么是罚张", limit=1)[0]["placed"] == "defines"
    assert engine.explain("2017版27条", limit=1)[0]["placed"] == "cited in 2017"


def test_kb_search_explain_prints_a_line_per_result(data: IndexData, tmp_path):
    from kb.search.cli import main
    fixture = Path(__file__).parent / "fixtures" / "search_records.jsonl"
    index = tmp_path / "index"
    out, err = io.StringIO(), io.StringIO()
    code = main(["search", "--explain", "--limit", "3", "明手可以看防家的牌吗", "--records", str(fixture),
                 "--index", str(index)], stdout=out, stderr=err)
    lines = out.getvalue().splitlines()
    assert code == 0 and not err.getvalue() and len(lines) == 6
    assert all(line.startswith("   = ") and " placed by " in line for line in lines[1::2])
    assert "明手" in lines[1] and "coverage" in lines[1]
    out = io.StringIO()
    code = main(["search", "--explain", "--json", "--limit", "2", "45C4(b)", "--records", str(fixture),
                 "--index", str(index)], stdout=out, stderr=err)
    answer = json.loads(out.getvalue())
    assert code == 0 and [r["placed"] for r in answer["results"]][:1] == ["cited"]


# --- the learner ---------------------------------------------------------------------------------

def test_coordinate_ascent_finds_the_best_of_a_known_objective_and_respects_ranges():
    """bench/learn_ranking.py's ascent on an objective whose best is known: it gets there, never
    leaves a weight's range, and is pulled back to the hand-set value by the regulariser."""
    import learn_ranking as lr
    specs = read_specs()
    start = load_weights().replace(**{s.name: s.hand for s in specs})
    target = {"k1": 1.6, "b": 0.5}

    def score(w) -> float:
        return -sum((getattr(w, n) - v) ** 2 for n, v in target.items())
    best, _ = lr.ascend(start, specs, score, 0.0, 12, 1e-9, lambda s: None)
    assert abs(best.k1 - 1.6) < 0.1 and abs(best.b - 0.5) < 0.1
    for s in specs:
        assert s.low <= getattr(best, s.name) <= s.high
        if s.name not in target:
            assert getattr(best, s.name) == s.hand           # nothing to gain: left where it was
    held, _ = lr.ascend(start, specs, score, 100.0, 12, 1e-9, lambda s: None)
    assert held.k1 == start.k1                                # a gain too small for the regulariser
