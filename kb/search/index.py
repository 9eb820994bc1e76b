"""Build and open the whoosh index of the clause records.

The index directory holds whoosh's files plus ``kb-index.json``, which records the
sha256 of the records file it was built from and a fingerprint of the analysis (user
dictionary, analyzer and schema versions). ``open_index`` rebuilds whenever either
differs or the index is missing or unreadable; a build is written to a temporary
directory beside the target and renamed into place, so a reader never sees half an index.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

from kb.errors import KbError
from kb.search.analysis import analysis_fingerprint, gram_analyzer, word_analyzer

META_FILE = "kb-index.json"
SCHEMA_VERSION = "2"


def make_schema() -> Schema:
    """Fields: ids and filters, analysed title/text/context/grams, stored display text."""
    words = word_analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        work=ID(stored=True),
        law=NUMERIC(int, bits=32, stored=True, signed=False),
        level=ID(stored=True),
        pathkey=ID(stored=True),          # "45/C/4/b/": Prefix("45/") is law 45 and below
        order=NUMERIC(int, bits=32, stored=True, signed=False),
        citation=STORED(),
        parent=STORED(),
        title=TEXT(analyzer=words, phrase=True),
        text=TEXT(analyzer=words, phrase=True),
        context=TEXT(analyzer=words, phrase=False, stored=True),  # ancestor titles
        grams=TEXT(analyzer=gram_analyzer(), phrase=True),  # title + text, CJK 1-2 grams
        title_hans=STORED(), title_hant=STORED(),
        text_hans=STORED(), text_hant=STORED(),
    )


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint() -> str:
    """What, besides the records, an index depends on."""
    return hashlib.sha256(f"{SCHEMA_VERSION}:{analysis_fingerprint()}".encode()).hexdigest()


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Records as dicts; a malformed line is a KbError naming the file and line."""
    try:
        fh = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise KbError(f"records file not found: {path} (run `kb build` first)") from None
    except OSError as exc:
        raise KbError(f"{path}: cannot read records ({exc.strerror})") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise KbError(f"{path}:{lineno}: not a JSON record ({exc.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) \
                    or not isinstance(obj.get("work"), str):
                raise KbError(f"{path}:{lineno}: a record needs string fields id and work")
            yield obj


def _documents(records: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    by_id = {r["id"]: r for r in records}
    for r in records:
        ancestors: list[str] = []
        parent, seen = r.get("parent"), {r["id"]}
        while parent and parent in by_id and parent not in seen:
            seen.add(parent)
            p = by_id[parent]
            if p.get("title_hans"):
                ancestors.append(p["title_hans"])
            parent = p.get("parent")
        title = r.get("title_hans") or ""
        text = r.get("text_hans") or ""
        path = [str(p) for p in r.get("path") or []]
        doc: dict[str, Any] = dict(
            id=r["id"], work=r["work"], level=str(r.get("level") or ""),
            pathkey="".join(p + "/" for p in path),
            citation=str(r.get("citation") or ""), parent=r.get("parent"),
            title=title, text=text, context="\n".join(reversed(ancestors)),
            grams=title + "\n" + text,
            title_hans=title, title_hant=r.get("title_hant") or title,
            text_hans=text, text_hant=r.get("text_hant") or text,
        )
        if isinstance(r.get("law"), int) and r["law"] >= 0:
            doc["law"] = r["law"]
        if isinstance(r.get("order"), int) and r["order"] >= 0:
            doc["order"] = r["order"]
        yield doc


def read_meta(index_dir: Path) -> dict[str, Any] | None:
    try:
        return json.loads((index_dir / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def build_index(records_path: Path | str, index_dir: Path | str) -> dict[str, Any]:
    """Build the index of ``records_path`` into ``index_dir`` (atomically); return its metadata."""
    records_path, index_dir = Path(records_path), Path(index_dir)
    started = time.perf_counter()
    digest = sha256_file(records_path) if records_path.exists() else None
    records = list(read_records(records_path))
    if digest is None:  # pragma: no cover - read_records raised already
        raise KbError(f"records file not found: {records_path}")
    seen: set[str] = set()
    for r in records:
        if r["id"] in seen:
            raise KbError(f"{records_path}: duplicate record id {r['id']}")
        seen.add(r["id"])

    _check_replaceable(index_dir)
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    tag = f"{os.getpid()}-{secrets.token_hex(4)}"
    tmp = index_dir.with_name(f".{index_dir.name}.tmp-{tag}")
    try:
        tmp.mkdir()
        ix = whoosh_index.create_in(str(tmp), make_schema())
        writer = ix.writer(limitmb=256)
        try:
            for doc in _documents(records):
                writer.add_document(**doc)
        except BaseException:
            writer.cancel()
            raise
        writer.commit()
        ix.close()
        meta = {
            "records": str(records_path), "records_sha256": digest,
            "fingerprint": fingerprint(), "count": len(records),
            "works": sorted({r["work"] for r in records}),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "build_seconds": round(time.perf_counter() - started, 3),
        }
        (tmp / META_FILE).write_text(json.dumps(meta, ensure_ascii=False, indent=1),
                                     encoding="utf-8")
        _swap_in(tmp, index_dir, tag)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return meta


def _check_replaceable(index_dir: Path) -> None:
    """Refuse to replace a directory that is neither empty nor one of our indexes."""
    if index_dir.exists() and not index_dir.is_dir():
        raise KbError(f"index path is not a directory: {index_dir}")
    if index_dir.is_dir():
        names = {p.name for p in index_dir.iterdir()}
        ours = META_FILE in names or any(n.endswith((".toc", ".seg")) for n in names)
        if names and not ours:
            raise KbError(f"refusing to replace {index_dir}: it is not a search index")


def _swap_in(tmp: Path, index_dir: Path, tag: str) -> None:
    old = index_dir.with_name(f".{index_dir.name}.old-{tag}")
    if index_dir.exists():
        os.rename(index_dir, old)
    try:
        os.rename(tmp, index_dir)
    except OSError:
        # Another process put an index there in between: keep theirs if it is complete.
        if read_meta(index_dir) is None:
            raise
    finally:
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)


def is_fresh(records_path: Path | str, index_dir: Path | str) -> bool:
    """True if ``index_dir`` holds a complete index of exactly this records file."""
    records_path, index_dir = Path(records_path), Path(index_dir)
    meta = read_meta(index_dir)
    if meta is None or not records_path.exists():
        return False
    return (meta.get("records_sha256") == sha256_file(records_path)
            and meta.get("fingerprint") == fingerprint()
            and whoosh_index.exists_in(str(index_dir)))


def open_index(records_path: Path | str, index_dir: Path | str) -> whoosh_index.Index:
    """Open the index of ``records_path``, rebuilding it first if missing or stale."""
    records_path, index_dir = Path(records_path), Path(index_dir)
    if not records_path.exists():
        raise KbError(f"records file not found: {records_path} (run `kb build` first)")
    if not is_fresh(records_path, index_dir):
        build_index(records_path, index_dir)
    try:
        return whoosh_index.open_dir(str(index_dir))
    except Exception:
        # Present but unreadable (partly deleted, foreign files): rebuild once.
        build_index(records_path, index_dir)
        return whoosh_index.open_dir(str(index_dir))
