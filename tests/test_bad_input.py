"""Bad sources: one-line error naming the file, non-zero exit, previous build intact."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kb.core.errors import KbError
from kb.ingest.pipeline import ingest


def run_kb(*args, env_extra=None, cwd=None):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "kb.app.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def assert_one_line_error(proc, *needles):
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_empty_source(source_copy):
    source_copy.write("004", b"")
    with pytest.raises(KbError, match=r"004_.*empty"):
        ingest(source_copy.folder)


def test_truncated_json_envelope(source_copy):
    text = source_copy.path("000").read_text(encoding="utf-8")
    source_copy.write("000", text[: len(text) // 2].encode())
    with pytest.raises(KbError, match=r"000_\w+\.txt:\d+: broken JSON envelope"):
        ingest(source_copy.folder)


@pytest.mark.parametrize("encoding", ["big5", "gb18030"])
def test_legacy_encoding(source_copy, encoding):
    text = source_copy.path("003").read_text(encoding="utf-8")
    if encoding == "big5":
        from kb.ingest.normalise import to_hant
        text = to_hant(text)
    source_copy.write("003", text.encode(encoding, errors="replace"))
    with pytest.raises(KbError, match=r"003_\w+\.txt:\d+: not UTF-8"):
        ingest(source_copy.folder)


def test_sha256_mismatch(source_copy):
    data = source_copy.path("001").read_bytes()
    source_copy.write("001", data + "l 新规则: 多出一行\n".encode(), update_hash=False)
    with pytest.raises(KbError, match=r"001_\w+\.txt: sha256 .* does not match"):
        ingest(source_copy.folder)


def test_unknown_format(source_copy):
    source_copy.edit_manifest(r'format = "bullet-list"', 'format = "word-doc"')
    with pytest.raises(KbError, match=r"001_\w+\.txt.*unknown format 'word-doc'"):
        ingest(source_copy.folder)


def test_truncated_inside_a_character(source_copy):
    data = source_copy.path("003").read_bytes()
    cut = data.index("规则41".encode()) + 1      # one byte into a three-byte character
    source_copy.write("003", data[:cut])
    with pytest.raises(KbError, match=r"003_\w+\.txt:\d+: the file ends inside a character"):
        ingest(source_copy.folder)


def test_missing_manifest_field(source_copy):
    source_copy.edit_manifest(r'sigil = "003"\n', "")
    with pytest.raises(KbError, match=r"manifest.toml: source #4: field 'sigil'"):
        ingest(source_copy.folder)


def test_cli_failure_keeps_previous_build(source_copy, session_build):
    """A failing `kb build` over the session's complete build leaves it as it was."""
    build_dir = session_build
    before = (build_dir / "records.jsonl").read_bytes()
    site_before = sorted(p.name for p in (build_dir / "site").iterdir())
    text = source_copy.path("000").read_text(encoding="utf-8")
    source_copy.write("000", text[:3000].encode())
    bad = run_kb("--build-dir", str(build_dir), "build", env_extra={"KB_SOURCES_DIR": str(source_copy.folder)})
    assert_one_line_error(bad, "000_", "JSON envelope")
    assert (build_dir / "records.jsonl").read_bytes() == before
    assert sorted(p.name for p in (build_dir / "site").iterdir()) == site_before
    assert not [p for p in build_dir.parent.iterdir() if ".tmp-" in p.name]


def test_cli_unknown_record():
    proc = run_kb("show", "cbr1999:99Z")
    assert_one_line_error(proc, "kb show: 错误：没有编号为「cbr1999:99Z」")
