"""The site's static search (kb-engine.js in node) against the API's engine (`kb search --json`).

    .venv/bin/python bench/static_search_bench.py [--queries bench/heldout.tsv] [--edition hans]
        [--site site] [--agree]

Both engines answer the same questions in the same run; prints MRR@10 (any graded id counts;
also grade 2 only when the file has grades), Recall@5, and the share of questions whose first
result, and whose first five results in order, are the same. Only aggregate figures are printed (held-out questions are not shown).
Query files: `query<TAB>id<TAB>id...` (bench/queries.tsv) or `query<TAB>kind<TAB>id=grade ...`
(bench/heldout.tsv).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "docs" / "assets" / "kb-engine.js"
RUNNER = Path(__file__).resolve().parent / "static_search_node.js"
LIMIT = 10


def load_judged(path: Path) -> list[tuple[str, dict[str, int]]]:
    """(query, {id: grade}) per line; ids without a grade count as grade 2."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("\t")]
        grades: dict[str, int] = {}
        for cell in parts[1:]:
            for tok in cell.replace(",", " ").split():
                if "=" in tok:
                    rid, _, g = tok.partition("=")
                    grades[rid] = int(g)
                elif ":" in tok:
                    grades[tok] = 2
        if parts[0] and grades:
            out.append((parts[0], grades))
    return out


def run_static(queries: list[str], edition: Path) -> tuple[list[list[str]], float]:
    started = time.perf_counter()
    proc = subprocess.run(["node", str(RUNNER), str(ENGINE), str(edition), str(LIMIT)],
                          input="\n".join(queries) + "\n", capture_output=True, text=True, check=True)
    took = time.perf_counter() - started
    return [[r["id"] for r in json.loads(line)["results"]] for line in proc.stdout.splitlines()], took


def run_api(queries: list[str], build: Path) -> tuple[list[list[str]], float]:
    started = time.perf_counter()
    env = dict(os.environ, KB_BUILD_DIR=str(build))
    proc = subprocess.run([sys.executable, "-m", "kb.app.cli", "search", "--json", "--limit", str(LIMIT), "-"],
                          input="\n".join(queries) + "\n", capture_output=True, text=True, check=True,
                          env=env, cwd=ROOT)
    took = time.perf_counter() - started
    return [[r["id"] for r in json.loads(line)["results"]] for line in proc.stdout.splitlines()], took


def scores(got: list[list[str]], judged: list[tuple[str, dict[str, int]]], min_grade: int) -> tuple[float, float]:
    rr, rec = [], []
    for ids, (_, grades) in zip(got, judged):
        rel = {i for i, g in grades.items() if g >= min_grade}
        if not rel:
            continue
        rank = next((k + 1 for k, rid in enumerate(ids[:LIMIT]) if rid in rel), None)
        rr.append(1.0 / rank if rank else 0.0)
        rec.append(len(set(ids[:5]) & rel) / min(len(rel), 5))
    return statistics.mean(rr), statistics.mean(rec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=Path, default=ROOT / "bench" / "heldout.tsv")
    ap.add_argument("--edition", choices=("hans", "hant"), default="hans")
    ap.add_argument("--build", type=Path, default=Path(os.environ.get("KB_BUILD_DIR") or ROOT / "build"))
    ap.add_argument("--verbose", action="store_true",
                    help="print each question's ranks (only for a tuning file, never the held-out one)")
    args = ap.parse_args(argv)
    site = args.build.resolve().parent / "site"
    judged = load_judged(args.queries)
    queries = [q for q, _ in judged]
    static, t_static = run_static(queries, site / args.edition)
    api, t_api = run_api(queries, args.build)
    graded = any(g == 1 for _, gs in judged for g in gs.values())
    print(f"{args.queries.name}: {len(judged)} questions, edition {args.edition}")
    for name, got, took in (("api (kb search)", api, t_api), ("static (kb-engine.js)", static, t_static)):
        mrr, r5 = scores(got, judged, 1)
        line = f"  {name:22} MRR@10 {mrr:.3f}  Recall@5 {r5:.3f}"
        if graded:
            line += f"  MRR@10 (grade 2) {scores(got, judged, 2)[0]:.3f}"
        print(line + f"  ({took:.2f} s wall, process included)")
    same = sum(1 for a, s in zip(api, static) if a[:1] == s[:1]) / max(1, len(judged))
    same5 = sum(1 for a, s in zip(api, static) if a[:5] == s[:5]) / max(1, len(judged))
    print(f"  same first result: {same:.0%}  same top 5 (in order): {same5:.0%}")
    if args.verbose:
        if args.queries.name.startswith("heldout"):
            raise SystemExit("--verbose is for the tuning file only")
        for (q, grades), a, s in zip(judged, api, static):
            ra = next((k + 1 for k, i in enumerate(a) if i in grades), None)
            rs = next((k + 1 for k, i in enumerate(s) if i in grades), None)
            if ra != rs:
                print(f"    {q}: api {ra} static {rs}  api {a[:3]} static {s[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
