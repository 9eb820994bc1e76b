"""Generate both editions' Markdown from the records and build them with mkdocs --strict.

The two editions are built at once, by one process that imports mkdocs and forks
(kb/site/mkdocs_run.py). Record bodies are written as HTML rather than Markdown, which mkdocs
puts in their place (kb/site/mkdocs_hooks.py, which also spares mkdocs work whose output the
build would throw away); worked examples too (kb/site/example_html.py). Each edition gets the
static search index (kb/site/static_search.py, written into the built edition rather than copied
through mkdocs), fingerprinted copies of docs/assets (a content
hash in each file name, so a server may cache them for good), a service worker for offline
use and, beside both, the download for file:// (kb/site/offline.py).
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from kb.core import works
from kb.core.errors import KbError
from kb.core.records import LOST_MARK, Record
from kb.ingest.normalise import to_hant_ui, ui_text
from kb.search.outside import check_outside
from kb.site.layout import MAHJONG_PAGES, Layout
from kb.site.offline import READY, finish_edition, finish_root, write_download
from kb.site.render import LEGEND, Examples, Renderer, merge_slots
from kb.site.rules_pages import write_pages as write_rules_pages
from kb.site.static_search import StaticIndex, write_chunks
from kb.site.subjects_page import PAGE as SUBJECTS_PAGE
from kb.site.subjects_page import has_subjects, subject_page

ROOT = Path(__file__).resolve().parent.parent.parent
THEME = Path(__file__).resolve().parent / "theme"
HOOKS = Path(__file__).resolve().parent / "mkdocs_hooks.py"
SCRIPTS = ("hans", "hant")
LANGUAGE = {"hans": "zh-Hans", "hant": "zh-Hant"}   # <html lang>; zh-Hans from kb/site/theme
# Files of the theme that no page of ours uses (the built-in search is replaced by ours).
UNUSED = ("assets/javascripts/lunr", "assets/javascripts/workers", "search/search_index.json")
# Stylesheets and scripts of docs/assets on every page (as fingerprinted copies), in order.
EXTRA_CSS = ("kb.css", "search.css", "reading.css", "print.css")
EXTRA_JAVASCRIPT = ("kb.js", "clause.js")
SCRATCH = Path("/dev/shm")     # a RAM disk, where the system has one
PR_SET_PDEATHSIG = 1
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def generate_docs(records: list[Record], docs: Path, script: str, examples: Examples | None = None,
                  layout: Layout | None = None, slots: dict[str, str] | None = None,
                  coverage: str | None = None, pdf: bool = False) -> list:
    """Write one edition's Markdown tree (hand-written pages and one page per law); return its nav.

    With ``slots``, record bodies go into it as HTML (see kb/site/mkdocs_hooks.py)."""
    layout = layout or Layout(records)
    r = Renderer(layout, script, examples, slots, pdf=pdf)
    coverage = works.holdings(records) if coverage is None else coverage
    hand = ROOT / "docs"
    if not hand.is_dir():
        raise KbError(f"{hand}: missing (run kb from the repository checkout)")
    for path in hand.rglob("*"):
        rel = path.relative_to(hand)
        if not path.is_file() or rel.parts[0] == "assets":
            continue
        dest = docs / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".md":
            text = _work_choices(path.read_text(encoding="utf-8"), coverage)
            dest.write_text(ui_text(text, script), encoding="utf-8")
        else:
            shutil.copy2(path, dest)

    def write(page: str, text: str) -> None:
        if slots:
            text = merge_slots(text, slots)
        dest = docs / page
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")

    def subjects(work: str) -> list:
        """The work's subject index page, if it has one: its nav entry."""
        if not has_subjects(layout.by_id, work):
            return []
        write(f"{work}/{SUBJECTS_PAGE}", subject_page(r, work))
        return [{r.t("索引"): f"{work}/{SUBJECTS_PAGE}"}]

    nav: list = [{r.t("首页"): "index.md"}, {r.t("检索"): "search.md"}, {r.t("使用指南"): "guide.md"}]
    for work in works.of_kind("bridge"):
        entries: list = [f"{work.id}/index.md", *subjects(work.id)]
        write(f"{work.id}/index.md", r.work_index(work.id, SUBJECTS_PAGE if len(entries) > 1 else None))
        for law in layout.laws(work.id):
            page = f"{work.id}/law-{law.law}.md"
            write(page, r.law_page(page, layout.pages[page]))
            entries.append({f"{law.law} {r.field(law, 'title') or r.t('（残篇）')}": page})
        nav.append({work.title(script): entries})
    compare: list = []
    if layout.compared:
        write("compare/index.md", r.compare_index())
        compare.append("compare/index.md")
    for number in layout.compared:
        write(f"compare/law-{number}.md", r.compare_page(number))
        compare.append({r.t(f"第{number}条"): f"compare/law-{number}.md"})
    if compare:
        nav.append({r.t("两译本对照"): compare})
    for work in works.of_kind("sectioned"):
        entries = [f"{work.id}/index.md", *subjects(work.id)]
        write(f"{work.id}/index.md", r.mahjong_index(work.id, SUBJECTS_PAGE if len(entries) > 1 else None))
        for key, titles in MAHJONG_PAGES.items():
            page = f"{work.id}/{key}.md"
            if page not in layout.pages:      # a sectioned work need not fill every kind of page
                continue
            write(page, r.mahjong_page(page, layout.pages[page]))
            entries.append({titles[0 if script == "hans" else 1]: page})
        nav.append({work.title(script): entries})
    nav.append(write_rules_pages(write, r))
    return nav


def _work_choices(text: str, coverage: str) -> str:
    """The search page's work list and labels, from the works registry, and what the knowledge
    base holds (``works.holdings``: said under the results, and when a search finds nothing)."""
    options = "\n".join(f'<option value="{w.id}">{w.title_hans}</option>' for w in works.all_works())
    labels = " ".join([*(f'data-msg-work-{w.id}="{w.title_hans}"' for w in works.all_works()),
                       f'data-msg-coverage="{coverage}"', *(f'data-msg-{k}="{v}"' for k, v in legend().items())])
    return text.replace("KB_WORK_OPTIONS", options).replace("KB_WORK_LABELS", labels).replace("KB_COVERAGE", coverage)


def edition_settings(script: str) -> dict:
    """The settings of mkdocs.yml that are words, in the Traditional edition's script: the site's
    name and description, and the toc extension's permalink title (the rest of the list as it is);
    the Simplified edition reads them from mkdocs.yml as they are."""
    if script != "hant":
        return {}
    import yaml  # type: ignore[import-untyped]  # (mkdocs depends on PyYAML; it ships no type hints)

    base = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    extensions = []
    for ext in base["markdown_extensions"]:
        if isinstance(ext, dict) and "toc" in ext:
            ext = {"toc": dict(ext["toc"], permalink_title=to_hant_ui(ext["toc"]["permalink_title"]))}
        extensions.append(ext)
    return {"site_name": to_hant_ui(base["site_name"]), "site_description": to_hant_ui(base["site_description"]),
            "markdown_extensions": extensions}


def fingerprinted_assets(docs: Path, index_meta: str) -> dict[str, str]:
    """Copy docs/assets/* into the edition as name.<hash>.ext; return {name: docs-relative copy}.

    kb.js learns the engine's and the index's fingerprinted names here, and the name of the
    cache entry that says the edition is kept offline.
    """
    src = ROOT / "docs" / "assets"
    out: dict[str, str] = {}
    dest = docs / "assets"
    dest.mkdir(parents=True, exist_ok=True)
    names = sorted(p.name for p in src.iterdir() if p.is_file())
    names.sort(key=lambda n: n == "kb.js")      # kb.js last: it names the others
    for name in names:
        data = (src / name).read_bytes()
        if name == "kb.js":
            data = (data.replace(b"__KB_ENGINE__", out["kb-engine.js"].encode())
                    .replace(b"__KB_INDEX__", index_meta.encode())
                    .replace(b"__KB_OFFLINE_READY__", READY.encode()))
        stem, ext = name.rsplit(".", 1)
        hashed = f"{stem}.{hashlib.sha256(data).hexdigest()[:10]}.{ext}"
        (dest / hashed).write_bytes(data)
        out[name] = f"assets/{hashed}"
    return out


def point_at_fingerprints(docs: Path, assets: dict[str, str]) -> None:
    """Pages that name an asset directly (the rules pages' ``../../assets/rules.css``) get its
    fingerprinted copy."""
    for page in docs.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        new = text
        for name, hashed in assets.items():
            new = new.replace(f"/assets/{name}\"", f"/{hashed}\"")
        if new != text:
            page.write_text(new, encoding="utf-8")


def build_site(records: list[Record], work: Path, examples: Examples | None = None,
               index_dir: Path | None = None, pdf: bool = False) -> Path:
    """Build both editions under work/site; return that directory. The static search index is
    made from the server index in ``index_dir`` (default work/index: its lexicon and mined pairs).
    With ``pdf``, each work's index page links its print edition (printed after, by kb/site/pdf.py)."""
    work.mkdir(parents=True, exist_ok=True)
    scratch = _scratch_dir(work)
    try:
        return _build_site(records, work, scratch, examples, index_dir, pdf)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _scratch_dir(work: Path) -> Path:
    """A new folder for the editions' generated Markdown, which is not part of the build: on a
    RAM disk where the system has one (creating a file there costs a thirtieth of what it
    costs on this machine's disk), else in the work folder."""
    base = SCRATCH if SCRATCH.is_dir() and os.access(SCRATCH, os.W_OK) else work
    return Path(tempfile.mkdtemp(prefix=".kb-docs-", dir=base))


def _build_site(records: list[Record], work: Path, scratch: Path, examples: Examples | None,
                index_dir: Path | None, pdf: bool) -> Path:
    site = work / "site"
    layout = Layout(records)
    index = StaticIndex(records, layout, index_dir or work / "index")
    coverage = works.holdings(records)   # what the knowledge base holds, said when a search finds nothing
    check_outside(records)               # and the matters it says a question may concern are indeed not held
    jobs = []
    chunks: dict[str, dict[str, str]] = {}
    for script in SCRIPTS:
        docs = scratch / script
        slots: dict[str, str] = {}
        nav = generate_docs(records, docs, script, examples, layout, slots, coverage, pdf)
        slot_file = work / f"slots-{script}.json"
        slot_file.write_text(json.dumps(slots, ensure_ascii=False), encoding="utf-8")
        meta, chunks[script] = index.chunks(script)     # written into the built edition (below)
        assets = fingerprinted_assets(docs, meta)
        point_at_fingerprints(docs, assets)
        label = ui_text("检索", script)
        config = {
            "INHERIT": str(ROOT / "mkdocs.yml"),
            "docs_dir": str(docs),
            "site_dir": str(site / script),
            "nav": nav,
            "theme": {"name": "material", "language": LANGUAGE[script], "font": False, "custom_dir": str(THEME)},
            "extra_css": [assets[name] for name in EXTRA_CSS],
            "extra_javascript": [assets[name] for name in EXTRA_JAVASCRIPT],
            "hooks": [str(HOOKS)],
            "extra": {"generator": False,    # no "Made with Material for MkDocs" in a Chinese page's footer
                      "kb_search_label": label, "kb_slots": str(slot_file),
                      "kb_works": {w.id: w.title(script) for w in works.all_works()},
                      "kb_search_placeholder": ui_text("检索条款", script),
                      "kb_header_msgs": header_messages(script, coverage),
                      # the header's 繁/简 switch: the same page in the other edition
                      "kb_switch": ({"edition": "hant", "label": "繁", "title": "繁體中文版", "lang": "zh-Hant",
                                     "offline": SWITCH_OFFLINE.format(other="繁体版")}
                                    if script == "hans" else
                                    {"edition": "hans", "label": "简", "title": "简体中文版", "lang": "zh-Hans",
                                     "offline": to_hant_ui(SWITCH_OFFLINE.format(other="简体版"))})},
        }
        config.update(edition_settings(script))
        cfg = work / f"mkdocs-{script}.yml"
        cfg.write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")
        jobs.append((script, cfg, work / f"mkdocs-{script}.log"))
    failed = run_mkdocs(jobs)
    if failed:
        raise KbError(failed[0])
    for script in SCRIPTS:
        edition = site / script
        # mkdocs' 404 page links root-absolutely (for a site at the server root); ours sits
        # under /hans/ and /hant/, so the server answers 404s itself.
        (edition / "404.html").unlink(missing_ok=True)
        for rel in UNUSED:
            path = edition / rel
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        # the search index goes straight into the edition: mkdocs need not read and copy it
        write_chunks(edition, chunks[script])
        finish_edition(edition)
    finish_root(site)
    write_download(site)
    return site


# The header box's own wording; what it shares with the search page (searching, the twin's label)
# is read from the search page itself (docs/search.md), so each is written once.
HEADER_ONLY_MESSAGES = {"more": "全部结果", "none": "没有找到相关条款。{coverage}", "close": "关闭检索",
                        # whether this device keeps the edition for offline use (kb.js; the home page shows it)
                        "offline-ready": "这台设备已存下本版：断网也能翻阅和检索。",
                        "offline-saving": "正在把本版存到这台设备；存好后断网也能用。"}
# what the 繁/简 switch says offline when this device has not kept the other edition
SWITCH_OFFLINE = "离线时打不开{other}：这台设备还没有存下它。联网时打开一次{other}，之后离线也能用。"
SHARED_MESSAGES = ("searching", "twin", "unloaded")


def header_messages(script: str, coverage: str) -> dict[str, str]:
    """The messages of the header search box in one script (data-msg-* of its form); ``coverage``:
    what the knowledge base holds (``works.holdings``)."""
    page = (ROOT / "docs" / "search.md").read_text(encoding="utf-8")
    found = dict(re.findall(r'data-msg-([a-z-]+)="([^"]*)"', page))
    missing = [k for k in SHARED_MESSAGES if k not in found]
    if missing:
        raise KbError(f"docs/search.md: no data-msg-{missing[0]} for the header search box")
    msgs = {**{k: found[k] for k in SHARED_MESSAGES}, **HEADER_ONLY_MESSAGES, "coverage": coverage, **legend()}
    return {k: ui_text(v, script) for k, v in msgs.items()}


def legend() -> dict[str, str]:
    """What 〔 〕 and □ mean, said under search results that show them (as under a law page's clauses)."""
    return {"brackets": LEGEND["〔"], "lost": LEGEND[LOST_MARK]}



def run_mkdocs(jobs: list[tuple[str, Path, Path]]) -> list[str]:
    """``mkdocs build --strict`` of each (edition, config, log), in parallel, by one process that
    imports mkdocs once and forks (kb/site/mkdocs_run.py); what went wrong, one line per edition."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", NO_COLOR="1")
    package_root = str(Path(__file__).resolve().parents[2])   # the child runs this very kb package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    args = [str(path) for _, cfg, log in jobs for path in (cfg, log)]
    proc = subprocess.Popen([sys.executable, "-m", "kb.site.mkdocs_run", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
                            start_new_session=True, preexec_fn=_die_with_parent)
    try:
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:          # a failed or interrupted build leaves no mkdocs behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    try:
        codes = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        codes = [proc.returncode or 1] * len(jobs)
    failed = []
    for (script, _, log), code in zip(jobs, codes):
        if code != 0:
            text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
            failed.append(f"mkdocs build of the {script} edition failed: {mkdocs_error(text + err)}")
    return failed


def _die_with_parent() -> None:
    """In the mkdocs child: the kernel ends it when the build process dies, even by kill -9."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def mkdocs_error(output: str) -> str:
    """mkdocs' own first error or warning line, without colour codes or theme banners."""
    lines = [_ANSI.sub("", ln).strip() for ln in output.splitlines()]
    lines = [ln for ln in lines if ln]
    for ln in lines:
        if ln.startswith(("ERROR", "WARNING")) and "NO_MKDOCS_2_WARNING" not in ln and "MkDocs 2.0" not in ln:
            return ln
    for ln in reversed(lines):
        if "Error" in ln or "error" in ln:
            return ln
    return lines[-1] if lines else "failed"
