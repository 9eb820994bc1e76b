"""The corpus lint (kb/ingest/lint.py): zero unexplained findings on the real records, every rule able to
fire, and the usage rules' outcome on the real records of both editions."""
from __future__ import annotations

import dataclasses
import re
import subprocess
import sys

import pytest

from kb.core.curated import DATA_DIR
from kb.ingest.lint import findings, run_lint
from kb.ingest.normalise import to_hant


def test_real_records_have_no_unexplained_findings(corpus):
    assert [f.line() for f in run_lint(corpus.records)] == []


def _with(rec, **fields):
    return dataclasses.replace(rec, **fields)


def _rules(rec) -> set[tuple[str, str]]:
    return {(f.rule, f.match) for f in findings([rec])}


@pytest.mark.parametrize("text, rule, match", [
    ("违规者的下家接著叫牌。", "script", "接著"),              # a usage rule's residue
    ("随后他看著明手。", "script", "看著明"),                    # 著 where 着 is meant
    ("参阅第45條。", "script", "5條。"),                          # a Traditional character
    ("该防家（参阅第45条E款。", "brackets", "（参阅第45条E款。"),
    ("打出的牌墩--参阅第66条C款。", "ascii-punct", "--"),
    ("打出的牌张,不判罚。", "ascii-punct", ","),
    ("打出的牌张 不判罚。", "space", "的牌张 不判罚"),
    ("应用第40条c款。", "clause-letter", "40条c款"),
    ("应用第40条C款", "sentence-end", "应用第40条C款"),
])
def test_each_rule_fires(records, text, rule, match):
    rec = _with(records["cbr1999:47E2b"], text_hans=text, text_hant=to_hant(text))
    assert (rule, match) in _rules(rec)


def test_mainland_usage_in_the_taiwan_edition_is_found(records):
    rec = records["cbr1999:50C"]
    rec = _with(rec, text_hant=rec.text_hant.replace("資訊", "信息"))
    assert ("script", "信息") in _rules(rec)
    rec = _with(records["twmj16:discard"], title_hant="舍牌")
    assert ("script", "舍牌") in _rules(rec)


def test_a_note_contradicted_by_its_record_is_found(records):
    rec = records["cbr1999:35C"]
    note = {"kind": "loss", "what": "□ 表示抄本002已佚的数字或款字母；没有其他抄本载有此款，无从补出", "from": "002"}
    rec = _with(rec, title_hans="超过□线的叫牌", notes=[*rec.notes, note])
    assert ("note", "超过七线的") in _rules(rec)
    rec = _with(records["cbr1999:41A"], notes=[note])      # nothing is lost in 41A
    assert any(f.rule == "note" for f in findings([rec]))


def test_an_exception_that_explains_nothing_is_a_finding(corpus, tmp_path):
    text = (DATA_DIR / "lint-exceptions.tsv").read_text(encoding="utf-8")
    (tmp_path / "lint-exceptions.tsv").write_text(text + "space\tcbr1999:41A\t牌 面\t不存在\n", encoding="utf-8")
    (found,) = run_lint(corpus.records, root=tmp_path)
    assert "explains no finding" in found.message and found.record == "cbr1999:41A"


def test_taiwan_usage_on_the_real_records(records):
    hant = {r.id: r.text_hant + r.title_hant for r in records.values()}
    every = "".join(hant.values())
    assert "舍牌" not in every and every.count("捨牌") >= 19
    assert "碰槓" in hant["twmj16:exposed-kan"] and "採取" in hant["cbr1999:68D"]
    assert "指明了" in hant["cbr1999:63A2"] and "瞭" not in every
    assert "如係：" in hant["cbr1999:31A2"] and "係一超過七線" in hant["cbr1999:35C"]
    assert "體系" in hant["cbr1999:40E1"]                  # 系 of 體系 is not 係
    assert "說「大」" in hant["cbr1999:46B1"] and not re.search("[“”]", every)
    assert "資訊" in hant["cbr1999:50C"] and "信息" not in every
    assert "默許" in hant["cbr1999:69A"] and "默認" not in every


def test_simplified_edition_free_of_conversion_residue(records):
    assert records["cbr1999:41A"].text_hans.startswith("在一个实质叫牌、加倍或再加倍，接着依序")
    assert records["cbr1999:55C"].title_hans == "庄家可能获得信息"
    assert records["cbr1999:64"].title_hans.endswith("处理程序")
    assert records["cbr1999:41"].heading[1:] == ["第一部分 打牌的程序", "第一节 正确的程序"]
    assert records["laws1997:41"].heading[0] == "第六章 打牌"
    every = "".join(r.text_hans + r.title_hans for r in records.values())
    assert not re.search("资讯|程式|接著|跟著", every)


def test_witness_slips_emended_with_their_support(records):
    cases = {
        "cbr1999:45C1": ("合法牌张，参阅45条E款）", "抄本000"),
        "cbr1999:47E2b": ("第40条C款", "抄本000"),
        "cbr1999:50D2": ("选择有：", "抄本000"),
        "cbr1999:61B": ("牌墩——参阅", "编者"),
        "laws1997:47E2a": ("错误解释", "编者"),
        "twmj16:patterns.36": ("组成，必须门清", "编者"),
    }
    for rid, (reading, support) in cases.items():
        rec = records[rid]
        assert reading in rec.text_hans, rid
        assert any(n["kind"] == "emendation" and n["from"] == support for n in rec.notes), rid
    assert records["cbr1999:45C1"].text_hans.count("（") == records["cbr1999:45C1"].text_hans.count("）")


def test_a_text_that_breaks_off_says_so(records):
    rec = records["cbr1999:62C2"]
    assert rec.text_hans.endswith("（参阅第16条C款")
    assert any(n["kind"] == "loss" and "句子未完" in n["what"] for n in rec.notes)


def test_kb_check_lint_cli(tmp_path):
    env = {"KB_BUILD_DIR": str(tmp_path / "build"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "kb.app.cli", "check", "--lint"], capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "lint: 0 unexplained findings" in done.stderr
