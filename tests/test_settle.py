"""Settled readings (kb/ingest/settle.py): where the witnesses of a clause disagree on a character and
a third witness or the twin translation settles it, the published text takes the settled reading."""
from __future__ import annotations

import pytest

from kb.ingest.pipeline import ingest
from kb.ingest.settle import settle


def test_a_tie_keeps_the_most_trusted_witness():
    text, notes = settle("引出任占牌张。", [("004", "引出任占牌张。"), ("000", "引出任何牌张。")], None, "text")
    assert text == "引出任占牌张。" and notes == []


def test_a_third_witness_settles_it():
    text, (note,) = settle("引出任占牌张。", [("004", "引出任占牌张。"), ("000", "引出任何牌張。"),
                                          ("002", "引出任何牌张")], None, "text")
    assert text == "引出任何牌张。"
    assert note["kind"] == "settled" and note["span"] == [3, 4]
    assert note["what"].startswith("出任占牌张 → 出任何牌张：抄本004作“占”，抄本000、抄本002作“何”")


def test_the_twin_translation_settles_it_with_the_same_words_around():
    readings = [("004", "如裁判认定有，应允许打牌继读进行。"), ("000", "如裁判认定有，应允许打牌继续进行。")]
    text, (note,) = settle(readings[0][1], readings, ("laws1997:45F", "则允许打牌继续进行"), "text")
    assert "打牌继续进行" in text and "另一译本 laws1997:45F" in note["what"]
    # the twin holds the character, but not with the clause's words on either side: no vote
    text, notes = settle(readings[0][1], readings, ("laws1997:45F", "继续比赛"), "text")
    assert text == readings[0][1] and notes == []


def test_an_emended_place_is_the_editors():
    # the published text already reads 未 (an emendation of 004's 来): 000's 未 is not a vote against it
    text, notes = settle("庄家未指明的牌张", [("004", "庄家来指明的牌张"), ("000", "莊家未指明的牌張"),
                                       ("002", "庄家来指明的牌张")], None, "text")
    assert text == "庄家未指明的牌张" and notes == []


def test_only_substitutions_of_a_few_characters_are_settled():
    readings = [("004", "甲乙丙丁戊己庚辛"), ("000", "甲乙子丑寅卯庚辛"), ("002", "甲乙子丑寅卯庚辛")]
    assert settle(readings[0][1], readings, None, "text") == (readings[0][1], [])


def test_overlapping_places_are_decided_once():
    # 000 differs from 004 in 乙丙, 002 in 乙 alone: the places overlap, and only the first is taken
    readings = [("004", "甲乙丙丁戊"), ("000", "甲子丑丁戊"), ("002", "甲子丙丁戊"), ("003", "甲子丑丁戊")]
    text, notes = settle(readings[0][1], readings, None, "text")
    assert len(notes) == 1 and len(text) == 5


def test_the_lost_digits_of_002_do_not_vote():
    readings = [("004", "参阅第45条C款。"), ("000", "参阅第46条C款。"), ("002", "参阅第条款。")]
    assert settle(readings[0][1], readings, None, "text") == (readings[0][1], [])


def test_todays_corpus_has_nothing_to_settle(corpus):
    assert not [r.id for r in corpus.records if any(n["kind"] == "settled" for n in r.notes)]


def _damage(source_copy, sigil: str, line: int, old: str, new: str) -> None:
    path = source_copy.path(sigil)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    source_copy.write(sigil, "\n".join(lines).encode("utf-8"))


@pytest.mark.parametrize("line, old, new, rid, right, by", [
    # 004 任占 against 000 and 002 任何 (Law 44A): the two witnesses outvote the most trusted one
    (7, "任何", "任佔", "cbr1999:44A", "引出任何牌张", "抄本000、抄本002作“何”"),
    # 004 继读 against 000 继续, and the other translation's 45F reads 打牌继续进行
    (53, "继续进行", "继读进行", "cbr1999:45F", "打牌继续进行", "抄本000、另一译本 laws1997:45F作“续”"),
])
def test_re_pinned_damage_a_witness_settles(source_copy, records, line, old, new, rid, right, by):
    _damage(source_copy, "004", line, old, new)
    built = ingest(source_copy.folder).records
    rec = {r.id: r for r in built}[rid]
    assert right in rec.text_hans and rec.text_hans == records[rid].text_hans
    assert rec.text_hant == records[rid].text_hant
    (note,) = [n for n in rec.notes if n["kind"] == "settled"]
    assert by in note["what"] and note["where"] == "text"
    assert any(w.sigil == "004" and new in w.text for w in rec.witnesses)     # 004's own reading is kept
    # the site says so under the clause's 出处, in either edition
    from kb.site.layout import Layout
    from kb.site.render import Renderer
    layout = Layout(built)
    for script, label, mark in (("hans", "校定：", "有校定"), ("hant", "校定：", "有校定")):
        renderer = Renderer(layout, script)
        assert any(line.startswith(label) for line in renderer.provenance(rec, str, str))
        assert mark in renderer.badge(rec)
