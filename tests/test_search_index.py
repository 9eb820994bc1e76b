"""The whoosh index of search: the jieba tokenizer, the schema, and what opening reads."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import whoosh.index
from whoosh import query

from kb.core.errors import KbError
from kb.search import rank
from kb.search.analysis import analyze, searchable
from kb.search.index import build_index, open_index, read_records
from kb.search.lexicon import Lexicon
from kb.search.schema import GRAM_FIELDS, WORD_FIELDS, JiebaTokenizer

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


def test_opening_reads_what_the_analysis_cuts(index_dir: Path, lex: Lexicon):
    """Each document's terms per field, with frequencies, are those of its text."""
    docs = open_index(FIXTURE, index_dir).docs
    records = list(read_records(FIXTURE))
    assert [d["id"] for d in docs] == [r["id"] for r in records]
    for d, rec in zip(docs, records):
        title, text = searchable(d["title_hans"]), searchable(d["text_hans"])
        body = analyze(title + "\n" + text + "\n" + d["subjects"] + "\n" + d["questions"], lex)
        want = {"title": [w for w, _, _ in analyze(title, lex).words],
                "text": [w for w, _, _ in analyze(text, lex).words],
                "context": [w for w, _, _ in analyze(d["context"], lex).words],
                "subjects": [w for w, _, _ in analyze(d["subjects"], lex).words],
                "questions": [w for w, _, _ in analyze(d["questions"], lex).words],
                "english": [w for w, _, _ in analyze("\n".join(rec.get("english") or []), lex).words],
                "bigram": body.bigrams, "unigram": body.unigrams}
        assert d["counts"] == {f: dict(Counter(t)) for f, t in want.items()}, d["id"]


def test_stored_counts_agree_with_the_postings(index_dir: Path):
    """Opening reads the stored term counts; whoosh's inverted postings of the word fields hold the
    same (doc, term, freq). The character grams are counted only (the ranking reads the counts)."""
    with whoosh.index.open_dir(str(index_dir)).reader() as r:
        assert not set(GRAM_FIELDS) & set(r.schema.names())
        for f in WORD_FIELDS:
            inverted = set()
            for btext in r.lexicon(f):
                m = r.postings(f, btext)
                while m.is_active():
                    inverted.add((m.id(), btext.decode(), m.weight()))
                    m.next()
            stored = {(n, t, float(c)) for n, fields in enumerate(r.all_stored_fields())
                      for t, c in fields["counts"][f].items()}
            assert inverted == stored and inverted, f


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


def test_an_index_without_term_counts_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A document whose stored counts lack a field is an error naming the index, not a silent zero."""
    from kb.search import index as search_index

    monkeypatch.setattr(search_index, "term_counts", lambda fields, lex, body: {"title": {}, "text": {}})
    with pytest.raises(KbError, match=r"index: document 0 of the search index has no term counts"):
        open_index(FIXTURE, tmp_path / "index")


def test_the_search_fixture_is_what_its_command_makes_of_the_build(session_build):
    """tests/fixtures/search_records.jsonl is regenerated from the build by tests/make_search_fixture.py,
    never edited by hand: it must equal that command's output for the session's build."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_search_fixture import FIXTURE, projection
    want = projection(session_build / "records.jsonl")
    got = FIXTURE.read_text(encoding="utf-8")
    assert got == want, "stale fixture: run .venv/bin/python tests/make_search_fixture.py after kb build"
