"""The search processes of ``kb serve``: the engine runs in processes of its own.

A search is CPU work in Python. Run on a thread of the server, it shares the interpreter lock
with the event loop that accepts, parses and refuses requests, so that a storm of refused
requests takes the lock from the admitted searches (and an admitted search delays every
refusal). Here each search process holds its own engine and interpreter: the server's event
loop only writes the search's arguments to a pipe and reads the answer back, and the
operating system shares the cores between the two.

The protocol, over two pipes per process: the server writes one JSON line per search,
``[q, work, limit, script, laws, lead]`` (already validated); the process answers each in
order with a 5-byte header (kind, then the length, big-endian) and the bytes: kind 0 the
answer's JSON, 1 a message for a 400 (the engine's KbError), 2 a failure (logged by the
process on its stderr, which is the server's). Before its first answer it writes one byte,
``R``, once its engine is open.

    python -m kb.app.searcher GENERATION_DIR REQUEST_FD ANSWER_FD     (started by SearchProcesses)

A process ends when its request pipe closes (the server stopped or died). One that dies while
serving fails its pending searches (``Unavailable``: the server answers 503) and is started
again.
"""
from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import struct
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any, BinaryIO

from kb.core.errors import KbError

HEADER = struct.Struct(">BI")
ANSWER, BAD_REQUEST, FAILED = 0, 1, 2
READY = b"R"
PIPE_BUDGET = 32 * 1024  # bytes of requests written and not yet answered, per process (a pipe holds 64 KiB)
START_TIMEOUT = 300.0
RESTART_DELAY = (1.0, 30.0)  # the first wait before starting a dead process again, and the longest

Key = tuple[Any, ...]  # (q, work, limit, script, laws, lead)


class Refused(Exception):
    """The engine refused the search's arguments (a 400); the message is the engine's."""


class Unavailable(Exception):
    """No search process could answer (it died, or is starting again): the server answers 503."""


# --- in the search process ---------------------------------------------------------------------


class Searcher:
    """The engine and each record's URL: answers one search as the bytes /api/search sends."""

    def __init__(self, out: Path):
        from kb.core.records import read_jsonl
        from kb.search.engine import SearchEngine
        from kb.site.layout import Layout

        records = list(read_jsonl(out / "records.jsonl"))
        self.urls = {rid: record_url(p.page, p.anchor) for rid, p in Layout(records).place.items()}
        self.engine = SearchEngine.open(out / "records.jsonl", out / "index")
        self.engine.search("藏牌 明手", limit=1)  # load the dictionaries before the first request

    def body(self, key: Key) -> bytes:
        """The JSON answer for validated (q, work, limit, script, laws, lead); KbError for a refused one."""
        q, work, limit, script, laws, lead = key
        answer = self.engine.answer(q, limit=limit, work=work, script=script,
                                    law_range=None if laws is None else (laws[0], laws[1]), lead=lead)
        for r in answer["results"]:
            r["url"] = self.urls.get(r["id"])
            for twin in r.get("twins", []):
                twin["url"] = self.urls.get(twin["id"])
        return json.dumps(answer, ensure_ascii=False).encode("utf-8")


def record_url(page: str, anchor: str) -> str:
    """Edition-relative URL of a record: cbr1999/law-45.md + 45C4b -> cbr1999/law-45/#45C4b."""
    if page == "index.md" or page.endswith("/index.md"):
        path = page[: -len("index.md")]
    else:
        path = page[: -len(".md")] + "/"
    return f"{path}#{anchor}"


def serve_searches(searcher: Searcher, requests: BinaryIO, answers: BinaryIO) -> None:
    """Answer each request line in order until the request pipe closes."""
    log = logging.getLogger("kb.searcher")
    for line in requests:
        try:
            kind, body = ANSWER, searcher.body(tuple(json.loads(line)))
        except KbError as exc:
            kind, body = BAD_REQUEST, " ".join(str(exc).split()).encode("utf-8")
        except Exception:  # a bug: logged here, a 500 there, and the next search goes on
            log.exception("search failed: %s", line[:200].decode("utf-8", "replace").strip())
            kind, body = FAILED, b"internal error"
        answers.write(HEADER.pack(kind, len(body)) + body)
        answers.flush()


def main(argv: list[str]) -> int:
    """A search process: open the engine, say ready, answer until the server closes the pipe."""
    import gc

    out, request_fd, answer_fd = Path(argv[0]), int(argv[1]), int(argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C reaches the whole group: the server ends us
    logging.basicConfig(format="kb search process: %(message)s")
    requests = os.fdopen(request_fd, "rb")
    answers = os.fdopen(answer_fd, "wb")
    searcher = Searcher(out)
    gc.collect()
    gc.freeze()   # the engine out of the collector's passes
    answers.write(READY)
    answers.flush()
    try:
        serve_searches(searcher, requests, answers)
    except BrokenPipeError:   # the server is gone
        pass
    return 0


# --- in the server -------------------------------------------------------------------------------


class SearchProcess:
    """One search process and the searches sent to it, answered in the order they were sent.

    The event loop does everything here, without a thread: ``search`` writes the request to the
    pipe (at most PIPE_BUDGET bytes of requests are unanswered in it, so the write never
    blocks; the rest wait here) and awaits the answer, which the loop reads when the pipe is
    readable, several answers in one read when they have piled up. The loop is the one that
    first searches (another, later, takes over: a test's ``asyncio.run``). When the process
    dies, its searches fail with Unavailable and it is started again (after RESTART_DELAY,
    doubling while it keeps failing).
    """

    def __init__(self, out: Path, name: str = "kb-search"):
        self.out = out
        self.name = name
        self.sent: deque[tuple[asyncio.Future[bytes] | None, int]] = deque()  # written, not yet answered
        self.waiting: deque[tuple[asyncio.Future[bytes], bytes]] = deque()    # not yet written
        self.sent_bytes = 0
        self.up = False          # ready and answering
        self.closing = False
        self.restarts = 0
        self.restarting = False
        self.delay = RESTART_DELAY[0]
        self.loop: asyncio.AbstractEventLoop | None = None
        self.buf = bytearray()
        self.proc: subprocess.Popen[bytes] | None = None
        self.requests_fd = self.answers_fd = -1
        self._start()

    def _start(self) -> None:
        """Start the process (not yet ready: its READY byte comes first)."""
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "kb.app.searcher", str(self.out), str(req_r), str(ans_w)],
                pass_fds=(req_r, ans_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        except BaseException:
            for fd in (req_r, req_w, ans_r, ans_w):
                os.close(fd)
            raise
        os.close(req_r)
        os.close(ans_w)
        os.set_blocking(ans_r, False)
        self.proc, self.requests_fd, self.answers_fd = proc, req_w, ans_r
        self.buf = bytearray()
        if self.loop is not None and not self.loop.is_closed():
            self.loop.add_reader(ans_r, self._readable)

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until the process is ready (before any loop serves); KbError if it could not start."""
        import selectors

        with selectors.DefaultSelector() as sel:
            sel.register(self.answers_fd, selectors.EVENT_READ)
            ready = sel.select(timeout)
        byte = os.read(self.answers_fd, 1) if ready else None
        if byte == READY:
            self.up = True
            return
        status = self._reap(0 if byte == b"" else 5)
        self.close()
        if byte is None:
            raise KbError(f"the search process did not start within {timeout:g} s")
        raise KbError(f"the search process could not open the build {self.out} (exit status {status}; "
                      "its error is above)")

    @property
    def outstanding(self) -> int:
        return len(self.sent) + len(self.waiting)

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the answers on ``loop`` from now on (searches awaited on an earlier loop are dropped)."""
        if self.loop is not None and not self.loop.is_closed() and self.answers_fd >= 0:
            self.loop.remove_reader(self.answers_fd)
        self.sent = deque((None, size) for _, size in self.sent)
        self.waiting.clear()
        self.loop = loop
        if self.answers_fd >= 0:
            loop.add_reader(self.answers_fd, self._readable)

    async def search(self, key: Key) -> bytes:
        """The answer's bytes; Refused, Unavailable or RuntimeError (a failed search)."""
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self._attach(loop)
        if not self.up:
            if self.answers_fd < 0 and not self.restarting and not self.closing:
                self._restart_later()
            raise Unavailable()
        future: asyncio.Future[bytes] = loop.create_future()
        line = json.dumps(list(key), ensure_ascii=False).encode("utf-8") + b"\n"
        if not self.waiting and (not self.sent or self.sent_bytes + len(line) <= PIPE_BUDGET):
            self._write(future, line)
        else:
            self.waiting.append((future, line))
        return await future   # cancelled (the client went away): its answer is read and dropped

    def _write(self, future: asyncio.Future[bytes] | None, line: bytes) -> None:
        """Write one request: it fits in the pipe (PIPE_BUDGET), so the write does not block."""
        try:
            os.write(self.requests_fd, line)
        except OSError:   # the process is gone: its answers' end reports it (EOF)
            if future is not None and not future.done():
                future.set_exception(Unavailable())
            return
        self.sent.append((future, len(line)))
        self.sent_bytes += len(line)

    def _readable(self) -> None:
        try:
            data = os.read(self.answers_fd, 1 << 18)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._ended()
            return
        buf = self.buf
        buf += data
        if not self.up:
            if buf[:1] != READY:
                self._ended()
                return
            del buf[:1]
            self.up = True
            self.delay = RESTART_DELAY[0]
        at = 0
        while len(buf) - at >= HEADER.size:
            kind, length = HEADER.unpack_from(buf, at)
            end = at + HEADER.size + length
            if len(buf) < end:
                break
            body = bytes(buf[at + HEADER.size:end])
            at = end
            if not self.sent:   # an answer nobody asked for: the process is not speaking the protocol
                self._reap(0)
                self._ended()
                return
            future, size = self.sent.popleft()
            self.sent_bytes -= size
            if future is None or future.done():
                continue
            if kind == ANSWER:
                future.set_result(body)
            elif kind == BAD_REQUEST:
                future.set_exception(Refused(body.decode("utf-8", "replace")))
            else:
                future.set_exception(RuntimeError(body.decode("utf-8", "replace")))
        del buf[:at]
        while self.waiting and self.sent_bytes + len(self.waiting[0][1]) <= PIPE_BUDGET:
            self._write(*self.waiting.popleft())

    def _ended(self) -> None:
        """The process closed its answers (it died, or the server is closing): fail what is pending."""
        was_up = self.up
        self.up = False
        pending = [f for f, _ in self.sent] + [f for f, _ in self.waiting]
        self.sent.clear()
        self.waiting.clear()
        self.sent_bytes = 0
        self._close_pipes()
        for future in pending:
            if future is not None and not future.done():
                future.set_exception(Unavailable())
        if self.closing:
            return
        status = self._reap(1)
        logging.getLogger("uvicorn.error").error(
            "%s: the search process ended (exit status %s%s); starting it again in %g s", self.name, status,
            "" if was_up else ", before it was ready", self.delay)
        self._restart_later()

    def _restart_later(self) -> None:
        if self.loop is None or self.loop.is_closed():
            return
        self.restarting = True
        self.loop.call_later(self.delay, self._restart)
        self.delay = min(2 * self.delay, RESTART_DELAY[1])

    def _restart(self) -> None:
        self.restarting = False
        if self.closing:
            return
        try:
            self._start()
        except OSError as exc:
            logging.getLogger("uvicorn.error").error("%s: cannot start the search process (%s); trying again in %g s",
                                                     self.name, exc, self.delay)
            self._restart_later()
            return
        self.restarts += 1

    def _close_pipes(self) -> None:
        if self.answers_fd >= 0:
            if self.loop is not None and not self.loop.is_closed():
                self.loop.remove_reader(self.answers_fd)
            os.close(self.answers_fd)
            self.answers_fd = -1
        if self.requests_fd >= 0:
            os.close(self.requests_fd)
            self.requests_fd = -1

    def _reap(self, timeout: float) -> int | None:
        proc = self.proc
        if proc is None:
            return None
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()

    def close(self) -> None:
        """End the process: both pipes closed, it exits at once (EOF, or EPIPE mid-answer)."""
        self.closing = True
        self.up = False
        self._close_pipes()
        self._reap(10)


class SearchProcesses:
    """``count`` search processes; a search goes to the one with the fewest searches outstanding.

    They start at once and open their engines meanwhile; ``wait_ready`` waits for them."""

    def __init__(self, out: Path, count: int = 1):
        self.procs: list[SearchProcess] = []
        try:
            for k in range(count):
                self.procs.append(SearchProcess(out, name=f"kb-search-{k}"))
        except BaseException:
            self.close()
            raise

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Block until every process is ready; KbError (all of them ended) if one could not start."""
        try:
            for p in self.procs:
                p.wait_ready(timeout)
        except BaseException:
            self.close()
            raise

    async def search(self, key: Key) -> bytes:
        best = self.procs[0]
        if len(self.procs) > 1:
            best = min((p for p in self.procs if p.up), key=lambda p: p.outstanding, default=best)
        return await best.search(key)

    def pids(self) -> list[int]:
        return [p.proc.pid for p in self.procs if p.proc is not None]

    def close(self) -> None:
        for p in self.procs:
            p.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
