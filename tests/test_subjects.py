"""The subject index (kb/data/subjects/) and the questions people ask (kb/data/questions/):
attached to the records, searched; the terms listed on the site."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kb.core import works
from kb.core.curated import DATA_DIR
from kb.core.errors import KbError
from kb.ingest.normalise import to_hant
from kb.ingest.pipeline import ingest
from kb.ingest.subjects import attach_subjects, english_table, question_table, table
from kb.search.engine import SearchEngine
from kb.site.subjects_page import OTHER, sort_key


def test_every_clause_of_the_two_main_books_has_index_terms(linked_records):
    for work in ("cbr1999", "twmj16"):
        mine = [r for r in linked_records if r.work == work]
        assert mine and all(r.subjects for r in mine), [r.id for r in mine if not r.subjects][:5]
    terms = [t for r in linked_records for t in r.subjects]
    assert len(terms) > 1500
    assert all(t.strip() == t and t and "、" not in t for t in terms)


def test_terms_are_the_words_people_use(linked_records):
    by_id = {r.id: r for r in linked_records}
    assert "revoke" in by_id["cbr1999:61A"].subjects            # 藏牌的定义, in English
    assert "暗攻" in by_id["cbr1999:41A"].subjects                 # a face-down opening lead
    assert any(t in ("点炮", "放枪") for r in linked_records if r.work == "twmj16" for t in r.subjects)


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    shutil.copytree(DATA_DIR / "subjects", tmp_path / "subjects")
    return tmp_path


@pytest.fixture(scope="module")
def records():
    return ingest().records


@pytest.fixture(scope="module")
def engine_fixture(session_build: Path) -> SearchEngine:
    return SearchEngine.open(session_build / "records.jsonl", session_build / "index")


@pytest.fixture(scope="module")
def site(session_build: Path) -> Path:
    return session_build.parent / "site"


def _append(root: Path, work: str, line: str) -> int:
    path = table(work).file(root)
    text = path.read_text(encoding="utf-8")
    path.write_text(text + line + "\n", encoding="utf-8")
    return text.count("\n") + 1


@pytest.mark.parametrize("line, message", [
    ("cbr1999:99Z\t不存在的条款", "no record 'cbr1999:99Z' in work 'cbr1999'"),
    ("twmj16:terms\t放在桥牌的文件里", "no record 'twmj16:terms' in work 'cbr1999'"),
    ("cbr1999:45A\t重复的行", "id 'cbr1999:45A' repeats"),
])
def test_a_bad_row_names_file_and_line(data_copy, records, line, message):
    n = _append(data_copy, "cbr1999", line)
    with pytest.raises(KbError) as exc:
        attach_subjects(records, data_copy)
    text = str(exc.value)
    assert message in text and re.search(rf"subjects/cbr1999\.tsv:{n}\b", text), text


@pytest.mark.parametrize("folder, rid, cell, message", [
    ("subjects", "cbr1999:45A", "亮出来、、露了", "an empty term"),
    ("subjects", "cbr1999:45A", "亮出来、露了、亮出来", "term '亮出来' is given twice"),
    ("questions", "cbr1999:43A1a", "明手能不能叫裁判||明手叫了裁判", "an empty question"),
    ("questions", "cbr1999:43A1a", "明手能不能叫裁判|明手叫了裁判|明手能不能叫裁判",
     "question '明手能不能叫裁判' is given twice"),
])
def test_a_bad_term_or_question_names_file_and_line(tmp_path, records, folder, rid, cell, message):
    shutil.copytree(DATA_DIR / folder, tmp_path / folder)
    path = (table if folder == "subjects" else question_table)("cbr1999").file(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    n = next(i for i, line in enumerate(lines, 1) if line.startswith(rid + "\t"))
    lines[n - 1] = f"{rid}\t{cell}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(KbError, match=rf"{folder}/cbr1999\.tsv:{n}: {re.escape(message)}"):
        attach_subjects(records, tmp_path)


def test_a_work_without_a_table_has_no_terms(tmp_path, records):
    records = attach_subjects(records, tmp_path)      # no subjects/, questions/ or english/ folder at all
    assert not any(r.subjects or r.questions or r.english for r in records)


def test_every_clause_has_questions_people_ask(linked_records):
    """Every record with a title or text: five to eight questions (a few words to a sentence), in
    Simplified characters (those typed in Taiwan converted, their words kept)."""
    from kb.ingest.normalise import to_hans
    with_words = [r for r in linked_records if r.title_hans or r.text_hans]
    assert with_words and all(5 <= len(r.questions) <= 8 for r in with_words), \
        [r.id for r in with_words if not 5 <= len(r.questions) <= 8][:5]
    assert all(q.strip() == q and "|" not in q and 2 <= len(q) <= 40 for r in with_words for q in r.questions)
    assert [q for r in with_words for q in r.questions if to_hans(q) != q] == []
    assert all(not r.questions for r in linked_records if not (r.title_hans or r.text_hans))



def test_search_finds_a_clause_by_the_way_people_ask(engine_fixture):
    """A question held only by a clause's questions finds it (words of neither its title, its
    text nor its terms)."""
    n = engine_fixture.by_id["cbr1999:27B2"]
    asked = next(q for q in engine_fixture.docs[n]["questions"].split("\n") if q == "叫低后改叫别的罚啥")
    assert asked not in engine_fixture.docs[n]["text_hans"]
    assert "cbr1999:27B2" in [r["id"] for r in engine_fixture.search(asked, limit=3)]


def test_search_finds_a_clause_by_an_index_term_alone(engine_fixture):
    eng = engine_fixture
    hits = eng.search("暗攻")
    assert hits and hits[0]["id"] == "cbr1999:41A"
    n = eng.by_id["cbr1999:41A"]
    assert "暗攻" not in eng.docs[n]["title_hans"] + eng.docs[n]["text_hans"]   # only the index holds it


def test_a_quoted_phrase_stands_whole_in_title_text_or_a_term(engine_fixture):
    eng = engine_fixture
    got = [r["id"] for r in eng.search('"lead out of turn"', limit=20)]
    assert got and all("lead out of turn" in eng.ranker.phrase_text(eng.by_id[i]) for i in got)
    assert "cbr1999:53A" in got
    # every bigram of 重罚张必须 occurs in 45C5 and its terms, but not the phrase: the one clause
    # that holds it leads; its words find the rest after it (fewer than three clauses hold it)
    got = [r["id"] for r in eng.search('"重罚张必须"')]
    assert got[0] == "cbr1999:50D1" and not any("重罚张必须" in eng.ranker.phrase_text(eng.by_id[i])
                                                             for i in got[1:])


def test_index_terms_sort_by_pinyin():
    terms = ["罚张", "暗攻", "revoke", "亮出来", "两人同时叫", "claim", "重罚张", "1墩"]
    ordered = sorted(terms, key=sort_key)
    assert ordered.index("暗攻") < ordered.index("claim") < ordered.index("罚张") < ordered.index("亮出来") \
        < ordered.index("两人同时叫") < ordered.index("revoke") < ordered.index("重罚张")
    assert sort_key("重罚张")[0] == "Z" and sort_key("1墩")[0] == OTHER


def test_site_lists_the_terms_in_both_scripts(site):
    for work in works.work_ids():
        for edition in ("hans", "hant"):
            page = site / edition / work / "subjects" / "index.html"
            assert page.is_file(), page
    hans = (site / "hans" / "cbr1999" / "subjects" / "index.html").read_text(encoding="utf-8")
    hant = (site / "hant" / "cbr1999" / "subjects" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<span class="kb-subject">暗攻</span> → <a href="\.\./law-41/#41A">41A</a>', hans)
    assert '<span class="kb-subject">' + to_hant("来不及收回") + "</span>" in hant
    letters = re.findall(r'<h2 id="letter-([A-Z]|other)"', hans)
    assert letters == sorted(letters, key=lambda c: (c == "other", c)) and len(letters) > 15
    # the other translation lists its twin's terms at its own clauses
    laws = (site / "hans" / "laws1997" / "subjects" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'<span class="kb-subject">暗攻</span> → <a href="\.\./law-41/#41A">41A</a>', laws)
    index = (site / "hans" / "cbr1999" / "index.html").read_text(encoding="utf-8")
    assert 'href="subjects/"' in index


def test_a_restored_number_is_searched_without_its_brackets(engine_fixture):
    """超过〔七〕线: the editor's restoration reads as 七线 to search (and to a quoted phrase)."""
    eng = engine_fixture
    assert "cbr1999:38" in [r["id"] for r in eng.search("叫了七线以上", limit=3)]
    assert "cbr1999:38" in [r["id"] for r in eng.search('"超过七线"')]


def test_a_multi_word_english_term_counts_as_itself(engine_fixture):
    """penalty card: the English name is matched as written (index terms hold it), besides 罚张."""
    group = engine_fixture.parse("penalty card").groups[0]
    assert ("penalty card", 1.0) in group.alts and any(s == "罚张" for s, _ in group.alts)


def test_the_index_lists_the_clauses_own_titles(site):
    """A reader looking up 藏牌成立 finds the clause titled so (63A), not only clauses whose index
    terms say it; an entry that is a clause's title does not repeat the title after its link."""
    hans = (site / "hans" / "cbr1999" / "subjects" / "index.html").read_text(encoding="utf-8")
    entry = re.search(r'<li><span class="kb-subject">藏牌成立</span> → (.*?)</li>', hans)
    assert entry and 'href="../law-63/#63A"' in entry.group(1)
    assert '<span class="kb-subject-title">藏牌成立</span>' not in entry.group(1)
    mahjong = (site / "hans" / "twmj16" / "subjects" / "index.html").read_text(encoding="utf-8")
    intro = re.search(r"<p>查找条款用的词：(.*?)</p>", mahjong)
    assert intro and "另一译本" not in intro.group(1)          # the mahjong rules have no other translation
    assert "另一译本" in re.search(r"<p>查找条款用的词：(.*?)</p>", hans).group(1)


def test_every_clause_of_the_three_books_has_english_phrases(linked_records):
    """What an English speaker calls each clause: five to eight lowercase phrases, none repeated."""
    with_words = [r for r in linked_records if (r.title_hans or r.text_hans) and not (r.work == "laws1997" and r.twin)]
    assert with_words and all(5 <= len(r.english) <= 8 for r in with_words), \
        [r.id for r in with_words if not 5 <= len(r.english) <= 8][:5]
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9 '\-]*", p) for r in with_words for p in r.english)


def test_an_english_question_finds_the_clause_its_phrases_describe(engine_fixture):
    """Words only the English phrases hold, in any inflection (left, dropped, revoked)."""
    eng = engine_fixture
    assert [r["id"] for r in eng.search("dummy leaves the table", limit=1)] == ["cbr1999:43A2b"]
    assert [r["id"] for r in eng.search("defender dropped a card face up", limit=1)] == ["cbr1999:49"]
    assert [r["id"] for r in eng.search("dummy left his seat", limit=1)] == ["cbr1999:43A2b"]


def test_a_chinese_word_does_not_read_the_english_phrases(engine_fixture):
    """罚张's English synonym (penalty card) is not looked for in the English phrases: clauses that
    only they tie to penalty cards come back for the English words, not for 罚张."""
    eng = engine_fixture
    only_english = {eng.docs[d]["id"] for d in set(eng.ranker.bm25("english", "penalty"))
                    & set(eng.ranker.bm25("english", "card"))
                    if "罚张" not in eng.ranker.phrase_text(d)}
    by_english = {r["id"] for r in eng.search("penalty card", limit=300)}
    by_chinese = {r["id"] for r in eng.search("罚张", limit=300)}
    assert only_english & by_english - by_chinese


@pytest.mark.parametrize("cell, message", [
    ("revoke; ; revoked", "an empty English phrase"),
    ("revoke; two trick penalty; revoke", "English phrase 'revoke' is given twice"),
])
def test_a_bad_english_phrase_names_file_and_line(tmp_path, records, cell, message):
    shutil.copytree(DATA_DIR / "english", tmp_path / "english")
    path = english_table("cbr1999").file(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    n = next(i for i, line in enumerate(lines, 1) if line.startswith("cbr1999:61A\t"))
    lines[n - 1] = f"cbr1999:61A\t{cell}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(KbError, match=rf"english/cbr1999\.tsv:{n}: {re.escape(message)}"):
        attach_subjects(records, tmp_path)


def test_kb_show_lists_the_english_phrases(linked_records):
    from kb.core.present import format_record
    rec = next(r for r in linked_records if r.id == "cbr1999:43A2b")
    shown = format_record(rec)
    assert "英文检索词: " + "; ".join(rec.english) in shown and rec.english


def test_traditional_index_terms_sort_by_zhuyin():
    """The Traditional edition's index is in 注音 order, as Taiwan's are: ㄅ before ㄈ before ㄌ …,
    the medials ㄧㄨㄩ last, a syllable's tones in order; ü kept (绿 ㄌㄩ, 学 ㄒㄩㄝ); Latin terms after."""
    from kb.site.subjects_page import LATIN, zhuyin, zhuyin_key
    assert [zhuyin(s) for s in ("zhong", "lü", "xue", "qu", "chi", "si", "yong", "wen", "er", "yi")] == \
        ["ㄓㄨㄥ", "ㄌㄩ", "ㄒㄩㄝ", "ㄑㄩ", "ㄔ", "ㄙ", "ㄩㄥ", "ㄨㄣ", "ㄦ", "ㄧ"]
    terms = ["罚张", "暗攻", "revoke", "亮出来", "两人同时叫", "claim", "重罚张", "八仙过海"]
    chinese = sorted((t for t in terms if not t.isascii()), key=zhuyin_key)
    # 两 liǎng before 亮 liàng: the same syllable, ordered by tone before the next character
    assert chinese == ["八仙过海", "罚张", "两人同时叫", "亮出来", "重罚张", "暗攻"]
    assert zhuyin_key("claim")[0] == LATIN and zhuyin_key("暗攻")[0] == "ㄢ"


def test_traditional_index_page_is_in_zhuyin_order(site):
    hant = (site / "hant" / "cbr1999" / "subjects" / "index.html").read_text(encoding="utf-8")
    heads = re.findall(r'<h2 id="letter-(zy\d\d|latin|other)"', hant)
    assert heads[:3] == ["zy00", "zy01", "zy02"] and heads == sorted(heads, key=lambda h: (not h.startswith("zy"), h == "other", h))
    assert "按注音符號排序" in hant and ">ㄅ</a>" in hant
