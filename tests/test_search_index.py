"""The whoosh index of search: the jieba tokenizer, the schema, and what opening reads."""
from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import whoosh.index
from whoosh import query
from whoosh.searching import Searcher

from kb.core.errors import KbError
from kb.search import rank
from kb.search.analysis import analyze, searchable
from kb.search.engine import SearchEngine
from kb.search.index import build_index, open_index, read_records
from kb.search.lexicon import Lexicon
from kb.search.postings import LENGTHS_FILE, ClauseBM25, Postings
from kb.search.schema import WORD_FIELDS, JiebaTokenizer

FIXTURE = Path(__file__).parent / "fixtures" / "search_records.jsonl"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("whoosh") / "index"
    build_index(FIXTURE, d)
    return d


@pytest.fixture(scope="module")
def lex(index_dir: Path) -> Lexicon:
    return Lexicon.load(index_dir / "lexicon.json")


def test_tokenizer_positions_and_offsets(lex: Lexicon):
    text = "莊家不判罚，明手的牌張 Law 64"
    toks = [(t.text, t.pos, t.startchar, t.endchar)
            for t in JiebaTokenizer(lex)(text, positions=True, chars=True, start_pos=3, start_char=10)]
    words = analyze(text, lex).words
    assert [t[0] for t in toks] == [w for w, _, _ in words]
    assert [t[1] for t in toks] == list(range(3, 3 + len(words)))        # sequential positions
    assert all(text[s - 10:e - 10] for _, _, s, e in toks)
    assert "不判罚" in [t[0] for t in toks] and "庄家" in [t[0] for t in toks]


def test_tokenizer_from_a_saved_schema_has_no_lexicon(index_dir: Path):
    schema = whoosh.index.open_dir(str(index_dir)).schema
    assert set(WORD_FIELDS) == set(rank.WORD_FIELDS)                     # the fields the ranker scores
    with pytest.raises(KbError, match="no lexicon"):
        list(schema["text"].analyzer("明手"))


def test_the_postings_hold_what_the_analysis_cuts(index_dir: Path, lex: Lexicon):
    """Each document's terms per field, with frequencies, read back from whoosh's postings, are
    those of its text; the dense table of lengths holds their sums."""
    docs = open_index(FIXTURE, index_dir).docs
    records = list(read_records(FIXTURE))
    assert [d["id"] for d in docs] == [r["id"] for r in records]
    postings = Postings(index_dir)
    counts = postings.document_counts()
    for n, (d, rec) in enumerate(zip(docs, records)):
        title, text = searchable(d["title_hans"]), searchable(d["text_hans"])
        body = analyze(title + "\n" + text + "\n" + d["subjects"] + "\n" + d["questions"], lex)
        want = {"title": [w for w, _, _ in analyze(title, lex).words],
                "text": [w for w, _, _ in analyze(text, lex).words],
                "context": [w for w, _, _ in analyze(d["context"], lex).words],
                "subjects": [w for w, _, _ in analyze(d["subjects"], lex).words],
                "questions": [w for w, _, _ in analyze(d["questions"], lex).words],
                "english": [w for w, _, _ in analyze("\n".join(rec.get("english") or []), lex).words],
                "bigram": body.bigrams, "unigram": body.unigrams}
        assert counts[n] == {f: dict(Counter(t)) for f, t in want.items()}, d["id"]
        assert {f: postings.lengths[f][n] for f in want} == {f: len(t) for f, t in want.items()}, d["id"]
    postings.close()


def test_whoosh_searcher_scores_every_candidate(index_dir: Path, monkeypatch: pytest.MonkeyPatch):
    """The ranking's candidates and their BM25 come from whoosh's searcher over its postings, scored by
    the ranking's WeightingModel: with whoosh's postings emptied, nothing is found; each result's
    word and gram parts are what the searcher's matchers score."""
    fresh = SearchEngine(open_index(FIXTURE, index_dir))
    calls: list[tuple[str, bytes]] = []
    real = Searcher.postings

    def spy(self: Searcher, fieldname: str, text: bytes, weighting: Any = None, qf: int = 1) -> Any:
        calls.append((fieldname, text))
        assert isinstance(self.weighting, ClauseBM25)
        return real(self, fieldname, text, weighting, qf)
    monkeypatch.setattr(Searcher, "postings", spy)
    got = fresh.search("明手 离开 座位")
    assert got and ("text", "明手".encode()) in calls and any(f == "bigram" for f, _ in calls)
    # the same weights by hand, from the postings alone: idf · tf · (k1 + 1) / (tf + norm)
    r = fresh.ranker
    rows = dict(fresh.postings.reader.postings("text", "明手".encode()).items_as("weight"))
    idf = math.log(1.0 + (r.n - len(rows) + 0.5) / (len(rows) + 0.5))
    assert r.bm25("text", "明手") == {d: idf * tf * (r.w.k1 + 1) / (tf + r.norm["text"][d]) for d, tf in rows.items()}

    empty = SearchEngine(open_index(FIXTURE, index_dir))
    monkeypatch.setattr(Postings, "scores", lambda self, searcher, field, term: {})
    assert empty.search("明手 离开 座位") == []


def test_whoosh_phrase_query_uses_the_positions(index_dir: Path, lex: Lexicon):
    ix = whoosh.index.open_dir(str(index_dir))
    with ix.searcher() as s:
        words = [w for w, _, _ in analyze("召请裁判长", lex).words]
        assert len(words) > 1
        hits = {h["id"] for h in s.search(query.Phrase("text", words), limit=None)}
        reversed_ = {h["id"] for h in s.search(query.Phrase("text", words[::-1]), limit=None)}
        both = {h["id"] for h in s.search(query.And([query.Term("text", w) for w in words]), limit=None)}
        texts = {h["id"]: h["text_hans"] for h in s.search(query.Every(), limit=None)}
    assert hits and hits <= both and not reversed_ & hits
    assert all("召请裁判长" in texts[i] for i in hits)


def test_an_index_whose_lengths_do_not_fit_is_refused(index_dir: Path, tmp_path: Path):
    """The dense table of lengths must hold one length per document in every field: else an error
    naming the file, not a ranking of wrong lengths."""
    copy = tmp_path / "index"
    shutil.copytree(index_dir, copy)
    lengths = json.loads((copy / LENGTHS_FILE).read_text(encoding="utf-8"))
    lengths["text"] = lengths["text"][:-1]
    (copy / LENGTHS_FILE).write_text(json.dumps(lengths), encoding="utf-8")
    with pytest.raises(KbError, match=r"lengths\.json: the lengths of text are not one per document"):
        Postings(copy)
    (copy / LENGTHS_FILE).write_text("{", encoding="utf-8")
    with pytest.raises(KbError, match=r"lengths\.json: unreadable field lengths"):
        Postings(copy)


def test_the_search_fixture_is_what_its_command_makes_of_the_build(session_build):
    """tests/fixtures/search_records.jsonl is regenerated from the build by tests/make_search_fixture.py,
    never edited by hand: it must equal that command's output for the session's build."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_search_fixture import FIXTURE, projection
    want = projection(session_build / "records.jsonl")
    got = FIXTURE.read_text(encoding="utf-8")
    assert got == want, "stale fixture: run .venv/bin/python tests/make_search_fixture.py after kb build"
