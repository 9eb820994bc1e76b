"""Checksums of the built files, recorded at build time and verified before use.

The build records the sha256 and size of every file of the records, the search index
and the site in ``meta.json``; ``verify`` compares them before the index is opened (by
``kb search``, ``kb serve``, every command that reads the build) and in ``kb check``.
A damaged, truncated, missing or extra file is a KbError naming it — never a traceback
from the search engine, never a silently different answer.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from kb.core.errors import KbError

DATA_PARTS = ("records.jsonl", "stats.json", "index")   # what every reader needs
SITE_PARTS = ("site",)                                  # what kb serve and kb check need


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    buf = bytearray(1 << 16)  # one buffer, reused: no garbage left in a long-running server
    view = memoryview(buf)
    with path.open("rb", buffering=0) as fh:
        while n := fh.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


def _files(root: Path, parts: Iterable[str]) -> list[str]:
    """Relative paths (with /) of the files under root/part for each part."""
    found: list[str] = []
    for part in parts:
        top = root / part
        if top.is_file():
            found.append(part)
        elif top.is_dir():
            for dirpath, _dirs, names in os.walk(top):
                rel = Path(dirpath).relative_to(root)
                found += [(rel / n).as_posix() for n in names]
    return sorted(found)


def checksums(root: Path, parts: Iterable[str]) -> dict[str, list]:
    """{relative path: [size, sha256]} for every file under root/part."""
    return {rel: [(root / rel).stat().st_size, sha256_file(root / rel)] for rel in _files(root, parts)}


def verify(root: Path, recorded: dict[str, list], parts: Iterable[str]) -> None:
    """KbError naming the first file under ``parts`` that is missing, extra, resized or changed."""
    parts = tuple(parts)
    mine = {rel: v for rel, v in recorded.items() if rel.split("/", 1)[0] in parts}
    if not mine:
        raise KbError(f"{root / 'meta.json'}: no checksums recorded for {', '.join(parts)} "
                      "(built by an older kb; run `kb build --force`)")
    present = set(_files(root, parts))
    for rel in sorted(present - set(mine)):
        raise KbError(f"{root / rel}: not part of the build (damaged build; run `kb build --force`)")
    for rel, (size, digest) in sorted(mine.items()):
        path = root / rel
        if rel not in present:
            raise KbError(f"{path}: missing from the build (damaged build; run `kb build --force`)")
        try:
            actual = path.stat().st_size
            if actual != size:
                raise KbError(f"{path}: {actual} bytes, the build wrote {size} "
                              "(truncated or damaged; run `kb build --force`)")
            if sha256_file(path) != digest:
                raise KbError(f"{path}: sha256 differs from the build's record "
                              "(damaged; run `kb build --force`)")
        except OSError as exc:
            raise KbError(f"{path}: cannot read ({exc.strerror})") from None
