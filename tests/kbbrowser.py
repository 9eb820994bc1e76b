"""What the browser tests share: Debian's Chromium and its flags, `kb serve` in a subprocess,
and the built site on a plain static file server (what a static host gives)."""
from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("KB_CHROMIUM") or "/usr/bin/chromium"
# Headless on this kind of machine: no sandbox as root, and no background connections
# (the network is closed; Chromium would otherwise try, and fail, many times at start).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def no_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.path.exists(CHROMIUM):
        return f"no chromium at {CHROMIUM} (scripts/test installs Debian's chromium with apt-get)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is missing ({exc}); run scripts/test"
    return None


@contextlib.contextmanager
def chromium() -> Iterator:
    """A headless Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def kb_serve(build: Path, *args: str) -> Iterator[str]:
    """`kb serve --port 0 ARGS` over ``build`` in a subprocess; yields its base URL (http://127.0.0.1:PORT)."""
    code = "import sys; from kb.app.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONUNBUFFERED="1", KB_BUILD_DIR=str(build))
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", "0", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    found: dict[str, str] = {}

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+)/hans/", line)
            if m and "url" not in found:
                found["url"] = m.group(1)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 300  # a stale build is rebuilt first
    while "url" not in found and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        if "url" not in found:
            pytest.fail("kb serve did not print its URL:\n" + "".join(lines[-30:]))
        yield found["url"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


def new_page(browser: Any, device: dict, **options: Any) -> tuple[Any, Any, list[str]]:
    """A new context and page of ``device``, and the list its page errors are collected in; without
    the site's service worker unless ``service_workers="allow"`` (its download of the whole edition
    in every fresh context is what a test about one page need not pay for)."""
    options.setdefault("service_workers", "block")
    context = browser.new_context(**device, **options)
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, pg, errors


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that drops a request it no longer needs (it navigated on) is not an error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def static_server(site: Path) -> Iterator[str]:
    """``site`` on a plain static file server on 127.0.0.1; yields its base URL."""
    httpd = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
