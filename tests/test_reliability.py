"""Reliability of the build: a damaged index, re-pinned damage, hostile manifests and inputs,
file-system faults, one build at a time, debris, generations, incremental builds."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kb.app import build as b
from kb.core.errors import KbError
from kb.ingest.pipeline import ingest

ROOT = Path(__file__).resolve().parent.parent


def run_kb(*args, env_extra=None, stdin=None, timeout=300):
    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "kb.app.cli", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=timeout, cwd=ROOT)


def one_line(proc, *needles):
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def data_build(tmp_path_factory):
    """A build without the site (records, stats, index), made once for the damage tests."""
    out = tmp_path_factory.mktemp("rel") / "build"
    b.build(out, with_site=False)
    return out


@pytest.fixture
def damaged(data_build, tmp_path):
    """A private copy of the data build whose files the test may damage."""
    import shutil
    out = tmp_path / "build"
    shutil.copytree(data_build, out, symlinks=False)
    return out


def segment(out: Path) -> Path:
    return max((out / "index").glob("*.seg"), key=lambda p: p.stat().st_size)


def test_checksums_are_recorded_for_every_file(data_build):
    files = b.meta(data_build)["files"]
    assert {"records.jsonl", "stats.json"} <= set(files)
    assert any(k.startswith("index/") and k.endswith(".seg") for k in files)
    b.verify(data_build)


def test_truncated_segment_is_refused_in_one_line(damaged):
    seg = segment(damaged)
    seg.write_bytes(seg.read_bytes()[: seg.stat().st_size // 2])
    with pytest.raises(KbError, match=rf"{seg.name}: \d+ bytes, the build wrote \d+"):
        b.verify(damaged)
    proc = run_kb("--build-dir", str(damaged), "search", "藏牌")
    one_line(proc, seg.name, "truncated")
    one_line(run_kb("--build-dir", str(damaged), "check"), seg.name)


def test_random_bytes_in_a_segment_are_refused(damaged):
    seg = segment(damaged)
    data = bytearray(seg.read_bytes())
    mid = len(data) // 2
    data[mid: mid + 4096] = os.urandom(4096)
    seg.write_bytes(bytes(data))
    one_line(run_kb("--build-dir", str(damaged), "search", "--json", "明手"), seg.name, "sha256 differs")
    one_line(run_kb("--build-dir", str(damaged), "check"), seg.name, "sha256 differs")


def test_extra_or_missing_index_file_is_refused(damaged):
    (damaged / "index" / "_MAIN_9.toc").write_bytes(b"x")
    with pytest.raises(KbError, match=r"_MAIN_9\.toc: not part of the build"):
        b.verify(damaged)
    (damaged / "index" / "_MAIN_9.toc").unlink()
    (damaged / "records.jsonl").unlink()
    with pytest.raises(KbError, match=r"records\.jsonl: missing from the build"):
        b.verify(damaged)


# --- re-pinned damage: the sha matches, the invariants do not --------------------------


def test_half_the_mahjong_text_cut(source_copy):
    data = source_copy.path("001").read_bytes()
    cut = data[: len(data) // 2]
    cut = cut[: cut.rindex(b"\n") + 1]
    source_copy.write("001", cut)
    with pytest.raises(KbError, match=r"witness 001: expected 113 records, got \d+"):
        _ingest_and_check(source_copy.folder)


def _ingest_and_check(folder):
    """What the build checks after ingest: the witnesses' expectations, then the rules' 台 (kb.rules.check)."""
    from kb.ingest.invariants import check_corpus
    from kb.rules.check import check_records
    corpus = ingest(folder)
    check_corpus(corpus)
    check_records(corpus.records)


def test_a_changed_tai_digit(source_copy):
    text = source_copy.path("001").read_text(encoding="utf-8")
    assert "8. 对对胡 4台" in text
    source_copy.write("001", text.replace("8. 对对胡 4台", "8. 对对胡 3台").encode())
    with pytest.raises(KbError, match=r"twmj16:patterns\.8: the text gives 对对胡 3台, the rules score it 4台"):
        _ingest_and_check(source_copy.folder)


def test_a_bridge_witness_against_its_law_count(source_copy):
    source_copy.edit_manifest(r"expect_laws = 7", "expect_laws = [8, 9]")
    with pytest.raises(KbError, match=r"witness 003: expected 8–9 laws, got 7"):
        _ingest_and_check(source_copy.folder)


def test_the_real_corpus_meets_its_expectations(corpus):
    from kb.ingest.invariants import check_corpus
    check_corpus(corpus)


def test_cli_refuses_re_pinned_damage_and_keeps_the_build(source_copy, data_build):
    text = source_copy.path("001").read_text(encoding="utf-8")
    source_copy.write("001", text.replace("8. 对对胡 4台", "8. 对对胡 3台").encode())
    before = (data_build / "records.jsonl").read_bytes()
    proc = run_kb("--build-dir", str(data_build), "build", "--force",
                  env_extra={"KB_SOURCES_DIR": str(source_copy.folder)})
    one_line(proc, "patterns.8", "3台")
    assert (data_build / "records.jsonl").read_bytes() == before


# --- the manifest: paths confined, sizes bounded, works checked ------------------------


@pytest.mark.parametrize("name", ["../../../../etc/hostname", "/etc/hostname", "sub/../../x.txt"])
def test_manifest_path_escape(source_copy, name):
    source_copy.edit_manifest(r'file = "001_[^"]+"', f'file = "{name}"')
    with pytest.raises(KbError, match=r"must be a name inside the sources folder"):
        ingest(source_copy.folder)


def test_manifest_symlink_out_of_the_folder(source_copy, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(source_copy.path("001").read_bytes())
    link = source_copy.folder / "link.txt"
    link.symlink_to(outside)
    source_copy.edit_manifest(r'file = "001_[^"]+"', 'file = "link.txt"')
    with pytest.raises(KbError, match=r"'link.txt' leads outside the sources folder"):
        ingest(source_copy.folder)


def test_oversized_source(source_copy, monkeypatch):
    import kb.ingest.sources
    monkeypatch.setattr(kb.ingest.sources, "MAX_SOURCE_BYTES", 1000)
    with pytest.raises(KbError, match=r"\d+ bytes, more than the 1000 a source may have"):
        ingest(source_copy.folder)


def test_manifest_naming_the_wrong_work(source_copy):
    source_copy.edit_manifest(r'work = "twmj16"', 'work = "cbr1999"')
    with pytest.raises(KbError, match=r"witness 001 is not one of work 'cbr1999''s witnesses"):
        ingest(source_copy.folder)


def test_bad_expectation(source_copy):
    source_copy.edit_manifest(r"expect_records = 113", 'expect_records = "many"')
    with pytest.raises(KbError, match=r"expect_records must be a count or \[min, max\]"):
        ingest(source_copy.folder)


# --- rules inputs ----------------------------------------------------------------------


@pytest.mark.parametrize("cmd", [["mahjong", "score"], ["bridge", "trick"]])
@pytest.mark.parametrize("payload,needle", [
    ("[" * 100_000 + "]" * 100_000, "嵌套深于 32 层"),
    ('{"x": ' + "9" * 5000 + "}", "数字长于"),
])
def test_hostile_rules_json_is_one_line(cmd, payload, needle, tmp_path):
    one_line(run_kb(*cmd, "-", stdin=payload), "stdin", needle)
    f = tmp_path / "in.json"
    f.write_text(payload)
    one_line(run_kb(*cmd, str(f)), str(f), needle)


def test_rules_stdin_still_reaches_the_command():
    """Input within the limits is handed on: the rules command itself judges it."""
    line = one_line(run_kb("mahjong", "score", "-", stdin='{"hand": []}'))
    assert line.startswith("kb mahjong:") and "嵌套" not in line and "数字长于" not in line


# --- the file system ---------------------------------------------------------------------


def test_read_only_build_folder(data_build, monkeypatch):
    """A folder the build may not write to (simulated at mkdtemp: root, who runs CI, ignores permissions)."""
    import tempfile

    def refuse(*args, dir=None, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(dir))

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    with pytest.raises(KbError, match=rf"{data_build.parent}: cannot write the build \(Permission denied\)"):
        b.build(data_build, with_site=False)
    b.verify(data_build)


def test_full_disk_during_indexing(data_build, tmp_path, monkeypatch):
    import kb.search.index as index

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))  # an empty cache: the index must be built

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(data_build.parent / "x.seg"))

    before = (data_build / "records.jsonl").read_bytes()
    monkeypatch.setattr(index, "build_index", full)
    with pytest.raises(KbError, match=r"x\.seg: cannot write the build \(No space left on device; the previous build is intact\)"):
        b.build(data_build, with_site=False)
    assert (data_build / "records.jsonl").read_bytes() == before
    b.verify(data_build)
    assert not list(data_build.parent.glob(".build.tmp-*"))


# --- one build at a time, debris, generations, incremental ---------------------------


def test_a_second_build_waits_for_the_first(full_build_copy):
    out = full_build_copy
    with b.build_lock(out):
        proc = subprocess.Popen([sys.executable, "-m", "kb.app.cli", "--build-dir", str(out), "build"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        time.sleep(3)
        assert proc.poll() is None  # still waiting for the lock
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "waiting for another build" in stderr


def test_debris_of_killed_builds_is_removed(data_build):
    parent = data_build.parent
    for name in (".build.tmp-dead1", ".build.old-123", ".site.old-123", ".build.gen-stale"):
        (parent / name).mkdir()
        (parent / name / "f").write_text("x")
    b.build(data_build, with_site=False, force=True)
    left = sorted(p.name for p in parent.iterdir() if p.name.startswith("."))
    assert not [n for n in left if n.startswith((".build.tmp-", ".build.old-", ".site.old-"))]
    assert ".build.gen-stale" not in left
    gens = [n for n in left if n.startswith(".build.gen-")]
    assert os.readlink(data_build) in gens and len(gens) <= 2  # the current and the one it replaced


def test_concurrent_builds_take_turns(data_build):
    """Two builds at once (threads: flock locks open files, so they exclude each other too)."""
    import threading
    failures: list[BaseException] = []

    def one() -> None:
        try:
            b.build(data_build, with_site=False, force=True)
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    b.verify(data_build)
    assert not list(data_build.parent.glob(".build.tmp-*"))


def test_refuses_to_replace_a_foreign_directory(tmp_path):
    out = tmp_path / "build"
    out.mkdir()
    (out / "thesis.tex").write_text("x")
    with pytest.raises(KbError, match=r"refusing to replace it: it is not a kb build directory"):
        b.build(out, with_site=False)
    assert (out / "thesis.tex").read_text() == "x" and not out.is_symlink()


def test_a_resolved_build_path_means_the_link(data_build):
    """``build`` resolved is its current generation: readers and builds go back to the link."""
    gen = data_build.resolve()
    assert gen != data_build and b.build_path(gen) == data_build
    assert b.ensure_built(gen) == data_build
    old = gen.with_name(gen.name.replace(".gen-", ".gen-old"))
    old.mkdir()
    with pytest.raises(KbError, match=r"an old build generation, not a build path"):
        b.build(old, with_site=False)


def test_build_and_site_are_one_generation(data_build):
    assert data_build.is_symlink()
    site = b.site_dir(data_build)
    assert site.is_symlink() and os.readlink(site) == "build/site"


def test_killed_between_steps_leaves_a_consistent_build(data_build, monkeypatch):
    """A build killed after writing its generation but before the switch leaves the old one current."""
    current = os.readlink(data_build)

    def killed(out, gen):
        raise KeyboardInterrupt

    monkeypatch.setattr(b, "_make_current", killed)
    with pytest.raises(KeyboardInterrupt):
        b.build(data_build, with_site=False, force=True)
    assert os.readlink(data_build) == current
    b.verify(data_build)


def test_no_change_build_is_quick(full_build_copy):
    """Over a complete build whose inputs did not change, `kb build` is a no-op."""
    before = os.readlink(full_build_copy)
    started = time.perf_counter()
    proc = run_kb("--build-dir", str(full_build_copy), "build")
    took = time.perf_counter() - started
    assert proc.returncode == 0 and proc.stdout.startswith("up to date"), proc.stdout + proc.stderr
    assert os.readlink(full_build_copy) == before
    assert took < 2.0, took  # including the interpreter's start-up


def test_a_data_build_is_not_up_to_date_for_the_site(data_build):
    """A build without the site does not count as fresh for a command that needs the site."""
    assert b.is_fresh(data_build) and not b.is_fresh(data_build, need_site=True)


def test_meta_lists_the_site(session_build):
    m = json.loads((session_build / "meta.json").read_text(encoding="utf-8"))
    assert m["site"] is True and any(k.startswith("site/hans/") for k in m["files"])


def test_search_index_is_reused_only_for_the_same_inputs(data_build, tmp_path, monkeypatch):
    """The data build left its index in the cache: the same records are not indexed again (the
    copy is the same files); one changed record is a miss."""
    import kb.search.index as search_index

    def no_indexing(*args, **kwargs):
        raise AssertionError("indexed again")
    monkeypatch.setattr(search_index, "build_index", no_indexing)
    out = b.build(tmp_path / "build", with_site=False)
    files = sorted(p.name for p in (data_build / "index").iterdir())
    assert sorted(p.name for p in (out / "index").iterdir()) == files
    assert all((out / "index" / n).read_bytes() == (data_build / "index" / n).read_bytes() for n in files)
    work = tmp_path / "changed"
    work.mkdir()
    lines = (data_build / "records.jsonl").read_text(encoding="utf-8").splitlines()
    (work / "records.jsonl").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="indexed again"):
        b._build_index(work, b.cache_dir(data_build) / "index")
