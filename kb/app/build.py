"""Build the records, the search index and the site as one generation, atomically.

Layout beside the build path ``build`` (or ``--build-dir``/``$KB_BUILD_DIR``):

    .build.gen-XXXX/        one generation: records.jsonl, stats.json, index/, site/, meta.json
    build -> .build.gen-XXXX    a symlink, replaced in one rename(2) when a build succeeds
    site  -> build/site         a symlink, so the site always belongs to the same generation
    .build.lock             flock(2): one build at a time; a second one waits for it

A build writes a fresh ``.build.tmp-XXXX`` directory and makes it the new generation only
when every stage (and the site's link check) has succeeded, so a failed or killed build
leaves the previous one intact. The next build removes the debris of killed builds
(``.build.tmp-*``, old generations but the one just replaced, ``.build.old-*``,
``.site.old-*``). ``meta.json`` holds the build's input fingerprint (a build with the
same fingerprint is skipped unless forced) and the checksum of every file it wrote
(see kb/core/integrity.py), verified before the build is used.
"""
from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kb.core import integrity
from kb.core.errors import KbError
from kb.core.records import Record, read_jsonl
from kb.ingest.fingerprints import path as fingerprints_path
from kb.ingest.sources import sources_dir

PACKAGE = Path(__file__).resolve().parents[1]   # the kb package
LOCK_WAIT_SECONDS = 900.0
DEPENDENCIES = ("opencc", "jieba", "whoosh-reloaded", "mkdocs", "mkdocs-material", "PyYAML", "pypinyin")


def default_build_dir() -> Path:
    return Path(os.environ.get("KB_BUILD_DIR", "build")).absolute()


_GENERATION = re.compile(r"^\.(?P<link>.+)\.gen-[A-Za-z0-9_]+$")


def cache_dir(out: Path) -> Path:
    """Where builds keep what they can reuse across generations (printed PDFs and search
    indexes, keyed by their inputs): ``$KB_CACHE_DIR``, or ``.kb-cache`` beside the build path."""
    return Path(os.environ.get("KB_CACHE_DIR") or out.parent / ".kb-cache").absolute()


def build_path(out: Path) -> Path:
    """The build path for ``out``: a generation directory (a resolved ``build``) maps back to its link.

    A build always goes to the link; building into a generation itself (one that is no
    longer current) is refused.
    """
    m = _GENERATION.match(out.name)
    if m is None:
        return out
    link = out.parent / m.group("link")
    if link.is_symlink() and os.readlink(link) == out.name:
        return link
    raise KbError(f"{out}: an old build generation, not a build path (use {link})")


def site_dir(out: Path) -> Path:
    """The served site: ``site`` beside the build path, a symlink into the current generation."""
    return out.parent / "site"


def fingerprint() -> str:
    """Hash of everything the build depends on: code, curated data, sources, site sources, versions."""
    h = hashlib.sha256()
    roots = [PACKAGE, sources_dir(), PACKAGE.parent / "docs"]
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path).encode())
                h.update(path.read_bytes())
    pins = fingerprints_path()                  # $KB_FINGERPRINTS may name a file outside kb/data
    if PACKAGE not in pins.parents and pins.is_file():
        h.update(str(pins).encode())
        h.update(pins.read_bytes())
    mk = PACKAGE.parent / "mkdocs.yml"
    if mk.is_file():
        h.update(mk.read_bytes())
    h.update(sys.version.encode())
    for dist in DEPENDENCIES:
        h.update(f"{dist}=={installed_version(dist) or 'missing'}".encode())
    return h.hexdigest()


def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@functools.lru_cache(maxsize=1)
def _installed() -> dict[str, str]:
    """Distribution name -> version, from the ``<name>-<version>.dist-info`` folders on sys.path
    (what importlib.metadata reads, without its 50 ms import on every `kb search`)."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                dist, _, version = name[:-len(".dist-info")].partition("-")
                found.setdefault(_dist_name(dist), version)
    return found


def installed_version(dist: str) -> str | None:
    """The installed version of ``dist``, or None if it is not installed."""
    return _installed().get(_dist_name(dist))


@contextmanager
def build_lock(out: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold ``.NAME.lock`` beside the build path; wait (saying so once) while another build holds it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.parent / f".{out.name}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise KbError(f"{path}: another build has held the lock for over {wait:.0f} s") from None
                if not told:
                    print(f"kb: waiting for another build of {out} to finish", file=sys.stderr, flush=True)
                    told = True
                time.sleep(0.2)
        yield
    finally:
        os.close(fd)  # releases the lock


def build(out: Path | None = None, *, with_site: bool = True, with_pdf: bool = False, force: bool = True) -> Path:
    """Build into a new generation and make it current; with ``force=False`` skip a fresh, intact build
    (one that has the PDFs too, when ``with_pdf`` asks for them). The PDF editions need Chromium."""
    out = build_path(out or default_build_dir())
    with_site = with_site or with_pdf
    try:
        with build_lock(out):
            if not force and _intact(out, need_site=with_site) and (meta(out).get("pdf") or not with_pdf):
                return out
            _remove_debris(out)
            return _build_locked(out, with_site, with_pdf)
    except OSError as exc:
        raise KbError(_os_message(exc, out)) from None


def _os_message(exc: OSError, out: Path) -> str:
    where = exc.filename or out.parent
    why = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        why += "; the previous build is intact"
    return f"{where}: cannot write the build ({why})"


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (mkdocs, Chromium)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@contextmanager
def _stage(stages: dict[str, dict[str, float]], name: str) -> Iterator[None]:
    """Record a build stage's CPU and wall seconds in ``stages`` (kept in meta.json)."""
    cpu, wall = _cpu_seconds(), time.perf_counter()
    yield
    stages[name] = {"cpu": round(_cpu_seconds() - cpu, 3), "wall": round(time.perf_counter() - wall, 3)}


def _build_locked(out: Path, with_site: bool, with_pdf: bool) -> Path:
    from kb.core.records import write_jsonl
    from kb.core.stats import corpus_stats
    from kb.ingest.pipeline import run

    _replaceable(out, "build")  # fail before the work, not after it
    _replaceable(site_dir(out), "site")
    if with_pdf:
        from kb.site.pdf import require_tools
        require_tools()         # one line before any work when Chromium or a CJK font is missing
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    stages: dict[str, dict[str, float]] = {}
    try:
        corpus = run(timed=lambda name: _stage(stages, name))
        with _stage(stages, "records"):
            write_jsonl(corpus.records, tmp / "records.jsonl")
            (tmp / "stats.json").write_text(json.dumps(corpus_stats(corpus), ensure_ascii=False, indent=1),
                                            encoding="utf-8")
        records = outputs(tmp, cache_dir(out), stages, with_site=with_site, with_pdf=with_pdf,
                          previous=out / "records.jsonl")
        parts = integrity.DATA_PARTS + (integrity.SITE_PARTS if with_site else ())
        meta = {"fingerprint": fingerprint(), "records": len(records), "site": with_site, "pdf": with_pdf,
                "files": integrity.checksums(tmp, parts), "stages": stages}
        (tmp / "meta.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        gen = out.parent / tmp.name.replace(".tmp-", ".gen-", 1)
        tmp.rename(gen)
        tmp = gen
        _make_current(out, gen)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def outputs(tmp: Path, cache: Path, stages: dict[str, dict[str, float]] | None = None, *,
            with_site: bool = True, with_pdf: bool = False, previous: Path | None = None) -> list[Record]:
    """Every output from ``tmp/records.jsonl`` as written (the contract, not the objects ingest made):
    the rules' check, the published text against its fingerprints (``previous``: the records of the
    build it replaces, for the old text a refusal quotes), the search index, both editions of the
    site, the PDFs and the link check. Returns the records read."""
    from kb.ingest.fingerprints import check_fingerprints
    from kb.rules.check import check_records
    stages = {} if stages is None else stages
    records = list(read_jsonl(tmp / "records.jsonl"))
    with _stage(stages, "rules"):
        check_records(records)
    with _stage(stages, "fingerprints"):     # the published text is what kb/data/fingerprints.tsv pins
        check_fingerprints(records, previous=previous)
    with _stage(stages, "index"):
        _build_index(tmp, cache / "index")
    if with_site:
        from kb.site.build import build_site
        from kb.site.examples_text import site_examples
        from kb.site.linkcheck import check_site
        with _stage(stages, "site"):
            site = build_site(records, tmp, site_examples(records), pdf=with_pdf)
        if with_pdf:
            from kb.site.pdf import build_pdfs
            with _stage(stages, "pdf"):
                build_pdfs(site, tmp, cache / "pdf")
        with _stage(stages, "linkcheck"):
            broken = check_site(site)
        if broken:
            raise KbError(f"the built site has {len(broken)} broken links; first: {broken[0]}")
    return records


INDEX_CACHE_KEEP = 4   # search indexes kept in the cache (the oldest used go first)


def _index_key(records: Path) -> str:
    """What the search index depends on: the records, the index's own fingerprint (schema and
    curated search data), the search code, the works registry and whoosh's version."""
    from kb.core import works
    from kb.search.index import fingerprint as index_fingerprint
    h = hashlib.sha256(records.read_bytes())
    h.update(index_fingerprint().encode() + works.registry_path().read_bytes())
    for path in sorted((PACKAGE / "search").glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(str(installed_version("whoosh-reloaded")).encode())
    return h.hexdigest()


def _build_index(tmp: Path, cache: Path) -> None:
    """The search index of the records, copied from the cache when the same inputs were indexed
    before (see _index_key), else built and added to the cache."""
    from kb.search.index import build_index
    key = _index_key(tmp / "records.jsonl")
    hit = cache / key
    if hit.is_dir():
        shutil.copytree(hit, tmp / "index")
        os.utime(hit)                                  # recently used: kept longest
        return
    build_index(tmp / "records.jsonl", tmp / "index")
    cache.mkdir(parents=True, exist_ok=True)
    aside = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=cache))
    shutil.copytree(tmp / "index", aside / "index")
    try:
        (aside / "index").rename(hit)
    except OSError:                                    # another build stored it first
        pass
    shutil.rmtree(aside, ignore_errors=True)
    kept = sorted((d for d in cache.iterdir() if d.is_dir() and not d.name.startswith(".")),
                  key=lambda d: d.stat().st_mtime, reverse=True)
    for old in kept[INDEX_CACHE_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


OURS = {"build": ("meta.json", "records.jsonl"), "site": ("hans", "hant", "index.html")}


def _replaceable(link: Path, kind: str) -> None:
    """KbError unless ``link`` is absent, a symlink, empty, or holds what a kb ``kind`` holds."""
    if os.path.lexists(link) and not link.is_symlink():
        names = {p.name for p in link.iterdir()} if link.is_dir() else {""}
        if names and not names & set(OURS[kind]):
            raise KbError(f"{link}: refusing to replace it: it is not a kb {kind} directory")


def _replace_link(link: Path, target: str) -> None:
    """Point symlink ``link`` at ``target`` in one rename.

    A real directory there (a build from before generations, checked by ``_replaceable``)
    is moved aside first, to be removed by the next build.
    """
    if os.path.lexists(link) and not link.is_symlink():
        link.rename(link.with_name(f".{link.name}.old-{os.getpid()}"))
    tmp = link.with_name(f".{link.name}.link-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    os.replace(tmp, link)


def _make_current(out: Path, gen: Path) -> None:
    site = site_dir(out)
    wanted = f"{out.name}/site"
    _replaceable(out, "build")  # both checked before anything is moved
    _replaceable(site, "site")
    _replace_link(out, gen.name)
    if not (site.is_symlink() and os.readlink(site) == wanted):
        _replace_link(site, wanted)


def _remove_debris(out: Path) -> None:
    """Directories left by killed or older builds (called with the lock held)."""
    current = os.readlink(out) if out.is_symlink() else None
    # Every generation but the current one (which becomes the previous one, kept for a
    # server still reading it, until the build after this one).
    debris = [p for p in out.parent.glob(f".{out.name}.gen-*") if p.name != current]
    for pattern in (f".{out.name}.tmp-*", f".{out.name}.old-*", f".{out.name}.link-*", ".site.old-*",
                    ".site.link-*"):
        debris += list(out.parent.glob(pattern))
    for path in debris:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def meta(out: Path) -> dict:
    try:
        return json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def is_fresh(out: Path, *, need_site: bool = False) -> bool:
    """Built from the current inputs (not checking the files' integrity)."""
    m = meta(out)
    fresh = m.get("fingerprint") == fingerprint() and (out / "records.jsonl").is_file()
    if need_site:
        fresh = fresh and m.get("site") and (site_dir(out) / "hans" / "index.html").is_file()
    return bool(fresh)


def _intact(out: Path, *, need_site: bool) -> bool:
    if not is_fresh(out, need_site=need_site):
        return False
    try:
        verify(out, need_site=need_site)
    except KbError:
        return False
    return True


def verify(out: Path, *, need_site: bool = False) -> None:
    """KbError naming the first damaged file of the build (its records, index and, if asked, site)."""
    parts = integrity.DATA_PARTS + (integrity.SITE_PARTS if need_site else ())
    integrity.verify(out, meta(out).get("files") or {}, parts)


def ensure_built(out: Path | None = None, *, need_site: bool = False) -> Path:
    """The build directory, rebuilt first if missing or stale, verified before use."""
    out = build_path(out or default_build_dir())
    if not is_fresh(out, need_site=need_site):
        # A rebuild keeps the site (and the PDFs) if the build it replaces had them (one generation).
        old = meta(out)
        build(out, with_site=need_site or bool(old.get("site")), with_pdf=bool(old.get("pdf")), force=False)
    verify(out, need_site=need_site)
    return out


def load_records(out: Path | None = None) -> list[Record]:
    return list(read_jsonl(ensure_built(out) / "records.jsonl"))
