"""mkdocs hooks of the site build (kb/site/build.py names this file in each edition's config).

Record bodies are written as HTML beside the Markdown (kb/site/render.py: ``Renderer.slots``),
and each stands in the Markdown as a paragraph holding only its slot's name; ``on_page_content``
puts the HTML in its place. The file of slots is named by ``extra.kb_slots`` in the config.
This module imports nothing of kb: mkdocs loads it in its own process.
"""
from __future__ import annotations

import json
import re
from typing import Any

SLOT = "kbslot{}"
SLOT_PARAGRAPH = re.compile(r"<p>(kbslot\d+)</p>")
_slots: dict[str, str] = {}


def fill_slots(content: str, slots: dict[str, str]) -> str:
    """A page's HTML with each slot paragraph replaced by the record body it stands for."""
    return SLOT_PARAGRAPH.sub(lambda m: slots[m.group(1)], content)


def on_config(config: Any) -> None:
    _slots.clear()
    path = config.extra.get("kb_slots")
    if path:
        with open(path, encoding="utf-8") as f:
            _slots.update(json.load(f))


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return fill_slots(html, _slots) if _slots else html
