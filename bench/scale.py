"""Scale benchmark: the build and the engine on a corpus N× larger, made of many rule books.

    .venv/bin/python bench/scale.py [--factors 1,3,10] [--json]

For each factor N the corpus holds the real works plus N-1 copies of each, registered as
works of their own in a copy of kb/data/works.toml (cbr1999_x2, laws1997_x2 twinned with each
other, twmj16_x2, …) with their sources copied into a copy of kb/sources and its manifest: more
rule books, not one bloated one. It runs `kb build` in a fresh process and prints, per factor:
CPU seconds of the build (itself and its children) and per stage (from the build's
meta.json), wall time, peak RSS, site and index size, the size of a law page, the cost of
opening the index in a fresh process (wall, CPU, the memory it adds; the first query after it;
the size of the dense table of field lengths it reads), and the in-process query latency p50/p95
over bench/queries.tsv. Then the growth exponent of each
figure between the smallest and the largest factor (log ratio / log factor ratio): 1.0 is
linear.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.core.curated import DATA_DIR  # noqa: E402
from kb.core.works import all_works  # noqa: E402
from kb.ingest.sources import SOURCES_DIR, load_manifest  # noqa: E402

QUERY_PROBE = r"""
import json, resource, statistics, sys, time
from pathlib import Path
from kb.search.engine import SearchEngine
build = Path(sys.argv[1])
queries = [l.split("\t")[0] for l in Path(sys.argv[2]).read_text(encoding="utf-8").splitlines()
           if l.strip() and not l.startswith("#")]
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t, c = time.perf_counter(), time.process_time()
engine = SearchEngine.open(build / "records.jsonl", build / "index")
open_ms, open_cpu_ms = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
open_rss_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024
t = time.perf_counter(); engine.search(queries[0]); first_ms = (time.perf_counter() - t) * 1000
times = []
for rnd in range(3):
    for q in queries:
        t = time.perf_counter(); engine.search(q); times.append((time.perf_counter() - t) * 1000)
times.sort()
print(json.dumps({"query_p50_ms": times[len(times) // 2], "query_p95_ms": times[int(len(times) * 0.95)],
                  "open_ms": open_ms, "open_cpu_ms": open_cpu_ms, "open_rss_mb": open_rss_mb,
                  "first_query_ms": first_ms,
                  "lengths_kb": (build / "index" / "lengths.json").stat().st_size / 1024}))
"""


def make_corpus(root: Path, factor: int) -> dict[str, str]:
    """Sources, manifest and registry for `factor` copies of every work; the environment to use them."""
    sources = root / "sources"
    shutil.copytree(SOURCES_DIR, sources)
    manifest = (sources / "manifest.toml").read_text(encoding="utf-8")
    registry = (DATA_DIR / "works.toml").read_text(encoding="utf-8")
    works = all_works()
    for copy in range(2, factor + 1):
        rename = {w.id: f"{w.id}_x{copy}" for w in works}
        for src in load_manifest(SOURCES_DIR):
            data = src.path.read_bytes()
            name = f"{src.path.stem}_x{copy}.txt"
            (sources / name).write_bytes(data)
            manifest += (f'\n[[source]]\nfile = "{name}"\nsigil = "{src.sigil}"\nwork = "{rename[src.work]}"\n'
                         f'script = "{src.script}"\nformat = "{src.format}"\n'
                         f'sha256 = "{hashlib.sha256(data).hexdigest()}"\n')
        for w in works:
            outline = DATA_DIR / w.outline
            registry += (f'\n[[work]]\nid = "{rename[w.id]}"\nkind = "{w.kind}"\n'
                         f'title_hans = "{w.title_hans}（副本{copy}）"\ntitle_hant = "{w.title_hant}（副本{copy}）"\n'
                         f'law_label = "{w.law_label}"\nwitnesses = {json.dumps(list(w.witnesses))}\n'
                         f'twin = "{rename[w.twin] if w.twin else ""}"\noutline = "{outline}"\n')
    (sources / "manifest.toml").write_text(manifest, encoding="utf-8")
    (root / "works.toml").write_text(registry, encoding="utf-8")
    # the copies are new works, their text not pinned yet (the curated emendations and restorations
    # name the originals): run_factor fingerprints them with `kb accept` before the build it times
    shutil.copy2(DATA_DIR / "fingerprints.tsv", root / "fingerprints.tsv")
    return {"KB_SOURCES_DIR": str(sources), "KB_WORKS": str(root / "works.toml"),
            "KB_BUILD_DIR": str(root / "build"), "KB_FINGERPRINTS": str(root / "fingerprints.tsv")}


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def run_factor(factor: int, keep: Path | None) -> dict:
    root = Path(tempfile.mkdtemp(prefix=f"kb-scale-{factor}-", dir=keep))
    try:
        env = {**os.environ, **make_corpus(root, factor)}
        kb = [sys.executable, "-m", "kb.app.cli"]
        accept = subprocess.run([*kb, "accept"], env=env, capture_output=True, text=True)
        if accept.returncode != 0:
            raise SystemExit(f"scale: kb accept of the {factor}× corpus failed: {accept.stderr.strip()}")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([*kb, "build"], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"scale: the {factor}× build failed: {proc.stderr.strip()}")
        build, site = root / "build", root / "site"
        meta = json.loads((build / "meta.json").read_text(encoding="utf-8"))
        probe = subprocess.run([sys.executable, "-c", QUERY_PROBE, str(build), str(ROOT / "bench" / "queries.tsv")],
                               env=env, capture_output=True, text=True, cwd=ROOT)
        if probe.returncode != 0:
            raise SystemExit(f"scale: the {factor}× query probe failed: {probe.stderr.strip()[-300:]}")
        law_pages = sorted(site.glob("hans/cbr1999/law-45/index.html"))
        row = {
            "factor": factor,
            "records": meta.get("records"),
            "build_cpu_s": round((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), 2),
            "build_wall_s": round(wall, 2),
            "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
            "site_mb": round(du(site) / 2**20, 2),
            "index_mb": round(du(build / "index") / 2**20, 2),
            "law_page_kb": round(law_pages[0].stat().st_size / 1024, 1) if law_pages else None,
            **{k: round(v, 2) for k, v in json.loads(probe.stdout).items()},
        }
        for stage, figures in (meta.get("stages") or {}).items():
            row[f"stage_{stage}_cpu_s"] = round(figures["cpu"], 2)
        return row
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)


def exponents(rows: list[dict]) -> dict[str, float]:
    lo, hi = rows[0], rows[-1]
    ratio = math.log(hi["factor"] / lo["factor"])
    out = {}
    for key, value in hi.items():
        if key == "factor" or not isinstance(value, (int, float)) or not isinstance(lo.get(key), (int, float)):
            continue
        if value > 0 and lo[key] > 0:
            out[key] = round(math.log(value / lo[key]) / ratio, 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--factors", default="1,3,10", help="comma-separated factors, smallest first")
    ap.add_argument("--keep", type=Path, help="keep the corpora and builds under this folder")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    factors = sorted({int(f) for f in re.split(r"[,\s]+", args.factors) if f})
    if not factors or factors[0] < 1:
        ap.error("--factors: whole numbers ≥ 1")
    rows = [run_factor(f, args.keep) for f in factors]
    report = {"rows": rows, "exponents": exponents(rows) if len(rows) > 1 else {}}
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    keys = list(rows[0])
    print("\t".join(keys))
    for row in rows:
        print("\t".join(str(row.get(k, "")) for k in keys))
    if report["exponents"]:
        print(f"growth exponents {factors[0]}×→{factors[-1]}× (1.0 = linear):")
        for k, v in report["exponents"].items():
            print(f"  {k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
