"""Link integrity of the built site: every internal href and #anchor must resolve.

Pages are scanned with regular expressions (tags outside comments, scripts and styles;
attribute values unescaped as an HTML parser would), and links are resolved as strings
against the set of the site's files, with no filesystem call per link.
"""
from __future__ import annotations

import html
import os
import posixpath
import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

_SKIP = re.compile(r"<!--.*?-->|<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
_TAG = re.compile(r"""<([a-zA-Z][^\s/>]*)((?:\s*[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]*))?)*)\s*/?>""")
_ATTR = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]*))?""")


def scan(text: str) -> tuple[set[str], list[str]]:
    """(ids and <a name>s, hrefs of <a> and <link>) of one page."""
    ids: set[str] = set()
    links: list[str] = []
    for m in _TAG.finditer(_SKIP.sub(" ", text)):
        body = m.group(2)
        low = body.lower()
        if "id" not in low and "href" not in low and "name" not in low:    # most tags: nothing to learn
            continue
        tag = m.group(1).lower()
        attrs: dict[str, str] = {}
        for a in _ATTR.finditer(body):
            name = a.group(1).lower()
            value = a.group(2)
            if value is None:
                continue
            if value[:1] in "\"'":
                value = value[1:-1]
            attrs[name] = html.unescape(value)
        if attrs.get("id"):
            ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            ids.add(attrs["name"])
        if tag in ("a", "link") and attrs.get("href"):
            links.append(attrs["href"])
    return ids, links


def check_site(site: Path) -> list[str]:
    """Broken internal links of a built site, as 'page: href (why)' lines; empty when all resolve."""
    site = site.resolve()
    files: set[str] = set()
    dirs: set[str] = {"."}
    for dirpath, dirnames, filenames in os.walk(site):
        rel = os.path.relpath(dirpath, site).replace(os.sep, "/")
        for d in dirnames:
            dirs.add(posixpath.normpath(f"{rel}/{d}"))
        for f in filenames:
            files.add(posixpath.normpath(f"{rel}/{f}"))
    pages = {rel: scan((site / rel).read_text(encoding="utf-8", errors="replace"))
             for rel in files if rel.endswith(".html")}
    broken = []
    for rel in sorted(pages, key=lambda r: PurePosixPath(r).parts):
        for href in pages[rel][1]:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
                continue
            if parts.path.startswith("/"):        # root-absolute: the site directory is the server root
                target = posixpath.normpath(unquote(parts.path).lstrip("/") or ".")
            elif parts.path:
                target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), unquote(parts.path)))
            else:
                target = rel
            if parts.path and (parts.path.endswith("/") or target in dirs):
                target = posixpath.normpath(f"{target}/index.html")
            if target == ".." or target.startswith("../"):
                broken.append(f"{rel}: {href} (outside the site)")
                continue
            if target not in files:
                broken.append(f"{rel}: {href} (no such page)")
                continue
            if parts.fragment and target.endswith(".html"):
                ids = pages[target][0] if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{rel}: {href} (no anchor #{unquote(parts.fragment)})")
    return broken
