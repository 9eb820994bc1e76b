"""The published text is fingerprinted (kb/data/fingerprints.tsv, kb/ingest/fingerprints.py): a re-pinned
one-character damage fails the build in one line naming the record, until `kb accept` re-fingerprints it."""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.app import build as b
from kb.core.curated import DATA_DIR
from kb.core.errors import KbError
from kb.core.records import Record, read_jsonl
from kb.ingest import fingerprints as fp

ROOT = Path(__file__).resolve().parent.parent


def run_kb(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kb.app.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=600, cwd=ROOT)


def one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.fixture
def pins(tmp_path, monkeypatch) -> Path:
    """A copy of kb/data/fingerprints.tsv the test may rewrite ($KB_FINGERPRINTS)."""
    path = tmp_path / "fingerprints.tsv"
    shutil.copy2(DATA_DIR / "fingerprints.tsv", path)
    monkeypatch.setenv("KB_FINGERPRINTS", str(path))
    return path


def test_the_fingerprints_pin_todays_text(linked_records):
    """The committed file matches the records the build makes from the committed sources."""
    assert "KB_FINGERPRINTS" not in os.environ
    assert fp.compare(linked_records) == []
    fp.check_fingerprints(linked_records)


@pytest.fixture(scope="module")
def clean_build(tmp_path_factory) -> Path:
    """An untouched build without the site (the previous build of the damage tests): it passes."""
    out = tmp_path_factory.mktemp("fp") / "build"
    b.build(out, with_site=False)
    return out


def _damage(source_copy, sigil: str, line: int, old: str, new: str) -> None:
    path = source_copy.path(sigil)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    source_copy.write(sigil, "\n".join(lines).encode("utf-8"))      # and its sha256 re-pinned


@pytest.mark.parametrize("sigil, line, old, new, rid, was, now", [
    # 004 任佔 in Law 46B4, which only 004 and 000 hold, and the other translation words otherwise:
    # nothing settles it, so the text changed (in 44A, 002 reads 任何 too: tests/test_settle.py)
    ("004", 77, "任何", "任佔", "cbr1999:46B4", "打任何合法", "打任占合法"),
    # 000 首引牍 in Law 41A, which 000 and 002 hold (the other translation says 首攻)
    ("000", 9, "首引牌", "首引牍", "cbr1999:41A", "的首引牌，只有", "的首引牍，只有"),
])
def test_re_pinned_damage_fails_until_accepted(clean_build, source_copy, pins, tmp_path, monkeypatch,
                                               sigil, line, old, new, rid, was, now):
    out = tmp_path / "build"
    shutil.copytree(clean_build, out, symlinks=False)       # the previous build: the old text
    _damage(source_copy, sigil, line, old, new)
    env = {"KB_SOURCES_DIR": str(source_copy.folder), "KB_FINGERPRINTS": str(pins)}
    pinned = pins.read_bytes()
    before = (out / "records.jsonl").read_bytes()

    error = one_line(run_kb("--build-dir", str(out), "build", env=env))
    assert error.startswith(f"kb build: 错误：{rid}: published text changed: text_hans 「")
    assert was in error and now in error and "kb accept" in error and f"{pins}:" in error
    assert (out / "records.jsonl").read_bytes() == before and pins.read_bytes() == pinned

    accepted = run_kb("--build-dir", str(out), "accept", env=env)
    assert accepted.returncode == 0, accepted.stderr
    (listed,) = accepted.stdout.strip().splitlines()
    assert listed.startswith(f"changed\t{rid}\ttext_hans 「") and was in listed and now in listed
    assert "1 changed" in accepted.stderr
    changed = set(pins.read_text(encoding="utf-8").splitlines()) ^ set(pinned.decode("utf-8").splitlines())
    assert {row.split("\t")[0] for row in changed} == {rid}          # one row rewritten, nothing else

    monkeypatch.setenv("KB_SOURCES_DIR", str(source_copy.folder))
    b.build(out, with_site=False)                                   # now it builds
    built = {r.id: r for r in read_jsonl(out / "records.jsonl")}
    assert now.replace("，", "") in built[rid].text_hans.replace("，", "")
    again = run_kb("--build-dir", str(out), "accept", env=env)
    assert again.stdout == "" and "nothing changed" in again.stderr


@pytest.mark.parametrize("sigil, line, old, new, rid, was, now", [
    ("004", 77, "任何", "任佔", "cbr1999:46B4", "打任何合法", "打任占合法"),
    ("000", 9, "首引牌", "首引牍", "cbr1999:41A", "的首引牌，只有", "的首引牍，只有"),
])
def test_without_an_earlier_build_the_other_witness_shows_the_old_text(source_copy, pins, sigil, line, old, new,
                                                                         rid, was, now):
    """A fresh checkout has no build to quote: the other witness's reading, put back, gives the pinned text."""
    from kb.ingest.pipeline import run
    _damage(source_copy, sigil, line, old, new)
    with pytest.raises(KbError) as err:
        fp.check_fingerprints(run(source_copy.folder).records)
    message = str(err.value)
    assert message.startswith(f"{rid}: published text changed: text_hans 「") and "\n" not in message
    assert message.index(was) < message.index(" → ") < message.index(now)


def test_damage_the_witnesses_settle_changes_no_published_text(source_copy, pins):
    """任何→任佔 in 004's Law 44A: 000 and 002 read 任何, so the text does (and the build passes)."""
    from kb.ingest.pipeline import run
    _damage(source_copy, "004", 7, "任何", "任佔")
    records = run(source_copy.folder).records
    fp.check_fingerprints(records)
    rec = next(r for r in records if r.id == "cbr1999:44A")
    assert "任何牌张" in rec.text_hans and any(n["kind"] == "settled" for n in rec.notes)


# --- the rules of the check, on records made here -----------------------------------------

def _rec(rid: str, text: str, title: str = "", hant: str | None = None) -> Record:
    from kb.ingest.normalise import to_hant
    return Record(id=rid, work=rid.partition(":")[0], citation=rid, level="clause", parent=None, order=0,
                  title_hans=title, title_hant=to_hant(title), text_hans=text,
                  text_hant=to_hant(text) if hant is None else hant)


def _pin(path: Path, *records: Record) -> None:
    path.write_text("".join("\t".join((r.id, *fp.digests(r))) + "\n" for r in records), encoding="utf-8")


def test_a_change_the_emendations_make_passes(pins):
    """cbr1999 45D's emendation 庄家来指明 → 庄家未指明 (kb/data/emendations.tsv): pinned before it was made."""
    before = _rec("cbr1999:45D", "如果明手将庄家来指明的牌张放在打出牌位置。")
    _pin(pins, before)
    after = _rec("cbr1999:45D", "如果明手将庄家未指明的牌张放在打出牌位置。")
    fp.check_fingerprints([after])
    (change,) = fp.compare([after])
    assert change.explained and "emendation" in change.what()
    other = dataclasses.replace(after, text_hans=after.text_hans.replace("打出", "打去"))
    with pytest.raises(KbError, match=r"^cbr1999:45D: published text changed: now 「如果明手将庄家未指明的牌…」"):
        fp.check_fingerprints([other])


def test_a_traditional_only_change_is_named(pins):
    rec = _rec("cbr1999:45D", "台")
    _pin(pins, rec)
    with pytest.raises(KbError, match=r"the Traditional text only \(OpenCC or kb/data/hant-usage\.tsv\)"):
        fp.check_fingerprints([dataclasses.replace(rec, text_hant="臺")])


def test_a_new_record_a_gone_row_and_a_work_without_fingerprints(pins):
    a, c = _rec("cbr1999:1A", "甲。"), _rec("cbr1999:1C", "丙。")
    _pin(pins, a, c)
    with pytest.raises(KbError, match=r"^cbr1999:1B: a new record, not in .*fingerprints\.tsv \(reads 「乙。」\); "
                                      r"review it, then run `kb accept`"):
        fp.check_fingerprints([a, _rec("cbr1999:1B", "乙。"), c])
    with pytest.raises(KbError, match=r"fingerprints\.tsv:2: record cbr1999:1C is no longer built; .*`kb accept`"):
        fp.check_fingerprints([a])
    with pytest.raises(KbError, match=r"fingerprints\.tsv: work 'demo' has no fingerprints: review the text of its "
                                      r"1 records, then run `kb accept`"):
        fp.check_fingerprints([a, c, _rec("demo:terms", "对局。")])


def test_a_malformed_fingerprint_file_names_its_line(pins):
    pins.write_text("# a comment\ncbr1999:1A\tabc\n", encoding="utf-8")
    with pytest.raises(KbError, match=r"fingerprints\.tsv:2: expected 3 tab-separated columns"):
        fp.check_fingerprints([_rec("cbr1999:1A", "甲。")])


def test_accept_writes_every_record_in_order_with_a_header(pins):
    records = [_rec("cbr1999:1A", "甲。"), _rec("cbr1999:1B", "乙。", title="题")]
    changes = fp.accept(records)
    assert [c.kind for c in changes] == ["new", "new", *["gone"] * (len(changes) - 2)]
    lines = pins.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# ") and [ln.split("\t")[0] for ln in lines if not ln.startswith("#")] == \
        ["cbr1999:1A", "cbr1999:1B"]
    assert fp.compare(records) == [] and not list(pins.parent.glob(".*tmp*"))


def test_the_excerpt_shows_the_first_difference():
    assert fp.excerpt("引牌者可从其手中引出任何牌张（曾因违规被判罚）", "引牌者可从其手中引出任占牌张（曾因违规被判罚）") == \
        ("…其手中引出任何牌张（曾因违…", "…其手中引出任占牌张（曾因违…")
    assert fp.excerpt("第55条", "第120条") == ("第55条", "第120条")
