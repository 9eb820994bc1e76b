"""Soak the search engine with distinct random queries: its memory must stay flat (bounded caches).

    .venv/bin/python bench/search_soak.py [--queries 20000] [--warmup 5000]

Prints the process RSS after the warm-up and after the soak; every cache of the engine is
an LRU with a size, so the difference stays small however many distinct words are asked.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kb.search.engine import SearchEngine  # noqa: E402


def rss_mib() -> int:
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) // 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--records", type=Path, default=ROOT / "build" / "records.jsonl")
    ap.add_argument("--index", type=Path, default=ROOT / "build" / "index")
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--warmup", type=int, default=5000)
    args = ap.parse_args(argv)
    engine = SearchEngine.open(args.records, args.index)
    chars = [c for d in engine.docs for c in d["text_hans"] if "\u4e00" <= c <= "\u9fff"]
    rng = random.Random(1)
    for _ in range(args.warmup):
        engine.search("".join(rng.choices(chars, k=6)))
    warm = rss_mib()
    t0 = time.perf_counter()
    for _ in range(args.queries):
        engine.search("".join(rng.choices(chars, k=6)))
    print(f"RSS after {args.warmup} warm-up queries: {warm} MiB; after {args.queries} more distinct "
          f"queries: {rss_mib()} MiB ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
