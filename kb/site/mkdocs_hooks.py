"""mkdocs hooks of the site build (kb/site/build.py names this file in each edition's config).

* Record bodies are written as HTML beside the Markdown (kb/site/render.py: ``Renderer.slots``),
  and each stands in the Markdown as a paragraph holding only its slot's name; ``on_page_content``
  puts the HTML in its place. The file of slots is named by ``extra.kb_slots`` in the config.
* mkdocs does no work for files the build would delete: the theme's 404 page (the server answers
  404s itself), lunr and the search workers (the site has its own search).
* The red suits (♥ ♦) are marked in a page's text for the style sheet to colour, as card players
  read them (``red_suits``); tags, scripts and attributes are left as they are.
* Previous and next at a page's foot stay within its own rule book or section (``on_page_context``):
  the last law of one book does not lead on to another book, nor a book's first page back to the
  search page.
* The theme's files are listed without walking hidden folders (mkdocs skips their files anyway;
  mkdocs-material's ``.icons`` holds thousands), and compiled templates are kept in Jinja's
  bytecode cache, shared by both editions and later builds (keyed by each template's source).

This module imports nothing of kb: mkdocs loads it in its own process.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

SLOT = "kbslot{}"
SLOT_PARAGRAPH = re.compile(r"<p>(kbslot\d+)</p>")
# Theme files no page uses (kb/site/build.py still removes them, should mkdocs write them).
UNUSED_THEME = ("assets/javascripts/lunr/", "assets/javascripts/workers/")
_slots: dict[str, str] = {}
RED_SUITS = "♥♦"
# a tag, or a whole script or style element: passed over; the text between is searched for red suits
_TAG_OR_SCRIPT = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.S | re.I)
_RED_SUIT = re.compile(f"[{RED_SUITS}]")


def fill_slots(content: str, slots: dict[str, str]) -> str:
    """A page's HTML with each slot paragraph replaced by the record body it stands for."""
    return SLOT_PARAGRAPH.sub(lambda m: slots[m.group(1)], content)


def red_suits(html: str) -> str:
    """``html`` with each ♥ and ♦ of its text in ``<span class="kb-suit-red">``."""
    if not _RED_SUIT.search(html):
        return html
    def mark(text: str) -> str:
        return _RED_SUIT.sub(r'<span class="kb-suit-red">\g<0></span>', text)
    out: list[str] = []
    pos = 0
    for m in _TAG_OR_SCRIPT.finditer(html):
        out += [mark(html[pos:m.start()]), m.group(0)]
        pos = m.end()
    out.append(mark(html[pos:]))
    return "".join(out)


def on_config(config: Any) -> None:
    _slots.clear()
    path = config.extra.get("kb_slots")
    if path:
        with open(path, encoding="utf-8") as f:
            _slots.update(json.load(f))
    theme = config.theme
    theme.static_templates.discard("404.html")
    get_env = theme.get_env

    def env_for_kb() -> Any:
        import jinja2
        env = get_env()
        loader = env.loader
        if isinstance(loader, jinja2.FileSystemLoader):
            loader.list_templates = lambda: _list_templates(loader)  # type: ignore[method-assign]
        try:
            env.bytecode_cache = jinja2.FileSystemBytecodeCache()
        except (OSError, RuntimeError):      # no usable temporary folder: compile as usual
            pass
        return env

    theme.get_env = env_for_kb


def _list_templates(loader: Any) -> list[str]:
    """jinja2.FileSystemLoader.list_templates without hidden folders."""
    found = set()
    for searchpath in loader.searchpath:
        for dirpath, dirnames, filenames in os.walk(searchpath, followlinks=loader.followlinks):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for filename in filenames:
                template = os.path.join(dirpath, filename)[len(searchpath):].strip(os.path.sep).replace(os.path.sep, "/")
                found.add(template[2:] if template[:2] == "./" else template)
    return sorted(found)


def on_files(files: Any, config: Any) -> Any:
    for file in list(files):
        if file.src_uri.startswith(UNUSED_THEME) and not file.is_documentation_page():
            files.remove(file)
    return files


def section(page: Any) -> str | None:
    """The top folder a page stands in (a rule book, ``compare``, ``rules``); None at the site's root."""
    uri = page.file.src_uri
    return uri.split("/", 1)[0] if "/" in uri else None


def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    own = section(page)
    for side in ("previous_page", "next_page"):
        other = getattr(page, side)
        if other is not None and (own is None or section(other) != own):
            setattr(page, side, None)
    return context


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return red_suits(fill_slots(html, _slots) if _slots else html)
