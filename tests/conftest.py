"""Shared fixtures: the real corpus (built once) and damaged copies of the sources."""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from kb.sources import SOURCES_DIR

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def corpus():
    from kb.pipeline import ingest
    return ingest()


@pytest.fixture(scope="session")
def records(corpus):
    return {r.id: r for r in corpus.records}


@pytest.fixture(scope="session")
def linked_records():
    """The real records, ingested and cross-linked in-process: no index, no site."""
    from kb.link import link_records
    from kb.pipeline import ingest
    recs = ingest().records
    link_records(recs)
    return recs


@pytest.fixture(scope="session")
def session_build(tmp_path_factory) -> Path:
    """One full build (records, index, both editions of the site) in a temporary directory,
    shared by every test that reads a build; no test writes to it or to ./build."""
    from kb import build as b
    return b.build(tmp_path_factory.mktemp("kb") / "build")


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
