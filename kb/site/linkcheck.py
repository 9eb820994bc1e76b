"""Link integrity of the built site: every internal href and #anchor must resolve."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag in ("a", "link") and a.get("href"):
            self.links.append(a["href"])


def check_site(site: Path) -> list[str]:
    """Broken internal links of a built site, as 'page: href (why)' lines; empty when all resolve."""
    pages: dict[Path, _Page] = {}
    for path in site.rglob("*.html"):
        parser = _Page()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.resolve()] = parser
    broken = []
    for path, page in sorted(pages.items()):
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
                continue
            if parts.path.startswith("/"):        # root-absolute: the site directory is the server root
                target = (site / unquote(parts.path).lstrip("/")).resolve()
                if parts.path.endswith("/") or target.is_dir():
                    target = target / "index.html"
            elif parts.path:
                target = (path.parent / unquote(parts.path)).resolve()
                if parts.path.endswith("/") or target.is_dir():
                    target = target / "index.html"
            else:
                target = path
            rel = path.relative_to(site.resolve())
            if not str(target).startswith(str(site.resolve())):
                broken.append(f"{rel}: {href} (outside the site)")
                continue
            if not target.exists():
                broken.append(f"{rel}: {href} (no such page)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages.get(target).ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{rel}: {href} (no anchor #{unquote(parts.fragment)})")
    return broken
