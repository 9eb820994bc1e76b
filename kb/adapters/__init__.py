"""Stage 2: one adapter per source format, each undoing that witness's damage.

An adapter turns a verified source text into blocks: the witness's paragraphs
in reading order, each with the source lines it came from. Debris is removed
by explicit rules and every removal is logged as a repair; nothing of the rules
may be dropped, nothing else may reach a block.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kb.errors import KbError
from kb.sources import Source


@dataclass
class Block:
    """A paragraph (or run-on stretch) of one witness, after damage repair."""

    text: str
    lines: tuple[int, int]
    kind: str = "text"          # text | toc | footnote | doc-title
    label: str = ""             # footnote number, for kind == "footnote"
    anchor: int = -1            # footnotes: index of the block holding the mark


@dataclass
class Adapted:
    source: Source
    blocks: list[Block]
    repairs: list[dict] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)    # paragraphs removed as a repeated copy

    def log(self, what: str, lines: tuple[int, int], detail: str = "") -> None:
        self.repairs.append({"source": self.source.file, "what": what,
                             "lines": list(lines), "detail": detail})


def adapt(source: Source, text: str) -> Adapted:
    """Dispatch to the adapter for the source's format."""
    from kb.adapters import bullets, envelope, fullwidth, outline_table, pinyin

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
