"""Twins: the same clause in the two bridge translations, by citation or by kb/data/twins.tsv."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kb.core.curated import DATA_DIR
from kb.core.errors import KbError
from kb.ingest.pipeline import ingest
from kb.ingest.twins import TABLE, attach_twins
from kb.search.engine import SearchEngine


@pytest.fixture(scope="module")
def records():
    return ingest().records


def test_every_twin_is_mutual_and_of_the_twin_work(linked_records):
    by_id = {r.id: r for r in linked_records}
    pairs = [r for r in linked_records if r.twin]
    assert len(pairs) == 152                                  # 76 clauses in each translation
    for r in pairs:
        mate = by_id[r.twin]
        assert mate.twin == r.id and {r.work, mate.work} == {"cbr1999", "laws1997"}
    assert not any(r.twin for r in linked_records if r.work == "twmj16")


def test_lettering_that_differs_pairs_by_the_table(linked_records):
    by_id = {r.id: r for r in linked_records}
    assert by_id["cbr1999:45C4b"].twin == "laws1997:45C4b"    # the rule: the same citation
    # Law 43B2: the other translation letters dummy's three acts in another order
    assert by_id["cbr1999:43B2a"].twin == "laws1997:43B2b"    # warns declarer about the lead
    assert by_id["cbr1999:43B2b"].twin == "laws1997:43B2c"    # asks declarer about a revoke
    assert by_id["cbr1999:43B3"].twin == "laws1997:43B2a"     # draws attention to a defender's irregularity
    # Law 47: the 1999 translation has no counterpart of the other's 47F
    assert by_id["cbr1999:47F"].twin == "laws1997:47G" and by_id["laws1997:47F"].twin is None
    # the texts say the same: not to lead from the wrong hand; a played card may not be withdrawn
    assert "错误方位引牌" in by_id["cbr1999:43B2a"].text_hans and "错误的一手中攻牌" in by_id["laws1997:43B2b"].text_hans
    assert "不得收回" in by_id["cbr1999:47F"].text_hans and "不得收回" in by_id["laws1997:47G"].text_hans


@pytest.fixture
def table_copy(tmp_path: Path) -> Path:
    shutil.copy(DATA_DIR / TABLE.path, tmp_path / TABLE.path)
    return tmp_path


@pytest.mark.parametrize("line, message", [
    ("cbr1999:99Z\tlaws1997:45A", "no record 'cbr1999:99Z'"),
    ("cbr1999:45A\tcbr1999:45B", "no record 'cbr1999:45B' in work 'laws1997'"),
    ("twmj16:terms\t-", "work 'twmj16' has no twin translation"),
    ("cbr1999:45A\tlaws1997:47G", "'laws1997:47G' is paired twice"),
    ("laws1997:43B2b\tcbr1999:43B2b", "is paired twice"),
])
def test_a_bad_row_names_file_and_line(table_copy, records, line, message):
    path = table_copy / TABLE.path
    n = path.read_text(encoding="utf-8").count("\n") + 1
    path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    with pytest.raises(KbError, match=rf"twins\.tsv:{n}: .*{re.escape(message)}"):
        attach_twins(records, table_copy)


def test_search_attaches_the_twin_of_other_lettering(session_build: Path):
    eng = SearchEngine.open(session_build / "records.jsonl", session_build / "index")
    got = eng.search("明手提示庄家不要从错误方位引牌", limit=5)
    hit = next(r for r in got if r["id"] in ("cbr1999:43B2a", "laws1997:43B2b"))
    assert {t["id"] for t in hit["twins"]} == {"cbr1999:43B2a", "laws1997:43B2b"} - {hit["id"]}
    assert "laws1997:43B2a" not in {t["id"] for t in hit["twins"]}


def test_compare_page_sets_the_corresponding_clauses_side_by_side(session_build: Path):
    site = session_build.parent / "site" / "hans" / "compare"
    law43 = (site / "law-43" / "index.html").read_text(encoding="utf-8")
    row = law43[law43.index('id="43B2a"'):]
    row = row[:row.index("</div>\n</div>")]
    assert "43B2(a)" in row and "43B2(b)" in row and "提示庄家不要从错误方位引牌" in row and "提醒定约人" in row
    law47 = (site / "law-47" / "index.html").read_text(encoding="utf-8")
    assert 'id="47F-laws1997"' in law47                    # the other translation's 47F, on its own
    own = law47[law47.index('id="47F-laws1997"'):]
    assert "此译本无此款" in own[:own.index("</div>\n</div>")]


def test_a_clause_only_one_translation_has_says_so(session_build: Path):
    law47 = (session_build.parent / "site" / "hans" / "compare" / "law-47" / "index.html").read_text(encoding="utf-8")
    heading = re.search(r'<h2 id="47F-laws1997">(.*?)<a', law47, re.S)
    assert heading and "47F" in heading.group(1) and "仅见于" in heading.group(1)
