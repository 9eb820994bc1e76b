"""Shared fixtures: the real corpus (built once) and damaged copies of the sources."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from kb.ingest.sources import SOURCES_DIR

ROOT = Path(__file__).resolve().parent.parent

# Every test that reads a build reads one made for this session in a temporary folder
# (built on first use), never ./build: a test that rebuilds cannot pull the build from
# under another, and a developer's own build is left alone.
# Under pytest-xdist the workers inherit the controller's session folder (KB_TEST_SESSION), so the
# session build is made once, under the build lock; the process that made the folder removes it.
_OWNER = "KB_TEST_SESSION" not in os.environ
if _OWNER:
    os.environ["KB_TEST_SESSION"] = tempfile.mkdtemp(prefix="kb-tests-")
_SESSION_TMP = Path(os.environ["KB_TEST_SESSION"])
os.environ["KB_BUILD_DIR"] = str(_SESSION_TMP / "build")
# Printed PDFs are reused from the checkout's build cache (keyed by everything they depend on;
# kb/site/pdf.py), so the session's builds print only what `kb build` has not printed already.
os.environ.setdefault("KB_CACHE_DIR", str(ROOT / ".kb-cache"))


def pytest_collection_modifyitems(session, config, items):
    """The browser test files first (each file keeps its own order): they are the slowest, and
    started first they run beside the rest instead of after it when the files are shared out
    among xdist's processes (`--dist loadscope`: a file, or a class, stays in one process)."""
    items.sort(key=lambda item: not item.path.name.endswith("_browser.py"))


def pytest_sessionfinish(session, exitstatus):
    if _OWNER:
        shutil.rmtree(_SESSION_TMP, ignore_errors=True)


@pytest.fixture(scope="session")
def corpus():
    from kb.ingest.pipeline import ingest
    return ingest()


@pytest.fixture(scope="session")
def records(corpus):
    return {r.id: r for r in corpus.records}


@pytest.fixture(scope="session")
def linked_records():
    """The real records, through every ingest stage in-process: no index, no site."""
    from kb.ingest.pipeline import run
    return run().records


@pytest.fixture(scope="session")
def session_build() -> Path:
    """The session's full build (records, index, both editions of the site, the PDF editions)."""
    from kb.app import build as b
    out = Path(os.environ["KB_BUILD_DIR"])
    b.build(out, with_pdf=True, force=False)      # the PDFs too: the tests read them
    return b.ensure_built(out, need_site=True)


@pytest.fixture
def full_build_copy(session_build: Path, tmp_path: Path) -> Path:
    """A private copy of the session's full build (its generation and both links), for a test
    that builds over a complete build or holds its lock: the copy is up to date, as the original."""
    for entry in session_build.parent.iterdir():
        if entry.name in ("build", "site") or entry.name == os.readlink(session_build):
            if entry.is_symlink():
                os.symlink(os.readlink(entry), tmp_path / entry.name)
            else:
                shutil.copytree(entry, tmp_path / entry.name, symlinks=True)
    return tmp_path / "build"


class SourceCopy:
    """A writable copy of kb/sources whose files can be damaged, manifest kept in step."""

    def __init__(self, folder: Path):
        self.folder = folder
        shutil.copytree(SOURCES_DIR, folder)

    def path(self, sigil: str) -> Path:
        return next(self.folder.glob(f"{sigil}_*.txt"))

    def write(self, sigil: str, data: bytes, update_hash: bool = True) -> Path:
        path = self.path(sigil)
        old = hashlib.sha256(path.read_bytes()).hexdigest()
        path.write_bytes(data)
        if update_hash:
            self.set_manifest(old, hashlib.sha256(data).hexdigest())
        return path

    def set_manifest(self, old: str, new: str) -> None:
        manifest = self.folder / "manifest.toml"
        manifest.write_text(manifest.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    def edit_manifest(self, pattern: str, repl: str) -> None:
        manifest = self.folder / "manifest.toml"
        manifest.write_text(re.sub(pattern, repl, manifest.read_text(encoding="utf-8"), count=1), encoding="utf-8")


@pytest.fixture
def source_copy(tmp_path) -> SourceCopy:
    return SourceCopy(tmp_path / "sources")


# --- the browser tests' servers and browser (tests/kbbrowser.py), one of each per test module ---

@pytest.fixture(scope="module")
def server():
    """`kb serve` over the session's build, on 127.0.0.1."""
    from kbbrowser import kb_serve
    with kb_serve(Path(os.environ["KB_BUILD_DIR"])) as url:
        yield url


@pytest.fixture(scope="module")
def static_site(session_build):
    """The session's built site on a plain static file server (no API): what a static host gives."""
    from kbbrowser import static_server
    with static_server(session_build.parent / "site") as url:
        yield url


@pytest.fixture(scope="module")
def browser(session_build):
    """Debian's Chromium, headless, driven by Playwright (launched after the session's build,
    which prints its PDFs with a Chromium of its own)."""
    from kbbrowser import chromium
    with chromium() as b:
        yield b
