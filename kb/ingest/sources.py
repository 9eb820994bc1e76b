"""Stage 1: the source texts. Load the manifest, verify each witness, decode it."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from kb.core import works
from kb.core.curated import read_entries
from kb.core.errors import KbError
from kb.core.works import work_ids

SOURCES_DIR = Path(__file__).resolve().parents[1] / "sources"


def sources_dir() -> Path:
    """The witnesses' folder: kb/sources, or $KB_SOURCES_DIR (for testing damaged copies)."""
    return Path(os.environ.get("KB_SOURCES_DIR") or SOURCES_DIR)
MAX_SOURCE_BYTES = 5 * 1024 * 1024
EXPECTATIONS = ("expect_records", "expect_laws")  # optional per source: an int or [min, max]
FORMATS = ("json-envelope", "pinyin-glued", "fullwidth-paged", "outline-table", "bullet-list")
FIELDS = ("file", "sigil", "work", "script", "format", "sha256")


@dataclass(frozen=True)
class Source:
    """One witness: a scraped copy of (part of) a work."""

    file: str
    sigil: str
    work: str
    script: str
    format: str
    sha256: str
    path: Path
    expect: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False)

    def read(self) -> str:
        """The verified, decoded text (UTF-8 only; no BOM, no NUL)."""
        try:
            size = self.path.stat().st_size
            if size > MAX_SOURCE_BYTES:
                raise KbError(f"{self.path}: {size} bytes, more than the {MAX_SOURCE_BYTES} a source may have")
            data = self.path.read_bytes()
        except OSError as exc:
            raise KbError(f"{self.path}: cannot read: {exc.strerror}") from None
        digest = hashlib.sha256(data).hexdigest()
        if digest != self.sha256:
            raise KbError(f"{self.path}: sha256 {digest[:12]}… does not match the manifest ({self.sha256[:12]}…)")
        if not data.strip():
            raise KbError(f"{self.path}: the source is empty")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            if exc.reason == "unexpected end of data":
                raise KbError(f"{self.path}:{line}: the file ends inside a character (truncated?)") from None
            raise KbError(f"{self.path}:{line}: not UTF-8 (byte 0x{data[exc.start]:02x}); "
                          "is it Big5 or GB18030?") from None
        if "\x00" in text:
            line = text[: text.index("\x00")].count("\n") + 1
            raise KbError(f"{self.path}:{line}: NUL byte in a text source")
        return text.removeprefix("\ufeff")


def load_manifest(folder: Path | None = None) -> list[Source]:
    """Read manifest.toml; every field is checked, every listed file must exist."""
    folder = folder or sources_dir()
    manifest = folder / "manifest.toml"
    entries = read_entries(manifest, "source")
    sources = []
    for i, entry in enumerate(entries, 1):
        where = f"{manifest}: source #{i}"
        for key in FIELDS:
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise KbError(f"{where}: field '{key}' is missing or not a string")
        if entry["format"] not in FORMATS:
            raise KbError(f"{where} ({entry['file']}): unknown format '{entry['format']}' "
                          f"(known: {', '.join(FORMATS)})")
        if entry["work"] not in work_ids():
            raise KbError(f"{where} ({entry['file']}): unknown work '{entry['work']}' "
                          f"(kb/data/works.toml lists {', '.join(work_ids())})")
        witnesses = works.get(entry["work"]).witnesses
        if entry["sigil"] not in witnesses:
            raise KbError(f"{where} ({entry['file']}): witness {entry['sigil']} is not one of work "
                          f"'{entry['work']}''s witnesses ({', '.join(witnesses)} in kb/data/works.toml)")
        path = _confined(folder, entry["file"], where)
        sources.append(Source(path=path, expect=_expectations(entry, where),
                              **{k: entry[k] for k in FIELDS}))
    return sources


def _confined(folder: Path, name: str, where: str) -> Path:
    """The source file, which must lie in the sources folder itself (no .., no absolute path, no symlink out)."""
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or "\\" in name:
        raise KbError(f"{where}: file '{name}' must be a name inside the sources folder")
    path = folder / rel
    if not path.is_file():
        raise KbError(f"{path}: listed in the manifest but missing")
    if not path.resolve().is_relative_to(folder.resolve()):
        raise KbError(f"{where}: file '{name}' leads outside the sources folder (a symlink?)")
    return path


def _expectations(entry: dict, where: str) -> dict[str, tuple[int, int]]:
    """expect_records / expect_laws: a count or an inclusive [min, max] range."""
    out: dict[str, tuple[int, int]] = {}
    for key in EXPECTATIONS:
        value = entry.get(key)
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = (value, value)
        elif (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                   for v in value) and 0 <= value[0] <= value[1]):
            out[key] = (value[0], value[1])
        else:
            raise KbError(f"{where} ({entry['file']}): {key} must be a count or [min, max], not {value!r}")
    return out
