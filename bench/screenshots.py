"""Screenshots of each page kind, on a phone (390×844) and a desktop, in both editions.

    python bench/screenshots.py [--out DIR] [--dark]

Starts `kb serve` on a free loopback port (building first if needed), opens each page kind in
Chromium (/usr/bin/chromium through Playwright) and writes one PNG per page kind, device and
edition into DIR (default build/screenshots), named like `law-hans-phone.png`.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("KB_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

# page kind -> path under the edition (with the anchor a reader would arrive at)
PAGES = {
    "home": "",
    "law": "cbr1999/law-67/#67B1b",
    "compare": "compare/law-45/",
    "mahjong": "twmj16/",
    "scoring": "twmj16/patterns/",
    "search": "search/?q=明手",
    "subjects": "cbr1999/subjects/#letter-L",
}
DEVICES = {
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}


@contextlib.contextmanager
def kb_serve() -> Iterator[str]:
    """`kb serve --port 0` in a subprocess; yields its base URL."""
    code = "import sys; from kb.app.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--host", "127.0.0.1", "--port", "0"], cwd=ROOT,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    found: dict[str, str] = {}

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            m = re.search(r"(http://127\.0\.0\.1:\d+)/hans/", line)
            if m:
                found.setdefault("url", m.group(1))

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 600
    while "url" not in found and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        if "url" not in found:
            raise SystemExit("kb serve did not start")
        yield found["url"]
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def shoot(base: str, out: Path, dark: bool = False) -> list[Path]:
    from playwright.sync_api import sync_playwright
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        for device, options in DEVICES.items():
            context = browser.new_context(**options, color_scheme="dark" if dark else "light")
            page = context.new_page()
            for edition in ("hans", "hant"):
                for kind, path in PAGES.items():
                    page.goto(f"{base}/{edition}/{path}", wait_until="networkidle")
                    page.wait_for_timeout(300)
                    name = out / f"{kind}-{edition}-{device}{'-dark' if dark else ''}.png"
                    page.screenshot(path=str(name))
                    written.append(name)
            context.close()
        browser.close()
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "screenshots")
    ap.add_argument("--dark", action="store_true", help="the dark palette")
    args = ap.parse_args()
    with kb_serve() as base:
        for path in shoot(base, args.out, args.dark):
            print(path)


if __name__ == "__main__":
    main()
