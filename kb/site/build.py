"""Generate both editions' Markdown from the records and build them with mkdocs --strict."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from kb.errors import KbError
from kb.normalise import to_hant
from kb.records import Record
from kb.site.layout import MAHJONG_PAGES, WORK_TITLES, Layout
from kb.site.render import Examples, Renderer

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPTS = ("hans", "hant")
LANGUAGE = {"hans": "zh-Hans", "hant": "zh-Hant"}   # <html lang>; zh-Hans from kb/site/theme


def generate_docs(records: list[Record], docs: Path, script: str, examples: Examples | None = None) -> list:
    """Write one edition's Markdown tree; return its nav."""
    layout = Layout(records)
    r = Renderer(layout, script, examples)
    hand = ROOT / "docs"
    if not hand.is_dir():
        raise KbError(f"{hand}: missing (run kb from the repository checkout)")
    for path in hand.rglob("*"):
        if path.is_file():
            dest = docs / path.relative_to(hand)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".md":
                text = path.read_text(encoding="utf-8")
                dest.write_text(r.switch(str(path.relative_to(hand))) + (text if script == "hans" else to_hant(text)),
                                encoding="utf-8")
            else:
                shutil.copy2(path, dest)

    def write(page: str, text: str) -> None:
        dest = docs / page
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")

    nav: list = [{r.t("首页"): "index.md"}, {r.t("检索"): "search.md"}]
    for work in ("cbr1999", "laws1997"):
        write(f"{work}/index.md", r.work_index(work))
        entries: list = [f"{work}/index.md"]
        for law in layout.laws(work):
            page = f"{work}/law-{law.law}.md"
            write(page, r.law_page(page, layout.pages[page]))
            entries.append({f"{law.law} {r.field(law, 'title') or r.t('（残篇）')}": page})
        nav.append({r.t(WORK_TITLES[work][0]): entries})
    compare = []
    for law in layout.compared:
        write(f"compare/law-{law}.md", r.compare_page(law))
        compare.append({r.t(f"第{law}条"): f"compare/law-{law}.md"})
    if compare:
        nav.append({r.t("两译本对照"): compare})
    write("twmj16/index.md", r.mahjong_index())
    entries = ["twmj16/index.md"]
    for key, titles in MAHJONG_PAGES.items():
        page = f"twmj16/{key}.md"
        write(page, r.mahjong_page(page, layout.pages[page]))
        entries.append({titles[0 if script == "hans" else 1]: page})
    nav.append({r.t(WORK_TITLES["twmj16"][0]): entries})
    return nav


def build_site(records: list[Record], work: Path, examples: Examples | None = None) -> Path:
    """Build both editions under work/site; return that directory."""
    site = work / "site"
    for script in SCRIPTS:
        docs = work / "docs" / script
        nav = generate_docs(records, docs, script, examples)
        userdict = _userdict(work, script)
        config = {
            "INHERIT": str(ROOT / "mkdocs.yml"),
            "docs_dir": str(docs),
            "site_dir": str(site / script),
            "nav": nav,
            "theme": {"name": "material", "language": LANGUAGE[script], "font": False,
                      "custom_dir": str(ROOT / "kb" / "site" / "theme")},
            "plugins": [{"search": {"lang": "zh", "separator": r"[\s\u200b\-，。、；：！？（）“”《》]+",
                                    "jieba_dict_user": str(userdict)}}],
        }
        if script == "hant":
            config["site_name"] = "牌規知識庫"
        cfg = work / f"mkdocs-{script}.yml"
        cfg.write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(cfg)],
                              capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            first = next((ln for ln in lines if "WARNING" in ln or "ERROR" in ln), lines[-1] if lines else "failed")
            raise KbError(f"mkdocs build of the {script} edition failed: {first.strip()}")
        # mkdocs' 404 page links root-absolutely (for a site at the server root); ours sits
        # under /hans/ and /hant/, so the server answers 404s itself.
        (site / script / "404.html").unlink(missing_ok=True)
    (site / "index.html").write_text(LANDING, encoding="utf-8")
    return site


def _userdict(work: Path, script: str) -> Path:
    """jieba's user dictionary for the built-in search, in the edition's script."""
    src = ROOT / "kb" / "data" / "search" / "userdict.txt"
    if not src.is_file():
        raise KbError(f"{src}: missing")
    dest = work / f"userdict-{script}.txt"
    lines = [ln for ln in src.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#")]
    text = "\n".join(lines) + "\n"
    dest.write_text(text if script == "hans" else to_hant(text), encoding="utf-8")
    return dest


LANDING = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>牌规知识库 · 牌規知識庫</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script>
var l = (navigator.language || "").toLowerCase();
location.replace((/zh-(tw|hk|mo|hant)/.test(l) ? "hant/" : "hans/") + location.hash);
</script></head>
<body><p><a href="hans/">简体版</a> · <a href="hant/">繁體版</a></p></body></html>
"""
