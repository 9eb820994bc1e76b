"""Build the records (and, as later stages land, the index and the site) atomically.

Everything is written into a fresh temporary directory next to the target and
swapped in only when every stage has succeeded: a failed build leaves the
previous one intact.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from kb.pipeline import ingest
from kb.records import Record, read_jsonl, write_jsonl
from kb.sources import sources_dir
from kb.stats import corpus_stats

PACKAGE = Path(__file__).resolve().parent


def default_build_dir() -> Path:
    return Path(os.environ.get("KB_BUILD_DIR", "build")).resolve()


def fingerprint() -> str:
    """Hash of everything the build depends on: code, curated data and sources."""
    h = hashlib.sha256()
    for root in (PACKAGE, sources_dir()):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path).encode())
                h.update(path.read_bytes())
    return h.hexdigest()


def build(out: Path | None = None) -> Path:
    out = out or default_build_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        corpus = ingest()
        write_jsonl(corpus.records, tmp / "records.jsonl")
        (tmp / "stats.json").write_text(json.dumps(corpus_stats(corpus), ensure_ascii=False, indent=1),
                                        encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps({"fingerprint": fingerprint(),
                                                   "records": len(corpus.records)}), encoding="utf-8")
        _swap(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def _swap(tmp: Path, out: Path) -> None:
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def is_fresh(out: Path) -> bool:
    try:
        meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return meta.get("fingerprint") == fingerprint() and (out / "records.jsonl").is_file()


def ensure_built(out: Path | None = None) -> Path:
    """The build directory, rebuilt first if missing or stale."""
    out = out or default_build_dir()
    if not is_fresh(out):
        build(out)
    return out


def load_records(out: Path | None = None) -> list[Record]:
    return list(read_jsonl(ensure_built(out) / "records.jsonl"))
