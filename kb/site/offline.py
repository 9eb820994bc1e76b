"""Offline use of the built site: a service worker per edition, and a download for file://.

* ``finish_edition`` writes ``sw.js`` at the edition's root: it caches every page, asset and
  search chunk of the edition when first installed (unless the browser asks to save data; then
  only what is opened); its cache name carries a hash of all
  those files, so a new build installs a new cache and deletes the old one.
* ``finish_root`` writes the landing page (``index.html``, which opens an edition) and a small
  service worker beside it, which answers for the landing page when the network does not (the
  editions' workers cover only their own folders) and, for a page of an edition this device
  never kept, says so instead of the browser's error page (as each edition's worker does for
  its own pages: ``offline_page``).
* ``write_download`` writes ``paigui-kb-offline.zip`` beside the editions: the same files with
  every relative link pointing at an ``index.html`` (a browser opening files from disk shows
  folder listings for ``law-45/``); search works there too, since the index chunks are
  scripts that load with <script> tags.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
import zipfile
from pathlib import Path

from kb.ingest.normalise import ui_text

DOWNLOAD = "paigui-kb-offline.zip"
SKIP_SUFFIXES = (".map", ".gz")
SKIP_NAMES = ("sw.js", "sitemap.xml", DOWNLOAD)
READY = "offline-ready"     # the cache entry that says every file of the edition is kept (kb.js reads it)
SKIP_DIRS = ("pdf",)        # the PDF editions (megabytes each) are downloads, not part of the offline cache
# (A word character before the name is checked in ``file_html``: a leading \b makes the scan 4x slower.)
_LINK = re.compile(r'(href|src|action)="([^"]*)"')


def edition_files(edition: Path) -> list[str]:
    """The edition's files a reader needs, as paths relative to it (sorted)."""
    return sorted(str(p.relative_to(edition)) for p in edition.rglob("*")
                  if p.is_file() and p.name not in SKIP_NAMES and p.suffix not in SKIP_SUFFIXES
                  and p.relative_to(edition).parts[0] not in SKIP_DIRS)


# The page a worker answers with for a page this device has not kept when the network fails (a
# venue's Wi-Fi with no internet leaves the browser thinking it is online): instead of the
# browser's error page. In Simplified; the hant edition's is converted (ui_text).
OFFLINE_TITLE = "这一页还没有存到这台设备上"
OFFLINE_TEXT = ("现在连不上网络，而这台设备还没有存下这一页。联网后打开一次，之后离线也能用。"
                "打印版（PDF）和繁体、简体中的另一版，都要在联网时各打开一次才会存下。")
OFFLINE_HOME = "{where}首页（已存下的页面都能离线打开）"    # where: 回到本版 (an edition), 简体版 / 繁体版 (the root)
# The pages the site writes outside mkdocs (this one and the 404 page): a heading and a few lines
# and links, readable on a phone.
SMALL_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>body{{font-family:sans-serif;margin:2rem 1.2rem;line-height:1.7;max-width:36rem}}
a{{display:inline-block;padding:0.6rem 0}}</style></head>
<body><h1>{heading}</h1>{body}</body></html>
"""


def offline_page(script: str | None, home: str) -> str:
    """The page above in one script (``None``: both, for the site root's worker)."""
    def part(s: str) -> str:
        where, href = ("回到本版", home) if script is not None else ("简体版" if s == "hans" else "繁体版", f"{home}{s}/")
        return (f"<p>{ui_text(OFFLINE_TEXT, s)}</p>"
                f"<p><a href=\"{href}\">{ui_text(OFFLINE_HOME.format(where=where), s)}</a></p>")
    if script is not None:
        title = ui_text(OFFLINE_TITLE, script)
        return SMALL_PAGE.format(lang="zh-Hans" if script == "hans" else "zh-Hant", title=title, heading=title,
                                 body=part(script))
    title = f"{OFFLINE_TITLE} · {ui_text(OFFLINE_TITLE, 'hant')}"
    return SMALL_PAGE.format(lang="zh", title=title, heading=title, body=part("hans") + part("hant"))


def finish_edition(edition: Path) -> str:
    """Write the edition's service worker; return its version (a hash of every cached file)."""
    files = edition_files(edition)
    h = hashlib.sha256()
    urls = []
    for rel in files:
        h.update(rel.encode() + b"\0" + (edition / rel).read_bytes())
        if rel == "index.html":
            urls.append("./")
        elif rel.endswith("/index.html"):
            urls.append(rel[: -len("index.html")])
        else:
            urls.append(rel)
    version = h.hexdigest()[:12]
    (edition / "sw.js").write_text(SERVICE_WORKER.replace("__VERSION__", json.dumps(f"{edition.name}-{version}"))
                                   .replace("__PREFIX__", json.dumps(f"kb-{edition.name}-"))
                                   .replace("__READY__", json.dumps(READY))
                                   .replace("__OFFLINE__", json.dumps(offline_page(edition.name, "./"), ensure_ascii=False))
                                   .replace("__FILES__", json.dumps(urls, ensure_ascii=False)), encoding="utf-8")
    return version


# The site's root page: it opens the edition this device used last (kb.js remembers it; offline,
# that is the edition it kept), else the one the browser's language asks for.
LANDING = """<!doctype html>
<html lang="zh"><head><meta charset="utf-8"><title>牌规知识库 · 牌規知識庫</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script>
var l = (navigator.language || "").toLowerCase(), page = location.protocol === "file:" ? "index.html" : "", last = null;
try { last = localStorage.getItem("kb-edition"); } catch (e) {}
location.replace((last === "hans" || last === "hant" ? last : /zh-(tw|hk|mo|hant)/.test(l) ? "hant" : "hans") + "/" + page + location.hash);
</script></head>
<body><p><a href="hans/">简体版</a> · <a href="hant/">繁體版</a></p></body></html>
"""


NOT_FOUND = """<p>找不到该页面 · 找不到該頁面：<code id="kb-path">{path}</code></p>
<p><a href="/hans/">简体版</a> · <a href="/hant/">繁體版</a> ·
<a href="/hans/search/">检索</a> · <a href="/hant/search/">搜尋</a></p>{script}"""


def not_found_page(path: str | None = None) -> str:
    """The page an address with nothing behind it gets, in both scripts: from ``kb serve`` (the
    ``path`` asked, HTML-escaped here), or from a static host as the site's /404.html (the address
    read in the browser)."""
    if path is not None:
        body = NOT_FOUND.format(path=html.escape(path), script="")
    else:
        body = NOT_FOUND.format(path="", script='\n<script>document.getElementById("kb-path").textContent = '
                                               "location.pathname;</script>")
    return SMALL_PAGE.format(lang="zh", title="404 · 牌规知识库", heading="404", body=body)


def finish_root(site: Path) -> None:
    """Write the landing page, the page a static host gives for a missing address (/404.html) and
    the root's service worker (which holds the landing page in itself)."""
    (site / "index.html").write_text(LANDING, encoding="utf-8")
    (site / "404.html").write_text(not_found_page(), encoding="utf-8")
    (site / "sw.js").write_text(ROOT_WORKER.replace("__LANDING__", json.dumps(LANDING, ensure_ascii=False))
                                .replace("__OFFLINE__", json.dumps(offline_page(None, "./"), ensure_ascii=False)),
                                encoding="utf-8")


def file_url(url: str) -> str:
    """A relative link as it must be for file://: directories end in index.html."""
    if not url or url.startswith(("#", "/", "data:", "mailto:", "javascript:")) or ":" in url.split("/")[0]:
        return url
    path, hashmark, frag = url.partition("#")
    path, qmark, query = path.partition("?")
    if not path:
        return url
    if path.endswith("/"):
        path += "index.html"
    elif path in (".", "..") or path.endswith(("/.", "/..")):
        path += "/index.html"
    return path + qmark + query + hashmark + frag


def file_html(html: str) -> str:
    """A page's relative links rewritten for file:// (see ``file_url``)."""
    def fix(m: re.Match[str]) -> str:
        before = html[m.start() - 1] if m.start() else " "
        if before.isalnum() or before == "_":          # e.g. data_src="…": not a link
            return m.group(0)
        return f'{m.group(1)}="{file_url(m.group(2))}"'
    return _LINK.sub(fix, html)


ZIP_DATE = (1980, 1, 1, 0, 0, 0)   # the earliest date a zip can hold
# Deflate level: 4 takes 0.23 s against level 6's 0.41 s for a zip 2.5% larger. It is given to
# each writestr: zipfile ignores the ZipFile's own level for entries given as a ZipInfo.
ZIP_LEVEL = 4


def write_download(site: Path) -> Path:
    """Zip both editions (and the landing page) for opening from disk; return the zip's path."""
    target = site / DOWNLOAD
    tmp = target.with_suffix(".tmp")
    files = edition_files(site)
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for rel in files:
            path = site / rel
            # a fixed date: the same site makes the same zip, byte for byte
            info = zipfile.ZipInfo(f"paigui-kb/{rel}", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            if path.suffix == ".html":
                zf.writestr(info, file_html(path.read_text(encoding="utf-8")), compresslevel=ZIP_LEVEL)
            else:
                zf.writestr(info, path.read_bytes(), compresslevel=ZIP_LEVEL)
    tmp.replace(target)
    return target


SERVICE_WORKER = """// The edition's service worker (written by kb build; kb/site/offline.py). After one visit it has
// cached every page, asset and search chunk of this edition, so all of it works offline; a new
// build brings a new version, which replaces the old cache.
"use strict";
var VERSION = __VERSION__;
var PREFIX = __PREFIX__;
var CACHE = "kb-" + VERSION;
var FILES = __FILES__;
var READY = __READY__;
var OFFLINE = __OFFLINE__;       // the page for a page not kept, when the network fails (its links: from the scope)

// A reader who asked the browser to save data (Save-Data) gets no download of the whole edition:
// the pages and search chunks they open are still kept as they go (see fetch below).
self.addEventListener("install", function (event) {
  var conn = self.navigator && self.navigator.connection;
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    if (conn && conn.saveData) return null;
    // the marker kb.js looks for to tell the reader the edition is kept (only once all of it is)
    return cache.addAll(FILES).then(function () {
      return cache.put(self.registration.scope + READY, new Response(VERSION));
    });
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf(PREFIX) === 0 && k !== CACHE; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var req = event.request;
  if (req.method !== "GET" || req.url.indexOf(self.registration.scope) !== 0) return;
  event.respondWith(caches.open(CACHE).then(function (cache) {
    return cache.match(req, { ignoreSearch: true }).then(function (hit) {
      return hit || fetch(req).then(function (resp) {
        if (resp.ok && resp.type === "basic") cache.put(req, resp.clone());
        return resp;
      }, function (err) {
        if (req.mode !== "navigate") throw err;
        return new Response(OFFLINE.split('href="./').join('href="' + self.registration.scope),
                            { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
      });
    });
  }));
});
"""


ROOT_WORKER = """// The site root's service worker (written by kb build; kb/site/offline.py). The editions' workers
// cover /hans/ and /hant/; this one answers for the root page itself, from the network when it
// can and else with the landing page it holds (which opens the edition this device kept), and,
// for a page no other worker covers, says when the network fails that it is not kept here.
"use strict";
var LANDING = __LANDING__;
// what a page this device has not kept gets when the network fails (an edition never opened here
// has no worker of its own, so this one is asked): both scripts
var OFFLINE = __OFFLINE__;
self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });
self.addEventListener("fetch", function (event) {
  var req = event.request, scope = self.registration.scope, url = req.url.split(/[?#]/)[0];
  if (req.method !== "GET" || req.mode !== "navigate") return;
  var root = url === scope || url === scope + "index.html";
  event.respondWith(fetch(req).catch(function () {
    return new Response(root ? LANDING : OFFLINE.split('href="./').join('href="' + scope),
                        { status: root ? 200 : 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }));
});
"""
