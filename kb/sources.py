"""Stage 1: the source texts. Load the manifest, verify each witness, decode it."""
from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kb.errors import KbError
from kb.works import work_ids

SOURCES_DIR = Path(__file__).parent / "sources"


def sources_dir() -> Path:
    """The witnesses' folder: kb/sources, or $KB_SOURCES_DIR (for testing damaged copies)."""
    return Path(os.environ.get("KB_SOURCES_DIR") or SOURCES_DIR)
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

    def read(self) -> str:
        """The verified, decoded text (UTF-8 only; no BOM, no NUL)."""
        try:
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
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KbError(f"{manifest}: cannot read: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise KbError(f"{manifest}: not valid TOML: {exc}") from None
    entries = data.get("source")
    if not isinstance(entries, list) or not entries:
        raise KbError(f"{manifest}: no [[source]] entries")
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
        path = folder / entry["file"]
        if not path.is_file():
            raise KbError(f"{path}: listed in the manifest but missing")
        sources.append(Source(path=path, **{k: entry[k] for k in FIELDS}))
    return sources
