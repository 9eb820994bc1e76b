"""Build the records, the search index and the site, atomically.

Everything is written into a fresh temporary directory next to the target and
swapped in only when every stage (and the link check of the built site) has
succeeded: a failed build leaves the previous one intact.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from kb.errors import KbError
from kb.pipeline import ingest
from kb.records import Record, read_jsonl, write_jsonl
from kb.sources import sources_dir
from kb.stats import corpus_stats

PACKAGE = Path(__file__).resolve().parent


def default_build_dir() -> Path:
    return Path(os.environ.get("KB_BUILD_DIR", "build")).resolve()


def site_dir(out: Path) -> Path:
    """The built site lives beside the build directory: build/ -> site/."""
    return out.parent / "site"


def fingerprint() -> str:
    """Hash of everything the build depends on: code, curated data, sources, site sources."""
    h = hashlib.sha256()
    roots = [PACKAGE, sources_dir(), PACKAGE.parent / "docs"]
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path).encode())
                h.update(path.read_bytes())
    mk = PACKAGE.parent / "mkdocs.yml"
    if mk.is_file():
        h.update(mk.read_bytes())
    return h.hexdigest()


def build(out: Path | None = None, *, with_site: bool = True) -> Path:
    out = out or default_build_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        corpus = ingest()
        records = corpus.records
        from kb.link import link_records
        link_records(records)
        write_jsonl(records, tmp / "records.jsonl")
        (tmp / "stats.json").write_text(json.dumps(corpus_stats(corpus), ensure_ascii=False, indent=1),
                                        encoding="utf-8")
        _build_index(tmp)
        if with_site:
            from kb.site.build import build_site
            from kb.site.examples_text import site_examples
            from kb.site.linkcheck import check_site
            from kb.site.pdf import build_pdfs
            site = build_site(records, tmp, site_examples(records))
            build_pdfs(site, tmp)
            broken = check_site(site)
            if broken:
                raise KbError(f"the built site has {len(broken)} broken links; first: {broken[0]}")
        (tmp / "meta.json").write_text(json.dumps({"fingerprint": fingerprint(), "records": len(records),
                                                   "site": with_site}), encoding="utf-8")
        if with_site:
            _swap(tmp / "site", site_dir(out))
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _build_index(tmp: Path) -> None:
    from kb.search.index import build_index
    build_index(tmp / "records.jsonl", tmp / "index")


def _swap(tmp: Path, out: Path) -> None:
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def meta(out: Path) -> dict:
    try:
        return json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def is_fresh(out: Path, *, need_site: bool = False) -> bool:
    m = meta(out)
    fresh = m.get("fingerprint") == fingerprint() and (out / "records.jsonl").is_file()
    if need_site:
        fresh = fresh and m.get("site") and (site_dir(out) / "hans" / "index.html").is_file()
    return bool(fresh)


def ensure_built(out: Path | None = None, *, need_site: bool = False) -> Path:
    """The build directory, rebuilt first if missing or stale."""
    out = out or default_build_dir()
    if not is_fresh(out, need_site=need_site):
        build(out, with_site=need_site)
    return out


def load_records(out: Path | None = None) -> list[Record]:
    return list(read_jsonl(ensure_built(out) / "records.jsonl"))
