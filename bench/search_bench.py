"""Search benchmark: graded relevance on the tuning and held-out sets beside a bigram BM25 baseline.

    .venv/bin/python bench/search_bench.py [--records build/records.jsonl]
        [--tuning bench/queries.tsv ...] [--heldout bench/heldout.tsv --heldout bench/heldout2.tsv ...]
        [--repeat 3] [--cold 5] [--verbose] [--no-heldout]

Judgement files: ``query<TAB>kind<TAB>id=grade id=grade ...`` (grade 2: the clause
that answers the question, 1: useful). Ids missing from the records are ignored; a
question none of whose ids exist is skipped (and counted).

Metrics, per kind and overall, for ``kb search`` and for a character-bigram BM25 over
the records' title and text (k1=1.2, b=0.75) computed in the same run:

* MRR@10: reciprocal rank of the first result holding a grade-2 id (grade 1 if none);
* Recall@5: share of the grade-2 clauses (at most 5) found in the first five results;
* nDCG@10: graded gain (2^grade - 1) with log2 discount.

A bridge clause and its twin in the other translation are one result (the engine
attaches the twin), so they are one judged unit too: a result holds its id and its
twins' ids, and judged ids are counted once per clause. The baseline's lists are folded
the same way, so it is not penalised for listing twins apart.

Tuning sets (by default every one, ``tuning_files``): bench/queries.tsv, then every
bench/tuning*.tsv in order; held-out sets (by default every one): every bench/heldout*.tsv in
order. Each set after the first of its kind was written by a fresh writer from the records'
titles and texts alone; its header says how it was written, and CONTRIBUTING.md lists the
sets with their sizes and figures. Only aggregate figures are printed for the held-out sets;
``--verbose`` lists per-query ranks of the tuning sets alone. Latency: in-process p50/p95 over every question of all the
sets after one warm-up pass; fresh process: wall and CPU time of ``kb search QUERY`` in
a new process, median of ``--cold`` runs.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.search.analysis import is_cjk, normalize  # noqa: E402
from kb.search.engine import SearchEngine  # noqa: E402
from kb.search.index import build_index, read_records  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "search_records.jsonl"
K1, B = 1.2, 0.75


@dataclass
class Judged:
    query: str
    kind: str
    grades: dict[str, int]   # record id -> grade


def load_judgements(path: Path) -> list[Judged]:
    """Read ``query<TAB>kind<TAB>id=grade ...`` lines (``#`` comments)."""
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            raise SystemExit(f"{path}:{lineno}: expected query<TAB>kind<TAB>id=grade ...")
        grades = {}
        for item in parts[2].replace(",", " ").split():
            rid, _, g = item.partition("=")
            grades[rid] = int(g or 2)
        out.append(Judged(parts[0].strip(), parts[1].strip(), grades))
    return out


# --- units: a clause and its twin are one -----------------------------------------------

UNITS: dict[str, str] = {}   # record id -> its unit, where it has a twin (set_units)


def set_units(records: list[dict]) -> None:
    """A clause and its twin (the records' ``twin``, kb/ingest/twins.py) are one unit."""
    UNITS.clear()
    for r in records:
        if r.get("twin"):
            UNITS[r["id"]] = min(r["id"], r["twin"])


def unit_of(rid: str) -> str:
    """The judged unit of a record id: the same key for a clause and its twin."""
    return UNITS.get(rid, rid)


def unit_grades(j: Judged, ids: set[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for rid, g in j.grades.items():
        if rid in ids:
            u = unit_of(rid)
            out[u] = max(out.get(u, 0), g)
    return out


def fold(ranked: list[str]) -> list[str]:
    """A list of record ids folded to units (a twin after its clause is dropped)."""
    out: list[str] = []
    for rid in ranked:
        u = unit_of(rid)
        if u not in out:
            out.append(u)
    return out


def metrics(units: list[str], grades: dict[str, int]) -> tuple[float, float, float]:
    """MRR@10, Recall@5 (grade 2), nDCG@10 of one folded result list."""
    top = max(grades.values())
    rr = next((1.0 / (i + 1) for i, u in enumerate(units[:10]) if grades.get(u, 0) >= top), 0.0)
    answers = {u for u, g in grades.items() if g == 2} or {u for u, g in grades.items() if g == top}
    r5 = len(answers & set(units[:5])) / min(len(answers), 5)
    dcg = sum((2 ** grades.get(u, 0) - 1) / math.log2(i + 2) for i, u in enumerate(units[:10]))
    ideal = sorted(grades.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return rr, r5, dcg / idcg if idcg else 0.0


# --- the baseline --------------------------------------------------------------------------

def bigrams(text: str) -> list[str]:
    t = normalize(text)
    return [t[i:i + 2] for i in range(len(t) - 1) if all(is_cjk(c) or c.isalnum() for c in t[i:i + 2])]


class BigramBM25:
    """BM25 over the character bigrams of each record's title and text."""

    def __init__(self, records: list[dict]):
        self.ids = [r["id"] for r in records]
        self.post: defaultdict[str, dict[int, int]] = defaultdict(dict)
        self.dl = []
        for d, r in enumerate(records):
            grams = bigrams((r.get("title_hans") or "") + "\n" + (r.get("text_hans") or ""))
            self.dl.append(len(grams))
            for g, tf in Counter(grams).items():
                self.post[g][d] = tf
        self.n = len(records)
        self.avg = max(1.0, sum(self.dl) / max(1, self.n))

    def search(self, q: str, limit: int = 10) -> list[str]:
        acc: defaultdict[int, float] = defaultdict(float)
        for g in set(bigrams(q)):
            rows = self.post.get(g, {})
            if not rows:
                continue
            idf = math.log(1 + (self.n - len(rows) + 0.5) / (len(rows) + 0.5))
            for d, tf in rows.items():
                acc[d] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.dl[d] / self.avg))
        best = sorted(acc.items(), key=lambda x: (-x[1], x[0]))[:limit * 2]
        return [self.ids[d] for d, _ in best]


# --- running ----------------------------------------------------------------------------------

def evaluate(run: Callable[[str], list[str]], judged: list[Judged], ids: set[str]
             ) -> tuple[dict[str, list[tuple[float, float, float]]], list[int | None]]:
    per_kind: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    ranks: list[int | None] = []
    for j in judged:
        grades = unit_grades(j, ids)
        units = fold(run(j.query))
        m = metrics(units, grades)
        per_kind[j.kind].append(m)
        ranks.append(round(1 / m[0]) if m[0] else None)
    return per_kind, ranks


def table(title: str, ours: dict, base: dict) -> str:
    lines = [title, f"{'kind':18} {'n':>3}  {'MRR@10':>6} {'R@5':>6} {'nDCG@10':>7}   "
                    f"{'base MRR':>8} {'R@5':>6} {'nDCG':>6}"]
    kinds = sorted(ours)
    rows = [(k, ours[k], base[k]) for k in kinds]
    rows.append(("ALL", [m for k in kinds for m in ours[k]], [m for k in kinds for m in base[k]]))
    for k, a, b in rows:
        ma = [statistics.mean(x) for x in zip(*a)]
        mb = [statistics.mean(x) for x in zip(*b)]
        lines.append(f"{k:18} {len(a):3}  {ma[0]:6.3f} {ma[1]:6.3f} {ma[2]:7.3f}   "
                     f"{mb[0]:8.3f} {mb[1]:6.3f} {mb[2]:6.3f}")
    ratio = statistics.mean(m[0] for m in rows[-1][1]) / max(1e-9, statistics.mean(m[0] for m in rows[-1][2]))
    lines.append(f"MRR ratio to baseline: {ratio:.2f}x")
    return "\n".join(lines)


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))]


def cold_start(records: Path, index_dir: Path, runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``kb search`` in a fresh process (index already built)."""
    kb = Path(sys.executable).parent / "kb"
    cmd = [str(kb)] if kb.exists() else [sys.executable, "-m", "kb.app.cli"]
    cmd += ["search", "--records", str(records), "--index", str(index_dir), "明手可以看防家的牌吗"]
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ))
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def question_files(kind: str) -> list[Path]:
    """bench/KIND.tsv, bench/KIND2.tsv, … in their order (kind: "tuning" or "heldout")."""
    found = [(m, p) for p in (ROOT / "bench").glob(f"{kind}*.tsv") if (m := re.fullmatch(rf"{kind}(\d*)", p.stem))]
    return [p for m, p in sorted(found, key=lambda x: int(x[0].group(1) or 1))]


def tuning_files() -> list[Path]:
    """Every tuning set: bench/queries.tsv, then bench/tuning2.tsv, bench/tuning3.tsv, …"""
    return [ROOT / "bench" / "queries.tsv", *question_files("tuning")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--records", type=Path, default=ROOT / "build" / "records.jsonl")
    ap.add_argument("--tuning", type=Path, action="append",
                    help="tuning set (repeatable; default bench/queries.tsv and every bench/tuning*.tsv)")
    ap.add_argument("--heldout", type=Path, action="append",
                    help="held-out set (repeatable; default every bench/heldout*.tsv)")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over the questions")
    ap.add_argument("--cold", type=int, default=5, help="fresh-process runs (0: skip)")
    ap.add_argument("--verbose", "-v", action="store_true", help="per-query ranks (tuning sets only)")
    ap.add_argument("--no-heldout", action="store_true", help="tuning sets only (for development)")
    args = ap.parse_args(argv)

    records_path = args.records
    if not records_path.exists():
        print(f"note: {records_path} not found, using the test fixture {FIXTURE}")
        records_path = FIXTURE
    records = list(read_records(records_path))
    set_units(records)
    ids = {r["id"] for r in records}
    sets = {}
    tuning = args.tuning or tuning_files()
    heldout = args.heldout or question_files("heldout")
    named = [(f"tuning {p.name}", p) for p in tuning] + ([] if args.no_heldout else
                                                           [(f"held-out {p.name}", p) for p in heldout])
    for name, path in named:
        if not path.exists():
            print(f"search_bench: no such question file: {path}", file=sys.stderr)
            return 2
        judged = load_judgements(path)
        kept = [j for j in judged if unit_grades(j, ids)]
        sets[name] = (kept, len(judged) - len(kept))

    with tempfile.TemporaryDirectory() as tmp:
        index_dir = Path(tmp) / "index"
        c0, t0 = time.process_time(), time.perf_counter()
        build_index(records_path, index_dir)
        build = (time.perf_counter() - t0, time.process_time() - c0)
        t0 = time.perf_counter()
        engine = SearchEngine.open(records_path, index_dir)
        open_s = time.perf_counter() - t0

        def ours(q: str) -> list[str]:
            out = []
            for r in engine.answer(q, limit=10)["results"]:   # what a reader is shown (none when withheld)
                out += [r["id"]] + [t["id"] for t in r.get("twins", [])]
            return out

        base = BigramBM25(records)
        every = [j.query for kept, _ in sets.values() for j in kept]
        first = []
        for q in every:  # first run of each query in this process
            t0 = time.perf_counter()
            ours(q)
            first.append((time.perf_counter() - t0) * 1000)
        times, cpu = [], []  # CPU time of this thread too: robust when the machine is shared
        for _ in range(max(1, args.repeat)):
            for q in every:
                t0, c0 = time.perf_counter(), time.thread_time()
                ours(q)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.thread_time() - c0) * 1000)
        results = {}
        for name, (kept, _) in sets.items():
            results[name] = (evaluate(ours, kept, ids), evaluate(base.search, kept, ids))
        cold = cold_start(records_path, index_dir, args.cold) if args.cold else None

    print(f"records: {records_path} ({len(records)} records)")
    print(f"index build: {build[0]:.2f} s wall, {build[1]:.2f} s CPU; engine open {open_s * 1000:.0f} ms")
    for name, ((ours_k, ranks), (base_k, branks)) in results.items():
        kept, skipped = sets[name]
        print()
        print(table(f"{name}: {len(kept)} questions ({skipped} skipped: no judged id in these records)",
                    ours_k, base_k))
        if args.verbose and name.startswith("tuning"):
            print(f"\n{'ours':>4} {'base':>4}  query")
            for j, a, b in zip(kept, ranks, branks):
                print(f"{a or '-':>4} {b or '-':>4}  {j.query}")
    print()
    print(f"latency in-process: p50 {pct(times, 50):.2f} ms, p95 {pct(times, 95):.2f} ms, "
          f"max {max(times):.2f} ms ({len(times)} runs); first run of each query "
          f"p50 {pct(first, 50):.2f} ms, p95 {pct(first, 95):.2f} ms")
    print(f"CPU per query in-process: p50 {pct(cpu, 50):.2f} ms, p95 {pct(cpu, 95):.2f} ms")
    if cold:
        print(f"fresh `kb search` process, first answer: median of {args.cold}: "
              f"{cold[0]:.2f} s wall, {cold[1]:.2f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
