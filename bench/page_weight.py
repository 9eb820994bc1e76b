"""Page weight in Chromium: bytes on the wire and requests per page kind, cold and warm, on a phone.

    .venv/bin/python bench/page_weight.py [--site site] [--edition hans]

Serves the built site from a local server that does what `kb serve` is to do: gzip when the
browser accepts it (measured also without, "raw") and long-lived Cache-Control for
fingerprinted files (name.<hash>.ext), revalidation for the rest. For each page kind prints:
cold view (empty cache, no service worker: what a first visit costs before any search), warm
view (the same page again) and the first search on that page (what loading the engine and the
index chunks a query needs adds). Also the service worker's one-time download of the edition.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import http.server
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
PAGES = {
    "law page": "cbr1999/law-45/",
    "compare page": "compare/law-45/",
    "mahjong page": "twmj16/patterns/",
    "home": "",
    "search page": "search/",
}
FINGERPRINTED = re.compile(r"\.[0-9a-f]{8,}\.(?:min\.)?(?:js|css)$")
COMPRESSIBLE = (".html", ".js", ".css", ".json", ".svg", ".xml", ".txt")


def handler_for(site: Path, compress: bool) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, format: str, *args: object) -> None:
            pass

        def send_head(self):  # type: ignore[no-untyped-def]
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                if not self.path.split("?")[0].endswith("/"):
                    return super().send_head()
                path = path / "index.html"
            if not path.is_file():
                return super().send_head()
            data = path.read_bytes()
            gz = compress and path.suffix in COMPRESSIBLE and "gzip" in self.headers.get("Accept-Encoding", "")
            if gz:
                data = gzip.compress(data, 6)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Length", str(len(data)))
            if gz:
                self.send_header("Content-Encoding", "gzip")
            immutable = FINGERPRINTED.search(path.name) or "/idx/" in self.path
            self.send_header("Cache-Control", "public, max-age=31536000, immutable" if immutable else "no-cache")
            self.end_headers()
            import io
            return io.BytesIO(data)

    return Handler


@contextlib.contextmanager
def serve(site: Path, compress: bool = True) -> Iterator[str]:
    """A local server for the site (see the module docstring); yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(site, compress))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class Meter:
    """Bytes on the wire (encoded, with headers) and requests of one page, via CDP."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Network.enable")
        self.urls: dict[str, str] = {}
        self.cached: set[str] = set()
        self.bytes: dict[str, int] = {}
        self.cdp.on("Network.requestWillBeSent", lambda e: self.urls.__setitem__(e["requestId"], e["request"]["url"]))
        self.cdp.on("Network.responseReceived", self._response)
        self.cdp.on("Network.requestServedFromCache", lambda e: self.cached.add(e["requestId"]))
        self.cdp.on("Network.loadingFinished",
                    lambda e: self.bytes.__setitem__(e["requestId"], int(e["encodedDataLength"])))

    def _response(self, e: dict) -> None:
        r = e["response"]
        if r.get("fromDiskCache") or r.get("fromServiceWorker") or r.get("fromPrefetchCache"):
            self.cached.add(e["requestId"])

    def reset(self) -> None:
        self.urls.clear()
        self.cached.clear()
        self.bytes.clear()

    def totals(self) -> tuple[int, int]:
        """(bytes, requests) that went to the network."""
        ids = [i for i in self.urls if i not in self.cached and self.urls[i].startswith("http")]
        return sum(self.bytes.get(i, 0) for i in ids), len(ids)

    def urls_fetched(self) -> list[str]:
        return [u for i, u in self.urls.items() if i not in self.cached]


def measure(browser, base: str, edition: str, url: str, search: str | None = "罚张") -> dict[str, tuple[int, int]]:  # type: ignore[no-untyped-def]
    """Cold, warm and first-search (bytes, requests) of one page on a phone."""
    ctx = browser.new_context(service_workers="block", **PHONE)
    page = ctx.new_page()
    meter = Meter(page)
    out: dict[str, tuple[int, int]] = {}
    page.goto(f"{base}/{edition}/{url}", wait_until="load")
    page.wait_for_timeout(300)
    out["cold"] = meter.totals()
    meter.reset()
    page.goto(f"{base}/{edition}/{url}", wait_until="load")
    page.wait_for_timeout(300)
    out["warm"] = meter.totals()
    if search:
        meter.reset()
        page.click(".kb-hsearch-open")
        page.fill(".kb-hsearch-input", search)
        page.wait_for_selector(".kb-hsearch [data-kb-results][data-kb-state=done]")
        out["first search"] = meter.totals()
    ctx.close()
    return out


def precache_bytes(site: Path, edition: str) -> tuple[int, int, int]:
    """(files, raw bytes, gzip bytes) the service worker downloads once."""
    from kb.site.offline import edition_files
    files = edition_files(site / edition)
    raw = gz = 0
    for rel in files:
        data = (site / edition / rel).read_bytes()
        raw += len(data)
        gz += len(gzip.compress(data, 6)) if rel.endswith(COMPRESSIBLE) else len(data)
    return len(files), raw, gz


def navigation_share(site: Path, edition: str) -> list[tuple[str, int, int]]:
    """(page kind, HTML bytes, bytes of the primary navigation) for each page kind."""
    out = []
    for kind, url in PAGES.items():
        html = (site / edition / url / "index.html").read_text(encoding="utf-8")
        start, end = html.find("md-nav--primary"), html.find("md-sidebar--secondary")
        out.append((kind, len(html.encode()), len(html[start:end].encode()) if 0 <= start < end else 0))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, default=ROOT / "site")
    ap.add_argument("--edition", choices=("hans", "hant"), default="hans")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for compress in (True, False):
            with serve(args.site, compress) as base:
                print(f"{'gzip' if compress else 'raw (no compression)'} — phone 390×844, edition {args.edition}:")
                for kind, url in PAGES.items():
                    r = measure(browser, base, args.edition, url)
                    print(f"  {kind:13} " + "  ".join(f"{k} {b / 1024:7.1f} KB {n:2d} req" for k, (b, n) in r.items()))
        browser.close()
    print("HTML per page (navigation per rule book: a page's size does not grow with the number of books):")
    for kind, size, nav in navigation_share(args.site, args.edition):
        print(f"  {kind:13} {size / 1024:6.1f} KB, navigation {nav / 1024:5.1f} KB")
    n, raw, gz = precache_bytes(args.site, args.edition)
    print(f"service worker, once after the first visit: {n} files, {raw / 1024:.0f} KB raw, {gz / 1024:.0f} KB gzip")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
