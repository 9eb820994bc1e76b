"""The built site: pages, anchors, links, backlinks, variants, both editions, worked examples."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb import build as b
from kb.errors import KbError
from kb.site.linkcheck import check_site


@pytest.fixture(scope="session")
def built():
    out = b.ensure_built(None, need_site=True)
    return out, b.site_dir(out)


def page(site: Path, edition: str, url: str) -> str:
    return (site / edition / url / "index.html").read_text(encoding="utf-8")


def test_every_record_has_one_anchor_in_each_edition(built):
    out, site = built
    from kb.records import read_jsonl
    from kb.site.layout import Layout
    records = list(read_jsonl(out / "records.jsonl"))
    layout = Layout(records)
    for edition in ("hans", "hant"):
        cache: dict[str, str] = {}
        for rec in records:
            place = layout.place[rec.id]
            url = place.page[:-3]
            html = cache.setdefault(url, page(site, edition, url))
            assert html.count(f'id="{place.anchor}"') == 1, (edition, rec.id)


def test_clause_page_shows_text_links_backlinks_variants_provenance(built):
    _, site = built
    html = page(site, "hans", "cbr1999/law-45")
    assert 'id="45C4b"' in html and "对疏忽指定的改正" in html
    # 45C4(b) cites 47E: a link to that anchor
    assert re.search(r'href="\.\./law-47/#47E"', html)
    # 47C cites 45C4(b): the backlink is shown on 45C4(b)'s page
    assert "被引用" in html and re.search(r'href="\.\./law-47/#47C"', html)
    assert "来" in html and "异文" in html              # 45D: 004 来 / 000 未
    assert "004_5298a96e49a6c220.txt" in html and "出处" in html
    assert "脚注 [14]" in html


def test_lost_and_external_references_are_not_links(built):
    _, site = built
    html = page(site, "hans", "cbr1999/law-27")
    assert 'class="kb-ref kb-lost"' in html
    html41 = page(site, "hans", "cbr1999/law-41")
    assert re.search(r'<span class="kb-ref kb-external"[^>]*>第20条</span>', html41)


def test_traditional_edition_and_switch(built):
    _, site = built
    hant = page(site, "hant", "cbr1999/law-45")
    assert "對疏忽指定的改正" in hant and "繁體" not in hant.split("kb-switch-link")[1][:200]
    hans = page(site, "hans", "cbr1999/law-45")
    assert 'class="kb-switch-link" href="../../../hant/cbr1999/law-45/"' in hans
    assert (site / "index.html").is_file()


def test_compare_and_mahjong_pages(built):
    _, site = built
    cmp = page(site, "hans", "compare/law-45")
    assert "定约人" in cmp and "庄家" in cmp and 'id="45C4b"' in cmp
    table = page(site, "hans", "twmj16")
    for name in ("风字坎", "字一色", "呖咕呖咕"):
        assert name in table
    assert 'href="patterns/#patterns-13"' in table
    patterns = page(site, "hans", "twmj16/patterns")
    assert "算例" in patterns and "本库的读法" in patterns


def test_worked_examples_on_rule_pages(built):
    _, site = built
    for law in (44, 46, 50, 51, 61, 62, 63, 64):
        assert "算例" in page(site, "hans", f"cbr1999/law-{law}"), law


def test_builtin_search_is_segmented_and_finds_terms(built):
    _, site = built
    docs = json.loads((site / "hans" / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    expect = {"明手": "law-43", "藏牌": "law-61", "罚张": "law-50", "定约人": "laws1997/"}
    for term, where in expect.items():
        hits = [d["location"] for d in docs if f"\u200b{term}\u200b" in d["text"] + d["title"]]
        assert any(where in h for h in hits), (term, hits[:5])


def test_link_checker_passes_and_fails_on_a_planted_broken_link(built, tmp_path):
    _, site = built
    assert check_site(site) == []
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    target = copy / "hans" / "cbr1999" / "law-45" / "index.html"
    html = target.read_text(encoding="utf-8")
    target.write_text(html.replace('href="../law-47/#47E"', 'href="../law-47/#47Z"', 1), encoding="utf-8")
    (copy / "hant" / "index.html").write_text('<a href="nowhere/">x</a>', encoding="utf-8")
    broken = check_site(copy)
    assert any("#47Z" in line and "law-45" in line for line in broken)
    assert any("nowhere/" in line for line in broken)


def test_wrong_worked_example_fails_the_build(tmp_path, monkeypatch):
    from kb.rules.bridge import examples as bridge_examples
    from kb.worked import site_examples
    data = json.loads(bridge_examples.EXAMPLES_PATH.read_text(encoding="utf-8"))
    first = data[0] if isinstance(data, list) else data["examples"][0]
    wrong = json.loads(json.dumps(data))
    w0 = wrong[0] if isinstance(wrong, list) else wrong["examples"][0]
    key = next(iter(w0["expect"]))
    w0["expect"][key] = "不可能的结果"
    path = tmp_path / "bridge_examples.json"
    path.write_text(json.dumps(wrong, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(bridge_examples, "EXAMPLES_PATH", path)
    from kb.pipeline import ingest
    with pytest.raises(KbError, match=re.escape(first["title"][:10])):
        site_examples(ingest().records)


def test_kb_check_fails_on_a_planted_broken_reference(source_copy, tmp_path):
    text = source_copy.path("004").read_text(encoding="utf-8")
    planted = text.replace("此时应用第５５条。", "此时应用第１２０条。", 1)
    assert planted != text
    source_copy.write("004", planted.encode())
    env = {"KB_SOURCES_DIR": str(source_copy.folder), "KB_BUILD_DIR": str(tmp_path / "build")}
    import os
    proc = subprocess.run([sys.executable, "-m", "kb.cli", "check"], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=600)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "cbr1999:45E2" in lines[0] and "第120条" in lines[0]
