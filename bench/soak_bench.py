"""Soak benchmark of `kb serve`: is the server's memory flat under many distinct queries?

    .venv/bin/python bench/soak_bench.py [--queries 20000] [--warmup 5000] [--clients 8] [--json]

Starts `kb serve --port 0` on 127.0.0.1 (the server as shipped, its answer cache on), sends
--warmup distinct queries, reads the server's RSS (/proc/PID/status VmRSS), then --queries
more distinct queries (never repeated: pieces of the clauses' own text, one, two or three
per query, and a quarter with a made-up Latin word, so the engine meets new words all the
time), reading RSS every 2,000 requests, and stops the server. A bounded loop: exactly
warmup + queries requests. Target: RSS at the end within 30 MB of RSS after the warm-up;
the exit status is 1 if it is missed or any request fails.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_bench import ROOT, read_response, start_server, stop_server  # noqa: E402

TARGET_MB = 30.0
_CJK = re.compile(r"[\u4e00-\u9fff]{2,}")


def distinct_queries(n: int, seed: int = 7) -> list[str]:
    """n distinct queries made of pieces of the clause texts (and some made-up words)."""
    build = ROOT / "build" / "records.jsonl"
    runs: list[str] = []
    for line in build.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        runs += _CJK.findall((rec.get("text_hans") or "") + " " + (rec.get("title_hans") or ""))
    rng = random.Random(seed)

    def piece() -> str:
        run = rng.choice(runs)
        size = rng.randint(2, min(4, len(run)))
        start = rng.randint(0, len(run) - size)
        return run[start: start + size]

    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        words = [piece() for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.25:
            words.append("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(rng.randint(4, 8))))
        q = " ".join(words)
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def rss_mb(pid: int) -> float:
    """Resident memory of the process and its children (the server runs in a child of `kb`)."""
    total = 0.0
    for p in [pid, *_children(pid)]:
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        m = re.search(r"VmRSS:\s+(\d+) kB", status)
        total += int(m.group(1)) / 1024 if m else 0
    return total


def _children(pid: int) -> list[int]:
    try:
        kids = [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return kids + [g for k in kids for g in _children(k)]


async def _send(host: str, port: int, queries: list[str], clients: int, errors: list[str]) -> None:
    """Every query once, over ``clients`` keep-alive connections."""
    it = iter(queries)

    async def client() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            for q in it:
                path = "/api/search?" + urllib.parse.urlencode({"q": q})
                writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode("ascii"))
                status, _body = await read_response(reader, 30)
                if not status.startswith(b"HTTP/1.1 200"):
                    errors.append(f"{q}: {status.decode('latin-1').strip()}")
        finally:
            writer.close()

    await asyncio.gather(*(client() for _ in range(clients)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=20_000)
    p.add_argument("--warmup", type=int, default=5_000)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not 1 <= args.queries <= 200_000 or not 0 <= args.warmup <= 100_000 or not 1 <= args.clients <= 64:
        p.error("--queries 1-200000, --warmup 0-100000, --clients 1-64")
    queries = distinct_queries(args.warmup + args.queries)
    proc, host, port = start_server(None)
    errors: list[str] = []
    samples: list[tuple[int, float]] = []
    started = time.perf_counter()
    try:
        samples.append((0, rss_mb(proc.pid)))
        asyncio.run(_send(host, port, queries[: args.warmup], args.clients, errors))
        samples.append((args.warmup, rss_mb(proc.pid)))
        rest = queries[args.warmup:]
        for i in range(0, len(rest), 2000):
            asyncio.run(_send(host, port, rest[i: i + 2000], args.clients, errors))
            samples.append((args.warmup + min(i + 2000, len(rest)), rss_mb(proc.pid)))
    finally:
        stop_server(proc)
    elapsed = time.perf_counter() - started
    warm, end = samples[1][1], samples[-1][1]
    growth = end - warm
    met = growth <= TARGET_MB and not errors
    result = {"queries": args.queries, "warmup": args.warmup, "seconds": round(elapsed, 1),
              "rss_start_mb": round(samples[0][1], 1), "rss_after_warmup_mb": round(warm, 1),
              "rss_end_mb": round(end, 1), "growth_mb": round(growth, 1), "max_mb": round(max(s for _, s in samples), 1),
              "samples": [(n, round(s, 1)) for n, s in samples], "errors": len(errors), "target_met": met}
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(f"soak: {args.warmup} warm-up + {args.queries} distinct queries in {result['seconds']} s; "
              f"RSS {result['rss_start_mb']} MB at start, {warm:.1f} MB after warm-up, {end:.1f} MB at the end "
              f"(+{growth:.1f} MB, target ≤ {TARGET_MB:g}); errors {len(errors)}; target {'met' if met else 'missed'}")
        print("RSS by requests: " + ", ".join(f"{n}: {s:.0f}" for n, s in result["samples"]))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
