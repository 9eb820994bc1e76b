"""Search benchmark: MRR and Recall@5 against a naive bigram baseline, latency, build time.

    .venv/bin/python bench/search_bench.py [--records build/records.jsonl]
        [--queries bench/queries.tsv] [--repeat 5] [--ablate] [--verbose]

Judgements (bench/queries.tsv) name the clause ids that answer each question; ids
missing from the records are ignored, and a question none of whose ids exist is skipped
(and counted), so the same file works on the small test fixture and on the full records.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.search import query as kbq  # noqa: E402
from kb.search.analysis import normalize  # noqa: E402
from kb.search.index import build_index, read_records  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "search_records.jsonl"


def load_queries(path: Path) -> list[tuple[str, list[str]]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("\t")]
        ids = [i for p in parts[1:] for i in p.replace(",", " ").split()]
        if parts[0] and ids:
            out.append((parts[0], ids))
    return out


def bigrams(text: str) -> set[str]:
    t = normalize(text)
    return {t[i:i + 2] for i in range(len(t) - 1) if not t[i:i + 2].isspace()}


class Baseline:
    """Rank records by the number of distinct character bigrams shared with the query."""

    def __init__(self, records: list[dict]):
        self.rows = [(r["id"], bigrams((r.get("title_hans") or "") + "\n"
                                       + (r.get("text_hans") or ""))) for r in records]

    def search(self, q: str, limit: int = 10) -> list[str]:
        qb = bigrams(q)
        scored = [(len(qb & b), -i, rid) for i, (rid, b) in enumerate(self.rows)]
        scored = [s for s in scored if s[0] > 0]
        scored.sort(reverse=True)
        return [rid for _, _, rid in scored[:limit]]


def evaluate(run: Callable[[str], list[str]], judged: list[tuple[str, list[str]]]
             ) -> tuple[float, float, list[int | None]]:
    rr, rec, ranks = [], [], []
    for q, rel in judged:
        got = run(q)
        rank = next((i + 1 for i, rid in enumerate(got) if rid in rel), None)
        ranks.append(rank)
        rr.append(1.0 / rank if rank else 0.0)
        rec.append(len(set(got[:5]) & set(rel)) / min(len(rel), 5))
    return statistics.mean(rr), statistics.mean(rec), ranks


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=Path, default=ROOT / "build" / "records.jsonl")
    ap.add_argument("--queries", type=Path, default=ROOT / "bench" / "queries.tsv")
    ap.add_argument("--repeat", type=int, default=5, help="timed passes over the queries")
    ap.add_argument("--ablate", action="store_true", help="also score without the gram field")
    ap.add_argument("--verbose", "-v", action="store_true", help="per-query ranks")
    args = ap.parse_args(argv)

    records_path = args.records
    if not records_path.exists():
        print(f"note: {records_path} not found, using the test fixture {FIXTURE}")
        records_path = FIXTURE
    records = list(read_records(records_path))
    ids = {r["id"] for r in records}
    queries = load_queries(args.queries)
    judged = [(q, [i for i in rel if i in ids]) for q, rel in queries]
    skipped = sum(1 for _, rel in judged if not rel)
    judged = [(q, rel) for q, rel in judged if rel]

    with tempfile.TemporaryDirectory() as tmp:
        index_dir = Path(tmp) / "index"
        t0 = time.perf_counter()
        build_index(records_path, index_dir)
        build_cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_index(records_path, index_dir)  # jieba already loaded: the index work alone
        build_warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        engine = kbq.SearchEngine.open(records_path, index_dir)
        open_s = time.perf_counter() - t0

        def ours(q: str) -> list[str]:
            return [r["id"] for r in engine.search(q, limit=10)]

        base = Baseline(records)
        ours("明手")  # load jieba's dictionary and warm OpenCC
        first: list[float] = []
        for q, _ in judged:  # each query's first run in this process
            t0 = time.perf_counter()
            ours(q)
            first.append((time.perf_counter() - t0) * 1000)
        times: list[float] = []
        cpu: list[float] = []  # CPU time of this thread: robust when the machine is busy
        for _ in range(max(1, args.repeat)):
            for q, _ in judged:
                t0, c0 = time.perf_counter(), time.thread_time()
                ours(q)
                times.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.thread_time() - c0) * 1000)
        mrr, r5, ranks = evaluate(ours, judged)
        btimes: list[float] = []

        def timed_base(q: str) -> list[str]:
            t0 = time.perf_counter()
            out = base.search(q)
            btimes.append((time.perf_counter() - t0) * 1000)
            return out

        bmrr, br5, branks = evaluate(timed_base, judged)
        abl = None
        if args.ablate:
            saved = kbq.GRAM_BOOST
            kbq.GRAM_BOOST = 0.0
            try:
                abl = evaluate(ours, judged)
            finally:
                kbq.GRAM_BOOST = saved
        engine.close()

    print(f"records: {records_path} ({len(records)} records)")
    print(f"queries: {len(judged)} judged, {skipped} skipped (no answer id in these records)")
    print(f"index build: {build_cold:.2f} s cold (incl. jieba load), {build_warm:.2f} s warm;"
          f" open {open_s * 1000:.0f} ms")
    print(f"{'':10} {'MRR@10':>7} {'R@5':>6}")
    print(f"{'search':10} {mrr:7.3f} {r5:6.3f}")
    if abl:
        print(f"{'no grams':10} {abl[0]:7.3f} {abl[1]:6.3f}")
    print(f"{'baseline':10} {bmrr:7.3f} {br5:6.3f}")
    print(f"latency search: p50 {pct(times, 50):.1f} ms, p95 {pct(times, 95):.1f} ms,"
          f" max {max(times):.1f} ms ({len(times)} runs);"
          f" first run of each query p50 {pct(first, 50):.1f} ms, p95 {pct(first, 95):.1f} ms")
    print(f"cpu time search: p50 {pct(cpu, 50):.1f} ms, p95 {pct(cpu, 95):.1f} ms")
    print(f"latency baseline: p50 {pct(btimes, 50):.1f} ms, p95 {pct(btimes, 95):.1f} ms")
    if args.verbose:
        print(f"\n{'ours':>4} {'base':>4}  query")
        for (q, _), a, b in zip(judged, ranks, branks):
            print(f"{a or '-':>4} {b or '-':>4}  {q}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
