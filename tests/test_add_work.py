"""Adding a rule book is data (plus at most one adapter): a synthetic work goes through every stage.

The work "demo" is a small sectioned rule book in the bullet-list format the mahjong witness
uses, so no new adapter is needed. It is added by data alone: a [[work]] entry in a copy of
kb/data/works.toml, its section table, and its source in a copy of the sources' manifest; its
published text is then fingerprinted by `kb accept` (in a copy of kb/data/fingerprints.tsv), as the
build asks. See CONTRIBUTING.md, "Adding a rule book".
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.core.curated import DATA_DIR
from kb.ingest.sources import SOURCES_DIR

DEMO_TEXT = """l 基本名称:
对局双方轮流行棋, 每人走一步称为一着; 双方各走一着称为一个回合.
l 违规与罚则:
1. 悔棋 : 已经走出的一着不得收回, 违者第一次警告, 第二次判负.
2. 超时 : 每方限时三十分钟, 用完时间者判负.
3. 离席 : 对局中未经裁判同意离开赛场者, 按超时处理.
"""

DEMO_WORK = """
[[work]]
id = "demo"
kind = "sectioned"
title_hans = "示例棋类竞赛规则"
title_hant = "示例棋類競賽規則"
law_label = ""
witnesses = ["900"]
twin = ""
outline = "{sections}"
"""

DEMO_SECTIONS = "基本名称\tterms\t基本名称\tterms\n违规与罚则\tpenalties\t违规与罚则\tpenalties\n"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("demo")
    sources = root / "sources"
    shutil.copytree(SOURCES_DIR, sources)
    data = DEMO_TEXT.encode("utf-8")
    (sources / "900_demo.txt").write_bytes(data)
    with (sources / "manifest.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'\n[[source]]\nfile = "900_demo.txt"\nsigil = "900"\nwork = "demo"\nscript = "hans"\n'
                 f'format = "bullet-list"\nsha256 = "{hashlib.sha256(data).hexdigest()}"\n')
    (root / "sections.tsv").write_text(DEMO_SECTIONS, encoding="utf-8")
    works = root / "works.toml"
    works.write_text((DATA_DIR / "works.toml").read_text(encoding="utf-8")
                     + DEMO_WORK.format(sections=root / "sections.tsv"), encoding="utf-8")
    pins = root / "fingerprints.tsv"
    shutil.copy2(DATA_DIR / "fingerprints.tsv", pins)
    env = {**os.environ, "KB_WORKS": str(works), "KB_SOURCES_DIR": str(sources),
           "KB_BUILD_DIR": str(root / "build"), "KB_FINGERPRINTS": str(pins)}
    cli = [sys.executable, "-m", "kb.app.cli"]
    # the new work's text is not pinned yet: the build says to review it and run `kb accept`
    proc = subprocess.run([*cli, "build"], env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1, proc.stderr
    assert "work 'demo' has no fingerprints" in proc.stderr and "`kb accept`" in proc.stderr
    proc = subprocess.run([*cli, "accept"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert [line.split("\t")[:2] for line in proc.stdout.splitlines()] == [["new", f"demo:{cite}"] for cite in (
        "terms", "penalties", "penalties.1", "penalties.2", "penalties.3")]
    proc = subprocess.run([*cli, "build"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return {"root": root, "build": root / "build", "site": root / "site", "env": env}  # type: ignore[dict-item]


def kb(demo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kb.app.cli", *args], env=demo["env"], capture_output=True, text=True)


def test_records_with_provenance(demo):
    recs = [json.loads(line) for line in (demo["build"] / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    mine = {r["id"]: r for r in recs if r["work"] == "demo"}
    assert set(mine) == {"demo:terms", "demo:penalties", "demo:penalties.1", "demo:penalties.2", "demo:penalties.3"}
    item = mine["demo:penalties.2"]
    assert item["title_hans"] == "超时" and "三十分钟" in item["text_hans"]
    assert item["text_hant"].startswith("每方限時")
    assert item["witnesses"][0]["source"] == "900_demo.txt" and item["witnesses"][0]["lines"] == [5, 5]
    # the other works are untouched
    assert sum(r["work"] == "cbr1999" for r in recs) == 285


def test_search_finds_the_new_work(demo):
    proc = kb(demo, "search", "--work", "demo", "--json", "下棋超时了会怎样")
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert results and results[0]["id"] == "demo:penalties.2"


def test_site_search_finds_the_new_work(demo):
    """The site's own engine (kb-engine.js in node, over the demo build's static index) too."""
    script = r"""
const fs = require("fs"), path = require("path");
const [engine, edition] = process.argv.slice(1);
const KbEngine = require(engine);
const load = (rel) => { let d; new Function("kbIndexChunk", fs.readFileSync(path.join(edition, rel), "utf8"))((n, x) => { d = x; }); return Promise.resolve(d); };
const meta = fs.readdirSync(path.join(edition, "idx")).find((f) => /^meta\./.test(f));
KbEngine.open("idx/" + meta, load).then(async (e) => {
  const all = await e.search("下棋超时了会怎样", { limit: 5 });
  const demo = await e.search("下棋超时了会怎样", { limit: 5, work: "demo" });
  console.log(JSON.stringify([all.map((r) => r.id), demo.map((r) => [r.id, r.url])]));
});
"""
    engine = Path(__file__).resolve().parent.parent / "docs" / "assets" / "kb-engine.js"
    for edition in ("hans", "hant"):
        proc = subprocess.run(["node", "-e", script, str(engine), str(demo["site"] / edition)],
                              capture_output=True, text=True, check=True)
        every, mine = json.loads(proc.stdout)
        assert every[0] == "demo:penalties.2", every
        assert mine[0] == ["demo:penalties.2", "demo/penalties/#penalties-2"], mine


def test_site_pages_and_anchors_in_both_editions(demo):
    for edition, title in (("hans", "示例棋类竞赛规则"), ("hant", "示例棋類競賽規則")):
        pages = list((demo["site"] / edition / "demo").rglob("index.html"))
        assert pages, f"no pages for the demo work in the {edition} edition"
        html = "".join(p.read_text(encoding="utf-8") for p in pages)
        assert 'id="penalties-2"' in html
        assert title in html


def test_show_and_stats(demo):
    proc = kb(demo, "show", "demo:penalties.1")
    assert proc.returncode == 0 and "悔棋" in proc.stdout
    stats = json.loads(kb(demo, "stats", "--json").stdout)
    assert "demo" in json.dumps(stats, ensure_ascii=False)


def test_a_work_without_a_source_is_an_error(tmp_path):
    works = tmp_path / "works.toml"
    works.write_text((DATA_DIR / "works.toml").read_text(encoding="utf-8")
                     + DEMO_WORK.format(sections=tmp_path / "sections.tsv"), encoding="utf-8")
    env = {**os.environ, "KB_WORKS": str(works), "KB_BUILD_DIR": str(tmp_path / "build")}
    proc = subprocess.run([sys.executable, "-m", "kb.app.cli", "build"], env=env, capture_output=True, text=True)
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "'demo' has no source" in proc.stderr


GAMES = 'game_names = ["麻将", "mahjong"]'
BOOKS = 'query_names = ["twmj16", "台湾十六张麻将竞赛规则"]'


@pytest.mark.parametrize("was, line, message", [
    # game_names: a list of words, each naming one family of books
    (GAMES, 'game_names = "麻将"', "field 'game_names' must be a list of words"),
    (GAMES, 'game_names = ["桥牌"]', "game name '桥牌' is given to two families of works"),
    # query_names: a list of names, each naming one book (letters in either case)
    (BOOKS, 'query_names = "twmj16"', "field 'query_names' must be a list of names without spaces"),
    (BOOKS, 'query_names = [" twmj16"]', "field 'query_names' must be a list of names without spaces"),
    (BOOKS, 'query_names = ["tw mj16"]', "field 'query_names' must be a list of names without spaces"),
    (BOOKS, 'query_names = ["LAWS1997"]', "query name 'LAWS1997' is given to two works"),
    (GAMES, 'short_hans = 1997', "field 'short_hans' must be a string"),
])
def test_a_bad_name_in_the_registry_is_an_error(tmp_path, monkeypatch, was, line, message):
    """works.toml's names a question or a page gives a book or its game: each checked as read."""
    from kb.core import works
    from kb.core.errors import KbError

    text = (DATA_DIR / "works.toml").read_text(encoding="utf-8")
    assert was in text
    path = tmp_path / "works.toml"
    path.write_text(text.replace(was, was + "\n" + line if line.startswith("short") else line), encoding="utf-8")
    monkeypatch.setenv("KB_WORKS", str(path))
    with pytest.raises(KbError, match=re.escape(message)):
        works.game_names() if was == GAMES else works.query_names()
