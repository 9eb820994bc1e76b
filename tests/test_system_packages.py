"""scripts/system-packages with a fake apt-get: it waits (bounded) for another apt-get's lock, says so
on one line, and says on one line what failed (issue #37: exit 100 after 83 s, without a word)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "system-packages"
TOOLS = ("grep", "tail", "head", "mktemp", "rm", "sleep", "cat")     # what the script runs besides apt-get

FAKE_APT = """#!/bin/bash
echo "$*" >> "$FAKE_LOG"
case $FAKE_APT in
  ok) exit 0;;
  locked) echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 123 (apt-get)"; exit 100;;
  *) echo "Reading package lists..."; echo "E: Unable to locate package nodejs"; exit 100;;
esac
"""
# the first $FAKE_BUSY calls find an apt-get running, the others none
FAKE_PGREP = """#!/bin/bash
[ "${!#}" = apt-get ] || exit 1
n=$(cat "$FAKE_COUNT" 2>/dev/null || echo 0)
echo $((n + 1)) > "$FAKE_COUNT"
[ "$n" -lt "$FAKE_BUSY" ] && { echo "123 apt-get"; exit 0; }
exit 1
"""


def run(tmp_path: Path, apt: str, busy: int, timeout: int = 20) -> tuple[subprocess.CompletedProcess, list[str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    for name, text in (("apt-get", FAKE_APT), ("pgrep", FAKE_PGREP), ("id", "#!/bin/bash\necho 0\n")):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "apt.log"
    env = {"PATH": str(bin_dir), "FAKE_APT": apt, "FAKE_BUSY": str(busy), "FAKE_LOG": str(log),
           "FAKE_COUNT": str(tmp_path / "count"), "KB_APT_LOCK_TIMEOUT": str(timeout)}
    proc = subprocess.run([shutil.which("bash") or "/bin/bash", str(SCRIPT)], env=env, capture_output=True,
                          text=True, timeout=60)
    return proc, log.read_text().splitlines() if log.exists() else []


def test_it_waits_for_the_lock_and_says_so(tmp_path):
    proc, calls = run(tmp_path, "ok", busy=2)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "waiting up to 20s for the package lock, held by apt-get (pid 123)" in lines[0]
    assert [c.split()[-1] for c in calls][:1] == ["update"] and "install -y" in calls[1]
    assert all("DPkg::Lock::Timeout=" in c for c in calls)


def test_the_wait_is_bounded(tmp_path):
    proc, calls = run(tmp_path, "locked", busy=1000, timeout=2)
    assert proc.returncode == 100
    lines = proc.stderr.splitlines()
    assert len(lines) == 2 and "waiting up to 2s" in lines[0]
    assert "the package lock was still held after 2s" in lines[1] and "Could not get lock" in lines[1]
    assert "DPkg::Lock::Timeout=0" in calls[0]


def test_a_failure_says_what_failed(tmp_path):
    proc, calls = run(tmp_path, "broken", busy=0)
    assert proc.returncode == 100
    lines = proc.stderr.splitlines()
    assert lines == ["scripts/system-packages: apt-get update failed (exit 100): E: Unable to locate package nodejs"]


def test_the_lock_holder_is_found_by_the_real_pgrep(tmp_path):
    """pgrep matches at most 15 characters of a name: a pattern of all the names at once matched
    nothing (and warned), so the script never waited. A process named dpkg is found."""
    if not shutil.which("pgrep"):
        pytest.fail("pgrep (procps) is missing: the script cannot see who holds the package lock")
    fake = tmp_path / "dpkg"
    fake.symlink_to(shutil.which("sleep"))
    held = subprocess.Popen([str(fake), "30"])
    try:
        holder = re.search(r"^holder\(\) \{.*?^\}", SCRIPT.read_text(), re.S | re.M).group(0)
        out = subprocess.run(["bash", "-c", holder + "\nholder"], capture_output=True, text=True)
    finally:
        held.kill()
    assert out.stderr == "" and out.stdout.split() == [str(held.pid), "dpkg"], out
