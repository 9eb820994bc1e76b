"""Annotate a clause text: wrap its resolved references in links."""
from __future__ import annotations

import html
from collections.abc import Callable, Iterable

from kb.ingest.xref.models import Ref

__all__ = ["annotate"]


def annotate(text: str, refs: Iterable[Ref], href: Callable[[Ref], str | None], *,
             style: str = "markdown") -> str:
    """Wrap each resolved reference in a link; nothing else in ``text`` is escaped.

    ``style="markdown"``: ``[第47条E款2](url)``; unresolved, lost and external stay plain.
    ``style="html"``: ``<a class="xref" href="url">…</a>``; the others become
    ``<span class="xref xref-lost">…</span>`` (``-external``, ``-unresolved``).
    Overlapping or out-of-range spans are skipped (the earlier one wins).
    """
    if style not in ("markdown", "html"):
        raise ValueError(f"unknown style {style!r}")
    out: list[str] = []
    pos = 0
    for r in sorted(refs, key=lambda r: (r.span[0], r.span[1])):
        a, b = r.span
        if a < pos or b > len(text) or a >= b:
            continue
        url = href(r) if r.status == "resolved" and r.target else None
        piece = text[a:b]
        if url:
            if style == "markdown":
                piece = f"[{piece}]({url})"
            else:
                cls = "xref xref-coarser" if r.coarser else "xref"
                piece = f'<a class="{cls}" href="{html.escape(url, quote=True)}">{piece}</a>'
        elif style == "html":
            piece = f'<span class="xref xref-{r.status}">{piece}</span>'
        out.append(text[pos:a])
        out.append(piece)
        pos = b
    out.append(text[pos:])
    return "".join(out)
