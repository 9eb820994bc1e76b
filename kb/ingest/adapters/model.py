"""The adapters' output: a witness's text blocks after damage repair, with a log of every repair."""
from __future__ import annotations

from dataclasses import dataclass, field

from kb.ingest.sources import Source


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
