"""Stage 2: one adapter per source format, each undoing that witness's damage.

An adapter turns a verified source text into blocks: the witness's paragraphs
in reading order, each with the source lines it came from. Debris is removed
by explicit rules and every removal is logged as a repair; nothing of the rules
may be dropped, nothing else may reach a block.
"""
from __future__ import annotations

from collections.abc import Callable

from kb.core.errors import KbError
from kb.ingest.adapters import bullets, envelope, fullwidth, outline_table, pinyin
from kb.ingest.adapters.model import Adapted, Block
from kb.ingest.sources import Source

__all__ = ["Adapted", "Block", "adapt"]


def adapt(source: Source, text: str) -> Adapted:
    """Dispatch to the adapter for the source's format."""
    table: dict[str, Callable[[Source, str], Adapted]] = {
        "json-envelope": envelope.adapt,
        "pinyin-glued": pinyin.adapt,
        "fullwidth-paged": fullwidth.adapt,
        "outline-table": outline_table.adapt,
        "bullet-list": bullets.adapt,
    }
    try:
        fn = table[source.format]
    except KeyError:
        raise KbError(f"{source.path}: unknown format '{source.format}'") from None
    adapted = fn(source, text)
    if not any(b.kind == "text" and b.text.strip() for b in adapted.blocks):
        raise KbError(f"{source.path}: no text left after repair")
    return adapted
