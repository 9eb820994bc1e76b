"""Witness 000: text inside a JSON envelope whose escapes were escaped once more."""
from __future__ import annotations

import json
import re

from kb.core.errors import KbError
from kb.ingest.adapters.model import Adapted, Block
from kb.ingest.normalise import comparison_form
from kb.ingest.sources import Source

LAW_HEADING = re.compile(r"^第(\d+)[條条]")


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def adapt(source: Source, text: str) -> Adapted:
    start = text.find("{")
    if start < 0:
        raise KbError(f"{source.path}:1: no JSON envelope (no '{{')")
    envelope = text[start:]
    # One extra layer of escaping: \" for " and \\ for \ (so \\n is \n).
    unescaped = envelope.replace('\\"', '"').replace("\\\\", "\\")
    try:
        data = json.loads(unescaped)
    except json.JSONDecodeError as exc:
        # Map the position back approximately to the original line.
        line = _line_of(text, start) + unescaped.count("\n", 0, exc.pos)
        raise KbError(f"{source.path}:{line}: broken JSON envelope: {exc.msg}") from None
    content = data.get("content") if isinstance(data, dict) else None
    if not isinstance(content, str) or not content.strip():
        raise KbError(f"{source.path}:{_line_of(text, start)}: JSON envelope has no 'content' text")
    key = text.find('content', start)
    line = _line_of(text, key if key >= 0 else start)
    out = Adapted(source, [])
    title = text[:start].strip()
    if title:
        out.blocks.append(Block(title, (1, _line_of(text, start) - 1), kind="doc-title"))
    paras = [p.strip() for p in re.split(r"\n+", content) if p.strip()]
    paras = _drop_repeated_stretch(paras, out, (line, line))
    paras = _drop_repeated_titles(paras, out, (line, line))
    out.blocks.extend(Block(p, (line, line)) for p in paras)
    return out


def _drop_repeated_stretch(paras: list[str], out: Adapted, lines: tuple[int, int]) -> list[str]:
    """Remove a stretch that repeats earlier text (000 repeats part of Laws 58-60).

    The stretch is found from law headings that occur twice: it runs from the
    first occurrence of the last repeated law to its second occurrence. Every
    sentence of it must stand elsewhere in the kept text, or nothing is dropped
    and the build fails: a broken source must never lose clauses silently.
    """
    while True:
        seen: dict[int, int] = {}
        repeated: list[tuple[int, int]] = []
        for i, p in enumerate(paras):
            m = LAW_HEADING.match(p)
            if m:
                n = int(m.group(1))
                if n in seen:
                    repeated.append((seen[n], i))
                else:
                    seen[n] = i
        if not repeated:
            return paras
        first, second = max(repeated, key=lambda r: r[0])
        dropped, kept = paras[first:second], paras[:first] + paras[second:]
        kept_text = comparison_form("".join(kept))
        for p in dropped:
            for piece in re.split(r"[。；：]", p):
                c = comparison_form(_strip_marker(piece))
                if len(c) >= 2 and c not in kept_text:
                    raise KbError(f"{out.source.path}:{lines[0]}: law heading repeated but the text differs: "
                                  f"'{piece[:30]}' stands only in the repeated stretch")
        out.dropped.extend(dropped)
        out.log("dropped repeated stretch", lines,
                f"{len(dropped)} paragraphs from '{dropped[0][:12]}' (law heading repeated); "
                "every sentence stands elsewhere")
        paras = kept


def _drop_repeated_titles(paras: list[str], out: Adapted, lines: tuple[int, int]) -> list[str]:
    """A paragraph that only repeats the law heading just before it (第60條X / X) is debris."""
    kept: list[str] = []
    for p in paras:
        prev = LAW_HEADING.match(kept[-1]) if kept else None
        if prev and kept[-1][prev.end():].strip() == p.strip():
            out.log("repeated law title removed", lines, p)
            continue
        kept.append(p)
    return kept


def _strip_marker(s: str) -> str:
    return re.sub(r"^\s*(?:[A-Ha-hl]|\d{1,2})\s*[.．、]", "", s.strip())
