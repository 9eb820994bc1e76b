"""Load benchmark of `kb serve`'s /api/search on loopback: throughput, p50/p95 latency, errors.

    .venv/bin/python bench/load_bench.py [--clients 16] [--duration 10] [--mode both|cached|uncached]
        [--json]
    .venv/bin/python bench/load_bench.py --mode overload [--rate N] [--duration 10]
    .venv/bin/python bench/load_bench.py --mode interference [--heavy 4] [--phrases 40] [--duration 10]

Starts `kb serve --port 0` itself on 127.0.0.1 (a fresh server per mode), runs N keep-alive
HTTP/1.1 clients (asyncio, one process) for a fixed time against a mix of real queries
(bench/queries.tsv: directors' questions, plus words, citations, Traditional text, a work
filter and limits), then stops the server. Mode "cached" is the server as shipped (answers
kept in memory: after the first round every query is a hit); "uncached" runs it with
--cache-size 0 so every request searches the index. Target: zero errors, p95 <= 100 ms;
the exit status is 1 if the server as shipped (the cached mode, when run) misses it.

Mode "overload" measures capacity first (uncached, closed loop, 3 s), then offers twice
that rate (or --rate N per second) open-loop for --duration seconds: each request is sent
at its scheduled time (on an idle keep-alive connection, or a new one when none is idle),
whether or not earlier ones were answered,
against the server with --cache-size 0, so that every request is a search. It prints the
share answered 503 (with Retry-After), how fast those came, and p50/p99 of the admitted
(200) requests. Target: p99 of admitted requests < 1 s, 503s answered quickly, no other
errors.

Mode "interference" measures an unrelated cheap query's latency (藏牌, one client, closed
loop) while --heavy clients send queries of --phrases quoted phrases each (cache off).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "bench" / "queries.tsv"
EXTRA = [
    ("藏牌", {}), ("罰張", {}), ("明手 建议", {}), ("第64条B款", {}), ("45C4(b)", {}),
    ("字一色", {"work": "twmj16"}), ("诈胡", {"work": "twmj16"}), ("莊家", {}),
    ("犯规", {"work": "laws1997", "limit": "20"}), ("越序首引", {"limit": "5"}),
    ('"不判罚"', {}), ("防守人 攻牌", {"script": "hant"}),
]
MAX_REQUESTS = 1_000_000   # a hard bound besides the time limit
P95_TARGET_MS = 100.0


def load_paths() -> list[str]:
    """Request paths: every judged question of queries.tsv and the extra queries."""
    mix: list[tuple[str, dict[str, str]]] = []
    for line in QUERIES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            mix.append((line.split("\t")[0].strip(), {}))
    mix += EXTRA
    paths = ["/api/search?" + urllib.parse.urlencode({"q": q, **params}) for q, params in mix if q]
    random.Random(1).shuffle(paths)
    return paths


def start_server(cache_size: int | None, workers: int = 1) -> tuple[subprocess.Popen[str], str, int]:
    """`kb serve` on 127.0.0.1 and a free port; returns (process, host, port)."""
    code = "import sys; from kb.app.cli import main; sys.exit(main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", "0"]
    if cache_size is not None:
        cmd += ["--cache-size", str(cache_size)]
    if workers != 1:
        cmd += ["--workers", str(workers)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    found: list[tuple[str, int]] = []
    tail: list[str] = []

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            tail.append(line)
            m = re.search(r"http://(127\.0\.0\.1):(\d+)/hans/", line)
            if m and not found:
                found.append((m.group(1), int(m.group(2))))

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 600
    while not found and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not found:
        proc.kill()
        raise SystemExit("kb serve did not start:\n" + "".join(tail[-20:]))
    return proc, found[0][0], found[0][1]


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def read_response(reader: asyncio.StreamReader, timeout: float) -> tuple[bytes, bytes]:
    """One HTTP/1.1 response on a keep-alive connection: (status line, body by Content-Length)."""
    status_line = await asyncio.wait_for(reader.readline(), timeout)
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return status_line, await reader.readexactly(length)


async def _client(host: str, port: int, paths: list[str], start: int, deadline: float,
                  latencies: list[float], errors: list[str], budget: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    i = start
    try:
        while time.perf_counter() < deadline and budget[0] > 0:
            budget[0] -= 1
            path = paths[i % len(paths)]
            i += 1
            t0 = time.perf_counter()
            try:
                writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                             "Accept: application/json\r\n\r\n".encode("ascii"))
                status_line, body = await read_response(reader, 10)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(f"{path}: {type(exc).__name__}")
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
                continue
            latencies.append((time.perf_counter() - t0) * 1000)
            status = status_line.split(b" ", 2)[1:2]
            if status != [b"200"] or not body.startswith(b"["):
                errors.append(f"{path}: {status_line.decode('latin-1').strip()}")
    finally:
        writer.close()


async def _run(host: str, port: int, paths: list[str], clients: int, duration: float
               ) -> tuple[list[float], list[str], float]:
    latencies: list[float] = []
    errors: list[str] = []
    budget = [MAX_REQUESTS]
    t0 = time.perf_counter()
    deadline = t0 + duration
    await asyncio.gather(*(_client(host, port, paths, k * len(paths) // clients, deadline,
                                   latencies, errors, budget) for k in range(clients)))
    return latencies, errors, time.perf_counter() - t0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))] if ordered else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), children included once they are waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def bench(mode: str, clients: int, duration: float, workers: int = 1) -> dict[str, object]:
    paths = load_paths()
    proc, host, port = start_server(0 if mode == "uncached" else None, workers)
    try:
        cpu0 = cpu_seconds(proc.pid)
        latencies, errors, elapsed = asyncio.run(_run(host, port, paths, clients, duration))
        cpu = cpu_seconds(proc.pid) - cpu0
    finally:
        stop_server(proc)
    n = len(latencies)
    return {
        "mode": mode, "workers": workers, "clients": clients, "duration_s": round(elapsed, 2), "queries": len(paths),
        "requests": n, "throughput_rps": round(n / elapsed, 1),
        "p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "p95_ms": round(percentile(latencies, 0.95), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "max_ms": round(max(latencies), 2) if latencies else None,
        "errors": len(errors), "first_errors": errors[:5],
        "server_cpu_ms_per_request": round(1000 * cpu / n, 2) if n else None,
    }


OVERLOAD_P99_TARGET_MS = 1000.0


class _Pool:
    """Keep-alive connections for the open-loop mode: an idle one is reused, else a new one opened."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(self, path: str) -> tuple[int, bytes]:
        """One request; like a browser, it is sent again on a new connection if a reused one was closed."""
        if self.idle:
            try:
                return await self._request(path, self.idle.pop())
            except (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError):
                pass  # the server closed it while idle (keep-alive timeout)
        conn = await asyncio.wait_for(asyncio.open_connection(self.host, self.port), 10)
        return await self._request(path, conn)

    async def _request(self, path: str, conn: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> tuple[int, bytes]:
        reader, writer = conn
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode("ascii"))
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            await reader.readexactly(int(m.group(1)) if m else 0)
        except BaseException:
            writer.close()
            raise
        if re.search(rb"(?i)\r\nconnection: *close", head):
            writer.close()
        else:
            self.idle.append(conn)
        return int(head.split(b" ", 2)[1]), head


async def _one_shot(pool: _Pool, path: str, out: list[tuple[int, float]], errors: list[str]) -> None:
    t0 = time.perf_counter()
    try:
        status, head = await pool.request(path)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
        errors.append(type(exc).__name__)
        return
    if status == 503 and b"\r\nretry-after: 1\r\n" not in head.lower():
        status = 5030  # uvicorn's connection limit (limit_concurrency): a plain 503
    out.append((status, (time.perf_counter() - t0) * 1000))


async def _open_loop(host: str, port: int, paths: list[str], rate: float, duration: float
                     ) -> tuple[list[tuple[int, float]], list[str], float]:
    out: list[tuple[int, float]] = []
    errors: list[str] = []
    total = min(int(rate * duration), MAX_REQUESTS, len(paths))
    pool = _Pool(host, port)
    t0 = time.perf_counter()
    tasks = []
    for i in range(total):
        delay = t0 + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(_one_shot(pool, paths[i], out, errors)))
    await asyncio.gather(*tasks)
    return out, errors, time.perf_counter() - t0


def overload(duration: float, rate: float | None) -> dict[str, object]:
    """Capacity (uncached, closed loop), then 2x that offered open-loop; every request a search."""
    proc, host, port = start_server(0)
    try:
        paths = load_paths()
        lat, _errs, elapsed = asyncio.run(_run(host, port, paths, 16, 3.0))
        capacity = len(lat) / elapsed
        offered = rate or 2 * capacity
        many = paths * (int(offered * duration) // len(paths) + 1)
        out, errors, took = asyncio.run(_open_loop(host, port, many, offered, duration))
    finally:
        stop_server(proc)
    ok = [ms for st, ms in out if st == 200]
    busy = [ms for st, ms in out if st in (503, 5030)]
    plain = sum(1 for st, _ in out if st == 5030)
    other = [st for st, _ in out if st not in (200, 503, 5030)]
    n = len(out) + len(errors)
    return {
        "mode": "overload", "capacity_rps": round(capacity, 1), "offered_rps": round(offered, 1),
        "requests": n, "seconds": round(took, 1), "admitted": len(ok), "share_503": round(len(busy) / n, 3) if n else None,
        "admitted_p50_ms": round(statistics.median(ok), 1) if ok else None,
        "admitted_p99_ms": round(percentile(ok, 0.99), 1) if ok else None,
        "p99_503_ms": round(percentile(busy, 0.99), 1) if busy else None, "plain_503": plain,
        "other_status": len(other), "errors": len(errors), "first_errors": errors[:5],
        "target_met": bool(ok) and percentile(ok, 0.99) < OVERLOAD_P99_TARGET_MS and not other and not errors,
    }


HEAVY_WORDS = "藏牌 明手 罚张 定约人 防守人 庄家 犯规 首引 叫牌 牌墩".split()


async def _loop_path(host: str, port: int, make_path, deadline: float, out: list[tuple[int, float]]) -> None:
    pool = _Pool(host, port)
    i = 0
    while time.perf_counter() < deadline and len(out) < MAX_REQUESTS:
        t0 = time.perf_counter()
        try:
            status, _ = await pool.request(make_path(i))
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
            status = 0
        out.append((status, (time.perf_counter() - t0) * 1000))
        i += 1


def interference(heavy_clients: int, phrases: int, duration: float) -> dict[str, object]:
    """A cheap query's latency while ``heavy_clients`` send queries of ``phrases`` quoted phrases each."""
    proc, host, port = start_server(0)

    pairs = [f"{a} {b}" for a in HEAVY_WORDS for b in HEAVY_WORDS if a != b]  # 90 distinct two-word phrases

    def heavy(i: int) -> str:
        q = " ".join(f'"{pairs[(i * 7 + k) % len(pairs)]}"' for k in range(phrases))
        return "/api/search?" + urllib.parse.urlencode({"q": q, "limit": str(1 + i % 50)})

    def light(i: int) -> str:
        return "/api/search?" + urllib.parse.urlencode({"q": "藏牌"})

    async def run() -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        deadline = time.perf_counter() + duration
        light_out: list[tuple[int, float]] = []
        heavy_out: list[tuple[int, float]] = []
        await asyncio.gather(_loop_path(host, port, light, deadline, light_out),
                             *(_loop_path(host, port, heavy, deadline, heavy_out) for _ in range(heavy_clients)))
        return light_out, heavy_out

    try:
        light_out, heavy_out = asyncio.run(run())
    finally:
        stop_server(proc)
    ok = [ms for st, ms in light_out if st == 200]
    return {"mode": "interference", "heavy_clients": heavy_clients, "phrases": phrases,
            "light_requests": len(light_out), "light_ok": len(ok),
            "light_p50_ms": round(statistics.median(ok), 1) if ok else None,
            "light_p95_ms": round(percentile(ok, 0.95), 1) if ok else None,
            "heavy_statuses": dict(sorted(Counter(st for st, _ in heavy_out).items()))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--duration", type=float, default=10.0, help="seconds per mode (at most 60)")
    p.add_argument("--mode", choices=("both", "cached", "uncached", "overload", "interference"), default="both")
    p.add_argument("--heavy", type=int, default=4, help="interference: clients sending costly queries (default 4)")
    p.add_argument("--phrases", type=int, default=40, help="interference: quoted phrases per costly query (default 40)")
    p.add_argument("--rate", type=float, default=None, help="overload: requests offered per second (default 2x capacity)")
    p.add_argument("--workers", type=int, default=1, help="kb serve --workers (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object per mode")
    args = p.parse_args(argv)
    if not 1 <= args.clients <= 256 or not 0 < args.duration <= 60:
        p.error("--clients must be 1-256 and --duration 0-60 s")
    if args.mode == "interference":
        if not 1 <= args.heavy <= 64 or not 1 <= args.phrases <= 100:
            p.error("--heavy must be 1-64 and --phrases 1-100")
        r = interference(args.heavy, args.phrases, args.duration)
        print(json.dumps(r, ensure_ascii=False) if args.json else
              f"interference: {args.heavy} clients sending {args.phrases}-phrase queries; the cheap query 藏牌: "
              f"{r['light_ok']}/{r['light_requests']} answered, p50 {r['light_p50_ms']} ms, p95 {r['light_p95_ms']} ms; "
              f"costly queries answered {r['heavy_statuses']}")
        return 0
    if args.mode == "overload":
        if args.rate is not None and not 1 <= args.rate <= 5000:
            p.error("--rate must be 1-5000")
        r = overload(args.duration, args.rate)
        if args.json:
            print(json.dumps(r, ensure_ascii=False))
        else:
            print(f"overload: capacity {r['capacity_rps']} req/s, offered {r['offered_rps']} req/s for {r['seconds']} s: "
                  f"{r['requests']} requests, 503 {r['share_503']:.1%} (p99 {r['p99_503_ms']} ms; {r['plain_503']} at the connection limit), admitted {r['admitted']} "
                  f"p50 {r['admitted_p50_ms']} ms p99 {r['admitted_p99_ms']} ms (target < {OVERLOAD_P99_TARGET_MS:g}), "
                  f"other statuses {r['other_status']}, errors {r['errors']}; target {'met' if r['target_met'] else 'missed'}"
                  + (f" {r['first_errors']}" if r["errors"] else ""))
        return 0 if r["target_met"] else 1
    ok = True
    for mode in (("cached", "uncached") if args.mode == "both" else (args.mode,)):
        r = bench(mode, args.clients, args.duration, args.workers)
        met = r["errors"] == 0 and r["p95_ms"] <= P95_TARGET_MS  # type: ignore[operator]
        r["target_met"] = met
        if mode == "cached" or args.mode == "uncached":
            ok = ok and met
        if args.json:
            print(json.dumps(r, ensure_ascii=False))
        else:
            print(f"{mode:9} {r['workers']} worker(s), {r['clients']} clients {r['duration_s']} s: {r['requests']} requests, "
                  f"{r['throughput_rps']} req/s, p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, "
                  f"p99 {r['p99_ms']} ms, max {r['max_ms']} ms, server CPU {r['server_cpu_ms_per_request']} ms/request, "
                  f"errors {r['errors']}; "
                  f"target {'met' if met else 'missed'}"
                  + (f" {r['first_errors']}" if r["errors"] else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
