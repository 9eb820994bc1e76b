"""The mahjong pattern data (kb/data/mahjong/patterns.tsv) against the records, the scorer and the site rows."""
from __future__ import annotations

import pytest

from kb.core.curated import read_table
from kb.core.errors import KbError
from kb.rules.mahjong.patterns import PATTERN_TABLE, PATTERNS, ROWS, _load, pattern_rows, tai
from kb.rules.mahjong.scoring import score


def test_all_36_patterns_agree_with_the_records_in_name_and_tai(records):
    recs = records                         # id -> record (conftest)
    rows = pattern_rows()
    assert [r["number"] for r in rows] == list(range(1, 37))
    for row in rows:
        rec = recs[row["clause"]]
        assert row["name"] == rec.title_hans, row["number"]
        assert row["tai"] == (rec.tai or ""), row["number"]


def test_scorer_uses_the_data_names_and_tai():
    for p in PATTERNS:
        assert p.name == ROWS[p.number].name and p.tai == ROWS[p.number].tai
    # 花胡 is 8台 in the text (and in the table); the scorer judges it at 8 and counts it through its form
    flowers = [f"f{i}" for i in range(1, 9)]
    hand = {"concealed": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s 7s 9s E S W".split(), "winning_tile": "W",
            "flowers": flowers, "flower_win": "八仙过海", "self_drawn": True}
    r = score(hand)
    judged = {e["name"]: e["tai"] for e in r["excluded"]}
    assert judged["花胡"] == tai(27) == 8 and r["total"] == 8
    assert [i["name"] for i in r["items"]] == ["八仙过海"]


def test_site_rows_carry_the_readings():
    rows = {r["number"]: r for r in pattern_rows()}
    assert rows[4]["name"] == "不求·自摸" and rows[36]["name"] == "呖咕呖咕（选用）"
    assert rows[10]["tai"] == "2N" and rows[28]["tai"] == ""
    assert rows[2]["reading"].startswith("原文")


def test_a_damaged_data_file_is_one_line(tmp_path, monkeypatch):
    text = PATTERN_TABLE.file().read_text(encoding="utf-8")
    bad = tmp_path / "mahjong"
    bad.mkdir()
    (bad / "patterns.tsv").write_text(text.replace("\n36\t", "\n35\t"), encoding="utf-8")
    monkeypatch.setattr("kb.core.curated.DATA_DIR", tmp_path)
    with pytest.raises(KbError, match=r"patterns.tsv:\d+: number '35' repeats"):
        read_table(PATTERN_TABLE, tmp_path)
    (bad / "patterns.tsv").write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith("36\t")),
                                      encoding="utf-8")
    with pytest.raises(KbError, match="needs patterns 1–36"):
        _load()


def test_names_and_readings_are_written_in_simplified():
    # the hans edition shows them as written (the hant one converts them): a Traditional 後 or
    # 於 in the data would show in the Simplified edition
    from kb.ingest.normalise import to_hans
    for row in read_table(PATTERN_TABLE):
        for column in ("name", "reading"):
            assert to_hans(row.get(column)) == row.get(column), (row.where, column)


def test_the_worked_examples_are_written_in_simplified():
    # their titles and texts show as written in the Simplified edition (补牌後 once did)
    import json
    import re
    from pathlib import Path

    from kb.ingest.normalise import to_hans
    found = []

    def walk(value, where):
        if isinstance(value, str):
            if re.search(r"[\u4e00-\u9fff]", value) and to_hans(value) != value:
                found.append((where, value))
        elif isinstance(value, dict):
            for k, v in value.items():
                walk(v, f"{where}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{where}[{i}]")
    files = sorted((Path(__file__).resolve().parent.parent / "kb" / "rules").rglob("*.json"))
    assert files
    for path in files:
        walk(json.loads(path.read_text(encoding="utf-8")), path.name)
    assert not found, found[:5]
