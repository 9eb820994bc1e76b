"""The concordance to the 2017 Laws: every clause of both bridge books mapped (or said not to be),
with its authority, carried by the records, the pages of both editions, kb show, the API and kb stats."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from kb.app import build as b
from kb.core import works
from kb.core.curated import DATA_DIR
from kb.core.errors import KbError
from kb.ingest.concordance import CHANGES, attach_concordance, display_citation, table

BRIDGE = [w.id for w in works.of_kind("bridge")]


@pytest.fixture(scope="module")
def recs(linked_records):
    return {r.id: r for r in linked_records}


def test_every_clause_of_both_bridge_books_has_an_entry_mostly_mapped(recs):
    for work in BRIDGE:
        mine = [r for r in recs.values() if r.work == work]
        assert mine and all(r.concordance for r in mine), work
        mapped = [r for r in mine if r.concordance[0]["change"] != "unmapped"]
        assert len(mapped) >= 0.9 * len(mine), (work, len(mapped), len(mine))
        for r in mine:
            for e in r.concordance:
                assert e["code"] == "2017" and e["change"] in CHANGES and len(e["authority"]) > 20, r.id
                assert bool(e["citation"]) == (e["change"] not in ("removed", "unmapped")), r.id
    assert not any(r.concordance for r in recs.values() if r.work not in BRIDGE)


def test_letters_that_moved_are_mapped_by_words_not_by_letter(recs):
    """1997 63C (the correction period) is 2017 63B; 1997 71C became 71B; 63B has no 2017 counterpart."""
    assert [e["citation"] for e in recs["cbr1999:63C"].concordance] == ["63B"]
    assert recs["cbr1999:63B"].concordance[0]["change"] == "removed"
    assert display_citation("27B1b") == "27B1(b)" and display_citation("45C") == "45C"


@pytest.mark.parametrize("line, message", [
    ("cbr1999:99Z\t99Z\tsame\tan authority long enough", "no record 'cbr1999:99Z' in work 'cbr1999'"),
    ("cbr1999:45A\t45A\tsimilar\tan authority long enough", "change"),
    ("cbr1999:45A\t45A\tremoved\tan authority long enough", "is removed but names a 2017 citation"),
    ("cbr1999:45A\t\tchanged\tan authority long enough", "is changed but names no 2017 citation"),
    ("cbr1999:45A\t45-A\tsame\tan authority long enough", "'45-A' is not a compact citation"),
    ("cbr1999:45A\t45A\tsame\tpenalty -> rectification", "its authority holds '>'"),
])
def test_a_bad_row_names_file_and_line(tmp_path, linked_records, line, message):
    shutil.copytree(DATA_DIR / "concordance", tmp_path / "concordance")
    path = table("cbr1999").file(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    rid = line.split("\t")[0]
    n = next((i for i, x in enumerate(lines, 1) if x.startswith(rid + "\t")), None)
    if n is None:
        lines.append(line)
        n = len(lines)
    else:
        lines[n - 1] = line
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(KbError, match=rf"concordance/cbr1999\.tsv:{n}: .*{re.escape(message)}"):
        attach_concordance(linked_records, tmp_path)


def test_a_missing_row_is_an_error_naming_the_record(tmp_path, linked_records):
    shutil.copytree(DATA_DIR / "concordance", tmp_path / "concordance")
    path = table("laws1997").file(tmp_path)
    path.write_text("".join(x for x in path.read_text(encoding="utf-8").splitlines(keepends=True)
                            if not x.startswith("laws1997:45C4b\t")), encoding="utf-8")
    with pytest.raises(KbError, match=r"laws1997\.tsv: 1 records of 'laws1997' have no row, first 'laws1997:45C4b'"):
        attach_concordance(linked_records, tmp_path)


def page(site, edition: str, url: str) -> str:
    return (site / edition / url / "index.html").read_text(encoding="utf-8")


def test_every_bridge_page_says_the_code_and_each_clause_its_2017_line(session_build):
    site = b.site_dir(session_build)
    hans, hant = page(site, "hans", "cbr1999/law-64"), page(site, "hant", "cbr1999/law-64")
    for html, changed, words in ((hans, "规定有实质变化", "本书译自 1997 年版规则"), (hant, "規定有實質變化", "本書譯自 1997 年版規則")):
        assert words in html and "2017" in html
        lines = re.findall(r'<p class="kb-in-force kb-in-force-changed">.*?</p>', html, re.S)
        assert any(changed in x and "⚠" in x and "64A2</a>" in x for x in lines), lines   # a changed clause
        assert any("⚠" in x and "64</a>" in x for x in lines)                   # its law's heading, marked too
        assert 'href="https://www.pzbs.pl/sedziowie/mpb/2017/en/l64.html"' in html
    for work in BRIDGE:
        for edition in ("hans", "hant"):
            assert "kb-code-note" in page(site, edition, work)
    assert "kb-in-force" not in page(site, "hans", "twmj16/patterns")


def test_kb_show_json_and_stats_carry_it(session_build):
    env_cmd = [sys.executable, "-m", "kb.app.cli"]
    shown = subprocess.run([*env_cmd, "show", "cbr1999:63C"], capture_output=True, text=True, check=True).stdout
    assert "2017 版: 63B [" in shown
    obj = json.loads(subprocess.run([*env_cmd, "show", "cbr1999:63C", "--json"], capture_output=True, text=True,
                                    check=True).stdout)
    assert obj["concordance"][0]["citation"] == "63B"
    stats = json.loads((session_build / "stats.json").read_text(encoding="utf-8"))
    assert set(stats["concordance"]) == set(BRIDGE)
    assert sum(stats["concordance"]["laws1997"].values()) == 77
    text = subprocess.run([*env_cmd, "stats"], capture_output=True, text=True, check=True).stdout
    assert "cbr1999 against the 2017 Laws:" in text


def test_the_api_carries_it(session_build):
    import starlette.testclient as starlette_testclient

    from kb.app.serve import create_app
    with starlette_testclient.TestClient(create_app(session_build), base_url="http://127.0.0.1") as c:
        got = c.get("/api/clause/cbr1999:64A1").json()
    assert got["concordance"][0]["citation"] == "64A1"


def test_the_pdf_carries_it(session_build):
    from pypdf import PdfReader

    from kb.site.pdf import pdf_name
    reader = PdfReader(b.site_dir(session_build) / "hans" / "pdf" / pdf_name("cbr1999", "hans"))
    text = "".join(p.extract_text() for p in reader.pages[:6])
    assert "2017 版" in text


def test_a_clause_whose_rule_carries_over_says_when_one_under_it_changed():
    """A clause classed by its own words (64A 当藏牌成立时：, same) with a changed clause under it
    (64A2) says 其下有规定变化 after its own words: a director does not take its clauses for unchanged."""
    from kb.ingest.concordance import changed_below, in_force_text, in_force_words

    rows = [{"id": "w:64", "parent": None, "concordance": [{"change": "changed"}]},
            {"id": "w:64A", "parent": "w:64", "concordance": [{"change": "same"}]},
            {"id": "w:64A2", "parent": "w:64A", "concordance": [{"change": "changed"}]},
            {"id": "w:64B", "parent": "w:64", "concordance": [{"change": "same"}]}]
    assert changed_below(rows) == {"w:64", "w:64A"}
    assert in_force_words("same", below=True) == "规定相同；其下有规定变化"
    assert in_force_words("changed", below=True) == "规定有实质变化"
    assert in_force_words("changed", heading=True, below=True) == "其下有规定变化"
    entry = {"code": "2017", "citation": "64A", "change": "same", "authority": "x"}
    assert in_force_text([entry], below=True) == "2017 版：64A，规定相同；其下有规定变化"
    assert in_force_text([entry]) == "2017 版：64A，规定相同"
