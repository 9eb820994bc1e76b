"""Load benchmark of `kb serve`'s /api/search on loopback: throughput, p50/p95 latency, errors.

    .venv/bin/python bench/load_bench.py [--clients 16] [--duration 10] [--mode both|cached|uncached]
        [--json]
    .venv/bin/python bench/load_bench.py --mode overload [--rate N] [--duration 10]
    .venv/bin/python bench/load_bench.py --mode retry-storm [--clients 256] [--duration 10]
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

Mode "retry-storm" measures capacity with 16 well-behaved clients (closed loop, 2 s before the
storm and 2 s after it, so that a change in the machine's load between them is averaged), and runs
--clients connections (e.g. 256) that send their request again the moment a 503 comes back
(Retry-After ignored), for --duration seconds, from 3 load-generator processes of raw asyncio
protocols on uvloop (cheap per request, so that the generator is not what limits the figures;
it shares the machine's cores with the server). Bounded by time and MAX_REQUESTS, loopback
only. It prints the capacity, the admitted (200) throughput under the storm and its p50/p99,
and the 503s' p50/p99. Target: admitted >= 60% of capacity, admitted p99 < 500 ms, 503 p50 < 10 ms.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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


def start_server(cache_size: int | None, workers: int = 1, extra: Sequence[str] = ()
                 ) -> tuple[subprocess.Popen[str], str, int]:
    """`kb serve` on 127.0.0.1 and a free port (and ``extra`` options); returns (process, host, port)."""
    code = "import sys; from kb.app.cli import main; sys.exit(main(sys.argv[1:]))"
    cmd = [sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", "0"]
    if cache_size is not None:
        cmd += ["--cache-size", str(cache_size)]
    if workers != 1:
        cmd += ["--workers", str(workers)]
    cmd += list(extra)
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
            if status != [b"200"] or not body.startswith(b'{"results": '):
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


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of each thread of a process (Linux /proc): "main" (the event loop), the others by
    id, and of each of its child processes (the search processes)."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = "main" if task.name == str(pid) else f"thread {task.name}"
        out[name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        try:
            children = (task / "children").read_text().split()
        except OSError:
            children = []
        for child in children:   # the search processes
            try:
                out[f"process {child}"] = cpu_seconds(int(child))
            except OSError:
                pass
    return out


def bench(mode: str, clients: int, duration: float, workers: int = 1) -> dict[str, object]:
    paths = load_paths()
    proc, host, port = start_server(0 if mode == "uncached" else None, workers)
    try:
        cpu0 = sum(thread_cpu(proc.pid).values())   # the server's threads and its search processes
        latencies, errors, elapsed = asyncio.run(_run(host, port, paths, clients, duration))
        cpu = sum(thread_cpu(proc.pid).values()) - cpu0
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


# --- retry storm: N clients that retry at once on a 503 -------------------------------------

STORM_CAPACITY_S = 4.0      # seconds the 16 well-behaved clients measure capacity for (half before the storm, half after)
STORM_PROCESSES = 3         # load-generator processes (each an event loop of raw asyncio protocols)
STORM_SHARE_TARGET = 0.6    # admitted throughput under the storm / capacity
STORM_P99_TARGET_MS = 500.0
STORM_503_P50_TARGET_MS = 10.0


class _RawClient(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection sending GETs in a closed loop, parsed by hand (cheap).

    ``storm``: a 503 is sent again at once on the same connection (no Retry-After honoured);
    otherwise a client waits for an answer and sends the next path. A connection the server
    closes is opened again at once. Records (status, ms) of every answer until the deadline.
    """

    def __init__(self, host: str, port: int, paths: list[bytes], start: int, deadline: float,
                 out: dict[int, list[float]], budget: list[int], storm: bool, done: asyncio.Future[None]):
        self.host, self.port, self.paths, self.i = host, port, paths, start
        self.deadline, self.out, self.budget, self.storm, self.done = deadline, out, budget, storm, done
        self.buf = b""
        self.t0 = 0.0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.buf = b""
        self._send()

    def _send(self) -> None:
        now = time.perf_counter()
        if now >= self.deadline or self.budget[0] <= 0:
            self._finish()
            return
        self.budget[0] -= 1
        self.t0 = now
        assert self.transport is not None
        self.transport.write(self.paths[self.i % len(self.paths)])

    def data_received(self, data: bytes) -> None:
        buf = self.buf + data if self.buf else data
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                break
            at = buf.find(b"\r\ncontent-length: ", 0, end)   # uvicorn and Starlette write it so
            if at >= 0:
                length = int(buf[at + 18:buf.find(b"\r\n", at + 18, end + 2)])
            else:
                m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", buf[:end])
                length = int(m.group(1)) if m else 0
            total = end + 4 + length
            if len(buf) < total:
                break
            head, buf = buf[:end], buf[total:]
            status = int(head[9:12])
            self.out.setdefault(status, []).append((time.perf_counter() - self.t0) * 1000)
            if status != 503 or not self.storm:
                self.i += 1
            if b"connection: close" in head.lower():
                assert self.transport is not None
                self.buf = b""
                self.transport.close()   # connection_lost opens a new one
                return
            self._send()
        self.buf = buf

    def connection_lost(self, exc: Exception | None) -> None:
        if self.done.done():
            return
        if time.perf_counter() >= self.deadline:
            self._finish()
            return
        loop = asyncio.get_running_loop()
        task = loop.create_task(loop.create_connection(lambda: self, self.host, self.port))
        task.add_done_callback(lambda t: t.exception() and self._finish())

    def _finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


async def _raw_clients(host: str, port: int, paths: list[str], clients: int, duration: float,
                       storm: bool, offset: int) -> tuple[dict[int, list[float]], float]:
    """``clients`` raw connections for ``duration`` seconds: {status: [ms, ...]}, seconds taken."""
    loop = asyncio.get_running_loop()
    wire = [f"GET {p} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode("ascii") for p in paths]
    out: dict[int, list[float]] = {}
    budget = [MAX_REQUESTS]
    t0 = time.perf_counter()
    deadline = t0 + duration
    dones = []
    for k in range(clients):
        done: asyncio.Future[None] = loop.create_future()
        client = _RawClient(host, port, wire, offset + k * len(wire) // max(clients, 1), deadline, out, budget,
                            storm, done)
        await loop.create_connection(lambda c=client: c, host, port)  # type: ignore[misc]
        dones.append(done)
    await asyncio.wait_for(asyncio.gather(*dones), duration + 30)
    return out, time.perf_counter() - t0


def _storm_process(host: str, port: int, clients: int, duration: float, offset: int, queue: Any, go: Any) -> None:
    """One load-generator process of the storm (uvloop when installed: the generator must not be the limit);
    it says it is ready, and starts when every one is."""
    try:
        import uvloop
        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    import resource

    paths = load_paths()
    queue.put("ready")
    go.wait(60)
    before = resource.getrusage(resource.RUSAGE_SELF)
    out, took = runner(_raw_clients(host, port, paths, clients, duration, True, offset))
    after = resource.getrusage(resource.RUSAGE_SELF)
    queue.put((out, took, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy (every core; Linux /proc/stat: all but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def retry_storm(clients: int, duration: float, processes: int = STORM_PROCESSES,
                server_options: Sequence[str] = ()) -> dict[str, object]:
    """Capacity by 16 well-behaved clients, then ``clients`` that retry at once on a 503, same server (cache off)."""
    import multiprocessing

    proc, host, port = start_server(0, extra=server_options)
    try:
        paths = load_paths()
        try:
            import uvloop
            runner: Any = uvloop.run
        except ImportError:
            runner = asyncio.run
        threads0 = thread_cpu(proc.pid)
        calm, calm_s = runner(_raw_clients(host, port, paths, 16, STORM_CAPACITY_S / 2, False, 0))
        threads_calm = thread_cpu(proc.pid)
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        go = ctx.Event()
        share = [clients // processes + (1 if k < clients % processes else 0) for k in range(processes)]
        workers = [ctx.Process(target=_storm_process, args=(host, port, n, duration, 7919 * k, queue, go))
                   for k, n in enumerate(share) if n]
        for w in workers:
            w.start()
        for _ in workers:
            assert queue.get(timeout=120) == "ready"
        threads1 = thread_cpu(proc.pid)
        machine0, wall0 = machine_busy(), time.perf_counter()
        go.set()
        results = [queue.get(timeout=duration + 120) for _ in workers]
        machine, wall = machine_busy() - machine0, time.perf_counter() - wall0
        threads2 = thread_cpu(proc.pid)
        after, after_s = runner(_raw_clients(host, port, paths, 16, STORM_CAPACITY_S / 2, False, 1))
        for w in workers:
            w.join(timeout=30)
    finally:
        stop_server(proc)
    storm: dict[int, list[float]] = {}
    for out, _, _ in results:
        for status, ms in out.items():
            storm.setdefault(status, []).extend(ms)
    took = max(t for _, t, _ in results)
    generator_cpu = sum(c for _, _, c in results)
    server_cpu = sum(v - threads1.get(k, 0) for k, v in threads2.items())   # the event loop and the search processes
    answered = sum(len(v) for v in storm.values())
    for status, ms in after.items():
        calm.setdefault(status, []).extend(ms)
    capacity = len(calm.get(200, [])) / (calm_s + after_s)   # half before the storm, half after
    ok, busy = storm.get(200, []), storm.get(503, [])
    admitted = len(ok) / took
    r: dict[str, object] = {
        "mode": "retry-storm", "clients": clients, "processes": len(workers), "seconds": round(took, 1),
        "capacity_rps": round(capacity, 1), "capacity_other_status": sum(len(v) for s, v in calm.items() if s != 200),
        "admitted_rps": round(admitted, 1), "admitted_share": round(admitted / capacity, 2) if capacity else None,
        "admitted_p50_ms": round(statistics.median(ok), 1) if ok else None,
        "admitted_p99_ms": round(percentile(ok, 0.99), 1) if ok else None,
        "answers_503": len(busy), "rate_503": round(len(busy) / took, 1),
        "p50_503_ms": round(statistics.median(busy), 2) if busy else None,
        "p99_503_ms": round(percentile(busy, 0.99), 2) if busy else None,
        "other_status": {s: len(v) for s, v in sorted(storm.items()) if s not in (200, 503)},
        "server_cpu_share": round(server_cpu / took, 2), "load_average": os.getloadavg()[0],
        "generator_cpu_share": round(generator_cpu / took, 2),
        "generator_us_per_answer": round(1e6 * generator_cpu / answered, 1) if answered else None,
        # the machine's busy cores besides the server and the generator (other programs; the kernel's own work)
        "other_cpu_share": round(max(0.0, machine - server_cpu - generator_cpu) / wall, 2),
        "thread_cpu_calm": {k: round((v - threads0.get(k, 0)) / calm_s, 2) for k, v in threads_calm.items()
                            if v - threads0.get(k, 0) > 0.05 * calm_s},
        "thread_cpu_storm": {k: round((v - threads1.get(k, 0)) / took, 2) for k, v in threads2.items()
                             if v - threads1.get(k, 0) > 0.05 * took},
    }
    r["target_met"] = (bool(ok) and admitted >= STORM_SHARE_TARGET * capacity
                       and percentile(ok, 0.99) < STORM_P99_TARGET_MS
                       and bool(busy) and statistics.median(busy) < STORM_503_P50_TARGET_MS)
    return r


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--duration", type=float, default=10.0, help="seconds per mode (at most 60)")
    p.add_argument("--mode", choices=("both", "cached", "uncached", "overload", "interference", "retry-storm"), default="both")
    p.add_argument("--heavy", type=int, default=4, help="interference: clients sending costly queries (default 4)")
    p.add_argument("--phrases", type=int, default=40, help="interference: quoted phrases per costly query (default 40)")
    p.add_argument("--rate", type=float, default=None, help="overload: requests offered per second (default 2x capacity)")
    p.add_argument("--workers", type=int, default=1, help="kb serve --workers (default 1)")
    p.add_argument("--processes", type=int, default=STORM_PROCESSES,
                   help=f"retry-storm: load-generator processes (default {STORM_PROCESSES})")
    p.add_argument("--max-searches", type=int, default=None, help="retry-storm: kb serve --max-searches (default: its own)")
    p.add_argument("--json", action="store_true", help="print one JSON object per mode")
    args = p.parse_args(argv)
    if not 0 < args.duration <= 60 or (args.mode != "retry-storm" and not 1 <= args.clients <= 256):
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
    if args.mode == "retry-storm":
        if not 1 <= args.clients <= 1024:
            p.error("--clients must be 1-1024")
        if not 1 <= args.processes <= 16:
            p.error("--processes must be 1-16")
        r = retry_storm(args.clients, args.duration, args.processes,
                        [] if args.max_searches is None else ["--max-searches", str(args.max_searches)])
        if args.json:
            print(json.dumps(r, ensure_ascii=False))
        else:
            print(f"retry storm: capacity {r['capacity_rps']} req/s (16 well-behaved clients, {STORM_CAPACITY_S:g} s); "
                  f"{r['clients']} clients retrying at once on 503 ({r['processes']} processes) for {r['seconds']} s: "
                  f"admitted {r['admitted_rps']} req/s = {r['admitted_share']:.0%} of capacity "
                  f"(target >= {STORM_SHARE_TARGET:.0%}), p50 {r['admitted_p50_ms']} ms p99 {r['admitted_p99_ms']} ms "
                  f"(target < {STORM_P99_TARGET_MS:g}); {r['answers_503']} 503s ({r['rate_503']}/s), "
                  f"p50 {r['p50_503_ms']} ms (target < {STORM_503_P50_TARGET_MS:g}) p99 {r['p99_503_ms']} ms; "
                  f"other statuses {r['other_status']}; server CPU {r['server_cpu_share']} cores (threads: calm "
                  f"{r['thread_cpu_calm']}, storm {r['thread_cpu_storm']}), generator CPU "
                  f"{r['generator_cpu_share']} cores ({r['generator_us_per_answer']} us per answer), the rest of the "
                  f"machine {r['other_cpu_share']} cores, load average {r['load_average']:.1f}; "
                  f"target {'met' if r['target_met'] else 'missed'}")
        return 0 if r["target_met"] else 1
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
